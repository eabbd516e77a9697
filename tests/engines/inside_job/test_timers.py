"""Timed windows: the vote and the mission play; expiry approves and plays Success."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction
from engines.inside_job import ENGINE

from .helpers import approve_all, plain_roles, propose, table, vote

FIVE = plain_roles(5, [1, 3])


def test_no_window_during_the_proposal():
    state = table(5, FIVE)
    assert ENGINE.window(state) is None
    with pytest.raises(IllegalAction):
        ENGINE.on_timeout(state)


def test_vote_and_mission_windows_have_ids_unique_over_the_game():
    state = table(5, FIVE)
    seen = []
    state = propose(state, [0, 1])
    seen.append(ENGINE.window(state))
    state = vote(state, [False] * 5)
    state = propose(state, [0, 1])
    seen.append(ENGINE.window(state))
    state = approve_all(state)
    seen.append(ENGINE.window(state))
    assert all(seen) and len(set(seen)) == 3
    assert seen[0].endswith("vote") and seen[2].endswith("mission")


def test_unvoted_seats_approve_when_the_vote_times_out():
    state = propose(table(5, FIVE), [0, 1])
    for seat in (0, 1, 2):
        state = ENGINE.apply(state, seat, {"type": "vote", "approve": False})
    state = ENGINE.on_timeout(state)
    assert ENGINE.view(state, None)["votes"] == [False, False, False, True, True]
    assert state["phase"] == "propose" and state["rejections"] == 1
    assert {"event": "timeout", "phase": "vote", "seats": [3, 4]} in state["log"]


def test_timed_out_vote_can_approve_the_team():
    state = ENGINE.on_timeout(propose(table(5, FIVE), [0, 1]))
    assert state["phase"] == "mission"


def test_unplayed_mission_cards_count_as_success():
    state = approve_all(propose(table(5, FIVE), [1, 3]))
    state = ENGINE.on_timeout(state)
    assert state["missions"] == ["success"] and state["sabotage_counts"] == [0]


def test_timeout_keeps_the_cards_already_played():
    state = approve_all(propose(table(5, FIVE), [1, 3]))
    state = ENGINE.apply(state, 1, {"type": "play", "card": "sabotage"})
    before = ENGINE.encode(state)
    state2 = ENGINE.on_timeout(state)
    assert ENGINE.encode(state) == before
    assert state2["missions"] == ["fail"] and state2["sabotage_counts"] == [1]


def test_no_window_during_the_lady_and_the_assassination():
    state = table(7, plain_roles(7, [1, 3, 5]), lady_of_the_lake=True)
    from .helpers import run_mission
    state = run_mission(run_mission(state, [0, 2]), [0, 2, 4])
    assert state["phase"] == "lady" and ENGINE.window(state) is None
