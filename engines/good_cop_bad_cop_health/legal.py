"""Who may do what now: every concrete legal action, and the seats the game waits for."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import (
    DRAW,
    END_TURN,
    EQUIP,
    EQUIPPABLE,
    GUNS,
    INSPECT,
    INSPECTION,
    KEEP_IDENTITY,
    SHOOT,
    Action,
    Card,
    HealthState,
    Phase,
)


def living_others(state: HealthState, seat: int) -> list[int]:
    """Every living seat but ``seat``, in seat order."""
    return [s for s, p in enumerate(state["players"]) if p["alive"] and s != seat]


def first_of_each_kind(cards: list[Card], kinds: Iterable[str]) -> list[Card]:
    """The lowest-id card of each kind present (identical cards need one listed action)."""
    chosen: dict[str, Card] = {}
    for card in sorted(cards, key=lambda c: c["id"]):
        if card["kind"] in kinds and card["kind"] not in chosen:
            chosen[card["kind"]] = card
    return [chosen[kind] for kind in kinds if kind in chosen]


def can_draw_from_deck(state: HealthState) -> bool:
    """A deck draw is possible (the discard pile reshuffles into an empty deck)."""
    return bool(state["deck"] or state["discard"])


def legal_actions(state: HealthState, seat: int) -> list[Action]:
    """Every concrete action ``seat`` may take now ([] for no such seat, and after the end)."""
    if not isinstance(seat, int) or not 0 <= seat < state["n"]:
        return []
    if state["result"] is not None:
        return []
    player = state["players"][seat]
    if state["phase"] == Phase.KEEP_IDENTITY:
        if player["choices"] is None:
            return []
        return [{"type": KEEP_IDENTITY, "index": 0}, {"type": KEEP_IDENTITY, "index": 1}]
    if seat != state["turn"]:
        return []
    if state["phase"] == Phase.DRAW:
        actions: list[Action] = [{"type": DRAW, "from": "deck"}] if can_draw_from_deck(state) else []
        actions += [{"type": DRAW, "from": "market", "index": i}
                    for i, card in enumerate(state["market"]) if card is not None]
        return actions
    actions = [{"type": EQUIP, "card": card["id"]} for card in player["hand"] if card["kind"] in EQUIPPABLE]
    if not state["equipped"]:
        targets = living_others(state, seat)
        for card in first_of_each_kind(player["hand"], (INSPECTION,)):
            actions += [{"type": INSPECT, "card": card["id"], "target": t} for t in targets]
        for gun in first_of_each_kind(player["in_play"], GUNS):
            actions += [{"type": SHOOT, "gun": gun["id"], "target": t} for t in targets]
    actions.append({"type": END_TURN})
    return actions


def awaiting(state: HealthState) -> set[int]:
    """The seats the game waits for: both duellists choosing, else the player on turn."""
    if state["result"] is not None:
        return set()
    if state["phase"] == Phase.KEEP_IDENTITY:
        return {s for s, p in enumerate(state["players"]) if p["choices"] is not None}
    return {state["turn"]}


# ---------------------------------------------------------------- taking a move back (engine.undoable)

# The moves a table may agree to take back, where they showed nothing: keeping one's dealt identity (the other goes
# face down), a Shoot that eliminates nobody, ending the turn. Never a draw (a card from the deck, or the market's
# refill from it), an Equip (a card from the hand turned face up) or an Inspection (an identity seen).
UNDOABLE_MOVES = frozenset({KEEP_IDENTITY, SHOOT, END_TURN})
# What such a move may write to the log and still be taken back. Any other entry shows something: an elimination
# (its identity), the bonus cards and a new identity it deals, the end.
QUIET_EVENTS = frozenset({"identity_kept", "turn", "no_draw", "shoot"})


def undoable(before: HealthState, seat: int, action: Action, after: HealthState) -> bool:
    """Whether the move is one of ``UNDOABLE_MOVES`` and wrote only ``QUIET_EVENTS``."""
    written = after["log"][len(before["log"]):]
    return action["type"] in UNDOABLE_MOVES and all(entry["event"] in QUIET_EVENTS for entry in written)
