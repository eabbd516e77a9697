"""A real run of ``manage.py loadtest`` (2 tables, 10 s) against a real daphne process.

The server gets a database of its own (a temporary SQLite file, migrated first), whatever the test
run's DATABASE_URL is, the in-memory channel layer (one process), and no abuse limits (every guest
comes from 127.0.0.1). No timing is asserted: only that moves were played, nothing failed, and the
figures are there.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT, free_port, wait_listening
from tools.chaos import stop_process


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, int, dict[str, str], Path]]:
    """(port, pid, environment, log) of a daphne serving the app on a fresh SQLite database."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({
        "DATABASE_URL": f"sqlite:///{tmp_path / 'loadtest.sqlite3'}",
        "DJANGO_RATELIMIT": "0",
        "DJANGO_PLAIN_STATIC": "1",
        "GAME_WORKER": "1",
        "PYTHONUNBUFFERED": "1",
    })
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True,
                   timeout=120)
    port = free_port()
    log_path = tmp_path / "daphne.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        try:
            wait_listening(port, process, "daphne")
        except RuntimeError as error:
            raise RuntimeError(f"{error}: {log_path.read_text()[-2000:]}") from None
        yield port, process.pid, env, log_path
    finally:
        stop_process(process)


@pytest.mark.parametrize("pull", [False, True], ids=["pushed-partials", "pull"])
def test_loadtest_smoke(server: tuple[int, int, dict[str, str], Path], pull: bool) -> None:
    """Both protocols: partials in the push frames (what the pages use), and numbers only with a
    refetch per screen (``--pull``, the fallback every page still has)."""
    port, pid, env, log_path = server
    result = subprocess.run(
        [sys.executable, "manage.py", "loadtest", "--url", f"http://127.0.0.1:{port}", "--tables", "2",
         "--duration", "10", "--seed", "13", *(["--pull"] if pull else [])],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=90,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    context = f"{result.stdout[-3000:]}\n{result.stderr[-2000:]}"

    assert figures["tables"] == 2
    assert figures["screens"] == 5 + 6 + 2, context  # the default 5 and 6 phones, and a board each
    assert figures["sockets_open_at_end"] == figures["screens"], context
    assert figures["moves_accepted"] > 0, context
    assert figures["errors_total"] == 0, context
    assert figures["tap_every_screen_n"] == figures["moves_accepted"], context
    for key in ("moves_per_s", "tap_every_screen_p50_ms", "tap_every_screen_p95_ms", "tap_every_screen_p99_ms",
                "tap_every_screen_max_ms", "post_p50_ms", "post_p99_ms"):
        assert figures[key] > 0, (key, context)
    assert figures["pull"] is pull
    if pull:  # every screen refetched every move
        assert figures["panel_pushed_n"] == 0, context
        assert figures["panel_get_n"] >= figures["moves_accepted"] and figures["panel_get_p50_ms"] > 0, context
    else:  # the other screens got every move's partial in a frame
        assert figures["panel_pushed_n"] >= figures["moves_accepted"], context
    # The server was found by its listening socket, and measured.
    assert figures["server_pids"] == [pid], context
    assert figures["server_cpu_pct"] > 0 and figures["server_rss_mb"] > 0, context
    assert "Traceback" not in log_path.read_text()


def test_server_pids_finds_every_process_sharing_the_listening_socket() -> None:
    """As several daphne processes do with ``--fd``: one socket, listened on by several processes."""
    from tools.loadtest import cpu_seconds, rss_bytes, server_pids

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = int(listening.getsockname()[1])
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                                 pass_fds=[listening.fileno()])
        try:
            found = server_pids(port)
            assert os.getpid() in found and child.pid in found
            assert set(cpu_seconds(found)) == set(found) and rss_bytes(found) > 0
        finally:
            child.kill()
            child.wait(timeout=10)
    assert server_pids(free_port()) == []
