"""Push delivery watched on real sockets, and clients that misbehave: for ``manage.py chaos`` and ``floodbench``.

- ``PushWatch``: for every table a board socket (``/ws/t/CODE/?view=board``) and a phone socket (a seated
  player's session, as a second tab) that never move. They are ``tools.loadtest``'s screens, which keep
  their socket open as ``table.js`` does (reconnect with jittered backoff, a 40 s silence watchdog, a newer
  number in any frame, heartbeats included, refetches the panel); here they also poll ``/t/CODE/rev/``
  every 3 s while their socket is down, as the page does. Every 0.1 s it notes the revision each
  watcher knows, and every 0.25 s each table's revision in the database (``lobby_table.revision``).
- ``catch_up``: from those two series, how long after a fault was healed until every watcher of a table
  knew its table's revision, and how far behind one fell after that (a push path that died stays behind).
- ``misbehave``: sockets that send a frame that is not JSON and never answer the server's close, and
  sockets that send ``{"move": {}}`` as fast as they can (reconnecting when closed), with what the
  server answered (close codes) counted.

Times here are wall-clock (``time.time()``), as the chaos run's faults are.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from tools import loadtest
from tools.chaos import HOST, percentile

Series = list[tuple[float, int]]  # (when, revision), each a change

HEARTBEAT_DEFAULT = 15.0
HEARTBEAT_GRACE = 5.0  # a reconnect's backoff, a poll's period, a panel's fetch
SAMPLE_EVERY = 0.1
TRUTH_EVERY = 0.25
POLL_EVERY = 3.0  # table.js's POLL_MS
FLOOD_FRAME = '{"move": {}}'
BAD_FRAME = "this is not json"


# --------------------------------------------------------------------------- the measurement (pure)


def heartbeat_seconds(root: Path) -> float:
    """``HEARTBEAT_SECONDS`` as the app's code says it (``gameplay/live/consumers.py``), or 15."""
    try:
        text = (root / "gameplay" / "consumers.py").read_text()
    except OSError:
        return HEARTBEAT_DEFAULT
    found = re.search(r"^HEARTBEAT_SECONDS\s*(?::\s*float\s*)?=\s*([0-9.]+)", text, re.MULTILINE)
    return float(found.group(1)) if found else HEARTBEAT_DEFAULT


def value_at(series: Series, when: float) -> int:
    """The series' revision at ``when`` (a step function; -1 before its first point)."""
    at = bisect.bisect_right(series, (when, float("inf"))) - 1
    return series[at][1] if at >= 0 else -1


def behind_for(truth: Series, known: int, when: float) -> float:
    """How long, at ``when``, a watcher that knows revision ``known`` has been behind its table (0: it is not)."""
    for moment, revision in truth:
        if moment > when:
            return 0.0
        if revision > known:
            return when - moment
    return 0.0


def catch_up(truth: Series, watchers: list[Series], start: float, stop: float,
             step: float = SAMPLE_EVERY) -> dict[str, Any]:
    """After a fault healed at ``start``: seconds until every watcher knew its table's revision (None: not by
    ``stop``), and the longest any of them was behind from then until ``stop`` (the next fault or the end)."""
    caught: float | None = None
    worst_after = 0.0
    steps = max(0, int((stop - start) / step))
    for i in range(steps + 1):
        when = start + i * step
        behind = max((behind_for(truth, value_at(w, when), when) for w in watchers), default=0.0)
        if caught is None:
            if behind == 0.0:
                caught = when - start
        else:
            worst_after = max(worst_after, behind)
    return {"caught_up_after": None if caught is None else round(caught, 2),
            "worst_behind_after": round(worst_after, 2)}


def fault_push_figures(watch: dict, start: float, stop: float, limit: float) -> dict[str, Any]:
    """Per fault: every table's catch-up (``catch_up``), the worst and p50 over tables, and pass/fail against
    ``limit`` (one heartbeat and its grace): every table caught up within it and none fell behind longer after."""
    tables: dict[str, dict[str, Any]] = {}
    for code, truth in watch["truth"].items():
        watchers = list(watch["watchers"].get(code, {}).values())
        if truth and watchers:
            tables[code] = catch_up(truth, watchers, start, stop)
    times = [t["caught_up_after"] for t in tables.values() if t["caught_up_after"] is not None]
    never = sorted(code for code, t in tables.items() if t["caught_up_after"] is None)
    behind_after = max((t["worst_behind_after"] for t in tables.values()), default=0.0)
    worst = max(times, default=None) if not never else None
    return {
        "tables": len(tables),
        "caught_up_worst_s": worst,
        "caught_up_p50_s": round(percentile(times, 0.5), 2) if times else None,
        "never_caught_up": never,
        "worst_behind_after_s": behind_after,
        "limit_s": limit,
        "passed": bool(tables) and not never and worst is not None and worst <= limit and behind_after <= limit,
    }


# --------------------------------------------------------------------------- the watchers


class PushWatch(threading.Thread):
    """Board and phone sockets that never move, one pair per table, spread over the app's processes.

    ``tables``: (code, cookies of a seated player's browser). The board of table *t* talks to process
    *t % n*, its phone to the next one. ``db_url``: where the tables' revisions are read.
    """

    def __init__(self, ports: list[int], tables: list[tuple[str, dict[str, str]]], db_url: str,
                 say: Callable[[str], None]) -> None:
        super().__init__(name="chaos-pushwatch", daemon=True)
        self.ports, self.table_list, self.db_url, self.say = ports, tables, db_url, say
        self.done = threading.Event()
        self.ready = threading.Event()
        self.truth: dict[str, Series] = {code: [] for code, _ in tables}
        self.watchers: dict[str, dict[str, Series]] = {code: {} for code, _ in tables}
        self.errors: Counter[str] = Counter()
        self.truth_errors: Counter[str] = Counter()
        self.crash = ""

    def result(self) -> dict[str, Any]:
        return {"truth": self.truth, "watchers": self.watchers, "errors": dict(self.errors),
                "truth_errors": dict(self.truth_errors), "crash": self.crash}

    def finish(self, timeout: float = 30.0) -> None:
        self.done.set()
        self.join(timeout)

    def run(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception as error:  # kept for the report; the run goes on without the watch
            self.crash = f"{type(error).__name__}: {error}"
        finally:
            self.ready.set()

    async def _main(self) -> None:
        plans = [loadtest.TablePlan(code, [loadtest.Guest(f"watch-{code}", cookies)]) for code, cookies in
                 self.table_list]
        runs = [loadtest.Run(loadtest.Options(url=f"http://{HOST}:{port}", tables=len(plans)), plans,
                             lambda line: None) for port in self.ports]
        screens: list[tuple[str, str, loadtest.Screen]] = []
        for t, (code, _) in enumerate(self.table_list):
            board = runs[t % len(runs)]
            phone = runs[(t + 1) % len(runs)]
            screens.append((code, f"board@{chr(65 + t % len(runs))}", board.tables[t].board))
            screens.append((code, f"phone@{chr(65 + (t + 1) % len(runs))}", phone.tables[t].phones[0]))
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0)
        async with aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                         timeout=aiohttp.ClientTimeout(total=None)) as session:
            for run in runs:
                run.session = session
            gate = asyncio.Semaphore(32)
            for code, name, screen in screens:
                self.watchers[code][name] = []
                screen.run.spawn(screen.socket_loop(gate))
                screen.run.spawn(self._poll_while_down(screen))
            truth = asyncio.get_running_loop().create_task(self._read_truth())
            self.ready.set()
            try:
                while not self.done.is_set():
                    now = time.time()
                    for code, name, screen in screens:
                        series = self.watchers[code][name]
                        if screen.known >= 0 and (not series or series[-1][1] != screen.known):
                            series.append((now, screen.known))
                    await asyncio.sleep(SAMPLE_EVERY)
            finally:
                truth.cancel()
                await asyncio.gather(truth, return_exceptions=True)
                for run in runs:
                    run.closing = True
                    await run._close()
                    self.errors.update(run.figures.errors)

    async def _poll_while_down(self, screen: loadtest.Screen) -> None:
        """table.js: while the socket is down, ask ``/t/CODE/rev/`` every few seconds; a newer number refetches."""
        while not screen.run.closing:
            await asyncio.sleep(POLL_EVERY)
            if screen.ws is not None or screen.run.closing:
                continue
            answer = await screen.request("rev poll", "GET", f"/t/{screen.table.code}/rev/", htmx=False)
            if answer is not None and answer[0] == 200:
                try:
                    screen.heard(int(json.loads(answer[1])["v"]))
                except (ValueError, KeyError, TypeError):
                    screen.run.figures.error("rev poll: not a revision")

    async def _read_truth(self) -> None:
        """Every table's revision in the database, every TRUTH_EVERY seconds (a failed read is counted, retried)."""
        codes = [code for code, _ in self.table_list]
        while True:
            try:
                rows = await asyncio.to_thread(_revisions, self.db_url, codes)
            except Exception as error:  # the database restarting: the next read tries again
                self.truth_errors[type(error).__name__] += 1
                rows = {}
            now = time.time()
            for code, revision in rows.items():
                series = self.truth[code]
                if not series or series[-1][1] != revision:
                    series.append((now, revision))
            await asyncio.sleep(TRUTH_EVERY)


def _revisions(db_url: str, codes: list[str]) -> dict[str, int]:
    import psycopg

    with psycopg.connect(db_url, connect_timeout=2, autocommit=True) as conn:
        rows = conn.execute("SELECT code, revision FROM lobby_table WHERE code = ANY(%s)", (codes,)).fetchall()
    return {str(code): int(revision) for code, revision in rows}


# --------------------------------------------------------------------------- clients that misbehave


async def _closed(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in ws:  # reads (and so answers) the server's close; its code is then in ws.close_code
        pass


async def flood_socket(session: aiohttp.ClientSession, url: str, origin: str, until: float,
                       counts: Counter[str]) -> None:
    """Send ``{"move": {}}`` as fast as the socket takes it until ``until``; a socket the server closes is
    opened again (the close code counted)."""
    while time.time() < until:
        try:
            ws = await asyncio.wait_for(session.ws_connect(url, origin=origin, heartbeat=None), 5.0)
        except (TimeoutError, aiohttp.ClientError, OSError) as error:
            counts[f"flood connect {type(error).__name__}"] += 1
            await asyncio.sleep(0.2)
            continue
        reader = asyncio.get_running_loop().create_task(_closed(ws))
        try:
            while time.time() < until and not ws.closed:
                for _ in range(50):
                    await ws.send_str(FLOOD_FRAME)
                counts["flood frames sent"] += 50
                await asyncio.sleep(0)  # the reader notices a close
        except (aiohttp.ClientError, ConnectionError, RuntimeError) as error:
            counts[f"flood send {type(error).__name__}"] += 1
        if not ws.closed:
            try:
                await asyncio.wait_for(ws.close(), 5.0)
            except TimeoutError:  # the server never finished the close
                counts["flood close unanswered in 5 s"] += 1
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        counts[f"flood socket closed {ws.close_code}"] += 1


async def bad_socket(session: aiohttp.ClientSession, url: str, origin: str, until: float,
                     counts: Counter[str]) -> None:
    """One socket sends a frame that is not JSON and then never reads: the server's close is never answered,
    pings never ponged, until ``until``, when it is dropped without a close of its own."""
    try:
        ws = await asyncio.wait_for(session.ws_connect(url, origin=origin, autoping=False, autoclose=False,
                                                       heartbeat=None), 5.0)
    except (TimeoutError, aiohttp.ClientError, OSError) as error:
        counts[f"bad connect {type(error).__name__}"] += 1
        return
    try:
        await ws.send_str(BAD_FRAME)
        counts["bad frames sent"] += 1
        await asyncio.sleep(max(0.0, until - time.time()))
    except (aiohttp.ClientError, ConnectionError) as error:
        counts[f"bad send {type(error).__name__}"] += 1
    finally:
        connection = ws._response.connection  # dropped as a phone that vanished would: no close frame
        if connection is not None and connection.transport is not None:
            connection.transport.abort()


async def misbehave(ports: list[int], code: str, *, flood_sockets: int, flood_seconds: float,
                    bad_sockets: int, bad_seconds: float) -> dict[str, int]:
    """On each process: ``flood_sockets`` flooding phone sockets for ``flood_seconds`` and, one a second,
    ``bad_sockets`` board sockets that send a bad frame and hang on for ``bad_seconds`` (both on ``code``)."""
    counts: Counter[str] = Counter()
    start = time.time()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     cookie_jar=aiohttp.DummyCookieJar()) as session:
        jobs = []
        for port in ports:
            base = f"http://{HOST}:{port}"
            ws = f"ws://{HOST}:{port}/ws/t/{code}/"
            jobs += [flood_socket(session, ws + "?view=phone", base, start + flood_seconds, counts)
                     for _ in range(flood_sockets)]

            async def bad_ones(ws: str = ws, base: str = base) -> None:
                tasks = []
                for _ in range(bad_sockets):
                    tasks.append(asyncio.get_running_loop().create_task(
                        bad_socket(session, ws + "?view=board", base, start + bad_seconds, counts)))
                    await asyncio.sleep(min(1.0, bad_seconds / max(1, bad_sockets)))
                await asyncio.gather(*tasks, return_exceptions=True)
            jobs.append(bad_ones())
        results = await asyncio.gather(*jobs, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            counts[f"client error {type(result).__name__}"] += 1
    return dict(counts)


class Misbehaving:
    """``misbehave`` in a process of its own: it must not share the interpreter (and its lock) with the watchers or
    the measured screens, whose figures a busy client would spoil. ``wait`` returns its counts."""

    def __init__(self, ports: list[int], code: str, **kwargs: Any) -> None:
        self.args = {"ports": ports, "code": code, **kwargs}
        root = Path(__file__).resolve().parents[1]
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys, tools.pushwatch as p; p._misbehave_main(sys.argv[1])",
             json.dumps(self.args)], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float) -> dict[str, int]:
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate(timeout=10)
            return {"client still busy, killed": 1}
        try:
            return dict(json.loads(out.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return {f"client failed (rc {self.process.returncode}): {err.strip()[-200:]}": 1}


def _misbehave_main(args: str) -> None:
    options = json.loads(args)
    ports, code = options.pop("ports"), options.pop("code")
    print(json.dumps(asyncio.run(misbehave(ports, code, **options))))
