"""``manage.py chaos``'s pure pieces: the copy of the code it runs, the push catch-up it measures, the report."""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path

import pytest

from tools.chaos import copy_code, push_line
from tools.pushwatch import behind_for, catch_up, fault_push_figures, heartbeat_seconds, value_at


def test_the_copy_leaves_out_make_serves_runtime_files_and_any_socket(tmp_path: Path):
    source = tmp_path / "tree"
    (source / "gameplay").mkdir(parents=True)
    (source / "gameplay" / "consumers.py").write_text("HEARTBEAT_SECONDS = 15.0\n")
    (source / ".secret_key").write_text("k")
    (source / ".serve").mkdir()
    (source / ".serve" / "supervisord.pid").write_text("1")
    (source / ".serve" / "web0.log").write_text("log")
    (source / "celery.pid").write_text("2")
    with socket.socket(socket.AF_UNIX) as listening:  # make serve's supervisor.sock, and one elsewhere
        listening.bind(str(source / ".serve" / "supervisor.sock"))
        with socket.socket(socket.AF_UNIX) as other:
            other.bind(str(source / "gameplay" / "stray"))
            copy = copy_code(source, tmp_path / "copy")
    assert (copy / "gameplay" / "consumers.py").read_text() == "HEARTBEAT_SECONDS = 15.0\n"
    assert (copy / ".secret_key").read_text() == "k"  # sessions and CSRF tokens agree between processes
    assert not (copy / ".serve").exists()
    assert not (copy / "gameplay" / "stray").exists()
    assert not (copy / "celery.pid").exists()


def test_the_heartbeat_is_read_from_the_apps_code(tmp_path: Path):
    assert heartbeat_seconds(tmp_path) == 15.0  # no code there: the default
    (tmp_path / "gameplay").mkdir()
    (tmp_path / "gameplay" / "consumers.py").write_text("X = 1\nHEARTBEAT_SECONDS = 2.5  # seconds\n")
    assert heartbeat_seconds(tmp_path) == 2.5
    assert heartbeat_seconds(Path(__file__).resolve().parents[2]) > 0


def test_a_series_is_a_step_function_and_behind_counts_from_the_first_newer_revision():
    truth = [(10.0, 3), (12.0, 4), (15.0, 5)]
    assert [value_at(truth, t) for t in (9.9, 10.0, 11.9, 12.0, 30.0)] == [-1, 3, 3, 4, 5]
    assert behind_for(truth, 4, 13.0) == 0.0
    assert behind_for(truth, 3, 13.0) == pytest.approx(1.0)  # revision 4 came at 12
    assert behind_for(truth, 3, 16.0) == pytest.approx(4.0)  # still since 12, not since 15
    assert behind_for(truth, 7, 16.0) == 0.0  # ahead of the database's last read: not behind


def test_catch_up_after_a_fault_and_how_far_behind_afterwards():
    truth = [(0.0, 1), (5.0, 2), (20.0, 3)]
    board = [(0.1, 1), (8.0, 2), (20.2, 3)]  # learned 2 three seconds late (the fault ended at 6)
    phone = [(0.1, 1), (7.0, 2), (20.1, 3)]
    found = catch_up(truth, [board, phone], start=6.0, stop=25.0)
    assert found == {"caught_up_after": 2.0, "worst_behind_after": pytest.approx(0.15, abs=0.06)}  # 0.1 s steps
    # A push path that died: caught up at once (nothing moved), then never again.
    dead = [(0.1, 1), (5.1, 2)]
    found = catch_up(truth, [dead], start=6.0, stop=40.0)
    assert found["caught_up_after"] == 0.0 and found["worst_behind_after"] == pytest.approx(20.0)
    # Never caught up before the next fault.
    assert catch_up(truth, [[(0.1, 1)]], start=6.0, stop=19.0)["caught_up_after"] is None


def test_a_faults_figures_over_tables_pass_only_when_every_table_caught_up_within_the_limit():
    watch = {
        "truth": {"AAAAA": [(0.0, 1), (5.0, 2)], "BBBBB": [(0.0, 7)], "CCCCC": []},
        "watchers": {"AAAAA": {"board@A": [(0.0, 1), (9.0, 2)], "phone@B": [(0.0, 1), (6.5, 2)]},
                     "BBBBB": {"board@B": [(0.2, 7)], "phone@A": [(0.3, 7)]}, "CCCCC": {}},
    }
    figures = fault_push_figures(watch, start=6.0, stop=30.0, limit=20.0)
    assert figures["tables"] == 2  # a table with no revision read is left out
    assert figures["caught_up_worst_s"] == 3.0 and figures["caught_up_p50_s"] == 0.0
    assert figures["never_caught_up"] == [] and figures["passed"]
    assert "worst 3.0 s" in push_line(figures) and "PASS" in push_line(figures)
    late = fault_push_figures(watch, start=6.0, stop=30.0, limit=2.0)
    assert not late["passed"]
    stuck = fault_push_figures(watch, start=6.0, stop=8.0, limit=20.0)
    assert stuck["never_caught_up"] == ["AAAAA"] and stuck["caught_up_worst_s"] is None and not stuck["passed"]
    assert "1 of 2 tables never caught up (AAAAA)" in push_line(stuck)


async def test_the_misbehaving_client_floods_reconnects_and_leaves_bad_sockets_hanging():
    """Against a small aiohttp server that closes a flooding socket after 200 moves (4429) and a bad frame (4400)."""
    from aiohttp import WSMsgType, web

    from tools.pushwatch import misbehave

    seen: Counter[str] = Counter()

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        seen[f"opened {request.query.get('view')}"] += 1
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                json.loads(message.data)
            except ValueError:
                seen["bad frame"] += 1
                await ws.close(code=4400)
                break
            seen["moves"] += 1
            if seen["moves"] % 200 == 0:
                await ws.close(code=4429)
                break
        return ws

    app = web.Application()
    app.router.add_get("/ws/t/{code}/", socket)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        counts = await misbehave([port], "ABCDE", flood_sockets=2, flood_seconds=1.0, bad_sockets=2, bad_seconds=1.0)
    finally:
        await runner.cleanup()
    assert counts["bad frames sent"] == 2 and seen["bad frame"] == 2 and seen["opened board"] == 2
    assert counts.get("flood socket closed 4429", 0) >= 2 and seen["opened phone"] >= 4  # closed, opened again
    assert counts["flood frames sent"] >= seen["moves"] >= 400
    assert not [k for k in counts if k.startswith("client error")]
