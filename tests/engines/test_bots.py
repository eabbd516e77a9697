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


def silent_variant(engine) -> dict | None:
    """The options with silent windows on, where the game makes them a table option."""
    if any(spec["key"] == "silent_windows" for spec in engine.option_specs()):
        return dict(engine.default_options(), silent_windows=True)
    return None


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_bots_only_ever_make_legal_moves(name):
    # BaseEngine.apply refuses anything not in legal_actions, so a full game is the check;
    # play_bots refuses a None outside a silent window.
    engine = ENGINES[name]
    games = 0
    variants = [(engine.default_options(), 25)]
    if silent_variant(engine) is not None:
        variants.append((silent_variant(engine), 10))
    for options, seeds in variants:
        for players in range(engine.min_players, engine.max_players + 1):
            for seed in range(seeds):
                bots = ["heuristic" if (seat + seed) % 2 else "random" for seat in range(players)]
                state, _ = play_bots(engine, players, options, seed, bots)
                assert engine.outcome(state) is not None
                games += 1
    assert games >= 75


class Recorder:
    """An engine wrapper that records what play_bots does (moves and expiries)."""

    def __init__(self, engine):
        self.engine = engine
        self.trace: list = []

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def apply(self, state, seat, action):
        self.trace.append(("move", seat, action, self.engine.countdown(state)))
        return self.engine.apply(state, seat, action)

    def on_timeout(self, state):
        self.trace.append(("expire", self.engine.window(state), self.engine.countdown(state)))
        return self.engine.on_timeout(state)


@pytest.mark.parametrize("name", ["good_cop_bad_cop", "coup"])
def test_play_bots_lets_silent_windows_pass_and_is_deterministic(name):
    engine = ENGINES[name]
    options = silent_variant(engine) or engine.default_options()
    players = engine.min_players + 2
    bots = ["heuristic"] * players
    first, second = Recorder(engine), Recorder(engine)
    state_a, moves_a = play_bots(first, players, options, 4, bots)
    state_b, moves_b = play_bots(second, players, options, 4, bots)
    assert first.trace == second.trace and moves_a == moves_b
    assert engine.encode(state_a) == engine.encode(state_b)
    # Silent windows were open and closed by expiry when no bot wanted to answer; nobody passed.
    assert any(entry[0] == "expire" and entry[2] is not None for entry in first.trace)
    assert not any(entry[2]["type"] in ("pass", "allow") for entry in first.trace if entry[0] == "move")


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


@pytest.mark.parametrize("name,players,options", [("good_cop_bad_cop", 5, []),
                                                  ("coup", 4, ["--option", "silent_windows=true"])])
def test_simulate_runs_games_with_silent_windows(name, players, options):
    out = StringIO()
    call_command("simulate", name, "--players", str(players), "--games", "5", "--seed", "2", *options, stdout=out)
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert report["games"] == 5 and report["average_moves"] > 0


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


def test_the_random_bot_lets_most_silent_windows_pass_and_answers_alike_for_a_seed():
    """As people do: in a silent window a random bot plays a card it holds only now and then."""
    from engines.bots import SILENT_PLAY, random_bot
    from engines.good_cop_bad_cop import ENGINE
    from tests.engines.good_cop_bad_cop.helpers import five, play

    # A Shoot at seat 1, who holds a Restraining Order: a silent window where it may play the card.
    state = play(five(hands=[[], ["restraining_order"], [], [], []], guns={0: 1}), 0, {"type": "shoot"})
    view = ENGINE.view(state, 1)
    assert view["silent"] and view["legal"]
    answers = [random_bot(view, random.Random(f"7:{version}:1")) for version in range(1000)]
    played = [a for a in answers if a is not None]
    assert all(a in view["legal"] for a in played)
    assert 0 < len(played) / len(answers) < 2 * SILENT_PLAY  # most windows pass; some do not
    # Seeded alike (the worker's game, version and seat), the same answer: asked again, it does not re-roll.
    assert [random_bot(view, random.Random(f"7:{version}:1")) for version in range(1000)] == answers
    # Outside a silent window it always plays one of its legal moves.
    turn = ENGINE.view(five(), 0)
    assert not turn["silent"]
    assert all(random_bot(turn, random.Random(seed)) in turn["legal"] for seed in range(200))
