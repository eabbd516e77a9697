"""``manage.py replaybench``: how long rebuilding a game from its log takes, per engine.

For each engine it plays random legal games (engine only, no database) until one reaches
``--moves`` moves or ends, then times the log's fast fold (``engine.replay``, what pages and
the replay page use) and the checked fold (``apply`` move by move, what ``verify_game`` uses),
and checks that both give the same state.
"""

from __future__ import annotations

import json
import random
import time

from django.core.management.base import BaseCommand

from engines.registry import ENGINES, get_engine


def longest_log(engine, players: int, moves: int, seeds: int) -> tuple[int, list]:
    """(seed, log) of the longest random game among ``seeds`` tries, cut at ``moves`` moves."""
    best: tuple[int, list] = (0, [])
    for seed in range(seeds):
        rng = random.Random(seed)
        state = engine.setup(players, engine.validate_options({}, players), seed)
        log: list = []
        while engine.outcome(state) is None and len(log) < moves:
            movers = [(s, a) for s in range(players) for a in engine.legal_actions(state, s)]
            if not movers:
                state = engine.on_timeout(state)
                log.append((None, None))
                continue
            seat, action = rng.choice(movers)
            state = engine.apply(state, seat, action)
            log.append((seat, action))
        if len(log) > len(best[1]):
            best = (seed, log)
        if len(log) >= moves:
            break
    return best


def checked_fold(engine, players: int, options: dict, seed: int, log: list):
    """The log judged again move by move through ``apply`` (as ``verify_game`` does)."""
    return engine.replay_checked(engine.setup(players, options, seed), log)


def fast_fold(engine, players: int, options: dict, seed: int, log: list):
    """The log's fast fold (``engine.replay``), as pages and the replay page rebuild a state."""
    return engine.replay(engine.setup(players, options, seed), log)


def time_ms(fold, repeat: int, *args) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        fold(*args)
    return (time.perf_counter() - started) / repeat * 1000


class Command(BaseCommand):
    help = "Time rebuilding a game of up to --moves moves from its log, for every engine."

    def add_arguments(self, parser):
        parser.add_argument("--moves", type=int, default=300)
        parser.add_argument("--repeat", type=int, default=20)

    def handle(self, *args, moves: int, repeat: int, **options):
        report = {}
        for name in sorted(ENGINES):
            engine = get_engine(name)
            players = min(engine.max_players, 6)
            seed, log = longest_log(engine, players, moves, seeds=60)
            game = (engine, players, engine.validate_options({}, players), seed, log)
            assert engine.encode(fast_fold(*game)) == engine.encode(checked_fold(*game)), f"{name}: the folds differ"
            fast, checked = time_ms(fast_fold, repeat, *game), time_ms(checked_fold, repeat, *game)
            per_move = fast * 1000 / max(1, len(log))
            report[name] = {"players": players, "moves": len(log), "fast_ms": round(fast, 2),
                            "checked_ms": round(checked, 2), "fast_us_per_move": round(per_move, 1)}
            self.stdout.write(f"{engine.title}: {len(log)} moves, {players} players: replay {fast:.2f} ms "
                              f"({per_move:.1f} µs a move; "
                              f"checked through apply: {checked:.2f} ms)")
        self.stdout.write(json.dumps(report, sort_keys=True))
