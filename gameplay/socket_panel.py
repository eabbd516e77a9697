"""A screen's partial, rendered for its own socket: the bytes its htmx refetch would get.

Before, every push made each of a table's 7–8 screens send an htmx GET for its partial, and
most of a request's CPU went to the HTTP round trip (parsing, the thread hop, the response),
not to the view (docs/performance.md). Now a page that names its partial when it opens the
socket (``?view=phone`` or ``?view=board``) gets the partial in the push frame itself:
``{"v": revision, "html": partial, "tag": etag}`` (:func:`push_frame`).

The partial is made by Django's own request handler, with the whole middleware chain and the
socket's own handshake headers (its cookies: session, CSRF, language), as an htmx GET of that
page. So the frame holds what this browser's GET would get at that moment: this seat's
secrets and public facts, nothing else, judged against the session as it is now, not as it
was when the socket opened. The socket itself is same-origin only (``SameOriginValidator``).

When that answer is anything but a plain 200 (a redirect, a refusal, a cookie to change, a
partial too large for a frame), the frame carries the number only and the page refetches
over HTTP as before: the push never needs to stand in for a browser.

One push makes every socket of the table render at once. Those renders (and only those) share
what is the same for all of them: the table row as the push's first render read it, at the
pushed revision or newer (:func:`push_table`), the latest game row and its seats, keyed by the
revision of that table row (:func:`latest_game`), and which seats are asleep
(:func:`asleep_seats`). Each is read once per push and process, and kept ``SHARED_SECONDS`` at
most. The session, the seat it plays and the page stay each render's own, and so does its
judgement of them. A push render does not mark its browser present: its socket does that
(``gameplay.consumers``).
"""

from __future__ import annotations

import copy
import io
import logging
import re
import sys
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.urls import reverse

from gameplay import presence
from gameplay.models import Game
from gameplay.seats import game_seats
from gameplay.selectors import table_latest_game
from lobby import notify
from lobby.models import Table

logger = logging.getLogger(__name__)

# The page's partial for each kind of table page (``?view=`` on the socket's URL) and its URL name.
VIEWS = {"phone": "table", "board": "board"}
# A frame larger than this carries the number only (the page refetches it).
MAX_FRAME_BYTES = 512 * 1024
# Handshake headers that belong to the socket, not to a page request.
_SOCKET_HEADERS = {"UPGRADE", "CONNECTION", "IF_NONE_MATCH", "IF_MODIFIED_SINCE", "CONTENT_LENGTH", "CONTENT_TYPE"}
REVISION = re.compile(rb'data-revision="(\d+)"')

# What the renders of one push share: (kind, table code, revision, …) -> (when read, the value).
# The code too: a test database that starts again reuses ids and revisions, never a random code.
SHARED_SECONDS = 2.0
SHARED_VALUES = 1536
_shared: OrderedDict[tuple, tuple[float, Any]] = OrderedDict()
_shared_lock = threading.Lock()
# The revision being pushed, during a push render (None otherwise).
_in_push: ContextVar[int | None] = ContextVar("socket_panel_in_push", default=None)
T = TypeVar("T")

_handler: WSGIHandler | None = None


def handler() -> WSGIHandler:
    """This process's handler for socket renders (middleware loaded once). Its ``get_response``
    runs the request without Django's request signals: the consumer's ``database_sync_to_async``
    already looks after the database connection around each render, as for any socket work."""
    global _handler
    if _handler is None:
        _handler = WSGIHandler()
    return _handler


def view_of(scope: dict[str, Any]) -> str | None:
    """The partial the page asked for in its socket URL (``?view=phone|board``), or None."""
    query = scope.get("query_string", b"")
    if isinstance(query, bytes):
        query = query.decode("latin-1")
    return next((value for name, value in urllib.parse.parse_qsl(query) if name == "view" and value in VIEWS), None)


def environ_of(scope: dict[str, Any], path: str) -> dict[str, Any]:
    """A WSGI environ for an htmx GET of ``path`` with the socket handshake's own headers."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("0.0.0.0", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": str(server[0] or "localhost"),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": client[0] or "0.0.0.0",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "https" if scope.get("scheme") == "wss" else "http",
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        if name in _SOCKET_HEADERS or name.startswith("SEC_WEBSOCKET"):
            continue
        key = f"HTTP_{name}"
        value = raw_value.decode("latin-1")
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    environ["HTTP_HX_REQUEST"] = "true"
    return environ


def render(scope: dict[str, Any], view: str, code: str, revision: int) -> tuple[bytes, str] | None:
    """The partial of ``view`` at table ``code`` as this socket's browser would GET it, with its
    entity tag ("" if none), or None; ``revision``: the one being pushed (the table is at least there).

    None when the answer is not a plain 200 that leaves the cookies as they are (the page then
    refetches itself), or when it is larger than a frame should be. Never raises: a failure is
    logged and is None.
    """
    pushing = _in_push.set(revision)
    try:
        request = WSGIRequest(environ_of(scope, reverse(VIEWS[view], args=[code])))
        response = handler().get_response(request)
    except Exception:
        logger.exception("a socket's partial could not be rendered")
        return None
    finally:
        _in_push.reset(pushing)
    if response.status_code != 200 or response.streaming or not _cookies_unchanged(request, response):
        return None
    body = response.content
    if len(body) > MAX_FRAME_BYTES:
        return None
    return body, response.get("ETag", "")


def push_frame(scope: dict[str, Any], view: str, code: str, revision: int, answered: str = "") -> dict[str, Any]:
    """The frame for a push of ``revision`` to this socket: its partial, or the number alone.

    The number alone for the phone whose own move made this revision and was answered with that
    panel (``answered``: its session's digest, ``lobby.notify.answering``; it holds the panel, and if
    that answer was lost, the number makes it refetch), and whenever the partial cannot go in a
    frame (:func:`render`).
    """
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    if answered and view == "phone" and notify.session_digest(key) == answered:
        return {"v": revision}
    answer = render(scope, view, code, revision)
    rendered = revision_of(answer[0]) if answer is not None else None
    if answer is None or rendered is None or rendered < revision:
        return {"v": revision}
    frame: dict[str, Any] = {"v": rendered, "html": answer[0].decode("utf-8")}
    if answer[1]:
        frame["tag"] = answer[1]
    return frame


def pushing() -> bool:
    """Whether this is a push render (:func:`render`), not a browser's request."""
    return _in_push.get() is not None


def _once(key: tuple, read: Callable[[], T]) -> T:
    """``read()`` once per ``key`` for the renders of pushes (kept ``SHARED_SECONDS`` at most)."""
    now = time.monotonic()
    with _shared_lock:
        found = _shared.get(key)
    if found is None or now - found[0] > SHARED_SECONDS:
        found = (now, read())
        with _shared_lock:
            _shared[key] = found
            while len(_shared) > SHARED_VALUES:
                _shared.popitem(last=False)
    return found[1]


def push_table(code: str, read: Callable[[], Table]) -> Table:
    """The table at ``code``: ``read()`` outside a push render; in one, the row the push's first render
    read (at the pushed revision or newer: it was read after that revision was made), a copy each."""
    revision = _in_push.get()
    if revision is None:
        return read()
    return copy.copy(_once(("table", code, revision), read))


def latest_game(table: Table) -> Game | None:
    """The table's latest game with its seats: read once per table revision for the renders of a
    push (a copy each, so no render sees another's attributes), from the database otherwise."""
    if not pushing():
        return table_latest_game(table)

    def read() -> Game | None:
        game = table_latest_game(table)
        if game is not None:
            game_seats(game)  # read with the row, shared by the copies
        return game

    game = _once(("game", table.code, table.revision, table.pk), read)
    return copy.copy(game) if game is not None else None


def asleep_seats(game: Game, table: Table) -> list[int]:
    """``presence.asleep_seats``, read once per table revision for the renders of a push."""
    if not pushing():
        return presence.asleep_seats(game, table.pk)
    return list(_once(("asleep", table.code, table.revision, game.pk), lambda: presence.asleep_seats(game, table.pk)))


def _cookies_unchanged(request: WSGIRequest, response: Any) -> bool:
    """Whether every cookie the answer sets is one the browser holds already, with the same value.

    Django sends the CSRF cookie again whenever a page uses its token, only to renew its expiry;
    that the frame cannot do, and need not (the next request renews it). A new or changed cookie
    (a new session, a deleted one, a new CSRF secret) needs the browser: the page refetches.
    """
    return all(request.COOKIES.get(name) == morsel.value and morsel.value and morsel["max-age"] != 0
               for name, morsel in response.cookies.items())


def revision_of(body: bytes) -> int | None:
    """The table revision a partial was rendered at (its ``data-revision``)."""
    found = REVISION.search(body)
    return int(found.group(1)) if found else None
