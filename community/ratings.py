"""Ratings per group and per game: openskill's Weng-Lin Bayesian rating (Plackett-Luce model).

Why this method (the "about ratings" page says the same to players): every player has a skill
estimate ``mu`` and an uncertainty ``sigma``. Elo knows only two players; Weng-Lin rates teams
of any size and games of many players at once, and a win over a strong table moves a rating
more than a win over a weak one. Its uncertainty shrinks as games are played, so newcomers move
fast and regulars settle. It is TrueSkill's idea without TrueSkill's patent or its slow message
passing, and ``openskill`` is a small, maintained, MIT-licensed library.

How a game is rated: the games of one group and one game system are played in the order they
finished. A team game (its outcome names teams) is two teams, the winners against the rest, so a
hidden-role game rates the side a player was dealt and won with. A game without teams is every
player for themself: the winner first, the others tied behind. A seat that is not a counted
member (a bot, a guest, someone outside the group) plays at a fresh default rating each game and
is never ranked. The shown rating is the cautious estimate ``mu - 3 sigma`` (the "ordinal"),
which starts at 0 and grows as the system becomes sure of a player's strength. A player is
ranked from ``MIN_GAMES`` rated games on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from openskill.models import PlackettLuce

from gameplay.records import GameRecord

MIN_GAMES = 5
MODEL = PlackettLuce()


@dataclass
class PlayerRating:
    """A player's rating in one game system, and its value after each of their rated games."""

    player_id: int
    name: str
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    # (game id, finished, ordinal after that game), oldest first: the chart of the rating over time.
    history: list[tuple[int, datetime | None, float]] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        """The cautious estimate shown as the rating: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    @property
    def ranked(self) -> bool:
        return self.games >= MIN_GAMES


def _sides(record: GameRecord) -> tuple[list[list[int]], list[float]] | None:
    """The seats as teams with their ranks (1 first) for openskill, or None for a game without a result to rate."""
    seats = range(len(record.seat_players))
    winners = [s for s in seats if s in record.winners]
    losers = [s for s in seats if s not in record.winners]
    if not winners or not losers:
        return None
    if record.team_game:
        return [winners, losers], [1.0, 2.0]
    # Every player for themself: the winners share the first place, the others tie behind.
    return [[s] for s in winners] + [[s] for s in losers], [1.0] * len(winners) + [2.0] * len(losers)


def rate_games(records: Iterable[GameRecord], counted: set[int]) -> dict[str, dict[int, PlayerRating]]:
    """Every counted player's rating per game system after ``records`` (oldest first)."""
    tables: dict[str, dict[int, PlayerRating]] = {}
    for record in records:
        sides = _sides(record)
        if sides is None:
            continue
        teams, ranks = sides
        table = tables.setdefault(record.engine, {})
        mine: dict[int, PlayerRating] = {}
        for seat, pid in enumerate(record.seat_players):
            if pid is not None and pid in counted:
                mine[seat] = table.setdefault(pid, PlayerRating(player_id=pid, name=record.names[seat]))
        ratings = [[MODEL.rating(mu=mine[s].mu, sigma=mine[s].sigma) if s in mine else MODEL.rating()
                    for s in team] for team in teams]
        new = MODEL.rate(ratings, ranks=ranks)
        for team, rated in zip(teams, new, strict=True):
            for seat, rating in zip(team, rated, strict=True):
                if seat in mine:
                    player = mine[seat]
                    player.mu, player.sigma = rating.mu, rating.sigma
                    player.games += 1
                    player.name = record.names[seat]
                    player.history.append((record.id, record.finished, player.ordinal))
    return tables


def leaderboard(table: dict[int, PlayerRating]) -> tuple[list[PlayerRating], list[PlayerRating]]:
    """(ranked players best first, players with fewer than MIN_GAMES games by games played)."""
    ranked = sorted((p for p in table.values() if p.ranked), key=lambda p: (-p.ordinal, p.player_id))
    unranked = sorted((p for p in table.values() if not p.ranked), key=lambda p: (-p.games, p.player_id))
    return ranked, unranked
