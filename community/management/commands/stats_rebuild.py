"""Rebuild the figures from the event log: each finished game's outcome and figures from its replayed moves.

Stats and ratings (``community.stats``, ``community.ratings``) are computed from finished games'
``Game.outcome``, seats and per-seat figures (what each game counts from its log, as its
presentation.py declares: ``stats.log_figures``). The outcome and the cached figures are
caches of what the log says. This command replays every finished game (of one group with
``--group``) from its seed and moves, rewrites any outcome that differs from the replay, puts
every game's figures from the replay into the cache (``--check``: only report differences), and
prints each group's figures.
"""

from __future__ import annotations

import json

from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError

from community.ratings import leaderboard, rate_games
from community.stats import (
    FIGURES,
    FIGURES_CACHE_SECONDS,
    PRIVATE_FIGURES,
    figures_key,
    game_log_figures,
    group_records,
    player_stats,
)
from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_replay
from infra.resilience import cache_guard
from lobby.models import Group, Player


def _plain(value):
    """``value`` as the database's JSON column keeps it (so a dict compares equal to its stored copy)."""
    return json.loads(json.dumps(value))


def outcome_from_log(game: Game) -> dict | None:
    """The outcome the game's log gives when replayed from its seed (None if the log does not end the game)."""
    state = game_replay(game, checked=True)
    outcome = get_engine(game.engine).outcome(state)
    return None if outcome is None else _plain(outcome)


def _cached(key: str):
    """A game's cached figures (None: not cached, or no cache to ask)."""
    return cache_guard(lambda: cache.get(key), None, "stats figures")


def _cache(key: str, figures: list) -> None:
    """Keep a game's figures from its log in the cache."""
    cache_guard(lambda: cache.set(key, figures, timeout=FIGURES_CACHE_SECONDS), None, "stats figures")


class Command(BaseCommand):
    help = "Replay finished games, rewrite outcomes that differ from their log, and print groups' figures."

    def add_arguments(self, parser):
        parser.add_argument("--group", type=int, help="only the games of this group (id)")
        parser.add_argument("--check", action="store_true", help="report differences, change nothing")

    def handle(self, *args, group: int | None = None, check: bool = False, **options):
        games = Game.objects.filter(status=Game.FINISHED)
        groups = Group.objects.order_by("pk")
        if group is not None:
            if not Group.objects.filter(pk=group).exists():
                raise CommandError(f"no group {group}")
            games, groups = games.filter(group_id=group), groups.filter(pk=group)
        replayed = differed = figures_differed = 0
        for game in games.order_by("pk").iterator():
            try:
                outcome = outcome_from_log(game)
                figures = _plain(list(game_log_figures(game))) if game.engine in FIGURES else None
            except Exception as error:  # a broken log: say which game, never a traceback
                raise CommandError(f"game {game.pk}: replay fails: {error}") from error
            if outcome is None:
                raise CommandError(f"game {game.pk}: its log does not finish the game")
            replayed += 1
            if outcome != _plain(game.outcome):
                differed += 1
                self.stdout.write(f"game {game.pk}: recorded outcome differs from its log"
                                  + ("" if check else "; rewritten from the log"))
                if not check:
                    Game.objects.filter(pk=game.pk).update(outcome=outcome)
            if figures is not None:
                key = figures_key(game)
                cached = _cached(key)
                if cached is not None and _plain(list(cached)) != figures:
                    figures_differed += 1
                    self.stdout.write(f"game {game.pk}: cached figures differ from its log"
                                      + ("" if check else "; computed again from the log"))
                if not check:
                    _cache(key, figures)
        self.stdout.write(f"{replayed} finished games replayed, {differed} outcomes differed, "
                          f"{figures_differed} cached figures differed"
                          + (" (not changed: --check)" if check and (differed or figures_differed) else ""))
        for each in groups:
            self._print_group(each)
        if check and (differed or figures_differed):
            raise CommandError(f"{differed} outcomes and {figures_differed} cached figures differ from their log")

    def _print_group(self, group: Group) -> None:
        """The group's games, each leaderboard (ranked players: rating and games) and each member's figures.

        Only the public figures: the games' secret ones (``stats.PRIVATE_FIGURES``) stay secret.
        """
        records = group_records(group, figures=True)
        members = Player.objects.filter(memberships__group=group, user__isnull=False, deleted=False).order_by("pk")
        counted = {p.pk: p for p in members}
        self.stdout.write(f"group {group.pk} {group.name!r}: {len(records)} games")
        for engine, table in sorted(rate_games(records, set(counted)).items()):
            ranked, unranked = leaderboard(table)
            rows = ", ".join(f"{p.name} {p.ordinal:.2f} ({p.games})" for p in ranked) or "-"
            self.stdout.write(f"  {engine}: ranked {rows}; not yet ranked {len(unranked)}")
        for pid, player in counted.items():
            figures = player_stats(records, pid).figures
            for engine, values in sorted(figures.items()):
                shown = " ".join(f"{name}={value}" for name, value in values.items() if name not in PRIVATE_FIGURES)
                self.stdout.write(f"  {player.nickname} {engine}: {shown}")
