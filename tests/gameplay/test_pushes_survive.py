"""Pushes that cannot die (issue 42): no screen stays behind its table for longer than a heartbeat, whatever
fails, and no client can hurt another table.

The hub's own recovery runs in this process against a private redis-server that the test restarts; what a
client can do to a server runs against real daphne processes (tests/servers.py) with their own Redis.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket as sockets

import aiohttp
import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers, get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from config.asgi import application
from gameplay import worker
from gameplay.live import consumers
from gameplay.live import moves as socket_moves
from gameplay.seats import game_seats
from gameplay.services import move_submit
from infra.redis_layer import redis_channel_layer
from lobby import notify
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal
from tests.servers import RedisServer, Server


@pytest.fixture
def own_redis(settings):
    """A private redis-server as the channel layer, which the test may restart."""
    redis = RedisServer()
    settings.CHANNEL_LAYERS = {"default": redis_channel_layer(redis.url)}
    channel_layers.backends.clear()
    yield redis
    redis.stop()
    channel_layers.backends.clear()


def communicator(code: str, query: str = "", origin: bytes = b"http://testserver", **headers: bytes):
    extra = [(name.replace("_", "-").encode(), value) for name, value in headers.items()]
    return WebsocketCommunicator(application, f"/ws/t/{code}/{query}",
                                 headers=[(b"origin", origin), (b"host", b"testserver"), *extra])


async def connected(code: str, query: str = "") -> WebsocketCommunicator:
    """A socket of the table, open, its first frame (the revision) read."""
    socket = communicator(code, query)
    assert (await socket.connect())[0]
    await socket.receive_json_from(timeout=5)
    return socket


def play_one(game) -> None:
    """One legal move of a seat the game waits for."""
    seat = sorted(awaited_movers(game))[0]
    action = legal(game, seat)[0]
    player = game_seats(game)[seat].player_id
    move_submit(game_id=game.pk, player=player, version=game.version, move_id=f"m{game.version}", action=action)


async def revision_within(socket: WebsocketCommunicator, revision: int, seconds: float) -> list[dict]:
    """The frames until one names ``revision`` (a push or a heartbeat); fails after ``seconds``."""
    frames: list[dict] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            frame = await socket.receive_json_from(timeout=left)
        except TimeoutError:
            break
        frames.append(frame)
        if frame.get("v", 0) >= revision:
            return frames
    raise AssertionError(f"revision {revision} did not arrive within {seconds} s: {frames}")


async def current_revision(table) -> int:
    await sync_to_async(table.refresh_from_db)()
    return table.revision


# --------------------------------------------------------------------------- item 1: a Redis restart


@pytest.mark.django_db(transaction=True)
async def test_after_a_redis_restart_the_hub_joins_its_groups_again_and_pushes_resume(own_redis, table_with,
                                                                                      monkeypatch):
    """A Redis without persistence forgets every group when it restarts; the hub joins them again as soon as the
    layer answers, so pushes resume at once, not at the next heartbeat (made too long here to help)."""
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 600)
    table, people = await sync_to_async(table_with)(5)
    socket = await connected(table.code)
    game = await sync_to_async(start)(table, people[0])
    await revision_within(socket, await current_revision(table), 5)

    own_redis.restart()
    await asyncio.sleep(2.5)  # the hub's receive fails, it waits a second and joins again
    await sync_to_async(play_one)(game)
    frames = await revision_within(socket, await current_revision(table), 5)
    assert all("hb" not in frame for frame in frames)  # a push, not a heartbeat's catch-up
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_push_lost_anyway_reaches_every_screen_with_the_next_heartbeat(own_redis, table_with, monkeypatch):
    """Whatever loses a push (here its group, gone behind the hub's back and not joined again), the heartbeat
    reads the table's revision and sends each socket what it missed: a board its frame, a number-only page the
    number; the heartbeat itself names the revision."""
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.5)
    monkeypatch.setattr(consumers.Hub, "REJOIN_BEATS", 10_000)
    table, people = await sync_to_async(table_with)(5)
    plain, board = communicator(table.code), communicator(table.code, "?view=board")
    for socket in (plain, board):
        assert (await socket.connect())[0]
        await socket.receive_json_from(timeout=5)
    hub = consumers.hub_of_this_loop()
    await get_channel_layer().group_discard(notify.group_name(table.pk), hub.channel)

    game = await sync_to_async(start)(table, people[0])
    revision = await current_revision(table)
    for socket in (plain, board):
        frames = await revision_within(socket, revision, 3)
        assert frames[-1]["v"] == revision
    assert await board.receive_json_from(timeout=3) == {"hb": 1, "v": revision}  # after its catch-up
    await sync_to_async(play_one)(game)
    assert (await revision_within(board, await current_revision(table), 3))[-1].get("f")  # the board's pieces
    for socket in (plain, board):
        await socket.disconnect()


# --------------------------------------------------------------------------- item 2: the hub cannot die


@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_cannot_be_sent_to_never_stops_the_heartbeats_of_the_others(redis_layer, table_with,
                                                                                        monkeypatch, caplog):
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.3)
    table, _ = await sync_to_async(table_with)(1)
    other_table, _ = await sync_to_async(table_with)(1)
    broken, healthy = communicator(table.code), communicator(other_table.code)
    for socket in (broken, healthy):
        assert (await socket.connect())[0]
        await socket.receive_json_from(timeout=5)
    hub = consumers.hub_of_this_loop()
    (held,) = hub.tables[table.pk]

    async def refuses(*args, **kwargs):
        raise RuntimeError("Attempt to send on a closed protocol")

    monkeypatch.setattr(held, "send", refuses)
    for _ in range(3):  # three heartbeats on: the healthy socket still gets every one
        assert "hb" in await healthy.receive_json_from(timeout=2)
    assert table.pk not in hub.tables  # the socket that could not take its frame was let go
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await healthy.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_hub_task_that_dies_is_started_again_and_pushes_go_on(redis_layer, table_with, monkeypatch, caplog):
    monkeypatch.setattr(consumers.TableConsumer, "heartbeat_seconds", 0.3)
    monkeypatch.setattr(consumers, "RESTART_SECONDS", 0.1)
    table, people = await sync_to_async(table_with)(5)
    socket = await connected(table.code)
    hub = consumers.hub_of_this_loop()
    real = hub._heartbeat
    failures = []

    async def dies_once() -> None:
        if not failures:
            failures.append(1)
            raise RuntimeError("killed on purpose")
        await real()

    monkeypatch.setattr(hub, "_heartbeat", dies_once)
    await asyncio.sleep(1.0)
    assert failures
    assert "hb" in await socket.receive_json_from(timeout=2)  # the reader runs again: heartbeats...
    await sync_to_async(start)(table, people[0])
    await revision_within(socket, await current_revision(table), 3)  # ...and pushes
    logged = [r for r in caplog.records if "starting it again" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info
    await socket.disconnect()


# --------------------------------------------------------------------------- item 5: bad messages, crashes


@pytest.mark.django_db(transaction=True)
async def test_a_consumer_that_crashes_leaves_the_hub(redis_layer, table_with, monkeypatch):
    table, _ = await sync_to_async(table_with)(1)
    socket = await connected(table.code, "?view=phone")

    async def crashes(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(socket_moves, "unjudged", lambda socket, message: None)  # judged: on the database thread
    monkeypatch.setattr(consumers, "_play", crashes)
    hub = consumers.hub_of_this_loop()
    assert table.pk in hub.tables
    await socket.send_json_to({"move": {}, "id": 1})
    with pytest.raises(RuntimeError):
        await socket.wait(timeout=5)
    assert table.pk not in hub.tables


@pytest.mark.django_db(transaction=True)
async def test_a_push_that_meets_a_restarting_database_logs_a_warning_not_a_traceback(redis_layer, table_with,
                                                                                      monkeypatch, caplog):
    table, people = await sync_to_async(table_with)(5)
    socket = await connected(table.code, "?view=board")

    async def database_gone(*args):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(consumers, "_push_frames", database_gone)
    await sync_to_async(start)(table, people[0])
    await asyncio.sleep(0.5)
    records = [r for r in caplog.records if r.name == "gameplay.live.consumers"]
    assert any("database unavailable" in r.getMessage() for r in records)
    assert not [r for r in records if r.exc_info or r.levelno >= logging.ERROR]
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_bot_step_that_meets_a_restarting_database_logs_a_warning_not_a_traceback(table_with, monkeypatch, caplog):
    table, people = table_with(5)
    game = start(table, people[0])

    def database_gone(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(worker, "bots_due", lambda: [game.pk])
    monkeypatch.setattr(worker, "bot_step", database_gone)
    worker.tick()
    records = [r for r in caplog.records if r.name == "gameplay.worker"]
    assert any("database unavailable" in r.getMessage() for r in records), [r.getMessage() for r in records]
    assert not [r for r in records if r.exc_info or r.levelno >= logging.ERROR]
    assert game.pk


# --------------------------------------------------------------------------- item 6: the origin's scheme


@pytest.mark.django_db(transaction=True)
async def test_a_socket_from_an_https_page_over_plain_http_is_refused(redis_layer, table_with):
    table, _ = await sync_to_async(table_with)(1)
    connected, _ = await communicator(table.code, origin=b"https://testserver").connect()
    assert not connected
    plain = communicator(table.code)
    assert (await plain.connect())[0]
    await plain.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_behind_a_tls_proxy_the_socket_takes_the_https_origin_the_proxy_vouches_for(redis_layer, table_with,
                                                                                          settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    table, _ = await sync_to_async(table_with)(1)
    secure = communicator(table.code, origin=b"https://testserver", x_forwarded_proto=b"https")
    assert (await secure.connect())[0]
    await secure.disconnect()
    connected, _ = await communicator(table.code, origin=b"http://testserver", x_forwarded_proto=b"https").connect()
    assert not connected


# --------------------------------------------------------------------------- real daphne: items 2, 3, 4


@pytest.fixture
def daphne_with_own_redis(transactional_db, own_redis):
    """One daphne (no game worker) with its own Redis, which this process's pushes go through too, and heartbeats
    every half second."""
    redis = own_redis
    server = Server(redis.url, GAME_WORKER="0", TABLE_HEARTBEAT_SECONDS="0.5", SOCKET_MAX_UNSENT_BYTES="16384",
                    DJANGO_LOG_LEVEL="INFO")
    yield server
    server.stop()


def ws_url(server: Server, code: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{server.port}/ws/t/{code}/{query}"


async def open_socket(http: aiohttp.ClientSession, server: Server, code: str, query: str = "", cookies: str = ""):
    headers = {"Cookie": cookies} if cookies else {}
    return await http.ws_connect(ws_url(server, code, query), origin=server.url, headers=headers, autoping=True,
                                 timeout=aiohttp.ClientWSTimeout(ws_close=2.0))


async def frames_until_close(ws, seconds: float) -> tuple[list, int | None]:
    """The text frames a socket gets until it is closed (and its close code), for at most ``seconds``."""
    texts = []
    async with asyncio.timeout(seconds):
        async for message in ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                texts.append(json.loads(message.data))
    return texts, ws.close_code


def raw_socket_that_never_reads(port: int, code: str) -> sockets.socket:
    """A websocket opened by hand that will read nothing more (not even a close) once open."""
    conn = sockets.socket()
    conn.setsockopt(sockets.SOL_SOCKET, sockets.SO_RCVBUF, 4096)
    conn.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall((f"GET /ws/t/{code}/?view=board HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Origin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += conn.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return conn


def masked_text_frame(text: bytes) -> bytes:
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(text)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))


@pytest.mark.django_db(transaction=True)
async def test_clients_that_never_answer_a_close_do_not_silence_the_other_tables(daphne_with_own_redis, table_with):
    """The attack of item 2: board sockets that send a frame that is not JSON (closed with 4400) and never
    answer the close, for a few heartbeats; another table's socket still gets its heartbeats and pushes."""
    server = daphne_with_own_redis
    victim, people = await sync_to_async(table_with)(5)
    attacker, _ = await sync_to_async(table_with)(1)
    async with aiohttp.ClientSession() as http:
        watcher = await open_socket(http, server, victim.code)
        bad = []
        for _ in range(8):
            conn = await asyncio.to_thread(raw_socket_that_never_reads, server.port, attacker.code)
            conn.sendall(masked_text_frame(b"not json{"))
            bad.append(conn)
            await asyncio.sleep(0.25)
        await asyncio.sleep(2.0)  # heartbeats meet the closing sockets
        beats = 0
        async with asyncio.timeout(5):
            while beats < 3:
                message = await watcher.receive()
                beats += "hb" in json.loads(message.data)
        await sync_to_async(start)(victim, people[0])
        revision = await current_revision(victim)
        async with asyncio.timeout(5):
            while json.loads((await watcher.receive()).data).get("v", 0) < revision:
                pass
        await watcher.close()
        for conn in bad:
            conn.close()
    assert "Traceback" not in server.logged()


@pytest.mark.django_db(transaction=True)
async def test_a_flooding_socket_is_closed_and_another_tables_pushes_go_on(daphne_with_own_redis, table_with):
    server = daphne_with_own_redis
    victim, people = await sync_to_async(table_with)(5)
    flooded, _ = await sync_to_async(table_with)(1)
    async with aiohttp.ClientSession() as http:
        watcher = await open_socket(http, server, victim.code)
        before = server.rss_bytes()
        floods = [await open_socket(http, server, flooded.code, "?view=phone") for _ in range(3)]

        async def flood(ws) -> int:
            sent = 0
            try:
                while not ws.closed and sent < 200_000:
                    await ws.send_str(f'{{"move": {{}}, "id": {sent}}}')
                    sent += 1
                    if sent % 100 == 0:
                        await asyncio.sleep(0)
            except (ConnectionResetError, aiohttp.ClientError):
                pass
            return sent

        async def closed_with(ws) -> int | None:
            return (await frames_until_close(ws, 10))[1]

        results = await asyncio.gather(*(flood(ws) for ws in floods), *(closed_with(ws) for ws in floods))
        assert results[3:] == [4429, 4429, 4429]  # each closed for flooding, not served
        await sync_to_async(start)(victim, people[0])
        revision = await current_revision(victim)
        async with asyncio.timeout(5):
            while json.loads((await watcher.receive()).data).get("v", 0) < revision:
                pass
        # What the floods sent was dropped, not kept: the process is not lastingly larger for it.
        assert server.rss_bytes() - before < 64 * 1024 * 1024
        too_big = await open_socket(http, server, flooded.code, "?view=phone")
        await too_big.send_str(json.dumps({"move": {"x": "a" * 9000}}))
        assert (await frames_until_close(too_big, 5))[1] == 4413
        await watcher.close()
    assert "Traceback" not in server.logged()


@pytest.mark.django_db(transaction=True)
async def test_a_browser_holds_a_few_sockets_on_a_table_and_the_newest_wins(daphne_with_own_redis, table_with):
    server = daphne_with_own_redis
    table, people = await sync_to_async(table_with)(3)
    cookie = f"sessionid={people[1].client.cookies['sessionid'].value}"
    async with aiohttp.ClientSession() as http:
        opened, reading = [], []
        for _ in range(consumers.SOCKETS_PER_BROWSER + 2):  # each read at once, as a browser does
            opened.append(await open_socket(http, server, table.code, "?view=phone", cookie))
            reading.append(asyncio.ensure_future(frames_until_close(opened[-1], 15)))
            await asyncio.sleep(0.1)
        closed = await asyncio.gather(*reading[:2])
        assert [code for _frames, code in closed] == [consumers.CLOSE_REPLACED] * 2
        other = await open_socket(http, server, table.code, "?view=phone",
                                  f"sessionid={people[2].client.cookies['sessionid'].value}")
        await asyncio.sleep(1.0)  # heartbeats come and go: the newest four of the browser stay open
        assert not any(task.done() for task in reading[2:])
        for task in reading[2:]:
            task.cancel()
        for kept in [*opened[2:], other]:
            assert not kept.closed
            await kept.close()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_does_not_read_is_dropped_once_its_output_piles_up(daphne_with_own_redis, table_with):
    """Its page reconnects and catches up; meanwhile the server keeps no more than the bound for it."""
    server = daphne_with_own_redis
    table, people = await sync_to_async(table_with)(5)
    conn = await asyncio.to_thread(raw_socket_that_never_reads, server.port, table.code)
    game = await sync_to_async(start)(table, people[0])
    for _ in range(400):  # each move pushes the board a frame it does not read
        await sync_to_async(play_one)(game)
        await sync_to_async(game.refresh_from_db)()
        if game.status != "running":
            game = await sync_to_async(start)(table, people[0])
        if "does not read" in server.logged():
            break
    assert "does not read" in server.logged()
    conn.close()
