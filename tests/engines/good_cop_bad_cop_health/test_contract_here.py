"""The shared contract checks run on this engine alone (the registry may hold unfinished games)."""

from __future__ import annotations

import json
import random

import pytest

from engines.base import IllegalAction, OptionError
from engines.good_cop_bad_cop_health import BOTS, ENGINE
from tests.engines.contract import assert_view_ok, play_random, replay


def test_random_games_end_replay_and_round_trip_for_every_player_count():
    options = ENGINE.default_options()
    for players in range(ENGINE.min_players, ENGINE.max_players + 1):
        for seed in range(1, 6):
            state, moves = play_random(ENGINE, players, options, seed * 1000 + players)
            outcome = ENGINE.outcome(state)
            assert outcome is not None and outcome["winners"]
            again = replay(ENGINE, players, options, seed * 1000 + players, moves)
            assert ENGINE.encode(again) == ENGINE.encode(state)
            decoded = ENGINE.decode(json.loads(json.dumps(ENGINE.encode(state))))
            assert ENGINE.outcome(decoded) == outcome
            for seat in [None, *range(players)]:
                assert "reveal" in assert_view_ok(ENGINE, state, seat)


@pytest.mark.parametrize("players", [2, 3, 4, 8])
def test_views_legal_and_json_round_trip_during_play(players):
    state = ENGINE.setup(players, ENGINE.default_options(), 77)
    rng = random.Random(77)
    for _ in range(80):
        if ENGINE.outcome(state) is not None:
            break
        assert ENGINE.window(state) is None
        decoded = ENGINE.decode(json.loads(json.dumps(ENGINE.encode(state))))
        for seat in [None, *range(players)]:
            assert ENGINE.view(decoded, seat) == assert_view_ok(ENGINE, state, seat)
        assert ENGINE.awaiting(state) == set(ENGINE.view(state, None)["awaiting"])
        seat = rng.choice([s for s in range(players) if ENGINE.legal_actions(state, s)])
        before = ENGINE.encode(state)
        after = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        assert ENGINE.encode(state) == before, "apply mutated its input"
        state = after


def test_illegal_and_malformed_actions_are_refused_without_change():
    for players in (2, 4):
        state = ENGINE.setup(players, ENGINE.default_options(), 5)
        before = ENGINE.encode(state)
        for seat in range(players):
            for action in [{"type": "no_such_move"}, {}, {"type": 3}, "tax", None,
                           {"type": "shoot", "gun": 0, "target": 0}, {"type": "draw"}]:
                with pytest.raises(IllegalAction):
                    ENGINE.apply(state, seat, action)
        assert ENGINE.encode(state) == before
    with pytest.raises(IllegalAction):
        ENGINE.on_timeout(state)


def test_seeds_options_and_player_counts():
    assert ENGINE.encode(ENGINE.setup(8, {}, 42)) == ENGINE.encode(ENGINE.setup(8, {}, 42))
    deals = {json.dumps(ENGINE.setup(8, {}, s), sort_keys=True) for s in range(5)}
    assert len(deals) > 1
    assert ENGINE.validate_options({}, None) == ENGINE.default_options()
    for players in (1, 9):
        with pytest.raises(OptionError):
            ENGINE.setup(players, {}, 1)
    with pytest.raises(OptionError):
        ENGINE.validate_options({"no_such_option": True}, None)
    with pytest.raises(OptionError):
        ENGINE.validate_options({"first_player": 4}, 4)


def test_bots_export():
    assert set(BOTS) == {"heuristic"}
