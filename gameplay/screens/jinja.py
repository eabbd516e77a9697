"""Jinja2 for the games' templates and the fragments a push renders, inside Django's template engine.

A template named ``*.jinja`` (under ``templates/``) is compiled by Jinja2, and Django's templates include
it like any other (``{% include "….jinja" %}``, ``render_to_string``): Django's loader hands it over
(:class:`Loader`). It renders from the names it uses (found once from its source and the sources it
includes), each read from the Django context it is given. The other way, ``include("x.html", a=b)`` renders a
Django template (or a Jinja one) from that Django context with ``a`` added, and ``piece(id, "x.jinja", part=p)``
is the element that template draws from ``p`` alone, a piece a push may send alone (``gameplay.screens.pieces``).
Pages stay Django's.

What the two engines do differently, these templates do as Django does, so a template moved from one to
the other gives the same bytes: a dict's key before an attribute of the same name (``view.items`` is the
key); a missing name or key prints nothing, ``is none`` holds for it, and a comparison that cannot be made
(``1 in None``) is false; every value is escaped by Django's ``escape`` (``&#x27;``, not markupsafe's
``&#39;``); ``default``, ``last``, ``join``, ``length`` are Django's filters. Words: ``_("…")`` is
``{% translate "…" %}`` (kept per language, as ``i18n_kept`` keeps it), and ``_("… %(who)s")|fill(who=…)`` is
``{% blocktranslate with who=… %}… {{ who }}{% endblocktranslate %}`` (the text as translated, the values
escaped); ``ngettext("…", "…", n)|fill(n=n)`` its plural form. ``makemessages`` reads those calls from a
``.jinja`` file's tags (``gameplay.management.commands.makemessages``).

Why: the Django engine's own cost per node (resolving names, nodes, escaping) was most of a push's CPU;
Jinja2 compiles a template to Python and renders the same markup in a third to a half of the time
(``docs/performance.md``).
"""

from __future__ import annotations

import functools
import html
import operator
import re
import threading
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from typing import Any

import jinja2
import jinja2.meta
from django.conf import settings
from django.template import Context, Origin, TemplateDoesNotExist, defaultfilters, engines
from django.template.loaders import cached
from django.utils import translation
from django.utils.html import conditional_escape, strip_spaces_between_tags
from django.utils.safestring import SafeString
from django.utils.timezone import template_localtime
from jinja2 import nodes
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from engines.registry import ENGINES
from gameplay.screens import pieces
from gameplay.templatetags import game_tags, hand_tags
from gameplay.templatetags.url_memo import url_of

_OPERATORS = {"in": lambda a, b: a in b, "notin": lambda a, b: a not in b, "lt": operator.lt, "gt": operator.gt,
              "lteq": operator.le, "gteq": operator.ge}


def _compare(op: str, left: Any, right: Any) -> bool:
    """A comparison as Django's ``{% if %}`` makes it: one that cannot be made (``1 in None``) is false."""
    try:
        return _OPERATORS[op](left, right)
    except (TypeError, jinja2.UndefinedError):  # a missing name compared
        return False


class _DjangoComparisons(NodeTransformer):
    """``a in b``, ``a < b`` (and the like) written as calls of :func:`_compare`."""

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:  # noqa: N802 (the visitor's naming)
        visited = self.generic_visit(node)
        if not isinstance(visited, nodes.Compare) or len(node.ops) != 1 or node.ops[0].op not in _OPERATORS:
            return visited
        return nodes.Call(nodes.Name("_compare", "load", lineno=node.lineno),
                          [nodes.Const(node.ops[0].op, lineno=node.lineno), node.expr, node.ops[0].expr],
                          [], None, None, lineno=node.lineno)


# How the Python that Jinja writes for a template asks its context for a name.
_RESOLVED = re.compile(r"\bresolve(?:_or_missing)?\('([^']+)'\)")


class _Environment(jinja2.Environment):
    # For each template compiled: the names its code asks its context for, and the templates it includes.
    compiled: dict[str, tuple[frozenset[str], tuple[str | None, ...]]]

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = _DjangoComparisons().visit(super()._parse(source, name, filename))
        tree.set_environment(self)
        return tree

    def _generate(self, source: Any, name: str | None, filename: str | None, defer_init: bool = False) -> str:
        tree = self._parse(source, name, filename) if isinstance(source, str) else source
        code = super()._generate(tree, name, filename, defer_init=defer_init)
        if name is not None:
            included = tuple(jinja2.meta.find_referenced_templates(tree))
            self.compiled[name] = (frozenset(_RESOLVED.findall(code)), included)
        return code

    def make_globals(self, d: Any = None) -> Any:  # type: ignore[override]
        # A plain dict, not Jinja's ChainMap: each render and include copies a template's globals, and copying a
        # ChainMap walks it key by key. The environment's globals are all set before the first template loads.
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        # Django's order: a dict's key first (a key named like a dict's method is the key).
        if isinstance(obj, dict):
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def _finalize(value: Any) -> Any:
    """Every printed value as Django prints it: escaped as Django's ``escape`` does, unless it is safe already."""
    return value if hasattr(value, "__html__") else Markup(html.escape(str(value)))


def fill(text: str, **values: Any) -> SafeString:
    """``{% blocktranslate %}``'s result: the translated text (not escaped) with each value escaped into it."""
    return SafeString(str(text) % {name: conditional_escape(value) for name, value in values.items()})


class _Words(dict):
    """One language's ``{% translate "…" %}``: each literal translated once (the text and the catalogs cannot change
    while the process runs); safe, as Django's string literals are. Looked up in the language of the render."""

    def __missing__(self, message: str) -> SafeString:
        word = self[message] = SafeString(translation.gettext(message))
        return word


_WORDS: defaultdict[str | None, _Words] = defaultdict(_Words)


def _words() -> _Words:
    """The words of the language now active (each render asks once: asking for the language is not free)."""
    return _WORDS[translation.get_language()]


def _translate(message: str) -> SafeString:
    return _words()[message]


def _default(value: Any, otherwise: Any) -> Any:
    return value or otherwise


def _last(value: Any) -> Any:
    try:
        return value[-1]
    except (IndexError, KeyError, TypeError):
        return ""


def _spaceless(value: Any) -> SafeString:
    """``{% spaceless %}``: the markup stripped, with no whitespace between its tags."""
    return SafeString(strip_spaces_between_tags(str(value).strip()))


def _takes_context(tag: Callable[..., Any], *context_names: str) -> Callable[..., Any]:
    """A Django tag that takes the context (``takes_context=True``) as a Jinja function given the template's context,
    ``move_form_open("cls", type="vote")``; ``context_names``: what it reads there beyond its arguments (``_own_names``
    has the template read them from the Django context)."""

    @jinja2.pass_context
    @functools.wraps(tag)
    def called(context: jinja2.runtime.Context, *args: Any, **kwargs: Any) -> Any:
        return tag(context, *args, **kwargs)

    called.context_names = context_names  # type: ignore[attr-defined]
    return called


_MOVE_FORM_NAMES = ("frozen", "move_url", "version", "window")  # game_tags._move_form_open


SUFFIX = ".jinja"  # the names of the templates that are Jinja's
DJANGO = "django_context"  # the name under which a render holds the Django context it was given (for piece())


@jinja2.pass_context
def _piece(context: jinja2.runtime.Context, piece_id: Any, template_name: str, part: Any = None) -> Markup:
    """``piece("bv-seat-" ~ s.index, "….jinja", part=parts["bv-seat-" ~ s.index])`` is the element that template draws
    from its ``part`` alone (``screens.pieces``): a piece a push may send alone."""
    template = get_template(template_name)

    def render(values: dict) -> str:
        return template.render(Context(values, use_l10n=False))

    digits = pieces.digits_around(_django_of(context).render_context.dicts)
    return Markup(pieces.place_piece(str(piece_id), template_name, {} if isinstance(part, jinja2.Undefined) else part,
                                     render, digits))


def _defined(names: dict[str, Any]) -> dict[str, Any]:
    """Names handed to a Django context: a missing one as Django has it there (its ``string_if_invalid``, "")."""
    return {name: "" if isinstance(value, jinja2.Undefined) else value for name, value in names.items()}


@jinja2.pass_context
def _include(context: jinja2.runtime.Context, name: str | list[str], **names: Any) -> Markup:
    """``{% include name with … %}`` of any template, Django's or Jinja's (a game's part may be either), or of the first
    of a list that exists (the ``game_template`` filter's): it sees the names of the Django context this render came
    from, and ``names``."""
    django = _django_of(context)
    template = engines["django"].engine.select_template([name] if isinstance(name, str) else name)
    with django.push(**_defined(names)):
        return Markup(template.render(django))


def _django_of(context: jinja2.runtime.Context) -> Context:
    django = context.get(DJANGO)
    return Context(dict(context.get_all())) if django is None else django


@jinja2.pass_context
def _nativedigits(context: jinja2.runtime.Context, caller: Callable[[], str]) -> Markup:
    """``{% call nativedigits() %}…{% endcall %}``: ``{% nativedigits %}`` (``game_tags``), its pieces' digits too."""
    return Markup(game_tags.in_native_digits(_django_of(context), caller))


# The values of a table's game-night scoreboard between games, from (table, game): the community app hands them
# over (``community.apps.CommunityConfig.ready``: ``group_tags.night_scoreboard``), so gameplay never imports it.
_NIGHT_SCOREBOARD: list[Callable[[Any, Any], dict]] = []


def night_scoreboard_from(values: Callable[[Any, Any], dict]) -> None:
    """The board's game-night scoreboard is drawn from ``values(table, game)`` (none until it is given)."""
    _NIGHT_SCOREBOARD[:] = [values]


@jinja2.pass_context
def _night_scoreboard(context: jinja2.runtime.Context, table: Any, game: Any = None) -> Markup:
    """``{% night_scoreboard table game %}`` (``community``'s ``group_tags``): its template with its own values
    alone, as Django's inclusion tags render; nothing without the community app."""
    if not _NIGHT_SCOREBOARD:
        return Markup("")
    template = engines["django"].engine.get_template("groups/_night_scoreboard.html")
    return Markup(template.render(_django_of(context).new(_NIGHT_SCOREBOARD[0](table, game))))


@jinja2.pass_context
def _csrf_input(context: jinja2.runtime.Context) -> Markup:
    """``{% csrf_token %}``: the form's hidden token field, on a page (whose context holds the token). A pushed screen
    holds none: its forms get the token from the page's header as they leave (lobby/static/js/forms.js)."""
    token = context.get("csrf_token")
    if not token or token == "NOTPROVIDED":
        return Markup("")
    return Markup('<input type="hidden" name="csrfmiddlewaretoken" value="{}">').format(token)


_csrf_input.context_names = ("csrf_token",)  # type: ignore[attr-defined]


def _as_django(function: Callable[..., Any]) -> Callable[..., Any]:
    """A Django filter as Django applies it: to ``""`` for a missing name or key (its ``string_if_invalid``)."""

    @functools.wraps(function)
    def applied(value: Any, *args: Any) -> Any:
        return function("" if isinstance(value, jinja2.Undefined) else value, *args)

    return applied


def _widthratio(value: Any, max_value: Any, max_width: Any) -> str:
    """``{% widthratio value max width as x %}``: ``x = widthratio(value, max, width)``, text as Django's."""
    try:
        return str(round(float(value) / float(max_value) * float(max_width)))
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return "0" if max_value == 0 else ""


def _local(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter Django gives a date in the current time zone (``expects_localtime``), given it so."""

    @functools.wraps(function)
    def applied(value: Any, *args: Any) -> Any:
        return function(template_localtime(value), *args)

    return applied


def _is_none(value: Any) -> bool:
    return value is None or isinstance(value, jinja2.Undefined)  # Django's missing name is None in a condition


@cache
def environment() -> _Environment:
    """The one Jinja environment: templates/ (the project's), Django's escaping and words, our filters."""
    env = _Environment(
        loader=jinja2.FileSystemLoader([str(folder) for folder in settings.TEMPLATES[0]["DIRS"]]),
        autoescape=True, keep_trailing_newline=True, finalize=_finalize, undefined=jinja2.ChainableUndefined,
        auto_reload=settings.DEBUG, cache_size=-1)
    env.compiled = {}
    env.globals.update(
        _compare=_compare, _=_translate, gettext=_translate, ngettext=translation.ngettext,
        pgettext=translation.pgettext, language_bidi=translation.get_language_bidi, piece=_piece, include=_include,
        nativedigits=_nativedigits, url=url_of, csrf_input=_csrf_input, night_scoreboard=_night_scoreboard,
        move_form_open=_takes_context(game_tags.move_form_open, *_MOVE_FORM_NAMES),
        move_button=_takes_context(game_tags.move_button, *_MOVE_FORM_NAMES),
        reference_card=_takes_context(game_tags.reference_card, "game"),
        by_position=hand_tags.by_position, orders_by_position=hand_tags.orders_by_position,
        log_line=game_tags.log_line, recent_log=game_tags.recent_log, step_lines=game_tags.step_lines,
        widthratio=_widthratio)
    env.filters.update(fill=fill, default=_default, spaceless=_spaceless, **{
        name: _as_django(function) for name, function in (
            ("last", _last), ("get", game_tags.get), ("seat_name", game_tags.seat_name),
            ("seat_names", game_tags.seat_names), ("join_names", game_tags.join_names),
            ("ordinal_card", game_tags.ordinal_card), ("digits", game_tags.digits),
            ("names_of", hand_tags.names_of), ("learned_by_seat", hand_tags.learned_by_seat),
            ("private_lines", hand_tags.private_lines), ("public_lines", hand_tags.public_lines),
            ("positions", hand_tags.positions),
            # Django's own, as Django applies them (its join escapes as Django does; length of a missing name is 0)
            ("join", defaultfilters.join), ("add", defaultfilters.add), ("center", defaultfilters.center),
            ("stringformat", defaultfilters.stringformat), ("length", defaultfilters.length),
            ("yesno", defaultfilters.yesno), ("time", _local(defaultfilters.time)),
            ("date", _local(defaultfilters.date)),
            ("game_template", game_tags.game_template))})
    env.tests["none"] = _is_none
    for engine in ENGINES.values():  # each game's own helpers, under the names its Django templates use
        env.filters.update({name: _as_django(function) for name, function in engine.template_filters.items()})
        env.globals.update(engine.template_tags)
    return env


@cache
def _own_names(name: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names the template ``name`` reads from its context (what its code asks for, and what the functions it
    calls read: ``context_names``), and the templates it includes."""
    env = environment()
    env.get_template(name)  # compiled (once)
    names, included = env.compiled[name]
    if None in included:
        raise jinja2.TemplateSyntaxError("a .jinja template includes only templates named in it", 1, name)
    globals_used = names & env.globals.keys()
    context_names = {read for used in globals_used for read in getattr(env.globals[used], "context_names", ())}
    return frozenset((names - globals_used) | context_names), tuple(str(inner) for inner in included)


def _names(name: str) -> frozenset[str]:
    """The names the template ``name`` and every template it includes read from their context."""
    names: set[str] = set()
    seen: set[str] = set()
    waiting = [name]
    while waiting:
        current = waiting.pop()
        if current not in seen:
            seen.add(current)
            own, included = _own_names(current)
            names |= own
            waiting.extend(included)
    return frozenset(names)


class JinjaTemplate:
    """A ``.jinja`` template as Django's engine uses a template: ``render`` takes a Django context."""

    def __init__(self, name: str) -> None:
        try:
            self.jinja = environment().get_template(name)
        except jinja2.TemplateNotFound as missing:
            raise TemplateDoesNotExist(name) from missing
        self.names = tuple(sorted(_names(name)))
        self.origin = Origin(name=self.jinja.filename or name, template_name=name)

    def values(self, context: Any) -> dict[str, Any]:
        """The names it reads, from a Django context (each read recorded where the context records reads)."""
        values = {}
        for name in self.names:
            try:
                values[name] = context[name]
            except KeyError:
                continue
        return values

    def render(self, context: Any = None, request: Any = None) -> SafeString:
        """Its markup, for a Django context (or a dict of its names), as ``jinja2.Template.render`` makes it."""
        values = context if isinstance(context, dict) else {**self.values(context or {}), DJANGO: context}
        template = self.jinja
        words = _words().__getitem__
        made = template.environment.context_class(
            template.environment, {**template.globals, **values, "_": words, "gettext": words}, template.name,
            template.blocks)
        try:
            return SafeString("".join(template.root_render_func(made)))
        except Exception:
            template.environment.handle_exception()  # raises it again, its traceback pointing into the template
            raise


_MADE: dict[str, JinjaTemplate] = {}
_LOCK = threading.Lock()


def made() -> frozenset[str]:
    """The names of the ``.jinja`` templates this process has compiled."""
    return frozenset(_MADE)


def get_template(name: str) -> JinjaTemplate:
    """The ``.jinja`` template ``name``, made once per process."""
    template = _MADE.get(name)
    if template is None:
        with _LOCK:
            template = _MADE.get(name) or JinjaTemplate(name)
            _MADE[name] = template
    return template


class Loader(cached.Loader):
    """Django's cached loader, which hands a ``.jinja`` template to Jinja2."""

    def get_template(self, template_name: str, skip: list | None = None) -> Any:
        if template_name.endswith(SUFFIX):
            return get_template(template_name)
        return super().get_template(template_name, skip)

    def reset(self) -> None:
        # Django's autoreloader resets the loaders when a template changes (``make run``): Jinja's too.
        super().reset()
        with _LOCK:
            _MADE.clear()
        environment().cache.clear()  # type: ignore[union-attr]
        _own_names.cache_clear()
