"""``manage.py pushbench``: what one push to a table's screens costs in this process, no network.

It seats ``--phones`` guests at an Inside Job table through the app's own pages (Django's test
client: guest sign-in, the table, joining, the host's start), then pushes ``--pushes`` times: the
table's revision moves on and every phone's socket and the board's get their frame from
``gameplay.socket_panel.push_frame``, exactly as the consumer does, one after another. It prints
the CPU time of a whole push (best, quartile, median) and per screen, and the frames' size.
Nothing stays behind: every row is written in a transaction that is rolled back at the end.
Like the load tool's figures, it compares code at one moment on one machine: run "before" and
"after" alternately (docs/performance.md).
"""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import F
from django.test import Client

from gameplay import socket_panel
from lobby.models import Table


class _Rollback(Exception):
    pass


def _socket_scope(client: Client | None) -> dict:
    """A table socket's scope as the browser of ``client`` opens it (None: a board without a session)."""
    headers = [(b"host", b"testserver"), (b"origin", b"http://testserver")]
    if client is not None:
        cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
        headers.append((b"cookie", cookie.encode()))
    return {"type": "websocket", "headers": headers, "server": ("testserver", 80), "client": ("127.0.0.1", 0)}


def seat_table(phones: int) -> tuple[str, list[Client]]:
    """An Inside Job table of ``phones`` guests with its game started; (code, each phone's browser)."""
    browsers = [Client() for _ in range(phones)]
    for i, browser in enumerate(browsers):
        if browser.post("/guest/", {"nickname": f"Bench {i + 1}", "next": "/"}).status_code != 302:
            raise RuntimeError("a guest could not sign in")
    host = browsers[0]
    if host.post("/new/", {"engine": "inside_job", "timer": "0"}).status_code != 302:
        raise RuntimeError("the table could not be made")
    code = Table.objects.filter(host_id=host.session["player_id"]).values_list("code", flat=True).get()
    for browser in browsers[1:]:
        if browser.post(f"/t/{code}/join/").status_code != 302:
            raise RuntimeError("a guest could not join")
    if host.post(f"/t/{code}/host/start/").status_code != 302:
        raise RuntimeError("the game could not start")
    for browser in browsers:  # each phone holds its panel (and its CSRF cookie), as a loaded page does
        browser.get(f"/t/{code}/", HTTP_HX_REQUEST="true")
    return code, browsers


class Command(BaseCommand):
    help = "CPU time of one push to a table's phones and board (socket_panel.push_frame), in process."

    def add_arguments(self, parser):
        parser.add_argument("--phones", type=int, default=7)
        parser.add_argument("--pushes", type=int, default=200)
        parser.add_argument("--warmup", type=int, default=20)

    def handle(self, *args, phones: int, pushes: int, warmup: int, **options):
        report: dict = {}
        try:
            with transaction.atomic():
                report = self._run(phones, pushes, warmup)
                raise _Rollback
        except _Rollback:
            pass
        self.stdout.write(
            f"one push to {phones} phones and a board: CPU best {report['best_ms']} ms, p25 {report['p25_ms']} ms, "
            f"median {report['median_ms']} ms ({report['per_screen_ms']} ms a screen at the median); "
            f"{report['frame_bytes']} bytes of frames"
        )
        self.stdout.write(json.dumps(report, sort_keys=True))

    def _run(self, phones: int, pushes: int, warmup: int) -> dict:
        code, browsers = seat_table(phones)
        screens = [(_socket_scope(b), "phone") for b in browsers] + [(_socket_scope(None), "board")]
        table = Table.objects.filter(code=code)
        times: list[float] = []
        size = 0
        for n in range(warmup + pushes):
            table.update(revision=F("revision") + 1)
            revision = table.values_list("revision", flat=True).get()
            started = time.process_time()
            frames = [socket_panel.push_frame(scope, view, code, revision) for scope, view in screens]
            spent = time.process_time() - started
            if any("html" not in frame for frame in frames):
                raise RuntimeError(f"a screen got no partial: {[sorted(f) for f in frames]}")
            if n >= warmup:
                times.append(spent)
                size = sum(len(frame["html"]) for frame in frames)
        times.sort()
        median = times[len(times) // 2] * 1000
        return {
            "phones": phones, "pushes": pushes,
            "best_ms": round(times[0] * 1000, 2), "p25_ms": round(times[len(times) // 4] * 1000, 2),
            "median_ms": round(median, 2), "per_screen_ms": round(median / len(screens), 2), "frame_bytes": size,
        }
