"""Variants: Merlin and the Assassin, and the Lady of the Lake."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction
from engines.inside_job import ENGINE

from .helpers import plain_roles, propose, run_mission, table, vote

MERLIN5 = ["merlin", "assassin", "agent", "traitor", "agent"]


def three_successes(state: dict) -> dict:
    """Three clean missions with Agent-only teams (seats 0, 2, 4 are Agents)."""
    for team in ([0, 2], [0, 2, 4], [2, 4]):
        state = run_mission(state, team)
    return state


def test_three_successes_with_merlin_go_to_the_assassination():
    state = three_successes(table(5, MERLIN5, merlin=True))
    assert ENGINE.outcome(state) is None
    assert state["phase"] == "assassinate"
    assert ENGINE.awaiting(state) == {1}
    assert ENGINE.window(state) is None
    assert all(ENGINE.legal_actions(state, s) == [] for s in (0, 2, 3, 4))


def test_assassin_may_name_anyone_but_himself_and_the_traitors_he_knows():
    state = three_successes(table(5, MERLIN5, merlin=True))
    targets = [a["target"] for a in ENGINE.legal_actions(state, 1)]
    assert targets == [0, 2, 4]


def test_assassin_naming_merlin_wins_for_the_traitors():
    state = three_successes(table(5, MERLIN5, merlin=True))
    state = ENGINE.apply(state, 1, {"type": "assassinate", "target": 0})
    outcome = ENGINE.outcome(state)
    assert outcome["side"] == "traitors" and outcome["reason"] == "merlin_found"
    assert outcome["winners"] == [1, 3]
    assert outcome["reveal"]["assassin_target"] == 0


def test_assassin_missing_merlin_leaves_the_win_with_the_agents():
    state = three_successes(table(5, MERLIN5, merlin=True))
    state = ENGINE.apply(state, 1, {"type": "assassinate", "target": 2})
    outcome = ENGINE.outcome(state)
    assert outcome["side"] == "agents" and outcome["reason"] == "merlin_survived"
    assert outcome["winners"] == [0, 2, 4]


def test_traitors_three_failures_win_without_assassination():
    state = table(5, MERLIN5, merlin=True)
    state = run_mission(state, [0, 1], sabotage={1})
    state = run_mission(state, [1, 2, 3], sabotage={3})
    state = run_mission(state, [0, 3], sabotage={3})
    assert ENGINE.outcome(state)["side"] == "traitors"


def test_assassin_can_name_oberon_whom_he_does_not_know():
    roles = ["merlin", "assassin", "agent", "oberon", "agent", "agent", "traitor"]
    state = table(7, roles, merlin=True, oberon=True)
    for team in ([0, 2], [0, 2, 4], [2, 4, 5]):
        state = run_mission(state, team)
    targets = [a["target"] for a in ENGINE.legal_actions(state, 1)]
    assert targets == [0, 2, 3, 4, 5]


# ----- Lady of the Lake ---------------------------------------------------------------
SEVEN = plain_roles(7, [1, 3, 5])


def test_lady_starts_to_the_right_of_the_first_leader():
    assert table(7, SEVEN, leader=0, lady_of_the_lake=True)["lady"] == 6
    assert table(7, SEVEN, leader=3, lady_of_the_lake=True)["lady"] == 2
    assert table(7, SEVEN)["lady"] is None


def test_lady_is_not_used_after_mission_one():
    state = run_mission(table(7, SEVEN, lady_of_the_lake=True), [0, 2])
    assert state["phase"] == "propose"


def test_lady_after_mission_two_privately_learns_a_side_and_passes_the_token():
    state = table(7, SEVEN, leader=0, lady_of_the_lake=True)
    state = run_mission(state, [0, 2])
    state = run_mission(state, [0, 2, 4])
    assert state["phase"] == "lady" and ENGINE.awaiting(state) == {6}
    assert ENGINE.window(state) is None
    targets = [a["target"] for a in ENGINE.legal_actions(state, 6)]
    assert targets == [0, 1, 2, 3, 4, 5]
    state = ENGINE.apply(state, 6, {"type": "examine", "target": 3})
    assert state["lady"] == 3 and state["phase"] == "propose"
    holder = ENGINE.view(state, 6)
    assert holder["examined"] == [{"target": 3, "side": "traitors"}]
    assert any(e["event"] == "lady_result" for e in holder["log"])
    for seat in (None, 0, 3):
        view = ENGINE.view(state, seat)
        assert view["examined"] == [] and not any(e["event"] == "lady_result" for e in view["log"])
        assert any(e["event"] == "lady" and e["target"] == 3 for e in view["log"])


def test_lady_shows_the_side_not_the_role():
    roles = ["merlin", "assassin", "agent", "traitor", "agent", "agent", "traitor"]
    state = table(7, roles, leader=0, merlin=True, lady_of_the_lake=True)
    state = run_mission(state, [2, 4])
    state = run_mission(state, [2, 4, 5])
    state = ENGINE.apply(state, 6, {"type": "examine", "target": 0})
    assert ENGINE.view(state, 6)["examined"] == [{"target": 0, "side": "agents"}]


def test_former_holders_cannot_be_examined_and_lady_is_used_after_missions_two_to_four():
    state = table(7, SEVEN, leader=0, lady_of_the_lake=True)
    state = run_mission(state, [0, 1], sabotage={1})
    state = run_mission(state, [0, 2, 4])
    state = ENGINE.apply(state, 6, {"type": "examine", "target": 3})
    state = run_mission(state, [0, 2, 4])
    assert state["phase"] == "lady"
    targets = [a["target"] for a in ENGINE.legal_actions(state, 3)]
    assert 6 not in targets and 3 not in targets
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 3, {"type": "examine", "target": 6})
    state = ENGINE.apply(state, 3, {"type": "examine", "target": 0})
    state = run_mission(state, [0, 1, 2, 3], sabotage={1, 3})
    assert state["missions"] == ["fail", "success", "success", "fail"]
    assert state["phase"] == "lady"
    state = ENGINE.apply(state, 0, {"type": "examine", "target": 4})
    assert state["lady_past"] == [6, 3, 0, 4]
    state = run_mission(state, [0, 2, 4, 6])
    assert ENGINE.outcome(state)["side"] == "agents"


def test_lady_is_used_after_a_mission_lost_to_five_rejections():
    state = table(7, SEVEN, leader=0, lady_of_the_lake=True)
    state = run_mission(state, [0, 2])
    for _ in range(5):
        state = vote(propose(state, [0, 2, 4]), [False] * 7)
    assert state["missions"] == ["success", "fail"] and state["phase"] == "lady"


def test_lady_is_not_used_when_the_game_has_ended():
    state = table(7, SEVEN, leader=0, lady_of_the_lake=True)
    state = run_mission(state, [0, 2])
    state = run_mission(state, [0, 2, 4])
    state = ENGINE.apply(state, 6, {"type": "examine", "target": 1})
    state = run_mission(state, [0, 2, 4])
    assert ENGINE.outcome(state)["side"] == "agents"
