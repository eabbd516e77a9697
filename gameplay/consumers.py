"""The table socket: it carries the table's revision number and nothing else."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from gameplay.services import group_name
from lobby.models import Table
from lobby.services import normalize_code


class TableConsumer(AsyncJsonWebsocketConsumer):
    """Joins the table's group; every frame is ``{"v": revision}``: no game data, no secrets."""

    async def connect(self) -> None:
        code = normalize_code(self.scope["url_route"]["kwargs"]["code"])
        found = await database_sync_to_async(
            lambda: Table.objects.filter(code=code).values_list("pk", "revision").first()
        )()
        if found is None:
            await self.close(code=4404)
            return
        table_id, revision = found
        self.group = group_name(table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"v": revision})

    async def disconnect(self, code: int) -> None:
        group = getattr(self, "group", None)
        if group:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        # Phones never send moves over the socket (moves are CSRF-checked POSTs); ignore input.
        return None

    async def table_revision(self, event: dict) -> None:
        await self.send_json({"v": int(event["v"])})


class SameOriginValidator:
    """Refuse a socket whose Origin is not the host it connects to (ALLOWED_HOSTS may be '*' on a LAN)."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        netloc = origin.split("://", 1)[1] if "://" in origin else ""
        if not host or netloc.lower() != host.lower():
            # Closing before accept makes the handshake fail (HTTP 403 for the browser).
            await send({"type": "websocket.close", "code": 4403})
            return None
        return await self.application(scope, receive, send)
