"""Figures from finished games: games played, wins and win rates by game, role, seat and table size;
streaks; head-to-head; and the figures each game counts from its own log.

The event log is the source of truth: a finished game's ``Game.outcome`` is the engine's outcome
of its replayed log (``manage.py stats_rebuild`` checks and rewrites it), and everything here is
derived from those outcomes and the game seats, by pure functions over ``GameRecord`` rows
(``gameplay.records``: the read of finished games the game start's fair deals share). Only
finished games count: a running game's state, and a game the host ended early, never enter.

The per-seat figures of a game that an outcome does not hold come from replaying the game's moves
through its engine (:func:`log_figures`; each game's presentation.py says what its ``figures``
count, and which are the player's own secret, ``private_figures``); since a finished game's log
never changes, they are kept in the cache per game (:func:`games_figures`), and
``manage.py stats_rebuild`` computes them all again from the log. A secret figure shows only on
the player's own stats page and in their own download.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import QuerySet

from engines.registry import ENGINES, get_engine
from gameplay import records as game_records
from gameplay.models import Game, Move
from gameplay.records import GameRecord, SeatFigures
from infra.resilience import cache_guard
from lobby.models import Group, Player

logger = logging.getLogger(__name__)


def finished_games(games: QuerySet[Game], *, figures: bool = False) -> list[GameRecord]:
    """Records of the finished games in ``games``, oldest first (the order ratings are played in).

    ``figures``: with each game's figures from its log (``games_figures``: the cache, or a replay).
    """
    return game_records.finished_games(games, figures_of=games_figures if figures else None)


def group_records(group: Group, *, figures: bool = False) -> list[GameRecord]:
    """The finished games played for ``group``, oldest first (``figures``: with the log's figures)."""
    return finished_games(Game.objects.filter(group=group), figures=figures)


def player_records(player: Player, *, figures: bool = False) -> list[GameRecord]:
    """Every finished game ``player`` had a seat in (any group or none), oldest first."""
    return finished_games(Game.objects.filter(seats__player=player).distinct(), figures=figures)


# ------------------------------------------------------------------ figures from the log

# Bump when a figure's name or definition changes: every cached figure is then computed afresh.
FIGURES_VERSION = 2
# The figures each game has (``engine.figures``; the other games have none).
FIGURES: dict[str, tuple[str, ...]] = {name: engine.figures for name, engine in ENGINES.items() if engine.figures}
# Figures only the player themself may see (each game's ``private_figures``): secrets kept for good.
PRIVATE_FIGURES: frozenset[str] = frozenset().union(*(engine.private_figures for engine in ENGINES.values()))
# A finished game's log never changes: its figures keep until the version changes (or the cache forgets).
FIGURES_CACHE_SECONDS = 60 * 60 * 24 * 30
# Moves read per query when many games' figures are computed at once.
_MOVES_CHUNK = 200

Moves = Sequence[tuple[int | None, dict | None]]


def log_figures(engine_name: str, players: int, options: dict, seed: int, moves: Moves) -> tuple[SeatFigures, ...]:
    """Each seat's figures from a game's log: setup(seed) folded over ``moves`` through the engine
    (``engine.log_figures``, its presentation.py).

    Raises whatever the engine raises for a log it cannot replay. A game without figures gives
    an empty dict per seat.
    """
    if engine_name not in FIGURES:
        return tuple({} for _ in range(players))
    engine = get_engine(engine_name)
    return engine.log_figures(engine.setup(players, options, seed), options, moves, players)


def figures_key(game: Game) -> str:
    """The cache key of a game's figures (a finished game's log, and so its figures, never change)."""
    return f"stats:figures:{FIGURES_VERSION}:{game.pk}:{game.version}"


def game_log_figures(game: Game, moves: Moves | None = None) -> tuple[SeatFigures, ...]:
    """A game's figures replayed from its log (``moves``: its (seat, action) pairs, read if not given)."""
    if moves is None:
        moves = list(game.moves.order_by("seq").values_list("seat", "action"))
    return log_figures(game.engine, game.players, game.options, int(game.seed), moves)


def games_figures(games: Sequence[Game], *, refresh: bool = False) -> dict[int, tuple[SeatFigures, ...]]:
    """Each game's figures by id: from the cache, else replayed from its log (and kept in the cache).

    ``refresh``: replay every game, never read the cache (``manage.py stats_rebuild``). A log that
    cannot be replayed gives no figures (logged; the command says which game), never an error page.
    """
    keyed = {game.pk: figures_key(game) for game in games if game.engine in FIGURES}
    cached: dict[str, Any] = {}
    if keyed and not refresh:
        cached = cache_guard(lambda: cache.get_many(list(keyed.values())), {}, "stats figures")
    found = {pk: tuple(cached[key]) for pk, key in keyed.items() if key in cached}
    missing = [game for game in games if game.pk in keyed and game.pk not in found]
    moves: dict[int, list[tuple[int | None, dict | None]]] = {game.pk: [] for game in missing}
    for start in range(0, len(missing), _MOVES_CHUNK):
        ids = [game.pk for game in missing[start:start + _MOVES_CHUNK]]
        rows = Move.objects.filter(game_id__in=ids).order_by("game_id", "seq").values_list("game_id", "seat", "action")
        for game_id, seat, action in rows:
            moves[game_id].append((seat, action))
    fresh: dict[int, tuple[SeatFigures, ...]] = {}
    for game in missing:
        try:
            fresh[game.pk] = game_log_figures(game, moves[game.pk])
        except Exception as error:  # a broken log: no figures for it, the page still answers
            logger.warning("game %s: figures not replayable from its log: %r", game.pk, error)
    if fresh:
        cache_guard(lambda: cache.set_many({keyed[pk]: list(value) for pk, value in fresh.items()},
                                           timeout=FIGURES_CACHE_SECONDS), None, "stats figures")
    return {**found, **fresh}


@dataclass
class Tally:
    """Games played and won."""

    played: int = 0
    wins: int = 0

    def add(self, won: bool) -> None:
        self.played += 1
        self.wins += int(won)

    @property
    def rate(self) -> float:
        return self.wins / self.played if self.played else 0.0

    @property
    def percent(self) -> int:
        return round(100 * self.rate)


@dataclass
class PlayerStats:
    """One player's figures over a list of games."""

    total: Tally = field(default_factory=Tally)
    by_game: dict[str, Tally] = field(default_factory=dict)
    # (engine, role or team) -> tally; a game with neither is left out.
    by_role: dict[tuple[str, str], Tally] = field(default_factory=dict)
    by_team: dict[tuple[str, str], Tally] = field(default_factory=dict)
    # Seat position counted from 1 (clockwise from the first seat), and the table's size.
    by_seat: dict[int, Tally] = field(default_factory=dict)
    by_count: dict[int, Tally] = field(default_factory=dict)
    # Results oldest first (True: won): the streaks read them.
    results: list[bool] = field(default_factory=list)
    # engine -> figure -> total over the player's games of that engine (``log_figures``; only
    # from records that carry figures: ``finished_games(..., figures=True)``).
    figures: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def current_streak(self) -> tuple[bool | None, int]:
        """(won or lost, how many games in a row) ending with the latest game; (None, 0) with no games."""
        if not self.results:
            return None, 0
        last = self.results[-1]
        length = 0
        for result in reversed(self.results):
            if result != last:
                break
            length += 1
        return last, length

    @property
    def longest_win_streak(self) -> int:
        return _longest(self.results, True)

    @property
    def longest_losing_streak(self) -> int:
        return _longest(self.results, False)


def _longest(results: list[bool], value: bool) -> int:
    best = run = 0
    for result in results:
        run = run + 1 if result == value else 0
        best = max(best, run)
    return best


def player_stats(records: Iterable[GameRecord], player_id: int) -> PlayerStats:
    """``player_id``'s figures over ``records`` (games they did not sit in are skipped)."""
    stats = PlayerStats()
    for record in records:
        seat = record.seat_of(player_id)
        if seat is None:
            continue
        won = seat in record.winners
        stats.total.add(won)
        stats.by_game.setdefault(record.engine, Tally()).add(won)
        role, team = record.roles[seat], record.teams[seat]
        if role:
            stats.by_role.setdefault((record.engine, role), Tally()).add(won)
        if team:
            stats.by_team.setdefault((record.engine, team), Tally()).add(won)
        stats.by_seat.setdefault(seat + 1, Tally()).add(won)
        stats.by_count.setdefault(record.players, Tally()).add(won)
        stats.results.append(won)
        if record.engine in FIGURES and seat < len(record.figures):
            totals = stats.figures.setdefault(record.engine, dict.fromkeys(FIGURES[record.engine], 0))
            for name, value in record.figures[seat].items():
                totals[name] = totals.get(name, 0) + int(value)
    return stats


def public_figures(figures: dict[str, dict[str, int]], *, private: bool = False) -> dict[str, dict[str, int]]:
    """The figures by engine without ``PRIVATE_FIGURES`` (kept with ``private``: the player's own page)."""
    return {engine: {k: v for k, v in values.items() if private or k not in PRIVATE_FIGURES}
            for engine, values in figures.items()}


@dataclass
class HeadToHead:
    """Two players' games together: how often each won, and how often on the same side."""

    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    # Games where both were on the same team (a team game's teams); the rest were opponents.
    same_team: int = 0


def head_to_head(records: Iterable[GameRecord], a: int, b: int) -> HeadToHead:
    """The games ``a`` and ``b`` both sat in, and the wins of each."""
    result = HeadToHead()
    for record in records:
        seat_a, seat_b = record.seat_of(a), record.seat_of(b)
        if seat_a is None or seat_b is None or a == b:
            continue
        result.games += 1
        result.wins_a += int(seat_a in record.winners)
        result.wins_b += int(seat_b in record.winners)
        if record.team_game and record.teams[seat_a] is not None and record.teams[seat_a] == record.teams[seat_b]:
            result.same_team += 1
    return result


def tally_rows(tallies: dict, key_name: str = "key") -> list[dict]:
    """A dict of tallies as template rows sorted by key: {key, played, wins, percent}."""
    return [{key_name: key, "played": t.played, "wins": t.wins, "percent": t.percent}
            for key, t in sorted(tallies.items())]


def stats_context(stats: PlayerStats, *, private: bool = False) -> dict:
    """A player's figures as plain rows for the stats templates.

    ``private``: the page is the player's own, so their secret figures (``PRIVATE_FIGURES``) show too.
    """
    won, length = stats.current_streak
    return {
        "figures": public_figures(stats.figures, private=private),
        # Every game whose log gives figures, by name: a section each (templates/games/<engine>/figures.html).
        "figure_games": sorted(FIGURES),
        "total": stats.total,
        "by_game": tally_rows(stats.by_game, "engine"),
        "by_role": [dict(row, engine=row["key"][0], role=row["key"][1]) for row in tally_rows(stats.by_role)],
        "by_seat": tally_rows(stats.by_seat, "seat"),
        "by_count": tally_rows(stats.by_count, "count"),
        "streak_won": won,
        "streak": length,
        "longest_win": stats.longest_win_streak,
        "longest_loss": stats.longest_losing_streak,
    }


def export_rows(records: Iterable[GameRecord], player_id: int) -> list[dict]:
    """The player's finished games as plain rows for a download: what the game's end revealed, and the
    figures of the player's own seat (``log_figures``, with their own secret ones: the download is theirs)."""
    rows = []
    for record in records:
        seat = record.seat_of(player_id)
        if seat is None:
            continue
        rows.append({
            "game": record.id, "engine": record.engine,
            "finished": record.finished.isoformat() if record.finished else None,
            "players": record.players, "seat": seat + 1, "won": seat in record.winners,
            "team": record.teams[seat], "role": record.roles[seat], "names": list(record.names),
            # The log's figures of the player's own seat (their own secrets too: it is their download).
            "figures": dict(record.figures[seat]) if seat < len(record.figures) else {},
        })
    return rows
