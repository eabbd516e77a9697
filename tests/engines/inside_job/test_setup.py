"""Setup: role and mission tables, the first leader, sight rules and option checks."""

from __future__ import annotations

import pytest

from engines.base import OptionError
from engines.inside_job import ENGINE
from engines.inside_job.cards import side_of

from .helpers import table

SIDES = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}
SIZES = {5: [2, 3, 2, 3, 3], 6: [2, 3, 4, 3, 4], 7: [2, 3, 3, 4, 4],
         8: [3, 4, 4, 5, 5], 9: [3, 4, 4, 5, 5], 10: [3, 4, 4, 5, 5]}


@pytest.mark.parametrize("players", range(5, 11))
def test_role_counts_follow_the_table(players):
    for seed in range(5):
        roles = ENGINE.setup(players, {}, seed)["roles"]
        agents = sum(1 for r in roles if side_of(r) == "agents")
        assert (agents, players - agents) == SIDES[players]


@pytest.mark.parametrize("players", range(5, 11))
def test_mission_sizes_follow_the_table(players):
    view = ENGINE.view(table(players), None)
    assert view["mission_sizes"] == SIZES[players]
    needed = [2 if players >= 7 and m == 3 else 1 for m in range(5)]
    assert view["sabotage_needed"] == needed


def test_six_players_have_four_agents_two_traitors_and_a_two_member_first_team():
    state = ENGINE.setup(6, {}, 9)
    assert sorted(state["roles"]) == ["agent"] * 4 + ["traitor"] * 2
    assert all(len(a["team"]) == 2 for a in ENGINE.legal_actions(state, state["leader"]))


@pytest.mark.parametrize("players", [4, 11])
def test_player_count_outside_five_to_ten_is_refused(players):
    with pytest.raises(OptionError):
        ENGINE.setup(players, {}, 1)


def test_first_leader_is_random_from_the_seed_or_chosen_by_host():
    leaders = {ENGINE.setup(7, {}, seed)["leader"] for seed in range(40)}
    assert len(leaders) > 3
    assert ENGINE.setup(7, {"first_player": 4}, 1)["leader"] == 4


def test_traitors_see_each_other_and_agents_see_nobody():
    state = table(7, ["agent", "traitor", "agent", "traitor", "agent", "traitor", "agent"])
    assert ENGINE.view(state, 1)["known"] == [3, 5]
    assert ENGINE.view(state, 3)["known"] == [1, 5]
    assert ENGINE.view(state, 1)["known_as"] == "traitors"
    for agent in (0, 2, 4, 6):
        assert ENGINE.view(state, agent)["known"] == []
        assert ENGINE.view(state, agent)["known_as"] is None
    assert ENGINE.view(state, None)["known"] == [] and ENGINE.view(state, None)["role"] is None


def test_phone_shows_own_role_and_side_only():
    state = table(5, ["agent", "traitor", "agent", "traitor", "agent"])
    assert (ENGINE.view(state, 0)["role"], ENGINE.view(state, 0)["side"]) == ("agent", "agents")
    assert (ENGINE.view(state, 1)["role"], ENGINE.view(state, 1)["side"]) == ("traitor", "traitors")
    board = ENGINE.view(state, None)
    assert board["role"] is None and board["side"] is None


def test_merlin_sees_traitors_and_the_assassin_is_a_seen_traitor():
    roles = ["merlin", "assassin", "agent", "traitor", "agent"]
    state = table(5, roles, merlin=True)
    assert ENGINE.view(state, 0)["known"] == [1, 3]
    assert ENGINE.view(state, 1)["known"] == [3]
    assert ENGINE.view(state, 3)["known"] == [1]


def test_merlin_option_deals_one_merlin_and_one_assassin():
    roles = ENGINE.setup(8, {"merlin": True}, 3)["roles"]
    assert roles.count("merlin") == 1 and roles.count("assassin") == 1
    assert roles.count("agent") == 4 and roles.count("traitor") == 2


def test_percival_sees_merlin_and_morgana_unlabelled():
    roles = ["percival", "merlin", "morgana", "assassin", "agent", "agent", "traitor"]
    state = table(7, roles, merlin=True, percival=True, morgana=True)
    view = ENGINE.view(state, 0)
    assert view["known"] == [1, 2] and view["known_as"] == "merlin_candidates"


def test_percival_without_morgana_sees_only_merlin():
    roles = ["percival", "merlin", "traitor", "assassin", "agent", "agent", "traitor"]
    state = table(7, roles, merlin=True, percival=True)
    assert ENGINE.view(state, 0)["known"] == [1]


def test_mordred_is_hidden_from_merlin_but_seen_by_traitors():
    roles = ["merlin", "mordred", "assassin", "agent", "agent", "agent", "traitor"]
    state = table(7, roles, merlin=True, mordred=True)
    assert ENGINE.view(state, 0)["known"] == [2, 6]
    assert ENGINE.view(state, 2)["known"] == [1, 6]
    assert ENGINE.view(state, 1)["known"] == [2, 6]


def test_oberon_is_seen_by_merlin_only_and_sees_nobody():
    roles = ["merlin", "oberon", "assassin", "agent", "agent", "agent", "traitor"]
    state = table(7, roles, merlin=True, oberon=True)
    assert ENGINE.view(state, 0)["known"] == [1, 2, 6]
    assert ENGINE.view(state, 1)["known"] == []
    assert ENGINE.view(state, 2)["known"] == [6]
    assert ENGINE.view(state, 6)["known"] == [2]


def test_all_optional_roles_deal_in_a_ten_player_game():
    opts = {"merlin": True, "percival": True, "morgana": True, "mordred": True, "oberon": True}
    roles = ENGINE.setup(10, opts, 5)["roles"]
    assert sorted(roles) == sorted(["merlin", "percival", "agent", "agent", "agent", "agent",
                                    "assassin", "morgana", "mordred", "oberon"])


def test_percival_needs_merlin():
    with pytest.raises(OptionError, match="Merlin"):
        ENGINE.validate_options({"percival": True}, None)


def test_morgana_needs_percival():
    with pytest.raises(OptionError, match="Percival"):
        ENGINE.validate_options({"merlin": True, "morgana": True}, None)


def test_too_many_special_traitors_for_the_table_is_refused():
    opts = {"merlin": True, "percival": True, "morgana": True, "mordred": True}
    with pytest.raises(OptionError):
        ENGINE.setup(6, opts, 1)
    ENGINE.setup(10, opts, 1)


def test_lady_of_the_lake_needs_seven_players():
    with pytest.raises(OptionError, match="7"):
        ENGINE.setup(6, {"lady_of_the_lake": True}, 1)
    assert ENGINE.setup(7, {"lady_of_the_lake": True}, 1)["lady"] is not None


def test_optional_roles_are_off_by_default():
    defaults = ENGINE.default_options()
    assert defaults == {"first_player": None, "merlin": False, "percival": False, "morgana": False,
                        "mordred": False, "oberon": False, "lady_of_the_lake": False}
