"""Bounds on every websocket, so that no client can hurt another table (issue 42).

Input (:class:`SocketBounds`, an ASGI wrapper around the websocket app). Daphne puts every frame a
client sends on the application's queue at once, without bound, and a consumer busy with one message
lets the rest pile up there (one flooding socket: +98 MiB in 5 s). The wrapper reads that queue itself,
as fast as frames arrive, and hands the app at most ``MAX_QUEUED`` of them. A socket is closed with a
4xxx code, one log line and no traceback, when it sends

- a frame over ``MAX_FRAME_BYTES`` (``CLOSE_TOO_BIG``),
- more than ``RATE_MESSAGES`` frames in ``RATE_SECONDS`` (``CLOSE_FLOOD``; lila-ws closes a game socket
  past 100 messages in 20 s), or more than the app has taken by ``MAX_QUEUED`` (``CLOSE_FLOOD``).

Once a socket is closed (by the wrapper or by the app), whatever the client still sends is read and
dropped, the app is told the socket is gone at once (``websocket.disconnect``) and any send of the app
to it is dropped: a send to a closing socket can never raise into the code that made it (the hub).

A refused client's connection is read no more (``infra.daphne_patch``): a flood leaves megabytes of tiny
frames in the kernel's buffer, which would otherwise be parsed one by one during the close handshake.

Output (``infra.daphne_patch``, a patch of daphne's websocket protocol). A socket whose client
does not read (a phone that froze mid-frame) keeps what is sent to it in the server's memory; once
more than ``MAX_UNSENT_BYTES`` wait to be written, the connection is dropped (Centrifugo closes a slow
client past 1 MiB). The page reconnects and catches up.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

logger = logging.getLogger(__name__)

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_FRAME_BYTES = 8 * 1024
RATE_MESSAGES = 100
RATE_SECONDS = 20.0
MAX_QUEUED = 32
MAX_UNSENT_BYTES = int(os.environ.get("SOCKET_MAX_UNSENT_BYTES", str(1024 * 1024)))
# How long the wrapper keeps draining a closed socket's input once the app is done (the server says
# "disconnected" within its close handshake's timeout, a second or so).
DRAIN_SECONDS = 10.0

CLOSE_BAD_MESSAGE = 4400  # the app's: a message it does not take (gameplay.live.consumers)
CLOSE_TOO_BIG = 4413
CLOSE_FLOOD = 4429
# The closes of a client that broke the rules: the server reads nothing more from it.
REFUSALS = frozenset({CLOSE_BAD_MESSAGE, CLOSE_TOO_BIG, CLOSE_FLOOD})


class SocketBounds:
    """The ASGI wrapper of the module: bounded input for every websocket of ``app``."""

    def __init__(self, app, *, max_frame_bytes: int = MAX_FRAME_BYTES, rate_messages: int = RATE_MESSAGES,
                 rate_seconds: float = RATE_SECONDS, max_queued: int = MAX_QUEUED) -> None:
        self.app = app
        self.max_frame_bytes = max_frame_bytes
        self.rate_messages = rate_messages
        self.rate_seconds = rate_seconds
        self.max_queued = max_queued

    async def __call__(self, scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        guard = _Guarded(self, scope, receive, send)
        pump = asyncio.ensure_future(guard.pump())
        try:
            await self.app(scope, guard.receive, guard.send)
        except BaseException:
            pump.cancel()  # the server closes the socket once the app is gone
            raise
        if not pump.done():
            # The app is done with a socket that is still closing: its client's frames are read (and dropped)
            # until the server says it is gone, so nothing piles up in the server's queue meanwhile.
            guard.closed = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(pump, DRAIN_SECONDS)


class _Guarded:
    """One socket: its frames read off the server's queue and counted, handed to the app from a short inbox."""

    def __init__(self, bounds: SocketBounds, scope, receive: Receive, send: Send) -> None:
        self.bounds = bounds
        self.client = (scope.get("client") or ("?",))[0]
        self.path = scope.get("path", "")
        self._receive = receive
        self._send = send
        self.inbox: collections.deque[Message] = collections.deque()
        self.arrived = asyncio.Event()
        self.times: collections.deque[float] = collections.deque(maxlen=bounds.rate_messages)
        self.closed = False  # closed by the app or by us: nothing more goes out
        self.told_gone = False  # the app was handed its websocket.disconnect

    async def pump(self) -> None:
        """Read the server's queue until the socket is gone, judging each frame as it arrives."""
        while True:
            message = await self._receive()
            kind = message.get("type")
            if kind == "websocket.disconnect":
                self._hand(message)
                return
            if kind == "websocket.receive":
                if self.closed:
                    continue  # a closed socket's frames are dropped unread
                refused = self._judge(message)
                if refused:
                    await self._close(refused)
                    continue
            self._hand(message)

    def _judge(self, message: Message) -> int:
        """The close code this frame earns (0: none)."""
        bounds = self.bounds
        text, data = message.get("text"), message.get("bytes")
        size = len(data) if data is not None else len(text or "")
        if text is not None and size * 4 > bounds.max_frame_bytes:  # only a long text is worth encoding
            size = len(text.encode("utf-8", "surrogatepass"))
        if size > bounds.max_frame_bytes:
            return CLOSE_TOO_BIG
        now = time.monotonic()
        times = self.times
        if len(times) == times.maxlen and now - times[0] < bounds.rate_seconds:
            return CLOSE_FLOOD
        times.append(now)
        if len(self.inbox) >= bounds.max_queued:
            return CLOSE_FLOOD
        return 0

    def _hand(self, message: Message) -> None:
        if self.told_gone:
            return
        if message.get("type") == "websocket.disconnect":
            self.told_gone = True
        self.inbox.append(message)
        self.arrived.set()

    async def _close(self, code: int) -> None:
        logger.info("socket %s from %s closed (%s): its input went over a bound", self.path, self.client, code)
        self.closed = True
        self.inbox.clear()  # what it sent but the app has not taken is dropped with it
        self._hand({"type": "websocket.disconnect", "code": code})
        await self._send({"type": "websocket.close", "code": code})

    async def receive(self) -> Message:
        while not self.inbox:
            self.arrived.clear()
            await self.arrived.wait()
        return self.inbox.popleft()

    async def send(self, message: Message) -> None:
        if self.closed:
            return
        if message.get("type") == "websocket.close":
            self.closed = True
        try:
            await self._send(message)
        except Exception as error:  # the socket went meanwhile: the app hears of it as a disconnect
            if message.get("type") != "websocket.send":
                raise
            logger.info("socket %s from %s: a send failed (%r); it is closing", self.path, self.client, error)
            self.closed = True
