"""Information-set check: permuting what a seat cannot know leaves its view unchanged."""

from __future__ import annotations

import copy
import random

import pytest

from engines.inside_job import ENGINE

ALL_ROLES = {"merlin": True, "percival": True, "morgana": True, "mordred": True, "oberon": True,
             "lady_of_the_lake": True}
CASES = [(5, {}), (6, {"merlin": True}), (7, {"merlin": True, "percival": True, "morgana": True,
                                             "lady_of_the_lake": True}),
         (8, {"merlin": True, "mordred": True, "oberon": True}), (10, ALL_ROLES)]


def states_along_a_game(players: int, options: dict, seed: int):
    """Every state of one random game, before its end (the end reveals everything)."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, options, seed)
    while ENGINE.outcome(state) is None:
        yield state
        movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
        if not movers:
            state = ENGINE.on_timeout(state)
            continue
        seat = rng.choice(movers)
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))


def scramble(state: dict, viewer: int | None, rng: random.Random) -> dict:
    """A state that differs only in what ``viewer`` cannot know."""
    other = copy.deepcopy(state)
    roles = other["roles"]
    n = other["players"]
    known = set() if viewer is None else set(ENGINE.view(state, viewer)["known"])
    fixed = set() if viewer is None else {viewer}
    if state["phase"] == "assassinate":
        fixed.add(roles.index("assassin"))  # the Assassin acts in the open
    # Roles: shuffle within the known group and within the unknown group separately
    # (a Traitor knows which seats are Traitors, not which special role each holds).
    for group in (sorted(known - fixed), sorted(set(range(n)) - known - fixed)):
        values = [roles[s] for s in group]
        rng.shuffle(values)
        for s, r in zip(group, values, strict=True):
            roles[s] = r
    # Hidden votes and face-down mission cards of other seats.
    for s in range(n):
        if s == viewer:
            continue
        if other["votes"][s] is not None and other["phase"] == "vote":
            other["votes"][s] = rng.random() < 0.5
        if other["cards"][s] is not None and other["phase"] == "mission":
            other["cards"][s] = rng.choice(["success", "sabotage"])
    for entry in other["log"]:
        if entry.get("private") and entry.get("to") != viewer:
            entry["side"] = rng.choice(["agents", "traitors"])
    other["seed"] = state["seed"] + 1 + rng.randrange(10**6)
    other["draws"] = state["draws"] + rng.randrange(50)
    return other


@pytest.mark.parametrize(("players", "options"), CASES)
def test_permuting_hidden_facts_leaves_every_seat_and_board_view_unchanged(players, options):
    rng = random.Random(players)
    checked = 0
    for seed in range(2):
        for index, state in enumerate(states_along_a_game(players, options, seed)):
            if index % 4:
                continue
            for viewer in [None, *range(players)]:
                expected = ENGINE.view(state, viewer)
                for _ in range(2):
                    assert ENGINE.view(scramble(state, viewer, rng), viewer) == expected
                checked += 1
    assert checked > 50


def test_a_hidden_role_actually_changes_the_owners_view():
    # Guard against a vacuous check: the scramble must touch something the owner sees.
    state = ENGINE.setup(5, {}, 3)
    traitor = state["roles"].index("traitor")
    agent = state["roles"].index("agent")
    swapped = copy.deepcopy(state)
    swapped["roles"][traitor], swapped["roles"][agent] = "agent", "traitor"
    assert ENGINE.view(swapped, traitor) != ENGINE.view(state, traitor)
    assert ENGINE.view(swapped, None) == ENGINE.view(state, None)
