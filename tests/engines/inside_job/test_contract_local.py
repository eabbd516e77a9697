"""The shared contract checks run on Inside Job alone, with every option combination in play."""

from __future__ import annotations

import json

import pytest

from engines.base import IllegalAction, OptionError
from engines.inside_job import ENGINE
from tests.engines.contract import assert_view_ok, play_random, replay

OPTION_SETS = [{}, {"merlin": True}, {"merlin": True, "percival": True, "morgana": True},
               {"merlin": True, "mordred": True, "oberon": True, "lady_of_the_lake": True}]


@pytest.mark.parametrize("players", range(5, 11))
def test_random_games_end_replay_round_trip_and_views_keep_the_contract(players):
    for index, options in enumerate(OPTION_SETS):
        try:
            options = ENGINE.validate_options(options, players)
        except OptionError:  # too many special Traitors or Lady below 7 players
            continue
        seed = players * 100 + index
        state, moves = play_random(ENGINE, players, options, seed)
        assert ENGINE.outcome(state) is not None
        again = replay(ENGINE, players, options, seed, moves)
        assert ENGINE.encode(again) == ENGINE.encode(state)
        decoded = ENGINE.decode(json.loads(json.dumps(ENGINE.encode(state))))
        assert ENGINE.outcome(decoded) == ENGINE.outcome(state)
        for seat in [None, *range(players)]:
            view = assert_view_ok(ENGINE, state, seat)
            for key in ("role", "side", "missions", "leader", "team", "rejections", "known",
                        "votes", "sabotage_counts", "mission_sizes", "mission_number", "lady"):
                assert key in view


def test_malformed_actions_are_refused():
    state = ENGINE.setup(5, {}, 3)
    for action in ({"type": "no_such_move"}, {}, {"type": 3}, "vote", None, {"type": "vote"},
                   {"type": "propose"}, {"type": "propose", "team": "01"}):
        for seat in range(5):
            with pytest.raises(IllegalAction):
                ENGINE.apply(state, seat, action)
