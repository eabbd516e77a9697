"""Scenario tests for the core rules: deal, arrangement, actions, aiming, shots, teams, windows."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction, OptionError
from engines.good_cop_bad_cop import ENGINE, rules
from engines.good_cop_bad_cop.cards import GUNS, SIDE_CARDS
from engines.good_cop_bad_cop.rules import equipment_deck
from tests.engines.good_cop_bad_cop.helpers import A, C, H, K, expire, five, phase, play


@pytest.mark.parametrize("n", range(4, 9))
def test_deal_gives_three_cards_each_and_never_both_leaders_to_one(n):
    for seed in range(40):
        state = ENGINE.setup(n, {}, seed)
        hands = [p["cards"] for p in state["players"]]
        assert all(len(h) == 3 for h in hands)
        every = [c for h in hands for c in h] + state["burned"]
        assert every.count(A) == 1 and every.count(K) == 1
        assert every.count(H) == SIDE_CARDS[n] and every.count(C) == SIDE_CARDS[n]
        assert not any(A in h and K in h for h in hands)
        assert len(state["burned"]) == 2 * SIDE_CARDS[n] + 2 - 3 * n


def test_five_player_deal_burns_one_card_that_is_never_a_leader():
    burned = [ENGINE.setup(5, {}, seed)["burned"] for seed in range(200)]
    assert all(len(b) == 1 and b[0] in (H, C) for b in burned)
    assert {b[0] for b in burned} == {H, C}


@pytest.mark.parametrize("n,guns", [(4, 2), (5, 3), (6, 3), (7, 4), (8, 4)])
def test_guns_in_the_centre_by_player_count(n, guns):
    assert ENGINE.setup(n, {}, 3)["guns_left"] == guns == GUNS[n]
    assert ENGINE.view(ENGINE.setup(n, {}, 3), None)["guns_left"] == guns


def test_equipment_deck_by_player_count_and_bribe_option():
    assert len(equipment_deck(4, False)) == 14
    assert "defibrillator" in equipment_deck(5, False) and "report_audit" not in equipment_deck(5, False)
    assert len(equipment_deck(6, False)) == 16
    assert "bribe" in equipment_deck(6, True)
    state = ENGINE.setup(6, {"bribe": True}, 9)
    held = [c for p in state["players"] for c in p["hand"]]
    assert sorted(held + state["deck"]) == sorted(equipment_deck(6, True))
    assert all(len(p["hand"]) == 1 for p in state["players"])


def test_first_player_option_and_random_first_player():
    assert ENGINE.setup(5, {"first_player": 3}, 1)["turn"] == 3
    assert {ENGINE.setup(5, {}, s)["turn"] for s in range(30)} == set(range(5))


def test_each_player_arranges_once_then_the_first_turn_starts():
    state = ENGINE.setup(4, {"first_player": 2}, 5)
    dealt = list(state["players"][0]["cards"])
    assert phase(state) == "arrange" and ENGINE.awaiting(state) == {0, 1, 2, 3}
    state = play(state, 0, {"type": "arrange", "order": [2, 0, 1]})
    assert state["players"][0]["cards"] == [dealt[2], dealt[0], dealt[1]]
    assert ENGINE.legal_actions(state, 0) == []
    for seat in (1, 2, 3):
        state = play(state, seat, {"type": "arrange", "order": [0, 1, 2]})
    assert phase(state) == "action" and state["turn"] == 2


def test_arrangement_timer_keeps_the_dealt_order():
    state = ENGINE.setup(4, {}, 5)
    dealt = [list(p["cards"]) for p in state["players"]]
    assert ENGINE.window(state) == "0:arrange"
    state = ENGINE.on_timeout(state)
    assert [p["cards"] for p in state["players"]] == dealt and phase(state) == "action"


def test_investigate_is_private_to_the_investigator_and_public_as_a_fact():
    state = five()
    state = play(state, 0, {"type": "investigate", "target": 1, "card": 0})
    mine = ENGINE.view(state, 0)
    assert mine["learned"] == [{"target": 1, "card": 0, "name": K, "how": "investigate"}]
    board = ENGINE.view(state, None)
    assert {"event": "investigate", "seat": 0, "target": 1, "card": 0} in board["log"]
    assert K not in str(board) and ENGINE.view(state, 2)["learned"] == []
    assert ENGINE.view(state, 2)["cards"][1][0] == {"name": None, "face_up": False}


def test_private_entries_are_addressed_to_their_seat():
    state = play(five(), 0, {"type": "investigate", "target": 1, "card": 0})
    learned = [e for e in state["log"] if e["event"] == "learned"]
    assert learned == [{"event": "learned", "seat": 0, "target": 1, "card": 0, "name": K,
                        "how": "investigate", "private": True, "to": 0}]
    assert learned[0] in ENGINE.view(state, 0)["log"]
    assert not [e for s in (None, 1, 2) for e in ENGINE.view(state, s)["log"] if e["event"] == "learned"]


def test_a_snapshot_saved_before_private_entries_had_to_still_shows_them_to_their_seat():
    state = play(five(), 0, {"type": "investigate", "target": 1, "card": 0})
    old = ENGINE.encode(state)
    for entry in old["log"]:
        entry.pop("to", None)
    assert ENGINE.decode(old) == state
    assert ENGINE.view(ENGINE.decode(old), 0) == ENGINE.view(state, 0)

def test_investigate_window_is_silent_and_closes_when_its_countdown_ends():
    state = five(hands=[["coffee"], [], [], [], []], guns={0: 1})
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 1})
    # Nobody is awaited and nobody taps Pass: only the holder has a (real) move.
    assert phase(state) == "respond" and ENGINE.awaiting(state) == set()
    assert ENGINE.countdown(state) == 4 and ENGINE.view(state, None)["silent"] is True
    assert ENGINE.legal_actions(state, 0) == [{"type": "play", "card": "coffee"}]
    assert all(ENGINE.legal_actions(state, s) == [] for s in range(1, 5))
    for seat in range(5):
        with pytest.raises(IllegalAction):
            play(state, seat, {"type": "pass"})
    state = ENGINE.on_timeout(state)
    assert phase(state) == "aim" and ENGINE.window(state) is None
    assert ENGINE.countdown(state) is None and ENGINE.view(state, 0)["silent"] is False


def test_window_seconds_option_sets_the_countdown_of_every_window_only():
    assert ENGINE.default_options()["window_seconds"] == 4
    spec = next(o for o in ENGINE.option_specs() if o["key"] == "window_seconds")
    assert (spec["kind"], spec["min"], spec["max"]) == ("int", 2, 20)
    for bad in (1, 21, True, 4.0):
        with pytest.raises(OptionError):
            ENGINE.validate_options({"window_seconds": bad}, 5)
    state = ENGINE.setup(5, {"window_seconds": 9, "first_player": 0}, 3)
    assert ENGINE.window(state) == "0:arrange" and ENGINE.countdown(state) is None
    state = ENGINE.on_timeout(state)
    assert phase(state) == "action" and ENGINE.countdown(state) is None
    state = play(state, 0, {"type": "investigate", "target": 1, "card": 0})
    assert ENGINE.countdown(state) == 9
    state = ENGINE.on_timeout(state)
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and ENGINE.countdown(state) == 9


def test_equip_draws_then_keeps_one_then_reveals_a_card():
    state = five(deck=["coffee", "taser"])
    state = play(state, 0, {"type": "equip"})
    assert phase(state) == "keep"
    assert ENGINE.legal_actions(state, 0) == [{"type": "keep", "card": "coffee"}]
    state = play(state, 0, {"type": "keep", "card": "coffee"})
    assert phase(state) == "reveal"
    state = play(state, 0, {"type": "reveal", "card": 1})
    assert state["players"][0]["up"] == [False, True, False]
    assert ENGINE.view(state, None)["cards"][0][1] == {"name": H, "face_up": True}
    assert ENGINE.view(state, None)["pending"]["when"] == "end"  # no gun: nothing left to decide


def test_hand_limit_keeps_one_and_returns_the_other_to_the_bottom_unseen():
    state = five(hands=[["wiretap"], [], [], [], []], deck=["coffee", "taser"])
    state = play(state, 0, {"type": "equip"})
    assert {a["card"] for a in ENGINE.legal_actions(state, 0)} == {"wiretap", "coffee"}
    assert ENGINE.view(state, None)["pending"]["kind"] == "keep"
    state = play(state, 0, {"type": "keep", "card": "coffee"})
    assert state["players"][0]["hand"] == ["coffee"] and state["deck"] == ["taser", "wiretap"]
    assert "wiretap" not in str(ENGINE.view(state, None)) and "wiretap" not in str(ENGINE.view(state, 1))


def test_arm_takes_a_gun_reveals_and_must_aim():
    state = five()
    state = play(state, 0, {"type": "arm"})
    state = play(state, 0, {"type": "reveal", "card": 2})
    assert state["guns_left"] == 2 and phase(state) == "aim"
    assert {"type": "end_turn"} not in ENGINE.legal_actions(state, 0)
    state = play(state, 0, {"type": "aim", "target": 3})
    assert ENGINE.view(state, None)["guns"][0] == 3
    assert {"event": "aim", "seat": 0, "target": 3} in ENGINE.view(state, None)["log"]


def test_arm_is_refused_with_a_gun_or_none_left():
    state = five(guns={0: 1})
    assert {"type": "arm"} not in ENGINE.legal_actions(state, 0)
    assert {"type": "equip"} in ENGINE.legal_actions(state, 0)
    state = five(guns={1: 0, 2: 0, 3: 0})
    assert state["guns_left"] == 0 and {"type": "arm"} not in ENGINE.legal_actions(state, 0)


def test_aim_changes_only_in_the_aim_phase():
    state = five(guns={0: 1})
    assert not any(a["type"] == "aim" for a in ENGINE.legal_actions(state, 0))
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 0})
    state = expire(state)
    assert {"type": "aim", "target": 4} in ENGINE.legal_actions(state, 0)
    assert {"type": "end_turn"} in ENGINE.legal_actions(state, 0)
    state = play(state, 0, {"type": "aim", "target": 4})
    assert state["players"][0]["aim"] == 4


def test_shot_player_reveals_all_and_is_eliminated_losing_equipment_and_gun():
    state = five(hands=[[], [], ["coffee"], [], []], guns={0: 2, 2: 1}, deck=["taser"])
    state = play(state, 0, {"type": "shoot"})
    assert phase(state) == "respond" and ENGINE.view(state, None)["pending"]["when"] == "shoot"
    state = expire(state)
    p2 = state["players"][2]
    assert not p2["alive"] and p2["up"] == [True, True, True] and p2["hand"] == []
    assert state["deck"] == ["taser", "coffee"] and state["guns_left"] == 3
    assert not state["players"][0]["gun"] and ENGINE.view(state, None)["guns"][2] is None
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and ENGINE.legal_actions(state, 0) == []


def test_leader_survives_the_first_shot_wounded_and_draws_equipment():
    state = five(guns={0: 1}, deck=["coffee", "taser"])
    state = expire(play(state, 0, {"type": "shoot"}))
    kingpin = state["players"][1]
    assert kingpin["alive"] and kingpin["wounded"] and kingpin["up"] == [True, True, True]
    assert phase(state) == "keep" and ENGINE.awaiting(state) == {1}
    state = play(state, 1, {"type": "keep", "card": "coffee"})
    assert state["players"][1]["hand"] == ["coffee"] and ENGINE.outcome(state) is None
    assert ENGINE.view(state, None)["wounded"][1] is True


def test_second_shot_eliminates_the_kingpin_and_the_honest_team_wins():
    state = five(guns={0: 1})
    state["players"][1]["wounded"] = True
    state = expire(play(state, 0, {"type": "shoot"}))
    outcome = ENGINE.outcome(state)
    assert outcome["reason"] == "kingpin_eliminated" and outcome["winners"] == [0, 2, 4]
    assert ENGINE.legal_actions(state, 0) == [] and ENGINE.awaiting(state) == set()
    assert ENGINE.view(state, 3)["reveal"]["cards"][1][0] == K


def test_agent_eliminated_the_crooked_team_wins_including_the_eliminated():
    state = five(guns={3: 0}, turn=3)
    state["players"][0]["wounded"] = True
    state = expire(play(state, 3, {"type": "shoot"}))
    assert ENGINE.outcome(state)["winners"] == [1, 3]
    # An already eliminated crooked player wins with the team too.
    state = five(guns={3: 0}, turn=3)
    state["players"][0]["wounded"] = True
    state["players"][2].update(cards=[C, C, H], alive=False)
    state = expire(play(state, 3, {"type": "shoot"}))
    assert ENGINE.outcome(state)["winners"] == [1, 2, 3]


def test_shoot_needs_a_living_target_and_a_dead_aim_must_be_changed():
    state = five(guns={0: 2})
    state["players"][2]["alive"] = False
    assert {"type": "shoot"} not in ENGINE.legal_actions(state, 0)
    state = expire(play(state, 0, {"type": "investigate", "target": 3, "card": 0}))
    assert {"type": "end_turn"} not in ENGINE.legal_actions(state, 0)


def test_end_of_turn_window_then_the_next_living_player_clockwise():
    state = five()
    state["players"][1]["alive"] = False
    state = play(state, 0, {"type": "equip"})
    state = play(state, 0, ENGINE.legal_actions(state, 0)[0])
    state = play(state, 0, {"type": "reveal", "card": 0})
    assert ENGINE.view(state, None)["pending"]["when"] == "end"
    assert ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == 4
    state = ENGINE.on_timeout(state)
    assert state["turn"] == 2 and phase(state) == "action"


def test_teams_follow_the_cards():
    state = five()
    assert rules.teams(state) == {0: H, 1: C, 2: H, 3: C, 4: H}
    assert ENGINE.view(state, 2)["team"] == H and ENGINE.view(state, None)["team"] is None


def test_illegal_moves_are_refused():
    state = five()
    with pytest.raises(IllegalAction):
        play(state, 1, {"type": "equip"})
    with pytest.raises(IllegalAction):
        play(state, 0, {"type": "investigate", "target": 0, "card": 0})
    with pytest.raises(IllegalAction):
        ENGINE.on_timeout(state)


def test_arrangement_offers_each_distinct_row_once():
    state = ENGINE.setup(4, {}, 5)
    state["players"][0]["cards"] = [H, H, C]
    orders = [a["order"] for a in ENGINE.legal_actions(state, 0)]
    assert orders == [[0, 1, 2], [0, 2, 1], [2, 0, 1]]


def test_a_card_played_in_a_window_reopens_it_with_a_new_id_for_everyone():
    state = five(hands=[[], [], ["smoke_grenade"], [], []])
    state = play(state, 0, {"type": "investigate", "target": 1, "card": 2})
    first = ENGINE.window(state)
    state = play(state, 2, {"type": "play", "card": "smoke_grenade"})
    assert ENGINE.window(state) != first and ENGINE.awaiting(state) == set()
    assert ENGINE.countdown(state) == 4 and ENGINE.legal_actions(state, 2) == []
    assert ENGINE.view(state, None)["pending"] == {"kind": "window", "seat": 0, "when": "investigate",
                                                  "target": 1, "card": 2}


def test_timer_takes_the_first_option_of_a_pending_choice():
    state = five(deck=["coffee"], hands=[["taser"], [], [], [], []])
    state = play(state, 0, {"type": "equip"})
    assert ENGINE.window(state).endswith(":keep")
    state = ENGINE.on_timeout(state)
    assert state["players"][0]["hand"] == ["taser"] and phase(state) == "reveal"
    state = ENGINE.on_timeout(state)
    assert state["players"][0]["up"] == [True, False, False]
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and ENGINE.window(state).endswith(":end")


def test_dead_players_are_not_asked_and_revived_players_play_again():
    state = five()
    state["players"][3]["alive"] = False
    state = play(state, 0, {"type": "investigate", "target": 1, "card": 0})
    assert 3 not in ENGINE.awaiting(state) and ENGINE.legal_actions(state, 3) == []


def test_wounded_marker_stays_with_the_player_after_the_leader_card_moves():
    state = five(guns={0: 1})
    state["players"][1]["wounded"] = True
    state["players"][1]["cards"] = [H, C, H]
    state["players"][2]["cards"] = [K, H, C]
    state = expire(play(state, 0, {"type": "shoot"}))
    assert not state["players"][1]["alive"] and ENGINE.outcome(state) is None
