"""Invariants over random play (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.good_cop_bad_cop_health import ENGINE

from .helpers import total_cards

DECK = st.fixed_dictionaries({kind: st.integers(0, 6) for kind in ENGINE.default_options()["deck"]})


def random_states(players, options, seed, steps=400):
    """Every state of one random game."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, options, seed)
    yield state
    for _ in range(steps):
        if ENGINE.outcome(state) is not None:
            return
        seat = rng.choice([s for s in range(players) if ENGINE.legal_actions(state, s)])
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        yield state


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 10**9), deck=DECK,
       always=st.booleans())
def test_cards_health_identities_are_conserved(players, seed, deck, always):
    deck["revolver_38"] += 1
    options = {**ENGINE.default_options(), "deck": deck, "flawless_shot_always": always}
    total = sum(deck.values())
    for state in random_states(players, options, seed):
        assert total_cards(state) == total
        ids = [c["id"] for c in state["deck"] + state["discard"]]
        ids += [c["id"] for c in state["market"] if c]
        for p in state["players"]:
            ids += [c["id"] for c in p["hand"] + p["in_play"]]
        assert sorted(ids) == list(range(total))
        for p in state["players"]:
            assert 0 <= p["health"] <= 4
            assert p["alive"] == (p["health"] > 0)
            assert p["alive"] or p["in_play"] == []
        identities = [p["identity"] for p in state["players"] if p["identity"] in ("good", "bad")]
        pile = state["identity_pile"]
        if state["phase"] != "keep_identity":
            assert sorted(identities + pile) == ["bad"] * 8 + ["good"] * 8
        assert len(state["market"]) == 4
        if ENGINE.outcome(state) is None:
            assert ENGINE.awaiting(state)
            assert state["players"][state["turn"]]["alive"]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(4, 8), seed=st.integers(0, 10**9))
def test_winners_hold_one_identity_and_the_other_side_is_dead(players, seed):
    state = list(random_states(players, ENGINE.default_options(), seed, steps=5000))[-1]
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    won = {state["players"][s]["identity"] for s in outcome["winners"]}
    assert len(won) == 1
    loser = ({"good", "bad"} - won).pop()
    assert not any(p["alive"] and p["identity"] == loser for p in state["players"])
