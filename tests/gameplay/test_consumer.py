"""The table socket on the real Redis channel layer: a socket that names no partial gets the revision number only."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import channels.consumer
import channels.layers
import django_ratelimit.core
import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator

from config.asgi import application
from gameplay.live import consumers
from gameplay.services import move_submit
from lobby import notify
from lobby.known_tables import KNOWN_KEY
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, submit_status


async def next_revision(socket: WebsocketCommunicator, known: int) -> dict:
    """The next frame with a number above ``known``, as the page sees it.

    Pushes are sent off the request path, so a push queued before the socket connected may
    arrive after the first frame: a number the page already has, which it ignores. Every
    frame is still exactly ``{"v": n}``.
    """
    while True:
        frame = await socket.receive_json_from(timeout=5)
        assert set(frame) == {"v"} and isinstance(frame["v"], int), frame
        if frame["v"] > known:
            return frame


async def frames_within(socket: WebsocketCommunicator, seconds: float) -> list[dict]:
    """Every frame the page gets in the next ``seconds``."""
    frames: list[dict] = []
    end = asyncio.get_running_loop().time() + seconds
    while (left := end - asyncio.get_running_loop().time()) > 0:
        if await socket.receive_nothing(timeout=min(left, 0.1), interval=0.02):
            continue
        frames.append(await socket.receive_json_from())
    return frames


def communicator(code: str, origin: bytes = b"http://testserver") -> WebsocketCommunicator:
    return WebsocketCommunicator(application, f"/ws/t/{code}/", headers=[(b"origin", origin), (b"host", b"testserver")])


@pytest.mark.django_db(transaction=True)
async def test_socket_sends_the_revision_and_then_each_new_one_only(redis_layer, table_with):
    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert set(first) == {"v"}
    game = await sync_to_async(start)(table, people[0])
    started = await next_revision(socket, first["v"])
    assert started == {"v": first["v"] + 1}
    (leader,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, leader))[0]
    player = people[leader].player
    result = await sync_to_async(move_submit)(game_id=game.pk, player=player, version=0, move_id="a", action=action)
    assert result.seq == 1 and not result.duplicate  # taken (a refusal raises)
    frame = await next_revision(socket, started["v"])
    assert frame == {"v": first["v"] + 2}
    # A refused move changes nothing and pushes nothing.
    await sync_to_async(submit_status)(game_id=game.pk, player=player, version=0, move_id="b", action=action)
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_once_a_push_is_out_the_hub_makes_the_collection_due_then(redis_layer, table_with, monkeypatch):
    """The collector's pause comes between moves, not inside a push (infra/warm.py): the hub asks for it after a
    table's frames are sent."""
    asked: list[int] = []
    monkeypatch.setattr(consumers, "collect_when_due", lambda: asked.append(1))
    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    assert (await socket.connect())[0]
    first = await socket.receive_json_from(timeout=5)
    await asyncio.sleep(0.2)
    before = len(asked)
    await sync_to_async(start)(table, people[0])
    await next_revision(socket, first["v"])
    for _ in range(50):
        if len(asked) > before:
            break
        await asyncio.sleep(0.02)
    assert len(asked) == before + 1  # once, when the push had gone out
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_socket_from_a_foreign_origin_is_refused(redis_layer, table_with):
    table, _ = await sync_to_async(table_with)(1)
    socket = communicator(table.code, origin=b"http://evil.example")
    connected, _ = await socket.connect()
    assert not connected


@pytest.mark.django_db(transaction=True)
async def test_socket_for_an_unknown_table_is_closed(redis_layer):
    socket = communicator("ZZZZZ")
    connected, _ = await socket.connect()
    assert not connected


@pytest.mark.django_db(transaction=True)
async def test_an_idle_socket_stays_open_and_still_gets_the_next_push(redis_layer, table_with):
    # redis-py 8's default 5 s socket timeout used to tear idle sockets down; pinned away.
    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    await asyncio.sleep(7)
    await sync_to_async(start)(table, people[0])
    assert await next_revision(socket, first["v"]) == {"v": first["v"] + 1}
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_heartbeats_arrive_through_the_channel_layer(redis_layer, table_with, monkeypatch):
    """…and neither they nor pushes take Channels' extra hop to the database thread before every
    message (to close stale connections): the socket's database calls close them themselves."""
    hops = []

    async def counted() -> None:
        hops.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.3)
    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    await sync_to_async(start)(table, people[0])
    frames = await frames_within(socket, 1.5)
    assert {"v": first["v"] + 1} in frames
    # Revision frames stay exactly {"v": n}; heartbeats are exactly {"hb": 1, "v": n}, n the table's revision.
    assert frames.count({"hb": 1, "v": first["v"] + 1}) >= 2
    assert all(set(frame) in ({"v"}, {"hb", "v"}) and frame["v"] <= first["v"] + 1 for frame in frames)
    assert hops == []
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_failing_or_hanging_heartbeat_only_logs_a_warning(redis_layer, table_with, monkeypatch, caplog):
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.2)
    monkeypatch.setattr(consumers, "LAYER_TIMEOUT_SECONDS", 0.3)
    layer = channel_layers["default"]
    calls = []

    async def broken_send(channel, message):
        calls.append(channel)
        if len(calls) % 2:
            raise ConnectionError("redis is gone")
        await asyncio.sleep(60)  # a frozen Redis: never answers

    monkeypatch.setattr(layer, "send", broken_send)
    caplog.set_level(logging.DEBUG)
    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    assert not [frame for frame in await frames_within(socket, 1.5) if "hb" in frame]  # no heartbeat reaches the page
    assert len(calls) >= 2
    # The socket is still alive and still gets pushes.
    await sync_to_async(start)(table, people[0])
    assert await next_revision(socket, first["v"]) == {"v": first["v"] + 1}
    await socket.disconnect()
    warnings = [r for r in caplog.records if r.name == "gameplay.live.consumers" and r.levelno >= logging.WARNING]
    assert warnings and all(r.levelno == logging.WARNING and not r.exc_info for r in warnings)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("frame", [
    {"text": "not json{"}, {"text": ""}, {"bytes": b"\x00\x01"},
    # JSON that is not a move: another shape, wrong types, nesting past the parser's depth, a number past 2**53.
    {"text": '{"move": "anything"}'}, {"text": "[1, 2]"}, {"text": '{"move": {}, "id": "1"}'},
    {"text": '{"move": {}, "id": true}'}, {"text": '{"move": {}, "id": 1.0}'}, {"text": '{"move": {}, "other": 1}'},
    {"text": '{"move": {}, "id": -1}'}, {"text": '{"move": {}, "id": 18446744073709551616}'},
    {"text": '{"move": {}, "id": 9007199254740992}'}, {"text": '{"move": ' + "[" * 1000 + "]" * 1000 + "}"},
])
async def test_a_message_that_is_not_a_move_closes_the_socket_politely(redis_layer, table_with, caplog, frame):
    caplog.set_level(logging.DEBUG)
    table, _ = await sync_to_async(table_with)(1)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    await socket.receive_json_from(timeout=5)
    await socket.send_input({"type": "websocket.receive", **frame})
    while (output := await socket.receive_output(timeout=5))["type"] == "websocket.send":
        pass  # a late push of a number the page already has
    assert output == {"type": "websocket.close", "code": 4400}
    await socket.disconnect()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.django_db(transaction=True)
async def test_unknown_codes_on_the_socket_count_as_code_guesses(settings, table_with):
    """The socket tells a guesser no more than the pages do: over the limit, even a right code is closed."""
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "3/m"}
    table, _ = await sync_to_async(table_with)(1)
    for code in ("ZZZZ2", "ZZZZ3", "ZZZZ4", "ZZZZ5"):  # the fourth goes over 3 a minute
        socket = communicator(code)
        socket.scope["client"] = ["10.9.8.7", 5000]
        connected, _ = await socket.connect()
        assert not connected
    other = communicator(table.code)
    other.scope["client"] = ["10.9.8.6", 5000]  # another phone is not held up by the guesser
    connected, _ = await other.connect()
    assert connected
    await other.disconnect()
    socket = communicator(table.code)
    socket.scope["client"] = ["10.9.8.7", 5000]
    connected, _ = await socket.connect()
    assert not connected  # this address is over the limit now


@pytest.mark.django_db(transaction=True)
async def test_over_the_code_limit_a_browser_keeps_the_socket_of_a_table_it_knows(settings, monkeypatch, table_with):
    """The limit slows guessing, not play: phones behind the guesser's address keep their table's socket."""
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "3/m"}
    table, people = await sync_to_async(table_with)(2)
    cookie = settings.SESSION_COOKIE_NAME

    def socket_of(code: str, person=None) -> WebsocketCommunicator:
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
        if person is not None:
            key = person.client.cookies[cookie].value
            headers.append((b"cookie", f"{cookie}={key}".encode()))
        socket = WebsocketCommunicator(application, f"/ws/t/{code}/", headers=headers)
        socket.scope["client"] = ["10.9.8.7", 5000]
        return socket

    for code in ("ZZZZ2", "ZZZZ3", "ZZZZ4", "ZZZZ5"):  # one phone behind the address mistypes
        connected, _ = await socket_of(code).connect()
        assert not connected
    connected, _ = await socket_of(table.code).connect()
    assert not connected  # a browser that does not know the table: refused, right code or not
    phone = socket_of(table.code, people[1])  # it opened the table (it joined there)
    connected, _ = await phone.connect()
    assert connected
    await phone.disconnect()

    def forget(person) -> None:
        session = person.client.session
        session.pop(KNOWN_KEY, None)
        session.save()

    await sync_to_async(forget)(people[0])
    host = socket_of(table.code, people[0])  # no list, but it hosts and sits there
    connected, _ = await host.connect()
    assert connected
    await host.disconnect()


async def test_while_a_push_is_drawn_the_newest_revision_waits_and_an_older_one_is_dropped():
    """While a table's push is being drawn, the newest waiting one is kept (with whose move made it); an older one
    heard meanwhile is dropped, as the newer push's round reads the table afresh."""
    hub = consumers.Hub()
    hub.tables[1] = {object()}  # a socket of table 1
    hub._drawing[1] = asyncio.get_running_loop().create_future()  # a push of table 1 is being drawn: the next ones wait
    hub.pushed(1, 5, "d1")
    hub.pushed(1, 4, "")
    assert hub._waiting[1] == (5, "d1")
    hub.pushed(1, 6, "")
    assert hub._waiting[1] == (6, "")


async def test_sockets_that_connect_together_start_one_hub_and_every_table_gets_its_pushes(monkeypatch):
    """The first sockets of a process connect at once: the hub makes one channel and one reader, not one each
    (a group joined to a second channel, whose reader was then dropped, heard no push again)."""
    layer = channel_layers["default"]
    made: list[str] = []
    real = layer.new_channel

    async def counted(prefix="specific"):
        made.append(await real(prefix))
        return made[-1]

    monkeypatch.setattr(layer, "new_channel", counted)
    hub = consumers.Hub()
    heard: list[tuple[int, int]] = []
    monkeypatch.setattr(hub, "pushed", lambda table_id, revision, answered: heard.append(
        (table_id, revision)))
    class Socket:  # what the hub reads of a consumer when it joins and leaves
        def __init__(self, table_id: int) -> None:
            self.table_id = table_id
            self.browser = "a:127.0.0.1"

    sockets = [Socket(table_id) for table_id in (910001, 910002, 910003)]
    try:
        assert await asyncio.gather(*(hub.join(socket) for socket in sockets)) == [True, True, True]
        assert len(made) == 1 and len(hub._tasks) == 2
        for socket in sockets:
            await layer.group_send(notify.group_name(socket.table_id),
                                   {"type": "table.revision", "t": socket.table_id, "v": 7})
        for _ in range(50):
            if len(heard) == len(sockets):
                break
            await asyncio.sleep(0.05)
        assert sorted(heard) == [(socket.table_id, 7) for socket in sockets]
    finally:
        for socket in sockets:
            await hub.leave(socket)
    assert hub._tasks == {}


@pytest.mark.django_db(transaction=True)
async def test_with_the_in_memory_layer_a_move_reaches_the_sockets_without_the_layer_or_the_senders_thread(
        table_with, monkeypatch):
    """Every member of a table's group is this process's hub when the layer is its memory: the push goes to the hub on
    its loop straight from the commit (no thread woken, no trip through the layer), so a move is pushed with both
    of those broken; with the layer's own way (the Redis layer, other tests) it would not arrive. The hub draws the
    board's frame on the database thread as for any push (the hand-off must not carry the mover's context there)."""
    from tests.gameplay.test_socket_frames import frame_after, opened, socket

    layer = channel_layers["default"]
    assert isinstance(layer, channels.layers.InMemoryChannelLayer)
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    board = socket(table.code, people[0], query="?view=board")
    known = await opened(board)

    async def broken(*args, **kwargs):
        raise RuntimeError("the layer is not used for a push in this process")

    monkeypatch.setattr(layer, "group_send", broken)
    monkeypatch.setattr(notify.SENDER, "_wake", None)  # the thread's queue: enqueuing there would fail
    sent = notify.SENDER.sent
    (leader,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, leader))[0]
    await sync_to_async(move_submit)(game_id=game.pk, player=people[leader].player, version=0, move_id="a",
                                     action=action)
    frame = await frame_after(board, known)
    assert frame["v"] == known + 1 and frame["f"]  # the board's pieces that the move changed
    assert notify.SENDER.sent == sent + 1
    await board.disconnect()
