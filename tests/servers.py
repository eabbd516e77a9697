"""Real servers for the tests that need them: a private redis-server that a test may freeze or restart, and
daphne processes serving the app against the test database.

A missing redis-server fails the test and says what to install (never a silent skip).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# The test database's table ids start at 1 in every run, and so do the Channels groups named
# after them: a run of its own Redis database number keeps two runs on one machine apart.
REDIS_URL = urlsplit(os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))._replace(
    path=f"/{1 + os.getpid() % 15}").geturl()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, what: str, seconds: float = 30.0) -> None:
    """Return once ``port`` takes connections; fail if ``process`` exits or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen in {seconds:.0f} s") from None
            time.sleep(0.05)


def database_url() -> str:
    """The test database, as a ``DATABASE_URL`` for a server process."""
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


class RedisServer:
    """A private redis-server on a free port that keeps nothing on disk (as ``make services`` starts one)."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            pytest.fail("redis-server is missing: apt-get install redis-server")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(self.port, self.process, "the test's redis-server", 10)
        except RuntimeError as error:
            self.stop()
            pytest.fail(str(error))

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def stop(self) -> None:
        """Kill it (its memory, every group and message in it, is gone)."""
        if self.process is None:
            return
        os.kill(self.process.pid, signal.SIGCONT)  # a frozen one dies too
        self.process.kill()
        self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Kill it and start an empty one on the same port: what a Redis restart without persistence is."""
        self.stop()
        self.start()


class Server:
    """One daphne process serving the app on 127.0.0.1 against the test database and ``redis_url``."""

    def __init__(self, redis_url: str = REDIS_URL, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": redis_url,
            "DJANGO_PLAIN_STATIC": "1",
            # Every browser of every run is 127.0.0.1 and the counters sit in the shared Redis.
            "DJANGO_RATELIMIT": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GAME_WORKER": "1",
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        ARTIFACTS.mkdir(exist_ok=True)
        self.log = open(ARTIFACTS / f"daphne-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
            cwd=ROOT, env=environment, stdout=self.log, stderr=subprocess.STDOUT,
        )
        try:
            wait_listening(self.port, self.process, f"daphne (see {self.log.name})")
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()

    def logged(self) -> str:
        """What the server has written to its log so far."""
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def rss_bytes(self) -> int:
        """The process's resident memory now."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")
