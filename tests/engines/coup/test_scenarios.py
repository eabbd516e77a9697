"""One scenario per rule and edge case of the Coup rules page (shared/rules/coup.md)."""

from __future__ import annotations

import pytest

from engines.base import IllegalAction, OptionError
from engines.coup import ENGINE

from .helpers import allow_all, card_total, coins, events, hand, lost, play, table

INCOME = {"type": "income"}
TAX = {"type": "tax"}
ALLOW = {"type": "allow"}
CHALLENGE = {"type": "challenge"}


def block(card):
    return {"type": "block", "as": card}


def reveal(card):
    return {"type": "reveal", "card": card}


def lose(card):
    return {"type": "lose", "card": card}


# ------------------------------------------------------------------ setup


def test_setup_deals_two_cards_and_two_coins_each():
    state = ENGINE.setup(4, ENGINE.default_options(), 3)
    assert all(len(p["hand"]) == 2 for p in state["players"])
    assert coins(state) == [2, 2, 2, 2]
    assert len(state["deck"]) == 15 - 8


def test_two_player_game_gives_one_coin_each_by_default():
    state = ENGINE.setup(2, ENGINE.default_options(), 3)
    assert coins(state) == [1, 1]


def test_two_player_published_start_gives_starter_one_and_other_two():
    state = ENGINE.setup(2, dict(ENGINE.default_options(), two_player_start="published",
                                 first_player=1), 3)
    assert coins(state) == [2, 1]
    assert state["turn"] == 1


@pytest.mark.parametrize("players,copies", [(6, 3), (7, 4), (8, 4), (9, 5), (10, 5)])
def test_larger_tables_use_a_larger_court(players, copies):
    state = ENGINE.setup(players, ENGINE.default_options(), 3)
    assert len(card_total(state)) == 5 * copies


def test_inquisitor_replaces_the_ambassadors():
    state = ENGINE.setup(3, dict(ENGINE.default_options(), inquisitor=True), 3)
    cards = card_total(state)
    assert cards.count("inquisitor") == 3 and "ambassador" not in cards


def test_first_player_is_random_from_the_seed_or_chosen():
    firsts = {ENGINE.setup(5, ENGINE.default_options(), s)["turn"] for s in range(30)}
    assert len(firsts) > 1
    assert ENGINE.setup(5, dict(ENGINE.default_options(), first_player=3), 9)["turn"] == 3


def test_bad_options_are_refused():
    with pytest.raises(OptionError):
        ENGINE.validate_options({"rounds_to_win": 0}, 3)
    with pytest.raises(OptionError):
        ENGINE.validate_options({"two_player_start": "other"}, 2)
    with pytest.raises(OptionError):
        ENGINE.setup(1, ENGINE.default_options(), 1)


# ------------------------------------------------------------------ general actions


def test_income_takes_one_coin_without_any_window():
    state = table([["duke", "captain"], ["contessa", "assassin"]], coins=[2, 2])
    state = play(state, (0, INCOME))
    assert coins(state) == [3, 2] and state["turn"] == 1 and ENGINE.window(state) is None


def test_foreign_aid_unblocked_takes_two():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "duke"]])
    state = play(state, (0, {"type": "foreign_aid"}))
    assert state["phase"] == "block" and ENGINE.awaiting(state) == {1, 2}
    state = allow_all(state)
    assert coins(state)[0] == 4 and state["turn"] == 1


def test_foreign_aid_blocked_by_a_non_target_duke():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "duke"]])
    state = play(state, (0, {"type": "foreign_aid"}), (2, block("duke")))
    assert state["phase"] == "block_challenge"
    assert ENGINE.awaiting(state) == {0, 1}
    state = allow_all(state)
    assert coins(state)[0] == 2 and "blocked" in events(state) and state["turn"] == 1


def test_bluffed_duke_block_challenged_lets_foreign_aid_through():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "duke"]])
    state = play(state, (0, {"type": "foreign_aid"}), (1, block("duke")), (0, CHALLENGE))
    assert state["phase"] == "reveal" and ENGINE.awaiting(state) == {1}
    state = play(state, (1, reveal("contessa")))
    assert lost(state, 1) == ["contessa"] and coins(state)[0] == 4 and state["turn"] == 1


def test_first_block_wins_the_race_and_later_answers_are_void():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "duke"]])
    state = play(state, (0, {"type": "foreign_aid"}), (2, block("duke")))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 2, block("duke"))
    assert state["pending"]["block"] == {"seat": 2, "as": "duke"}


def test_coup_costs_seven_and_target_chooses_the_card_to_lose():
    state = table([["duke", "captain"], ["contessa", "assassin"]], coins=[8, 2])
    state = play(state, (0, {"type": "coup", "target": 1}))
    assert coins(state)[0] == 1 and state["phase"] == "lose" and ENGINE.window(state) is None
    assert ENGINE.legal_actions(state, 1) == [lose("assassin"), lose("contessa")]
    state = play(state, (1, lose("assassin")))
    assert lost(state, 1) == ["assassin"] and hand(state, 1) == ["contessa"]


def test_coup_needs_seven_coins():
    state = table([["duke", "captain"], ["contessa", "assassin"]], coins=[6, 2])
    assert not [a for a in ENGINE.legal_actions(state, 0) if a["type"] == "coup"]


def test_ten_coins_force_a_coup():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["duke", "captain"]],
                  coins=[10, 2, 2])
    assert ENGINE.legal_actions(state, 0) == [{"type": "coup", "target": 1},
                                              {"type": "coup", "target": 2}]
    assert ENGINE.view(state, 0)["must_coup"] is True


def test_targets_are_other_living_players():
    state = table([["duke", "captain"], ["contessa"], ["duke"]], lost={1: ["assassin"], 2: ["captain"]},
                  coins=[3, 2, 2])
    state["players"][2]["lost"].append(state["players"][2]["hand"].pop())
    targets = {a.get("target") for a in ENGINE.legal_actions(state, 0) if "target" in a}
    assert targets == {1}


# ------------------------------------------------------------------ challenges


def test_unchallenged_tax_takes_three():
    state = table([["duke", "captain"], ["contessa", "assassin"]])
    state = play(state, (0, TAX))
    assert state["phase"] == "challenge" and ENGINE.awaiting(state) == {1}
    state = allow_all(state)
    assert coins(state)[0] == 5


def test_failed_challenge_against_tax():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "ambassador"]])
    before = card_total(state)
    state = play(state, (0, TAX), (2, CHALLENGE))
    assert state["phase"] == "reveal" and ENGINE.legal_actions(state, 0) == [reveal("captain"),
                                                                              reveal("duke")]
    state = play(state, (0, reveal("duke")))
    # The Duke went into the court and a replacement was drawn: the challenger must now lose one.
    assert "replaced" in events(state) and len(hand(state, 0)) == 2
    assert state["phase"] == "lose" and ENGINE.awaiting(state) == {2}
    state = play(state, (2, lose("ambassador")))
    assert lost(state, 2) == ["ambassador"] and coins(state)[0] == 5 and state["turn"] == 1
    assert card_total(state) == before


def test_successful_challenge_against_tax_loses_the_revealed_card():
    state = table([["captain", "contessa"], ["contessa", "assassin"]])
    state = play(state, (0, TAX), (1, CHALLENGE), (0, reveal("captain")))
    assert lost(state, 0) == ["captain"] and coins(state)[0] == 2 and state["turn"] == 1


def test_challenged_player_picks_the_card_even_a_wrong_one():
    state = table([["duke", "contessa"], ["contessa", "assassin"]])
    state = play(state, (0, TAX), (1, CHALLENGE), (0, reveal("contessa")))
    assert lost(state, 0) == ["contessa"] and coins(state)[0] == 2


def test_challenger_knocked_out_by_a_failed_challenge():
    state = table([["duke", "captain"], ["contessa"], ["captain", "ambassador"]],
                  lost={1: ["assassin"]}, coins=[2, 4, 2])
    state = play(state, (0, TAX), (1, CHALLENGE), (0, reveal("duke")))
    assert lost(state, 1) == ["assassin", "contessa"] and not state["players"][1]["hand"]
    assert coins(state)[1] == 0 and "eliminated" in events(state)
    assert coins(state)[0] == 5 and state["turn"] == 2


def test_one_card_challenged_player_reveals_it_automatically():
    state = table([["captain"], ["contessa", "assassin"], ["duke", "duke"]], lost={0: ["ambassador"]})
    state = play(state, (0, TAX), (1, CHALLENGE))
    assert not state["players"][0]["hand"] and "eliminated" in events(state)


def test_last_challenger_standing_wins():
    state = table([["duke", "captain"], ["contessa"]], lost={1: ["assassin"]})
    state = play(state, (0, TAX), (1, CHALLENGE), (0, reveal("duke")))
    assert ENGINE.outcome(state)["winners"] == [0]
    assert ENGINE.outcome(state)["wins"] == [1, 0]


# ------------------------------------------------------------------ assassinate


def test_assassination_unanswered_costs_three_and_kills_an_influence():
    state = table([["assassin", "captain"], ["contessa", "duke"]], coins=[3, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}))
    assert coins(state)[0] == 0
    state = allow_all(state)
    assert state["phase"] == "block"
    state = allow_all(state)
    state = play(state, (1, lose("duke")))
    assert lost(state, 1) == ["duke"] and coins(state)[0] == 0


def test_assassin_coins_kept_when_blocked_by_contessa():
    state = table([["assassin", "captain"], ["contessa", "duke"]], coins=[4, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}))
    state = allow_all(state)
    state = play(state, (1, block("contessa")))
    state = allow_all(state)
    assert coins(state)[0] == 1 and lost(state, 1) == [] and "blocked" in events(state)


def test_assassin_coins_refunded_when_caught_bluffing():
    state = table([["duke", "captain"], ["contessa", "duke"]], coins=[4, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}), (1, CHALLENGE),
                 (0, reveal("captain")))
    assert coins(state)[0] == 4 and lost(state, 0) == ["captain"] and lost(state, 1) == []
    assert "refund" in events(state)


def test_assassin_coins_gone_when_real_contessa_block_is_challenged():
    state = table([["assassin", "captain"], ["contessa", "duke"]], coins=[3, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}))
    state = allow_all(state)
    state = play(state, (1, block("contessa")), (0, CHALLENGE), (1, reveal("contessa")))
    state = play(state, (0, lose("captain")))
    assert coins(state)[0] == 0 and lost(state, 0) == ["captain"] and lost(state, 1) == []


def test_bluffed_contessa_then_challenged_loses_two_influences():
    state = table([["assassin", "captain"], ["duke", "captain"], ["duke", "contessa"]], coins=[3, 2, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}))
    state = allow_all(state)
    state = play(state, (1, block("contessa")), (0, CHALLENGE), (1, reveal("duke")))
    # Second loss (the assassination) is automatic: one card was left.
    assert lost(state, 1) == ["duke", "captain"] and not state["players"][1]["hand"]
    assert state["turn"] == 2


def test_failed_challenge_of_an_assassin_then_the_assassination_itself():
    state = table([["assassin", "captain"], ["duke", "captain"], ["duke", "contessa"]], coins=[3, 2, 2])
    state = play(state, (0, {"type": "assassinate", "target": 1}), (1, CHALLENGE),
                 (0, reveal("assassin")), (1, lose("captain")))
    assert state["phase"] == "block" and ENGINE.awaiting(state) == {1}
    state = allow_all(state)
    assert not state["players"][1]["hand"] and lost(state, 1) == ["captain", "duke"]


def test_assassination_of_an_already_eliminated_target_is_void():
    state = table([["assassin", "captain"], ["duke"], ["duke", "contessa"]], coins=[3, 5, 2],
                  lost={1: ["captain"]})
    state = play(state, (0, {"type": "assassinate", "target": 1}), (1, CHALLENGE),
                 (0, reveal("assassin")))
    assert not state["players"][1]["hand"] and state["phase"] == "action" and state["turn"] == 2
    assert coins(state) == [0, 0, 2]


# ------------------------------------------------------------------ steal


@pytest.mark.parametrize("victim,taken", [(5, 2), (2, 2), (1, 1), (0, 0)])
def test_steal_takes_up_to_two(victim, taken):
    state = table([["captain", "duke"], ["contessa", "duke"]], coins=[2, victim])
    state = play(state, (0, {"type": "steal", "target": 1}))
    state = allow_all(state)
    state = allow_all(state)
    assert coins(state) == [2 + taken, victim - taken]


def test_steal_blocked_by_the_target_captain():
    state = table([["captain", "duke"], ["captain", "duke"]], coins=[2, 2])
    state = play(state, (0, {"type": "steal", "target": 1}))
    state = allow_all(state)
    assert ENGINE.legal_actions(state, 1) == [block("captain"), block("ambassador"), ALLOW]
    state = play(state, (1, block("ambassador")))
    state = allow_all(state)
    assert coins(state) == [2, 2]


def test_steal_is_not_blockable_by_a_non_target():
    state = table([["captain", "duke"], ["contessa", "duke"], ["captain", "ambassador"]])
    state = play(state, (0, {"type": "steal", "target": 1}))
    state = allow_all(state)
    assert state["phase"] == "block" and ENGINE.awaiting(state) == {1}
    assert ENGINE.legal_actions(state, 2) == []
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, 2, block("captain"))


def test_inquisitor_blocks_steal_in_its_variant():
    state = table([["captain", "duke"], ["inquisitor", "duke"]], inquisitor=True)
    state = play(state, (0, {"type": "steal", "target": 1}))
    state = allow_all(state)
    assert ENGINE.legal_actions(state, 1) == [block("captain"), block("inquisitor"), ALLOW]


# ------------------------------------------------------------------ exchange


def test_exchange_draws_two_and_returns_two():
    state = table([["ambassador", "duke"], ["contessa", "duke"]])
    total = card_total(state)
    state = play(state, (0, {"type": "exchange"}))
    state = allow_all(state)
    assert state["phase"] == "exchange" and ENGINE.window(state) is None
    view = ENGINE.view(state, 0)
    assert len(view["drawn"]) == 2 and ENGINE.view(state, 1)["drawn"] == []
    option = view["exchange_options"][0]
    state = play(state, (0, option["action"]))
    assert hand(state, 0) == sorted(option["keep"]) and len(state["deck"]) == 11
    assert card_total(state) == total


def test_exchange_with_one_card_left_keeps_one():
    state = table([["ambassador"], ["contessa", "duke"]], lost={0: ["duke"]})
    state = play(state, (0, {"type": "exchange"}))
    state = allow_all(state)
    legal = ENGINE.legal_actions(state, 0)
    assert all(len(a["cards"]) == 2 for a in legal)
    state = play(state, (0, legal[-1]))
    assert len(state["players"][0]["hand"]) == 1


def test_inquisitor_exchange_draws_one_and_returns_one():
    state = table([["inquisitor", "duke"], ["contessa", "duke"]], inquisitor=True)
    state = play(state, (0, {"type": "exchange"}))
    assert state["pending"]["claim"] == "inquisitor"
    state = allow_all(state)
    legal = ENGINE.legal_actions(state, 0)
    assert all(len(a["cards"]) == 1 for a in legal)
    state = play(state, (0, legal[0]))
    assert len(state["players"][0]["hand"]) == 2


# ------------------------------------------------------------------ examine


def test_examine_target_chooses_card_and_examiner_forces_a_swap():
    state = table([["inquisitor", "duke"], ["contessa", "captain"], ["duke", "captain"]], inquisitor=True)
    state = play(state, (0, {"type": "examine", "target": 1}))
    state = allow_all(state)
    assert state["phase"] == "examine_show"
    assert ENGINE.legal_actions(state, 1) == [{"type": "show", "card": "captain"},
                                              {"type": "show", "card": "contessa"}]
    state = play(state, (1, {"type": "show", "card": "contessa"}))
    assert ENGINE.view(state, 0)["examined"] == {"target": 1, "card": "contessa"}
    assert ENGINE.view(state, 2)["examined"] is None and ENGINE.view(state, None)["examined"] is None
    assert "contessa" not in str(ENGINE.view(state, 2)["log"])
    total = card_total(state)
    state = play(state, (0, {"type": "examine_decide", "swap": True}))
    assert "captain" in hand(state, 1) and len(hand(state, 1)) == 2 and card_total(state) == total
    assert state["turn"] == 1


def test_examine_hand_back_keeps_the_card():
    state = table([["inquisitor", "duke"], ["contessa", "captain"]], inquisitor=True)
    state = play(state, (0, {"type": "examine", "target": 1}))
    state = allow_all(state)
    state = play(state, (1, {"type": "show", "card": "captain"}),
                 (0, {"type": "examine_decide", "swap": False}))
    assert hand(state, 1) == ["captain", "contessa"]


def test_examine_only_in_the_inquisitor_variant():
    state = table([["ambassador", "duke"], ["contessa", "captain"]])
    assert not [a for a in ENGINE.legal_actions(state, 0) if a["type"] == "examine"]


# ------------------------------------------------------------------ factions


FACTIONS = {"factions": True}


def test_factions_alternate_from_the_first_player():
    state = ENGINE.setup(5, dict(ENGINE.default_options(), factions=True, first_player=2), 4)
    assert [p["faction"] for p in state["players"]] == [
        "populist", "monarchist", "monarchist", "populist", "monarchist"]


def test_convert_costs_one_for_self_and_two_for_another():
    state = table([["duke", "captain"], ["contessa", "duke"], ["captain", "duke"]], coins=[3, 2, 2],
                  allegiance=["monarchist", "populist", "monarchist"], **FACTIONS)
    state = play(state, (0, {"type": "convert", "target": 0}))
    assert coins(state)[0] == 2 and state["almshouse"] == 1
    assert state["players"][0]["faction"] == "populist" and ENGINE.window(state) is None
    state = play(state, (1, {"type": "convert", "target": 2}))
    assert coins(state)[1] == 0 and state["almshouse"] == 3 and state["players"][2]["faction"] == "populist"


def test_convert_needs_the_coins():
    state = table([["duke", "captain"], ["contessa", "duke"]], coins=[1, 2], **FACTIONS)
    converts = [a for a in ENGINE.legal_actions(state, 0) if a["type"] == "convert"]
    assert converts == [{"type": "convert", "target": 0}]


def test_embezzle_unchallenged_takes_the_almshouse():
    state = table([["captain", "contessa"], ["contessa", "duke"]], **FACTIONS)
    state["almshouse"] = 4
    state = play(state, (0, {"type": "embezzle"}))
    state = allow_all(state)
    assert coins(state)[0] == 6 and state["almshouse"] == 0


def test_embezzle_challenged_without_a_duke_both_cards_replaced_and_challenger_loses():
    state = table([["captain", "contessa"], ["contessa", "duke"]], **FACTIONS)
    state["almshouse"] = 3
    total = card_total(state)
    state = play(state, (0, {"type": "embezzle"}), (1, CHALLENGE))
    shown = [e for e in state["log"] if e["event"] == "reveal_all"][0]
    assert shown["cards"] == ["captain", "contessa"] and shown["proved"] is True
    assert [e for e in state["log"] if e["event"] == "replaced"][0]["cards"] == ["captain", "contessa"]
    state = play(state, (1, lose("duke")))
    assert coins(state)[0] == 5 and state["almshouse"] == 0 and card_total(state) == total


def test_embezzle_challenged_with_a_duke_loses_the_duke_and_replaces_the_other():
    state = table([["duke", "contessa"], ["contessa", "captain"]], **FACTIONS)
    state["almshouse"] = 3
    total = card_total(state)
    state = play(state, (0, {"type": "embezzle"}), (1, CHALLENGE))
    assert lost(state, 0) == ["duke"] and len(hand(state, 0)) == 1 and lost(state, 1) == []
    assert [e for e in state["log"] if e["event"] == "replaced"][0]["cards"] == ["contessa"]
    assert coins(state)[0] == 2 and state["almshouse"] == 3 and card_total(state) == total


def test_embezzle_with_two_dukes_loses_one_and_replaces_the_other():
    state = table([["duke", "duke"], ["contessa", "captain"]], **FACTIONS)
    state = play(state, (0, {"type": "embezzle"}), (1, CHALLENGE))
    assert lost(state, 0) == ["duke"] and len(hand(state, 0)) == 1


def test_same_faction_cannot_be_targeted_or_block_foreign_aid():
    state = table([["duke", "captain"], ["contessa", "duke"], ["captain", "duke"]], coins=[7, 2, 2],
                  allegiance=["monarchist", "populist", "monarchist"], **FACTIONS)
    targets = {a["target"] for a in ENGINE.legal_actions(state, 0)
               if a["type"] in ("coup", "steal", "assassinate")}
    assert targets == {1}
    state = play(state, (0, {"type": "foreign_aid"}))
    assert ENGINE.awaiting(state) == {1}
    # Challenges are never restricted.
    state = play(state, (1, block("duke")))
    assert 2 in ENGINE.awaiting(state)


def test_faction_restriction_lapses_when_one_faction_remains_and_returns():
    state = table([["duke", "captain"], ["contessa", "duke"], ["captain", "duke"]], coins=[7, 4, 2],
                  allegiance=["monarchist", "populist", "monarchist"], **FACTIONS)
    state = play(state, (0, {"type": "convert", "target": 1}))
    assert ENGINE.view(state, None)["restricted"] is False
    targets = {a["target"] for a in ENGINE.legal_actions(state, 1) if a["type"] == "steal"}
    assert targets == {0, 2}
    state = play(state, (1, {"type": "convert", "target": 1}))
    assert ENGINE.view(state, None)["restricted"] is True
    targets = {a["target"] for a in ENGINE.legal_actions(state, 2) if a["type"] == "steal"}
    assert targets == {1}


def test_faction_restriction_lapses_when_the_other_faction_is_eliminated():
    state = table([["duke", "captain"], ["contessa"], ["captain", "duke"]], coins=[7, 2, 2],
                  lost={1: ["duke"]}, allegiance=["monarchist", "populist", "monarchist"], **FACTIONS)
    state = play(state, (0, {"type": "coup", "target": 1}))
    assert not state["players"][1]["hand"] and state["turn"] == 2
    targets = {a["target"] for a in ENGINE.legal_actions(state, 2) if a["type"] == "steal"}
    assert targets == {0}


# ------------------------------------------------------------------ windows and timer


def test_window_ids_and_timeout_allows_everyone_left():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "ambassador"]])
    assert ENGINE.window(state) is None
    state = play(state, (0, TAX))
    first = ENGINE.window(state)
    assert first is not None
    assert ENGINE.legal_actions(state, 1) == [CHALLENGE, ALLOW]
    state = play(state, (1, ALLOW))
    assert ENGINE.legal_actions(state, 1) == [] and ENGINE.awaiting(state) == {2}
    state = ENGINE.on_timeout(state)
    assert coins(state)[0] == 5 and ENGINE.window(state) is None
    assert [e for e in state["log"] if e["event"] == "window_closed"][-1]["timeout"] is True
    state = play(state, (1, {"type": "foreign_aid"}))
    assert ENGINE.window(state) not in (None, first)


def test_timeout_without_a_window_is_illegal():
    state = table([["duke", "captain"], ["contessa", "assassin"]])
    with pytest.raises(IllegalAction):
        ENGINE.on_timeout(state)


def test_no_window_while_choosing_a_card():
    state = table([["duke", "captain"], ["contessa", "assassin"]], coins=[7, 2])
    state = play(state, (0, {"type": "coup", "target": 1}))
    assert state["phase"] == "lose" and ENGINE.window(state) is None
    state = table([["duke", "captain"], ["contessa", "assassin"]])
    state = play(state, (0, TAX), (1, CHALLENGE))
    assert state["phase"] == "reveal" and ENGINE.window(state) is None


def test_every_living_other_player_gets_the_same_challenge_prompt():
    state = table([["duke", "captain"], ["contessa", "assassin"], ["captain", "ambassador"],
                   ["duke"]], lost={3: ["contessa"]})
    state["players"][3]["lost"].append(state["players"][3]["hand"].pop())
    state = play(state, (0, TAX))
    assert ENGINE.awaiting(state) == {1, 2}
    assert ENGINE.legal_actions(state, 1) == ENGINE.legal_actions(state, 2) == [CHALLENGE, ALLOW]
    assert ENGINE.legal_actions(state, 3) == []


def test_turn_skips_eliminated_players():
    state = table([["duke", "captain"], ["contessa"], ["captain", "ambassador"]], lost={1: ["duke"]})
    state["players"][1]["lost"].append(state["players"][1]["hand"].pop())
    state = play(state, (0, INCOME))
    assert state["turn"] == 2


# ------------------------------------------------------------------ rounds to win


def test_rounds_to_win_deals_the_next_round_and_winner_starts():
    state = table([["duke", "captain"], ["contessa"], ["captain", "ambassador"]], lost={1: ["duke"]},
                  coins=[14, 2, 2], rounds_to_win=2)
    state["players"][2]["lost"] += state["players"][2]["hand"][:1]
    state["players"][2]["hand"] = state["players"][2]["hand"][1:]
    state = play(state, (0, {"type": "coup", "target": 2}))
    assert ENGINE.outcome(state) is None
    state = play(state, (1, INCOME), (0, {"type": "coup", "target": 1}))
    assert ENGINE.outcome(state) is None
    view = ENGINE.view(state, None)
    assert view["match"] == {"target": 2, "wins": [1, 0, 0], "round": 2}
    assert state["turn"] == 0 and all(len(p["hand"]) == 2 for p in state["players"])
    assert len(card_total(state)) == 15 and "round_start" in events(state)


def test_match_ends_when_a_player_reaches_the_target():
    state = ENGINE.setup(2, dict(ENGINE.default_options(), rounds_to_win=2, first_player=0), 5)
    for _ in range(2):
        turn = state["turn"]
        other = 1 - turn
        state["players"][turn]["coins"] = 7
        state["players"][other]["lost"].append(state["players"][other]["hand"].pop())
        state = play(state, (turn, {"type": "coup", "target": other}))
    result = ENGINE.outcome(state)
    assert result is not None and result["wins"] == [2, 0] and result["winners"] == [0]
    assert "match_won" in events(state) and ENGINE.view(state, 1)["outcome"]["reveal"]["hands"][0]


def test_steal_from_a_target_knocked_out_by_its_own_failed_challenge_is_void():
    state = table([["captain", "duke"], ["contessa"], ["duke", "duke"]], coins=[2, 5, 2],
                  lost={1: ["assassin"]})
    state = play(state, (0, {"type": "steal", "target": 1}), (1, CHALLENGE), (0, reveal("captain")))
    assert coins(state) == [2, 0, 2] and state["turn"] == 2 and "stole" not in events(state)


def test_proved_card_replacement_is_private_to_its_owner():
    state = table([["duke", "captain"], ["contessa", "assassin"]])
    state = play(state, (0, TAX), (1, CHALLENGE), (0, reveal("duke")))
    mine = [e for e in ENGINE.view(state, 0)["log"] if e["event"] == "drew"]
    assert len(mine) == 1 and mine[0]["private"] is True
    assert not [e for e in ENGINE.view(state, 1)["log"] if e["event"] == "drew"]
    assert not [e for e in ENGINE.view(state, None)["log"] if e["event"] == "drew"]


def test_embezzle_and_convert_exist_only_with_factions():
    state = table([["duke", "captain"], ["contessa", "assassin"]])
    kinds = {a["type"] for a in ENGINE.legal_actions(state, 0)}
    assert "embezzle" not in kinds and "convert" not in kinds and "examine" not in kinds


def test_next_round_of_a_match_resets_factions_and_almshouse():
    state = table([["duke", "captain"], ["contessa"], ["captain", "duke"]], coins=[7, 2, 2],
                  lost={1: ["assassin"]}, allegiance=["monarchist", "populist", "populist"],
                  factions=True, rounds_to_win=2)
    state["almshouse"] = 5
    state["players"][2]["lost"].append(state["players"][2]["hand"].pop())
    state["players"][2]["lost"].append(state["players"][2]["hand"].pop())
    state = play(state, (0, {"type": "coup", "target": 1}))
    assert state["match"]["round"] == 2 and state["almshouse"] == 0
    assert [p["faction"] for p in state["players"]] == ["monarchist", "populist", "monarchist"]
    assert ENGINE.outcome(state) is None and ENGINE.view(state, 1)["match"]["wins"] == [1, 0, 0]
