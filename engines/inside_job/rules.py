"""Inside Job's transitions: the deal, each move's handler, closing the vote and the mission, the end.

Every function here changes the state it is given (the engine hands it a copy).
"""

from __future__ import annotations

from typing import Any

from engines.base import State, first_player, state_rng
from engines.inside_job.cards import (
    LADY_AFTER,
    MAX_REJECTIONS,
    WINS_NEEDED,
    Action,
    InsideJobState,
    Outcome,
    Phase,
    role_list,
    sabotage_needed,
    side_of,
)


def copy_state(state: State) -> State:
    """A copy safe to change: every top-level list and dict is new.

    Deeper objects (log entries, past teams) are shared because the engine never changes
    them in place once written; it only replaces or appends at the top level.
    """
    return {key: (list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict)
                  else value) for key, value in state.items()}


def deal(players: int, options: dict[str, Any], seed: int) -> InsideJobState:
    """Deal the roles and pick the first leader (and the Lady's first holder)."""
    rng = state_rng({"seed": seed, "draws": 0})
    roles: list[str] = rng.shuffle(role_list(players, options))
    leader = first_player(options, rng, players)
    # Decision: "to the right of the first leader" = the seat before it, since leadership
    # passes clockwise to the next seat.
    lady = (leader - 1) % players if options["lady_of_the_lake"] else None
    return {
        "seed": seed,
        "draws": rng.counter,
        "players": players,
        "options": options,
        "roles": roles,
        "phase": Phase.PROPOSE,
        "mission": 0,
        "missions": [],
        "sabotage_counts": [],
        "mission_teams": [],
        "leader": leader,
        "team": None,
        "rejections": 0,
        "votes": [None] * players,
        "last_votes": None,
        "cards": [None] * players,
        "lady": lady,
        "lady_past": [lady] if lady is not None else [],
        "window_no": 0,
        "assassin_target": None,
        "result": None,
        "log": [{"event": "start", "leader": leader, "lady": lady}],
    }


# ----- the moves (``InsideJobEngine.handlers``) ---------------------------------------
def propose(state: InsideJobState, seat: int, action: Action) -> None:
    """The leader's team goes to the vote (a new timed window)."""
    team = [int(s) for s in action["team"]]
    state["team"] = team
    state["phase"] = Phase.VOTE
    state["votes"] = [None] * state["players"]
    state["window_no"] += 1
    state["log"].append({"event": "proposal", "leader": seat, "team": list(team),
                         "mission": state["mission"] + 1, "attempt": state["rejections"] + 1})


def vote(state: InsideJobState, seat: int, action: Action) -> None:
    """One hidden vote; the last one reveals them all."""
    state["votes"][seat] = bool(action["approve"])
    if all(v is not None for v in state["votes"]):
        resolve_vote(state)


def play(state: InsideJobState, seat: int, action: Action) -> None:
    """One hidden mission card; the last one scores the mission."""
    state["cards"][seat] = action["card"]
    if all(state["cards"][s] is not None for s in _team(state)):
        resolve_mission(state)


def examine(state: InsideJobState, seat: int, action: Action) -> None:
    """The holder privately learns the target's side; the token passes to the target."""
    target: int = action["target"]
    side = side_of(state["roles"][target])
    state["log"].append({"event": "lady", "holder": seat, "target": target})
    state["log"].append({"event": "lady_result", "private": True, "to": seat,
                         "target": target, "side": side})
    state["lady"] = target
    state["lady_past"].append(target)
    state["phase"] = Phase.PROPOSE


def assassinate(state: InsideJobState, seat: int, action: Action) -> None:
    """Naming Merlin steals the win; any other name leaves it with the Agents."""
    target: int = action["target"]
    hit = state["roles"][target] == "merlin"
    state["assassin_target"] = target
    state["log"].append({"event": "assassinate", "assassin": seat, "target": target, "hit": hit})
    if hit:
        _end(state, "traitors", "merlin_found")
    else:
        _end(state, "agents", "merlin_survived")


def time_out(state: InsideJobState, late: list[int]) -> None:
    """Unvoted seats approve; unplayed cards are Success (the app never sabotages for anyone)."""
    state["log"].append({"event": "timeout", "phase": state["phase"], "seats": late})
    if state["phase"] == Phase.VOTE:
        for s in late:
            state["votes"][s] = True
        resolve_vote(state)
    else:
        for s in late:
            state["cards"][s] = "success"
        resolve_mission(state)


# ----- closing a window -----------------------------------------------------------------
def resolve_vote(state: InsideJobState) -> None:
    """Reveal the votes; a strict majority sends the team, otherwise the next leader proposes."""
    votes = list(state["votes"])  # every seat has voted by now
    approvals = sum(1 for v in votes if v)
    approved = approvals * 2 > state["players"]  # a tie rejects
    state["last_votes"] = votes
    tally = {"approve": [s for s, v in enumerate(votes) if v],
             "reject": [s for s, v in enumerate(votes) if not v]}
    if approved:
        state["log"].append({"event": "votes", "votes": votes, "approved": True, **tally,
                             "team": state["team"], "rejections": state["rejections"]})
        state["phase"] = Phase.MISSION
        state["cards"] = [None] * state["players"]
        state["window_no"] += 1
        return
    state["rejections"] += 1
    state["log"].append({"event": "votes", "votes": votes, "approved": False, **tally,
                         "team": state["team"], "rejections": state["rejections"]})
    if state["rejections"] >= MAX_REJECTIONS:
        # Seed rule: the fifth rejection hands this mission to the Traitors as a failure.
        state["log"].append({"event": "auto_fail", "mission": state["mission"] + 1})
        _finish_mission(state, "fail", None, None)
        return
    state["team"] = None
    _pass_leadership(state)
    state["phase"] = Phase.PROPOSE


def resolve_mission(state: InsideJobState) -> None:
    """Count the Sabotage cards (only the count is ever public) and score the mission."""
    team = list(_team(state))
    sabotage = sum(1 for s in team if state["cards"][s] == "sabotage")
    needed = sabotage_needed(state["players"], state["mission"])
    result = "fail" if sabotage >= needed else "success"
    state["log"].append({"event": "mission", "mission": state["mission"] + 1, "team": team,
                         "sabotage": sabotage, "needed": needed, "result": result})
    _finish_mission(state, result, sabotage, team)


def _finish_mission(state: InsideJobState, result: str, sabotage: int | None, team: list[int] | None) -> None:
    """Record a mission, then end the game, call the Lady, or pass leadership on."""
    index = state["mission"]
    state["missions"].append(result)
    state["sabotage_counts"].append(sabotage)
    state["mission_teams"].append(team)
    state["cards"] = [None] * state["players"]
    state["votes"] = [None] * state["players"]
    state["team"] = None
    state["rejections"] = 0
    state["mission"] = index + 1
    _pass_leadership(state)
    if state["missions"].count("fail") >= WINS_NEEDED:
        _end(state, "traitors", "missions_failed")
    elif state["missions"].count("success") >= WINS_NEEDED:
        if state["options"]["merlin"]:
            state["phase"] = Phase.ASSASSINATE
            state["log"].append({"event": "assassination"})
        else:
            _end(state, "agents", "missions_succeeded")
    elif state["lady"] is not None and index in LADY_AFTER:
        # Decision: the Lady is used after missions 2-4 however they ended (even by rejections).
        state["phase"] = Phase.LADY
    else:
        state["phase"] = Phase.PROPOSE


def _pass_leadership(state: InsideJobState) -> None:
    """Leadership passes clockwise to the next seat (nobody ever leaves the table)."""
    state["leader"] = (state["leader"] + 1) % state["players"]


def _team(state: InsideJobState) -> list[int]:
    """The team on the vote or on the mission (only called while there is one)."""
    team = state["team"]
    assert team is not None, "no team is proposed"
    return team


# ----- the end ----------------------------------------------------------------------------
def _end(state: InsideJobState, side: str, reason: str) -> None:
    """Close the game with the winning side."""
    state["phase"] = Phase.OVER
    state["result"] = {"side": side, "reason": reason}
    state["log"].append({"event": "game_over", "side": side, "reason": reason})


def outcome(state: InsideJobState) -> Outcome | None:
    """Winners, reason, both teams and every role once the game is over."""
    result = state["result"]
    if result is None:
        return None
    roles = state["roles"]
    teams = {
        "agents": [s for s, r in enumerate(roles) if side_of(r) == "agents"],
        "traitors": [s for s, r in enumerate(roles) if side_of(r) == "traitors"],
    }
    return {
        "winners": teams[result["side"]],
        "side": result["side"],
        "reason": result["reason"],
        "teams": teams,
        "reveal": {"roles": list(roles), "assassin_target": state["assassin_target"]},
    }
