"""channels_redis with connections that notice a Redis restart (imported only where ``REDIS_URL`` is set).

A Redis without persistence forgets every group when it restarts, and redis-py reconnects and retries a
blocked receive by itself: nothing fails where the socket hub could see it, and pushes would stop for good.
So every connection asks the server for its run id as it connects; a new run id for a server seen before is a
restart, and whoever registered with ``infra.layers.on_redis_restart`` is told (the hub joins its groups again).
"""

from __future__ import annotations

import logging

import redis.asyncio

from infra import layers

logger = logging.getLogger(__name__)

_run_ids: dict[tuple, str] = {}


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
            layers.heard_redis_restart()


def redis_channel_layer(url: str) -> dict:
    """The ``CHANNEL_LAYERS["default"]`` of channels_redis on ``url``, its connections watched for restarts."""
    return {"BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": url, "connection_class": WatchedConnection}]}}
