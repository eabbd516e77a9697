"""PATCHES of daphne, in one place: what the bounds of ``infra.body_limit`` and ``infra.socket_bounds`` need below
the ASGI interface, where no ASGI message reaches (a body daphne reads whole before calling the application; the
bytes a socket's client has not taken yet; the frames a refused client still sends).

Each patch names daphne's method it wraps, and :func:`patch_daphne` checks the daphne version they were written
against (``DAPHNE_EXPECTED``) before it touches anything: a daphne of another version stops the server at start-up,
saying what to check. Without daphne (another ASGI server) nothing is patched and the ASGI bounds act alone.
"""

from __future__ import annotations

import fcntl
import logging
import struct
import termios

from infra.body_limit import MAX_BODY_BYTES, refusal
from infra.socket_bounds import MAX_UNSENT_BYTES, REFUSALS

logger = logging.getLogger("infra.socket_bounds")

# The daphne these patches were written against (its WebRequest and WebSocketProtocol).
DAPHNE_EXPECTED = "4.2."


def patch_daphne(body_limit: int = MAX_BODY_BYTES, unsent_limit: int = MAX_UNSENT_BYTES) -> bool:
    """Both patches (once; again only sets the limits). Whether daphne is here and was patched."""
    try:
        import daphne
    except ImportError:  # another server: the ASGI bounds alone
        return False
    if not daphne.__version__.startswith(DAPHNE_EXPECTED):
        raise RuntimeError(f"infra.daphne_patch patches daphne {DAPHNE_EXPECTED}x, found {daphne.__version__}: "
                           "check WebRequest.gotLength/handleContentChunk/process and "
                           "WebSocketProtocol.serverSend/serverClose")
    _guard_bodies(body_limit)
    _guard_output(unsent_limit)
    return True


LINGER_SECONDS = 2.0


def _abort(transport) -> None:
    if getattr(transport, "connected", False):
        (getattr(transport, "abortConnection", None) or transport.loseConnection)()


def _refuse_body(request) -> None:
    """Answer a daphne request whose body is over the limit 413 at once, and close it as web servers do."""
    from daphne.http_protocol import WebRequest

    request.body_refused = True
    headers = [(name.lower(), value) for name, values in request.requestHeaders.getAllRawHeaders() for value in values]
    request.requestHeaders.removeHeader(b"expect")  # no "100 Continue" after the refusal
    answer, body = refusal(headers, 413, WebRequest.body_limit)
    head = b"HTTP/1.1 413 Request Entity Too Large\r\n" + b"".join(
        name + b": " + value + b"\r\n" for name, value in answer)
    transport = request.channel.transport
    transport.write(head + b"\r\n" + body)
    # A lingering close: the answer, then the end of our side; what the client still sends is read and dropped
    # for a moment (so it gets to read the answer rather than a reset), then the connection goes whatever it does.
    if hasattr(transport, "loseWriteConnection"):
        transport.loseWriteConnection()
        from twisted.internet import reactor

        # (Twisted types the reactor module as its interface, whose methods mypy reads with a self.)
        reactor.callLater(LINGER_SECONDS, _abort, transport)  # type: ignore[arg-type]
    else:
        request.channel.loseConnection()


def _guard_bodies(limit: int) -> None:
    """PATCH of daphne's ``WebRequest`` (``gotLength``, ``handleContentChunk``, ``process``): the body limit of
    ``infra.body_limit`` inside daphne itself, before it reads the body.

    Daphne (through Twisted) reads a request's whole body, to a temporary file, before the
    application is called, and then puts all of it on the application's queue at once: by the time
    :class:`BodyLimit` sees the request, the body is in memory whatever it answers. So its request
    class is taught the limit where Twisted reports the body's length (``gotLength``, once the
    headers are in) and hands each piece of it over (``handleContentChunk``): a declared length over
    the limit, or a chunked body that goes over it, is answered 413 there and the connection closed;
    what else arrives is dropped unread, and the application never sees that request.
    """
    from daphne.http_protocol import WebRequest

    if getattr(WebRequest, "body_limit", None) is None:
        got_length, content_chunk, process = WebRequest.gotLength, WebRequest.handleContentChunk, WebRequest.process
        refuse = _refuse_body

        def gotLength(self, length):  # noqa: N802 (Twisted's name)
            self.body_seen, self.body_refused = 0, False
            if length is not None and length > WebRequest.body_limit:
                refuse(self)
                return got_length(self, 0)  # an empty body in memory: nothing of it is kept
            return got_length(self, length)

        def handleContentChunk(self, data):  # noqa: N802
            if getattr(self, "body_refused", False):
                return None
            self.body_seen = getattr(self, "body_seen", 0) + len(data)
            if self.body_seen > WebRequest.body_limit:
                refuse(self)
                return None
            return content_chunk(self, data)

        def guarded_process(self):
            if getattr(self, "body_refused", False):
                return None  # answered already; the application never sees it
            return process(self)

        WebRequest.gotLength = gotLength
        WebRequest.handleContentChunk = handleContentChunk
        WebRequest.process = guarded_process
    WebRequest.body_limit = limit


def unsent_bytes(transport) -> int:
    """What waits for the peer to take it: in the Twisted transport's buffer, and in the kernel's send queue of
    its socket (``TIOCOUTQ``, Linux's unsent and unacknowledged bytes; 0 where it cannot tell). The kernel's
    part counts too, as it grows to megabytes before Twisted holds a byte."""
    buffered = getattr(transport, "dataBuffer", b"")
    waiting = len(buffered) - getattr(transport, "offset", 0) + getattr(transport, "_tempDataLen", 0)
    try:
        queued = struct.unpack("i", fcntl.ioctl(transport.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except (AttributeError, OSError, ValueError):
        queued = 0
    return waiting + queued


def _guard_output(limit: int) -> None:
    """PATCH of daphne's ``WebSocketProtocol.serverSend`` and ``serverClose`` (daphne 4.2): after each frame, a
    socket with more than ``limit`` bytes waiting in the server is dropped; a socket closed as a refusal
    (``REFUSALS``) is read no more.

    Why a patch: what waits unsent, and what a client has sent but the server has not parsed yet, are the
    Twisted transport's, which no ASGI message reaches."""
    from daphne.ws_protocol import WebSocketProtocol

    if getattr(WebSocketProtocol, "unsent_limit", None) is None:
        send, close = WebSocketProtocol.serverSend, WebSocketProtocol.serverClose

        def serverSend(self, content, binary=False):  # noqa: N802 (daphne's name)
            send(self, content, binary)
            waiting = unsent_bytes(self.transport)
            if waiting > WebSocketProtocol.unsent_limit:
                logger.info("socket from %s dropped: %d bytes unsent (it does not read)", self.client_addr, waiting)
                self.dropConnection(abort=True)

        def serverClose(self, code=None):  # noqa: N802 (daphne's name)
            close(self, code)
            if code in REFUSALS and hasattr(self.transport, "pauseProducing"):
                # What a refused client has sent meanwhile (megabytes of tiny frames, in a flood) is never parsed:
                # nothing more is read, and the close handshake's timeout drops the connection.
                self.transport.pauseProducing()

        WebSocketProtocol.serverSend = serverSend
        WebSocketProtocol.serverClose = serverClose
    WebSocketProtocol.unsent_limit = limit
