"""Undo by the table's consent (issue 45): a seat asks to take its last move back, the table answers, the log keeps it.

A seat may ask only for the latest move in force, its own, which the engine judged to have revealed nothing when it
was played (``Game.undo_point``, kept by ``services.move_submit``; any other move clears it), once per move. The other
seats answer on their phones (bots through the worker, agreeing as a reasonable player would); on a moderated table the
moderator alone answers. Everyone asked agrees: the undo entry ``(None, {"type": "undo", ...})`` is appended to the log
(the move stays recorded), the game returns to the state before the move (``Engine.replay`` reads the entry) and the
table is pushed as for any move. One refusal closes the request; no answer within ``UNDO_SECONDS`` expires it (the
worker's clock); any other move voids it. Nothing changes then. Every write here locks the game row as a move does.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from engines.base import UNDO
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.seats import game_seats
from gameplay.selectors import game_state
from gameplay.services import (
    GameOver,
    MoveRefused,
    _advance,
    _changed,
    _locked_game,
    _seat_of,
    _step,
    bot_due,
)
from infra.prepared import insert
from lobby.models import Player

logger = logging.getLogger(__name__)

# How long the table has to answer a request (seconds): long enough to look up from the cards, short enough that
# the game does not stall on a phone left face down.
UNDO_SECONDS = 20

# Who refused or answered for the table on a moderated table (``undo_request["by"]``).
MODERATOR = "moderator"


class UndoRefused(MoveRefused):
    """An undo request or answer the table does not take; nothing changed. The kinds below say why."""


class NotUndoable(UndoRefused):
    """The move is not the latest in force, not the asker's, revealed something, or was asked for already."""


class UndoPending(UndoRefused):
    """A request is open already: one at a time."""


class NotAsked(UndoRefused):
    """This seat (or this moderator) is not among those the request asks."""


class AlreadyAnswered(UndoRefused):
    """This seat answered the request already."""


class UndoClosed(UndoRefused):
    """The request answered is not the open one: it was decided, expired, or voided by a later move."""


def _open(game: Game) -> dict | None:
    """The game's open request, or None."""
    request = game.undo_request
    return request if request is not None and request.get("status") == "open" else None


def _bots(game: Game) -> set[int]:
    return {seat.index for seat in game_seats(game) if seat.bot}


def undo_ask(*, table_id: int, player: Player | int | None, seq: int, devices: dict | None = None) -> dict:
    """A seat asks the table to take back its move ``seq``, judged against the table as it is now.

    The other seats are asked (the moderator alone on a moderated table); the request stays open ``UNDO_SECONDS``.
    Raises NoGame, NotYourSeat, GameOver, NotUndoable or UndoPending. Returns the request.
    """
    with _locked_game(table_id=table_id) as game:
        seat = _seat_of(game, player, None, devices)
        if game.over:
            raise GameOver("the game is over")
        point = game.undo_point
        if point is None or point["seq"] != seq or point["seat"] != seat or seq != game.version:
            raise NotUndoable("not the latest move in force, not yours, or it revealed something")
        if _open(game) is not None:
            raise UndoPending("a request is open already")
        previous = game.undo_request or {}
        if previous.get("seq") == seq:
            raise NotUndoable("this move was asked for already")
        if not _revealed_nothing(game, seq, seat):  # the offer goes (pushed): this move cannot be taken back
            game.undo_point = None
            _changed(game, ["undo_point"])
        else:
            return _open_request(game, seq, seat, previous)
    raise NotUndoable("that move showed another seat something")


def _open_request(game: Game, seq: int, seat: int, previous: dict) -> dict:
    """Ask the table (the other seats, or the moderator alone) to take back ``seat``'s move ``seq``."""
    point = game.undo_point
    moderated = game.moderator_id is not None
    asked = [] if moderated else [s.index for s in game_seats(game) if s.index != seat]
    game.undo_request = {"id": int(previous.get("id", 0)) + 1, "seq": seq, "seat": seat, "lines": point["lines"],
                         "asked": asked, "agreed": [], "moderated": moderated, "version": game.version,
                         "status": "open", "by": None}
    game.undo_deadline = timezone.now() + timedelta(seconds=UNDO_SECONDS)
    game.bot_due = game.bot_due or not _bots(game).isdisjoint(asked)
    _changed(game, ["undo_request", "undo_deadline", "bot_due"])
    return game.undo_request


def _revealed_nothing(game: Game, seq: int, seat: int) -> bool:
    """The whole of ``Engine.undoable`` for the latest move (``seq``, by ``seat``): the move may be taken back only if
    no other seat's own view gained anything by it. ``services.move_submit`` judged the rest cheaply as it was played;
    this part builds every seat's view before and after, so it is judged when (rarely) the mover asks. An engine
    failing on the question answers no (logged)."""
    engine = get_engine(game.engine)
    moves = list(game.moves.order_by("seq").values_list("seat", "action"))
    start = engine.setup(game.players, game.options, int(game.seed))
    try:
        return engine.undoable(engine.replay(start, moves[:-1]), seat, moves[-1][1], game_state(game))
    except Exception:
        logger.exception("engine %s failed judging an undo in game %s (not undoable)", game.engine, game.pk)
        return False


def undo_answer(*, game_id: int | None = None, table_id: int | None = None, player: Player | int | None,
                request_id: int, agree: bool, devices: dict | None = None, bot_seat: int | None = None,
                as_moderator: bool = False) -> str:
    """A seat asked (or the moderator, ``as_moderator``: the caller checked the host) answers request ``request_id``.

    Returns what became of the request: "open" (others still to answer), "agreed" (the move was taken back) or
    "refused". Raises NoGame, NotYourSeat, UndoClosed, NotAsked or AlreadyAnswered.
    """
    with _locked_game(game_id, table_id=table_id) as game:
        request = _open(game)
        if request is None or request["id"] != request_id or game.over:
            raise UndoClosed("that request is closed")
        who = _answerer(game, request, player, devices, bot_seat, as_moderator)
        now = timezone.now()
        if not agree:
            _changed(game, _close(game, {**request, "status": "refused", "by": who}))
            return "refused"
        agreed = request["agreed"] if who == MODERATOR else [*request["agreed"], who]
        request = {**request, "agreed": agreed}
        if who != MODERATOR and set(request["asked"]) - set(agreed):
            game.undo_request = request
            game.bot_due = _answers_due(game)
            _changed(game, ["undo_request", "bot_due"])
            return "open"
        _take_back(game, {**request, "by": who if who == MODERATOR else None}, now)
        return "agreed"


def _answerer(game: Game, request: dict, player, devices, bot_seat, as_moderator: bool) -> int | str:
    """Who answers: the moderator on a moderated table, else a seat asked that has not answered yet."""
    if request["moderated"] or as_moderator:
        if not (request["moderated"] and as_moderator):
            raise NotAsked("the moderator alone answers this request")
        return MODERATOR
    seat = _seat_of(game, player, bot_seat, devices)
    if seat not in request["asked"]:
        raise NotAsked("this seat is not asked")
    if seat in request["agreed"]:
        raise AlreadyAnswered("this seat answered already")
    return seat


def _answers_due(game: Game) -> bool:
    """``Game.bot_due`` with an open request in mind: a bot asked that has not answered has something to do."""
    request = _open(game)
    waiting = set(request["asked"]) - set(request["agreed"]) if request is not None else set()
    return bot_due(game.awaiting, game.countdown, _bots(game)) or not _bots(game).isdisjoint(waiting)


def _close(game: Game, request: dict) -> list[str]:
    """The request is closed as ``request`` says (refused, expired): nothing else changes. Returns the fields."""
    game.undo_request, game.undo_deadline = request, None
    game.bot_due = _answers_due(game)
    return ["undo_request", "undo_deadline", "bot_due"]


def _take_back(game: Game, request: dict, now: datetime) -> None:
    """Everyone asked agreed: log the undo entry and return to the state before the move, pushed as a move is.

    Should be called while holding the game row's lock. The state is the log replayed with the entry
    (``Engine.replay``: the state before the move, exactly, its generator's counter included).
    """
    engine = get_engine(game.engine)
    entry = {"type": UNDO, "seq": request["seq"], "seat": request["seat"], "agreed": sorted(request["agreed"]),
             "moderated": request["moderated"]}
    moves = [*game.moves.order_by("seq").values_list("seat", "action"), (None, entry)]
    state = engine.replay(engine.setup(game.players, game.options, int(game.seed)), moves)
    step = _step(engine, state)
    insert(Move(game=game, seq=game.version + 1, seat=None, action=entry))
    at = len(state.get("log", []))
    # A later undo returns to an earlier log: the lines of the undos before it stand at that point too.
    earlier = [{**note, "at": min(note["at"], at)} for note in game.undos]
    note = {"seat": request["seat"], "lines": request["lines"], "agreed": entry["agreed"],
            "moderated": request["moderated"], "at": at}
    game.undos = [*earlier, note]
    game.undo_point = None
    fields = _advance(game, step, now)
    game.undo_request, game.undo_deadline = {**request, "status": "agreed"}, None
    _changed(game, [*fields, "undos", "undo_point", "undo_request", "undo_deadline"])


def undo_expire(*, game_id: int, now: datetime | None = None) -> bool:
    """If the open request's time is up, close it unanswered (nothing else changes). True if it expired now."""
    now = now or timezone.now()
    with _locked_game(game_id) as game:
        request = _open(game)
        if request is None or game.undo_deadline is None or game.undo_deadline > now:
            return False
        _changed(game, _close(game, {**request, "status": "expired"}))
        return True
