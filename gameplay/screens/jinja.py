"""The Jinja2 environment of the screens: Django's own ``Jinja2`` backend (``settings.TEMPLATES``) builds it here.

Every template named ``*.jinja`` under ``templates/`` is Jinja's (the games' templates, the phone panel, the board,
the moderator's drawer, the lobby's parts), written in plain Jinja: what this module adds are filters and globals,
listed in :func:`environment`. A screen is one tree of Jinja templates, rendered from plain dicts
(``gameplay.screens.table``); a Django page (``*.html``) shows a Jinja part with ``{% jinja name key=value %}``
(``game_tags.jinja``), which gives it those values and nothing else.

Words: ``_("…")`` is the text translated (kept per language: the text and the catalogs cannot change while the
process runs), and ``_("… %(who)s")|fill(who=…)`` fills it with escaped values (``{% blocktranslate %}``);
``ngettext("…", "…", n)|fill(n=n)`` its plural form. ``makemessages`` reads those calls from a ``.jinja`` file
(``gameplay.management.commands.makemessages``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, MutableMapping
from functools import lru_cache, partial
from typing import Any

import jinja2
from django.template import defaultfilters, engines
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation
from django.utils.html import strip_spaces_between_tags
from django.utils.safestring import SafeString
from django.utils.timezone import template_localtime
from markupsafe import Markup, escape

from engines.registry import ENGINES
from gameplay.screens import pieces
from gameplay.templatetags import game_tags, hand_tags, marks

SUFFIX = ".jinja"  # the names of the templates that are Jinja's (and the drawings they include, ``.svg``)


class _JinjaFiles(jinja2.FileSystemLoader):
    """The ``*.jinja`` (and ``*.svg``) files of the template folders: any other name is a Django template (the next
    backend's)."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        if not template.endswith((SUFFIX, ".svg")):
            raise jinja2.TemplateNotFound(template)
        return super().get_source(environment, template)


_DICT_NAMES = frozenset(dir(dict))  # a plain dict's own attributes (``get``, ``items``…): Jinja finds those first


class _Environment(jinja2.Environment):
    """Jinja's environment, finding the same values with less work (two of its documented methods; a push renders
    ~30 templates and reads ~250 keys of plain dicts, ``tools/pushcount.sh``):

    - a template's globals are one plain dict, not Jinja's ``ChainMap`` over the environment's, which every render
      copies key by key in Python: the globals are all set in :func:`environment`, before any template loads;
    - ``a.b`` on a plain dict is its key ``b`` without first raising ``AttributeError`` (Jinja tries the attribute,
      then the key): a dict's own attributes (``a.items``) still come first, as in Jinja.
    """

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute in obj and attribute not in _DICT_NAMES:
            return obj[attribute]
        return super().getattr(obj, attribute)


def env() -> jinja2.Environment:
    """The one Jinja environment (the ``jinja2`` backend's)."""
    return engines["jinja2"].env  # type: ignore[attr-defined]


def render(name: str, values: dict[str, Any]) -> str:
    """The template ``name`` rendered from ``values`` alone, its ``_("…")`` the words of the language now (looked up
    once a render, not once a word); ``_language`` names that language for what it calls (``named``,
    ``nativedigits``)."""
    language = translation.get_language()
    words = _WORDS[language].__getitem__
    return game_tags.jinja_template(name).render(values, _=words, gettext=words, _language=language)


def _language_of(context: jinja2.runtime.Context) -> str | None:
    """The language a template is rendered in: the one :func:`render` named, else the current one (a Jinja part
    in a Django page)."""
    return context.get("_language") or translation.get_language()


def fill(text: str, **values: Any) -> SafeString:
    """``{% blocktranslate %}``'s result: the translated text (not escaped) with each value escaped into it."""
    return SafeString(str(text) % {name: escape(value) for name, value in values.items()})


class _Words(dict):
    """One language's words: each literal translated once, safe (a template's own text)."""

    def __missing__(self, message: str) -> SafeString:
        word = self[message] = SafeString(translation.gettext(message))
        return word


_WORDS: defaultdict[str | None, _Words] = defaultdict(_Words)


def _translate(message: str) -> SafeString:
    """``_("…")``: the literal in the language of the render."""
    return _WORDS[translation.get_language()][message]


# Distinct URLs kept: about twenty per table, so a café of 200 tables uses a fifth of it.
URLS_KEPT = 16_384


@lru_cache(maxsize=URLS_KEPT)
def _reverse(view_name: str, args: tuple, prefix: str, urlconf: Any) -> str:
    return reverse(view_name, urlconf=urlconf, args=args)


def url_of(view_name: str, *args: str | int) -> str:
    """``reverse(view_name, args=args)``, each URL built once per process (the views' and the templates' ``url()``:
    a panel names about ten URLs, and a push renders one for every phone)."""
    return _reverse(view_name, args, get_script_prefix(), get_urlconf())


def _piece(piece_id: Any, template_name: str, part: Any = None) -> Markup:
    """``piece("bv-seat-" ~ s.index, "….jinja", part=parts["bv-seat-" ~ s.index])`` is the element that template draws
    from its ``part`` alone (``screens.pieces``): a piece a push may send alone."""
    data = {} if isinstance(part, jinja2.Undefined) else part
    return Markup(pieces.place_piece(str(piece_id), template_name, data, partial(render, template_name),
                                     pieces.digits_now()))


@jinja2.pass_context
def _include(context: jinja2.runtime.Context, name: Any, **names: Any) -> Markup:
    """``include(name, a=b)``: the template ``name`` (or the first of a list that exists: ``game_template``) with the
    names of the template that includes it, and ``names``."""
    return Markup(game_tags.jinja_template(name).render({**context.get_all(), **names}))


# Names drawn kept: a game has a few dozen ids (cards, roles, teams), so all games in three languages fit many times.
NAMES_KEPT = 4_096


@lru_cache(maxsize=NAMES_KEPT)
def _name_drawn(template: str, values: tuple, language: str | None) -> Markup:
    return Markup(render(template, dict(values)))


@jinja2.pass_context
def _named(context: jinja2.runtime.Context, template: str, /, **values: Any) -> Markup:
    """``named("games/<game>/card_name.jinja", card=card)``: a name template (an id to its translated words: a card's,
    a role's, a team's) drawn from ``values`` alone, once per process for each language and values. It must read
    nothing else (``tests/gameplay/test_jinja.py`` holds every ``*_name.jinja`` to that)."""
    return _name_drawn(template, tuple(sorted(values.items())), _language_of(context))


@jinja2.pass_context
def _nativedigits(context: jinja2.runtime.Context, caller: Callable[[], str]) -> Markup:
    """``{% call nativedigits() %}…{% endcall %}``: the numbers inside in the page language's own digits."""
    return Markup(game_tags.in_native_digits(caller, _language_of(context)))


# The values of a table's game-night scoreboard between games, from (table, game): the community app hands them
# over (``community.apps.CommunityConfig.ready``: ``group_tags.night_scoreboard``), so gameplay never imports it.
_NIGHT_SCOREBOARD: list[Callable[[Any, Any], dict]] = []


def night_scoreboard_from(values: Callable[[Any, Any], dict]) -> None:
    """The board's game-night scoreboard is drawn from ``values(table, game)`` (none until it is given)."""
    _NIGHT_SCOREBOARD[:] = [values]


def _night_scoreboard(table: Any, game: Any = None) -> Markup:
    """``night_scoreboard(table, game)``: ``groups/_night_scoreboard.jinja`` from its own values; nothing without the
    community app."""
    if not _NIGHT_SCOREBOARD:
        return Markup("")
    return Markup(render("groups/_night_scoreboard.jinja", _NIGHT_SCOREBOARD[0](table, game)))


def _given(function: Callable[..., Any]) -> Callable[..., Any]:
    """A project filter (plain Python) given ``""`` where the template names something missing (Jinja's Undefined)."""

    def applied(value: Any, *args: Any, **kwargs: Any) -> Any:
        return function("" if isinstance(value, jinja2.Undefined) else value, *args, **kwargs)

    return applied


def _local(function: Callable[..., Any]) -> Callable[..., Any]:
    """Django's date filter, given a date in the current time zone."""

    def applied(value: Any, *args: Any) -> Any:
        return function(template_localtime(value), *args)

    return applied


def _spaceless(value: Any) -> SafeString:
    """The markup stripped, with no whitespace between its tags."""
    return SafeString(strip_spaces_between_tags(str(value).strip()))


def environment(**options: Any) -> jinja2.Environment:
    """The environment Django's ``Jinja2`` backend renders with: the ``.jinja`` files, escaping on, a missing name or
    key printing nothing (also down a chain: ``a.b.c``), and the project's filters and globals."""
    options["loader"] = _JinjaFiles(options["loader"].searchpath)
    options.update(undefined=jinja2.ChainableUndefined, keep_trailing_newline=True, cache_size=-1)
    made = _Environment(**options)
    made.globals.update(
        _=_translate, gettext=_translate, ngettext=translation.ngettext, pgettext=translation.pgettext,
        language_bidi=translation.get_language_bidi, piece=_piece, include=_include, named=_named,
        nativedigits=_nativedigits, url=url_of, night_scoreboard=_night_scoreboard, mark=marks.mark,
        # these read names of the template that calls them (frozen, move_url, version, window; game)
        move_form_open=jinja2.pass_context(game_tags.move_form_open),
        move_button=jinja2.pass_context(game_tags.move_button),
        reference_card=jinja2.pass_context(game_tags.reference_card),
        by_position=hand_tags.by_position, orders_by_position=hand_tags.orders_by_position,
        log_line=game_tags.log_line, recent_log=game_tags.recent_log, step_lines=game_tags.step_lines)
    made.filters.update(fill=fill, spaceless=_spaceless, time=_local(defaultfilters.time),
                        date=_local(defaultfilters.date))
    made.filters.update({name: _given(function) for name, function in {
        "get": game_tags.get, "seat_name": game_tags.seat_name, "seat_names": game_tags.seat_names,
        "join_names": game_tags.join_names, "ordinal_card": game_tags.ordinal_card, "digits": game_tags.digits,
        "names_of": hand_tags.names_of, "learned_by_seat": hand_tags.learned_by_seat,
        "private_lines": hand_tags.private_lines, "public_lines": hand_tags.public_lines,
        "positions": hand_tags.positions, "game_template": game_tags.game_template}.items()})
    for engine in ENGINES.values():  # each game's own helpers, under the names its templates use
        made.filters.update({name: _given(function) for name, function in engine.template_filters.items()})
        made.globals.update(engine.template_tags)
    return made
