"""A mission round: proposal, public vote, anonymous mission cards, rejections, the end."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction
from engines.inside_job import ENGINE

from .helpers import approve_all, first_team, plain_roles, play, propose, run_mission, table, vote

FIVE = plain_roles(5, [1, 3])
SEVEN = plain_roles(7, [1, 3, 5])


def test_leader_lists_every_team_of_the_mission_size_as_sorted_lists():
    state = table(7, SEVEN)
    legal = ENGINE.legal_actions(state, 0)
    assert len(legal) == 21  # C(7, 2)
    assert all(a["team"] == sorted(a["team"]) for a in legal)
    assert {"type": "propose", "team": [0, 6]} in legal
    assert all(ENGINE.legal_actions(state, s) == [] for s in range(1, 7))


def test_leader_may_include_themself():
    state = propose(table(5, FIVE), [0, 2])
    assert state["team"] == [0, 2] and state["phase"] == "vote"


def test_team_of_the_wrong_size_or_unsorted_or_by_a_non_leader_is_refused():
    state = table(5, FIVE)
    for action in ({"type": "propose", "team": [0]}, {"type": "propose", "team": [0, 1, 2]},
                   {"type": "propose", "team": [2, 0]}, {"type": "propose", "team": [0, 0]},
                   {"type": "propose", "team": [0, 9]}):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, 0, action)
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 1, {"type": "propose", "team": [0, 1]})


def test_everyone_including_the_leader_votes_and_votes_stay_secret_until_all_are_in():
    state = propose(table(5, FIVE), [0, 2])
    assert ENGINE.awaiting(state) == {0, 1, 2, 3, 4}
    state = ENGINE.apply(state, 0, {"type": "vote", "approve": False})
    assert ENGINE.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, {"type": "vote", "approve": True})
    board = ENGINE.view(state, None)
    assert board["votes"] is None and board["voted"] == [0] and board["awaiting"] == [1, 2, 3, 4]
    assert ENGINE.view(state, 1)["my_vote"] is None
    assert ENGINE.view(state, 0)["my_vote"] is False
    for seat in range(1, 5):
        state = ENGINE.apply(state, seat, {"type": "vote", "approve": True})
    board = ENGINE.view(state, None)
    assert board["votes"] == [False, True, True, True, True]
    assert board["phase"] == "mission"


def test_strict_majority_approves():
    state = vote(propose(table(5, FIVE), [0, 2]), [True, True, True, False, False])
    assert state["phase"] == "mission" and state["rejections"] == 0


def test_three_three_tie_rejects_and_leadership_passes_clockwise():
    state = table(6, plain_roles(6, [1, 4]), leader=5)
    state = vote(propose(state, [0, 1]), [True, True, True, False, False, False])
    assert state["phase"] == "propose"
    assert state["rejections"] == 1 and state["leader"] == 0
    assert ENGINE.view(state, None)["votes"] == [True, True, True, False, False, False]
    assert ENGINE.view(state, None)["team"] is None


def test_minority_approval_rejects():
    state = vote(propose(table(5, FIVE), [0, 2]), [True, True, False, False, False])
    assert state["phase"] == "propose" and state["leader"] == 1 and state["rejections"] == 1


def test_fifth_rejection_gives_the_mission_to_the_traitors_and_next_leader_starts_next_mission():
    state = table(5, FIVE)
    for attempt in range(5):
        assert state["rejections"] == attempt and state["mission"] == 0
        state = vote(propose(state, [0, 2]), [False] * 5)
    board = ENGINE.view(state, None)
    assert board["missions"] == ["fail"]
    assert board["sabotage_counts"] == [None]
    assert board["rejections"] == 0 and board["mission_number"] == 2
    assert board["leader"] == 0  # five leaders 0..4 were used; the next one is 0 again
    assert any(e["event"] == "auto_fail" and e["mission"] == 1 for e in board["log"])
    assert board["phase"] == "propose"


def test_rejections_reset_after_an_approved_mission():
    state = table(5, FIVE)
    state = vote(propose(state, [0, 2]), [False] * 5)
    state = play(approve_all(propose(state, [0, 2])))
    assert state["rejections"] == 0 and state["mission"] == 1


def test_agents_can_only_play_success_and_traitors_may_sabotage():
    state = approve_all(propose(table(5, FIVE), [0, 1]))
    assert ENGINE.legal_actions(state, 0) == [{"type": "play", "card": "success"}]
    assert ENGINE.legal_actions(state, 1) == [{"type": "play", "card": "success"},
                                              {"type": "play", "card": "sabotage"}]
    assert ENGINE.legal_actions(state, 2) == []
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, {"type": "play", "card": "sabotage"})


def test_one_sabotage_fails_an_ordinary_mission_and_only_the_count_is_public():
    state = run_mission(table(5, FIVE), [0, 1], sabotage={1})
    board = ENGINE.view(state, None)
    assert board["missions"] == ["fail"] and board["sabotage_counts"] == [1]
    entry = [e for e in board["log"] if e["event"] == "mission"][-1]
    assert entry["sabotage"] == 1 and "cards" not in entry
    assert "sabotage" not in str({k: v for k, v in entry.items() if k != "sabotage"})


def test_mission_awaits_team_members_only_without_showing_their_cards():
    state = approve_all(propose(table(5, FIVE), [0, 1]))
    assert ENGINE.awaiting(state) == {0, 1}
    state = ENGINE.apply(state, 1, {"type": "play", "card": "sabotage"})
    board = ENGINE.view(state, None)
    assert board["awaiting"] == [0] and board["played"] == [1]
    assert "my_card" in board and board["my_card"] is None
    assert ENGINE.view(state, 0)["my_card"] is None
    assert ENGINE.view(state, 1)["my_card"] == "sabotage"


def test_mission_with_no_sabotage_succeeds():
    state = run_mission(table(5, FIVE), [0, 2])
    assert state["missions"] == ["success"] and state["sabotage_counts"] == [0]


def test_seven_players_mission_four_with_one_sabotage_succeeds():
    state = table(7, SEVEN)
    state = run_mission(state, [0, 1], sabotage={1})       # fail
    state = run_mission(state, [0, 2, 4])                  # success
    state = run_mission(state, [1, 2, 4], sabotage={1})    # fail
    assert state["mission"] == 3
    state = run_mission(state, [0, 1, 2, 4], sabotage={1})
    assert state["missions"][3] == "success" and state["sabotage_counts"][3] == 1
    assert ENGINE.outcome(state) is None


def test_seven_players_mission_four_with_two_sabotage_fails():
    state = table(7, SEVEN)
    state = run_mission(state, [0, 2])
    state = run_mission(state, [0, 2, 4])
    state = run_mission(state, [0, 1, 2], sabotage={1})
    state = run_mission(state, [0, 1, 3, 4], sabotage={1, 3})
    assert state["missions"][3] == "fail" and state["sabotage_counts"][3] == 2


@pytest.mark.parametrize("players", [8, 9, 10])
def test_large_tables_mission_four_needs_two_sabotage(players):
    state = table(players, plain_roles(players, [1, 3, 5]))
    state = run_mission(state, [0, 2, 4])
    state = run_mission(state, [0, 2, 4, 6])
    state = run_mission(state, [1, 2, 4, 6], sabotage={1})
    state = run_mission(state, [0, 1, 2, 4, 6], sabotage={1})
    assert state["missions"][3] == "success"


def test_five_players_mission_four_fails_with_one_sabotage():
    state = table(5, FIVE)
    state = run_mission(state, [0, 2])
    state = run_mission(state, [0, 2, 4])
    state = run_mission(state, [0, 1], sabotage={1})
    state = run_mission(state, [0, 1, 2], sabotage={1})
    assert state["missions"] == ["success", "success", "fail", "fail"]


def test_leadership_passes_clockwise_after_each_mission():
    state = table(5, FIVE, leader=3)
    state = run_mission(state, [0, 2])
    assert state["leader"] == 4
    state = run_mission(state, [0, 2, 4])
    assert state["leader"] == 0


def test_three_successes_win_for_the_agents():
    state = table(5, FIVE)
    state = run_mission(state, [0, 2])
    state = run_mission(state, [0, 2, 4])
    assert ENGINE.outcome(state) is None
    state = run_mission(state, [2, 4])
    outcome = ENGINE.outcome(state)
    assert outcome["side"] == "agents" and outcome["winners"] == [0, 2, 4]
    assert outcome["reason"] == "missions_succeeded"
    assert outcome["reveal"]["roles"] == FIVE
    assert all(ENGINE.legal_actions(state, s) == [] for s in range(5))
    assert ENGINE.window(state) is None


def test_three_failures_win_for_the_traitors():
    state = table(5, FIVE)
    state = run_mission(state, [0, 1], sabotage={1})
    state = run_mission(state, [0, 2, 4])
    state = run_mission(state, [1, 3], sabotage={3})
    state = run_mission(state, [0, 1, 2], sabotage={1})
    outcome = ENGINE.outcome(state)
    assert outcome["side"] == "traitors" and outcome["winners"] == [1, 3]
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, state["leader"], {"type": "propose", "team": [0, 1]})


def test_rejection_failures_count_toward_the_traitors_three():
    state = table(5, FIVE)
    for _ in range(3):
        for _ in range(5):
            state = vote(propose(state, first_team(state)), [False] * 5)
    assert ENGINE.outcome(state)["side"] == "traitors"


def test_outcome_and_reveal_appear_in_every_view_after_the_end():
    state = table(5, FIVE)
    for _ in range(3):
        state = run_mission(state, [0, 2] if state["mission"] != 1 else [0, 2, 4])
    for seat in (None, 0, 1):
        view = ENGINE.view(state, seat)
        assert view["outcome"]["side"] == "agents"
        assert view["reveal"]["roles"] == FIVE
