"""Game nights: a table's evening as an explicit series, started and ended by its host.

A night (``gameplay.models.GameNight``) is the one definition of a game night: the host's
summary and the group's night page both show :func:`night_report` of the same row, and a group's
nights (:func:`group_nights`) are the nights played for it. A night holds no games of its own: its
games are the table's games that *finished* while it was open (``started <= Game.finished <= ended``; a night still
open takes every game finished since it started). So nothing on ``Game`` changes, a game that
was running when the night started counts once it finishes, and one finished after the end
does not. Figures come from finished games only (``community.stats.finished_games``: their
outcomes, the log's verdict): a game the host ended early is listed but never scores, and a
running game's state never enters.

Everything shown is what each game's end showed the whole table: seat names, who won, and the
winning team (the team each seat ended on is part of that public end-of-game reveal). Nothing
here reads a state, a snapshot or a seed.

Starting and ending a night bump the table's revision (``lobby.notify.table_notify``), so every
board and phone refetch; a game's finish bumps it already (``gameplay.services``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce, Now
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from community.stats import Tally, finished_games
from engines.registry import ENGINES
from gameplay.models import Game, GameNight, GameSeat
from gameplay.records import GameRecord, record_of
from gameplay.services import GameError
from lobby.models import Group, Membership, Player, Table
from lobby.notify import table_notify
from lobby.views import table_or_404


class NightError(GameError):
    """A night the table cannot start or end now (a clear message for people; nothing changed)."""


# ---------------------------------------------------------------------------------------------
# Writes: the host starts and ends a night (the views are community.views.host_night_*).


def night_start(*, table: Table) -> GameNight:
    """Open a game night at ``table``, started by its host (raises NightError if one is open already).

    Serialised on the table row and guarded by the one-open-night constraint, so a double tap
    (or the host's phone and tablet at once) opens exactly one.
    """
    try:
        with transaction.atomic():
            locked = Table.objects.select_for_update().get(pk=table.pk)
            if GameNight.objects.filter(table=locked, ended__isnull=True).exists():
                raise NightError(gettext("A game night is already running at this table."))
            night = GameNight.objects.create(table=locked, created_by_id=locked.host_id, group_id=locked.group_id,
                                             started=timezone.now())
            table_notify(table_id=locked.pk)
    except IntegrityError as error:
        raise NightError(gettext("A game night is already running at this table.")) from error
    return night


def night_end(*, table: Table) -> GameNight:
    """Close the table's open game night (raises NightError if none is open); returns it."""
    with transaction.atomic():
        locked = Table.objects.select_for_update().get(pk=table.pk)
        night = GameNight.objects.select_for_update().filter(table=locked, ended__isnull=True).first()
        if night is None:
            raise NightError(gettext("No game night is running at this table."))
        night.ended = timezone.now()
        night.save(update_fields=["ended"])
        table_notify(table_id=locked.pk)
    return night


# ---------------------------------------------------------------------------------------------
# Reads.


def open_night(*, code: str) -> GameNight | None:
    """The open night of the table with this code, or None (one query)."""
    return GameNight.objects.filter(table__code=code, ended__isnull=True).first()


def night_games(night: GameNight) -> QuerySet[Game]:
    """The night's games: the table's games finished (or ended early) while it was open."""
    games = Game.objects.filter(table_id=night.table_id, finished__isnull=False, finished__gte=night.started)
    if night.ended is not None:
        games = games.filter(finished__lte=night.ended)
    return games.exclude(status=Game.RUNNING)


def night_records(night: GameNight) -> list[GameRecord]:
    """The night's finished games as ``gameplay.records`` records, oldest first (two queries)."""
    return finished_games(night_games(night))


def player_nights(player: Player | None, limit: int = 5) -> list[GameNight]:
    """The latest nights ``player`` started or sat at a game of (for links from their history; one query)."""
    if not player:
        return []
    sat = GameSeat.objects.filter(
        player=player, game__table=OuterRef("table"), game__finished__gte=OuterRef("started"),
        game__finished__lte=Coalesce(OuterRef("ended"), Now()),
    ).exclude(game__status=Game.RUNNING)
    nights = GameNight.objects.filter(Q(created_by=player) | Exists(sat)).select_related("table")
    return list(nights.order_by("-started", "-pk")[:limit])


def group_nights(group: Group) -> QuerySet[GameNight]:
    """The nights played for ``group``, newest first: started for it, or with one of its games.

    The same test as the summary's (``may_see``): the night's group, or a group one of its games
    was played for.
    """
    played = Game.objects.filter(
        table=OuterRef("table"), group=group, finished__gte=OuterRef("started"),
        finished__lte=Coalesce(OuterRef("ended"), Now()),
    ).exclude(status=Game.RUNNING)
    return GameNight.objects.filter(Q(group=group) | Exists(played)).select_related("table")


def board_night(*, code: str, latest_created: datetime | None) -> GameNight | None:
    """The night the board shows between games (one query): the open one, else the night that
    just ended as long as no game was dealt after it (its final scoreboard stays up until then)."""
    night = GameNight.objects.filter(table__code=code).first()  # the latest (Meta.ordering)
    if night is None or night.ended is None:
        return night
    if latest_created is not None and latest_created > night.ended:
        return None
    return night


# ---------------------------------------------------------------------------------------------
# Figures: pure functions over GameRecords.


def _title(engine: str) -> str:
    return gettext(ENGINES[engine].title) if engine in ENGINES else engine


class _Tallied:
    """A row with a tally: its wins and games played."""

    tally: Tally

    @property
    def wins(self) -> int:
        return self.tally.wins

    @property
    def played(self) -> int:
        return self.tally.played


@dataclass
class PlayerRow(_Tallied):
    """One player of the night: their seat name and their games and wins."""

    name: str
    tally: Tally = field(default_factory=Tally)
    first: int = 0  # order of first appearance (a stable tie-break)


@dataclass
class TeamRow(_Tallied):
    """One team of one game system: games it took part in, games it won."""

    team: str
    tally: Tally = field(default_factory=Tally)


@dataclass
class SystemRow:
    """One game system played tonight: how many games, and its teams (none for a game where every player plays
    for themself)."""

    engine: str
    title: str
    games: int = 0
    teams: list[TeamRow] = field(default_factory=list)


@dataclass
class Scoreboard:
    """A night's figures: players (most wins first), systems with their teams, the night's winners."""

    games: int
    players: list[PlayerRow]
    systems: list[SystemRow]

    @property
    def leaders(self) -> list[PlayerRow]:
        """The player(s) with the most wins (none before anyone has won)."""
        best = max((row.wins for row in self.players), default=0)
        return [row for row in self.players if best and row.wins == best]

    @property
    def leader_names(self) -> list[str]:
        return [row.name for row in self.leaders]


def _player_key(record: GameRecord, seat: int) -> tuple:
    """Who a seat is across the night's games: the player, else (a bot, a departed player) the seat's name."""
    pid = record.seat_players[seat] if seat < len(record.seat_players) else None
    return ("player", pid) if pid is not None else ("name", record.names[seat])


def scoreboard(records: Iterable[GameRecord]) -> Scoreboard:
    """Wins and games per player (by seat name), and per team per game system, over ``records``."""
    players: dict[tuple, PlayerRow] = {}
    systems: dict[str, SystemRow] = {}
    teams: dict[tuple[str, str], TeamRow] = {}
    count = 0
    for record in records:
        count += 1
        for seat, name in enumerate(record.names):
            row = players.get(_player_key(record, seat))
            if row is None:
                row = players[_player_key(record, seat)] = PlayerRow(name=name, first=len(players))
            row.tally.add(seat in record.winners)
        system = systems.get(record.engine)
        if system is None:
            system = systems[record.engine] = SystemRow(engine=record.engine, title=_title(record.engine))
        system.games += 1
        if not record.team_game:
            continue
        won = {record.teams[s] for s in record.winners if s < len(record.teams)}
        for team in sorted({t for t in record.teams if t}):
            key = (record.engine, team)
            if key not in teams:
                teams[key] = TeamRow(team=team)
                system.teams.append(teams[key])
            teams[key].tally.add(team in won)
    for system in systems.values():
        system.teams.sort(key=lambda t: (-t.wins, t.team))
    ordered = sorted(players.values(), key=lambda r: (-r.wins, r.played, r.first))
    return Scoreboard(games=count, players=ordered, systems=list(systems.values()))


def summary_url(night: GameNight, code: str) -> str:
    return reverse("night_summary", args=[code, night.pk])


# ---------------------------------------------------------------------------------------------
# The summary page.


def may_see(player: Player | None, night: GameNight, games: list[Game]) -> bool:
    """A night's summary is for whoever sat at one of its games, its hosts (the table's, the one who
    started it, a moderator of one of its games) and the members of the group it was played for."""
    if not player:
        return False
    if player.pk in {night.table.host_id, night.created_by_id} | {g.moderator_id for g in games}:
        return True
    ids = [g.pk for g in games]
    if ids and GameSeat.objects.filter(game_id__in=ids, player=player).exists():
        return True
    groups = {night.group_id} | {g.group_id for g in games}
    groups.discard(None)
    return bool(groups) and Membership.objects.filter(group_id__in=groups, player=player).exists()


def _game_row(game: Game, record: GameRecord | None) -> dict:
    """One game of the summary: its system, who won and their team (``record`` None: ended early, nobody won)."""
    winners: list[str] = []
    teams: set[str] = set()
    if record is not None:
        winners = [record.names[s] for s in sorted(record.winners) if s < len(record.names)]
        if record.team_game:
            teams = {t for t in (record.teams[s] for s in record.winners if s < len(record.teams)) if t}
    return {
        "id": game.pk, "title": _title(game.engine), "engine": game.engine, "finished": game.finished,
        "ended": record is None, "players": game.players, "winners": winners, "teams": sorted(teams),
        # The finished game's page with its share token (as the game-over screen links it).
        "url": f"{reverse('game_detail', args=[game.pk])}?k={game.share_token}",
    }


@dataclass
class NightReport:
    """What every page of one night shows: its games (``rows``, ended-early ones too) and its figures."""

    night: GameNight
    games: list[Game]
    board: Scoreboard
    rows: list[dict]


def night_report(night: GameNight) -> NightReport:
    """The night's games, oldest first, and its scoreboard: the host's summary and the group's page alike."""
    games = list(night_games(night).order_by("finished", "pk").prefetch_related("seats"))
    # The records name the seats as every figure page does (``gameplay.records.record_of``).
    records = {g.pk: record_of(g, g.seats.all()) for g in games if g.status == Game.FINISHED and g.outcome is not None}
    return NightReport(night=night, games=games, board=scoreboard(records.values()),
                       rows=[_game_row(game, records.get(game.pk)) for game in games])


@require_GET
def night_summary(request: HttpRequest, code: str, night_id: int) -> HttpResponse:
    """A game night's summary: its games (with links to their log and replay), wins per player and
    per team, the winner(s) of the night. Anyone else gets 404 (ids are sequential)."""
    table = table_or_404(request, code)
    night = GameNight.objects.select_related("table", "group").filter(pk=night_id, table=table).first()
    if night is None:
        raise Http404("no such night")
    report = night_report(night)
    if not may_see(request.player, night, report.games):
        raise Http404("no such night")
    return render(request, "gameplay/night_summary.html", {
        "table": {"code": table.code}, "night": night, "board": report.board, "games": report.rows,
        "back": "board" if request.GET.get("back") == "board" else "",
    })

