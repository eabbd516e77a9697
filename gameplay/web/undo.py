"""Undo by the table's consent (``gameplay.undo``): a phone asks to take its last move back, the seats asked answer
on their phones, a moderated table's moderator on the board. Each view reads its small form, calls one service and
answers as a move does (the fresh panel, with the refusal's note and status); the moderator's, as the host's
controls do (back to the board, a refusal as a message).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, QueryDict
from django.views.decorators.http import require_POST

from gameplay import undo
from gameplay.models import Game
from gameplay.services import MoveRefused
from gameplay.web.acting import request_acting
from gameplay.web.controls import _back, _running_game_verb
from gameplay.web.forms import BadMoveForm
from gameplay.web.views import refusal_answer, respond
from lobby.models import Table
from lobby.views import table_or_404

ANSWERS = {"agree": True, "refuse": False}


def _number(post: QueryDict, name: str) -> int:
    """A whole number the form names (a move's place in the log, a request's id); raises BadMoveForm."""
    try:
        value = int(post.get(name, ""))
    except ValueError as error:
        raise BadMoveForm(name) from error
    if value < 1:
        raise BadMoveForm(name)
    return value


def _answer(post: QueryDict) -> tuple[int, bool]:
    """The request answered and the answer (agree or refuse); raises BadMoveForm."""
    answer = post.get("answer", "")
    if answer not in ANSWERS:
        raise BadMoveForm("answer")
    return _number(post, "request"), ANSWERS[answer]


@require_POST
def undo_ask(request: HttpRequest, code: str) -> HttpResponse:
    """A phone asks the table to take back its last move (``seq``: that move's place in the log)."""
    table = table_or_404(request, code)
    try:
        player, devices, _shared = request_acting(request)
        undo.undo_ask(table_id=table.pk, player=player, seq=_number(request.POST, "seq"), devices=devices)
    except (MoveRefused, BadMoveForm) as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    return respond(request, table, "", 200)


@require_POST
def undo_answer(request: HttpRequest, code: str) -> HttpResponse:
    """A phone asked agrees or refuses (``request``: the request's id; ``answer``: agree or refuse)."""
    table = table_or_404(request, code)
    try:
        request_id, agree = _answer(request.POST)
        player, devices, _shared = request_acting(request)
        undo.undo_answer(table_id=table.pk, player=player, request_id=request_id, agree=agree, devices=devices)
    except (MoveRefused, BadMoveForm) as refusal:
        status, note = refusal_answer(refusal)
        return respond(request, table, note, status)
    return respond(request, table, "", 200)


@require_POST
@_running_game_verb
def host_undo(request: HttpRequest, table: Table, game: Game) -> HttpResponse:
    """A moderated table's moderator (the host, on the board) agrees or refuses a request to take a move back."""
    try:
        request_id, agree = _answer(request.POST)
        undo.undo_answer(game_id=game.pk, player=None, request_id=request_id, agree=agree, as_moderator=True)
    except (MoveRefused, BadMoveForm) as refusal:
        return _back(request, table, refusal_answer(refusal)[1])
    return _back(request, table)
