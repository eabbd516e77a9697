"""The in-memory channel layer of the embedded default (no ``REDIS_URL``), fit for a café of sockets (channels_redis
with connections that notice a Redis restart: ``infra.redis_layer``).

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


# Who hears that a Redis the channel layer uses restarted (``infra.redis_layer`` notices it).
_restart_listeners: list[Callable[[], None]] = []


def on_redis_restart(listener: Callable[[], None]) -> None:
    """Call ``listener()`` (on the loop of the connection that noticed: it must be thread-safe) whenever a Redis
    the channel layer uses restarts."""
    if listener not in _restart_listeners:
        _restart_listeners.append(listener)


def forget_redis_restart_listener(listener: Callable[[], None]) -> None:
    if listener in _restart_listeners:
        _restart_listeners.remove(listener)


def heard_redis_restart() -> None:
    """Tell every listener; one listener's failure never keeps the others from hearing."""
    for listener in list(_restart_listeners):
        try:
            listener()
        except Exception:
            logger.exception("a Redis restart listener failed")
