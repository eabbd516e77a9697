"""The table's pages: a phone's private panel, the public board, moves, history, replay, rules.

One template per page with a partial that htmx refetches on ``table-changed``; the partial
gets only engine views (``gameplay.selectors``), never the state or the Game row. Before and
between games the phone shows the lobby's part (``lobby.context``, ``lobby/_table.jinja``).
A refused move is a domain error from ``gameplay.services``; :data:`REFUSALS` says, in one
place, what each kind answers. The host's controls and seat links are ``gameplay.web.controls``.
"""

from __future__ import annotations

import logging
import secrets

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from engines.registry import ENGINES, get_engine
from gameplay import presence, services
from gameplay.briefing import take_briefing
from gameplay.live.frames import move_answer
from gameplay.models import Game
from gameplay.screens.table import (
    TableNow,
    Viewer,
    board_screen,
    briefing_html,
    ended_views,
    moderator_screen,
    phone_screen,
    phone_tag,
)
from gameplay.seats import SHARED_HEADER, unlock_end
from gameplay.selectors import (
    game_context,
    game_replay_context,
    game_state,
    handover_notes,
    player_history,
    public_parts,
    table_running_game,
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
from gameplay.undo import AlreadyAnswered, NotAsked, NotUndoable, UndoClosed, UndoPending, undo_expire
from gameplay.web.acting import request_acting, viewer_of_request
from gameplay.web.forms import BadMoveForm, read_move_form
from lobby import notify
from lobby.context import table_info
from lobby.models import Table
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
    # Undo by consent (gameplay.undo): the request or answer changed nothing.
    NotUndoable: (409, gettext_lazy("That move cannot be taken back: only your own latest move can, once, "
                                    "and only if it showed nobody anything.")),
    UndoPending: (409, gettext_lazy("A request to take a move back is open already.")),
    NotAsked: (403, gettext_lazy("You are not asked about this request.")),
    AlreadyAnswered: (409, gettext_lazy("You answered this request already.")),
    UndoClosed: (409, gettext_lazy("That request is closed: here is where the table stands now.")),
}


def refusal_answer(error: Exception) -> tuple[int, str]:
    """The HTTP status and the translated note for a refused move or wait (its nearest listed kind)."""
    for kind in type(error).__mro__:
        if kind in REFUSALS:
            status, note = REFUSALS[kind]
            return status, str(note)
    raise KeyError(f"no answer for {type(error).__name__}")


def _viewer(request: HttpRequest, table: Table) -> Viewer:
    """This browser as the table's screens judge it, marked present at the table (a page or a refetch)."""
    viewer = viewer_of_request(request)
    presence.seen(table.pk, viewer.player_id, viewer.devices.values())
    return viewer


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
        patch_vary_headers(response, ["HX-Request", "Cookie", SHARED_HEADER])
    return response


@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """A phone's page at a table: the lobby before a game, the private panel during one."""
    table = table_or_404(request, code)
    viewer = _viewer(request, table)
    now = TableNow(table)
    if request.htmx:
        # A refetch of a panel the phone holds already costs the reads and no rendering.
        made = phone_tag(now, viewer)
        unchanged = _not_modified(request, made[0])
        if unchanged is not None:
            return unchanged
        screen = phone_screen(now, viewer, made=made)
        return _cacheable(HttpResponse(screen.html), screen.tag)
    # A seat just taken over by a link: its briefing, once, on this page alone (never in a refetch or a push).
    briefing = take_briefing(request.session, now.running)
    return render(request, "gameplay/table.html", {
        "table": table_info(table), "panel": phone_screen(now, viewer).html,
        "briefing": briefing_html(now.game, briefing) if briefing is not None else ""})


@require_GET
def board_page(request: HttpRequest, code: str) -> HttpResponse:
    """The public board for the tablet in the middle: public facts only.

    The full page adds the moderator's drawer (``gameplay.screens.table.moderator_screen``) beside the public
    partial, never inside it: the host's board is the same public bytes plus the controls.
    """
    table = table_or_404(request, code)
    viewer = viewer_of_request(request)  # a board is nobody's phone: it marks no one present
    now = TableNow(table)
    board = board_screen(now, viewer)
    if request.htmx:
        unchanged = _not_modified(request, board.tag)
        return unchanged or _cacheable(HttpResponse(board.html), board.tag)
    return render(request, "gameplay/board.html", {"table": table_info(table), "board": board.html,
                                                   "moderator": moderator_screen(now, viewer).html})


@require_GET
def board_controls(request: HttpRequest, code: str) -> HttpResponse:
    """The board's controls fragment (a refetch; pushes carry it): the host's controls, and who hosts."""
    table = table_or_404(request, code)
    return HttpResponse(moderator_screen(TableNow(table), viewer_of_request(request)).html)


@require_GET
def table_revision(request: HttpRequest, code: str) -> JsonResponse:
    """The table's revision number, for pages polling while their socket is down.

    The one read that may write: where no game worker runs, a window whose deadline passed is expired
    here (the worker does it everywhere else), so a game never waits on a stopped worker.
    """
    table = table_or_404(request, code)
    _viewer(request, table)
    running = table_running_game(table)
    if running is not None and running.deadline is not None and running.deadline <= timezone.now() \
            and services.game_expire(game_id=running.pk):
        table.refresh_from_db(fields=["revision"])
    if running is not None and running.undo_deadline is not None and running.undo_deadline <= timezone.now() \
            and undo_expire(game_id=running.pk):
        table.refresh_from_db(fields=["revision"])
    return JsonResponse({"v": table.revision})


@require_POST
def move(request: HttpRequest, code: str) -> HttpResponse:
    """A phone plays a move; the answer is the fresh panel (with a note and a 4xx when refused)."""
    table = table_or_404(request, code)
    try:
        form = read_move_form(request.POST)
        player, devices, shared = request_acting(request)
        # An htmx move is answered with the panel it made: its own socket is sent the number alone (a shared
        # seat's page has no socket: the device's own page gets its push as usual).
        with notify.answering(request.session.session_key if request.htmx and not shared else None):
            result = services.move_submit(
                table_id=table.pk, player=player, version=form.version, move_id=form.move_id,
                action=form.action, window=form.window, devices=devices,
            )
    except (MoveRefused, BadMoveForm) as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    if result.game is not None and result.revision is not None:
        # The answer is the panel as the move left the table: that game row and its revision.
        table.revision = result.revision
        answer = respond(request, table, "", 200, game=result.game)
    else:
        answer = respond(request, table, "", 200)
    if shared:  # a move from a shared seat's screen landed: its page blacks out, and its unlock ends
        unlock_end(request.session, request.headers.get(SHARED_HEADER, ""))
    return answer


@require_POST
def wait(request: HttpRequest, code: str) -> HttpResponse:
    """A seat asks the open silent window for more time (once per window; every seat alike)."""
    table = table_or_404(request, code)
    try:
        player, devices, _shared = request_acting(request)
        services.window_wait(table_id=table.pk, player=player, devices=devices)
    except MoveRefused as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    return respond(request, table, "", 200)


def respond(request: HttpRequest, table: Table, note: str, status: int, game: Game | None = None) -> HttpResponse:
    """The fresh panel for htmx (with the note and status); a plain form gets the note as a message.

    ``game``: the table's latest game row as the move left it (with ``table.revision`` its revision).
    """
    if request.htmx:
        viewer = _viewer(request, table)
        if game is not None:
            screen = move_answer(table, game, viewer, note=note)
        else:
            screen = phone_screen(TableNow(table), viewer, note=note)
        return HttpResponse(screen.html, status=status)
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
    if game.status == Game.ENDED and context["step"] == game.version:  # the replay's last step shows every seat's cards
        state, engine = game_state(game), get_engine(game.engine)
        context["ended_views"] = ended_views(game, lambda seat: engine.view(state, seat))
        context["parts"] = public_parts(game.engine, context["view"], context["seats"], context["ended_views"])
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
        get_template(f"games/{engine}/rules.jinja")
    except TemplateDoesNotExist as error:
        raise Http404("no rules page") from error
    return render(request, "gameplay/rules.html", {"engine": engine, "title": gettext(get_engine(engine).title)})


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    """The list of games with links to their rules."""
    games = [(n, gettext(e.title)) for n, e in sorted(ENGINES.items())]
    return render(request, "gameplay/rules_index.html", {"games": games})
