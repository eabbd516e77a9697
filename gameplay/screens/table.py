"""A table's screens, each one function: the phone panel, the public board, the moderator's drawer.

A screen is built from the rows it needs (:class:`TableNow`: the table, its latest game and its
seats, read once) and from who looks (:class:`Viewer`: judged from the session as it is now), and
is made of fragments: parts of the page with an element id, each rendered from a context of plain
data and nothing else. A fragment's tag is the digest of that context (a public fragment's, of its
bytes), so what a fragment shows can change only when its tag does. The page view, the htmx GET and
the socket push all call these functions: a pushed fragment is byte for byte what the GET shows. No fragment
depends on who looks beyond what it shows: the CSRF token rides in the page's header and a move's id is given
by the phone as it sends it, so a seat's own fragment is rendered once for every phone that shows it.
A public fragment is made once per table revision and language for every screen of the table, from projections
alone (the game's ``presentation.public_parts``), and rendered again, like each of its pieces, only when the dict it
is made from changed (``gameplay.screens.pieces``); a seat's own fragment only when its tag moved. A push of these
screens to a table's sockets: ``gameplay.live.frames``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import import_module
from typing import Any, Protocol

from django.conf import settings
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from engines.registry import get_engine
from gameplay import presence
from gameplay.briefing import private_lines
from gameplay.models import PIN_TRIES, Game, GameNight
from gameplay.screens import jinja, pieces
from gameplay.screens.jinja import url_of
from gameplay.screens.moderator import moderator_context
from gameplay.seats import (
    game_seats,
    moved_away,
    session_devices,
)
from gameplay.selectors import (
    game_part,
    game_public_info,
    game_seat_of,
    game_state,
    game_templates,
    handover_notes,
    log_with_undos,
    moderator_undo,
    phone_undo,
    public_parts,
    seats_info,
    shared_seats,
    table_latest_game,
)
from gameplay.templatetags.game_tags import reference
from gameplay.templatetags.hand_tags import is_public
from infra import jsontext
from infra.prepared import Prepared
from infra.recent import Recent
from lobby.account import shown_seat_name
from lobby.context import join_link_for, seat_names, table_info, table_lobby
from lobby.models import Player, Table
from lobby.services import session_player_id

PHONE_ROOT = "private-view"
BOARD_ROOT = "public-view"
MODERATOR_ROOT = "moderator-view"


@dataclass(frozen=True)
class Viewer:
    """Who looks at a screen: a browser's player and seat links (from its session), its language, whether its forms
    can post (it holds a CSRF cookie: the token itself rides in the page's header, never in a screen), and
    ``base_url``: where phones on this Wi-Fi reach the server."""

    player_id: int | None
    devices: dict[str, str]
    language: str
    base_url: str
    can_post: bool = False
    shared: bool = False  # a seat played on a shared device (its page asks for it): no tools, not the host


    def hosts(self, table: Table) -> bool:
        """Whether this viewer hosts ``table``."""
        return self.player_id is not None and self.player_id == table.host_id


_CSRF_CHARS = frozenset(CSRF_ALLOWED_CHARS)


def _valid_secret(secret: str) -> bool:
    """Whether a socket's CSRF cookie is a secret Django made (a phone without one must ask for its screen itself)."""
    return len(secret) == CSRF_SECRET_LENGTH and _CSRF_CHARS.issuperset(secret)


class Browser(Protocol):
    """A socket's browser as a push knows it (``pushes.Socket``): its session's key, language, CSRF cookie, address."""

    session_key: str | None
    language: str
    csrf_secret: str
    url: str


def viewers_of_sessions(browsers: Sequence[Browser]) -> list[Viewer | None]:
    """The viewer each browser is now: its session read again (None once that session is gone: logged out or
    expired, its page must ask for itself), every session of a push read together (``load_many``)."""
    keys = {browser.session_key for browser in browsers if browser.session_key}
    sessions = _session_store().load_many(keys) if keys else {}
    viewers: list[Viewer | None] = []
    for browser in browsers:
        data = sessions[browser.session_key] if browser.session_key else {}
        viewers.append(None if data is None else Viewer(
            player_id=session_player_id(data), devices=session_devices(data), language=browser.language,
            base_url=browser.url, can_post=_valid_secret(browser.csrf_secret)))
    return viewers


@lru_cache(maxsize=1)
def _session_store():
    return import_module(settings.SESSION_ENGINE).SessionStore


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """``translation.override(language)``, or nothing where that is the language already: a push draws the screens
    of one language one after another (:func:`gameplay.live.frames.push_frames_of`), and setting the language and back
    for each of them was ~3% of a push's CPU."""
    if translation.get_language() == language:
        yield
    else:
        with translation.override(language):
            yield


def digest(value: Any) -> str:
    """A short, stable digest of plain data (JSON; dates and other values by their text)."""
    return hashlib.blake2b(jsontext.sorted_bytes(value), digest_size=12).hexdigest()


@dataclass
class Fragment:
    """A part of a screen: an element id, its template and the context that is all it shows.

    ``public``: the same for every screen of the table in a language (no form, no viewer): made from its context of
    projections and its pieces from the table's ``parts`` (``gameplay.screens.pieces``), rendered again only when
    that changed, its tag the digest of its bytes.
    Any other fragment's tag is the digest of its context, so it is rendered only when that moved, and rendered
    once for every screen that shows it (nothing in it depends on the viewer). ``revision``: shown only in
    ``data-revision``, which the page script sets from each frame, so it is no part of the tag. ``tagged``:
    False where the context holds more than plain data (the lobby's forms, a game night's rows): then it has
    no tag, is never kept, and is sent with every push. ``store``: the table's parts as last rendered, and
    ``parts``: the table's map its pieces are made from (public fragments: ``gameplay.screens.pieces``).
    ``tag_from``: what its tag digests instead of the whole context, where that holds much that every phone of
    the table shares (then given as one digest, made once: :meth:`TableNow.shared_digest`).
    """

    id: str
    template: str
    context: dict
    public: bool = False
    revision: int = 0
    tagged: bool = True
    store: pieces.Store | None = None
    parts: dict | None = None
    tag_from: list | None = None
    language: str = ""  # the language it is made in, where its maker knew it (else the current one)

    @cached_property
    def tag(self) -> str:
        if not self.tagged:
            return ""
        if self.public:
            return self._public[1]
        return digest([self.template, self.language or translation.get_language(),
                       self.context if self.tag_from is None else self.tag_from])

    @property
    def pieces(self) -> dict[str, tuple[str, str]]:
        """What a push may send of this fragment: {element id: (its tag, its HTML)}, the fragment itself first
        (a public fragment's own tag there is its shell's: its bytes without its pieces'), then each piece
        inside a public fragment (``{% piece %}``)."""
        if self.public and self.tagged:
            return self._public[2]
        return {self.id: (self.tag, "")}

    @cached_property
    def _public(self) -> tuple[SafeString, str, dict[str, tuple[str, str]]]:
        """A public fragment as a piece: its bytes, its tag (the digest of its pieces' tags) and its pieces."""
        data = {name: value for name, value in self.context.items() if name != "parts"}
        made = pieces.render_fragment(self.id, self.template, data, self._render_in, store=self.store,
                                      parts=self.parts or {}, language=self.language or translation.get_language())
        inner = made.pieces
        tag = digest([made.tag, [piece[0] for piece in inner.values()]]) if inner else made.tag
        return mark_safe(made.html), tag, {self.id: (made.tag, made.html), **inner}  # noqa: S308 (autoescaped)

    def _render_in(self, context: dict) -> str:
        return _rendered(self.template, context)

    def render(self) -> SafeString:
        return pieces.stamp(self._public[0] if self.public and self.tagged else self._html, self.revision)

    @cached_property
    def _html(self) -> str:
        """Its bytes, the revision a placeholder (:meth:`render` stamps it). A tagged fragment's bytes follow from its
        tag, which digests all it shows: those of a tag drawn lately are drawn no more (:data:`DRAWN`)."""
        if not self.tagged:
            return _rendered(self.template, dict(self.context, tag="", revision=pieces.REVISION))
        key = (self.template, self.tag)
        kept = DRAWN.get(key)
        if kept is not None and not getattr(settings, "SCREEN_PIECES_VERIFY", False):
            return kept
        html = _rendered(self.template, dict(self.context, tag=self.tag, revision=pieces.REVISION))
        if kept is not None and kept != html:  # the tests draw it again: its tag must digest all it shows
            raise AssertionError(f"{self.id}'s tag {self.tag} was drawn as other bytes:\nkept:  {kept[:3000]}\n"
                                 f"fresh: {html[:3000]}")
        return DRAWN.put(key, html)


DRAWN_KEPT = 4_096  # ~2 kB each: a few MB
# The bytes of the private fragments drawn lately, by (template, tag): a part that comes back to what it showed (a
# seat's undo offer gone, its waiting screen between turns) is not drawn again, on any table.
DRAWN: Recent[str] = Recent(DRAWN_KEPT)


def _rendered(template: str, context: dict) -> str:
    """``template`` rendered from ``context`` alone, no space around it."""
    return jinja.render(template, context).strip()


@dataclass
class Screen:
    """A screen as its page holds it: the HTML, the table revision it shows, its tag (None: not cacheable)."""

    html: SafeString
    revision: int
    tag: str | None


class TableNow:
    """A table as one screen or one push sees it: the rows read once, the state and views derived once."""

    def __init__(self, table: Table, game: Game | None = None) -> None:
        self.table = table
        self._given = game
        self._views: dict[int | None, dict] = {}
        self._infos: dict[str, dict] = {}
        self._contexts: dict[tuple[int | None, bool], dict] = {}
        self._phone_public: dict[str, dict[str, Fragment]] = {}
        self._boards: dict[tuple[str, str], Fragment] = {}
        self._tables: dict[str, dict] = {}
        self._table_infos: dict[str, dict] = {}
        self._shared: dict[str, str] = {}
        self._ended: dict[str, dict[str, SafeString]] = {}
        self._own: dict[tuple, Fragment] = {}

    def info(self, language: str | None = None) -> dict:
        """The latest game's public facts (``game_public_info``) in ``language`` (else the current one), made once
        per language. (Each of these takes the language where its caller knows it: asking Django costs more.)"""
        language = language or translation.get_language()
        if language not in self._infos:
            self._infos[language] = game_public_info(self.game)
        return self._infos[language]

    @cached_property
    def latest(self) -> Game | None:
        """The table's latest game with its seats (read once; the one given when a move just made it)."""
        game = self._given if self._given is not None else table_latest_game(self.table)
        if game is not None:
            game_seats(game)
        return game

    @property
    def game(self) -> Game:
        """The latest game, for what only a table with a game asks."""
        if self.latest is None:
            raise LookupError("the table has no game")
        return self.latest

    @property
    def running(self) -> Game | None:
        latest = self.latest
        return latest if latest is not None and not latest.over else None

    @classmethod
    def read(cls, table_id: int) -> TableNow | None:
        """The table with its latest game, in one statement (the row of each as of one moment), and its seats."""
        game = LATEST_GAME_WITH_TABLE.first(table_id)
        if game is not None:
            return cls(game.table, game)
        table = TABLE.first(table_id)
        return cls(table) if table is not None else None

    @property
    def revision(self) -> int:
        return self.table.revision

    @cached_property
    def state(self):
        return game_state(self.latest) if self.latest is not None else None

    def view(self, seat: int | None) -> dict:
        if seat not in self._views:
            view = get_engine(self.game.engine).view(self.state, seat)
            if self.game.undos:  # the lines of the undos made, where they were made (public facts)
                view["log"] = log_with_undos(view.get("log", []), self.state.get("log", []), self.game.undos, seat)
            self._views[seat] = view
        return self._views[seat]

    def table_info(self, language: str | None = None) -> dict:
        """``lobby.context.table_info`` of the table in ``language`` (its title is translated), made once."""
        language = language or translation.get_language()
        if language not in self._table_infos:
            self._table_infos[language] = table_info(self.table)
        return self._table_infos[language]

    def table_ctx(self, language: str | None = None) -> dict:
        """The table as a fragment names it, in ``language`` (its title is translated), made once."""
        language = language or translation.get_language()
        if language not in self._tables:
            self._tables[language] = _table(self.table_info(language))
        return self._tables[language]

    @cached_property
    def move_url(self) -> str:
        return url_of("move", self.table.code)

    def board_fragment(self, viewer: Viewer) -> Fragment:
        """The public board in the current language, made once (and for a viewer's address between games)."""
        key = (viewer.language, viewer.base_url if self.running is None else "")
        if key not in self._boards:
            self._boards[key] = board_part(self, viewer)
        return self._boards[key]

    def shared_digest(self, language: str | None = None) -> str:
        """The digest of what every phone's own part and tools show alike (the table, the game row's public
        facts, the seats, the game's templates), in ``language``, made once: their tags add their own."""
        language = language or translation.get_language()
        if language not in self._shared:
            board, info = self.game_ctx(None), self.info(language)
            self._shared[language] = digest([
                self.table_ctx(language), {key: info[key] for key in SEAT_GAME_KEYS}, self.move_url,
                {key: value for key, value in board.items()
                 if key not in ("view", "me", "version", "window", "parts")}])
        return self._shared[language]

    def phone_public(self, language: str | None = None) -> dict[str, Fragment]:
        """The phone panel's public fragments in ``language`` (the same for every phone), made once: each from the
        projections it shows (its pieces from the table's parts)."""
        language = language or translation.get_language()
        if language not in self._phone_public:
            info, board = self.info(language), self.game_ctx(None)
            parts = board["parts"]
            made = {"pv-head": Fragment("pv-head", "gameplay/_phone_head.jinja", {
                **board_head(self.table_ctx(language), info, board["names"], self.asleep, self.handovers),
                "status_template": board["status_template"],
            }, public=True, store=self.store, parts={"pv-status": parts.get("pv-status")}, language=language)}
            if board["public_template"]:
                made["pv-table"] = Fragment("pv-table", "gameplay/_phone_table.jinja", {
                    "template": board["public_template"], "phone": parts.get("phone"), "parts": parts,
                }, public=True, store=self.store, parts=parts, language=language)
            players = len(board["seats"])
            made["pv-reference"] = Fragment("pv-reference", "gameplay/_phone_reference.jinja", {
                "engine": self.game.engine, "ref": reference({"game": info}, self.game.engine, board["view"], players),
            }, public=True, store=self.store, language=language)
            self._phone_public[language] = made
        return self._phone_public[language]

    def ended(self, language: str | None = None) -> dict[str, SafeString]:
        """What every phone's panel shows alike of the latest game once it is over, in ``language``, rendered once
        for all of them: its outcome, and its public part (``pv-table``: the board's view, as while it ran)."""
        language = language or translation.get_language()
        if language not in self._ended:
            public = self.phone_public(language).get("pv-table")
            outcome = {"game": self.info(language), "names": self.game_ctx(None)["names"]}
            self._ended[language] = {"outcome": mark_safe(_rendered("gameplay/_outcome.jinja", outcome)),  # noqa: S308
                                     "public": public.render() if public is not None else mark_safe("")}
        return self._ended[language]

    def own_part(self, seat: int | None, away: bool, language: str) -> Fragment:
        """A seat's own part of the phone (``pv-seat``: its view and moves; for a phone without a seat, the board),
        made once per seat and language for every phone that shows it: nothing in it depends on the phone (its
        forms' CSRF token rides in the page's header, a move's id is given by the phone as it sends it)."""
        key = ("pv-seat", seat, away, language)
        if key not in self._own:
            info = self.info(language)
            awaited = (seat is not None and seat in self.view(seat).get("awaiting", []) and not info["silent"]
                       and not info["paused"])
            ctx = self.game_ctx(seat, own=seat is not None)
            self._own[key] = Fragment("pv-seat", "gameplay/_phone_seat.jinja", {
                "table": self.table_ctx(language), "game": {name: info[name] for name in SEAT_GAME_KEYS},
                "game_seat": seat, "ctx": ctx, "awaited": awaited, "moved_away": away, "move_url": self.move_url,
            }, language=language, tag_from=[self.shared_digest(language), seat, awaited, away,
                                            [ctx[name] for name in ("view", "me", "version", "window")],
                                            ctx.get("ended_views")])
        return self._own[key]

    @cached_property
    def _undo_urls(self) -> dict[str, str]:
        """Where a phone asks to take its move back and answers a request (the same for every seat)."""
        return {"ask_url": url_of("undo_ask", self.table.code), "answer_url": url_of("undo_answer", self.table.code)}

    def undo_part(self, seat: int, language: str) -> Fragment:
        """A seat's undo by consent (``pv-undo``: take its last move back, or answer a request), made once per seat and
        language: public facts only (who asks, the move's public log lines, who is still to answer)."""
        key = ("pv-undo", seat, language)
        if key not in self._own:
            undo = phone_undo(self.game, seat)
            board = self.game_ctx(None) if undo else {}
            shown = {"undo": undo, "names": board["names"], "log_template": board["log_template"],
                     **self._undo_urls} if undo else {"undo": undo}  # most seats, most moves: nothing to digest
            self._own[key] = Fragment("pv-undo", "gameplay/_undo.jinja", shown, language=language)
        return self._own[key]

    def tools_part(self, seat: int | None, is_host: bool, language: str) -> Fragment:
        """A phone's tools below the game (``pv-tools``: moving its seat, the host's controls), made once per seat,
        host or not, and language."""
        key = ("pv-tools", seat, is_host, language)
        if key not in self._own:
            board, info = self.game_ctx(None), self.info(language)
            tools = {"seats": board["seats"], "asleep": self.asleep, "night": self.night, "shared": self.shared
                     } if is_host else {"seats": [], "asleep": [], "night": None, "shared": []}
            self._own[key] = Fragment("pv-tools", "gameplay/_phone_tools.jinja", {
                "table": self.table_ctx(language), "game": {name: info[name] for name in SEAT_GAME_KEYS},
                "game_seat": seat, "is_host": is_host, **tools,
            }, language=language, tag_from=[self.shared_digest(language), seat, is_host, tools])
        return self._own[key]

    @cached_property
    def lobby_seats(self) -> list:
        """The table's seats with their players, as the lobby lists them (read once for every phone)."""
        return list(self.table.seats.select_related("player"))

    @cached_property
    def store(self) -> pieces.Store:
        """The table's public pieces as this process last rendered them."""
        return pieces.STORES.of(self.table.pk, self.table.code)

    @cached_property
    def asleep(self) -> list[int]:
        return presence.asleep_seats(self.running, self.table.pk) if self.running is not None else []

    @cached_property
    def night(self) -> dict | None:
        """The table's open game night (when it started), or None."""
        found = OPEN_NIGHT.first(self.table.pk)
        return {"started": found.started} if found is not None else None

    @cached_property
    def shared(self) -> list[dict]:
        """The running game's seats played on a shared device, for the host's controls: each one's name, whether it has
        a PIN (``locked`` by wrong tries), and ``new``: whether its view holds private lines its device has not shown it
        yet (a count alone; what they say is fetched by the device on a hold, never here); ``turn``: the game waits for
        it, as the board says (never in a silent window, where whom it waits for is no one's to know; nor paused)."""
        game = self.running
        if game is None:
            return []
        rows = {s.index: s for s in game_seats(game)}
        waiting = set() if game.paused or (game.countdown is not None) else set(self.view(None).get("awaiting", []))
        return [{"index": index, "name": shown_seat_name(rows[index].name), "pin": bool(rows[index].pin),
                 "locked": rows[index].pin_tries >= PIN_TRIES, "turn": index in waiting,
                 "new": len(private_lines(self.view(index))) > rows[index].results_shown}
                for index in shared_seats(game) if index in rows]

    @cached_property
    def handovers(self) -> list[dict]:
        return handover_notes(self.running) if self.running is not None else []

    def game_ctx(self, seat: int | None, *, own: bool = False) -> dict:
        """What a game's phone or board template reads (``selectors.game_context``): a view, never the state.

        ``own``: for a seat's own part of the phone, where the engine names its keys (``phone_private_keys``):
        only those of the view, and the screen's version only where a turn action needs it (an answer in a
        window needs the window alone), so the part changes only when what it shows does.
        """
        if (seat, own) in self._contexts:
            return self._contexts[seat, own]
        game = self.game
        engine = get_engine(game.engine)
        seats = seats_info(game, seat)
        view = self.view(seat)
        version: int | None = game.version
        if own and engine.phone_private_keys is not None:
            keys = engine.phone_private_keys | {"seat", "legal"}
            view = {key: value for key, value in view.items() if key in keys}
            if "log" in view:  # an own part's log is the seat's own lines (cards drawn, shown): never the public ones
                view["log"] = [line for line in view["log"] if not is_public(line)]
            version = game.version if view.get("legal") and not game.window else None
            window = game.window_token if view.get("legal") else ""  # only a form carries it
        else:
            window = game.window_token
        made = self._contexts[seat, own] = {
            "view": view, "seats": seats, "names": [s["name"] for s in seats], "me": seat, "version": version,
            "window": window, **game_templates(game.engine)}
        if seat is None and game.status == Game.ENDED:
            made["ended_views"] = ended_views(game, self.view)
        made["parts"] = public_parts(game.engine, view, seats, made.get("ended_views")) if seat is None else {}
        return made


LATEST_GAME_WITH_TABLE: Prepared[Game] = Prepared(
    lambda table_id: Game.objects.select_related("table").filter(table_id=table_id).order_by("-created")[:1], int)
TABLE: Prepared[Table] = Prepared(lambda table_id: Table.objects.filter(pk=table_id), int)
OPEN_NIGHT: Prepared[GameNight] = Prepared(
    lambda table_id: GameNight.objects.filter(table_id=table_id, ended__isnull=True)[:1], int)


def ended_views(game: Game, view: Callable[[int], dict]) -> list[dict]:
    """A game the host ended: every seat's own view of its last state, from which the board and the game's page show
    each seat's role or cards as a finished game's reveal does (its seed is public by then: nothing is secret)."""
    return [view(seat) for seat in range(game.players)]


# The game row's public facts a seat's own part shows (the wait button, the host's controls).
SEAT_GAME_KEYS = ("engine", "over", "silent", "paused", "timer_seconds")


# ---- The phone panel ---------------------------------------------------------------------------------

def _table(table: Table | dict) -> dict:
    """The table as a fragment names it: ``lobby.context.table_info`` (or that dict) without the revision,
    which ``data-revision`` alone shows."""
    info = table_info(table) if isinstance(table, Table) else table
    return {key: value for key, value in info.items() if key != "revision"}


def phone_parts(now: TableNow, viewer: Viewer) -> tuple[dict, list[Fragment]]:
    """The phone panel's shell context and its fragments (none: the shell is the whole panel, the lobby)."""
    table, running = now.table, now.running
    language = viewer.language
    shell: dict = {"table": now.table_info(language), "running": running is not None}
    if running is None:
        return shell, []
    seat = game_seat_of(game=running, player=viewer.player_id, devices=viewer.devices)
    public = now.phone_public(language)
    is_host = viewer.hosts(table)
    away = seat is None and moved_away(running, viewer.player_id, viewer.devices)
    parts = [public["pv-head"]]
    if seat is not None:
        parts.append(now.undo_part(seat, language))
    parts.append(now.own_part(seat, away, language))
    if seat is not None and "pv-table" in public:
        parts.append(public["pv-table"])
    if (seat is not None and not viewer.shared) or is_host:
        parts.append(now.tools_part(seat, is_host, language))
    if seat is not None:
        parts.append(public["pv-reference"])
    return shell, parts


def _lobby_context(now: TableNow, viewer: Viewer) -> dict:
    """The phone panel before and between games: the last game's end and the lobby (``lobby/_table.jinja``)."""
    table, latest = now.table, now.latest
    player = _player(now.lobby_seats, viewer.player_id)
    is_host = viewer.hosts(table)
    context: dict = {"table": table_info(table), "is_host": is_host,
                     "next_url": url_of("table", table.code), "night": now.night if is_host else None}
    if latest is not None:
        seat = game_seat_of(game=latest, player=viewer.player_id, devices=viewer.devices)
        ctx = now.game_ctx(seat)
        context["game"], context["ended"] = now.info(viewer.language), now.ended(viewer.language)
        if seat is None:
            context["last_game"] = ctx
        else:
            context["game_ctx"], context["game_seat"] = ctx, seat
    context.update(table_lobby(table, player=player, join=join_link_for(viewer.base_url, table),
                               seats=now.lobby_seats))
    context["player"] = player
    return context


def _player(seats: list, player_id: int | None) -> Player | None:
    """The viewer's player: from its seat's row when it sits at the table (read with the seats), else read."""
    if player_id is None:
        return None
    seated = next((seat.player for seat in seats if seat.player_id == player_id), None)
    return seated if seated is not None else Player.objects.filter(pk=player_id).first()


def phone_tag(now: TableNow, viewer: Viewer) -> tuple[str | None, dict, list[Fragment]]:
    """The phone panel's entity tag (None before and between games) with its shell and fragments, unrendered."""
    with translation.override(viewer.language):
        shell, parts = phone_parts(now, viewer)
        return (_screen_tag(shell, parts, viewer) if parts else None), shell, parts


def phone_screen(now: TableNow, viewer: Viewer, *, note: str = "",
                 made: tuple[str | None, dict, list[Fragment]] | None = None) -> Screen:
    """A phone's panel (the page's ``#private-view``) for this viewer, with a note above it if given.

    ``made``: what :func:`phone_tag` gave for this viewer and table (the caller checked the tag first).
    """
    tag, shell, parts = made if made is not None else phone_tag(now, viewer)
    with translation.override(viewer.language):
        html = panel_html(now, viewer, shell, parts, note=note)
    return Screen(html, now.revision, tag)


def panel_html(now: TableNow, viewer: Viewer, shell: dict, parts: list[Fragment], *, note: str = "") -> SafeString:
    """The whole panel: the shell around its fragments, or the lobby (the element alone, no space around it)."""
    if not parts:
        context = {**_lobby_context(now, viewer), "note": note}
    else:
        context = {**shell, "note": note, "parts": [p.render() for p in parts]}
    return mark_safe(_rendered("gameplay/_panel.jinja", context))  # noqa: S308 (autoescaped)


def briefing_html(game: Game, briefing: dict) -> SafeString:
    """A late joiner's briefing (``gameplay.briefing.take_briefing``) as its phone shows it, once, above the panel:
    that seat's own view now and its private lines, named as its panel names them (``gameplay/_briefing.jinja``)."""
    seat = briefing["seat"]
    names = [s["name"] for s in seats_info(game, seat)]
    return mark_safe(_rendered("gameplay/_briefing.jinja", {  # noqa: S308 (autoescaped)
        "view": briefing["view"], "facts": briefing["facts"], "names": names, "me": seat,
        "now_template": game_part(game.engine, "briefing"), "log_template": game_part(game.engine, "log_line")}))


def result_html(game: Game, seat: int, lines: list[dict]) -> SafeString:
    """A private result shown to one player on a shared device (``gameplay/_shared_result.jinja``): ``lines``, that
    seat's private lines its device has not shown it yet, named as its panel names them; nothing else of its view."""
    names = [s["name"] for s in seats_info(game, seat)]
    return mark_safe(_rendered("gameplay/_shared_result.jinja", {  # noqa: S308 (autoescaped)
        "lines": lines, "names": names, "me": seat, "log_template": game_part(game.engine, "log_line")}))


def note_html(note: str, language: str) -> SafeString:
    """A refused move's note as the panel shows it above itself (``gameplay/_note.jinja``), alone."""
    with speaking(language):
        return mark_safe(_rendered("gameplay/_note.jinja", {"note": note}))  # noqa: S308 (autoescaped)


def shell_tag(shell: dict, parts: list[Fragment], viewer: Viewer) -> str:
    """The shell's own tag: what it shows but for its fragments and the revision."""
    return digest([dict(shell, table=_table(shell["table"])), [p.id for p in parts], viewer.language])


def _screen_tag(shell: dict, parts: list[Fragment], viewer: Viewer) -> str:
    """A screen's entity tag: its shell and every fragment's tag (the revision left out), and whether its
    forms can post (a CSRF token)."""
    return f'"{digest([shell_tag(shell, parts, viewer), [p.tag for p in parts], viewer.can_post])}"'


# ---- The board and the moderator's drawer -------------------------------------------------------------

def board_part(now: TableNow, viewer: Viewer) -> Fragment:
    """The public board (``#public-view``): public facts only, the same for every board in a language.

    During a game it is made from projections alone (the game's ``board`` part, its pieces from the table's parts);
    between games it shows the join link and a game night's scoreboard (read by its template tag): no tag.
    """
    table, latest, running = now.table, now.latest, now.running
    context: dict = {"table": _table(table)}
    if running is not None:
        ctx, info = now.game_ctx(None), now.info(viewer.language)
        parts = {**ctx["parts"], "bv-head": board_head(context["table"], info, ctx["names"], now.asleep,
                                                       now.handovers)}
        context["playing"] = {"engine": running.engine, "seats": len(ctx["seats"]),
                              "board_template": ctx["board_template"], "board": parts.get("board")}
        return Fragment(BOARD_ROOT, "gameplay/_board.jinja", {**context, "parts": parts}, public=True,
                        revision=now.revision, store=now.store, parts=parts, language=viewer.language)
    context.update({"table_seats": seat_names(table), **join_link_for(viewer.base_url, table)})
    if latest is not None:
        context["game_ctx"] = now.game_ctx(None)
        context["game"] = now.info(viewer.language)
    return Fragment(BOARD_ROOT, "gameplay/_board.jinja", context, public=True, revision=now.revision, tagged=False,
                    language=viewer.language)


# What the board's head shows of the game row (its countdown's, as every screen's).
HEAD_GAME_KEYS = ("title", "seed_hash", "paused", "paused_remaining", "deadline_ms", "silent", "timer_seconds", "waits")


def board_head(table: dict, game: dict, names: list[str], asleep: list[int], handovers: list[dict]) -> dict:
    """The head row of the board (``bv-head``) and of the phone (``pv-head``): the game, the code, the countdown,
    phones gone quiet and seats that moved (each by name), the shuffle's hash."""
    return {"code": table["code"], "game": {key: game[key] for key in HEAD_GAME_KEYS}, "names": names,
            "asleep": asleep, "handovers": handovers}


def board_screen(now: TableNow, viewer: Viewer) -> Screen:
    """The board's public partial (``#public-view``)."""
    with translation.override(viewer.language):
        part = now.board_fragment(viewer)
        return Screen(part.render(), now.revision, f'"{part.tag}"' if part.tag else None)


def moderator_part(now: TableNow, viewer: Viewer) -> Fragment:
    """The moderator's drawer beside the board (``#moderator-view``): the host's controls, public facts only."""
    host = viewer.hosts(now.table)
    # Only the host's drawer shows the game (everyone's says who hosts): the others read no game row.
    mod = moderator_context(now.table, viewer.player_id, latest=now.latest if host else None,
                            asleep=now.asleep if host else [], shared=now.shared if host else [])
    # The request a moderated table's moderator alone decides (public facts), with what draws its move.
    undo = moderator_undo(now.latest) if host else None
    shown = {"undo": undo, "names": now.game_ctx(None)["names"], "log_template": now.game_ctx(None)["log_template"]
             } if undo is not None else {"undo": None}
    return Fragment(MODERATOR_ROOT, "gameplay/_moderator.jinja",
                    {"table": _table(now.table), "mod": mod, "night": now.night if host else None, **shown},
                    revision=now.revision)


def moderator_screen(now: TableNow, viewer: Viewer) -> Screen:
    """The moderator's drawer for this viewer (everyone's says who hosts; the host's holds the controls)."""
    with translation.override(viewer.language):
        part = moderator_part(now, viewer)
        return Screen(part.render(), now.revision, f'"{part.tag}"')
