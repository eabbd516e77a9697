"""Figures from finished games: games played, wins and win rates by game, role, seat and table size;
streaks; head-to-head.

The event log is the source of truth: a finished game's ``Game.outcome`` is the engine's outcome
of its replayed log (``manage.py stats_rebuild`` checks and rewrites it), and everything here is
derived from those outcomes and the game seats, by pure functions over ``GameRecord`` rows. Only
finished games count: a running game's state, and a game the host ended early, never enter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import QuerySet

from engines.base import seat_team
from gameplay.models import Game
from lobby.models import Group, Player


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

    def seat_of(self, player_id: int) -> int | None:
        """The seat ``player_id`` played in this game, or None."""
        return self.seat_players.index(player_id) if player_id in self.seat_players else None


def seat_role(engine: str, outcome: dict, seat: int) -> str | None:
    """A seat's role from the end-of-game reveal, in the game's own words (None where the game has none).

    Inside Job: the revealed role (agent, traitor, merlin, …). Good Cop Bad Cop: kingpin or agent
    for the leaders, else the team (honest or crooked). Health edition: the final identity.
    Coup: no roles (every player for themself).
    """
    reveal = outcome.get("reveal") or {}
    if engine == "inside_job":
        roles = reveal.get("roles")
        return str(roles[seat]) if isinstance(roles, list) and seat < len(roles) else None
    if engine == "good_cop_bad_cop":
        cards = reveal.get("cards")
        mine = cards[seat] if isinstance(cards, list) and seat < len(cards) else []
        for leader in ("kingpin", "agent"):
            if leader in mine:
                return leader
        return seat_team(outcome, seat)
    if engine == "good_cop_bad_cop_health":
        identities = reveal.get("identities")
        return str(identities[seat]) if isinstance(identities, list) and seat < len(identities) else None
    return None


def record_of(game: Game, seats: Iterable) -> GameRecord:
    """The record of a finished game row with its GameSeats (in index order)."""
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
        names=tuple(s.name for s in ordered),
        winners=frozenset(int(w) for w in outcome.get("winners", [])),
        teams=tuple(seat_team(outcome, i) for i in range(len(ordered))),
        roles=tuple(seat_role(game.engine, outcome, i) for i in range(len(ordered))),
        team_game=bool(outcome.get("teams")),
    )


def finished_games(games: QuerySet[Game]) -> list[GameRecord]:
    """Records of the finished games in ``games``, oldest first (the order ratings are played in)."""
    rows = games.filter(status=Game.FINISHED, outcome__isnull=False).order_by("finished", "pk")
    return [record_of(game, game.seats.all()) for game in rows.prefetch_related("seats")]


def group_records(group: Group) -> list[GameRecord]:
    """The finished games played for ``group``, oldest first."""
    return finished_games(Game.objects.filter(group=group))


def player_records(player: Player) -> list[GameRecord]:
    """Every finished game ``player`` had a seat in (any group or none), oldest first."""
    return finished_games(Game.objects.filter(seats__player=player).distinct())


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
    # (engine, role or team) -> tally; Coup has neither and is left out.
    by_role: dict[tuple[str, str], Tally] = field(default_factory=dict)
    by_team: dict[tuple[str, str], Tally] = field(default_factory=dict)
    # Seat position counted from 1 (clockwise from the first seat), and the table's size.
    by_seat: dict[int, Tally] = field(default_factory=dict)
    by_count: dict[int, Tally] = field(default_factory=dict)
    # Results oldest first (True: won): the streaks read them.
    results: list[bool] = field(default_factory=list)

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
    return stats


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


def stats_context(stats: PlayerStats) -> dict:
    """A player's figures as plain rows for the stats templates."""
    won, length = stats.current_streak
    return {
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
    """The player's finished games as plain rows for a download (only what the game's end revealed)."""
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
        })
    return rows


# Games of a group closer together than this belong to one game night.
NIGHT_GAP = timedelta(hours=4)


@dataclass
class GameNight:
    """Games of a group played one after another, no gap longer than NIGHT_GAP: an evening's series."""

    games: list[GameRecord]

    @property
    def key(self) -> int:
        """The night's id in links: its first game's id."""
        return self.games[0].id

    @property
    def started(self) -> datetime | None:
        return self.games[0].finished

    def scoreboard(self, counted: set[int]) -> list[tuple[int, Tally]]:
        """(player id, tally) for each counted player of the night, most wins first."""
        tallies: dict[int, Tally] = {}
        for record in self.games:
            for seat, pid in enumerate(record.seat_players):
                if pid in counted:
                    tallies.setdefault(pid, Tally()).add(seat in record.winners)
        return sorted(tallies.items(), key=lambda item: (-item[1].wins, item[1].played, item[0]))

    def teams(self) -> dict[tuple[str, str], int]:
        """How often each team won (by game and team), in the night's team games."""
        wins: dict[tuple[str, str], int] = {}
        for record in self.games:
            for team in {record.teams[s] for s in record.winners if s < len(record.teams)}:
                if team:
                    wins[(record.engine, team)] = wins.get((record.engine, team), 0) + 1
        return wins


def game_nights(records: list[GameRecord], gap: timedelta = NIGHT_GAP) -> list[GameNight]:
    """The records (oldest first) cut into nights wherever two games finished more than ``gap`` apart."""
    nights: list[GameNight] = []
    last: datetime | None = None
    for record in records:
        if not nights or last is None or record.finished is None or record.finished - last > gap:
            nights.append(GameNight(games=[]))
        nights[-1].games.append(record)
        last = record.finished
    return nights


def table_night(table_id: int, now: datetime) -> GameNight | None:
    """The series the table is playing tonight: its finished games back to the first gap of NIGHT_GAP,
    the last one finished within NIGHT_GAP of ``now`` (None when the table has not played tonight)."""
    since = now - timedelta(days=1)
    records = finished_games(Game.objects.filter(table_id=table_id, finished__gte=since))
    nights = game_nights(records)
    if not nights or nights[-1].games[-1].finished is None or now - nights[-1].games[-1].finished > NIGHT_GAP:
        return None
    return nights[-1]
