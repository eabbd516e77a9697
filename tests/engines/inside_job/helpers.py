"""Small builders shared by the Inside Job tests."""

from __future__ import annotations

from engines.inside_job import ENGINE


def table(players: int, roles: list[str] | None = None, leader: int = 0, **options) -> dict:
    """A fresh game with a fixed first leader and, optionally, roles dealt by hand."""
    opts = {"first_player": leader, **options}
    state = ENGINE.setup(players, opts, 1234)
    if roles is not None:
        assert len(roles) == players
        state["roles"] = list(roles)
    return state


def plain_roles(players: int, traitors: list[int]) -> list[str]:
    """Plain Agents everywhere except the given Traitor seats."""
    return ["traitor" if s in traitors else "agent" for s in range(players)]


def propose(state: dict, team: list[int]) -> dict:
    """The leader proposes ``team``."""
    return ENGINE.apply(state, state["leader"], {"type": "propose", "team": sorted(team)})


def vote(state: dict, approvals: list[bool]) -> dict:
    """Every seat votes, in seat order."""
    for seat, approve in enumerate(approvals):
        state = ENGINE.apply(state, seat, {"type": "vote", "approve": approve})
    return state


def approve_all(state: dict) -> dict:
    """Everyone approves the proposal."""
    return vote(state, [True] * state["players"])


def play(state: dict, sabotage: set[int] | frozenset = frozenset()) -> dict:
    """The team plays: the given seats Sabotage, the rest Success."""
    for seat in sorted(state["team"]):
        card = "sabotage" if seat in sabotage else "success"
        state = ENGINE.apply(state, seat, {"type": "play", "card": card})
    return state


def run_mission(state: dict, team: list[int], sabotage=frozenset()) -> dict:
    """Propose, approve unanimously, and play one mission."""
    return play(approve_all(propose(state, team)), set(sabotage))


def first_team(state: dict) -> list[int]:
    """The lowest seats, as many as the current mission needs."""
    size = ENGINE.view(state, None)["team_size"]
    return list(range(size))
