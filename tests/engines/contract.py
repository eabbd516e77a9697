"""Helpers the contract test and each engine's own tests share."""

from __future__ import annotations

import json
import random

from engines.base import BaseView

# The keys every view has: the contract's common view (engines.base.BaseView).
REQUIRED_VIEW_KEYS = set(BaseView.__required_keys__)


def play_random(engine, players: int, options: dict, seed: int, *, max_steps: int = 5000,
                picker: random.Random | None = None):
    """Play a whole game with random legal moves; returns (final state, list of (seat, action))."""
    rng = picker or random.Random(seed)
    state = engine.setup(players, options, seed)
    moves: list = []
    for _ in range(max_steps):
        if engine.outcome(state) is not None:
            return state, moves
        state, seat, action = random_step(engine, state, players, rng)
        moves.append((seat, action))
    raise AssertionError(f"game did not end in {max_steps} steps")


def random_step(engine, state, players: int, rng: random.Random):
    """One random legal move, or the clock's when nobody may move: (new state, seat, action), seat None on a timeout."""
    movers = [s for s in range(players) if engine.legal_actions(state, s)]
    if not movers:
        assert engine.window(state) is not None, "nobody can move and no window can expire"
        return engine.on_timeout(state), None, None
    seat = rng.choice(movers)
    action = rng.choice(engine.legal_actions(state, seat))
    return engine.apply(state, seat, action), seat, action


def replay(engine, players: int, options: dict, seed: int, moves):
    """The state from setup(seed) folded over the recorded moves."""
    return engine.replay_checked(engine.setup(players, options, seed), moves)


def assert_view_ok(engine, state, seat):
    """A view has the contract's keys, is JSON-able and never carries the seed."""
    view = engine.view(state, seat)
    missing = REQUIRED_VIEW_KEYS - set(view)
    assert not missing, f"view misses {missing}"
    text = json.dumps(view)
    assert "draws" not in view and "seed" not in view
    assert str(state["seed"]) not in text
    assert view["seat"] == seat
    if seat is None:
        assert view["legal"] == []
    else:
        assert view["legal"] == engine.legal_actions(state, seat)
    return view
