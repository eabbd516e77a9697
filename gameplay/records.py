"""Finished games as records: who sat where, who won, each seat's team and role, as the end of the game
revealed them to the whole table (so every figure made from them is public).

The one read of finished games that both the game start (``gameplay.fairness``: a group's fair deals)
and the figures after the games (``community.stats``, ``community.nights``, ``community.ratings``) need,
kept here so gameplay never imports the community app. Only finished games count: a running game's
state, and a game the host ended early, never enter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import QuerySet

from engines.base import seat_team
from engines.registry import ENGINES
from gameplay.models import Game
from lobby.account import shown_seat_name

# One seat's figures from the log (``community.stats.log_figures``): figure name -> count.
SeatFigures = dict[str, int]


@dataclass(frozen=True)
class GameRecord:
    """One finished game as the figures see it: who sat where, who won, each seat's team and role."""

    id: int
    engine: str
    finished: datetime | None
    players: int
    # By seat index: the player's id (None for a bot or a seat whose player is gone) and the seat's name.
    seat_players: tuple[int | None, ...]
    names: tuple[str, ...]
    winners: frozenset[int]
    teams: tuple[str | None, ...]
    roles: tuple[str | None, ...]
    team_game: bool
    # By seat: the figures its log gives (``community.stats.log_figures``); () when they were not asked for.
    figures: tuple[SeatFigures, ...] = field(default=(), hash=False)

    def seat_of(self, player_id: int) -> int | None:
        """The seat ``player_id`` played in this game, or None."""
        return self.seat_players.index(player_id) if player_id in self.seat_players else None


def seat_role(engine: str, outcome: dict, seat: int) -> str | None:
    """A seat's role from the end-of-game reveal, in the game's own words (None where the game has none):
    the engine's ``seat_role`` (its presentation.py)."""
    found = ENGINES.get(engine)
    return found.seat_role(outcome, seat) if found is not None else None


def record_of(game: Game, seats: Iterable, figures: tuple[SeatFigures, ...] = ()) -> GameRecord:
    """The record of a finished game row with its GameSeats (in index order), and its figures if given."""
    outcome = game.outcome or {}
    ordered = sorted(seats, key=lambda s: s.index)
    # A seat a bot finished for its player (a departed phone) still counts as that player's game.
    players = [s.player_id for s in ordered]
    return GameRecord(
        id=game.pk,
        engine=game.engine,
        finished=game.finished,
        players=game.players,
        seat_players=tuple(players),
        # A deleted account's seats read as the neutral name (their stored names were erased).
        names=tuple(shown_seat_name(s.name) for s in ordered),
        winners=frozenset(int(w) for w in outcome.get("winners", [])),
        teams=tuple(seat_team(outcome, i) for i in range(len(ordered))),
        roles=tuple(seat_role(game.engine, outcome, i) for i in range(len(ordered))),
        team_game=bool(outcome.get("teams")),
        figures=figures,
    )


FiguresOf = Callable[[Sequence[Game]], dict[int, tuple[SeatFigures, ...]]]


def finished_games(games: QuerySet[Game], *, figures_of: FiguresOf | None = None) -> list[GameRecord]:
    """Records of the finished games in ``games``, oldest first (the order ratings are played in; two queries).

    ``figures_of``: each game's figures by id (``community.stats.games_figures``), put on its record.
    """
    rows = list(games.filter(status=Game.FINISHED, outcome__isnull=False).order_by("finished", "pk")
                .prefetch_related("seats"))
    found = figures_of(rows) if figures_of is not None else {}
    return [record_of(game, game.seats.all(), found.get(game.pk, ())) for game in rows]
