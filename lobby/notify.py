"""Telling a table's pages that it changed: the revision number, pushed off the request path.

Every write that a page must show (a join, a move, a pause) calls :func:`table_notify` inside
its transaction: the table's revision goes up, and after commit the number (and nothing else)
is queued for the table's Channels group (:func:`group_name`). The lobby and gameplay both
notify through here; the socket consumer binds the sender to its loop (:func:`bind_loop`).

A move or a timer only enqueues; one thread per process sends. Requests and the worker return
at once, so a frozen channel layer (a paused Redis) can never hold up a move or the worker's
clock. The sender keeps at most one pending push per table (a newer revision replaces an
older one), drops pushes that waited longer than ``STALE_SECONDS`` (the pages' heartbeat and
polling heal them), bounds every send with ``SEND_TIMEOUT_SECONDS``, and retries a failed push
(after ``RETRY_SECONDS``) until it is stale, so a Redis that froze for a few seconds still
delivers when it wakes.

A move made for a browser that is answered with the fresh panel (``gameplay.web.views.move``, inside
:func:`answering`) says so in its push: ``"answered"`` is a digest of that browser's session key
(never the key). That browser's own socket then gets the number alone, on whichever process it is
open (``gameplay.live.consumers.Hub``): its POST's answer holds that panel already.

Sends run on the server's own event loop once a socket has connected in this process
(:func:`bind_loop`, called by the consumer): the in-memory channel layer only delivers on
the loop its sockets run on. Until then, or when that loop is gone, the sender uses a loop
of its own (enough for Redis, which reaches every process).

With the in-memory layer every member of a table's group is in this process (its one table hub), so the
consumer also hands :func:`bind_loop` the hub's own delivery: a push is then put straight on the loop
(``call_soon_threadsafe``, which never waits), with no thread to wake and no trip through the layer.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar

from channels.layers import get_channel_layer
from django.db import connection, transaction

from lobby.models import Table

logger = logging.getLogger(__name__)

SEND_TIMEOUT_SECONDS = 2.0
STALE_SECONDS = 10.0
RETRY_SECONDS = 0.5
MAX_PENDING_TABLES = 10_000


# The digest of the session whose request makes the change and is answered with the fresh panel ("": none).
_answering: ContextVar[str] = ContextVar("notify_answering", default="")
# A pending push: (revision, when it was first queued, the answered session's digest or "").
Pending = tuple[int, float, str]


def session_digest(session_key: str | None) -> str:
    """What a push says of the session it answered: a digest, never the key itself ("" for none)."""
    return hashlib.blake2b(session_key.encode(), digest_size=12).hexdigest() if session_key else ""


@contextmanager
def answering(session_key: str | None) -> Iterator[None]:
    """The changes made inside are answered with the fresh panel to the browser of ``session_key``."""
    token = _answering.set(session_digest(session_key))
    try:
        yield
    finally:
        _answering.reset(token)


def group_name(table_id: int) -> str:
    """The Channels group of a table."""
    return f"table-{table_id}"


class PushSender:
    """A bounded, coalescing queue of table pushes and the thread that sends them."""

    def __init__(self) -> None:
        self._pending: dict[int, Pending] = {}
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._server_loop: asyncio.AbstractEventLoop | None = None
        self._own_loop: asyncio.AbstractEventLoop | None = None
        # Where a push is delivered in this process without the layer: (the loop, what it calls there).
        self._local: tuple[asyncio.AbstractEventLoop, Callable[[int, int, str], None]] | None = None
        self.sent = 0
        self.dropped = 0
        self.failed = 0

    def bind_loop(self, loop: asyncio.AbstractEventLoop,
                  deliver: Callable[[int, int, str], None] | None = None) -> None:
        """Send on ``loop`` from now on (the loop this process's sockets run on); ``deliver(table, revision,
        answered)``: what the group's one member does with a push there, when that member is all the layer reaches
        (the in-memory layer), called on ``loop`` instead of sending."""
        self._server_loop = loop
        self._local = (loop, deliver) if deliver is not None else None

    def enqueue(self, table_id: int, revision: int, since: float | None = None, answered: str = "") -> None:
        """Queue ``revision`` for the table (``answered``: see :func:`answering`); never blocks on the channel layer."""
        local = self._local
        if local is not None and local[0].is_running():
            try:
                # In a context of its own: not this thread's, which says it runs inside a sync_to_async call, so that
                # the hub's own calls to the database thread from there would be refused as a deadlock.
                local[0].call_soon_threadsafe(local[1], table_id, revision, answered, context=contextvars.Context())
            except RuntimeError:  # the loop closed meanwhile: the layer's way below
                pass
            else:
                self.sent += 1
                return
        with self._wake:
            queued = self._pending.get(table_id)
            if queued is not None and queued[0] >= revision:
                return
            if queued is None and len(self._pending) >= MAX_PENDING_TABLES:
                self.dropped += 1  # the pages' polling catches up; memory stays bounded
                return
            self._pending[table_id] = (revision, time.monotonic() if since is None else since, answered)
            self._wake.notify()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="table-push", daemon=True)
                self._thread.start()

    def pending(self) -> int:
        """How many tables wait for a push (for tests and figures)."""
        with self._wake:
            return len(self._pending)

    def _take(self) -> dict[int, Pending]:
        with self._wake:
            while not self._pending:
                self._wake.wait()
            batch, self._pending = self._pending, {}
            return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            try:
                failed = self._send_batch(batch)
            except Exception:  # the sender must outlive any layer error
                logger.exception("table pushes failed")
                failed = batch
            if failed:
                self.failed += len(failed)
                time.sleep(RETRY_SECONDS)
                for table, (revision, queued, answered) in failed.items():
                    self.enqueue(table, revision, since=queued, answered=answered)  # until it is stale

    def _send_batch(self, batch: dict[int, Pending]) -> dict[int, Pending]:
        """Send the fresh pushes of ``batch`` at once; returns those that failed."""
        now = time.monotonic()
        fresh = {table: item for table, item in batch.items() if now - item[1] <= STALE_SECONDS}
        self.dropped += len(batch) - len(fresh)
        layer = get_channel_layer()
        if layer is None or not fresh:
            return {}
        loop = self._server_loop
        if loop is not None and loop.is_running() and not loop.is_closed():
            future = asyncio.run_coroutine_threadsafe(self._send_all(layer, fresh), loop)
            try:
                return future.result(timeout=SEND_TIMEOUT_SECONDS + 1)
            except FutureTimeout:
                future.cancel()
                return fresh
        if self._own_loop is None or self._own_loop.is_closed():
            self._own_loop = asyncio.new_event_loop()
        return self._own_loop.run_until_complete(self._send_all(layer, fresh))

    async def _send_all(self, layer, fresh: dict[int, Pending]) -> dict[int, Pending]:
        results = await asyncio.gather(
            *(self._send_one(layer, table, revision, answered) for table, (revision, _, answered) in fresh.items()),
            return_exceptions=True,
        )
        failed = {}
        for (table, item), result in zip(fresh.items(), results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("push to table %s failed: %r", table, result)
                failed[table] = item
            else:
                self.sent += 1
        return failed

    async def _send_one(self, layer, table_id: int, revision: int, answered: str = "") -> None:
        message: dict = {"type": "table.revision", "t": table_id, "v": revision}
        if answered:
            message["answered"] = answered
        await asyncio.wait_for(layer.group_send(group_name(table_id), message), timeout=SEND_TIMEOUT_SECONDS)


SENDER = PushSender()


def push_revision(table_id: int, revision: int, answered: str = "") -> None:
    """Queue the push of a table's revision (call it after commit; ``answered``: see :func:`answering`)."""
    SENDER.enqueue(table_id, revision, answered=answered)


def bind_loop(loop: asyncio.AbstractEventLoop, deliver: Callable[[int, int, str], None] | None = None) -> None:
    """The consumer tells the sender which loop this process's sockets run on (``deliver``: see the module)."""
    SENDER.bind_loop(loop, deliver)


def table_notify(*, table_id: int) -> int:
    """Bump the table's revision and, after commit, queue the push of the number (and nothing else).

    Call it inside the transaction of the change it announces (it takes the table row's write
    lock until commit). The push is sent by this module's own thread, so a stalled channel
    layer never holds up the request or the worker that made the change.
    """
    revision = _bump(table_id, None)
    if revision is None:
        raise Table.DoesNotExist(table_id)
    return revision


def table_notify_at(*, table_id: int, at: int) -> int | None:
    """:func:`table_notify` only while the table's revision is still ``at`` (else nothing, and None): a change that
    several processes see at once (a phone fell asleep) moves the revision once."""
    return _bump(table_id, at)


def _bump(table_id: int, at: int | None) -> int | None:
    # One statement bumps and reads it (RETURNING: PostgreSQL, and SQLite since 3.35).
    condition, values = ("", [table_id]) if at is None else (" AND revision = %s", [table_id, at])
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Table._meta.db_table} SET revision = revision + 1 WHERE id = %s{condition} "
                       "RETURNING revision", values)
        row = cursor.fetchone()
    if row is None:
        return None
    revision = int(row[0])
    answered = _answering.get()
    transaction.on_commit(lambda: push_revision(table_id, revision, answered))
    return revision
