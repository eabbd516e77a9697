"""Benchmark the web layer: moves per second through move_submit, and panel renders per second.

Everything it writes is rolled back at the end, so it can run against any database.
"""

from __future__ import annotations

import json
import random
import resource
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.template.loader import render_to_string

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_context, game_state
from gameplay.services import game_expire, game_start, move_submit
from lobby.models import Player, Seat, Table


class _Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Play games through move_submit and render every phone's panel; print moves/s, renders/s, memory."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=sorted(ENGINES))
        parser.add_argument("--players", type=int, default=5)
        parser.add_argument("--games", type=int, default=3)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, game: str, players: int, games: int, seed: int, **options):
        engine = get_engine(game)
        if not engine.min_players <= players <= engine.max_players:
            raise CommandError(f"{engine.title} takes {engine.min_players}-{engine.max_players} players")
        report: dict = {}
        try:
            with transaction.atomic():
                report = self._run(game, players, games, random.Random(seed))
                raise _Rollback
        except _Rollback:
            pass
        # Peak resident memory of this process (Linux reports it in KiB).
        report["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        self.stdout.write(
            f"{engine.title}, {players} players, {games} games: {report['moves']} moves, "
            f"{report['moves_per_second']} moves/s through move_submit, "
            f"{report['renders_per_second']} phone panels/s, peak {report['peak_memory_mb']} MB"
        )
        self.stdout.write(json.dumps(report, sort_keys=True))

    def _run(self, game: str, players: int, games: int, rng: random.Random) -> dict:
        engine = get_engine(game)
        people = [Player.objects.create(nickname=f"Bench {i + 1}") for i in range(players)]
        table = Table.objects.create(code="BENCH", host=people[0], engine=game, options={}, timer_seconds=10)
        for i, person in enumerate(people):
            Seat.objects.create(table=table, position=i, player=person)
        moves = renders = 0
        move_time = render_time = 0.0
        for _ in range(games):
            current = game_start(table=table)
            while not current.over:
                state = game_state(current)
                movers = [s for s in range(players) if engine.legal_actions(state, s)]
                started = time.perf_counter()
                if movers:
                    seat = rng.choice(movers)
                    action = rng.choice(engine.legal_actions(state, seat))
                    # A refusal raises (MoveRefused): a bench that stops there says which move.
                    move_submit(game_id=current.pk, player=people[seat], version=current.version,
                                move_id=None, action=action)
                else:
                    Game.objects.filter(pk=current.pk).update(deadline=current.created)
                    game_expire(game_id=current.pk)
                move_time += time.perf_counter() - started
                moves += 1
                current.refresh_from_db()
                seat = rng.randrange(players)
                started = time.perf_counter()
                context = game_context(game=current, seat=seat)
                render_to_string(context["phone_template"], {**context, "move_url": "/m", "csrf_token": "t"})
                render_time += time.perf_counter() - started
                renders += 1
        return {
            "engine": game,
            "players": players,
            "games": games,
            "moves": moves,
            "moves_per_second": round(moves / move_time, 1),
            "renders_per_second": round(renders / render_time, 1),
        }
