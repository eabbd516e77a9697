"""Hypothesis invariants over random games with random options."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import OptionError
from engines.inside_job import ENGINE
from engines.inside_job.cards import MISSION_SIZES, side_of

OPTION_KEYS = ["merlin", "percival", "morgana", "mordred", "oberon", "lady_of_the_lake"]


def options_from(flags: list[bool], players: int) -> dict | None:
    """The options these flags ask for, or None when the table refuses them."""
    opts = dict(zip(OPTION_KEYS, flags, strict=True))
    try:
        return ENGINE.validate_options(opts, players)
    except OptionError:
        return None


def check_invariants(state: dict) -> None:
    """What must hold in every reachable state."""
    n = state["players"]
    missions = state["missions"]
    assert len(missions) <= 5
    assert missions.count("fail") <= 3 and missions.count("success") <= 3
    assert 0 <= state["rejections"] < 5
    assert 0 <= state["leader"] < n
    assert len(state["sabotage_counts"]) == len(missions)
    for i, (count, team) in enumerate(zip(state["sabotage_counts"], state["mission_teams"],
                                          strict=True)):
        if count is None:
            assert team is None and missions[i] == "fail"
            continue
        assert len(team) == MISSION_SIZES[n][i]
        traitors_on_team = sum(1 for s in team if side_of(state["roles"][s]) == "traitors")
        assert count <= traitors_on_team  # Agents can never sabotage
    if state["team"] is not None:
        assert len(state["team"]) == MISSION_SIZES[n][state["mission"]]
    board = ENGINE.view(state, None)
    assert board["role"] is None and board["side"] is None and board["known"] == []
    over = ENGINE.outcome(state) is not None
    assert over == (state["phase"] == "over")
    if not over:
        assert ENGINE.awaiting(state)
        movers = [s for s in range(n) if ENGINE.legal_actions(state, s)]
        assert set(movers) == ENGINE.awaiting(state)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(5, 10),
       flags=st.lists(st.booleans(), min_size=6, max_size=6), timeouts=st.floats(0, 0.5))
def test_random_games_keep_the_invariants_and_end_with_one_side_winning(seed, players, flags,
                                                                        timeouts):
    opts = options_from(flags, players)
    if opts is None:
        return
    rng = random.Random(seed)
    state = ENGINE.setup(players, opts, seed)
    for _ in range(400):
        check_invariants(state)
        if ENGINE.outcome(state) is not None:
            break
        if ENGINE.window(state) is not None and rng.random() < timeouts:
            state = ENGINE.on_timeout(state)
            continue
        seat = rng.choice(sorted(ENGINE.awaiting(state)))
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    sides = outcome["teams"]
    assert sorted(sides["agents"] + sides["traitors"]) == list(range(players))
    assert outcome["winners"] == sides[outcome["side"]]
    if outcome["side"] == "agents":
        assert state["missions"].count("success") == 3
    else:
        assert state["missions"].count("fail") == 3 or outcome["reason"] == "merlin_found"


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(5, 10),
       flags=st.lists(st.booleans(), min_size=6, max_size=6))
def test_setup_deals_the_table_and_each_special_role_once(seed, players, flags):
    opts = options_from(flags, players)
    if opts is None:
        return
    roles = ENGINE.setup(players, opts, seed)["roles"]
    for role in ("merlin", "percival", "morgana", "mordred", "oberon"):
        assert roles.count(role) == (1 if opts[role] else 0)
    assert roles.count("assassin") == (1 if opts["merlin"] else 0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(5, 10))
def test_board_never_sees_a_hidden_vote_or_card(seed, players):
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    while ENGINE.outcome(state) is None:
        board = ENGINE.view(state, None)
        assert board["my_vote"] is None and board["my_card"] is None
        for entry in board["log"]:
            assert not entry.get("private")
            assert "card" not in entry and "cards" not in entry
        seat = rng.choice(sorted(ENGINE.awaiting(state)))
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(7, 10))
def test_apply_and_on_timeout_never_change_their_input(seed, players):
    import json

    opts = {"merlin": True, "percival": True, "lady_of_the_lake": True}
    rng = random.Random(seed)
    state = ENGINE.setup(players, opts, seed)
    while ENGINE.outcome(state) is None:
        before = json.dumps(state, sort_keys=True)
        for seat in range(players):
            for piece in ENGINE.view(state, seat)["log"]:
                piece.setdefault("team", []).append(99)  # a careless reader must not reach the state
        if ENGINE.window(state) is not None and rng.random() < 0.2:
            new = ENGINE.on_timeout(state)
        else:
            seat = rng.choice(sorted(ENGINE.awaiting(state)))
            new = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        assert json.dumps(state, sort_keys=True) == before
        state = new
