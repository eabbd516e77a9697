"""Bots over every engine: only legal moves, only their own view, and the simulate command's report."""

from __future__ import annotations

import json
import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from engines.bots import get_policy
from engines.registry import ENGINES
from engines.simulate import play_bots

ENGINE_NAMES = sorted(ENGINES)


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_bots_only_ever_make_legal_moves(name):
    # BaseEngine.apply refuses anything not in legal_actions, so a full game is the check.
    engine = ENGINES[name]
    games = 0
    for players in range(engine.min_players, engine.max_players + 1):
        for seed in range(25):
            bots = ["heuristic" if (seat + seed) % 2 else "random" for seat in range(players)]
            state, _ = play_bots(engine, players, engine.default_options(), seed, bots)
            assert engine.outcome(state) is not None
            games += 1
    assert games >= 75


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_a_bot_sees_only_its_view(name):
    engine = ENGINES[name]
    state = engine.setup(engine.min_players, engine.default_options(), 9)
    seat = next(s for s in range(engine.min_players) if engine.legal_actions(state, s))
    view = engine.view(state, seat)
    seen = []

    class Spy(dict):
        def __getitem__(self, key):
            seen.append(key)
            return super().__getitem__(key)

    action = get_policy(name, "heuristic")(Spy(view), random.Random(1))
    assert action in engine.legal_actions(state, seat)
    assert "seed" not in seen and "draws" not in seen


def test_simulate_prints_rates_and_a_json_last_line():
    out = StringIO()
    call_command("simulate", "inside_job", "--players", "5", "--games", "20", "--seed", "3", stdout=out)
    lines = out.getvalue().strip().splitlines()
    report = json.loads(lines[-1])
    assert report["games"] == 20 and report["players"] == 5
    assert set(report["team_win_rate"]) == {"agents", "traitors"}
    assert len(report["seat_win_rate"]) == 5
    assert report["average_moves"] > 0 and report["games_per_second"] > 0
    again = StringIO()
    call_command("simulate", "inside_job", "--players", "5", "--games", "20", "--seed", "3", stdout=again)
    assert json.loads(again.getvalue().strip().splitlines()[-1])["team_win_rate"] == report["team_win_rate"]


def test_simulate_refuses_bad_arguments():
    with pytest.raises(CommandError):
        call_command("simulate", "inside_job", "--players", "3", "--games", "2")
    with pytest.raises(CommandError):
        call_command("simulate", "inside_job", "--players", "5", "--games", "2", "--option", "percival=true")
    with pytest.raises(CommandError):
        call_command("simulate", "inside_job", "--players", "5", "--games", "2", "--bot", "genius")


def test_heuristic_team_beats_random_team_in_inside_job():
    from engines.simulate import team_versus

    engine = ENGINES["inside_job"]
    versus = team_versus(engine, 5, engine.default_options(), 30, 7)
    assert set(versus) == {"agents", "traitors"}
    for team, rates in versus.items():
        assert rates["heuristic"] >= rates["random"] + 0.15, (team, rates)
        assert rates["outplayed"] <= rates["random"], (team, rates)
