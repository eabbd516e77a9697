"""The table socket: the table's revision number, and for a page that asks, what changed on its screen;
a phone's page sends its moves over it (``gameplay.live.moves``), answered with its frame.

Frames to the page are ``{"v": revision}`` and, every ``HEARTBEAT_SECONDS``, ``{"hb": 1}``.
A page that names its screen in the socket's URL (``?view=phone`` or ``?view=board``) gets
pushes as ``{"v": revision, "f": {id: html}, "t": {id: tag}}`` instead: the fragments of its screen
that changed, as its own htmx GET would show them at that moment (``gameplay.screens.table``), so a
move costs no round trip and renders what is the same for many screens once. When the page must
ask for itself (its session ended, it holds no CSRF cookie), the push is the number alone.

One :class:`Hub` per process (per event loop) holds its table sockets: it alone is the member of
each table's Channels group, so a push reaches a process once, and the frames of all of a table's
sockets there are drawn together in one call on the database thread. The heartbeat travels through
the channel layer too (the hub sends it to its own channel), so it arrives only while the push path
works: when Redis freezes, heartbeats stop and the page's watchdog (gameplay/static/js/table.js)
drops the socket and polls instead.

No screen stays behind its table for longer than a heartbeat, whatever fails (issue 42): the hub joins its
groups again as soon as the channel layer answers after a failure (a Redis restart forgets them); each
heartbeat reads its tables' revisions, draws what a socket missed and tells the page the revision
(``{"hb": 1, "v": n}``), so a page that is behind anyway catches up; the hub's tasks restart when they end,
and a send to one socket never stops the others'. What a client may send is bounded
(``infra.socket_bounds``, and here: a well-formed move or a clean close), and a browser holds at most
``SOCKETS_PER_BROWSER`` sockets on a table: a newer one closes its oldest.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import urllib.parse
import weakref
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.utils import translation

from gameplay import presence
from gameplay.live import frames as pushes
from gameplay.live import moves as socket_moves
from gameplay.seats import session_devices
from infra import jsontext, layers, limits, socket_bounds
from infra.warm import collect_when_due
from lobby import known_tables, notify
from lobby.models import Table
from lobby.network import lan_base_url_for
from lobby.services import session_player_id

logger = logging.getLogger(__name__)

# Keep in sync with HEARTBEAT_MS in gameplay/static/js/table.js (its watchdog waits 2.5x). Shorter only for tests
# and chaos runs of real servers (TABLE_HEARTBEAT_SECONDS): a page's watchdog would only wait longer.
HEARTBEAT_SECONDS = float(os.environ.get("TABLE_HEARTBEAT_SECONDS", "15"))
# A channel-layer call that takes longer than this is given up (a frozen Redis must not hang us).
LAYER_TIMEOUT_SECONDS = 3.0
# Close codes (application range): the table is unknown, the page sent a message that is not a move,
# the channel layer is unreachable (the page polls and reconnects later), a newer socket of the same
# browser took this one's place (the page does not reconnect until it is looked at again). The bounds
# of infra.socket_bounds close with 4413 (a frame too big) and 4429 (too many).
CLOSE_UNKNOWN_TABLE = 4404
CLOSE_BAD_FRAME = socket_bounds.CLOSE_BAD_MESSAGE  # read no more once sent (a refusal)
CLOSE_LAYER_DOWN = 4503
CLOSE_REPLACED = 4409
# A browser's sockets on one table (a reload opens the new one before the old one closes; a second tab).
SOCKETS_PER_BROWSER = 4
# A move's number from the page: a counter, kept within what a browser's number holds exactly.
MAX_MOVE_ID = 2**53

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
        self.browser = browser_of(self.scope)
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

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:  # on every way out, a crash included, the hub lets go of this socket
            await self._leave()

    async def _leave(self) -> None:
        hub = getattr(self, "hub", None)
        if hub is not None:
            await hub.leave(self)

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def close(self, code=None, reason=None) -> None:
        """Close, and leave the hub at once: nothing more is sent to a closing socket."""
        await self._leave()
        await super().close(code=code, reason=reason)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """A phone's page sends its moves (``{"move": fields, "id": n}``, see ``gameplay.live.moves``), and
        nothing else: any other frame (bytes, text that is not JSON, JSON nested too deep or of another shape,
        a number too big) closes the socket with ``CLOSE_BAD_FRAME``, one log line and no traceback. Frames
        over a few KiB never get here (``infra.socket_bounds``)."""
        content = None
        if text_data is not None:
            try:
                content = json.loads(text_data)
            except (ValueError, RecursionError):
                content = None
        if not is_move_message(content):
            logger.info("table socket closed: the page sent a message that is not a move")
            await self.close(code=CLOSE_BAD_FRAME)
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content, **kwargs) -> None:
        if self.screen is None or self.moving:
            return
        unjudgeable = socket_moves.unjudged(self.screen, content)
        if unjudgeable is not None:  # answered here: a forged or flooding page costs the database thread nothing
            await self.send_json(unjudgeable)
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


def is_move_message(content: object) -> bool:
    """Whether a page's message is a move: ``{"move": {fields}, "id": n}`` (the id may be left out)."""
    if not isinstance(content, dict) or not isinstance(content.get("move"), dict) or set(content) - {"move", "id"}:
        return False
    ask = content.get("id", 0)
    return type(ask) is int and 0 <= ask < MAX_MOVE_ID


def browser_of(scope: dict) -> str:
    """Whose sockets these are, for the cap on a browser's sockets at a table: its session, else its address."""
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    return f"s:{key}" if key else f"a:{(scope.get('client') or ('',))[0]}"


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


def socket_is_secure(scope: dict, headers: dict[bytes, bytes]) -> bool:
    """Whether the page's connection is secure, as Django's ``request.is_secure()`` judges it: the proxy's
    header where ``SECURE_PROXY_SSL_HEADER`` trusts one, else the socket's own scheme."""
    trusted = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if trusted:
        name, value = trusted
        sent = headers.get(name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1"))
        if sent is not None:
            return sent.decode("latin-1").split(",", 1)[0].strip() == value
    return scope.get("scheme") == "wss"


class SameOriginValidator:
    """Refuse a socket whose Origin is not the host it connects to, over the same scheme (ALLOWED_HOSTS may be
    '*' on a LAN; a page of ``https://host`` has no business with a plain socket to it)."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        expected = f"{'https' if socket_is_secure(scope, headers) else 'http'}://{host}"
        if not host or origin.lower() != expected.lower():
            # Closing before accept makes the handshake fail (HTTP 403 for the browser).
            await send({"type": "websocket.close", "code": 4403})
            return None
        return await self.application(scope, receive, send)


COLLECT_AFTER_SECONDS = 0.001  # after a push: the loop's next turn writes its frames first (Hub._draw)
RESTART_SECONDS = 1.0  # a hub task that ended starts again after this pause
_joined = itertools.count()  # the order sockets joined in (the oldest of a browser's goes first)


class Hub:
    """This event loop's table sockets, by table: the one member of each table's Channels group here.

    A push (``table.revision``, from ``lobby.notify``) is drawn for all of a table's sockets at once, one
    call on the database thread (``pushes.push_frames``); pushes of one table run one after another, the
    newest waiting one replacing older ones. Heartbeats go through the channel layer to the hub's own
    channel every ``TableConsumer.heartbeat_seconds`` and out to every socket, with its table's revision,
    marking phones present and drawing what a socket missed. Its two tasks (the reader and the beat) are
    supervised: one that ends for any reason is logged and started again while the hub serves sockets.
    """

    REJOIN_BEATS = 4  # the groups are joined again every so many heartbeats, besides after any layer failure

    def __init__(self) -> None:
        self.tables: dict[int, set[TableConsumer]] = {}
        self.channel = ""
        self._tasks: dict[str, asyncio.Task] = {}
        # A table's newest push not yet drawn: (revision, answered).
        self._waiting: dict[int, tuple[int, str]] = {}
        self._drawing: dict[int, asyncio.Task] = {}  # held: the loop keeps only weak references to its tasks
        self._newest: dict[int, int] = {}  # the newest revision drawn for each table
        self._starting = asyncio.Lock()  # one start at a time (a lock binds to the loop on first use)
        self._lost = False  # a channel-layer call failed since the groups were last joined
        self._loop: asyncio.AbstractEventLoop | None = None
        self._errands: set[asyncio.Task] = set()
        self.layer: Any = None

    async def join(self, consumer: TableConsumer) -> bool:
        """Hold ``consumer``; False when the channel layer cannot be reached (the socket closes).

        The first socket starts the hub (its channel, reader and heartbeat), one start at a time: sockets that
        connect together must not each make a channel, as the groups joined to a channel whose reader was
        dropped would get no push again. A browser's socket beyond ``SOCKETS_PER_BROWSER`` on the table closes
        its oldest one there (the newest always wins: a reload's)."""
        async with self._starting:
            if not self._tasks and not await self._start():
                return False
        sockets = self.tables.setdefault(consumer.table_id, set())
        if not sockets and not await self._layer("group_add", notify.group_name(consumer.table_id), self.channel):
            self.tables.pop(consumer.table_id, None)
            await self._idle()
            return False
        consumer.joined = next(_joined)
        same = sorted((held for held in sockets if held.browser == consumer.browser), key=lambda held: held.joined)
        sockets.add(consumer)
        for oldest in same[:max(0, len(same) + 1 - SOCKETS_PER_BROWSER)]:
            logger.info("table %s: a browser's socket closed for its newer one", consumer.table_id)
            await oldest.close(code=CLOSE_REPLACED)
        return True

    async def _start(self) -> bool:
        self.layer = get_channel_layer()  # the one instance its channel belongs to, while the hub runs
        try:
            self.channel = await asyncio.wait_for(self.layer.new_channel(prefix="tables"), LAYER_TIMEOUT_SECONDS)
        except Exception as error:  # any layer failure means "the push path is down"
            logger.warning("channel layer new_channel failed for the table hub: %r", error)
            return False
        self._lost = False
        self._loop = asyncio.get_running_loop()
        layers.on_redis_restart(self._heard_restart)
        self._spawn("reader", self._read)
        self._spawn("heartbeat", self._beat)
        return True

    def _heard_restart(self) -> None:
        """The layer's Redis restarted (any thread): every group is joined again, on the hub's loop, at once."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def rejoin() -> None:
            self._lost = True
            if self._tasks:
                task = loop.create_task(self._rejoin())
                self._errands.add(task)  # held: the loop keeps only weak references to its tasks
                task.add_done_callback(self._errands.discard)

        loop.call_soon_threadsafe(rejoin)

    def _spawn(self, name: str, run, delay: float = 0.0) -> None:
        """Run ``run()`` as the hub's task ``name``, started again whenever it ends while the hub serves."""

        async def supervised() -> None:
            if delay:
                await asyncio.sleep(delay)
            await run()

        task = asyncio.get_running_loop().create_task(supervised(), name=f"table hub {name}")
        self._tasks[name] = task
        task.add_done_callback(lambda ended: self._ended(name, run, ended))

    def _ended(self, name: str, run, task: asyncio.Task) -> None:
        if self._tasks.get(name) is not task or task.cancelled():
            return  # stopped on purpose: the hub went idle, or its loop is ending
        logger.error("the table hub's %s task ended; starting it again", name, exc_info=task.exception())
        self._spawn(name, run, RESTART_SECONDS)

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
        tasks, self._tasks = self._tasks, {}
        layers.forget_redis_restart_listener(self._heard_restart)
        for task in tasks.values():
            task.cancel()

    async def _read(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a layer that failed: try again shortly (heartbeats stop meanwhile)
                if not self._lost:  # once an outage, not once a second
                    logger.warning("channel layer receive failed for the table hub: %r", error)
                self._lost = True
                await asyncio.sleep(1.0)
                await self._rejoin()  # a receive waits for a message: the groups are joined as soon as it answers
                continue
            if self._lost:
                await self._rejoin()
            kind = message.get("type")
            if kind == "table.revision":
                self.pushed(int(message["t"]), int(message["v"]), str(message.get("answered") or ""))
            elif kind == "table.heartbeat":
                await self._heartbeat()

    async def _rejoin(self) -> None:
        """Join every group this hub serves again: the layer answers after a failure, and a Redis that restarted
        has forgotten them."""
        was_lost, self._lost = self._lost, False
        tables = list(self.tables)
        for table_id in tables:
            if not await self._layer("group_add", notify.group_name(table_id), self.channel, quiet=was_lost):
                return  # still failing: _lost is set again, and the next answer rejoins
        if was_lost:
            logger.warning("the table hub joined its %d tables' groups again", len(tables))

    def pushed(self, table_id: int, revision: int, answered: str) -> None:
        """A table's new revision: drawn for its sockets here, after any push of it being drawn now."""
        if table_id not in self.tables:
            return
        waiting = self._waiting.get(table_id)
        if waiting is None or waiting[0] < revision:
            self._waiting[table_id] = (revision, answered)
        if table_id not in self._drawing:
            self._drawing[table_id] = asyncio.get_running_loop().create_task(self._draw(table_id))

    async def _draw(self, table_id: int) -> None:
        try:
            while table_id in self._waiting:
                revision, answered = self._waiting.pop(table_id)
                await self._push(table_id, revision, answered)
        except (OperationalError, InterfaceError) as error:  # the database restarts: the next heartbeat draws it
            logger.warning("push to table %s: database unavailable: %r", table_id, error)
        except Exception:  # one table's failure never touches the others
            logger.exception("push to table %s failed in the hub", table_id)
        finally:
            self._drawing.pop(table_id, None)
        # Its frames are out: a collection due now holds up no screen (infra/warm.py). Not in this turn of the loop,
        # though: Twisted writes the frames to the sockets on the next one, and a collection now would hold them back.
        asyncio.get_running_loop().call_later(COLLECT_AFTER_SECONDS, collect_when_due)

    async def _push(self, table_id: int, revision: int, answered: str) -> None:
        self._newest[table_id] = max(self._newest.get(table_id, 0), revision)
        framed: list[TableConsumer] = []
        for consumer in list(self.tables.get(table_id, ())):
            if revision <= consumer.pushed or consumer.moving:
                continue
            consumer.pushed = revision
            if consumer.screen is None or (answered and consumer.screen.kind == "phone" and
                                           notify.session_digest(consumer.screen.session_key) == answered):
                # The number alone: a page that asks for itself, or a phone whose own move made the revision and
                # whose POST's answer holds the panel (if that answer was lost, the number makes it refetch). That
                # panel was drawn by the POST, not for this socket: its next frame sends every part again, or a part
                # the move changed and the next move changes back (its undo offer) would be one it does not hold.
                if consumer.screen is not None:
                    consumer.screen.sent = {}
                await self._send(consumer, jsontext.text({"v": revision}))
            else:
                framed.append(consumer)
        if framed:
            code = framed[0].code
            texts = await _push_frames(
                table_id, code, revision, [consumer.screen for consumer in framed])
            for consumer, (shown, text) in zip(framed, texts, strict=True):
                consumer.pushed = max(consumer.pushed, shown)
                await self._send(consumer, text)

    async def _send(self, consumer: TableConsumer, text: str) -> None:
        """One frame to one socket; a socket that cannot take it is let go, and the others are served on."""
        try:
            await consumer.send(text_data=text)
        except Exception as error:
            logger.info("table %s: a socket that could not be sent to was let go: %r", consumer.table_id, error)
            await self.leave(consumer)

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
            sent = await self._layer("send", self.channel, {"type": "table.heartbeat"})
            beats += 1
            if sent and (self._lost or beats % self.REJOIN_BEATS == 0):
                await self._rejoin()

    async def _heartbeat(self) -> None:
        """Every socket's heartbeat, with its table's revision as it stands; before it, what a socket missed (a
        push lost with a group a restarted Redis forgot, or dropped while the layer was down) is drawn."""
        marks: dict[str, float] = {}
        for sockets in list(self.tables.values()):
            for consumer in list(sockets):
                if consumer.marks_presence:
                    marks.update(presence.marks(consumer.table_id, consumer.player_id, consumer.devices))
        # The phones' marks, a look at whether a phone fell asleep or woke at a table (then shown on every
        # screen of it without a move) and every table's revision: one call on the database thread.
        tables = [(table_id, next(iter(sockets)).code) for table_id, sockets in self.tables.items() if sockets]
        revisions: dict[int, int] = {}
        try:
            revisions = await _heartbeat_look(marks, tables)
        except Exception as error:  # presence and revisions unknown this time: the next heartbeat looks again
            logger.warning("heartbeat look failed for the table sockets: %r", error)
        for table_id, revision in revisions.items():
            if any(consumer.pushed < revision for consumer in self.tables.get(table_id, ())):
                self.pushed(table_id, revision, "")
        draws = [task for table_id, task in self._drawing.items() if table_id in revisions]
        if draws:  # the catch-up frames go before the heartbeat that names their revision
            await asyncio.wait(draws, timeout=LAYER_TIMEOUT_SECONDS)
        for table_id, sockets in list(self.tables.items()):
            beat = jsontext.text({"hb": 1, "v": revisions[table_id]} if table_id in revisions else {"hb": 1})
            for consumer in list(sockets):
                await self._send(consumer, beat)

    async def _layer(self, method: str, *args, quiet: bool = False) -> bool:
        """One channel-layer call, bounded in time; a failure is logged (no traceback; ``quiet``: not again in an
        outage already logged), not raised, and makes the hub join its groups again once the layer answers."""
        try:
            await asyncio.wait_for(getattr(self.layer, method)(*args), LAYER_TIMEOUT_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any layer failure means "the push path is down"
            if not quiet:
                logger.warning("channel layer %s failed for the table hub: %r", method, error)
            self._lost = True
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
