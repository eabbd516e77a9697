"""Scenario tests: one position, a move or two, the rule checked."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction, OptionError
from engines.good_cop_bad_cop_health import ENGINE

from .helpers import at_act, give, new_game, set_identities, total_cards


def shoot(state, seat, gun, target):
    """Seat shoots ``target`` with ``gun``."""
    return ENGINE.apply(state, seat, {"type": "shoot", "gun": gun["id"], "target": target})


def test_setup_deals_the_identity_table_and_a_market_of_four():
    for players, (good, bad) in {4: (2, 2), 5: (3, 2), 6: (3, 3), 7: (4, 3), 8: (4, 4)}.items():
        state = new_game(players)
        identities = [p["identity"] for p in state["players"]]
        assert identities.count("good") == good and identities.count("bad") == bad
        assert len(state["identity_pile"]) == 16 - players
        assert all(card is not None for card in state["market"])
        assert len(state["deck"]) == 40
        assert all(p["health"] == 4 for p in state["players"])


def test_vest_absorbs_one_of_three_damage():
    state = new_game()
    gun = give(state, 0, "magnum_44", "in_play")
    give(state, 1, "vest", "in_play")
    state = shoot(at_act(state), 0, gun, 1)
    assert state["players"][1]["health"] == 2
    assert state["players"][1]["in_play"] == []
    assert state["discard"][-1]["kind"] == "vest"
    assert state["players"][0]["in_play"] == [gun], "guns are not used up"
    assert state["turn"] == 1, "shooting is the turn's act"


def test_vest_absorbs_the_whole_shot_of_a_38():
    state = new_game()
    gun = give(state, 0, "revolver_38", "in_play")
    give(state, 1, "vest", "in_play")
    give(state, 1, "vest", "in_play")
    state = shoot(at_act(state), 0, gun, 1)
    assert state["players"][1]["health"] == 4
    assert [c["kind"] for c in state["players"][1]["in_play"]] == ["vest"], "one vest per shot"


def test_calibres_deal_one_two_three():
    for kind, damage in (("revolver_38", 1), ("magnum_357", 2), ("magnum_44", 3)):
        state = new_game()
        gun = give(state, 0, kind, "in_play")
        state = shoot(at_act(state), 0, gun, 2)
        assert state["players"][2]["health"] == 4 - damage


def test_jammer_stops_an_inspection():
    state = new_game()
    card = give(state, 0, "inspection")
    give(state, 1, "jammer", "in_play")
    state = ENGINE.apply(at_act(state), 0, {"type": "inspect", "card": card["id"], "target": 1})
    assert state["players"][0]["learned"][1] is None
    assert state["players"][1]["in_play"] == []
    assert {c["kind"] for c in state["discard"]} == {"jammer", "inspection"}
    view = ENGINE.view(state, 0)
    assert view["learned"][1] is None
    assert not [e for e in view["log"] if e["event"] == "inspect_result"]
    assert view["log"][-2] == {"event": "jammed", "seat": 0, "target": 1}
    assert state["turn"] == 1


def test_inspection_shows_the_identity_to_the_inspector_only():
    state = new_game()
    card = give(state, 0, "inspection")
    state = ENGINE.apply(at_act(state), 0, {"type": "inspect", "card": card["id"], "target": 3})
    identity = state["players"][3]["identity"]
    assert ENGINE.view(state, 0)["learned"][3] == identity
    assert ENGINE.view(state, 1)["learned"][3] is None
    for seat in (None, 1, 2, 3):
        assert not [e for e in ENGINE.view(state, seat)["log"] if e["event"] == "inspect_result"]
    assert {"event": "inspect", "seat": 0, "target": 3} in ENGINE.view(state, None)["log"]


def test_equipping_forbids_shooting_and_inspecting_this_turn():
    state = new_game()
    give(state, 0, "magnum_44", "in_play")
    give(state, 0, "inspection")
    vest = give(state, 0, "vest")
    jammer = give(state, 0, "jammer")
    state = ENGINE.apply(at_act(state), 0, {"type": "equip", "card": vest["id"]})
    legal = ENGINE.legal_actions(state, 0)
    assert {a["type"] for a in legal} == {"equip", "end_turn"}
    state = ENGINE.apply(state, 0, {"type": "equip", "card": jammer["id"]})
    assert {c["kind"] for c in state["players"][0]["in_play"]} == {"magnum_44", "vest", "jammer"}
    state = ENGINE.apply(state, 0, {"type": "end_turn"})
    assert state["turn"] == 1 and state["phase"] == "draw"


def test_the_draw_comes_first_and_is_mandatory():
    state = new_game()
    assert {a["type"] for a in ENGINE.legal_actions(state, 0)} == {"draw"}
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 0, {"type": "end_turn"})
    assert ENGINE.legal_actions(state, 1) == []


def test_market_draw_refills_the_slot_from_the_deck():
    state = new_game()
    taken = state["market"][2]
    top = state["deck"][0]
    state = ENGINE.apply(state, 0, {"type": "draw", "from": "market", "index": 2})
    assert taken in state["players"][0]["hand"]
    assert state["market"][2] == top
    assert len(state["deck"]) == 39


def test_deck_reshuffles_from_discards():
    state = new_game()
    state["discard"] = state["deck"][:5]
    state["deck"] = []
    total = total_cards(state)
    state = ENGINE.apply(state, 0, {"type": "draw", "from": "deck"})
    assert len(state["deck"]) == 4 and state["discard"] == []
    assert total_cards(state) == total
    assert {"event": "reshuffle", "cards": 5} in state["log"]


def test_market_refill_reshuffles_from_discards_too():
    state = new_game()
    state["discard"] = state["deck"][:3]
    state["deck"] = []
    state = ENGINE.apply(state, 0, {"type": "draw", "from": "market", "index": 0})
    assert state["market"][0] is not None and len(state["deck"]) == 2


def test_draw_is_skipped_when_deck_discard_and_market_are_empty():
    state = at_act(new_game())
    state["deck"], state["discard"], state["market"] = [], [], [None] * 4
    state = ENGINE.apply(state, 0, {"type": "end_turn"})
    assert state["phase"] == "act" and state["turn"] == 1
    assert {"event": "no_draw", "seat": 1} in state["log"]


def test_market_only_draw_when_deck_and_discard_are_empty():
    state = new_game()
    state["deck"], state["discard"] = [], []
    state["market"][1] = state["market"][3] = None
    legal = ENGINE.legal_actions(state, 0)
    assert legal == [{"type": "draw", "from": "market", "index": 0},
                     {"type": "draw", "from": "market", "index": 2}]
    state = ENGINE.apply(state, 0, legal[0])
    assert state["market"][0] is None


def test_flawless_shot_kill_changes_the_shooters_identity():
    state = new_game(5)
    set_identities(state, ["bad", "good", "good", "good", "bad"])
    state["identity_pile"] = ["good", "bad", "good"]
    gun = give(state, 0, "revolver_38", "in_play")
    give(state, 0, "flawless_shot", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    shooter = state["players"][0]
    assert not state["players"][1]["alive"]
    assert shooter["identity"] == "good" and shooter["previous"] == "bad"
    assert state["identity_pile"] == ["bad", "good", "bad"], "the old identity goes under the pile"
    assert [c["kind"] for c in shooter["in_play"]] == ["revolver_38"], "the Flawless Shot is spent"
    mine = ENGINE.view(state, 0)
    assert mine["identity"] == "good" and mine["identity_was"] == "bad"
    assert {"event": "new_identity", "seat": 0, "identity": "good", "old": "bad",
            "private": True, "to": 0} in mine["log"]
    for seat in (None, 2, 3, 4):
        view = ENGINE.view(state, seat)
        assert not [e for e in view["log"] if e["event"] == "new_identity"]
        assert {"event": "flawless_shot", "seat": 0} in view["log"]
    # Teams follow the current identity: with seat 0 now Good, Bad still lives (seat 4).
    assert ENGINE.outcome(state) is None


def test_no_identity_change_without_a_flawless_shot_card():
    state = new_game(5)
    set_identities(state, ["bad", "good", "good", "good", "bad"])
    gun = give(state, 0, "revolver_38", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    assert state["players"][0]["identity"] == "bad" and state["players"][0]["previous"] is None


def test_flawless_shot_does_not_fire_on_killing_a_bad_player():
    state = new_game(5)
    set_identities(state, ["good", "bad", "good", "good", "bad"])
    gun = give(state, 0, "revolver_38", "in_play")
    give(state, 0, "flawless_shot", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    assert state["players"][0]["identity"] == "good"
    assert len(state["players"][0]["in_play"]) == 2


def test_flawless_shot_always_option_needs_no_card():
    state = new_game(5, flawless_shot_always=True)
    set_identities(state, ["good", "good", "bad", "good", "bad"])
    state["identity_pile"] = ["bad", "good", "good"]
    gun = give(state, 0, "revolver_38", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    assert state["players"][0]["identity"] == "bad"


def test_flawless_shot_can_turn_the_last_bad_into_good_and_end_the_game():
    state = new_game(4)
    set_identities(state, ["bad", "good", "good", "bad"])
    state["players"][3]["alive"], state["players"][3]["health"] = False, 0
    state["identity_pile"] = ["good"] * 12
    gun = give(state, 0, "revolver_38", "in_play")
    give(state, 0, "flawless_shot", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    outcome = ENGINE.outcome(state)
    assert outcome["reason"] == "good_wins"
    assert outcome["winners"] == [0, 1, 2], "seat 0 now Good; seat 1 died Good"


def test_bonus_draw_goes_secretly_to_the_dead_players_side():
    state = new_game(6)
    set_identities(state, ["good", "bad", "good", "bad", "good", "bad"])
    gun = give(state, 0, "magnum_44", "in_play")
    state["players"][1]["health"] = 3
    state = at_act(state)
    before = [len(p["hand"]) for p in state["players"]]
    state = shoot(state, 0, gun, 1)
    after = [len(p["hand"]) for p in state["players"]]
    assert [a - b for a, b in zip(after, before, strict=True)] == [0, 0, 0, 1, 0, 1]
    assert {"event": "bonus", "identity": "bad"} in state["log"]
    board = ENGINE.view(state, None)
    assert not [e for e in board["log"] if e["event"] == "bonus_card"]
    assert board["hand"] == []
    own = [e for e in ENGINE.view(state, 3)["log"] if e["event"] == "bonus_card"]
    assert len(own) == 1 and own[0]["seat"] == 3 and own[0]["to"] == 3
    assert not [e for e in ENGINE.view(state, 5)["log"] if e["event"] == "bonus_card"
                and e["seat"] == 3]


def test_eliminated_identity_is_revealed_and_turns_skip_the_dead():
    state = new_game(4)
    set_identities(state, ["good", "good", "bad", "bad"])
    gun = give(state, 0, "magnum_44", "in_play")
    vest = give(state, 1, "vest", "in_play")
    state["players"][1]["health"] = 2
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.view(state, None)["revealed"] == [None, "good", None, None]
    assert vest in state["discard"], "the dead player's equipment is discarded"
    assert state["turn"] == 2
    state = ENGINE.apply(at_act(state), 2, {"type": "end_turn"})
    state = ENGINE.apply(at_act(state), 3, {"type": "end_turn"})
    assert state["turn"] == 0
    assert all(a["target"] != 1 for a in ENGINE.legal_actions(at_act(state), 0) if "target" in a)


def test_good_wins_when_the_last_bad_falls():
    state = new_game(4)
    set_identities(state, ["good", "bad", "good", "bad"])
    state["players"][3]["alive"], state["players"][3]["health"] = False, 0
    state["players"][2]["alive"], state["players"][2]["health"] = False, 0
    gun = give(state, 0, "revolver_38", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    outcome = ENGINE.outcome(state)
    assert outcome["winners"] == [0, 2] and outcome["reason"] == "good_wins"
    assert outcome["teams"] == {"good": [0, 2], "bad": [1, 3]}
    assert ENGINE.legal_actions(state, 0) == [] and ENGINE.awaiting(state) == set()
    assert ENGINE.view(state, None)["reveal"]["identities"] == ["good", "bad", "good", "bad"]


def test_bad_wins_when_the_last_good_falls():
    state = new_game(4)
    set_identities(state, ["bad", "good", "bad", "good"])
    state["players"][3]["alive"], state["players"][3]["health"] = False, 0
    gun = give(state, 0, "magnum_357", "in_play")
    state["players"][1]["health"] = 2
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.outcome(state)["winners"] == [0, 2]


def test_two_players_each_keep_one_of_two_identities():
    state = new_game(2)
    assert state["phase"] == "keep_identity"
    assert ENGINE.awaiting(state) == {0, 1}
    choices = [list(p["choices"]) for p in state["players"]]
    assert ENGINE.view(state, 0)["identity_choices"] == choices[0]
    assert ENGINE.view(state, 1)["identity_choices"] == choices[1]
    assert ENGINE.view(state, None)["identity_choices"] is None
    state = ENGINE.apply(state, 1, {"type": "keep_identity", "index": 1})
    assert ENGINE.awaiting(state) == {0}
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 1, {"type": "keep_identity", "index": 0})
    state = ENGINE.apply(state, 0, {"type": "keep_identity", "index": 0})
    assert state["players"][0]["identity"] == choices[0][0]
    assert state["players"][1]["identity"] == choices[1][1]
    assert len(state["identity_pile"]) == 14
    assert state["phase"] == "draw" and state["turn"] == 0


def test_two_players_the_survivor_wins():
    state = new_game(2)
    state = ENGINE.apply(state, 0, {"type": "keep_identity", "index": 0})
    state = ENGINE.apply(state, 1, {"type": "keep_identity", "index": 0})
    set_identities(state, ["good", "good"])
    gun = give(state, 0, "magnum_44", "in_play")
    state["players"][1]["health"] = 3
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.outcome(state)["winners"] == [0]
    assert ENGINE.outcome(state)["reason"] == "last_standing"


def test_three_player_wanted_deal():
    for seed in range(5):
        state = new_game(3, seed=seed)
        assert sorted(p["identity"] for p in state["players"]) == ["bad", "good", "wanted"]
        assert sorted(state["identity_pile"]) == ["bad"] * 7 + ["good"] * 7


def test_three_player_wanted_goes_on_when_wanted_falls():
    state = new_game(3)
    set_identities(state, ["good", "wanted", "bad"])
    gun = give(state, 0, "magnum_44", "in_play")
    state["players"][1]["health"] = 3
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.outcome(state) is None and state["turn"] == 2


def test_three_player_wanted_good_falls_bad_and_living_wanted_win():
    state = new_game(3)
    set_identities(state, ["bad", "good", "wanted"])
    gun = give(state, 0, "magnum_44", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.outcome(state)["winners"] == [0, 2]


def test_three_player_wanted_dead_wanted_does_not_win():
    state = new_game(3)
    set_identities(state, ["good", "bad", "wanted"])
    state["players"][2]["alive"], state["players"][2]["health"] = False, 0
    gun = give(state, 0, "magnum_44", "in_play")
    state["players"][1]["health"] = 1
    state = shoot(at_act(state), 0, gun, 1)
    assert ENGINE.outcome(state)["winners"] == [0]


def test_deck_option_counts_are_checked():
    deck = dict(ENGINE.default_options()["deck"])
    no_guns = {**deck, "revolver_38": 0, "magnum_357": 0, "magnum_44": 0}
    with pytest.raises(OptionError):
        ENGINE.validate_options({"deck": no_guns}, 4)
    with pytest.raises(OptionError):
        ENGINE.validate_options({"deck": {**deck, "vest": 21}}, 4)
    with pytest.raises(OptionError):
        ENGINE.validate_options({"deck": {**deck, "vest": -1}}, 4)
    small = dict.fromkeys(deck, 0)
    small["magnum_44"] = 2
    state = new_game(4, deck=small)
    assert total_cards(state) == 2 and state["market"][2:] == [None, None]
    assert sum(deck.values()) == 44


def test_first_player_option_and_random_first_player():
    assert new_game(5, first_player=3)["turn"] == 3
    opts = ENGINE.default_options()
    firsts = {ENGINE.setup(5, opts, seed)["turn"] for seed in range(20)}
    assert len(firsts) > 1


def test_views_never_show_other_hands_or_hand_sizes():
    state = at_act(new_game(5))
    board = ENGINE.view(state, None)
    assert board["hand"] == [] and board["identity"] is None
    other = ENGINE.view(state, 1)
    assert other["hand"] == [{"id": c["id"], "kind": c["kind"]} for c in state["players"][1]["hand"]]
    assert not [e for e in other["log"] if e["event"] == "drew"]
    assert [e for e in ENGINE.view(state, 0)["log"] if e["event"] == "drew"]
