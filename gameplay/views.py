"""The table's pages: a phone's private panel, the public board, moves, history, replay, rules.

One template per page with a partial that htmx refetches on ``table-changed``; the partial
gets only engine views (``gameplay.selectors``), never the state or the Game row. Before and
between games the phone shows the lobby's part (``lobby.context``, ``lobby/_table.html``).
A refused move is a domain error from ``gameplay.services``; :data:`REFUSALS` says, in one
place, what each kind answers. The host's controls and seat links are ``gameplay.controls``.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass, field

from django.contrib import messages
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from config.resilience import cache_guard
from engines.registry import ENGINES, get_engine
from gameplay import presence, services, socket_panel
from gameplay.forms import BadMoveForm, read_move_form
from gameplay.models import Game
from gameplay.moderator import moderator_context
from gameplay.seats import moved_away, session_devices
from gameplay.selectors import (
    game_context,
    game_public_info,
    game_replay_context,
    game_seat_of,
    handover_notes,
    player_history,
    table_latest_game,
)
from gameplay.services import (
    AlreadyWaited,
    GameOver,
    IllegalMove,
    IncompletePick,
    Malformed,
    MoveRefused,
    NoGame,
    NotYourSeat,
    Stale,
    WindowClosed,
)
from lobby import notify
from lobby.context import join_link, seat_names, table_info, table_lobby
from lobby.models import Table
from lobby.services import player_id_of
from lobby.views import table_or_404

logger = logging.getLogger(__name__)


_MOVED_ON = gettext_lazy("The table moved on: here is where it stands now.")
_NOT_ALLOWED = gettext_lazy("That move is not allowed now.")
# What a refused move or wait answers: the status and the note the fresh panel shows.
REFUSALS: dict[type[Exception], tuple[int, Promise]] = {
    NoGame: (409, gettext_lazy("No game is running at this table.")),
    BadMoveForm: (400, gettext_lazy("That move was malformed.")),
    NotYourSeat: (403, gettext_lazy("That seat is not yours.")),
    WindowClosed: (409, gettext_lazy("That window has closed: here is where the table stands now.")),
    AlreadyWaited: (409, gettext_lazy("You asked for time in this window already.")),
    Stale: (409, _MOVED_ON),
    GameOver: (409, _MOVED_ON),
    Malformed: (400, _NOT_ALLOWED),
    IllegalMove: (400, _NOT_ALLOWED),
    IncompletePick: (400, gettext_lazy("Nothing was played: too few were ticked. "
                                       "Tick everything the move asks for, then send it.")),
}


def refusal_answer(error: Exception) -> tuple[int, str]:
    """The HTTP status and the translated note for a refused move or wait (its nearest listed kind)."""
    for kind in type(error).__mro__:
        if kind in REFUSALS:
            status, note = REFUSALS[kind]
            return status, str(note)
    raise KeyError(f"no answer for {type(error).__name__}")


def _latest(table: Table, game: Game | None = None) -> tuple[Game | None, Game | None]:
    """The table's latest game and, if it still runs, the same row as the running one.

    One query (at most one game runs per table, and it is the newest). The worker expires due
    windows; a page that sees a passed deadline does it too, so a game never waits on a
    sleeping phone or a stopped worker (an expiry the engine fails on clears the deadline, so
    no page runs it twice). The table row was read before the game row, so its revision never
    claims a newer table than the panel shows; after an expiry both are read again.
    """
    latest = game if game is not None else socket_panel.latest_game(table)
    running = latest if latest is not None and not latest.over else None
    if (
        running is not None
        and running.deadline is not None
        and running.deadline <= timezone.now()
        and services.game_expire(game_id=running.pk)
    ):
        table.refresh_from_db(fields=["revision"])
        latest = table_latest_game(table)
        running = latest if latest is not None and not latest.over else None
    return latest, running


def _seen(request: HttpRequest, table: Table) -> tuple[int | None, dict[str, str]]:
    """Mark this browser present at the table (a push render's socket does that itself); returns its
    player id and its seat links' device tokens."""
    devices = session_devices(request.session)
    player_id = player_id_of(request=request)
    if not socket_panel.pushing():
        presence.seen(table.pk, player_id, devices.values())
    return player_id, devices


def _table(request: HttpRequest, code: str) -> Table:
    """:func:`table_or_404`; in a push render, the row its push's renders share (``socket_panel.push_table``)."""
    return socket_panel.push_table(code, lambda: table_or_404(request, code))


@dataclass
class _Basis:
    """What a phone's panel is built from, read before anything is rendered (see :func:`_panel_tag`)."""

    player_id: int | None
    devices: dict[str, str]
    latest: Game | None
    running: Game | None
    asleep: list[int] = field(default_factory=list)
    handovers: list[dict] = field(default_factory=list)


def _basis(request: HttpRequest | None, table: Table, game: Game | None = None) -> _Basis:
    """A phone's basis (``request``: marked present at the table), or the public board's (None)."""
    player_id, devices = _seen(request, table) if request is not None else (None, {})
    latest, running = _latest(table, game)
    basis = _Basis(player_id, devices, latest, running)
    if running is not None:
        basis.asleep = socket_panel.asleep_seats(running, table)
        basis.handovers = handover_notes(running)
    return basis


def _panel_tag(request: HttpRequest, table: Table, basis: _Basis) -> str | None:
    """The running game's panel as an entity tag: everything the partial depends on, hashed.

    The table's revision moves with every move, seat and setting change; the rest is who asks
    (player, seat-link devices, language) and what changes with time alone (phones asleep, rescue
    links, the window's deadline and waits). The CSRF token is left out: any masked copy stays
    valid. None before and between games (the lobby part shows more than the table row says).
    """
    game = basis.running
    if game is None:
        return None
    parts = [table.revision, table.host_id, get_language(), basis.player_id, sorted(basis.devices.items()),
             basis.asleep, basis.handovers, game.pk, game.version, game.paused, game.deadline, game.waits]
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


def _not_modified(request: HttpRequest, tag: str | None) -> HttpResponse | None:
    """A 304 for a screen that holds this panel already (``If-None-Match``), else None."""
    if tag is None or tag not in request.headers.get("If-None-Match", ""):
        return None
    response = HttpResponseNotModified()
    response["ETag"] = tag
    return response


def _cacheable(response: HttpResponse, tag: str | None) -> HttpResponse:
    """Let the browser keep the panel and ask again with its tag (never reuse it unasked)."""
    if tag is not None and response.status_code == 200:
        response["ETag"] = tag
        response["Cache-Control"] = "private, no-cache"
        patch_vary_headers(response, ["HX-Request", "Cookie"])
    return response


def _panel_context(request: HttpRequest, table: Table, game: Game | None = None,
                   basis: _Basis | None = None) -> dict:
    """Everything the phone page and its partial show: the game for this browser, else the lobby.

    ``game``: the table's latest game row when the caller has it fresh (a move just made).
    """
    basis = basis or _basis(request, table, game)
    player_id, devices, latest, running = basis.player_id, basis.devices, basis.latest, basis.running
    context: dict = {
        "table": table_info(table),
        "is_host": player_id is not None and player_id == table.host_id,
        "player": request.player,
        "move_url": reverse("move", args=[table.code]),
    }
    if latest is not None:
        seat = game_seat_of(game=latest, player=player_id, devices=devices)
        if latest.over and seat is None:
            context["last_game"] = game_context(game=latest, seat=None)
        else:
            context["game_ctx"] = game_context(game=latest, seat=seat)
            context["game_seat"] = seat
        context["game"] = game_public_info(latest)
        if running is not None:
            context["asleep"] = basis.asleep
            context["handovers"] = basis.handovers
            # This phone's seat moved to another phone: it says so, and shows no secrets.
            context["moved_away"] = seat is None and moved_away(running, player_id, devices)
    if latest is None or latest.over:
        context.update(table_lobby(request, table, player=request.player))
    return context


def _panel(request: HttpRequest, table: Table, *, note: str = "", status: int = 200,
           game: Game | None = None) -> HttpResponse:
    context = _panel_context(request, table, game)
    context["note"] = note
    return render(request, "gameplay/_panel.html", context, status=status)


@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """A phone's page at a table: the lobby before a game, the private panel during one."""
    table = _table(request, code)
    if request.htmx:
        # A refetch of a panel the phone holds already costs two reads and no rendering.
        basis = _basis(request, table)
        tag = _panel_tag(request, table, basis)
        unchanged = _not_modified(request, tag)
        if unchanged is not None:
            return unchanged
        context = _panel_context(request, table, basis=basis)
        context["note"] = ""
        return _cacheable(render(request, "gameplay/_panel.html", context), tag)
    return render(request, "gameplay/table.html", _panel_context(request, table))


@require_GET
def board_page(request: HttpRequest, code: str) -> HttpResponse:
    """The public board for the tablet in the middle: public facts only.

    The full page adds the controls fragment (``gameplay.moderator``) beside the public
    partial, never inside it: the host's board is the same public bytes plus the controls.
    """
    table = _table(request, code)
    if request.htmx:
        return _public_board(request, table)
    context = _board_context(request, table, _basis(None, table))
    context["mod"] = moderator_context(request, table)
    return render(request, "gameplay/board.html", context)


BOARD_CACHE_SECONDS = 120


def _public_board(request: HttpRequest, table: Table) -> HttpResponse:
    """The board's partial during a game: 304 for a board that holds it already, else rendered
    once per revision, language and presence for every board, moderator and spectator (cached
    under its entity tag, which says everything it depends on)."""
    basis = _basis(None, table)
    tag = _panel_tag(request, table, basis)
    unchanged = _not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    # One entry a table and language (its tag beside it): a new revision's partial takes the old one's place.
    key = f"board:{table.pk}:{get_language()}" if tag is not None else None
    found = cache_guard(lambda: cache.get(key), None, "board") if key else None
    html = found[1] if isinstance(found, tuple) and len(found) == 2 and found[0] == tag else None
    if html is None:
        html = render_to_string("gameplay/_board.html", _board_context(request, table, basis), request=request)
        if key:
            cache_guard(lambda: cache.set(key, (tag, html), BOARD_CACHE_SECONDS), None, "board")
    return _cacheable(HttpResponse(html), tag)


@require_GET
def board_controls(request: HttpRequest, code: str) -> HttpResponse:
    """The board's controls fragment, refetched on every table change: the host's controls, and who hosts."""
    table = table_or_404(request, code)
    return render(request, "gameplay/_moderator.html", {"table": table_info(table),
                                                        "mod": moderator_context(request, table)})


def _board_context(request: HttpRequest, table: Table, basis: _Basis) -> dict:
    latest, running = basis.latest, basis.running
    context: dict = {"table": table_info(table)}
    if running is None:
        # The seats and the join QR show only between games (the QR is not drawn during play).
        context.update({"table_seats": seat_names(table), **join_link(request, table)})
    if latest is not None:
        context["game_ctx"] = game_context(game=latest, seat=None)
        context["game"] = game_public_info(latest)
        if running is not None:
            context["asleep"] = basis.asleep
            context["handovers"] = basis.handovers
    return context


@require_GET
def table_revision(request: HttpRequest, code: str) -> JsonResponse:
    """The table's revision number, for pages polling while their socket is down."""
    table = table_or_404(request, code)
    _seen(request, table)
    _latest(table)
    return JsonResponse({"v": table.revision})


@require_POST
def move(request: HttpRequest, code: str) -> HttpResponse:
    """A phone plays a move; the answer is the fresh panel (with a note and a 4xx when refused)."""
    table = table_or_404(request, code)
    try:
        form = read_move_form(request.POST)
        # An htmx move is answered with the panel it made: its own socket is sent the number alone.
        with notify.answering(request.session.session_key if request.htmx else None):
            result = services.move_submit(
                table_id=table.pk, player=player_id_of(request=request), version=form.version, move_id=form.move_id,
                action=form.action, window=form.window, devices=session_devices(request.session),
            )
    except (MoveRefused, BadMoveForm) as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    if result.game is not None and result.revision is not None:
        # The answer is the panel as the move left the table: that game row and its revision.
        table.revision = result.revision
        return respond(request, table, "", 200, game=result.game)
    return respond(request, table, "", 200)


@require_POST
def wait(request: HttpRequest, code: str) -> HttpResponse:
    """A seat asks the open silent window for more time (once per window; every seat alike)."""
    table = table_or_404(request, code)
    try:
        services.window_wait(table_id=table.pk, player=player_id_of(request=request),
                             devices=session_devices(request.session))
    except MoveRefused as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    return respond(request, table, "", 200)


def respond(request: HttpRequest, table: Table, note: str, status: int, game: Game | None = None) -> HttpResponse:
    """The fresh panel for htmx (with the note and status); a plain form gets the note as a message."""
    if request.htmx:
        return _panel(request, table, note=note, status=status, game=game)
    if note:
        messages.error(request, note)
    return redirect("table", code=table.code)


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """This account's (or guest's) games: game, date, players, own seat, result."""
    player = request.player
    rows = player_history(player=player) if player else []
    return render(request, "gameplay/history.html", {"rows": rows})


@require_GET
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game: the public log, the reveal, the seed, and a move-by-move replay."""
    game = get_object_or_404(Game, pk=game_id)
    if not game.over:
        raise Http404("the game is still running")
    if not _may_see_finished(request, game):
        # Ids are sequential: without a seat in the game or its share link, there is no such page.
        raise Http404("no such game")
    try:
        step = int(request.GET.get("step", game.version))
    except ValueError:
        step = game.version
    context = game_replay_context(game=game, step=step)
    context["final"] = game_context(game=game, seat=None)
    context["handovers"] = handover_notes(game, last=None)
    # Replay steps keep the share token of a link, so a shared page can step through too.
    context["share_query"] = f"k={game.share_token}&" if request.GET.get("k") else ""
    template = "gameplay/_replay.html" if request.htmx else "gameplay/game_detail.html"
    return render(request, template, context)


def _may_see_finished(request: HttpRequest, game: Game) -> bool:
    """A finished game's page is for its players, its table's host, and whoever has its share link."""
    token = request.GET.get("k", "")
    if token and secrets.compare_digest(token.encode(), game.share_token.encode()):
        return True
    player = request.player
    if not player:
        return False
    return player.pk == game.table.host_id or game.seats.filter(player=player).exists()


@require_GET
def rules(request: HttpRequest, engine: str) -> HttpResponse:
    """The in-app rules page of a game, every ruling marked."""
    if engine not in ENGINES:
        raise Http404("no such game")
    try:
        get_template(f"games/{engine}/rules.html")
    except TemplateDoesNotExist as error:
        raise Http404("no rules page") from error
    return render(request, "gameplay/rules.html", {"engine": engine, "title": gettext(get_engine(engine).title)})


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    """The list of games with links to their rules."""
    games = [(n, gettext(e.title)) for n, e in sorted(ENGINES.items())]
    return render(request, "gameplay/rules_index.html", {"games": games})
