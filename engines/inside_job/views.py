"""What leaves the engine: one seat's view (own secrets + public facts) or the board's."""

from __future__ import annotations

from engines.inside_job import tables


def visible_log(log: list[dict], seat: int | None) -> list[dict]:
    """Public entries, plus the private ones addressed to this seat."""
    return [{k: list(v) if isinstance(v, list) else v for k, v in e.items()}
            for e in log if not e.get("private") or (seat is not None and e.get("to") == seat)]


def turn_of(state: dict) -> int | None:
    """The seat whose single move the game waits for (leader, Lady holder), else None."""
    if state["phase"] == "propose":
        return state["leader"]
    if state["phase"] == "lady":
        return state["lady"]
    return None


def build_view(state: dict, seat: int | None, legal: list, awaiting: list, outcome: dict | None) -> dict:
    """The view dict for ``seat`` (None = the public board)."""
    players = state["players"]
    mission = state["mission"]
    role = side = known_as = None
    known: list[int] = []
    examined: list[dict] = []
    if seat is not None:
        role = state["roles"][seat]
        side = tables.side_of(role)
        known_as, known = tables.knowledge(state["roles"], seat)
        examined = [{"target": e["target"], "side": e["side"]} for e in state["log"]
                    if e["event"] == "lady_result" and e.get("to") == seat]
    phase = state["phase"]
    turn = turn_of(state)
    if phase == "assassinate":
        # The Assassin acts openly at this point, as at a real table.
        turn = awaiting[0] if awaiting else None
    view = {
        "seat": seat,
        "phase": phase,
        "turn": turn,
        "log": visible_log(state["log"], seat),
        "legal": list(legal),
        "players": players,
        "awaiting": list(awaiting),
        "outcome": outcome,
        "role": role,
        "side": side,
        "known": list(known),
        "known_as": known_as,
        "examined": examined,
        "missions": list(state["missions"]),
        "mission_number": min(mission + 1, 5),
        "mission_sizes": list(tables.MISSION_SIZES[players]),
        "sabotage_needed": [tables.sabotage_needed(players, m) for m in range(5)],
        "sabotage_counts": list(state["sabotage_counts"]),
        "mission_teams": [None if t is None else list(t) for t in state["mission_teams"]],
        "leader": state["leader"],
        "team": None if state["team"] is None else list(state["team"]),
        "team_size": tables.MISSION_SIZES[players][min(mission, 4)],
        "rejections": state["rejections"],
        "max_rejections": tables.MAX_REJECTIONS,
        "votes": None if state["last_votes"] is None else list(state["last_votes"]),
        "voted": [s for s, v in enumerate(state["votes"]) if v is not None] if phase == "vote" else [],
        "my_vote": state["votes"][seat] if seat is not None and phase == "vote" else None,
        "played": ([s for s in state["team"] if state["cards"][s] is not None]
                   if phase == "mission" else []),
        "my_card": state["cards"][seat] if seat is not None and phase == "mission" else None,
        "lady": state["lady"],
        "lady_past": list(state["lady_past"]),
        "assassin_target": state["assassin_target"],
        "reveal": outcome["reveal"] if outcome else None,
    }
    return view
