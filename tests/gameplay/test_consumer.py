"""The table socket on the real Redis channel layer: frames carry the revision number only."""

from __future__ import annotations

import os

import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator

from config.asgi import application
from gameplay.services import move_submit
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_layer(settings):
    """The real channels_redis layer (make test starts Redis; a missing Redis fails the test)."""
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}
    }
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


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
    started = await socket.receive_json_from(timeout=5)
    assert started == {"v": first["v"] + 1}
    (leader,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, leader))[0]
    player = people[leader].player
    result = await sync_to_async(move_submit)(game_id=game.pk, player=player, version=0, move_id="a", action=action)
    assert result.ok
    frame = await socket.receive_json_from(timeout=5)
    assert frame == {"v": first["v"] + 2}
    # A refused move changes nothing and pushes nothing.
    await sync_to_async(move_submit)(game_id=game.pk, player=player, version=0, move_id="b", action=action)
    assert await socket.receive_nothing(timeout=0.5)
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
    import asyncio

    table, people = await sync_to_async(table_with)(5)
    socket = communicator(table.code)
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_json_from(timeout=5)
    await asyncio.sleep(7)
    await sync_to_async(start)(table, people[0])
    assert await socket.receive_json_from(timeout=5) == {"v": first["v"] + 1}
    await socket.disconnect()
