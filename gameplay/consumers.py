"""The table socket: the table's revision number, and for a page that asks, what changed on its screen;
a phone's page sends its moves over it (``gameplay.socket_moves``), answered with its frame.

Frames to the page are ``{"v": revision}`` and, every ``HEARTBEAT_SECONDS``, ``{"hb": 1}``.
A page that names its screen in the socket's URL (``?view=phone`` or ``?view=board``) gets
pushes as ``{"v": revision, "f": {id: html}, "t": {id: tag}}`` instead: the fragments of its screen
that changed, as its own htmx GET would show them at that moment (``gameplay.screens``), so a
move costs no round trip and renders what is the same for many screens once. When the page must
ask for itself (its session ended, it holds no CSRF cookie), the push is the number alone.

One :class:`Hub` per process (per event loop) holds its table sockets: it alone is the member of
each table's Channels group, so a push reaches a process once, and the frames of all of a table's
sockets there are drawn together in one call on the database thread. The heartbeat travels through
the channel layer too (the hub sends it to its own channel), so it arrives only while the push path
works: when Redis freezes, heartbeats stop and the page's watchdog (gameplay/static/js/table.js)
drops the socket and polls instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.parse
import weakref
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.utils import translation

from gameplay import presence, pushes, socket_moves
from gameplay.seats import session_devices
from infra import jsontext, limits
from infra.warm import collect_when_due
from lobby import known_tables, notify
from lobby.models import Table
from lobby.network import lan_base_url_for
from lobby.services import session_player_id

logger = logging.getLogger(__name__)

# Keep in sync with HEARTBEAT_MS in gameplay/static/js/table.js (its watchdog waits 2.5x).
HEARTBEAT_SECONDS = 15.0
# A channel-layer call that takes longer than this is given up (a frozen Redis must not hang us).
LAYER_TIMEOUT_SECONDS = 3.0
# Close codes (application range): the table is unknown, the page sent a frame that is not
# JSON, the channel layer is unreachable (the page polls and reconnects later).
CLOSE_UNKNOWN_TABLE = 4404
CLOSE_BAD_FRAME = 4400
CLOSE_LAYER_DOWN = 4503
# The longest message a page sends: a move form's fields (the same bound as a move's POST body).
MAX_MESSAGE_CHARS = 16 * 1024

# The calls on the database thread that every move and push makes, each wrapped once (a wrapper made per call
# copied the function's attributes and inspected it each time: ~1% of a move's CPU, on the event loop).
_play = database_sync_to_async(socket_moves.play)
_push_frames = database_sync_to_async(pushes.push_frames)
_heartbeat_look = database_sync_to_async(pushes.heartbeat_look)
_seen = database_sync_to_async(presence.seen)


class TableConsumer(AsyncJsonWebsocketConsumer):
    """Joins the table's group; frames are ``{"v": revision}``, ``{"hb": 1}``, or, for a page that
    named its screen, ``{"v": revision, "f": fragments, "t": tags}`` with what that browser may see."""

    heartbeat_seconds = HEARTBEAT_SECONDS  # a class attribute so tests can shorten it
    # No channel of its own: the hub of its process is the member of the table's group and delivers to it.
    channel_layer_alias = "table sockets have no channel"

    @classmethod
    async def encode_json(cls, content) -> str:
        return jsontext.text(content)  # a move's answer holds its frame: encoded as the hub encodes a push

    async def connect(self) -> None:
        # The push sender delivers on this loop (the in-memory layer only works on its own loop); with that layer,
        # straight to this loop's hub, the only member of any table's group it could reach.
        hub = hub_of_this_loop()
        local = isinstance(get_channel_layer(), InMemoryChannelLayer)
        notify.bind_loop(asyncio.get_running_loop(), hub.pushed if local else None)
        code = self.scope["url_route"]["kwargs"]["code"]  # normalized by the <code:…> converter
        found = await database_sync_to_async(self._lookup)(code)
        if found is None:
            await self.close(code=CLOSE_UNKNOWN_TABLE)
            return
        table_id, revision, self.player_id, self.devices = found
        self.table_id = table_id
        self.code = code
        self.screen = socket_screen(self.scope)
        self.pushed = revision  # the newest revision this page holds or was sent
        self.moving = False  # a move of this page's is being judged: its answer carries the push
        self.hub = hub
        if not await self.hub.join(self):
            await self.close(code=CLOSE_LAYER_DOWN)
            return
        await self.accept()
        await self.send_json({"v": revision})
        await self._present()

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch, without its hop to the database thread before every message.

        Channels closes stale database connections before each message a consumer handles, in a
        thread hop of its own: for a table socket that is every push and every heartbeat, each
        queued in the one thread that also renders every push (``database_sync_to_async``). Every
        database call of this consumer runs through ``database_sync_to_async``, which closes stale
        connections around the call itself; nothing else here touches the database.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        hub = getattr(self, "hub", None)
        if hub is not None:
            await hub.leave(self)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """A phone's page sends its moves (``{"move": fields, "id": n}``, see ``gameplay.socket_moves``);
        other JSON is ignored; anything else (bytes, text that is not JSON or longer than a move form
        may be) closes the socket quietly."""
        if text_data is not None and len(text_data) <= MAX_MESSAGE_CHARS:
            try:
                content = json.loads(text_data)
            except ValueError:
                pass
            else:
                await self.receive_json(content, **kwargs)
                return
        logger.info("table socket closed: the page sent a frame that is not JSON")
        await self.close(code=CLOSE_BAD_FRAME)

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict) or "move" not in content or self.screen is None or self.moving:
            return
        self.moving = True  # meanwhile the hub leaves this socket's frames to the answer
        try:
            answer = await _play(self.table_id, self.code, self.screen, content)
        finally:
            self.moving = False
        if "v" in answer:
            self.pushed = max(self.pushed, answer["v"])  # the push of this revision is in the answer
        await self.send_json(answer)
        await self.hub.catch_up(self)  # a push that came meanwhile, newer than the answer

    def _lookup(self, code: str) -> tuple[int, int, int | None, list[str]] | None:
        """The table's id and revision, this session's player (or None) and its handed-over seats' tokens.

        An unknown code counts as a code guess from this address, as on every page with a code
        (``infra.limits``). Once the address is over the limit the socket learns nothing of a table
        this browser does not know, known code or not; a table it opened before, or whose player sits
        at it or hosts it, stays open to it (``lobby.known_tables``: the limit slows guessing, not play).
        """
        client = self.scope.get("client") or ("0.0.0.0", 0)  # a server that names no client: one bucket
        guesser = SimpleNamespace(META={"REMOTE_ADDR": client[0] or "0.0.0.0"}, method="GET")
        session = self.scope.get("session")
        player_id = session_player_id(session)
        if known_tables.guess_blocked(guesser, session, code, lambda: player_id):
            return None
        found = Table.objects.filter(code=code).values_list("pk", "revision").first()
        if found is None:
            if not known_tables.knows(session, code):  # a table this browser knew has gone: no guess
                limits.code_missed(guesser)
            return None
        devices = list(session_devices(session).values())
        return found[0], found[1], player_id, devices

    @property
    def marks_presence(self) -> bool:
        """An open phone socket keeps its player marked present at the table (see gameplay.presence); a board
        opened in a player's own browser is not that player's phone."""
        return (self.player_id is not None or bool(self.devices)) and not (
            self.screen is not None and self.screen.kind == "board")

    async def _present(self) -> None:
        if self.marks_presence:
            await _seen(self.table_id, self.player_id, self.devices)


SCREENS = ("phone", "board")


def socket_screen(scope: dict) -> pushes.Socket | None:
    """What a socket's page shows (``?view=phone|board`` in its URL), and who it is: its session, language
    (as Django's LocaleMiddleware picks it for the page), CSRF cookie and address; None for numbers only."""
    query = scope.get("query_string", b"")
    query = query.decode("latin-1") if isinstance(query, bytes) else query
    kind = next((value for name, value in urllib.parse.parse_qsl(query) if name == "view" and value in SCREENS), None)
    if kind is None:
        return None
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
    request = HttpRequest()  # only what language negotiation reads: the cookie and Accept-Language
    request.COOKIES = parse_cookie(headers.get("cookie", ""))
    request.META["HTTP_ACCEPT_LANGUAGE"] = headers.get("accept-language", "")
    session = scope.get("session")
    return pushes.Socket(
        kind=kind, session_key=getattr(session, "session_key", None) if session is not None else None,
        language=translation.get_language_from_request(request),
        csrf_secret=request.COOKIES.get(settings.CSRF_COOKIE_NAME, ""),
        url=lan_base_url_for(headers.get("host", ""), scope.get("scheme") == "wss"))


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


COLLECT_AFTER_SECONDS = 0.001  # after a push: the loop's next turn writes its frames first (Hub._draw)


class Hub:
    """This event loop's table sockets, by table: the one member of each table's Channels group here.

    A push (``table.revision``, from ``lobby.notify``) is drawn for all of a table's sockets at once, one
    call on the database thread (``pushes.push_frames``); pushes of one table run one after another, the
    newest waiting one replacing older ones. Heartbeats go through the channel layer to the hub's own
    channel every ``TableConsumer.heartbeat_seconds`` and out to every socket, marking phones present.
    """

    REJOIN_BEATS = 40  # the groups are joined again every so many heartbeats (a layer forgets a group in a day)

    def __init__(self) -> None:
        self.tables: dict[int, set[TableConsumer]] = {}
        self.channel = ""
        self._tasks: list[asyncio.Task] = []
        # A table's newest push not yet drawn: (revision, answered, again).
        self._waiting: dict[int, tuple[int, str, bool]] = {}
        self._drawing: set[int] = set()
        self._newest: dict[int, int] = {}  # the newest revision drawn for each table
        self._draws: set[asyncio.Task] = set()  # held: the loop keeps only weak references to its tasks
        self._starting = asyncio.Lock()  # one start at a time (a lock binds to the loop on first use)
        self.layer: Any = None

    async def join(self, consumer: TableConsumer) -> bool:
        """Hold ``consumer``; False when the channel layer cannot be reached (the socket closes).

        The first socket starts the hub (its channel, reader and heartbeat), one start at a time: sockets that
        connect together must not each make a channel, as the groups joined to a channel whose reader was
        dropped would get no push again."""
        async with self._starting:
            if not self._tasks and not await self._start():
                return False
        sockets = self.tables.setdefault(consumer.table_id, set())
        if not sockets and not await self._layer("group_add", notify.group_name(consumer.table_id), self.channel):
            self.tables.pop(consumer.table_id, None)
            await self._idle()
            return False
        sockets.add(consumer)
        return True

    async def _start(self) -> bool:
        self.layer = get_channel_layer()  # the one instance its channel belongs to, while the hub runs
        try:
            self.channel = await asyncio.wait_for(self.layer.new_channel(prefix="tables"), LAYER_TIMEOUT_SECONDS)
        except Exception as error:  # any layer failure means "the push path is down"
            logger.warning("channel layer new_channel failed for the table hub: %r", error)
            return False
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._beat())]
        return True

    async def leave(self, consumer: TableConsumer) -> None:
        sockets = self.tables.get(consumer.table_id)
        if sockets is None or consumer not in sockets:
            return
        sockets.discard(consumer)
        if not sockets:
            del self.tables[consumer.table_id]
            self._newest.pop(consumer.table_id, None)
            await self._layer("group_discard", notify.group_name(consumer.table_id), self.channel)
        await self._idle()

    async def _idle(self) -> None:
        if self.tables or not self._tasks:
            return
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()

    async def _read(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a layer that failed: try again shortly (heartbeats stop meanwhile)
                logger.warning("channel layer receive failed for the table hub: %r", error)
                await asyncio.sleep(1.0)
                continue
            kind = message.get("type")
            if kind == "table.revision":
                self.pushed(int(message["t"]), int(message["v"]), str(message.get("answered") or ""))
            elif kind == "table.heartbeat":
                await self._heartbeat()

    def pushed(self, table_id: int, revision: int, answered: str, *, again: bool = False) -> None:
        """A table's new revision (``again``: a new look at the one shown, whose asleep seats changed): drawn for
        its sockets here, after any push of it being drawn now."""
        if table_id not in self.tables:
            return
        waiting = self._waiting.get(table_id)
        if waiting is None or waiting[0] < revision:
            self._waiting[table_id] = (revision, answered, again)
        elif waiting[0] == revision and again:
            self._waiting[table_id] = (revision, waiting[1], True)  # also to the sockets that hold this revision
        # (a newer push waiting already: its round looks at who is asleep afresh)
        if table_id not in self._drawing:
            self._drawing.add(table_id)
            task = asyncio.get_running_loop().create_task(self._draw(table_id))
            self._draws.add(task)
            task.add_done_callback(self._draws.discard)

    async def _draw(self, table_id: int) -> None:
        try:
            while table_id in self._waiting:
                revision, answered, again = self._waiting.pop(table_id)
                await self._push(table_id, revision, answered, again)
        except Exception:  # one table's failure never touches the others
            logger.exception("push to table %s failed in the hub", table_id)
        finally:
            self._drawing.discard(table_id)
        # Its frames are out: a collection due now holds up no screen (infra/warm.py). Not in this turn of the loop,
        # though: Twisted writes the frames to the sockets on the next one, and a collection now would hold them back.
        asyncio.get_running_loop().call_later(COLLECT_AFTER_SECONDS, collect_when_due)

    async def _push(self, table_id: int, revision: int, answered: str, again: bool = False) -> None:
        self._newest[table_id] = max(self._newest.get(table_id, 0), revision)
        framed: list[TableConsumer] = []
        for consumer in list(self.tables.get(table_id, ())):
            if consumer.screen is None:
                if not again:
                    await consumer.send_json({"v": revision})
            elif again and revision == consumer.pushed and not consumer.moving:
                framed.append(consumer)  # what changed on its screen: whose phone is asleep
            elif revision > consumer.pushed and not consumer.moving:
                consumer.pushed = revision
                if answered and consumer.screen.kind == "phone" and \
                        notify.session_digest(consumer.screen.session_key) == answered:
                    # This phone's own move made the revision, and its POST's answer holds the panel (if that
                    # answer was lost, the number makes it refetch).
                    await consumer.send_json({"v": revision})
                else:
                    framed.append(consumer)
        if framed:
            code = framed[0].code
            texts = await _push_frames(
                table_id, code, revision, [consumer.screen for consumer in framed])
            for consumer, (shown, text) in zip(framed, texts, strict=True):
                consumer.pushed = max(consumer.pushed, shown)
                await consumer.send(text_data=text)

    async def catch_up(self, consumer: TableConsumer) -> None:
        """After a move's answer: the push the hub left to it, if one newer than the answer came meanwhile."""
        waiting = self._waiting.get(consumer.table_id)
        newest = max(waiting[0] if waiting else 0, self._newest.get(consumer.table_id, 0))
        if newest > consumer.pushed:
            self.pushed(consumer.table_id, newest, "")

    async def _beat(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(TableConsumer.heartbeat_seconds)
            await self._layer("send", self.channel, {"type": "table.heartbeat"})
            beats += 1
            if beats % self.REJOIN_BEATS == 0:
                for table_id in list(self.tables):
                    await self._layer("group_add", notify.group_name(table_id), self.channel)

    async def _heartbeat(self) -> None:
        marks: dict[str, float] = {}
        for sockets in list(self.tables.values()):
            for consumer in list(sockets):
                await consumer.send_json({"hb": 1})
                if consumer.marks_presence:
                    marks.update(presence.marks(consumer.table_id, consumer.player_id, consumer.devices))
        # The phones' marks, and a look at whether a phone fell asleep or woke at a table (then shown on every
        # screen of it without a move): one call on the database thread.
        tables = [(table_id, next(iter(sockets)).code) for table_id, sockets in self.tables.items() if sockets]
        try:
            moved = await _heartbeat_look(marks, tables)
        except Exception as error:  # presence unknown this time: the next heartbeat looks again
            logger.warning("presence check failed for the table sockets: %r", error)
            return
        for table_id, revision in moved:
            self.pushed(table_id, revision, "", again=True)

    async def _layer(self, method: str, *args) -> bool:
        """One channel-layer call, bounded in time; a failure is logged (no traceback), not raised."""
        try:
            await asyncio.wait_for(getattr(self.layer, method)(*args), LAYER_TIMEOUT_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any layer failure means "the push path is down"
            logger.warning("channel layer %s failed for the table hub: %r", method, error)
            return False
        return True


_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub_of_this_loop() -> Hub:
    """The hub of the running event loop (one per server process; tests run one loop each)."""
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None:
        hub = _HUBS[loop] = Hub()
    return hub
