"""A late joiner's briefing (issue 45): what a seat knows, for the person who just took it over on a new phone.

Built from the game's event log through that seat's own view alone: the log's moves still in force
(``engines.base.undo_plan``) are replayed one by one from ``setup(seed)``, and at each step only
``engine.view(state, seat)`` is read, never another seat's view nor the state. What the seat learned is the
private lines of its view (``"private": True``, addressed to it), each with the place in the log where it first
appeared: 0 for the deal, else the number of the move that showed it (``Move.seq``). What the seat holds now (its
role, team, cards) is its own view of the state the replay ends on. The briefing is shown once, on that phone's next
page (``take_briefing``): never in a pushed screen, never on the board or any other phone.
"""

from __future__ import annotations

from engines.base import is_undo, undo_plan
from engines.registry import get_engine
from gameplay.models import Game
from gameplay.seats import game_seats, session_devices
from gameplay.selectors import game_state

# A browser's session keeps the games whose seat it took over by a link and has not yet been briefed on:
# {game id: the device token of that seat} (``gameplay.seats.DEVICES_KEY`` holds the same tokens).
BRIEFING_KEY = "seat_briefings"


def private_lines(view: dict) -> list[dict]:
    """The seat's own private lines of its view's log, in order."""
    return [line for line in view.get("log") or [] if line.get("private")]


def seat_private_lines(game: Game, seat: int) -> list[dict]:
    """The private lines of ``seat``'s own view of ``game`` now (what a shared device shows it as its results)."""
    return private_lines(get_engine(game.engine).view(game_state(game), seat))


def seat_briefing(game: Game, seat: int) -> dict:
    """What ``seat`` knows of ``game``: ``{"view": its own view now, "facts": [{"seq", "line"}]}``.

    ``facts``: every private line of the seat's view as it appeared, in order, with the log position (``seq``: 0 for
    the deal) of the move after which the seat's view first showed it.
    """
    engine = get_engine(game.engine)
    state = engine.setup(game.players, game.options, int(game.seed))
    listed, undone = undo_plan(game.moves.order_by("seq").values_list("seat", "action"))
    view = engine.view(state, seat)
    seen = private_lines(view)
    facts = [{"seq": 0, "line": line} for line in seen]
    for index, move in enumerate(listed):
        if index in undone or is_undo(*move):
            continue  # taken back: a move that revealed nothing (``Engine.undoable``), as if never made
        state = engine.replay(state, [move])
        view = engine.view(state, seat)
        lines = private_lines(view)
        fresh = lines[len(seen):] if lines[:len(seen)] == seen else [line for line in lines if line not in seen]
        facts += [{"seq": index + 1, "line": line} for line in fresh]
        seen = lines
    return {"view": view, "facts": facts}


def owe_briefing(session, game: Game, device: str) -> None:
    """The browser that just took a seat of ``game`` over by a link (``device``) is owed its briefing."""
    owed = session.get(BRIEFING_KEY)
    session[BRIEFING_KEY] = {**(owed if isinstance(owed, dict) else {}), str(game.pk): device}


def take_briefing(session, game: Game | None) -> dict | None:
    """The briefing this browser is owed for ``game`` (its running game), given once: taken out of the session.

    None when nothing is owed, or the seat it was owed for is no longer this browser's (it moved again, the game
    ended): a briefing is given only while the seat is still the one its link handed over.
    """
    owed = session.get(BRIEFING_KEY)
    if game is None or not isinstance(owed, dict) or str(game.pk) not in owed:
        return None
    device = owed.pop(str(game.pk))
    session[BRIEFING_KEY] = owed
    seat = next((s.index for s in game_seats(game) if s.device == device and not s.bot), None)
    if game.over or seat is None or session_devices(session).get(str(game.pk)) != device:
        return None
    return {"seat": seat, **seat_briefing(game, seat)}
