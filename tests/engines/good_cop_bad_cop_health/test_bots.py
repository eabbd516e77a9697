"""The heuristic bot: always legal, and a team of them beats a team of random bots."""

from __future__ import annotations

import random

from engines.bots import random_bot
from engines.good_cop_bad_cop_health import BOTS, ENGINE

heuristic = BOTS["heuristic"]


def play(players, seed, policy_of):
    """One game where ``policy_of(state, seat)`` picks each seat's policy; the final state."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, ENGINE.default_options(), seed)
    for _ in range(5000):
        if ENGINE.outcome(state) is not None:
            return state
        seat = min(ENGINE.awaiting(state))
        view = ENGINE.view(state, seat)
        action = policy_of(state, seat)(view, rng)
        assert action in view["legal"]
        state = ENGINE.apply(state, seat, action)
    raise AssertionError("game did not end")


def test_heuristic_bots_only_make_legal_moves():
    for seed in range(70):
        players = 2 + seed % 7
        state = play(players, seed, lambda state, seat: heuristic)
        assert ENGINE.outcome(state) is not None


def team_win_rate(team, seeds):
    """How often the side dealt ``team`` wins when it plays heuristic and the other random."""
    wins = games = 0
    for seed in seeds:
        players = 4 + seed % 5
        dealt = ENGINE.setup(players, ENGINE.default_options(), seed)
        smart = {s for s, p in enumerate(dealt["players"]) if p["identity"] == team}
        state = play(players, seed, lambda state, seat, smart=smart:
                     heuristic if seat in smart else random_bot)
        games += 1
        wins += ENGINE.outcome(state)["reason"] == f"{team}_wins"
    return wins / games


def test_heuristic_team_beats_random_team():
    seeds = range(80)
    good = team_win_rate("good", seeds)
    bad = team_win_rate("bad", seeds)
    baseline = sum(
        ENGINE.outcome(play(4 + s % 5, s, lambda state, seat: random_bot))["reason"] == "good_wins"
        for s in seeds) / len(seeds)
    print(f"heuristic good wins {good:.2f}, heuristic bad wins {bad:.2f}, "
          f"random-vs-random good wins {baseline:.2f}")
    assert good > baseline + 0.1
    assert bad > (1 - baseline) + 0.1
