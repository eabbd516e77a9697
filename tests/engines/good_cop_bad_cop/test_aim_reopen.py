"""Issue 44, item 7: an armed Lead Investigator with one player to aim at gets no aim step (rules version 2),
so a Defibrillator it could have played there, then aimed at the revived player, comes in its end window.
From rules version 3 its own card there reopens the aim step where the card made a choice; both orders
(the card before the step would be skipped, and in the end window after) end alike."""

from __future__ import annotations

import json

from engines.good_cop_bad_cop import ENGINE, table
from tests.engines.good_cop_bad_cop.helpers import expire, five, phase, play

DEFIB = {"type": "play", "card": "defibrillator", "target": 3, "keep": 0}


def duel(hands=None, deck=("coffee",), version=3, turn=0, guns=None):
    """Five players, 2, 3 and 4 eliminated (cards face-up), 0 armed and aimed at 1: one player to aim at."""
    state = five(hands=hands, deck=list(deck), version=version, turn=turn, guns={0: 1} if guns is None else guns)
    for seat in (2, 3, 4):
        state["players"][seat].update(alive=False, up=[True, True, True])
    return state


def equip(state, seat=0):
    """Phase 1 Equip: keep the drawn card (or the one held), turn the first face-down card face-up."""
    state = play(state, seat, {"type": "equip"})
    state = play(state, seat, ENGINE.legal_actions(state, seat)[0])  # keep
    return play(state, seat, ENGINE.legal_actions(state, seat)[0])  # reveal


def end_window(state):
    """The window at the end of the turn is open."""
    return ENGINE.view(state, None)["pending"]["when"] == "end"


def aims(state, seat=0):
    """The aim step's own moves (aims, End turn) listed for ``seat``."""
    return [a for a in ENGINE.legal_actions(state, seat) if a["type"] in ("aim", "end_turn")]


def public(state):
    """What the table sees (the board's view and a bystander's), for comparing two lines of play."""
    return json.dumps([ENGINE.view(state, None), ENGINE.view(state, 1)], sort_keys=True)


def test_a_defibrillator_drawn_by_equip_reopens_the_skipped_aim_step_in_its_holders_end_window():
    state = equip(duel(deck=["defibrillator"]))
    # One player to aim at: no aim step, straight to the end window with the drawn card playable there.
    assert end_window(state) and state["players"][0]["hand"] == ["defibrillator"]
    assert DEFIB in ENGINE.legal_actions(state, 0)
    state = play(state, 0, DEFIB)
    assert state["players"][3]["alive"]
    # The aim step, reopened: aim at the revived player or keep the aim.
    assert phase(state) == "aim" and ENGINE.awaiting(state) == {0}
    assert aims(state) == [{"type": "aim", "target": 1}, {"type": "aim", "target": 3}, {"type": "end_turn"}]
    state = play(state, 0, {"type": "aim", "target": 3})
    assert state["players"][0]["aim"] == 3 and ENGINE.view(state, None)["log"][-1] == {
        "event": "aim", "seat": 0, "target": 3}
    # Then the end window again, and the turn passes as ever.
    assert end_window(state) and ENGINE.legal_actions(state, 0) == []
    state = expire(state)
    assert state["turn"] == 1 and phase(state) == "action" and state["players"][0]["aim"] == 3


def test_a_defibrillator_played_before_the_aim_step_would_be_skipped_keeps_the_step():
    state = duel(hands=[["defibrillator"], [], [], [], []])
    state = play(state, 0, DEFIB)  # phase 1, before its action: two players to aim at now
    state = equip(state)
    assert phase(state) == "aim" and ENGINE.awaiting(state) == {0}
    assert aims(state) == [{"type": "aim", "target": 1}, {"type": "aim", "target": 3}, {"type": "end_turn"}]
    state = play(state, 0, {"type": "aim", "target": 3})
    assert end_window(state) and state["players"][0]["aim"] == 3


def test_both_orders_end_the_turn_alike():
    before = duel(hands=[["defibrillator"], [], [], [], []])
    before = play(equip(play(before, 0, DEFIB)), 0, {"type": "aim", "target": 3})
    after = equip(duel(hands=[["defibrillator"], [], [], [], []]))
    after = play(play(after, 0, DEFIB), 0, {"type": "aim", "target": 3})
    before, after = expire(before), expire(after)
    assert state_facts(before) == state_facts(after)


def state_facts(state):
    """Whose turn, who lives with which cards, who holds and aims which gun (hands differ: the draw does)."""
    players = state["players"]
    return state["turn"], [(p["alive"], p["gun"], p["aim"], p["cards"], p["up"]) for p in players], state["removed"]


def test_rules_version_2_games_replay_as_played():
    # A game dealt under version 2 keeps its flow: the card leaves the aim where it was.
    state = play(equip(duel(deck=["defibrillator"], version=2)), 0, DEFIB)
    assert end_window(state) and state["players"][0]["aim"] == 1 and ENGINE.legal_actions(state, 0) == []


def test_a_card_that_makes_no_choice_leaves_the_end_window_as_it_was():
    # Coffee in the same window: the reopened step holds no choice and is skipped; every screen is as before.
    lines = []
    for version in (2, 3):
        state = play(equip(duel(deck=["coffee"], version=version)), 0, {"type": "play", "card": "coffee"})
        assert end_window(state) and ENGINE.window(state) is not None
        lines.append((public(state), ENGINE.view(state, 0), ENGINE.window(state)))
    assert lines[0] == lines[1]


def test_another_seats_defibrillator_in_the_holders_end_window_moves_no_aim():
    state = duel(hands=[[], ["defibrillator"], [], [], []])
    state = equip(state)
    state = play(state, 1, DEFIB)
    assert end_window(state) and state["players"][0]["aim"] == 1 and ENGINE.awaiting(state) == set()


def test_the_holders_defibrillator_in_another_players_end_window_moves_no_aim():
    state = duel(hands=[["defibrillator"], [], [], [], []], turn=1)
    state = play(state, 1, {"type": "investigate", "target": 0, "card": 0})
    state = expire(state)  # the investigate window; seat 1 holds no gun: straight to its end window
    assert end_window(state)
    state = play(state, 0, DEFIB)
    assert end_window(state) and state["players"][0]["aim"] == 1 and ENGINE.awaiting(state) == set()


def test_an_aim_step_already_held_is_not_reopened_by_a_card_in_the_end_window():
    # Two players to aim at: the step came and was answered; a card in the end window changes no aim.
    state = duel(hands=[["defibrillator"], [], [], [], []])
    state["players"][2].update(alive=True)
    state = equip(state)
    assert phase(state) == "aim"
    state = play(state, 0, {"type": "end_turn"})
    state = play(state, 0, DEFIB)
    assert end_window(state) and state["players"][0]["aim"] == 1 and ENGINE.awaiting(state) == set()


def test_an_unarmed_holders_defibrillator_in_its_end_window_opens_no_aim_step():
    state = equip(duel(deck=["defibrillator"], guns={}))
    state = play(state, 0, DEFIB)
    assert end_window(state) and not state["players"][0]["gun"] and ENGINE.awaiting(state) == set()
    assert table.top(state)["kind"] == "window"
