"""Tags the game templates share: move forms, the table socket's path, seat names, log lines, the reference card;
and each game's own template helpers (``engine.template_filters`` and ``template_tags``, pure functions of a
view from its presentation.py), registered here under their names."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from django import template
from django.core.exceptions import ImproperlyConfigured
from django.template import engines
from django.template.backends.utils import csrf_input_lazy
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, pgettext

from engines.base import Engine
from engines.registry import ENGINES, get_engine
from gameplay.screens.pieces import digits_written
from gameplay.templatetags.hand_tags import is_public

register = template.Library()


def _move_form_open(context, action: dict, css_class: str = "") -> str:
    if context.get("frozen"):
        # The game is over: the panel keeps its cards, but nothing on it can be played.
        return format_html('<form class="move-form frozen {}" hidden>', css_class)
    return format_html(
        '<form method="post" action="{url}" class="move-form {cls}" hx-post="{url}" '
        # A move supersedes a refresh in flight (hx-sync replace); the button is off while it travels.
        'hx-target="#private-view" hx-swap="outerHTML" hx-sync="closest #private-view:replace" '
        'hx-disabled-elt="find button">'
        '<input type="hidden" name="version" value="{version}">'
        '<input type="hidden" name="window" value="{window}">'
        # The phone gives the move its id as it is sent (table.js): a repeat of that send (a retry, the POST
        # after a socket that did not answer) repeats the id, never the move. The CSRF token rides in the
        # page's header (base.html's hx-headers), so the form is the same for every phone of its seat.
        '<input type="hidden" name="move_id" value="">'
        '<input type="hidden" name="action" value="{action}">',
        url=context.get("move_url", ""),
        cls=css_class,
        # An answer in a response window carries the window alone: it lands while that window is open, whatever
        # moved meanwhile (gameplay.services.move_submit), so its form need not change with every move.
        version="" if context.get("version") is None else context.get("version"),
        window=context.get("window", ""),
        action=json.dumps(action, sort_keys=True),
    )


@register.simple_tag(takes_context=True)
def move_form_open(context, css_class: str = "", **fields):
    """Open a move form: hidden version, window, move id (the phone fills it) and the base action from ``fields``.

    ``{% move_form_open "cls" type="propose" %}`` starts the action ``{"type": "propose"}``;
    fields named ``a.<key>`` (one value) or ``a.<key>[]`` (several) inside the form are
    merged into it by the server. Close it with ``</form>``.
    """
    return _move_form_open(context, fields, css_class)


@register.simple_tag(takes_context=True)
def move_button(context, action: dict, label: str, css_class: str = "", data_test: str = ""):
    """A whole form with one big button that plays ``action`` (``data_test`` names it for browser tests)."""
    if context.get("frozen"):
        return ""
    return format_html(
        '{}<button type="submit" class="btn {}" data-test="{}">{}</button></form>',
        _move_form_open(context, action),
        css_class,
        data_test,
        label,
    )


@register.simple_tag
def table_socket_url(code: str, view: str = "") -> str:
    """A table's socket path: the Channels route ``table_socket`` (``gameplay.live.routing``), as {% url %} for pages.

    ``view`` ("phone" or "board"): the page's partial comes in each push frame
    (``gameplay.screens.table``); without it, frames carry the revision number only.
    """
    path = reverse("table_socket", args=[code], urlconf="gameplay.live.routing")
    return f"{path}?view={view}" if view else path


@register.filter
def seat_name(seat, names):
    """The display name of a seat (escaped by autoescape), or a dash for None."""
    if seat is None or names is None:
        return "—"
    try:
        return names[int(seat)]
    except (IndexError, ValueError, TypeError):
        return gettext("Seat %(n)s") % {"n": seat}


@register.filter
def seat_names(seats, names):
    """Names of several seats joined by commas."""
    # The separator is the language's own (", " / "، " / "、").
    return pgettext("list separator", ", ").join(str(seat_name(seat, names)) for seat in (seats or []))


@register.filter
def join_names(names):
    """A list of names joined with the language's own separator."""
    return pgettext("list separator", ", ").join(str(name) for name in (names or []))


@register.filter
def game_template(engine: str, part: str) -> list[str]:
    """The game's own ``games/<engine>/<part>.jinja``, else the shared ``gameplay/_<part>.jinja`` for a game that draws
    none of its own: ``include(engine|game_template("role_name"))`` (``{% jinja %}`` in a page) takes the first that
    exists."""
    part = part.removesuffix(".html").removesuffix(".jinja")
    return [f"games/{engine}/{part}.jinja", f"gameplay/_{part}.jinja"]


def jinja_template(name: Any) -> Any:
    """The Jinja template ``name`` (or the first of a list that exists)."""
    return engines["jinja2"].env.get_or_select_template(name)  # type: ignore[attr-defined]


@register.simple_tag(takes_context=True)
def jinja(context, name: str | list[str], **values) -> SafeString:
    """``{% jinja "lobby/_nickname.jinja" next=here %}``: a Jinja template (a screen's part, a game's) in a Django page,
    rendered from ``values`` alone (and the page's request: its forms' ``csrf_input``)."""
    request = context.get("request")
    if request is not None:
        values = {"request": request, "csrf_input": csrf_input_lazy(request), **values}
    return mark_safe(jinja_template(name).render(values))  # noqa: S308 (autoescaped by Jinja)


@register.filter
def get(mapping, key):
    """``mapping[key]`` for dicts and lists in templates; None when missing."""
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def ordinal_card(index):
    """'1st', '2nd', '3rd' card positions, translated."""
    labels = [gettext("1st"), gettext("2nd"), gettext("3rd")]
    try:
        return labels[int(index)]
    except (IndexError, ValueError, TypeError):
        return str(index)


class CaptureNode(template.Node):
    def __init__(self, nodelist, name: str) -> None:
        self.nodelist = nodelist
        self.name = name

    def render(self, context) -> str:
        context[self.name] = mark_safe(self.nodelist.render(context).strip())  # the include rendered it, escaped
        return ""


@register.tag
def capture(parser, token):
    """``{% capture card %}{% include "…card_name.html" %}{% endcapture %}`` stores rendered HTML in ``card``.

    So a translated card name can sit inside one whole translated sentence
    (``{% blocktranslate %}Block as {{ card }}{% endblocktranslate %}``) instead of a sentence in pieces.
    """
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("capture takes one variable name")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, bits[1])


PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# Languages whose pages write numbers in their own digits; numbers come from the views in ASCII.
NATIVE_DIGITS = {"fa": PERSIAN_DIGITS}
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"<\s*(/?)\s*([a-zA-Z0-9-]+)")
# Text that is typed or read character by character stays in ASCII digits: table codes, links, the seed.
_LATIN = re.compile(r"""\sdata-latin\b|\sdir=["']?ltr|\sclass=["'][^"']*\b(?:code|mono|big-url)\b""")
_ENTITY_OR_DIGIT = re.compile(r"&#?[0-9a-zA-Z]+;|[0-9]")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def _native(found: str, table: dict) -> str:
    return found.translate(table) if len(found) == 1 else found


def native_digits(html: str, language: str | None) -> str:
    """``html`` with the digits of its text (never of tags or attributes) in ``language``'s own digits.

    One digit style per page: the catalogs write Persian numbers in Persian digits, so the numbers
    the views fill in are written so too. Elements marked ``data-latin``, ``dir="ltr"`` or with the
    classes ``code``, ``mono`` or ``big-url`` keep ASCII digits (codes to type, links, the seed).
    """
    table = NATIVE_DIGITS.get((language or "").split("-")[0])
    if table is None:
        return html
    out: list[str] = []
    latin_tag = ""  # the element that keeps ASCII digits, and how deep we are in it
    depth = 0
    for piece in _TAG.split(html):
        if not piece:
            continue
        if piece.startswith("<"):
            match = _TAG_NAME.match(piece)
            if match and not piece.startswith("<!"):
                closing, name = match.group(1) == "/", match.group(2).lower()
                if latin_tag:
                    if name == latin_tag and name not in _VOID and not piece.endswith("/>"):
                        depth += -1 if closing else 1
                        if depth == 0:
                            latin_tag = ""
                elif not closing and name not in _VOID and _LATIN.search(piece):
                    latin_tag, depth = name, 1
            out.append(piece)
        else:
            # Character references (&#39;) keep their digits.
            out.append(piece if latin_tag else _ENTITY_OR_DIGIT.sub(lambda m: _native(m.group(0), table), piece))
    return "".join(out)


def in_native_digits(render: Callable[[], str], language: str | None = None) -> SafeString:
    """What ``render`` makes, with the digits of its text in the page language's own; a piece inside it
    (screens.pieces), rendered apart, writes its digits so too, before it stands in its outer piece
    (``{% nativedigits %}``, and Jinja's ``nativedigits()``). ``language``: the page's (else the current one)."""
    language = language or get_language()
    with digits_written(lambda html: native_digits(html, language)):
        return mark_safe(native_digits(render(), language))  # noqa: S308 (digits only: still escaped)


class NativeDigitsNode(template.Node):
    def __init__(self, nodelist) -> None:
        self.nodelist = nodelist

    def render(self, context) -> str:
        return in_native_digits(lambda: self.nodelist.render(context))


@register.tag
def nativedigits(parser, token):
    """``{% nativedigits %}…{% endnativedigits %}``: the numbers inside in the page language's own digits."""
    nodelist = parser.parse(("endnativedigits",))
    parser.delete_first_token()
    return NativeDigitsNode(nodelist)


@register.filter
def digits(value):
    """One number (or any text) in the current language's own digits."""
    table = NATIVE_DIGITS.get((get_language() or "").split("-")[0])
    return str(value).translate(table) if table else value


@register.simple_tag
def step_lines(move, view) -> list:
    """The public log lines that replay step ``move`` added: what happened then, in the game's words.

    The public log only grows, so the lines past the previous step's length are this move's. A move
    that adds none was a secret choice (a vote still being collected, a mission card, an arrangement).
    """
    if move is None or not view:
        return []
    from gameplay.selectors import replay_state  # the replay's own checkpoints; imported late (app loading)

    game = move.game
    before = get_engine(game.engine).view(replay_state(game, move.seq - 1), None)["log"]
    return list(view.get("log", [])[len(before):])


def _game_options(context, engine_name: str, players: int) -> dict:
    """The game's options (public table settings, fixed for the whole game: ``game_public_info``),
    checked by the engine; the defaults where there is no game or they no longer check."""
    game = context.get("game") or {}
    raw = game.get("options") if isinstance(game, dict) else getattr(game, "options", None)
    engine = get_engine(engine_name)
    try:
        return engine.validate_options(raw or {}, players or None)
    except Exception:  # noqa: BLE001 (options that no longer check: the reference shows the defaults)
        return engine.default_options()


def reference(context, engine_name: str, view: dict, players: int) -> dict | None:
    """The facts of the phone's reference card for this table (drawn by :func:`reference_card`),
    from the engine's own data (public facts only).

    Each game says what its card holds (``engine.reference``, in its presentation.py). The game's options
    (public table settings) come from ``_game_options``.
    """
    players = int(players or 0)
    return get_engine(engine_name).reference(view or {}, players, _game_options(context, engine_name, players))


@register.simple_tag(takes_context=True)
def reference_card(context, engine_name: str, view: dict, players: int) -> SafeString:
    """The reference card (``gameplay/_reference_card.jinja``) for this table, its facts from :func:`reference`."""
    ref = reference(context, engine_name, view, players)
    if not ref:
        return mark_safe("")
    html = jinja_template("gameplay/_reference_card.jinja").render({"engine": engine_name, "ref": ref})
    return mark_safe(html)  # noqa: S308 (our template, autoescaped)


@register.simple_tag
def log_line(template_name: str, line: dict, names) -> SafeString:
    """One log entry as its sentence (``games/<engine>/log_line.jinja``), rendered from ``line`` and ``names`` alone."""
    if line.get("event") == "undone":  # the web layer's own line for an undo, in every game (selectors.UNDONE)
        values = {"line": line, "names": names, "log_template": template_name}
        return mark_safe(jinja_template("gameplay/_undone_line.jinja").render(values))  # noqa: S308 (autoescaped)
    return mark_safe(jinja_template(template_name).render({"line": line, "names": names}))  # noqa: S308 (autoescaped)


@register.simple_tag
def recent_log(template_name: str, log: list | None, names, count: int) -> SafeString:
    """The newest ``count`` public lines of ``log``, newest first, each a ``<li>`` of :func:`log_line`; only the
    newest lines are looked at (a long game's log is not walked). Private lines never show (``hand_tags.is_public``)."""
    newest: list = []
    for line in reversed(log or []):
        if len(newest) >= count:
            break
        if is_public(line):
            newest.append(line)
    items = (format_html("<li>{}</li>", log_line(template_name, line, names)) for line in newest)
    return mark_safe("".join(items))  # noqa: S308 (each item escaped by format_html and its template)


def register_games_helpers(library: template.Library, engines: Iterable[Engine]) -> None:
    """Each game's own template helpers in ``library``, under the names its templates call them by (a name taken
    twice is an error: templates would silently get the other one)."""
    for engine in engines:
        for kind, helpers in (("filter", engine.template_filters), ("tag", engine.template_tags)):
            for name, function in helpers.items():
                if name in library.filters or name in library.tags:
                    raise ImproperlyConfigured(f"{engine.name}: the template helper {name!r} is taken")
                if kind == "filter":
                    library.filter(name, function)
                else:
                    library.simple_tag(function, name=name)


register_games_helpers(register, ENGINES.values())
