"""Presence: a phone with a socket or a recent request is at the table; a quiet one shows as asleep."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from config.asgi import application
from gameplay import presence
from gameplay.services import move_submit
from tests.conftest import start

pytestmark = pytest.mark.django_db


def _asleep(html: str) -> str:
    start_at = html.find('data-test="asleep"')
    return html[start_at:html.find("</p>", start_at)] if start_at >= 0 else ""


def test_a_quiet_phone_shows_as_asleep_on_the_board_and_the_phones(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    for person in people:
        person.get(f"/t/{table.code}/")
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="asleep"' not in board
    # P3's phone goes quiet: no request, no socket, for longer than the presence mark lasts.
    cache.delete(f"presence:{table.pk}:p{people[2].player.pk}")
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert "P3" in _asleep(board) and "P1" not in _asleep(board)
    phone = people[1].get(f"/t/{table.code}/").content.decode()
    assert "P3" in _asleep(phone)
    # The host is offered a bot for that seat, marked asleep.
    host = people[0].get(f"/t/{table.code}/").content.decode()
    assert "💤 A bot plays for P3" in host.replace("&#x27;", "'").replace("&#39;", "'")
    # P3 comes back: any request marks the phone present again.
    people[2].get(f"/t/{table.code}/rev/")
    assert "P3" not in _asleep(people[0].get(f"/t/{table.code}/board/").content.decode())
    assert presence.asleep_seats(game, table.pk) == []


def test_bots_are_never_asleep(table_with):
    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/")
    game = start(table, people[0])
    cache.clear()
    assert sorted(presence.asleep_seats(game, table.pk)) == [s.index for s in game.seats.filter(bot="")]


@pytest.mark.django_db(transaction=True)
async def test_an_open_socket_keeps_its_phone_present(table_with):
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    await sync_to_async(cache.clear)()
    ben = people[1]
    cookie = f"sessionid={ben.client.cookies['sessionid'].value}".encode()
    socket = WebsocketCommunicator(application, f"/ws/t/{table.code}/", headers=[
        (b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)])
    connected, _ = await socket.connect()
    assert connected
    await socket.receive_json_from(timeout=5)
    asleep = await sync_to_async(presence.asleep_seats)(game, table.pk)
    ben_seat = await sync_to_async(lambda: game.seats.get(player=ben.player).index)()
    assert ben_seat not in asleep and len(asleep) == 4
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_phone_that_falls_asleep_shows_on_the_board_without_a_move(table_with, monkeypatch):
    """The board's socket is told at the next heartbeat that a phone went quiet: the head piece, no refetch."""
    from gameplay.live import consumers
    from tests.gameplay.helpers import awaited_movers, legal
    from tests.gameplay.test_socket_frames import opened, socket

    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.3)
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    for person in people:
        await sync_to_async(person.get)(f"/t/{table.code}/")
    board = socket(table.code, people[0], query="?view=board")
    known = await opened(board)
    (leader,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, leader))[0]
    await sync_to_async(move_submit)(game_id=game.pk, player=people[leader].player, version=game.version,
                                     move_id="m1", action=action)
    for _ in range(50):  # the move's push: the whole board, as its page then holds it
        frame = await board.receive_json_from(timeout=5)
        if frame.get("v", 0) > known and "f" in frame:
            break
    assert "public-view" in frame["f"] and 'data-test="asleep"' not in frame["f"]["public-view"]
    await sync_to_async(cache.delete)(f"presence:{table.pk}:p{people[2].player.pk}")
    for _ in range(50):  # heartbeats come every 0.3 s meanwhile
        frame = await board.receive_json_from(timeout=5)
        if "f" in frame and any("asleep" in html for html in frame["f"].values()):
            break
    else:
        raise AssertionError("no frame said that P3's phone is asleep")
    assert "P3" in _asleep("".join(frame["f"].values()))
    assert "public-view" not in frame["f"]  # the piece that changed, not the whole board
    # One version orders everything a screen shows: the phone's sleep moved the table's revision; the frame names it.
    await sync_to_async(table.refresh_from_db)()
    assert frame["v"] == table.revision == known + 2  # the move's revision, then the sleep's
    await board.disconnect()


def test_a_phone_s_sleep_seen_by_two_processes_moves_the_revision_once(table_with):
    """Each process looks at its own tables' presence at its heartbeats; the first that sees a phone fall asleep
    moves the revision (pushed to every process as any change), the other's look at the same revision moves nothing."""
    from gameplay.live import frames

    table, people = table_with(5)
    start(table, people[0])
    for person in people:
        person.get(f"/t/{table.code}/")
    table.refresh_from_db()
    shown = frames.ROUNDS_OF_THIS_PROCESS.at(table.pk, table.code, table.revision)
    assert shown is not None and shown.now.asleep == []  # the screens as this process last drew them
    assert frames.presence_moved([(table.pk, table.code)]) == []  # nobody fell asleep
    cache.delete(f"presence:{table.pk}:p{people[2].player.pk}")
    assert frames.presence_moved([(table.pk, table.code)]) == [table.pk]
    assert frames.presence_moved([(table.pk, table.code)]) == []  # a second process, whose screens were the same
    revision = table.revision
    table.refresh_from_db()
    assert table.revision == revision + 1
