"""Oversized request bodies are refused (413) in the ASGI layer, before anything reads or buffers them.

Before, a body of any size went into Django, which read it whole and answered 400 (three 200 MiB
bodies raised a daphne process by 1.2 GiB, and 1 GiB of it stayed; docs/reliability.md).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.testing import ApplicationCommunicator, HttpCommunicator

from config.asgi import application
from infra.body_limit import MAX_BODY_BYTES, BodyLimit, declared_length
from tools.chaos import stop_process

LIMIT = 1000
ROOT = Path(__file__).resolve().parents[1]


def _scope(headers=(), method="POST", path="/guest/") -> dict:
    return {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "scheme": "http", "http_version": "1.1", "client": ["127.0.0.1", 5000],
            "server": ["127.0.0.1", 8000], "headers": [(b"host", b"testserver"), *headers]}


class Recorder:
    """An app that says what it was given: whether it was called, and the body it read."""

    def __init__(self) -> None:
        self.called = False
        self.body = b""

    async def __call__(self, scope, receive, send) -> None:
        self.called = True
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def _response(communicator: ApplicationCommunicator) -> tuple[int, dict, bytes]:
    start = await communicator.receive_output(timeout=5)
    body = await communicator.receive_output(timeout=5)
    assert start["type"] == "http.response.start" and body["type"] == "http.response.body"
    return start["status"], dict(start["headers"]), body["body"]


def test_the_limit_is_a_few_hundred_kb_far_above_any_form_here(settings):
    assert MAX_BODY_BYTES == 256 * 1024
    assert MAX_BODY_BYTES > settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # Django's own form limit answers first


async def test_a_declared_length_over_the_limit_is_413_and_nothing_is_read():
    inner = Recorder()
    communicator = ApplicationCommunicator(BodyLimit(inner, LIMIT), _scope([(b"content-length", b"1001")]))
    # Nothing of the body is sent: the answer must come from the header alone.
    status, headers, body = await _response(communicator)
    assert status == 413 and not inner.called
    assert headers[b"connection"] == b"close"
    assert body.decode() == "This request is too large: at most 0 KB are accepted.\n"
    await communicator.wait(timeout=1)


async def test_a_chunked_body_is_counted_and_refused_one_byte_over_without_reading_the_rest():
    inner = Recorder()
    communicator = ApplicationCommunicator(BodyLimit(inner, LIMIT), _scope([(b"transfer-encoding", b"chunked")]))
    await communicator.send_input({"type": "http.request", "body": b"x" * 600, "more_body": True})
    assert await communicator.receive_nothing(timeout=0.1)  # 600 bytes: still reading
    await communicator.send_input({"type": "http.request", "body": b"x" * 401, "more_body": True})
    status, _, _ = await _response(communicator)  # answered with more to come: the rest is never read
    assert status == 413 and not inner.called
    await communicator.wait(timeout=1)


async def test_a_body_within_the_limit_reaches_the_app_whole():
    for headers, chunks in [([(b"content-length", b"1000")], [b"y" * 1000]),
                            ([(b"transfer-encoding", b"chunked")], [b"y" * 400, b"y" * 600]),
                            ([], [b""])]:
        inner = Recorder()
        communicator = ApplicationCommunicator(BodyLimit(inner, LIMIT), _scope(headers))
        for i, chunk in enumerate(chunks):
            await communicator.send_input({"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1})
        status, _, body = await _response(communicator)
        assert (status, body, inner.body) == (200, b"ok", b"".join(chunks))


@pytest.mark.parametrize("values", [[b"12x"], [b"-1"], [b"1e9"], [b"10", b"20"], [b""]])
async def test_a_bad_length_is_a_clear_400(values):
    inner = Recorder()
    communicator = ApplicationCommunicator(BodyLimit(inner, LIMIT), _scope([(b"content-length", v) for v in values]))
    status, _, body = await _response(communicator)
    assert status == 400 and not inner.called and body.decode() == "This request's length is not valid.\n"
    await communicator.wait(timeout=1)


def test_declared_length():
    assert declared_length(_scope()) is None
    assert declared_length(_scope([(b"content-length", b" 42 ")])) == 42
    assert declared_length(_scope([(b"content-length", b"7"), (b"content-length", b"7")])) == 7


async def test_the_answer_speaks_the_browsers_language():
    for headers, expected in [([(b"accept-language", b"ja,en;q=0.5")], "このリクエストは大きすぎます"),
                              ([(b"cookie", b"django_language=fa"), (b"accept-language", b"ja")], "این درخواست")]:
        communicator = ApplicationCommunicator(BodyLimit(Recorder(), LIMIT),
                                               _scope([(b"content-length", b"5000"), *headers]))
        _, _, body = await _response(communicator)
        assert body.decode().startswith(expected)
        await communicator.wait(timeout=1)


@pytest.mark.django_db(transaction=True)
async def test_the_served_application_refuses_an_oversized_form_with_413_not_django_400():
    big = b"nickname=" + b"a" * (MAX_BODY_BYTES + 1)
    communicator = HttpCommunicator(application, "POST", "/guest/", body=big, headers=[
        (b"host", b"testserver"), (b"content-type", b"application/x-www-form-urlencoded"),
        (b"content-length", str(len(big)).encode())])
    response = await communicator.get_response(timeout=10)
    assert response["status"] == 413
    # A form of ordinary size still gets through to Django.
    small = b"nickname=Ana&next=/"
    communicator = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"testserver")])
    assert (await communicator.get_response(timeout=10))["status"] == 200
    communicator = HttpCommunicator(application, "POST", "/guest/", body=small, headers=[
        (b"host", b"testserver"), (b"content-type", b"application/x-www-form-urlencoded"),
        (b"content-length", str(len(small)).encode())])
    assert (await communicator.get_response(timeout=10))["status"] in (302, 403)  # 403: CSRF, Django's answer


@pytest.fixture
def daphne(tmp_path: Path):
    """The port of a daphne serving the app on 127.0.0.1 (its own SQLite file; no worker)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DJANGO_PLAIN_STATIC": "1",
                "GAME_WORKER": "0", "GC_FREEZE": "0"})
    process = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                "config.asgi:application"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            assert process.poll() is None, "daphne exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.time() < deadline, "daphne did not listen"
                time.sleep(0.2)
        yield port
    finally:
        stop_process(process, timeout=20)  # a loaded machine: stopped anyway after 20 s


def _status_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n" not in data:
        more = conn.recv(4096)
        if not more:
            break
        data += more
    return data.split(b"\r\n", 1)[0]


@pytest.mark.parametrize("transfer", ["content-length", "chunked"])
def test_daphne_refuses_before_reading_the_body(daphne, transfer):
    """Daphne reads a whole body before it calls the app; the guard answers from what it has seen so far."""
    with socket.create_connection(("127.0.0.1", daphne), timeout=5) as conn:
        if transfer == "content-length":  # the headers alone: not one byte of the body follows
            conn.sendall(b"POST /guest/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10485760\r\n\r\n")
        else:  # one byte over the limit, then the body stops (but does not end)
            piece = b"a" * (MAX_BODY_BYTES + 1)
            conn.sendall(b"POST /guest/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + b"%x\r\n" % len(piece) + piece + b"\r\n")
        assert _status_line(conn) == b"HTTP/1.1 413 Request Entity Too Large"
    # Ordinary requests are served as before.
    with socket.create_connection(("127.0.0.1", daphne), timeout=10) as conn:
        conn.sendall(b"GET /manifest.webmanifest HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _status_line(conn) == b"HTTP/1.1 200 OK"
