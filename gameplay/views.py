"""The table's pages: a phone's private panel, the public board, moves, history, replay, rules.

One template per page with a partial that htmx refetches on ``table-changed``; the partial
gets only engine views (``gameplay.selectors``), never the state or the Game row.
"""

from __future__ import annotations

import json
import logging
import re
import secrets

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from engines.registry import ENGINES, get_engine
from gameplay import presence, services
from gameplay.models import Game, GameSeat
from gameplay.seats import DEVICES_KEY, moved_away, session_devices
from gameplay.selectors import (
    game_context,
    game_public_info,
    game_replay_context,
    game_seat_of,
    player_history,
    table_latest_game,
)
from lobby.forms import NicknameForm, option_fields, timer_choices
from lobby.models import Table
from lobby.network import lan_base_url, qr_svg
from lobby.services import clean_token, player_current, table_running_game
from lobby.views import table_or_404

MAX_ACTION_CHARS = 4000
logger = logging.getLogger(__name__)




def _expire_if_due(game: Game | None) -> None:
    # The worker expires windows; a page that sees a passed deadline does it too, so a game
    # never waits on a sleeping phone or a stopped worker.
    # (An expiry the engine fails on clears the deadline, so no page runs it twice.)
    if (
        game is not None
        and not game.over
        and game.deadline is not None
        and game.deadline <= timezone.now()
        and services.game_expire(game_id=game.pk)
    ):
        game.refresh_from_db()


def _panel_context(request: HttpRequest, table: Table) -> dict:
    """Everything the phone page and its partial show: lobby or game, for this browser."""
    player = player_current(request=request)
    devices = session_devices(request.session)
    presence.seen(table.pk, player.pk if player else None, devices.values())
    _expire_if_due(table_running_game(table))
    # The revision is read before the rows it labels, so a panel never claims to be newer than it is.
    table.refresh_from_db(fields=["revision"])
    running = table_running_game(table)
    latest = running or table_latest_game(table)
    seats = list(table.seats.select_related("player"))
    context: dict = {
        "table": {"code": table.code, "engine": table.engine, "title": gettext(get_engine(table.engine).title),
                  "timer_seconds": table.timer_seconds, "revision": table.revision},
        "is_host": player is not None and player.pk == table.host_id,
        "player": player,
        "table_seats": [{"id": s.pk, "name": s.name, "is_bot": bool(s.bot), "is_me": player is not None
                         and s.player_id == player.pk, "is_host": s.player_id == table.host_id} for s in seats],
        "seated": player is not None and any(s.player_id == player.pk for s in seats),
        "move_url": reverse("move", args=[table.code]),
        "nickname_form": NicknameForm(),
        "engine_info": {"min": get_engine(table.engine).min_players, "max": get_engine(table.engine).max_players},
    }
    if latest is not None:
        seat = game_seat_of(game=latest, player=player, devices=devices)
        if latest.over and seat is None:
            context["last_game"] = game_context(game=latest, seat=None)
        else:
            context["game_ctx"] = game_context(game=latest, seat=seat)
            context["game_seat"] = seat
        context["game"] = game_public_info(latest)
        if running is not None:
            context["asleep"] = presence.asleep_seats(running, table.pk)
            context["handovers"] = services.handover_notes(running)
            # This phone's seat moved to another phone: it says so, and shows no secrets.
            context["moved_away"] = seat is None and moved_away(running, player, devices)
    if latest is None or latest.over:
        context["join_url"] = lan_base_url(request) + reverse("table", args=[table.code])
        context["join_qr"] = qr_svg(context["join_url"])
    if context["is_host"] and running is None:
        context["settings_games"] = [(n, gettext(e.title)) for n, e in sorted(ENGINES.items())]
        context["settings_options"] = {n: option_fields(n, table.options if n == table.engine else {})
                                       for n in ENGINES}
        context["timers"] = timer_choices()
    return context


def _panel(request: HttpRequest, table: Table, *, note: str = "", status: int = 200) -> HttpResponse:
    context = _panel_context(request, table)
    context["note"] = note
    return render(request, "gameplay/_panel.html", context, status=status)


@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """A phone's page at a table: the lobby before a game, the private panel during one."""
    table = table_or_404(request, code)
    if request.htmx:
        return _panel(request, table)
    return render(request, "gameplay/table.html", _panel_context(request, table))


@require_GET
def board_page(request: HttpRequest, code: str) -> HttpResponse:
    """The public board for the tablet in the middle: public facts only."""
    table = table_or_404(request, code)
    context = _board_context(request, table)
    if request.htmx:
        return render(request, "gameplay/_board.html", context)
    return render(request, "gameplay/board.html", context)


def _board_context(request: HttpRequest, table: Table) -> dict:
    _expire_if_due(table_running_game(table))
    # The revision is read before the rows it labels, so a panel never claims to be newer than it is.
    table.refresh_from_db(fields=["revision"])
    running = table_running_game(table)
    latest = running or table_latest_game(table)
    join_url = lan_base_url(request) + reverse("table", args=[table.code])
    context: dict = {
        "table": {"code": table.code, "engine": table.engine, "title": gettext(get_engine(table.engine).title),
                  "revision": table.revision},
        "table_seats": [{"name": s.name, "is_bot": bool(s.bot)} for s in table.seats.select_related("player")],
        "join_url": join_url,
        "join_qr": qr_svg(join_url),
    }
    if latest is not None:
        context["game_ctx"] = game_context(game=latest, seat=None)
        context["game"] = game_public_info(latest)
        if running is not None:
            context["asleep"] = presence.asleep_seats(running, table.pk)
            context["handovers"] = services.handover_notes(running)
    return context


@require_GET
def table_revision(request: HttpRequest, code: str) -> JsonResponse:
    """The table's revision number, for pages polling while their socket is down."""
    table = table_or_404(request, code)
    player = player_current(request=request)
    devices = session_devices(request.session)
    presence.seen(table.pk, player.pk if player else None, devices.values())
    _expire_if_due(table_running_game(table))
    table.refresh_from_db(fields=["revision"])
    return JsonResponse({"v": table.revision})


MAX_ACTION_DEPTH = 8
_INT_FIELD = re.compile(r"-?[0-9]{1,11}")


def _coerce(value: str):
    """A form field's value: ASCII digits (one optional leading minus) are an int, anything else text."""
    text = value.strip()
    return int(text) if _INT_FIELD.fullmatch(text) else text


def _depth(value, limit: int) -> int:
    """How deeply lists and dicts nest in ``value`` (stops counting past ``limit``)."""
    if limit < 0 or not isinstance(value, list | dict):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(item, limit - 1) for item in items), default=0)


def parse_action(post) -> dict | None:
    """The action a move form sends: base JSON in ``action`` plus ``a.<key>``/``a.<key>[]`` fields.

    None (a 400) for anything malformed: too long, not JSON, not an object, nested deeper than
    any game's action (the JSON parser itself never sees thousands of brackets).
    """
    raw = post.get("action", "")
    if len(raw) > MAX_ACTION_CHARS or raw.count("[") + raw.count("{") > 4 * MAX_ACTION_DEPTH:
        return None
    try:
        action = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(action, dict) or _depth(action, MAX_ACTION_DEPTH) > MAX_ACTION_DEPTH:
        return None
    for key in post:
        if not key.startswith("a.") or len(key) > 40:
            continue
        name = key[2:]
        if name.endswith("[]"):
            action[name[:-2]] = [_coerce(v) for v in post.getlist(key)]
        else:
            action[name] = _coerce(post.get(key, ""))
    return action


@require_POST
def move(request: HttpRequest, code: str) -> HttpResponse:
    """A phone plays a move; the answer is the fresh panel (with a note when refused)."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    player = player_current(request=request)
    if game is None:
        return _respond(request, table, _("No game is running at this table."), 409)
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        return _respond(request, table, _("That move was malformed."), 400)
    move_id = clean_token(request.POST.get("move_id", "")) or None
    if version < 0 or version >= 2**31:
        return _respond(request, table, _("That move was malformed."), 400)
    action = parse_action(request.POST)
    if action is None:
        return _respond(request, table, _("That move was malformed."), 400)
    # The response window the screen showed (compared with the open one, never stored).
    window = request.POST.get("window", "")[:80]
    result = services.move_submit(
        game_id=game.pk, player=player, version=version, move_id=move_id, action=action, window=window,
        devices=session_devices(request.session),
    )
    if result.ok:
        return _respond(request, table, "", 200)
    if result.status == 409 and result.reason == "window_closed":
        note = _("That window has closed: here is where the table stands now.")
    elif result.status == 409:
        note = _("The table moved on: here is where it stands now.")
    elif result.status == 403:
        note = _("That seat is not yours.")
    else:
        note = _("That move is not allowed now.")
    return _respond(request, table, note, result.status)


@require_POST
def wait(request: HttpRequest, code: str) -> HttpResponse:
    """A seat asks the open silent window for more time (once per window; every seat alike)."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    if game is None:
        return _respond(request, table, _("No game is running at this table."), 409)
    result = services.window_wait(
        game_id=game.pk, player=player_current(request=request), devices=session_devices(request.session)
    )
    if result.ok:
        return _respond(request, table, "", 200)
    if result.status == 403:
        return _respond(request, table, _("That seat is not yours."), 403)
    if result.reason == "waited":
        return _respond(request, table, _("You asked for time in this window already."), 409)
    return _respond(request, table, _("That window has closed: here is where the table stands now."), 409)


def _respond(request: HttpRequest, table: Table, note: str, status: int) -> HttpResponse:
    if request.htmx:
        return _panel(request, table, note=note, status=status)
    if note:
        messages.error(request, note)
    return redirect("table", code=table.code)


def _host_game(request: HttpRequest, code: str) -> tuple[Table, Game | None] | HttpResponse:
    table = table_or_404(request, code)
    player = player_current(request=request)
    if player is None or player.pk != table.host_id:
        return HttpResponse(_("Only the host can do that."), status=403)
    return table, table_running_game(table)


@require_POST
def host_action(request: HttpRequest, code: str) -> HttpResponse:
    """The host's game controls: start, play again, pause/resume the timer, end, seat to bot."""
    found = _host_game(request, code)
    if isinstance(found, HttpResponse):
        return found
    table, game = found
    what = request.POST.get("what", "")
    try:
        if what in ("start", "again"):
            services.game_start(table=table)
        elif game is None:
            messages.error(request, _("No game is running at this table."))
        elif what == "pause":
            services.timer_pause(game=game)
        elif what == "resume":
            services.timer_resume(game=game)
        elif what == "end":
            if request.POST.get("confirm") != "yes":
                # Ending is for everyone and cannot be undone: ask once more.
                return render(request, "gameplay/confirm_end.html", {"table": table, "game": game_public_info(game)})
            player = player_current(request=request)
            services.game_end_early(game=game, by=player.nickname if player else "")
        elif what == "bot":
            index = int(request.POST.get("seat", "-1"))
            if not 0 <= index < game.players:
                raise ValueError("no such seat")
            services.seat_to_bot(game=game, index=index)
        else:
            return HttpResponse(_("Unknown action."), status=400)
    except services.GameError as error:
        messages.error(request, str(error))
    except (ValueError, GameSeat.DoesNotExist):
        return HttpResponse(_("Bad seat."), status=400)
    return redirect("table", code=table.code)


def _handover_page(request: HttpRequest, table: Table, game: Game, link) -> HttpResponse:
    url = lan_base_url(request) + reverse("seat_link", args=[link.token])
    name = game.seats.get(index=link.index).name
    return render(request, "gameplay/seat_link.html", {
        "table": table, "name": name, "url": url, "qr": qr_svg(url), "by_host": link.by_host,
        "minutes": services.HANDOVER_MINUTES,
    })


@require_POST
def move_me(request: HttpRequest, code: str) -> HttpResponse:
    """A player asks, from their own phone, for a link that moves their seat to another phone."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    seat = game_seat_of(game=game, player=player_current(request=request),
                        devices=session_devices(request.session)) if game else None
    if game is None or seat is None:
        return _respond(request, table, _("You have no seat in a running game here."), 403)
    try:
        link = services.seat_handover_create(game=game, index=seat, by_host=False)
    except services.GameError as error:
        return _respond(request, table, str(error), 409)
    return _handover_page(request, table, game, link)


@require_POST
def seat_link_create(request: HttpRequest, code: str) -> HttpResponse:
    """The host's rescue link for a seat whose phone has been gone a while (announced on the board)."""
    found = _host_game(request, code)
    if isinstance(found, HttpResponse):
        return found
    table, game = found
    try:
        index = int(request.POST.get("seat", ""))
    except ValueError:
        return HttpResponse(_("Bad seat."), status=400)
    if game is None:
        messages.error(request, _("No game is running at this table."))
        return redirect("table", code=table.code)
    try:
        link = services.seat_handover_create(game=game, index=index, by_host=True)
    except services.GameError as error:
        messages.error(request, str(error))
        return redirect("table", code=table.code)
    return _handover_page(request, table, game, link)


@require_GET
def seat_link(request: HttpRequest, token: str) -> HttpResponse:
    """Open a seat link on the new phone: the seat (this game only) moves here, the old phone stops."""
    try:
        game, device = services.seat_handover_claim(token=clean_token(token))
    except services.GameError as error:
        return render(request, "lobby/message.html", {"message": str(error)}, status=404)
    # A seat changing hands gets a new session key; this browser keeps its own player, if any.
    request.session.cycle_key()
    request.session[DEVICES_KEY] = {**session_devices(request.session), str(game.pk): device}
    return redirect("table", code=game.table.code)


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """This account's (or guest's) games: game, date, players, own seat, result."""
    player = player_current(request=request)
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
    context["handovers"] = services.handover_notes(game, last=None)
    # Replay steps keep the share token of a link, so a shared page can step through too.
    context["share_query"] = f"k={game.share_token}&" if request.GET.get("k") else ""
    template = "gameplay/_replay.html" if request.htmx else "gameplay/game_detail.html"
    return render(request, template, context)


def _may_see_finished(request: HttpRequest, game: Game) -> bool:
    """A finished game's page is for its players, its table's host, and whoever has its share link."""
    token = request.GET.get("k", "")
    if token and secrets.compare_digest(token.encode(), game.share_token.encode()):
        return True
    player = player_current(request=request)
    if player is None:
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
