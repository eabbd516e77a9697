"""A seat played on a shared device (pass-and-play, issue 45 item 2): its blackout page, its player's PIN, and a
private result shown to that one player.

Every view here answers only the device holding the seat's current token (``gameplay.seats.shared_token``); any other
gets 403 and nothing of the seat. The seat's screen and its result are fetched only while shown to its player: after
a hold (no PIN) or the PIN's POST, each granting the session an unlock (``gameplay.seats.unlock_grant``) that the page
ends when it blacks out and that lapses by itself ``UNLOCK_SECONDS`` after its last use. The PIN is judged here, its
hash alone kept (``services.seat_pin_check``); a wrong one is counted, and ``PIN_TRIES`` of them lock the seat until
the host clears it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from gameplay import services
from gameplay.briefing import seat_private_lines
from gameplay.models import PIN_TRIES, Game, GameSeat
from gameplay.screens.table import result_html
from gameplay.seats import (
    SHARED_HEADER,
    NotShared,
    game_seats,
    shared_key,
    shared_screen,
    shared_token,
    unlock_end,
    unlock_grant,
    unlock_live,
)
from gameplay.selectors import table_running_game
from gameplay.web.controls import _back, host_seat_verb
from lobby.context import table_info
from lobby.models import Table
from lobby.views import table_or_404


@dataclass(frozen=True)
class Held:
    """A seat this device plays: its table, game, row and token."""

    table: Table
    game: Game
    seat: GameSeat
    token: str

    @property
    def key(self) -> str:
        return shared_key(self.game.pk, self.seat.index)


def _not_here(request: HttpRequest, status: int = 403) -> HttpResponse:
    return render(request, "lobby/message.html", {"message": _("That seat is not played on this device.")},
                  status=status)


def _held(request: HttpRequest, code: str, index: int) -> Held | None:
    """The seat ``index`` of the table's running game, if this device holds its current token; else None."""
    table = table_or_404(request, code)
    game = table_running_game(table)
    token = shared_token(request.session, game.pk, index) if game is not None else None
    gseat = next((s for s in game_seats(game) if s.index == index), None) if game is not None else None
    if game is None or gseat is None or token is None or gseat.device != token:
        return None
    return Held(table, game, gseat, token)


def _page(request: HttpRequest, held: Held, *, result: bool) -> HttpResponse:
    """The blackout page of a seat (``result``: for one private result), holding none of its secrets."""
    index = held.seat.index
    new = len(seat_private_lines(held.game, index)) > held.seat.results_shown
    return render(request, "gameplay/shared_seat.html", {
        "table": table_info(held.table), "name": held.seat.name, "index": index, "key": held.key,
        "pin": bool(held.seat.pin), "locked": held.seat.pin_tries >= PIN_TRIES, "result": result, "new": new,
        "panel_url": reverse("shared_result_show", args=[held.table.code, index]) if result
        else reverse("table", args=[held.table.code])})


@require_GET
def shared_seat(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """A seat played on this device: a blackout that asks to pass the device to its player; their screen only while
    they hold, or after their PIN (fetched then, never in this page). 403 for a device that does not hold the seat."""
    held = _held(request, code, index)
    return _not_here(request) if held is None else _page(request, held, result=False)


@require_GET
def shared_result(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """The same blackout, for a private result of the seat ("show to one player"): behind the hold or PIN it shows
    that result alone (:func:`shared_result_show`), never the seat's hand."""
    held = _held(request, code, index)
    return _not_here(request) if held is None else _page(request, held, result=True)


@require_POST
def shared_result_show(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """The seat's private lines its device has not shown it yet (else its last one), on a hold or after its PIN (the
    request names the seat: ``X-Shared-Seat``); they count as shown from now."""
    held = _held(request, code, index)
    if held is None or request.headers.get(SHARED_HEADER) != held.key:
        return _not_here(request)
    try:
        shared_screen(request.session, request.headers.get(SHARED_HEADER), time.time())
    except NotShared as error:
        raise PermissionDenied(_("Enter this seat's PIN on the device first.")) from error
    lines = seat_private_lines(held.game, index)
    fresh = lines[held.seat.results_shown:] or lines[-1:]
    services.seat_results_shown(game=held.game, index=index, device=held.token, shown=len(lines))
    return HttpResponse(result_html(held.game, index, fresh))


@require_POST
def shared_unlock(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """The seat's player enters its PIN (``pin``): right, the seat's screen may be fetched now (204); wrong, a 403
    with how many tries are left; a seat locked by wrong tries, a 423. Nothing of the seat either way."""
    held = _held(request, code, index)
    if held is None:
        return _not_here(request)
    try:
        pin = services.pin_digits(request.POST.get("pin", ""))
    except services.GameError as error:  # not a PIN at all: not counted as a try
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    try:
        services.seat_pin_check(game=held.game, index=index, device=held.token, pin=pin)
    except services.GameError as error:
        locked = GameSeat.objects.filter(pk=held.seat.pk, pin_tries__gte=PIN_TRIES).exists()
        return HttpResponse(str(error), status=423 if locked else 403, content_type="text/plain; charset=utf-8")
    unlock_grant(request.session, held.key, time.time())
    return HttpResponse(status=204)


@require_POST
def shared_lock(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """The seat's screen blacked out on this device (done, a move landed, the page hidden): its unlock ends."""
    held = _held(request, code, index)
    if held is None:
        return _not_here(request)
    unlock_end(request.session, held.key)
    return HttpResponse(status=204)


@require_POST
def shared_pin(request: HttpRequest, code: str, index: int) -> HttpResponse:
    """The seat's player, shown her screen (an unlock), chooses its PIN (``pin``: 4 to 6 digits), once; from then on
    the device shows her screen only after it. The screen blacks out."""
    held = _held(request, code, index)
    if held is None:
        return _not_here(request)
    if not unlock_live(request.session, held.key, time.time()):
        return render(request, "lobby/message.html", {
            "message": _("Only the seat's player, shown their screen, can choose its PIN.")}, status=403)
    try:
        services.seat_pin_set(game=held.game, index=index, device=held.token, pin=request.POST.get("pin", ""))
    except services.GameError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("PIN chosen: this seat now shows only after it."))
    unlock_end(request.session, held.key)
    return redirect("shared_seat", code=held.table.code, index=index)


@require_POST
@host_seat_verb
def host_pin_clear(request: HttpRequest, table: Table, game: Game, index: int) -> HttpResponse:
    """The host clears the PIN of a seat played on a shared device (``seat``); the table is told."""
    try:
        services.seat_pin_clear(game=game, index=index)
    except services.GameError as error:
        return _back(request, table, str(error))
    return _back(request, table)
