"""Scenario tests for every equipment card, its timing, and the hand and deck rules."""

from __future__ import annotations

from engines.good_cop_bad_cop import ENGINE, rules, table
from tests.engines.good_cop_bad_cop.helpers import A, C, H, K, expire, five, make, phase, play


def holding(seat, card, n=5):
    """Hands where only ``seat`` holds ``card``."""
    return [[card] if s == seat else [] for s in range(n)]


def plays_of(state, seat, card):
    """The legal plays of ``card`` for ``seat`` now."""
    return [a for a in ENGINE.legal_actions(state, seat) if a.get("card") == card and a["type"] == "play"]


def to_end_window(state, seat=0):
    """From the action phase: equip, keep, reveal -> the end window (after End turn where the aim step still
    asks: a gun aimed with other players to aim at, or any turn under rules version 1)."""
    state = play(state, seat, {"type": "equip"})
    state = play(state, seat, ENGINE.legal_actions(state, seat)[0])
    state = play(state, seat, ENGINE.legal_actions(state, seat)[0])
    gun = state["players"][seat]["gun"]
    assert (phase(state) == "aim") == (gun or table.rules_version(state) == 1)
    if phase(state) == "aim":
        state = play(state, seat, {"type": "end_turn"})
    assert ENGINE.view(state, None)["pending"]["when"] == "end"
    return state


def test_used_card_goes_to_the_bottom_and_uses_no_action():
    state = five(hands=holding(0, "smoke_grenade"), deck=["coffee"])
    state = play(state, 0, {"type": "play", "card": "smoke_grenade"})
    assert state["deck"] == ["coffee", "smoke_grenade"] and phase(state) == "action"


def test_blackmail_swaps_two_cards_of_two_other_players_unseen():
    state = five(hands=holding(0, "blackmail"))
    moves = plays_of(state, 0, "blackmail")
    assert all(p // 3 != q // 3 and 0 not in (p // 3, q // 3) for p, q in (m["cards"] for m in moves))
    state = play(state, 0, {"type": "play", "card": "blackmail", "cards": [6, 9]})
    assert state["players"][2]["cards"] == [C, H, C] and state["players"][3]["cards"] == [H, C, H]
    assert rules.teams(state)[2] == C and rules.teams(state)[3] == H
    assert "crooked" not in str(ENGINE.view(state, 0)["log"][-1])


def test_blackmail_making_one_player_hold_both_leaders_wins_with_the_crooked_team():
    state = five(hands=holding(2, "blackmail"), turn=2)
    state = play(state, 2, {"type": "play", "card": "blackmail", "cards": [0, 4]})
    outcome = ENGINE.outcome(state)
    assert outcome["reason"] == "both_leaders" and outcome["seat"] == 1
    # Seat 0 lost the Agent and now holds two Crooked cards.
    assert outcome["winners"] == [0, 1, 3]
    assert ENGINE.awaiting(state) == set()


def test_coffee_takes_the_next_turn_and_play_continues_from_there():
    state = five(hands=holding(3, "coffee"))
    state = to_end_window(state, 0)
    state = play(state, 3, {"type": "play", "card": "coffee"})
    assert phase(state) == "respond" and ENGINE.view(state, None)["coffee"] == 3
    state = ENGINE.on_timeout(state)
    assert state["turn"] == 3 and state["coffee"] is None
    state = ENGINE.on_timeout(to_end_window(state, 3))
    assert state["turn"] == 4


def test_smoke_grenade_reverses_turn_order_from_the_end_of_the_turn():
    state = five(hands=holding(0, "smoke_grenade"), turn=2)
    state = to_end_window(state, 2)
    state = play(state, 0, {"type": "play", "card": "smoke_grenade"})
    assert ENGINE.view(state, None)["direction"] == -1
    state = ENGINE.on_timeout(state)
    assert state["turn"] == 1
    state = ENGINE.on_timeout(to_end_window(state, 1))
    assert state["turn"] == 0


def test_defibrillator_revives_with_the_kept_card_setting_the_team():
    state = five(hands=holding(0, "defibrillator"))
    state["players"][2].update(alive=False, up=[True, True, True])
    assert not plays_of(state, 2, "defibrillator")
    moves = plays_of(state, 0, "defibrillator")
    assert moves == [{"type": "play", "card": "defibrillator", "target": 2, "keep": i} for i in range(3)]
    state = play(state, 0, {"type": "play", "card": "defibrillator", "target": 2, "keep": 2})
    p2 = state["players"][2]
    assert p2["alive"] and p2["cards"] == [C] and p2["up"] == [True]
    assert rules.teams(state)[2] == C and state["removed"] == [H, H]
    assert ENGINE.view(state, None)["removed"] == [H, H]


def test_defibrillator_is_only_in_the_deck_from_five_players():
    state = make(4, seed=3)
    assert "defibrillator" not in state["deck"] + [c for p in state["players"] for c in p["hand"]]


def test_evidence_bag_takes_an_equipment_card_from_a_player():
    state = five(hands=[["evidence_bag"], [], ["taser"], [], []])
    state = play(state, 0, {"type": "play", "card": "evidence_bag", "target": 2})
    assert state["players"][0]["hand"] == ["taser"] and state["players"][2]["hand"] == []
    assert "taser" not in str(ENGINE.view(state, None)) and "taser" in str(ENGINE.view(state, 0)["log"])


def test_flashbang_reorders_own_cards_face_down():
    state = five(hands=holding(0, "flashbang"))
    state["players"][0]["up"] = [True, False, True]
    state = play(state, 0, {"type": "play", "card": "flashbang", "order": [2, 0, 1]})
    assert state["players"][0]["cards"] == [C, A, H] and state["players"][0]["up"] == [False] * 3
    assert "order" not in ENGINE.view(state, None)["log"][-1]


def test_k9_unit_returns_a_gun_and_forbids_arming_this_turn():
    state = five(hands=holding(3, "k9_unit"), guns={0: 1})
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 0})
    state = play(state, 3, {"type": "play", "card": "k9_unit", "target": 0})
    assert not state["players"][0]["gun"] and state["guns_left"] == 3 and state["no_arm"] == 0


def test_k9_unit_answering_a_shoot_leaves_the_shooter_to_choose_again_without_arming():
    state = five(hands=holding(3, "k9_unit"), guns={0: 1})
    state = play(state, 0, {"type": "shoot"})
    state = play(state, 3, {"type": "play", "card": "k9_unit", "target": 0})
    assert phase(state) == "action" and state["turn"] == 0
    legal = ENGINE.legal_actions(state, 0)
    assert {"type": "shoot"} not in legal and {"type": "arm"} not in legal and {"type": "equip"} in legal
    assert state["players"][1]["alive"] and not state["players"][1]["wounded"]


def test_card_answering_a_shoot_lets_the_shooter_still_shoot():
    state = five(hands=holding(4, "smoke_grenade"), guns={0: 3})
    state = play(state, 0, {"type": "shoot"})
    state = play(state, 4, {"type": "play", "card": "smoke_grenade"})
    assert phase(state) == "action" and {"type": "shoot"} in ENGINE.legal_actions(state, 0)
    state = expire(play(state, 0, {"type": "shoot"}))
    assert not state["players"][3]["alive"]


def test_metal_detector_investigates_one_card_of_every_gun_holder():
    state = five(hands=holding(0, "metal_detector"), guns={1: 2, 3: 4, 0: 1})
    moves = plays_of(state, 0, "metal_detector")
    assert len(moves) == 9 and all(m["cards"][0] // 3 == 1 and m["cards"][1] // 3 == 3 for m in moves)
    state = play(state, 0, {"type": "play", "card": "metal_detector", "cards": [3, 11]})
    learned = ENGINE.view(state, 0)["learned"]
    assert [(e["target"], e["card"], e["name"]) for e in learned] == [(1, 0, K), (3, 2, H)]
    assert K not in str(ENGINE.view(state, None))


def test_metal_detector_not_playable_without_other_gun_holders():
    assert not plays_of(five(hands=holding(0, "metal_detector"), guns={0: 1}), 0, "metal_detector")


def test_planted_evidence_flips_a_players_team_but_not_a_leader():
    state = five(hands=holding(0, "planted_evidence"), deck=[])
    state = play(state, 0, {"type": "play", "card": "planted_evidence", "target": 2})
    assert rules.teams(state)[2] == C and state["planted"] == 2
    assert "planted_evidence" not in state["deck"]
    assert ENGINE.view(state, 2)["team"] == C and ENGINE.view(state, None)["planted"] == 2
    state = five(hands=holding(0, "planted_evidence"))
    state = play(state, 0, {"type": "play", "card": "planted_evidence", "target": 1})
    assert rules.teams(state)[1] == C


def test_polygraph_shows_both_players_each_others_cards():
    state = five(hands=holding(0, "polygraph"))
    state = play(state, 0, {"type": "play", "card": "polygraph", "target": 3})
    assert [e["name"] for e in ENGINE.view(state, 0)["learned"]] == [C, C, H]
    assert [e["name"] for e in ENGINE.view(state, 3)["learned"]] == [A, H, C]
    assert ENGINE.view(state, 2)["learned"] == [] and A not in str(ENGINE.view(state, None))


def test_report_audit_on_own_turn_makes_every_player_without_a_face_up_card_reveal_one():
    state = make(6, cards=[[A, H, C], [K, C, H], [H, H, C], [C, C, H], [H, C, H], [C, H, C]],
                 hands=[["report_audit"], [], [], [], [], []])
    state["players"][2]["up"] = [True, False, False]
    state = play(state, 0, {"type": "play", "card": "report_audit"})
    assert phase(state) == "audit" and ENGINE.awaiting(state) == {0, 1, 3, 4, 5}
    state = play(state, 1, {"type": "reveal", "card": 1})
    state = ENGINE.on_timeout(state)
    assert [p["up"].count(True) for p in state["players"]] == [1] * 6
    assert phase(state) == "action"


def test_report_audit_not_in_windows():
    state = make(6, cards=None, hands=[[], ["report_audit"], [], [], [], []])
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 0})
    assert not plays_of(state, 1, "report_audit")
    state = expire(state)
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and not plays_of(state, 1, "report_audit")


def test_report_audit_in_the_end_window_of_its_holders_own_turn_where_no_aim_step_came():
    hands = [["report_audit"], [], [], [], [], []]
    # Rules version 1 keeps the aim step (where the holder could play it after its action), and the
    # card out of every window.
    assert not plays_of(to_end_window(make(6, hands=hands, deck=["coffee"], version=1), 0), 0, "report_audit")
    # Version 2 skips that step for a seat with no gun; the end window that follows is still its turn.
    state = to_end_window(make(6, hands=hands, deck=["coffee"]), 0)
    assert plays_of(state, 0, "report_audit") == [{"type": "play", "card": "report_audit"}]
    state = play(state, 0, {"type": "play", "card": "report_audit"})
    assert phase(state) == "audit" and ENGINE.awaiting(state) == {1, 2, 3, 4, 5}
    state = ENGINE.on_timeout(state)
    # Every answer in, the end window opens again with a fresh countdown.
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and ENGINE.countdown(state) == 4


def test_restraining_order_redirects_the_shot():
    state = five(hands=holding(2, "restraining_order"), guns={0: 1})
    assert not plays_of(state, 2, "restraining_order")
    state = play(state, 0, {"type": "shoot"})
    state = play(state, 2, {"type": "play", "card": "restraining_order"})
    assert phase(state) == "redirect" and ENGINE.awaiting(state) == {0}
    assert ENGINE.legal_actions(state, 0) == [{"type": "aim", "target": t} for t in (2, 3, 4)]
    state = play(state, 0, {"type": "aim", "target": 3})
    assert not state["players"][3]["alive"] and state["players"][1]["alive"]
    # The shot spent the gun: no aim step is left to ask, the end window opens.
    assert not state["players"][1]["wounded"] and ENGINE.view(state, None)["pending"]["when"] == "end"


def test_restraining_order_not_for_the_shooter_nor_with_two_players_alive():
    state = five(hands=holding(0, "restraining_order"), guns={0: 1})
    state = play(state, 0, {"type": "shoot"})
    assert not plays_of(state, 0, "restraining_order")
    state = five(hands=holding(1, "restraining_order"), guns={0: 1})
    for s in (2, 3, 4):
        state["players"][s]["alive"] = False
    state = play(state, 0, {"type": "shoot"})
    assert not plays_of(state, 1, "restraining_order")


def test_surveillance_camera_after_an_investigate_turns_that_card_face_up():
    state = five(hands=holding(4, "surveillance_camera"))
    assert not plays_of(state, 4, "surveillance_camera")
    state = play(state, 0, {"type": "investigate", "target": 1, "card": 0})
    state = play(state, 4, {"type": "play", "card": "surveillance_camera"})
    assert state["players"][1]["up"] == [True, False, False]
    assert ENGINE.view(state, None)["cards"][1][0] == {"name": K, "face_up": True}
    # The window opens again (a new id, a fresh countdown) for further cards; nobody is awaited.
    assert phase(state) == "respond" and ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == 4


def test_surveillance_camera_not_in_the_end_window():
    state = five(hands=holding(4, "surveillance_camera"))
    assert not plays_of(to_end_window(state), 4, "surveillance_camera")


def test_taser_takes_a_gun_as_the_action_and_must_aim_it():
    state = five(hands=holding(0, "taser"), guns={2: 1})
    state = play(state, 0, {"type": "play", "card": "taser", "target": 2})
    assert state["players"][0]["gun"] and not state["players"][2]["gun"]
    assert phase(state) == "aim" and {"type": "end_turn"} not in ENGINE.legal_actions(state, 0)
    state = play(state, 0, {"type": "aim", "target": 1})
    assert ENGINE.view(state, None)["guns"][0] == 1


def test_taser_only_on_own_turn_before_acting():
    state = five(hands=holding(3, "taser"), guns={2: 1})
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 0})
    assert not plays_of(state, 3, "taser")
    state = five(hands=holding(0, "taser"), guns={2: 1})
    state = expire(play(state, 0, {"type": "investigate", "target": 2, "card": 0}))
    assert not plays_of(state, 0, "taser")


def test_truth_serum_makes_the_target_reveal_a_card_of_their_choice():
    state = five(hands=holding(0, "truth_serum"))
    state = to_end_window(state, 0)
    state = play(state, 0, {"type": "play", "card": "truth_serum", "target": 3})
    assert phase(state) == "reveal" and ENGINE.awaiting(state) == {3}
    state = play(state, 3, {"type": "reveal", "card": 2})
    assert state["players"][3]["up"] == [False, False, True]
    assert ENGINE.view(state, None)["pending"]["when"] == "end"


def test_wiretap_investigates_one_card_each_of_two_players():
    state = five(hands=holding(2, "wiretap"))
    state = to_end_window(state, 0)
    state = play(state, 2, {"type": "play", "card": "wiretap", "cards": [1, 4]})
    assert [(e["target"], e["card"]) for e in ENGINE.view(state, 2)["learned"]] == [(0, 1), (1, 1)]


def test_bribe_investigates_and_may_swap():
    state = five(hands=holding(0, "bribe"), bribe=True)
    state = play(state, 0, {"type": "play", "card": "bribe", "target": 1, "index": 0})
    assert phase(state) == "bribe" and ENGINE.view(state, 0)["learned"][0]["name"] == K
    state = play(state, 0, {"type": "swap", "card": 1})
    assert state["players"][0]["cards"] == [A, K, C] and state["players"][1]["cards"] == [H, C, H]
    assert ENGINE.outcome(state)["reason"] == "both_leaders"


def test_bribe_may_decline_the_swap():
    state = five(hands=holding(0, "bribe"), bribe=True)
    state = play(state, 0, {"type": "play", "card": "bribe", "target": 3, "index": 0})
    state = play(state, 0, {"type": "swap", "card": None})
    assert state["players"][0]["cards"] == [A, H, C] and phase(state) == "action"


def test_nobody_may_play_while_a_hand_limit_choice_is_pending():
    state = five(hands=[["wiretap"], ["coffee"], [], [], []], deck=["taser"])
    state = play(state, 0, {"type": "equip"})
    assert ENGINE.legal_actions(state, 1) == []
    assert all(a["type"] == "keep" for a in ENGINE.legal_actions(state, 0))


def test_silent_windows_look_the_same_whoever_holds_a_playable_card():
    # Who holds a card that fits the window (or any card at all) changes nothing on the board
    # or on the phone of anyone who holds none: no Pass prompt, nobody awaited, one countdown.
    holdings = [
        [[], [], [], [], []],
        [[], [], [], ["coffee"], []],
        [[], [], ["restraining_order"], [], []],
        [[], ["surveillance_camera"], [], [], ["k9_unit"]],
        [[], ["smoke_grenade"], ["truth_serum"], ["wiretap"], ["polygraph"]],
    ]
    openers = {
        "investigate": lambda s: play(s, 0, {"type": "investigate", "target": 1, "card": 0}),
        "shoot": lambda s: play(s, 0, {"type": "shoot"}),
        "end": lambda s: to_end_window(s, 0),
    }
    for when, opener in openers.items():
        states = [opener(five(hands=hands, guns={0: 3}, deck=["taser", "coffee"])) for hands in holdings]
        for state in states:
            assert ENGINE.view(state, None)["pending"]["when"] == when
            assert ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == 4
            assert ENGINE.view(state, None)["silent"] is True
            assert not any(a["type"] == "pass" for s in range(5) for a in ENGINE.legal_actions(state, s))
        for seat in (None, 0, 1, 2, 3, 4):
            # Compare the variants where this seat holds nothing (the board always).
            empty = [st for st, hands in zip(states, holdings, strict=True)
                     if seat is None or not hands[seat]]
            views = [ENGINE.view(st, seat) for st in empty]
            assert all(v == views[0] for v in views), (when, seat)
            assert len({ENGINE.window(st) for st in empty}) == 1
            # And when the countdown ends unanswered, the table goes on the same way.
            after = [ENGINE.view(ENGINE.on_timeout(st), seat) for st in empty]
            assert all(v == after[0] for v in after), (when, seat)


def test_windows_never_reveal_who_holds_equipment():
    with_card = five(hands=holding(3, "coffee"))
    without = five(hands=[[] for _ in range(5)])
    a = play(with_card, 0, {"type": "investigate", "target": 2, "card": 0})
    b = play(without, 0, {"type": "investigate", "target": 2, "card": 0})
    for seat in (None, 0, 1, 2, 4):
        va, vb = ENGINE.view(a, seat), ENGINE.view(b, seat)
        assert va == vb
    assert ENGINE.awaiting(a) == ENGINE.awaiting(b)
