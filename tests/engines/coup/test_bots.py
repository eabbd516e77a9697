"""The heuristic bot plays only legal moves and beats random play."""

from __future__ import annotations

import random

from engines.bots import random_bot
from engines.coup import BOTS, ENGINE


def play(players, options, seed, policies):
    """One game with the given policy per seat; returns the winner."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, options, seed)
    for _ in range(5000):
        result = ENGINE.outcome(state)
        if result is not None:
            return result["winners"][0]
        movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
        if not movers:
            state = ENGINE.on_timeout(state)
            continue
        seat = rng.choice(movers)
        view = ENGINE.view(state, seat)
        action = policies[seat](view, rng)
        assert action in view["legal"]
        state = ENGINE.apply(state, seat, action)
    raise AssertionError("game did not end")


def test_heuristic_plays_legal_moves_with_every_variant():
    for seed in range(27):
        players = 2 + seed % 9
        opts = dict(ENGINE.default_options(), inquisitor=seed % 2 == 0, factions=seed % 3 == 0)
        play(players, opts, seed, [BOTS["heuristic"]] * players)


def test_heuristic_seat_beats_random_seats():
    wins = 0
    games = 200
    for seed in range(games):
        policies = [random_bot] * 4
        hero = seed % 4
        policies[hero] = BOTS["heuristic"]
        wins += play(4, ENGINE.default_options(), seed, policies) == hero
    rate = wins / games
    print(f"heuristic win rate against 3 random seats: {rate:.2f} (chance 0.25)")
    assert rate > 0.4
