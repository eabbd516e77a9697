"""The channel layers: the in-memory one of the embedded default (no ``REDIS_URL``), fit for a café of sockets,
and channels_redis with connections that notice a Redis restart (the end of the module).

Channels' ``InMemoryChannelLayer`` sweeps for expired messages and group memberships on every
``receive``: it walks every channel with messages waiting and every membership of every group.
Each table socket re-arms ``receive`` after each push and each heartbeat, so the sweeps grow
with the square of the café's sockets and mostly find nothing to expire (figures:
docs/performance.md, ``manage.py layerbench``).

:class:`InMemoryChannelLayer` sweeps at most once every ``sweep_seconds``. Messages still
expire after ``expiry`` seconds (60 by default) and memberships after ``group_expiry``; one may
be swept up to ``sweep_seconds`` later than that, which only a channel that nobody has read
for a minute can notice. Everything else is Channels' own layer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis.asyncio
from channels.layers import InMemoryChannelLayer as ChannelsInMemoryChannelLayer

logger = logging.getLogger(__name__)

# How often a receive may sweep for expired messages and memberships.
SWEEP_SECONDS = 1.0


class InMemoryChannelLayer(ChannelsInMemoryChannelLayer):
    """Channels' in-memory layer, sweeping for expired entries at most every ``sweep_seconds``."""

    def __init__(self, *args, sweep_seconds: float = SWEEP_SECONDS, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sweep_seconds = sweep_seconds
        self._swept = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept < self.sweep_seconds:
            return
        self._swept = now
        super()._clean_expired()


# --------------------------------------------------------------------------- Redis: noticing a restart
#
# A Redis without persistence forgets every group when it restarts, and redis-py reconnects and retries a
# blocked receive by itself: nothing fails where the socket hub could see it, and pushes would stop for good.
# So every connection asks the server for its run id as it connects; a new run id for a server seen before is a
# restart, and whoever registered with on_redis_restart is told (the hub joins its groups again).

_run_ids: dict[tuple, str] = {}
_restart_listeners: list[Callable[[], None]] = []


def on_redis_restart(listener: Callable[[], None]) -> None:
    """Call ``listener()`` (on the loop of the connection that noticed, so thread-safe on its own) whenever a Redis
    the channel layer uses restarts."""
    if listener not in _restart_listeners:
        _restart_listeners.append(listener)


def forget_redis_restart_listener(listener: Callable[[], None]) -> None:
    if listener in _restart_listeners:
        _restart_listeners.remove(listener)


class WatchedConnection(redis.asyncio.Connection):
    """redis-py's connection, noting the server's run id each time it connects (see above)."""

    async def on_connect_check_health(self, check_health: bool = True) -> None:
        await super().on_connect_check_health(check_health=check_health)
        await self.send_command("INFO", "server")
        info = await self.read_response()
        text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
        run_id = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("run_id:")), "")
        server = (self.host, self.port)
        seen, _run_ids[server] = _run_ids.get(server), run_id
        if seen is not None and run_id and seen != run_id:
            logger.warning("Redis at %s:%s restarted (a new run id): its groups are joined again", *server)
            for listener in list(_restart_listeners):
                try:
                    listener()
                except Exception:  # one listener's failure never keeps the others from hearing
                    logger.exception("a Redis restart listener failed")


def redis_channel_layer(url: str) -> dict:
    """The ``CHANNEL_LAYERS["default"]`` of channels_redis on ``url``, its connections watched for restarts."""
    return {"BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": url, "connection_class": WatchedConnection}]}}
