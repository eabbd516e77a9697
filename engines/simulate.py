"""Bot-only games for balance figures (used by `manage.py simulate` and the bot tests)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from engines.base import Engine, JSONDict, State, seat_team
from engines.bots import get_policy


def parse_option(engine: Engine, raw: str) -> tuple[str, object]:
    """``key=value`` from the command line, typed by the engine's option spec."""
    key, sep, value = raw.partition("=")
    if not sep:
        raise ValueError(f"--option takes key=value, not {raw!r}")
    specs = {spec["key"]: spec for spec in engine.option_specs()}
    if key not in specs:
        raise ValueError(f"unknown option {key!r}; known: {', '.join(sorted(specs))}")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    return key, parsed


def play_bots(engine: Engine, players: int, options: JSONDict, seed: int, bots: list[str], *,
              max_steps: int = 20000) -> tuple[State, int]:
    """One game where each seat's bot sees only its own view; returns (final state, moves made).

    Deterministic for a seed. Outside a silent window one seat that may move is picked at
    random and its bot must return a legal action. In a silent window (``countdown`` not
    None) the seats that may play are asked in a random order; the first bot that wants a
    move plays it. When nobody wants to move (every bot returned None, or no seat has a
    legal action) the open window expires (``on_timeout``).
    """
    rng = random.Random(seed)
    policies = [get_policy(engine.name, bot) for bot in bots]
    state = engine.setup(players, options, seed)
    moves = 0
    for _ in range(max_steps):
        if engine.outcome(state) is not None:
            return state, moves
        movers = [s for s in range(players) if engine.legal_actions(state, s)]
        silent = engine.window(state) is not None and engine.countdown(state) is not None
        chosen = None
        if silent:
            for seat in rng.sample(movers, len(movers)):
                action = policies[seat](engine.view(state, seat), rng)
                if action is not None:
                    chosen = seat, action
                    break
        elif movers:
            seat = rng.choice(movers)
            action = policies[seat](engine.view(state, seat), rng)
            if action is None:
                raise RuntimeError(f"{engine.name}: bot {bots[seat]!r} of seat {seat} returned None "
                                   f"outside a silent window (seed {seed})")
            chosen = seat, action
        if chosen is None:
            state = engine.on_timeout(state)
            continue
        state = engine.apply(state, *chosen)
        moves += 1
    raise RuntimeError(f"{engine.name}: a bot game did not end in {max_steps} steps (seed {seed})")


def final_outcome(engine: Engine, state: State) -> JSONDict:
    """The outcome of a game ``play_bots`` finished (it only returns finished games)."""
    outcome = engine.outcome(state)
    assert outcome is not None, "play_bots returns finished games only"
    return outcome


def team_of(outcome: JSONDict, seat: int) -> str:
    """The team a seat ended on (a game without teams: the seat itself)."""
    return seat_team(outcome, seat) or f"seat {seat + 1}"


def simulate(engine: Engine, players: int, options: JSONDict, games: int, bots: list[str], seed: int) -> JSONDict:
    """Play ``games`` games; win rates by team and seat, average length, heuristic vs random."""
    team_wins: Counter[Any] = Counter()
    team_games: Counter[Any] = Counter()
    seat_wins = [0] * players
    policy_wins: Counter[Any] = Counter()
    policy_games: Counter[Any] = Counter()
    total_moves = 0
    for g in range(games):
        state, moves = play_bots(engine, players, options, seed * 100003 + g, bots)
        total_moves += moves
        outcome = final_outcome(engine, state)
        winners = set(outcome["winners"])
        teams_won = {team_of(outcome, s) for s in winners}
        for team in {team_of(outcome, s) for s in range(players)}:
            team_games[team] += 1
            team_wins[team] += team in teams_won
        for seat in range(players):
            seat_wins[seat] += seat in winners
            policy_games[bots[seat]] += 1
            policy_wins[bots[seat]] += seat in winners
    return {
        "engine": engine.name,
        "players": players,
        "games": games,
        "bots": bots,
        "team_win_rate": {t: team_wins[t] / team_games[t] for t in sorted(team_games)},
        "seat_win_rate": [w / games for w in seat_wins],
        "policy_win_rate": {p: policy_wins[p] / policy_games[p] for p in sorted(policy_games)},
        "average_moves": total_moves / games,
    }


def starting_teams(engine: Engine, state: State) -> list[str | None]:
    """Each seat's team at the start, as its own view names it (None where the game has no teams)."""
    if engine.team_key is None:
        return [None] * state_players(engine, state)
    return [engine.view(state, seat)[engine.team_key] for seat in range(state_players(engine, state))]


def state_players(engine: Engine, state: State) -> int:
    """The number of seats, read from the public view."""
    players: int = engine.view(state, None)["players"]
    return players


def team_versus(engine: Engine, players: int, options: JSONDict, games: int, seed: int) -> JSONDict:
    """For each starting team: its win rate with all random, heuristic vs random, random vs heuristic."""
    results: dict[str, dict[str, list[int]]] = {}
    for g in range(games):
        game_seed = seed * 100003 + g
        teams = starting_teams(engine, engine.setup(players, options, game_seed))
        for team in sorted({t for t in teams if t is not None}):
            row = results.setdefault(team, {"random": [0, 0], "heuristic": [0, 0], "outplayed": [0, 0]})
            for label, mine, rest in (("random", "random", "random"), ("heuristic", "heuristic", "random"),
                                      ("outplayed", "random", "heuristic")):
                bots = [mine if t == team else rest for t in teams]
                state, _ = play_bots(engine, players, options, game_seed, bots)
                winners = final_outcome(engine, state)["winners"]
                row[label][0] += any(teams[s] == team for s in winners)
                row[label][1] += 1
    return {team: {label: won / total for label, (won, total) in row.items()} for team, row in results.items()}
