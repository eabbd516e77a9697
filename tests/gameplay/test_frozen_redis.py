"""A frozen Redis never stalls play: moves and timers return at once, pushes catch up when it wakes.

The test runs its own redis-server (so freezing it with SIGSTOP touches nothing else) and
uses the real channels_redis layer. A missing redis-server fails the test and says what
to install.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from gameplay.models import Game
from gameplay.services import move_submit
from gameplay.worker import tick
from lobby import notify
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal
from tests.servers import RedisServer


@pytest.fixture
def own_redis(settings):
    """A private redis-server on a free port, as the channel layer."""
    redis = RedisServer()
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [redis.url]}}
    }
    channel_layers.backends.clear()
    yield redis
    redis.stop()
    channel_layers.backends.clear()


def _timed(function, *args, **kwargs):
    began = time.monotonic()
    result = function(*args, **kwargs)
    return result, time.monotonic() - began


async def _frame_at_least(socket: WebsocketCommunicator, revision: int, timeout: float) -> dict:
    """The first revision frame at or past ``revision`` (heartbeats and older numbers skipped)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"no frame with v >= {revision} within {timeout} s"
        frame = await socket.receive_json_from(timeout=left)
        if frame.get("v", -1) >= revision:
            return frame


@pytest.mark.django_db(transaction=True)
async def test_moves_and_timers_do_not_wait_on_a_frozen_redis(own_redis, table_with):
    table, people = await sync_to_async(table_with)(5, timer=5)
    game = await sync_to_async(start)(table, people[0])
    socket = WebsocketCommunicator(
        application, f"/ws/t/{table.code}/", headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")]
    )
    connected, _ = await socket.connect()
    assert connected
    first = (await socket.receive_json_from(timeout=5))["v"]

    os.kill(own_redis.pid, signal.SIGSTOP)  # Redis accepts connections but answers nothing
    try:
        (leader,) = await sync_to_async(awaited_movers)(game)
        action = (await sync_to_async(legal)(game, leader))[0]
        result, took = await sync_to_async(_timed)(
            move_submit, game_id=game.pk, player=people[leader].player, version=0, move_id="m1", action=action
        )
        assert result.seq == 1 and not result.duplicate  # taken (a refusal raises)
        # The move answered without waiting for even one bounded push attempt.
        assert took < notify.SEND_TIMEOUT_SECONDS
        # The worker's clock: the vote window expires, also without waiting on Redis.
        await sync_to_async(
            lambda: Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        )()
        done, took = await sync_to_async(_timed)(tick)
        assert done == 1
        assert took < notify.SEND_TIMEOUT_SECONDS
        await asyncio.sleep(1.0)  # a push attempt fails meanwhile and is kept for a retry
    finally:
        os.kill(own_redis.pid, signal.SIGCONT)
    # Redis is back: the newest revision reaches the socket without any further move.
    await sync_to_async(table.refresh_from_db)()
    assert table.revision >= first + 2
    frame = await _frame_at_least(socket, table.revision, timeout=notify.STALE_SECONDS + 3)
    assert frame == {"v": table.revision}
    await socket.disconnect()


def test_the_sender_keeps_one_push_per_table_and_drops_stale_ones():
    sender = notify.PushSender()
    # No thread needed to check the queue's shape: enqueue starts one, so stop it from sending.
    sender._thread = type("Alive", (), {"is_alive": staticmethod(lambda: True)})()
    sender.enqueue(1, 5)
    sender.enqueue(1, 3)  # older than what is queued: ignored
    sender.enqueue(1, 7)
    sender.enqueue(2, 1)
    assert sender.pending() == 2
    batch = sender._take()
    assert {table: revision for table, (revision, *_) in batch.items()} == {1: 7, 2: 1}
    stale = {3: (9, time.monotonic() - notify.STALE_SECONDS - 1, "")}
    assert sender._send_batch(stale) == {}
    assert sender.dropped == 1


@pytest.mark.django_db(transaction=True)
def test_pages_do_not_hang_on_a_frozen_cache(own_redis, settings, table_with):
    """Abuse counters and presence live in the Redis cache: frozen, they are skipped, not waited for."""
    from infra import resilience

    port = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0].rsplit(":", 1)[1].split("/")[0]
    settings.CACHES = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": f"redis://127.0.0.1:{port}/1",
        "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}}}  # as settings.py does
    table, people = table_with(5)
    start(table, people[0])
    os.kill(own_redis.pid, signal.SIGSTOP)
    try:
        began = time.monotonic()
        for person in people:
            assert person.get(f"/t/{table.code}/").status_code == 200
        assert people[0].get(f"/t/{table.code}/board/").status_code == 200
        assert people[1].get("/find/?code=ZZZZZ").status_code == 302
        # One request pays the short socket timeout; the rest skip the cache while it is down.
        assert time.monotonic() - began < 3 * resilience.CACHE_BACKOFF_SECONDS / 5 + 1
    finally:
        os.kill(own_redis.pid, signal.SIGCONT)
        resilience._skip_until = 0.0
