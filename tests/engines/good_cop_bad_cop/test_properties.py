"""Invariants over random games, and the information-set check on views."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.good_cop_bad_cop import ENGINE, rules, table
from engines.good_cop_bad_cop.cards import GUNS, RULES_VERSIONS, SIDE_CARDS
from engines.good_cop_bad_cop.rules import equipment_deck
from tests.engines.contract import play_random


def random_states(players, seed, steps=400):
    """States met along one random game (every few moves)."""
    rng = random.Random(seed)
    options = {"bribe": seed % 2 == 0, "rules_version": RULES_VERSIONS[seed // 2 % len(RULES_VERSIONS)]}
    state = ENGINE.setup(players, options, seed)
    for step in range(steps):
        if ENGINE.outcome(state) is not None:
            yield state
            return
        if step % 3 == 0:
            yield state
        movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
        if not movers:
            state = ENGINE.on_timeout(state)
            continue
        seat = rng.choice(movers)
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))


def check_invariants(state):
    """Cards, guns and equipment are conserved; hands and aims stay within the rules."""
    n = len(state["players"])
    players = state["players"]
    integrity = Counter(c for p in players for c in p["cards"]) + Counter(state["burned"] + state["removed"])
    assert integrity == Counter({"honest": SIDE_CARDS[n], "crooked": SIDE_CARDS[n], "agent": 1, "kingpin": 1})
    assert sum(p["gun"] for p in players) + state["guns_left"] == GUNS[n]
    assert state["guns_left"] >= 0
    held = [c for p in players for c in p["hand"]]
    planted = ["planted_evidence"] if state["planted"] is not None else []
    assert sorted(held + state["deck"] + planted) == sorted(equipment_deck(n, state["options"]["bribe"]))
    frame = table.top(state)
    for seat, p in enumerate(players):
        if len(p["hand"]) > 1:
            assert frame["kind"] == "keep" and frame["seat"] == seat
        assert p["aim"] != seat
        if not p["alive"]:
            assert not p["gun"] and not p["hand"]
        assert len(p["cards"]) == len(p["up"])
    if ENGINE.outcome(state) is None:
        assert not any(rules.team_of(p["cards"], False) == "both" for p in players)
        if frame["kind"] == "window":
            # Silent: nobody awaited, no Pass, only real plays; its own countdown.
            assert ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == state["options"]["window_seconds"]
            assert all(a["type"] == "play" for s in range(n) for a in ENGINE.legal_actions(state, s))
        else:
            assert ENGINE.awaiting(state) and ENGINE.countdown(state) is None
        if frame["kind"] != "arrange":
            assert ENGINE.awaiting(state) <= set(table.living(state))
        if frame["kind"] == "aim" and table.rules_version(state) >= 2:
            # An aim step only where it holds a choice: a gun, and two or more players to aim at.
            assert players[frame["seat"]]["gun"] and len(table.others(state, frame["seat"])) >= 2
            assert ENGINE.legal_actions(state, frame["seat"]) != [{"type": "end_turn"}]


@settings(max_examples=40, deadline=None)
@given(players=st.integers(4, 8), seed=st.integers(0, 10**6))
def test_random_play_keeps_cards_guns_and_equipment(players, seed):
    for state in random_states(players, seed):
        check_invariants(state)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(4, 8), seed=st.integers(0, 10**6))
def test_random_games_end_with_a_leader_down_or_both_leaders_held(players, seed):
    state, _ = play_random(ENGINE, players, {}, seed, max_steps=30000)
    outcome = ENGINE.outcome(state)
    assert outcome["reason"] in ("kingpin_eliminated", "agent_eliminated", "both_leaders")
    teams = outcome["teams"]
    expected = "honest" if outcome["reason"] == "kingpin_eliminated" else "crooked"
    assert outcome["winners"] == sorted(int(s) for s, t in teams.items() if t in (expected, "both"))


def permute_hidden(state, seat, rng):
    """Shuffle everything ``seat`` cannot know: others' face-down cards and hands, the deck, the burned."""
    new = json.loads(json.dumps(state))
    players = new["players"]
    spots = [(s, i) for s, p in enumerate(players) if s != seat for i, up in enumerate(p["up"]) if not up]
    names = rng.sample([players[s]["cards"][i] for s, i in spots] + new["burned"],
                       len(spots) + len(new["burned"]))
    for (s, i), name in zip(spots, names, strict=False):
        players[s]["cards"][i] = name
    new["burned"] = names[len(spots):]
    others = [s for s in range(len(players)) if s != seat]
    pool = [c for s in others for c in players[s]["hand"]] + new["deck"]
    rng.shuffle(pool)
    for s in others:
        k = len(players[s]["hand"])
        players[s]["hand"], pool = pool[:k], pool[k:]
    new["deck"] = pool
    for s in others:
        players[s]["learned"] = [dict(e, name="honest") for e in players[s]["learned"]]
    new["log"] = [line for line in new["log"] if not line.get("private") or line.get("to") == seat]
    return new


@settings(max_examples=12, deadline=None)
@given(players=st.integers(4, 8), seed=st.integers(0, 10**6))
def test_views_do_not_change_when_hidden_information_is_permuted(players, seed):
    rng = random.Random(seed)
    for state in random_states(players, seed, steps=200):
        if ENGINE.outcome(state) is not None:
            continue
        for seat in [None, *range(players)]:
            other = permute_hidden(state, seat, rng)
            assert ENGINE.view(other, seat) == ENGINE.view(state, seat)


def redeal_equipment(state, seat, rng):
    """Give the equipment ``seat`` cannot see to other living seats (none or one each) and the deck, at random."""
    new = json.loads(json.dumps(state))
    players = new["players"]
    others = [s for s, p in enumerate(players) if s != seat and p["alive"]]
    pool = [c for s in others for c in players[s]["hand"]] + new["deck"]
    rng.shuffle(pool)
    for s in others:
        k = rng.choice((0, 1)) if pool else 0
        players[s]["hand"], pool = pool[:k], pool[k:]
    new["deck"] = pool
    return new


@settings(max_examples=15, deadline=None)
@given(players=st.integers(4, 8), seed=st.integers(0, 10**6))
def test_silent_windows_do_not_depend_on_who_holds_equipment(players, seed):
    # Not just shuffled hands: who holds a card at all (and so who could play into the window)
    # changes nothing on the board or on any other seat's phone.
    rng = random.Random(seed)
    windows = 0
    for state in random_states(players, seed, steps=300):
        if ENGINE.outcome(state) is not None or not ENGINE.view(state, None)["silent"]:
            continue
        windows += 1
        for seat in [None, *range(players)]:
            view = ENGINE.view(state, seat)
            for _ in range(3):
                other = redeal_equipment(state, seat, rng)
                assert ENGINE.view(other, seat) == view
                assert ENGINE.awaiting(other) == set() and ENGINE.countdown(other) == ENGINE.countdown(state)
                assert ENGINE.window(other) == ENGINE.window(state)


def test_board_view_never_names_a_face_down_card():
    for state in random_states(6, 11, steps=300):
        board = ENGINE.view(state, None)
        for seat, cards in enumerate(board["cards"]):
            for card, up in zip(cards, state["players"][seat]["up"], strict=True):
                assert (card["name"] is not None) == (up or ENGINE.outcome(state) is not None)
        assert board["hand"] == [] and board["learned"] == []
        assert not any(line.get("private") for line in board["log"])
