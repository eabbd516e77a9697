"""Who the game waits for, and every concrete action a seat may take now (by the top frame's kind)."""

from __future__ import annotations

from collections.abc import Callable

from . import equipment
from .cards import Action, Frame, GameState, Kind, When
from .table import distinct_orders, face_down, living, others, top


def redirect_targets(state: GameState, frame: Frame) -> list[int]:
    """Restraining Order: living players other than the shooter and the original target."""
    return [s for s in living(state) if s not in (frame["seat"], frame["target"])]


def awaiting(state: GameState) -> set[int]:
    """The seats the game waits for now."""
    frame = top(state)
    if frame is None or state["result"] is not None:
        return set()
    kind = frame["kind"]
    if kind == Kind.ARRANGE:
        return {s for s, p in enumerate(state["players"]) if not p["arranged"]}
    if kind == Kind.WINDOW:
        return set()  # a silent window: nobody must answer, it closes when its countdown ends
    if kind == Kind.AUDIT:
        return {s for s in frame["seats"] if state["players"][s]["alive"] and face_down(state, s)}
    return {frame["seat"]}


def is_awaited(state: GameState, frame: Frame, seat: int) -> bool:
    """Whether the game waits for ``seat`` (a cheap form of ``seat in awaiting(state)``)."""
    kind = frame["kind"]
    player = state["players"][seat]
    if kind == Kind.ARRANGE:
        return not player["arranged"]
    if kind == Kind.WINDOW:
        return False  # nobody is awaited in a silent window (holders may still play)
    if kind == Kind.AUDIT:
        return seat in frame["seats"] and player["alive"] and not all(player["up"])
    return frame["seat"] == seat


def arrange_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Before the first turn: one button per distinct row of one's own cards."""
    return [{"type": "arrange", "order": order} for order in distinct_orders(state["players"][seat]["cards"])]


def action_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Phase 1 of a turn: Investigate, Equip, Arm, Shoot, or an equipment card."""
    player = state["players"][seat]
    moves: list[Action] = [{"type": "investigate", "target": t, "card": i}
                           for t in others(state, seat) for i in face_down(state, t)]
    moves.append({"type": "equip"})
    if state["guns_left"] > 0 and not player["gun"] and state["no_arm"] != seat:
        moves.append({"type": "arm"})
    if player["gun"] and player["aim"] is not None and state["players"][player["aim"]]["alive"]:
        moves.append({"type": "shoot"})
    return moves + equipment.plays(state, seat, When.OWN, frame)


def aim_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Phase 2: aim (and so end the turn), or end the turn keeping a valid aim / holding no gun.

    Rules version 2 skips this step where it holds no choice (``rules.no_aim_choice``), so there a
    seat holding no gun never gets here.
    """
    player = state["players"][seat]
    moves: list[Action] = []
    if player["gun"]:
        moves = [{"type": "aim", "target": t} for t in others(state, seat)]
        if player["aim"] is not None and state["players"][player["aim"]]["alive"]:
            moves.append({"type": "end_turn"})
    else:
        moves.append({"type": "end_turn"})
    return moves + equipment.plays(state, seat, When.OWN, frame)


def reveal_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Turn one of one's face-down cards face-up (after Equip or Arm, Truth Serum, Report Audit)."""
    return [{"type": "reveal", "card": i} for i in face_down(state, seat)]


def keep_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Hand limit: keep one equipment card."""
    return [{"type": "keep", "card": card} for card in state["players"][seat]["hand"]]


def swap_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Bribe: keep things as they are, or swap the seen card with one of one's own."""
    return [{"type": "swap", "card": None}] + [
        {"type": "swap", "card": k} for k in range(len(state["players"][seat]["cards"]))]


def redirect_moves(state: GameState, seat: int, frame: Frame) -> list[Action]:
    """Restraining Order: the shooter aims at a third player (and fires)."""
    return [{"type": "aim", "target": t} for t in redirect_targets(state, frame)]


# The awaited seat's choices, by the kind of the frame on top.
CHOICES: dict[Kind, Callable[[GameState, int, Frame], list[Action]]] = {
    Kind.ARRANGE: arrange_moves, Kind.ACTION: action_moves, Kind.AIM: aim_moves,
    Kind.REVEAL: reveal_moves, Kind.AUDIT: reveal_moves, Kind.KEEP: keep_moves,
    Kind.BRIBE: swap_moves, Kind.REDIRECT: redirect_moves,
}


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every concrete action ``seat`` may take now."""
    frame = top(state)
    if state["result"] is not None or frame is None:
        return []
    if frame["kind"] == Kind.WINDOW:
        # Silent: only the real plays of a living seat's equipment; nobody taps Pass.
        alive = state["players"][seat]["alive"]
        return equipment.plays(state, seat, frame["when"], frame) if alive else []
    if not is_awaited(state, frame, seat):
        return []
    return CHOICES[frame["kind"]](state, seat, frame)


# ---------------------------------------------------------------- taking a move back (engine.undoable)

# The moves a table may agree to take back, where they showed nothing: arranging one's own cards, taking a gun (its
# reveal is the next move), a Shoot before its window closes, an aim, ending the turn. Never an Investigate (a card
# seen), an Equip (a card drawn), a reveal (a card face up), keeping an equipment card (one goes under the deck), a
# Bribe's swap, or an equipment card (its effects draw, show and move cards: refused whole, to be safe).
UNDOABLE_MOVES = frozenset({"arrange", "arm", "shoot", "aim", "end_turn"})
# What such a move may write to the log and still be taken back. Any other entry shows something: a shot ("shot",
# every card of the target face up), a wound and its draw, an elimination, the end.
QUIET_EVENTS = frozenset({"arranged", "turn", "arm", "shoot", "aim"})


def undoable(before: GameState, seat: int, action: Action, after: GameState) -> bool:
    """Whether the move is one of ``UNDOABLE_MOVES`` and wrote only ``QUIET_EVENTS``."""
    written = after["log"][len(before["log"]):]
    return action["type"] in UNDOABLE_MOVES and all(entry["event"] in QUIET_EVENTS for entry in written)
