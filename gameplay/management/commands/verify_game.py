"""Replay a finished game from its seed and moves and confirm the recorded outcome."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engines.base import seed_hash
from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_replay


class Command(BaseCommand):
    help = "Replay a finished or host-ended game from seed and moves; confirm its outcome, snapshot and seed hash."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, *args, game_id: int, **options):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"no game {game_id}")
        if not game.over:
            raise CommandError(f"game {game_id} is still running")
        if seed_hash(int(game.seed)) != game.seed_hash:
            raise CommandError("the seed does not match the hash published at the start")
        engine = get_engine(game.engine)
        try:
            state = game_replay(game, checked=True)
        except Exception as error:  # a tampered or broken log: say so, never a traceback
            raise CommandError(f"replay fails: {error}") from error
        outcome = engine.outcome(state)
        if game.status == Game.ENDED:
            # The host stopped it: the rules reached no end, and the record says who stopped it.
            if outcome is not None:
                raise CommandError(f"replay gives a finished game {outcome}, the record says it was ended early")
            outcome = game.outcome or {}
            if outcome.get("reason") != "ended_by_host" or outcome.get("winners"):
                raise CommandError(f"an ended game must record no winners and reason ended_by_host, not {outcome}")
        elif outcome is None or outcome != game.outcome:
            raise CommandError(f"replay gives {outcome}, the record says {game.outcome}")
        if engine.encode(state) != game.snapshot:
            raise CommandError("replay differs from the cached snapshot")
        self.stdout.write(
            f"game {game_id} verified: {game.version} moves replayed from the seed; "
            f"{game.status}: winners {outcome['winners']} ({outcome.get('reason', '')})"
        )
