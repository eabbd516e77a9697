"""Reads and writes whose SQL is made once (``infra.prepared``) give and keep what the ORM's own would."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from gameplay.models import Game, Move
from infra.prepared import Prepared, insert, save_fields
from tests.conftest import start


@pytest.mark.django_db
def test_a_prepared_read_gives_the_rows_the_queryset_gives_related_rows_and_converted_fields_included(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    latest = Prepared(lambda table_id: Game.objects.select_related("table").filter(table_id=table_id)
                      .order_by("-created")[:1], int)
    for _ in range(2):  # compiled at the first call, reused at the second
        found = latest.first(table.pk)
        assert found is not None
        expected = Game.objects.select_related("table").get(pk=game.pk)
        for field in Game._meta.concrete_fields:
            assert getattr(found, field.attname) == getattr(expected, field.attname), field.name
        assert isinstance(found.snapshot, dict) and found.created == expected.created  # JSON, datetimes
        assert found.table.code == table.code and found.table.revision == expected.table.revision
    assert latest.first(table.pk + 1000) is None


@pytest.mark.django_db
def test_an_argument_the_sql_does_not_take_is_refused():
    ignored = Prepared(lambda table_id: Game.objects.all(), int)
    with pytest.raises(ValueError, match="every argument"):
        ignored()


@pytest.mark.django_db
def test_saved_fields_and_an_inserted_row_are_what_save_would_write(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    game.version, game.awaiting, game.window = game.version + 5, [1, 2], "w-9"
    save_fields(game, ["version", "awaiting"])
    fresh = Game.objects.get(pk=game.pk)
    assert (fresh.version, fresh.awaiting) == (game.version, [1, 2]) and fresh.window != "w-9"  # those fields only
    insert(Move(game=game, seq=99, seat=2, action={"type": "vote", "approve": True}, client_move_id="m"))
    move = Move.objects.get(game=game, seq=99)
    assert (move.seat, move.action, move.client_move_id) == (2, {"type": "vote", "approve": True}, "m")
    assert move.created is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        insert(Move(game=game, seq=99, seat=1, action={}))


@pytest.mark.django_db
def test_a_date_and_time_argument_finds_the_rows_the_querysets_finds(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    deadline = timezone.now().replace(microsecond=0)  # a whole second: its text has no fraction (SQLite)
    Game.objects.filter(pk=game.pk).update(deadline=deadline)
    due = Prepared(lambda now: Game.objects.filter(deadline__lte=now).only("pk"), datetime)
    for now in (deadline - timedelta(microseconds=1), deadline, deadline + timedelta(seconds=1)):
        expected = list(Game.objects.filter(deadline__lte=now).values_list("pk", flat=True))
        assert [found.pk for found in due(now)] == expected
    assert expected == [game.pk]
