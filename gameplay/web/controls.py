"""The host's game controls (one small view per verb) and the seat links that move a seat to a new phone.

Every host control comes through ``lobby.views.host_table`` (404 for an unknown code, 403 for
anyone but the host), changes the game through one service, and answers with the table page,
or the board for a form sent from the moderator's board (``back=board``); a refusal is a
message on it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from gameplay import services
from gameplay.briefing import owe_briefing
from gameplay.models import HANDOVER_MINUTES, Game, GameSeat, SeatHandover
from gameplay.seats import DEVICES_KEY, SHARED_KEY, game_seats, session_devices, session_shared, shared_token
from gameplay.selectors import game_public_info, game_seat_of, table_running_game
from gameplay.web.views import respond
from lobby import known_tables
from lobby.models import Table
from lobby.network import lan_base_url, qr_svg
from lobby.services import clean_token
from lobby.views import back_to, host_table, table_or_404


def _back(request: HttpRequest, table: Table, error: str = "") -> HttpResponse:
    """To the page the control was used on (the table page, or the moderator's board), with ``error`` as a message."""
    if error:
        messages.error(request, error)
    return back_to(request, table)


def _no_game(request: HttpRequest, table: Table) -> HttpResponse:
    return _back(request, table, _("No game is running at this table."))


def _running_game_verb(verb: Callable[[HttpRequest, Table, Game], HttpResponse]) -> Callable[..., HttpResponse]:
    """A host verb on the table's running game: the host's table (``host_table``: 404, 403), its running game,
    or the "no game" message; then ``verb(request, table, game)``."""
    @wraps(verb)
    def view(request: HttpRequest, code: str) -> HttpResponse:
        table = host_table(request, code)
        game = table_running_game(table)
        if game is None:
            return _no_game(request, table)
        return verb(request, table, game)
    return view


def _start(request: HttpRequest, code: str) -> HttpResponse:
    table = host_table(request, code)
    try:
        services.game_start(table=table)
    except services.GameError as error:
        return _back(request, table, str(error))
    return _back(request, table)


@require_POST
def host_start(request: HttpRequest, code: str) -> HttpResponse:
    """The host deals the first game on the seats as they are."""
    return _start(request, code)


@require_POST
def host_again(request: HttpRequest, code: str) -> HttpResponse:
    """The host deals a new game on the same seats after one ended."""
    return _start(request, code)


@require_POST
@_running_game_verb
def host_pause(request: HttpRequest, table: Table, game: Game) -> HttpResponse:
    """The host stops the countdown, keeping the time left."""
    services.timer_pause(game=game)
    return _back(request, table)


@require_POST
@_running_game_verb
def host_resume(request: HttpRequest, table: Table, game: Game) -> HttpResponse:
    """The host restarts the countdown with the time that was left."""
    services.timer_resume(game=game)
    return _back(request, table)


@require_POST
@_running_game_verb
def host_end(request: HttpRequest, table: Table, game: Game) -> HttpResponse:
    """The host ends the game for everyone, after confirming (``confirm=yes``); nobody wins."""
    if request.POST.get("confirm") != "yes":
        # Ending is for everyone and cannot be undone: ask once more.
        return render(request, "gameplay/confirm_end.html", {"table": table, "game": game_public_info(game),
                                                             "back": _board_back(request)})
    services.game_end_early(game=game, by=request.player)
    return _back(request, table)


@require_POST
@_running_game_verb
def host_bot(request: HttpRequest, table: Table, game: Game) -> HttpResponse:
    """The host gives a departed player's seat (``seat``: its index in the game) to a bot."""
    try:
        index = int(request.POST.get("seat", "-1"))
        if not 0 <= index < game.players:
            raise ValueError("no such seat")
        services.seat_to_bot(game=game, index=index)
    except (ValueError, GameSeat.DoesNotExist):
        return HttpResponse(_("Bad seat."), status=400)
    return _back(request, table)


def _board_back(request: HttpRequest) -> str:
    """"board" when the control came from the moderator's board (its pages lead back there), else ""."""
    return "board" if request.POST.get("back") == "board" else ""


def _handover_page(request: HttpRequest, table: Table, game: Game, link: SeatHandover) -> HttpResponse:
    url = lan_base_url(request) + reverse("seat_link", args=[link.token])
    name = game.seats.get(index=link.index).name
    return render(request, "gameplay/seat_link.html", {
        "table": table, "name": name, "url": url, "qr": qr_svg(url), "by_host": link.by_host,
        "minutes": HANDOVER_MINUTES, "back": _board_back(request),
    })


@require_POST
def move_me(request: HttpRequest, code: str) -> HttpResponse:
    """A player asks, from their own phone, for a link that moves their seat to another phone."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    seat = game_seat_of(game=game, player=request.player, devices=session_devices(request.session)) if game else None
    if game is None or seat is None:
        return respond(request, table, _("You have no seat in a running game here."), 403)
    try:
        link = services.seat_handover_create(game=game, index=seat, by_host=False)
    except services.GameError as error:
        return respond(request, table, str(error), 409)
    return _handover_page(request, table, game, link)


@require_POST
def seat_link_create(request: HttpRequest, code: str) -> HttpResponse:
    """The host's rescue link for a seat whose phone has been gone a while (announced on the board)."""
    table = host_table(request, code)
    game = table_running_game(table)
    try:
        index = int(request.POST.get("seat", ""))
    except ValueError:
        return HttpResponse(_("Bad seat."), status=400)
    if game is None:
        return _no_game(request, table)
    try:
        link = services.seat_handover_create(game=game, index=index, by_host=True)
    except services.GameError as error:
        return _back(request, table, str(error))
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
    owe_briefing(request.session, game, device)  # what the seat knows, shown once on this phone's next page
    known_tables.remember(request.session, game.table.code)  # the code-guess limit never refuses it its table
    return redirect("table", code=game.table.code)


# ---- A seat played on the host's device (pass-and-play) --------------------------------------------------------------

def _seat_number(request: HttpRequest) -> int | None:
    """The ``seat`` field as a seat index, or None when it is not a number."""
    value = request.POST.get("seat", "")
    return int(value) if value.isdigit() else None


def host_seat_verb(verb: Callable[[HttpRequest, Table, Game, int], HttpResponse]) -> Callable[..., HttpResponse]:
    """A host verb on a seat (the ``seat`` field) of the table's running game: the host's table (``host_table``: 404,
    403), 400 for a field that is not a seat number, the "no game" message; then ``verb(request, table, game,
    index)``."""
    @wraps(verb)
    def view(request: HttpRequest, code: str) -> HttpResponse:
        table = host_table(request, code)
        game = table_running_game(table)
        index = _seat_number(request)
        if index is None:
            return HttpResponse(_("Bad seat."), status=400)
        if game is None:
            return _no_game(request, table)
        return verb(request, table, game, index)
    return view


@require_POST
@host_seat_verb
def seat_share(request: HttpRequest, table: Table, game: Game, index: int) -> HttpResponse:
    """The host plays a seat (``seat``) on this device for a player without a phone; announced to the table."""
    held = shared_token(request.session, game.pk, index)
    if held is not None and any(s.index == index and s.device == held for s in game_seats(game)):
        return redirect("shared_seat", code=table.code, index=index)  # this device plays it already
    try:
        device = services.seat_share(game=game, index=index)
    except services.GameError as error:
        return _back(request, table, str(error))
    shared = session_shared(request.session)
    request.session[SHARED_KEY] = {str(game.pk): {**shared.get(str(game.pk), {}), str(index): device}}
    return redirect("shared_seat", code=table.code, index=index)


@require_POST
def seat_unshare(request: HttpRequest, code: str) -> HttpResponse:
    """This device stops playing a seat (``seat``) it holds: the seat goes back to its player's phone."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    index = _seat_number(request)
    token = shared_token(request.session, game.pk, index) if game is not None and index is not None else None
    if game is None or index is None or token is None:
        return respond(request, table, _("That seat is not played on this device."), 403)
    try:
        services.seat_unshare(game=game, index=index, device=token)
    except services.GameError as error:
        return _back(request, table, str(error))
    seats = {k: v for k, v in session_shared(request.session).get(str(game.pk), {}).items() if k != str(index)}
    request.session[SHARED_KEY] = {str(game.pk): seats}
    return _back(request, table)
