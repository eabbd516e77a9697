"""Random play with every variant, hypothesis invariants and the information-set check."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import Rng
from engines.coup import ENGINE
from engines.coup.cards import build_court
from tests.engines.contract import assert_view_ok, play_random, replay

from .helpers import card_total

ALL_VARIANTS = {"inquisitor": True, "factions": True, "rounds_to_win": 2}


def options(**extra):
    """Default options with some changed."""
    return dict(ENGINE.default_options(), **extra)


def steps(players, opts, seed):
    """Yield every state of one random game (timer expiries included at random)."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, opts, seed)
    yield state
    for _ in range(5000):
        if ENGINE.outcome(state) is not None:
            return
        movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
        if ENGINE.window(state) is not None and rng.random() < 0.1:
            state = ENGINE.on_timeout(state)
        else:
            seat = rng.choice(movers)
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        yield state
    raise AssertionError("game did not end")


def check_invariants(state):
    """Coins never negative; every card accounted for; the match standings add up."""
    assert all(p["coins"] >= 0 for p in state["players"]) and state["almshouse"] >= 0
    assert card_total(state) == sorted(build_court(state["n"], state["options"]["inquisitor"]))
    assert all(len(p["hand"]) + len(p["lost"]) == 2 for p in state["players"])
    assert all(p["coins"] == 0 for p in state["players"] if not p["hand"])
    match = state["match"]
    assert sum(match["wins"]) == match["round"] - (0 if state["result"] else 1)


def test_random_games_with_all_variants_combined_end_and_replay():
    for players in range(2, 11):
        for seed in (3, 4):
            opts = options(**ALL_VARIANTS)
            state, moves = play_random(ENGINE, players, opts, seed * 100 + players)
            result = ENGINE.outcome(state)
            assert result["wins"][result["winners"][0]] == 2
            again = replay(ENGINE, players, opts, seed * 100 + players, moves)
            assert ENGINE.encode(again) == ENGINE.encode(state)
            for seat in [None, *range(players)]:
                assert_view_ok(ENGINE, state, seat)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 10), inquisitor=st.booleans(),
       factions=st.booleans(), rounds=st.integers(1, 2), published=st.booleans())
def test_invariants_hold_at_every_step(seed, players, inquisitor, factions, rounds, published):
    opts = options(inquisitor=inquisitor, factions=factions, rounds_to_win=rounds,
                   two_player_start="published" if published else "seed")
    for state in steps(players, opts, seed):
        check_invariants(state)
        assert set(ENGINE.view(state, None)["awaiting"]) == ENGINE.awaiting(state)
        # A window is open exactly when the awaited seats answer a challenge or a block.
        if ENGINE.window(state) is not None:
            for seat in ENGINE.awaiting(state):
                assert {"type": "allow"} in ENGINE.legal_actions(state, seat)
        elif ENGINE.outcome(state) is None:
            assert len(ENGINE.awaiting(state)) == 1


def permute_hidden(state, seat, salt):
    """Shuffle every card ``seat`` cannot see (others' hands and draws, the court) among them."""
    new = json.loads(json.dumps(state))
    slots = [("deck", None, len(new["deck"]))]
    pool = list(new["deck"])
    for other, player in enumerate(new["players"]):
        if other == seat:
            continue
        for key in ("hand", "drawn"):
            slots.append((key, other, len(player[key])))
            pool += player[key]
    pool = Rng(salt).shuffle(pool)
    for key, other, size in slots:
        part, pool = pool[:size], pool[size:]
        if other is None:
            new["deck"] = part
        else:
            new["players"][other][key] = part
    # The examined card is known to the examiner and the examined player only.
    if new["pending"] and new["pending"].get("shown") and seat not in (
            new["pending"]["actor"], new["pending"]["target"]):
        new["pending"]["shown"] = Rng(salt + 1).choice(["duke", "captain", "contessa"])
    return new


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 7), inquisitor=st.booleans(),
       factions=st.booleans())
def test_views_do_not_depend_on_what_the_seat_cannot_know(seed, players, inquisitor, factions):
    opts = options(inquisitor=inquisitor, factions=factions)
    for index, state in enumerate(steps(players, opts, seed)):
        if index % 3:
            continue
        for seat in [None, *range(players)]:
            view = ENGINE.view(state, seat)
            for salt in (1, 2):
                other = permute_hidden(state, seat, seed + salt)
                assert ENGINE.view(other, seat) == view


def test_board_view_never_shows_a_face_down_card():
    opts = options(inquisitor=True, factions=True)
    for state in steps(5, opts, 11):
        board = ENGINE.view(state, None)
        assert board["hand"] == [] and board["drawn"] == [] and board["examined"] is None
        assert all(not entry.get("private") for entry in board["log"])
        if state["result"] is None:
            assert "\"reveal\":" not in json.dumps(board)
