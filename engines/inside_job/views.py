"""What leaves the engine: one seat's view (own secrets + public facts) or the board's."""

from __future__ import annotations

from engines.base import visible_log
from engines.inside_job.cards import (
    MAX_REJECTIONS,
    MISSION_SIZES,
    MISSIONS,
    Examined,
    InsideJobState,
    InsideJobView,
    LogEntry,
    Phase,
    knowledge,
    sabotage_needed,
    side_of,
)
from engines.inside_job.legal import awaiting, legal_actions
from engines.inside_job.rules import outcome


def _log(state: InsideJobState, seat: int | None) -> list[LogEntry]:
    """The entries this seat may read, copies (``visible_log``): a reader must not reach the state."""
    return visible_log(state["log"], seat)


def turn_of(state: InsideJobState) -> int | None:
    """The seat whose single move the game waits for (leader, Lady holder), else None."""
    if state["phase"] == Phase.PROPOSE:
        return state["leader"]
    if state["phase"] == Phase.LADY:
        return state["lady"]
    return None


def build_view(state: InsideJobState, seat: int | None) -> InsideJobView:
    """The view dict for ``seat`` (None = the public board)."""
    players = state["players"]
    mission = state["mission"]
    phase = state["phase"]
    legal = [] if seat is None else legal_actions(state, seat)
    waiting = sorted(awaiting(state))
    result = outcome(state)
    log = _log(state, seat)
    role = side = known_as = None
    known: list[int] = []
    examined: list[Examined] = []
    if seat is not None:
        role = state["roles"][seat]
        side = side_of(role)
        known_as, known = knowledge(state["roles"], seat)
        # Every lady_result entry is private, so this seat's log holds exactly its own.
        examined = [{"target": e["target"], "side": e["side"]} for e in log if e["event"] == "lady_result"]
    turn = turn_of(state)
    if phase == Phase.ASSASSINATE:
        # The Assassin acts openly at this point, as at a real table.
        turn = waiting[0] if waiting else None
    team = state["team"]
    return {
        "seat": seat,
        "phase": phase,
        "turn": turn,
        "log": log,
        "legal": legal,
        "players": players,
        "awaiting": waiting,
        "outcome": result,
        "role": role,
        "side": side,
        "known": list(known),
        "known_as": known_as,
        "examined": examined,
        "missions": list(state["missions"]),
        "mission_number": min(mission + 1, MISSIONS),
        "mission_sizes": list(MISSION_SIZES[players]),
        "sabotage_needed": [sabotage_needed(players, m) for m in range(MISSIONS)],
        "sabotage_counts": list(state["sabotage_counts"]),
        "mission_teams": [None if t is None else list(t) for t in state["mission_teams"]],
        "leader": state["leader"],
        "team": None if team is None else list(team),
        "team_size": MISSION_SIZES[players][min(mission, MISSIONS - 1)],
        "rejections": state["rejections"],
        "max_rejections": MAX_REJECTIONS,
        "votes": None if state["last_votes"] is None else list(state["last_votes"]),
        "voted": [s for s, v in enumerate(state["votes"]) if v is not None] if phase == Phase.VOTE else [],
        "my_vote": state["votes"][seat] if seat is not None and phase == Phase.VOTE else None,
        "played": ([s for s in team if state["cards"][s] is not None]
                   if phase == Phase.MISSION and team is not None else []),
        "my_card": state["cards"][seat] if seat is not None and phase == Phase.MISSION else None,
        "lady": state["lady"],
        "lady_past": list(state["lady_past"]),
        "assassin_target": state["assassin_target"],
        "reveal": result["reveal"] if result else None,
    }
