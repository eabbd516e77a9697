"""Request bodies over ``MAX_BODY_BYTES`` are refused with 413 before the app reads them.

No form here needs much: the largest, a new table with every game's options filled in, posts
about 1 KB, and Django itself takes at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (64 KiB) of form data.
But Django's limit applies as it parses: a body of any size would come through a2wsgi into
memory first, and a few large ones at once leave a server process lastingly larger (figures:
docs/reliability.md).

- A declared ``Content-Length`` over the limit is answered 413 at once: the app is never called
  and nothing of the body is read. A length that is not a number (or two that differ) is a 400.
- A body without a length (``Transfer-Encoding: chunked``) is read here, counting, up to the limit:
  one byte more and the answer is 413 without reading the rest; a body within the limit is handed
  to the app whole, as one message.

Under daphne the same limit also guards daphne's own reading (``infra.daphne_patch``): it reads a
whole body before it calls the application, so the middleware alone would come too late there.

The answer closes the connection (a client that goes on sending is not read). Its text is in the
browser's language (its language cookie, else ``Accept-Language``), through Django's catalogs.
Websockets pass untouched (their frames are bounded by the server).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation.trans_real import parse_accept_lang_header

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = int(os.environ.get("MAX_BODY_BYTES", str(256 * 1024)))


Headers = list[tuple[bytes, bytes]]


def _header(scope: Scope, name: bytes) -> list[bytes]:
    return [value for key, value in scope.get("headers") or [] if key.lower() == name]


def _language(headers: Headers) -> str:
    """The browser's language as Django's LocaleMiddleware would pick it (cookie, then Accept-Language)."""
    supported = {code for code, _name in settings.LANGUAGES}
    for raw in (value for key, value in headers if key.lower() == b"cookie"):
        for part in raw.decode("latin-1").split(";"):
            name, _, value = part.strip().partition("=")
            if name == settings.LANGUAGE_COOKIE_NAME and value in supported:
                return value
    for raw in (value for key, value in headers if key.lower() == b"accept-language"):
        for code, _quality in parse_accept_lang_header(raw.decode("latin-1")):
            for candidate in (code.lower(), code.lower().split("-")[0]):
                if candidate in supported:
                    return candidate
    return settings.LANGUAGE_CODE


def refusal(headers: Headers, status: int, limit: int) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The answer's headers and text for a refused body (413) or a bad length (400), in the browser's language."""
    with translation.override(_language(headers)):
        if status == 413:
            text = gettext("This request is too large: at most %(size)s KB are accepted.") % {"size": limit // 1024}
        else:
            text = gettext("This request's length is not valid.")
    body = (text + "\n").encode("utf-8")
    return [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"connection", b"close"),
    ], body


async def _answer(scope: Scope, send: Send, status: int, limit: int) -> None:
    headers, body = refusal(list(scope.get("headers") or []), status, limit)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``: None when it has none; raises ValueError for a bad one."""
    values = {value.strip() for value in _header(scope, b"content-length")}
    if not values:
        return None
    if len(values) > 1:
        raise ValueError("conflicting Content-Length headers")
    (value,) = values
    if not value.isdigit():  # ASCII digits only: no sign, no spaces inside, no "1e9"
        raise ValueError("Content-Length is not a number")
    return int(value)


class BodyLimit:
    """ASGI middleware: refuse an HTTP request body over ``limit`` bytes before it is buffered (413)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        try:
            length = declared_length(scope)
        except ValueError:
            return await _answer(scope, send, 400, self.limit)
        if length is not None:
            if length > self.limit:
                return await _answer(scope, send, 413, self.limit)
            return await self.app(scope, receive, send)  # the server delivers exactly that many bytes
        # No length given (chunked, or no body): read it here, counting, at most the limit.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # http.disconnect: the client went away
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await _answer(scope, send, 413, self.limit)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> Message:
            return whole.pop() if whole else await receive()

        return await self.app(scope, replay, send)
