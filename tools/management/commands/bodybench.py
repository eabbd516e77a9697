"""Send large request bodies to a daphne on this machine and show what they do to its memory.

``manage.py bodybench`` starts daphne on 127.0.0.1 (a free port; ``--pid`` and ``--port`` measure
one already running on 127.0.0.1 instead), reads its resident memory (``VmRSS``) at rest, then sends
``--rounds`` rounds of ``--parallel`` POST bodies of ``--size-mib`` MiB at once (declared with a
Content-Length, or ``--chunked``), sampling the memory every 50 ms, and reads it again once the
answers are in and after ``--settle`` seconds. Loopback only, and bounded (at most 1 GiB a body,
8 at once, 10 rounds): it is a measurement, not a load tool. Figures: docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tools.chaos import stop_process

HOST = "127.0.0.1"
SLICE = 1024 * 1024


def rss_mib(pid: int) -> float:
    """The process's resident memory in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise CommandError(f"no VmRSS for process {pid}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


async def _post(port: int, path: str, size: int, chunked: bool) -> str:
    """One POST of ``size`` bytes, its answer read while it is sent: the answer's status line and
    how much of the body had gone by then (or how the server cut it short)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    piece = b"nickname=" + b"a" * (SLICE - 9)
    head = [f"POST {path} HTTP/1.1", f"Host: {HOST}:{port}", "Content-Type: application/x-www-form-urlencoded",
            "Connection: close"]
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}")
    sent = 0
    answer = asyncio.create_task(reader.readline())
    try:
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        while sent < size and not answer.done():
            part = piece[: min(SLICE, size - sent)]
            writer.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
            sent += len(part)
            await writer.drain()
        if chunked and not answer.done():
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    try:
        line = (await asyncio.wait_for(answer, timeout=300)).decode("latin-1").strip()
    except (TimeoutError, ConnectionError, OSError):
        line = ""
    finally:
        writer.close()
    whole = "whole body sent" if sent >= size else f"{sent // SLICE} of {size // SLICE} MiB sent"
    return f"{line} ({whole})" if line else f"cut off, {whole}"


async def _round(pid: int, port: int, path: str, size: int, parallel: int, chunked: bool) -> tuple[list[str], float]:
    """``parallel`` POSTs at once; their answers and the highest memory seen meanwhile."""
    peak = rss_mib(pid)
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mib(pid))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    answers = await asyncio.gather(*(_post(port, path, size, chunked) for _ in range(parallel)))
    done.set()
    await sampler
    return list(answers), max(peak, rss_mib(pid))


def _wait_listening(port: int, process: subprocess.Popen | None) -> None:
    deadline = time.time() + 60
    while True:
        if process is not None and process.poll() is not None:
            raise CommandError("daphne exited before it listened")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            if time.time() > deadline:
                raise CommandError(f"nothing listens on {HOST}:{port}") from None
            time.sleep(0.2)


def _warm(port: int) -> None:
    """A few small requests first, so that the figure at rest is a served process's."""
    for _ in range(5):
        with socket.create_connection((HOST, port), timeout=10) as conn:
            conn.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
            while conn.recv(65536):
                pass


class Command(BaseCommand):
    help = "RSS of a daphne on 127.0.0.1 before, during and after large POST bodies (loopback only, bounded)."

    def add_arguments(self, parser):
        parser.add_argument("--size-mib", type=int, default=200)
        parser.add_argument("--parallel", type=int, default=3)
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait before the last reading")
        parser.add_argument("--chunked", action="store_true", help="send the bodies chunked, with no length")
        parser.add_argument("--path", default="/guest/")
        parser.add_argument("--pid", type=int, help="an already running daphne's process id (with --port)")
        parser.add_argument("--port", type=int)

    def handle(self, *args, size_mib, parallel, rounds, settle, chunked, path, pid, port, **options):
        if not (1 <= size_mib <= 1024 and 1 <= parallel <= 8 and 1 <= rounds <= 10 and 0 <= settle <= 120):
            raise CommandError("bounded: --size-mib 1..1024, --parallel 1..8, --rounds 1..10, --settle 0..120")
        if not path.startswith("/"):
            raise CommandError("--path is a path on the server, such as /guest/")
        if (pid is None) != (port is None):
            raise CommandError("--pid and --port go together (a daphne already running on 127.0.0.1)")
        process = None
        if pid is None:
            port = _free_port()
            env = {**os.environ, "GAME_WORKER": "0", "PYTHONUNBUFFERED": "1"}
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", HOST, "-p", str(port), "config.asgi:application"],
                cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            pid = process.pid
        try:
            _wait_listening(port, process)
            _warm(port)
            rest = rss_mib(pid)
            kind = "chunked" if chunked else "with Content-Length"
            self.stdout.write(f"daphne pid {pid} on {HOST}:{port}: {rest:.0f} MiB at rest; "
                              f"{rounds} rounds of {parallel} x {size_mib} MiB POST {path} {kind}")
            rows = []
            for n in range(1, rounds + 1):
                answers, peak = asyncio.run(_round(pid, port, path, size_mib * SLICE, parallel, chunked))
                after = rss_mib(pid)
                rows.append({"round": n, "peak_mib": round(peak), "after_mib": round(after), "answers": answers})
                self.stdout.write(f"round {n}: peak {peak:.0f} MiB, after {after:.0f} MiB; answers: "
                                  + "; ".join(sorted(set(answers))))
            time.sleep(settle)
            settled = rss_mib(pid)
            self.stdout.write(f"after {settle:g} s: {settled:.0f} MiB (at rest {rest:.0f} MiB, "
                              f"{settled - rest:+.0f} MiB)")
            self.stdout.write(json.dumps({"rest_mib": round(rest), "settled_mib": round(settled), "rounds": rows}))
        finally:
            if process is not None:
                stop_process(process)
