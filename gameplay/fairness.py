"""Fair deals for a group (``Group.fair_deals``): the public history the deal is weighted by.

The method is ``engines.fair``'s. Here: for each seat of a new game, how many more times than
chance its player was dealt the minority role in the group's finished games of this game
(roles revealed at each game's end, so the figures are public). ``game_start`` passes them
to the engine as ``options["fair_deal"]``; the game's options keep them, so a replay deals alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines import fair
from engines.registry import ENGINES
from gameplay.models import Game
from gameplay.records import GameRecord, finished_games
from lobby.models import Group, Seat, Table


def minority_seats_of(record: GameRecord) -> set[int]:
    """The seats dealt the minority role in a finished game: the game's ``minority``, a team or a role as the
    end's reveal names it (``gameplay.records``)."""
    engine = ENGINES.get(record.engine)
    if engine is None or engine.minority is None:
        return set()
    kind, name = engine.minority
    dealt = record.teams if kind == "team" else record.roles
    return {s for s in range(len(record.seat_players)) if dealt[s] == name}


def minority_excess(records: Iterable[GameRecord], player_ids: Sequence[int | None]) -> list[float]:
    """For each player (None: a bot or guest seat, 0), times dealt the minority role minus chance's expectation."""
    excess = {pid: 0.0 for pid in player_ids if pid is not None}
    for record in records:
        dealt = minority_seats_of(record)
        share = len(dealt) / len(record.seat_players) if record.seat_players else 0.0
        for seat, pid in enumerate(record.seat_players):
            if pid in excess:
                excess[pid] += (seat in dealt) - share
    return [round(excess[pid], 3) if pid is not None else 0.0 for pid in player_ids]


def fair_deal_options(*, table: Table, options: dict, seats: Sequence[Seat]) -> dict:
    """``options`` with the group's fair-deal history added, where the table plays for a group that wants it."""
    engine = ENGINES.get(table.engine)
    if table.group_id is None or engine is None or engine.minority is None:
        return options
    group = Group.objects.filter(pk=table.group_id, fair_deals=True).first()
    if group is None:
        return options
    records = finished_games(Game.objects.filter(group=group, engine=table.engine))
    return {**options, fair.KEY: {"excess": minority_excess(records, [seat.player_id for seat in seats])}}
