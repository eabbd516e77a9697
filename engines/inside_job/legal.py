"""Who may do what now: each seat's legal actions, the awaited seats, and the timed window."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from engines.inside_job.cards import MISSION_SIZES, TIMED_PHASES, Action, InsideJobState, Phase, knowledge, side_of


def _proposals(state: InsideJobState, seat: int) -> list[Action]:
    """The leader may propose any team of the mission's size."""
    if seat != state["leader"]:
        return []
    size = MISSION_SIZES[state["players"]][state["mission"]]
    return [{"type": "propose", "team": list(team)} for team in combinations(range(state["players"]), size)]


def _votes(state: InsideJobState, seat: int) -> list[Action]:
    """Every seat that has not voted yet may approve or reject."""
    if state["votes"][seat] is not None:
        return []
    return [{"type": "vote", "approve": True}, {"type": "vote", "approve": False}]


def _cards(state: InsideJobState, seat: int) -> list[Action]:
    """A team member who has not played: Success, or Success and Sabotage for a Traitor."""
    team = state["team"]
    if team is None or seat not in team or state["cards"][seat] is not None:
        return []
    if side_of(state["roles"][seat]) == "traitors":
        return [{"type": "play", "card": "success"}, {"type": "play", "card": "sabotage"}]
    return [{"type": "play", "card": "success"}]


def _examinations(state: InsideJobState, seat: int) -> list[Action]:
    """The Lady's holder may examine anyone who never held her."""
    if seat != state["lady"]:
        return []
    return [{"type": "examine", "target": s} for s in range(state["players"])
            if s != seat and s not in state["lady_past"]]


def _assassinations(state: InsideJobState, seat: int) -> list[Action]:
    """The Assassin may name anyone but himself and the Traitors he knows."""
    if state["roles"][seat] != "assassin":
        return []
    _, known = knowledge(state["roles"], seat)
    return [{"type": "assassinate", "target": s} for s in range(state["players"])
            if s != seat and s not in known]


LEGAL_BY_PHASE: dict[str, Callable[[InsideJobState, int], list[Action]]] = {
    Phase.PROPOSE: _proposals,
    Phase.VOTE: _votes,
    Phase.MISSION: _cards,
    Phase.LADY: _examinations,
    Phase.ASSASSINATE: _assassinations,
}


def legal_actions(state: InsideJobState, seat: int) -> list[Action]:
    """Every concrete action this seat may take now ([] when it has nothing to do)."""
    if not isinstance(seat, int) or not 0 <= seat < state["players"]:
        return []
    actions = LEGAL_BY_PHASE.get(state["phase"])
    return [] if actions is None else actions(state, seat)


def awaiting(state: InsideJobState) -> set[int]:
    """The seats whose answer the game waits for."""
    phase = state["phase"]
    if phase == Phase.PROPOSE:
        return {state["leader"]}
    if phase == Phase.VOTE:
        return {s for s, v in enumerate(state["votes"]) if v is None}
    if phase == Phase.MISSION and state["team"] is not None:
        return {s for s in state["team"] if state["cards"][s] is None}
    if phase == Phase.LADY and state["lady"] is not None:
        return {state["lady"]}
    if phase == Phase.ASSASSINATE:
        return {state["roles"].index("assassin")}
    return set()


def window(state: InsideJobState) -> str | None:
    """The timed window: the vote and the mission play; None otherwise."""
    if state["phase"] in TIMED_PHASES:
        return f"{state['window_no']}:{state['phase']}"
    return None


# ----- taking a move back (engine.undoable) ------------------------------------------------

# The moves a table may agree to take back, where they showed nothing: the leader's proposal (public, the leader's
# own choice), a hidden vote and a face-down mission card while others still have theirs to give. Never the Lady's
# examination (a side seen) or the Assassin's name (the end, every role shown).
UNDOABLE_MOVES = frozenset({"propose", "vote", "play"})
# What such a move may write to the log and still be taken back: the proposal alone. The vote that completes the
# round writes the tally ("votes"), the last mission card the Sabotage count ("mission"): both show every card.
QUIET_EVENTS = frozenset({"proposal"})


def undoable(before: InsideJobState, seat: int, action: Action, after: InsideJobState) -> bool:
    """Whether the move is one of ``UNDOABLE_MOVES`` and wrote only ``QUIET_EVENTS``."""
    written = after["log"][len(before["log"]):]
    return action["type"] in UNDOABLE_MOVES and all(entry["event"] in QUIET_EVENTS for entry in written)
