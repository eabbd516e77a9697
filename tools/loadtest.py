"""The pieces of ``manage.py loadtest``: phone-like guests, sockets and panel refetches against a running server.

It starts nothing: it talks to a server that is already up (``--url``) the way real phones and a
board do, and measures what people would feel.

- Setup (blocking, in a thread pool, with ``tools.chaos``'s HTTP helpers): per table a host
  guest creates an Inside Job table (or ``engine``) with its defaults, the other guests join by
  code, the host starts the game. Each guest keeps its own session (cookie jar).
- Play (one asyncio loop, aiohttp): every phone and every board opens its own table socket
  (``/ws/t/<code>/?view=phone|board``, ``Origin`` = the server, as a browser sends it). A frame
  that carries the partial (``"html"``) is swapped in as ``table.js`` does; a frame with a newer
  number only makes the screen refetch its htmx partial (``HX-Request: true``): one fetch in
  flight per screen; a push during a fetch means one more fetch afterwards; an older panel never
  replaces a newer one. ``--pull`` opens the sockets without ``?view=`` (numbers only, every
  screen refetches: the protocol before partials were pushed), to compare the two. Per table a
  driver, every ~``think`` seconds (jittered), picks a phone whose panel holds a live move form, fills it as
  ``chaos.fill_move_form`` does and POSTs it as htmx would (``X-CSRFToken``); between games the
  host deals the next one.
- Figures: for each accepted move, "tap → every other screen" is the time from sending the POST
  until every other screen of the table (the other phones and the board) holds a panel whose
  ``data-revision`` is at least the move's (the revision of the mover's answer). Also the move
  POST's own latency, panel GET latency, refusals (400/409: a random pick may be illegal; not
  errors), errors by kind (5xx, other statuses, timeouts, connection failures, socket drops,
  screens that never caught up), and the server's CPU and memory from ``/proc``.

Latency figures, moves/s and CPU count only the measured window (after ``warmup``); errors count
over the whole run, from the first socket to the last.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import re
import resource
import secrets
import sys
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import aiohttp

from tools.chaos import (
    Browser,
    Form,
    NoAnswer,
    SetupError,
    create_table,
    fill_move_form,
    parse_forms,
    percentile,
    seat_count,
    sit_down,
    start_game,
)

_TAG_OPEN = re.compile(r"<([a-z][a-z0-9]*)\b")


@lru_cache(maxsize=64)
def _tags_named(name: str) -> re.Pattern[str]:
    return re.compile(rf"<(/?){name}\b[^>]*>")


def element_span(html: str, element_id: str) -> tuple[int, int] | None:
    """Where the element with ``element_id`` starts and ends in ``html`` (its outer HTML), or None: the first tag
    that holds `` id="…"`` (as ``<([a-z][a-z0-9]*)\b[^>]*\bid="…"`` finds it), to its matching end tag.

    Found by the attribute's text, not by that pattern, which tried every tag of the page in turn: the tool swaps
    six or seven screens' frames in one process, and the pattern was two thirds of its 0.5 ms a frame, time that
    the last screen of a table waited for the others' (real phones each swap their own)."""
    marker = f'id="{element_id}"'
    at = html.find(marker)
    while at != -1:
        before = html[at - 1] if at else ""
        if not (before.isalnum() or before == "_"):  # \bid: the attribute's name begins there
            opened = _TAG_OPEN.search(html, html.rfind(">", 0, at) + 1, at + 1)  # this tag's start, if inside one
            if opened is not None and opened.end() <= at:
                start, depth = opened.start(), 0
                for tag in _tags_named(opened.group(1)).finditer(html, start):
                    depth += -1 if tag.group(1) else 1
                    if depth == 0:
                        return start, tag.end()
                return None
        at = html.find(marker, at + 1)
    return None


# The number a panel (phone ``#private-view``, board ``#public-view``) carries: the table revision it shows. Read off
# the panel itself: a whole page (the host's, after "Play again", a plain form POST) has one on its <body> too, of
# when it loaded, which table.js never moves (read first, the screen looked stuck there: every move an error).
REVISION = re.compile(rb'id="(?:private|public)-view"[^>]*?\sdata-revision="(\d+)"')
ROOTS = ("private-view", "public-view", "moderator-view")


def apply_frame(page: str, frame: dict) -> str | None:
    """``page`` with a push frame's fragments swapped in by element id, as ``table.js`` does, or None where
    table.js would refetch (a fragment the frame leaves out is not held with its tag, or one is missing)."""
    parts, tags = frame.get("f") or {}, frame.get("t") or {}
    if not all(isinstance(html, str) for html in parts.values()):
        return None
    for element_id, tag in tags.items():
        if element_id in parts:
            continue
        span = element_span(page, element_id)
        if span is None or f'data-tag="{tag}"' not in page[span[0]:span[1]].split(">", 1)[0]:
            return None
    # A note answered to an earlier tap goes first (a refused move's answer brings its own in its panel).
    page = re.sub(r'(<div id="private-view"[^>]*>)\s*<p class="notice" role="alert" data-test="note">.*?</p>', r"\1",
                  page, count=1, flags=re.S)
    for element_id, html in parts.items():
        span = element_span(page, element_id)
        if span is None:
            return None
        page = page[:span[0]] + html + page[span[1]:]
    for root in ROOTS:
        page = re.sub(rf'(id="{root}"[^>]*?data-revision=")\d+', rf"\g<1>{int(frame['v'])}", page)
    return page
# A move form that can be played (a finished game's forms are ``move-form frozen`` and hidden).
LIVE_MOVE_FORM = re.compile(rb'class="move-form (?!frozen)')
START_ACTIONS = ("/host/start/", "/host/again/")

REQUEST_TIMEOUT = 10.0  # a request with no answer by then is an error ("timeout")
CONNECT_TIMEOUT = 10.0  # a socket handshake that takes longer is given up (table.js: 6 s)
SILENCE = 15.0 * 2.5 + 2.5  # table.js's watchdog: a socket silent this long (no push, no heartbeat) is dead
CAUGHT_UP_WITHIN = 10.0  # an accepted move whose screens have not all caught up by then counts as an error
DRAIN = 5.0  # after the measured window: how long to wait for the last moves' screens
MOVE_ANSWER = 5.0  # table.js: a move sent over the socket with no answer by then is posted instead
CHASE = 3  # table.js: a panel older than the newest number heard is refetched at most this often per number
DEFAULT_PHONES = (5, 6, 7)  # players per table when --phones is not given, spread over the tables


# --------------------------------------------------------------------------- options and figures


@dataclass
class Options:
    url: str
    tables: int = 1
    duration: float = 30.0
    think: float = 2.0
    phones: int | None = None
    engine: str = "inside_job"
    server_pids: list[int] = field(default_factory=list)
    warmup: float = 0.0
    seed: int | None = None
    setup_threads: int = 16
    connect_parallel: int = 64  # socket handshakes in flight at once while connecting
    pull: bool = False  # sockets without ?view=: numbers only, every screen refetches its partial
    post_moves: bool = False  # moves as htmx POSTs even while the socket is open (table.js sends them over it)

    @property
    def split(self) -> urllib.parse.SplitResult:
        return urllib.parse.urlsplit(self.url)

    @property
    def host(self) -> str:
        return self.split.hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        return self.split.port or 80

    @property
    def base(self) -> str:
        return f"http://{self.split.netloc}"


def check_options(options: Options) -> None:
    """ValueError naming the first bad option."""
    if options.split.scheme != "http" or not options.split.hostname:
        raise ValueError("--url must be http://host:port (the tool speaks plain HTTP and ws://)")
    if options.tables < 1:
        raise ValueError("--tables must be at least 1")
    if options.duration <= 0 or options.warmup < 0 or options.think <= 0:
        raise ValueError("--duration and --think must be positive, --warmup not negative")
    low, high = engine_players(options.engine)
    if options.phones is not None and not low <= options.phones <= high:
        raise ValueError(f"--phones must be {low}-{high} for {options.engine}")


def engine_players(engine: str) -> tuple[int, int]:
    from engines.registry import ENGINES

    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (one of {', '.join(sorted(ENGINES))})")
    found = ENGINES[engine]
    return int(found.min_players), int(found.max_players)


def phones_per_table(options: Options) -> list[int]:
    """Players (all phones, no bots) at each table: --phones, or 5, 6, 7 in turn within the engine's range."""
    if options.phones is not None:
        return [options.phones] * options.tables
    low, high = engine_players(options.engine)
    return [min(high, max(low, DEFAULT_PHONES[t % len(DEFAULT_PHONES)])) for t in range(options.tables)]


class Figures:
    """Everything measured; latencies and counts of moves only inside [measure_from, measure_to)."""

    def __init__(self) -> None:
        self.measure_from = math.inf
        self.measure_to = math.inf
        self.errors: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.host_starts: Counter[str] = Counter()
        self.tap: list[float] = []
        self.post: list[float] = []
        self.get: list[float] = []
        self.not_modified = 0  # panel GETs answered 304: the screen held that panel (its ETag) already
        self.pushed = 0  # partials that came in a socket frame (no request)
        self.attempted = 0
        self.accepted = 0
        self.sockets_open = 0
        self.sockets_max = 0
        self.sockets_at_end = 0

    def measured(self, when: float) -> bool:
        return self.measure_from <= when < self.measure_to

    def error(self, kind: str) -> None:
        self.errors[kind] += 1


def _ms(values: list[float], fraction: float) -> float:
    return round(percentile(values, fraction) * 1000, 1)


# --------------------------------------------------------------------------- the server's processes


def listening_inodes(port: int, proc: Path = Path("/proc")) -> set[str]:
    """Inodes of the sockets listening on ``port`` (any address), from /proc/net/tcp and tcp6."""
    inodes: set[str] = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            # sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            if len(parts) < 10 or parts[3] != "0A":  # 0A: LISTEN
                continue
            if int(parts[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(parts[9])
    return inodes


def server_pids(port: int, proc: Path = Path("/proc")) -> list[int]:
    """Every process holding a socket that listens on ``port``: one daphne, or several sharing one socket."""
    wanted = {f"socket:[{inode}]" for inode in listening_inodes(port, proc)}
    found: list[int] = []
    if not wanted:
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:  # gone, or not ours to read
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return sorted(found)


def cpu_seconds(pids: Iterable[int], proc: Path = Path("/proc")) -> dict[int, float]:
    """utime + stime in seconds of each of ``pids`` that is still there."""
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for pid in pids:
        try:
            stat = (proc / str(pid) / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state is fields[0]
        found[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime: fields 14 and 15 of stat
    return found


def rss_bytes(pids: Iterable[int], proc: Path = Path("/proc")) -> int:
    total = 0
    for pid in pids:
        try:
            status = (proc / str(pid) / "status").read_text()
        except OSError:
            continue
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        if found:
            total += int(found.group(1)) * 1024
    return total


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raise_fd_limit() -> int:
    """This process's open-file limit raised to its hard limit (every socket is a file); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


# --------------------------------------------------------------------------- setup over HTTP (blocking)


@dataclass
class Guest:
    nickname: str
    cookies: dict[str, str]


@dataclass
class TablePlan:
    code: str
    guests: list[Guest]  # the host first


T = TypeVar("T")


def _pooled(pool: ThreadPoolExecutor, jobs: list[Callable[[], T]], say: Callable[[str], None], what: str) -> list[T]:
    """Run ``jobs`` in ``pool``; results in job order; progress every 2 s; the first failure is raised."""
    futures: dict[Future[T], int] = {pool.submit(job): i for i, job in enumerate(jobs)}
    results: list[T | None] = [None] * len(jobs)
    started = last = time.monotonic()
    done = 0
    try:
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            done += 1
            now = time.monotonic()
            if now - last >= 2.0 or done == len(jobs):
                last = now
                say(f"setup: {what} {done}/{len(jobs)} ({now - started:.1f} s)")
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return [r for r in results if r is not None]


def setup_tables(options: Options, say: Callable[[str], None]) -> list[TablePlan]:
    """Guests sit down, hosts create tables, the others join by code, hosts start: all over HTTP, in parallel."""
    counts = phones_per_table(options)
    tag = secrets.token_hex(2)

    def browser() -> Browser:
        return Browser([options.port], 0, timeout=60.0, host=options.host)

    def host_job(t: int) -> Callable[[], tuple[Browser, str]]:
        def job() -> tuple[Browser, str]:
            host = browser()
            sit_down(host, f"lt{tag}-{t}-0")
            return host, create_table(host, options.engine)
        return job

    def join_job(t: int, i: int, code: str) -> Callable[[], tuple[int, int, Browser]]:
        def job() -> tuple[int, int, Browser]:
            guest = browser()
            sit_down(guest, f"lt{tag}-{t}-{i}", join=code)
            return t, i, guest
        return job

    def start_job(t: int, host: Browser, code: str) -> Callable[[], bool]:
        def job() -> bool:
            seated = seat_count(host, code)
            if seated != counts[t]:
                raise SetupError(f"table {code} has {seated} seats, expected {counts[t]}")
            start_game(host, code)
            return True
        return job

    try:
        with ThreadPoolExecutor(options.setup_threads, thread_name_prefix="loadtest-setup") as pool:
            hosts = _pooled(pool, [host_job(t) for t in range(options.tables)], say, "tables created")
            joins = [join_job(t, i, hosts[t][1]) for t in range(options.tables) for i in range(1, counts[t])]
            joined = _pooled(pool, joins, say, "guests joined")
            _pooled(pool, [start_job(t, host, code) for t, (host, code) in enumerate(hosts)], say, "games started")
    except NoAnswer as error:
        raise SetupError(f"no answer from {options.base} ({error})") from error
    except SetupError as error:
        hint = " (is the server running with DJANGO_RATELIMIT=0?)" if "HTTP 429" in str(error) else ""
        raise SetupError(f"{error}{hint}") from error

    browsers: list[list[Browser]] = [[host] for host, _ in hosts]
    for t, _i, guest in sorted(joined, key=lambda item: (item[0], item[1])):
        browsers[t].append(guest)
    return [
        TablePlan(code, [Guest(f"lt{tag}-{t}-{i}", {c.name: c.value or "" for c in b.jar})
                         for i, b in enumerate(browsers[t])])
        for t, (_, code) in enumerate(hosts)
    ]


# --------------------------------------------------------------------------- play (asyncio)


@dataclass
class Track:
    """An accepted move: when its POST left, its revision, and the other screens that do not show it yet."""

    sent: float
    revision: int
    waiting: set[Screen]
    latest: float  # the latest time one of the other screens reached the revision so far


class Screen:
    """One browser tab: a phone's panel (``/t/<code>/``) or the board (``/t/<code>/board/``), with its socket."""

    def __init__(self, run: Run, table: TableRun, name: str, path: str, cookies: dict[str, str],
                 is_board: bool) -> None:
        self.run, self.table, self.name, self.path = run, table, name, path
        self.cookies = dict(cookies)
        self.is_board = is_board
        self.shown = -1  # revision of the panel this screen holds (-1: none yet)
        self.etag = ""  # the entity tag of the panel this screen holds (its browser cache's)
        self.answer_etag = ""
        self.known = -1  # newest revision heard on the socket
        self.body = b""  # the panel it holds (only parsed when the driver moves for it)
        self.reached: list[tuple[int, float]] = []  # (revision, when) each time ``shown`` rose; the last few
        self.fetching = False
        self.again = False
        self.posting = False  # this phone's own tap is on its way (table.js: a request of the page in flight)
        self.waiting: dict | None = None  # a frame that came meanwhile, used after the answer if still newer
        self.chased: dict[int, int] = {}
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.moves = 0
        self.answers: dict[int, asyncio.Future[dict]] = {}  # moves sent over the socket, by number
        self.moves_sent = 0

    # ------------------------------------------------------------------ HTTP

    def _headers(self, *, htmx: bool, post: bool) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        if post:
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.run.options.base
        return headers

    def _take_cookies(self, response: aiohttp.ClientResponse) -> None:
        for answer in (*response.history, response):
            for name, morsel in answer.cookies.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value

    async def request(self, what: str, method: str, path: str, data: list[tuple[str, str]] | None = None, *,
                      htmx: bool = True, redirects: bool = False, etag: str = "") -> tuple[int, bytes] | None:
        """(status, body), or None after counting the failure (timeout, connection) as an error.

        ``etag``: the tag of the copy this screen holds, asked with ``If-None-Match`` as a
        browser's cache does; the answer's own tag is left in ``self.answer_etag``.
        """
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        headers = self._headers(htmx=htmx, post=method == "POST")
        if etag:
            headers["If-None-Match"] = etag
        try:
            async with self.run.session.request(
                method, self.run.options.base + path, data=body, allow_redirects=redirects,
                headers=headers, timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
            ) as response:
                content = await response.read()
                self._take_cookies(response)
                self.answer_etag = response.headers.get("ETag", "")
                return response.status, content
        except TimeoutError:
            self.run.figures.error(f"{what} timeout")
        except aiohttp.ClientError as error:
            self.run.figures.error(f"{what} {type(error).__name__}")
        return None

    # ------------------------------------------------------------------ what the screen holds

    def show(self, body: bytes, when: float) -> None:
        """Swap in a panel unless it is older than the one held (table.js's htmx:beforeSwap guard)."""
        found = REVISION.search(body)
        if found is None:
            self.run.figures.error(f"{'board' if self.is_board else 'panel'} without data-revision")
            return
        revision = int(found.group(1))
        if revision < self.shown:
            return
        self.body = body
        if revision > self.shown:
            self.shown = revision
            self.known = max(self.known, revision)
            self.reached.append((revision, when))
            del self.reached[:-16]
            self.table.advanced(self, revision, when)

    def reached_at(self, revision: int) -> float | None:
        """When this screen first held a panel at least as new as ``revision`` (None: not yet)."""
        return next((when for rev, when in self.reached if rev >= revision), None)

    def heard(self, revision: int) -> None:
        if revision > self.known:
            self.known = revision
            if not self.posting:  # htmx drops a refetch while the tap is on its way (hx-sync "drop")
                self.refresh()

    def refresh(self) -> None:
        """Fetch the partial; while one is in flight, one more fetch follows it."""
        if self.run.closing:
            return
        if self.fetching:
            self.again = True
            return
        self.fetching = True
        self.run.spawn(self._fetch_loop())

    async def _fetch_loop(self) -> None:
        what = "board GET" if self.is_board else "panel GET"
        try:
            while not self.run.closing:
                self.again = False
                sent = time.monotonic()
                answer = await self.request(what, "GET", self.path, etag=self.etag)
                now = time.monotonic()
                ok = answer is not None and answer[0] in (200, 304)
                if answer is not None:
                    status, body = answer
                    if self.run.figures.measured(sent):
                        self.run.figures.get.append(now - sent)
                    if status == 200:
                        self.etag = self.answer_etag
                        self.show(body, now)
                    elif status == 304 and self.body:
                        self.run.figures.not_modified += 1
                        self.show(self.body, now)
                    else:
                        self.run.figures.error(f"{what} HTTP {status_kind(status)}")
                if self.again:
                    continue
                if self.known > self.shown:  # table.js's catchUp, a few times per number
                    self.chased[self.known] = self.chased.get(self.known, 0) + 1
                    if len(self.chased) > 8:
                        self.chased = {self.known: self.chased[self.known]}
                    if self.chased[self.known] <= CHASE:
                        if not ok:
                            await asyncio.sleep(0.5)
                        continue
                break
        finally:
            self.fetching = False

    # ------------------------------------------------------------------ the socket

    async def socket_loop(self, gate: asyncio.Semaphore) -> None:
        """Keep this screen's table socket open; frames ``{"v": n}`` refetch, ``{"hb": 1}`` keep it alive."""
        url = "ws://" + self.run.options.split.netloc + f"/ws/t/{self.table.code}/"
        if not self.run.options.pull:
            url += "?view=board" if self.is_board else "?view=phone"
        attempt = 0
        while not self.run.closing:
            try:
                async with gate:
                    ws = await asyncio.wait_for(self.run.session.ws_connect(
                        url, headers=self._headers(htmx=False, post=False), origin=self.run.options.base,
                        autoping=True, heartbeat=None, timeout=aiohttp.ClientWSTimeout(ws_close=2.0),
                    ), CONNECT_TIMEOUT)
            except asyncio.CancelledError:
                raise
            except (TimeoutError, aiohttp.ClientError) as error:
                if self.run.closing:
                    return
                self.run.figures.error(f"socket connect {type(error).__name__}")
                attempt += 1
                await asyncio.sleep(min(8.0, 0.5 * 2 ** min(attempt, 10)) * random.uniform(0.75, 1.25))
                continue
            self.ws = ws
            figures = self.run.figures
            figures.sockets_open += 1
            figures.sockets_max = max(figures.sockets_max, figures.sockets_open)
            silent = False
            try:
                while True:
                    message = await ws.receive(timeout=SILENCE)
                    if message.type == aiohttp.WSMsgType.TEXT:
                        attempt = 0
                        self._frame(message.data)
                    elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING,
                                          aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                        break
            except TimeoutError:
                silent = True
            finally:
                figures.sockets_open -= 1
                self.ws = None
            if self.run.closing:
                return
            figures.error("socket silent (no frame in 40 s)" if silent else f"socket drop (close code {ws.close_code})")
            if not ws.closed:
                await ws.close()
            attempt += 1
            await asyncio.sleep(min(8.0, 0.5 * 2 ** min(attempt, 10)) * random.uniform(0.75, 1.25))

    def _frame(self, data: str) -> None:
        try:
            frame = json.loads(data)
        except ValueError:
            self.run.figures.error("socket frame not JSON")
            return
        if isinstance(frame, dict) and "answer" in frame:  # a move sent over the socket, answered
            waiting = self.answers.pop(frame["answer"], None) if isinstance(frame["answer"], int) else None
            if waiting is not None and not waiting.done():
                waiting.set_result(frame)
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("v"), int):
            return
        self._apply(frame)

    def _apply_answer(self, frame: dict) -> None:
        """A move's answer over the socket: swapped in like a push, at the revision held too (a note)."""
        assembled = apply_frame(self.body.decode("utf-8"), frame) if isinstance(frame.get("f"), dict) else None
        if assembled is not None and frame["v"] >= self.shown:
            self.known = max(self.known, frame["v"])
            self.show(assembled.encode("utf-8"), time.monotonic())
        elif assembled is None:
            self.heard(frame["v"])

    def _apply(self, frame: dict) -> None:
        """A frame as table.js takes it: its fragments swapped in, or the number heard (refetch if newer)."""
        if self.posting and isinstance(frame.get("f"), dict):
            self.waiting = frame  # table.js waits for the tap's answer, then uses it only if still newer
            return
        if self.is_board and isinstance(frame.get("f"), dict):  # the tool holds the public partial, not the drawer
            frame = {"v": frame["v"], **{key: {k: v for k, v in frame[key].items() if k == "public-view"}
                                          for key in ("f", "t") if isinstance(frame.get(key), dict)}}
        assembled = apply_frame(self.body.decode("utf-8"), frame) if isinstance(frame.get("f"), dict) else None
        if assembled is not None:  # the fragments that changed: swapped in, no request
            self.run.figures.pushed += 1
            self.known = max(self.known, frame["v"])
            self.show(assembled.encode("utf-8"), time.monotonic())
        else:
            self.heard(frame["v"])

    # ------------------------------------------------------------------ the phone's taps

    def can_move(self) -> bool:
        return LIVE_MOVE_FORM.search(self.body) is not None

    async def move(self, rng: random.Random) -> None:
        """Tap a random move on the panel held, as chaos.HumanClient does, and record what came of it."""
        page = self.body.decode("utf-8", "replace")
        moves = [f for f in parse_forms(page) if "move-form" in f.classes and "frozen" not in f.classes]
        if not moves:
            return
        # Pick groups (a team, two cards) are often guessed wrong: plain buttons are likelier.
        weights = [0.3 if any(f.kind == "checkbox" for f in m.fields) else 1.0 for m in moves]
        form: Form = rng.choices(moves, weights=weights)[0]
        self.moves += 1
        move_id = f"{self.name}-{self.moves}"
        data = [(k, move_id if k == "move_id" else v) for k, v in fill_move_form(form, page, rng)]
        if not any(k == "move_id" for k, _ in data):
            data.append(("move_id", move_id))
        sent = time.monotonic()
        over_socket = self.ws is not None and not self.ws.closed and not (self.run.options.pull
                                                                          or self.run.options.post_moves)
        if over_socket and await self._move_over_socket(data, sent):
            return
        self.posting = True
        try:
            answer = await self.request("move POST", "POST", form.action, data)
            self._answered(answer, sent, time.monotonic())
        finally:
            self.posting = False
            self._settled()

    async def _move_over_socket(self, data: list[tuple[str, str]], sent: float) -> bool:
        """The move sent over the open socket as table.js sends it; False where table.js would post it instead
        (the answer says so, none comes within ``MOVE_ANSWER``, the socket drops)."""
        fields: dict[str, Any] = {}
        for key, value in data:
            held = fields.get(key)
            fields[key] = value if held is None else [*held, value] if isinstance(held, list) else [held, value]
        self.moves_sent += 1
        number = self.moves_sent
        waiting: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        self.answers[number] = waiting
        try:
            assert self.ws is not None
            await self.ws.send_str(json.dumps({"move": fields, "id": number}))
            answer = await asyncio.wait_for(waiting, MOVE_ANSWER)
        except (TimeoutError, ConnectionError, aiohttp.ClientError, AssertionError):
            self.answers.pop(number, None)
            return False
        if answer.get("post") or not isinstance(answer.get("v"), int):
            return False
        figures = self.run.figures
        now = time.monotonic()
        measured = figures.measured(sent)
        if measured:
            figures.attempted += 1
            figures.post.append(now - sent)
        self._apply_answer(answer)
        status = answer.get("status")
        if status == 200:
            self.table.accepted(self, sent, answer["v"], measured)
        elif status in (400, 409):
            if measured:
                figures.refusals[str(status)] += 1
        else:
            figures.error(f"move over the socket: status {status}")
        return True

    def _answered(self, answer: tuple[int, bytes] | None, sent: float, now: float) -> None:
        """The tap's answer swapped in (refusals too: the fresh panel with its note), and its figures."""
        figures = self.run.figures
        measured = figures.measured(sent)
        if measured:
            figures.attempted += 1
        if answer is None:
            return
        status, body = answer
        if measured:
            figures.post.append(now - sent)
        if status in (200, 400, 409):
            self.show(body, now)
        if status == 200:
            found = REVISION.search(body)
            if found is not None:
                self.table.accepted(self, sent, int(found.group(1)), measured)
        elif status in (400, 409):
            if measured:
                figures.refusals[str(status)] += 1
        else:
            figures.error(f"move POST HTTP {status_kind(status)}")

    def _settled(self) -> None:
        """After the tap's answer (table.js ``htmx:afterSettle``): a frame that waited is used if still newer,
        and a panel older than the newest number heard is fetched again."""
        waiting, self.waiting = self.waiting, None
        if waiting is not None and waiting["v"] > self.shown:
            self._apply(waiting)
        if self.known > self.shown:
            self.refresh()

    async def deal_next(self) -> bool:
        """The host's "Play again" (or "Start") between games, as a plain form POST; True if it was there."""
        form = next((f for f in parse_forms(self.body.decode("utf-8", "replace"))
                     if f.action.endswith(START_ACTIONS)), None)
        if form is None or all(b.disabled for b in form.buttons()):
            return False
        answer = await self.request("host start", "POST", form.action, form.defaults(), htmx=False, redirects=True)
        if answer is None:
            return True
        status, body = answer
        self.run.figures.host_starts[str(status)] += 1
        if status == 200:
            self.show(body, time.monotonic())
        else:
            self.run.figures.error(f"host start HTTP {status_kind(status)}")
        return True


def status_kind(status: int) -> str:
    return "5xx" if 500 <= status < 600 else str(status)


class TableRun:
    def __init__(self, run: Run, plan: TablePlan, rng: random.Random) -> None:
        self.run, self.code, self.rng = run, plan.code, rng
        self.phones = [Screen(run, self, g.nickname, f"/t/{plan.code}/", g.cookies, False) for g in plan.guests]
        self.board = Screen(run, self, f"board-{plan.code}", f"/t/{plan.code}/board/", {}, True)
        self.screens = [*self.phones, self.board]
        self.pending: list[Track] = []

    def accepted(self, mover: Screen, sent: float, revision: int, measured: bool) -> None:
        """An accepted move: its figure once every other screen holds ``revision``."""
        if measured:
            self.run.figures.accepted += 1
        waiting: set[Screen] = set()
        latest = sent
        for screen in self.screens:
            if screen is mover:
                continue
            when = screen.reached_at(revision)
            if when is None:
                waiting.add(screen)
            else:
                latest = max(latest, when)
        track = Track(sent, revision, waiting, latest)
        if not waiting:
            self._done(track)
        else:
            self.pending.append(track)

    def advanced(self, screen: Screen, revision: int, when: float) -> None:
        if not self.pending:
            return
        for track in list(self.pending):
            if screen in track.waiting and revision >= track.revision:
                track.waiting.discard(screen)
                track.latest = max(track.latest, when)
                if not track.waiting:
                    self.pending.remove(track)
                    self._done(track)

    def _done(self, track: Track) -> None:
        if self.run.figures.measured(track.sent):
            self.run.figures.tap.append(track.latest - track.sent)

    def sweep(self, now: float, *, final: bool = False) -> None:
        """Moves whose screens did not all catch up within CAUGHT_UP_WITHIN seconds (or by the end) are errors."""
        for track in list(self.pending):
            if final or now - track.sent > CAUGHT_UP_WITHIN:
                self.pending.remove(track)
                self.run.figures.error("screens not caught up by the end of the run" if final else
                                       f"screens not caught up within {CAUGHT_UP_WITHIN:.0f} s of a move")

    async def drive(self, until: float) -> None:
        """Every ~think seconds (jittered): a phone whose panel has a move plays one; between games the host deals."""
        think = self.run.options.think
        tick = time.monotonic() + self.rng.uniform(0, think)
        while True:
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
            now = time.monotonic()
            if now >= until or self.run.closing:
                return
            self.sweep(now)
            tick = max(tick + think * self.rng.uniform(0.5, 1.5), now)
            movers = [p for p in self.phones if p.can_move()]
            if movers:
                current = [p for p in movers if p.shown >= p.known] or movers
                await self.rng.choice(current).move(self.rng)
            else:  # between games the host deals; else a window is running out, or panels are on their way
                await self.phones[0].deal_next()


class Run:
    """The asyncio half: sockets, refetches, drivers, the window's figures."""

    def __init__(self, options: Options, plans: list[TablePlan], say: Callable[[str], None]) -> None:
        self.options, self.say = options, say
        rng = random.Random(options.seed)
        self.figures = Figures()
        self.closing = False
        self.tables = [TableRun(self, plan, random.Random(rng.random())) for plan in plans]
        self.screens = [s for t in self.tables for s in t.screens]
        self._tasks: set[asyncio.Task[Any]] = set()
        self.session: aiohttp.ClientSession

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            self.figures.error(f"client bug {type(error).__name__}: {error}")

    async def execute(self, pids: list[int]) -> dict[str, Any]:
        options, figures = self.options, self.figures
        # No pool limit: every socket holds a connection for its lifetime; cookies go by hand per screen.
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, force_close=False)
        async with aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                         timeout=aiohttp.ClientTimeout(total=None)) as self.session:
            gate = asyncio.Semaphore(options.connect_parallel)
            started = time.monotonic()
            for screen in self.screens:
                self.spawn(screen.socket_loop(gate))
            await self._until_ready(started)
            connected = time.monotonic() - started
            t0 = time.monotonic()
            figures.measure_from = t0 + options.warmup
            figures.measure_to = figures.measure_from + options.duration
            drivers = [self.spawn(table.drive(figures.measure_to)) for table in self.tables]
            samples = await self._watch(pids)
            await asyncio.gather(*drivers, return_exceptions=True)
            # The last moves' screens get DRAIN seconds to catch up; then whatever still waits is an error.
            drain_until = time.monotonic() + DRAIN
            while any(t.pending for t in self.tables) and time.monotonic() < drain_until:
                await asyncio.sleep(0.1)
            for table in self.tables:
                table.sweep(time.monotonic(), final=True)
            self.closing = True
            await self._close()
        samples["connect_s"] = connected
        return samples

    async def _until_ready(self, started: float) -> None:
        """Until every screen has its socket and its first panel (bounded: 30 s + 50 ms a screen)."""
        deadline = started + 30.0 + 0.05 * len(self.screens)
        last = started
        while True:
            sockets = sum(1 for s in self.screens if s.ws is not None)
            panels = sum(1 for s in self.screens if s.shown >= 0)
            now = time.monotonic()
            if sockets == panels == len(self.screens):
                self.say(f"connect: {sockets} sockets open, {panels} panels shown ({now - started:.1f} s)")
                return
            if now > deadline:
                self.say(f"connect: gave up waiting at {sockets}/{len(self.screens)} sockets, "
                         f"{panels} panels ({now - started:.1f} s); measuring anyway")
                return
            if now - last >= 2.0:
                last = now
                self.say(f"connect: {sockets}/{len(self.screens)} sockets, {panels} panels ({now - started:.1f} s)")
            await asyncio.sleep(0.05)

    async def _watch(self, pids: list[int]) -> dict[str, Any]:
        """CPU of the server and of this client over the measured window; RSS sampled through it."""
        figures = self.figures
        await asyncio.sleep(max(0.0, figures.measure_from - time.monotonic()))
        cpu0, own0, wall0 = cpu_seconds(pids), own_cpu_seconds(), time.monotonic()
        cpu_last = dict(cpu0)  # a process that exits mid-window counts up to its last sample
        rss_peak = rss_bytes(pids)
        last_say = wall0
        while time.monotonic() < figures.measure_to:
            await asyncio.sleep(min(1.0, max(0.0, figures.measure_to - time.monotonic())))
            cpu_last.update(cpu_seconds(cpu0))
            rss_peak = max(rss_peak, rss_bytes(pids))
            now = time.monotonic()
            if now - last_say >= 10.0 and now < figures.measure_to:
                last_say = now
                self.say(f"run: {now - wall0:.0f}/{self.options.duration:.0f} s, {figures.accepted} moves accepted, "
                         f"{sum(figures.errors.values())} errors, {figures.sockets_open} sockets open")
        wall = time.monotonic() - wall0
        at_end = cpu_seconds(cpu0)
        cpu_last.update(at_end)
        cpu, own = sum(cpu_last[p] - cpu0[p] for p in cpu0), own_cpu_seconds() - own0
        gone = sorted(set(pids) - set(at_end))
        if gone:
            figures.error("server process gone during the measured window")
        figures.sockets_at_end = figures.sockets_open
        rss_end = rss_bytes(pids)
        return {
            "wall": wall,
            "server_pids_gone": gone,
            "server_cpu_pct": round(100.0 * cpu / wall, 1) if cpu0 and wall > 0 else None,
            "client_cpu_pct": round(100.0 * own / wall, 1) if wall > 0 else None,
            "server_rss_mb": round(rss_end / 2**20, 1) if pids else None,
            "server_rss_peak_mb": round(max(rss_peak, rss_end) / 2**20, 1) if pids else None,
        }

    async def _close(self) -> None:
        sockets = [s.ws for s in self.screens if s.ws is not None]
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)


# --------------------------------------------------------------------------- the whole run and its report


def run(options: Options, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Set up the tables, play, and return the figures (the command prints them; the last line is their JSON)."""
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    check_options(options)
    fd_limit = raise_fd_limit()
    counts = phones_per_table(options)
    screens = sum(counts) + len(counts)
    if screens * 2 + 64 > fd_limit:
        say(f"note: {screens} screens need about {screens * 2} open files; this process may open {fd_limit}")
    pids = options.server_pids or server_pids(options.port)
    if not pids:
        say(f"note: no process found listening on port {options.port} (not on this machine, or not ours to "
            "read): no server CPU or memory figures; give --server-pid")
    say(f"setup: {options.tables} tables of {options.engine} with {sum(counts)} guests against {options.base}; "
        f"server pids {pids or 'unknown'}")
    started = time.monotonic()
    plans = setup_tables(options, say)
    setup_s = time.monotonic() - started
    runner = Run(options, plans, say)
    samples = asyncio.run(runner.execute(pids))
    figures = runner.figures
    return summary(options, figures, counts, pids, setup_s, samples)


def summary(options: Options, figures: Figures, counts: list[int], pids: list[int], setup_s: float,
            samples: dict[str, Any]) -> dict[str, Any]:
    wall = samples["wall"] or options.duration
    return {
        "url": options.base,
        "engine": options.engine,
        "tables": options.tables,
        "phones": sum(counts),
        "phones_per_table": sorted(set(counts)),
        "screens": sum(counts) + len(counts),
        "sockets_open_at_end": figures.sockets_at_end,
        "sockets_max": figures.sockets_max,
        "think_s": options.think,
        "warmup_s": options.warmup,
        "duration_s": round(wall, 2),
        "setup_s": round(setup_s, 1),
        "connect_s": round(samples["connect_s"], 1),
        "moves_attempted": figures.attempted,
        "moves_accepted": figures.accepted,
        "moves_per_s": round(figures.accepted / wall, 2) if wall else 0.0,
        "tap_every_screen_n": len(figures.tap),
        "tap_every_screen_p50_ms": _ms(figures.tap, 0.50),
        "tap_every_screen_p95_ms": _ms(figures.tap, 0.95),
        "tap_every_screen_p99_ms": _ms(figures.tap, 0.99),
        "tap_every_screen_max_ms": _ms(figures.tap, 1.0),
        "post_n": len(figures.post),
        "post_p50_ms": _ms(figures.post, 0.50),
        "post_p99_ms": _ms(figures.post, 0.99),
        "panel_get_n": len(figures.get),
        "panel_get_304": figures.not_modified,
        "panel_pushed_n": figures.pushed,
        "pull": options.pull,
        "panel_get_p50_ms": _ms(figures.get, 0.50),
        "panel_get_p99_ms": _ms(figures.get, 0.99),
        "errors": dict(sorted(figures.errors.items())),
        "errors_total": sum(figures.errors.values()),
        "refusals": dict(sorted(figures.refusals.items())),
        "games_dealt": dict(sorted(figures.host_starts.items())),
        "server_pids": pids,
        "server_pids_gone": samples["server_pids_gone"],
        "server_cpu_pct": samples["server_cpu_pct"],
        "server_rss_mb": samples["server_rss_mb"],
        "server_rss_peak_mb": samples["server_rss_peak_mb"],
        "client_cpu_pct": samples["client_cpu_pct"],
    }


def format_summary(s: dict[str, Any]) -> str:
    """The human-readable block printed before the JSON line."""
    def counts(counter: dict[str, int]) -> str:
        return ", ".join(f"{k}: {v}" for k, v in counter.items()) or "none"

    sizes = s["phones_per_table"]
    size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}–{sizes[-1]}"
    cpu = "unknown (no server pid)" if s["server_cpu_pct"] is None else f"{s['server_cpu_pct']}% of one core"
    rss = "" if s["server_rss_mb"] is None else f", RSS {s['server_rss_mb']} MB (peak {s['server_rss_peak_mb']} MB)"
    lines = [
        "",
        f"==== loadtest: {s['tables']} {s['engine']} tables × {size} phones + a board against {s['url']}: "
        f"{s['phones']} guests, {s['screens']} screens ====",
        f"measured           {s['duration_s']} s after {s['warmup_s']} s of warm-up; one move every ~{s['think_s']} s "
        f"per table (setup {s['setup_s']} s, connecting {s['connect_s']} s)",
        f"sockets            {s['sockets_open_at_end']} open at the end (max {s['sockets_max']}, of {s['screens']})",
        f"moves              {s['moves_accepted']} accepted of {s['moves_attempted']} sent: {s['moves_per_s']}/s; "
        f"refused {counts(s['refusals'])}; games dealt by hosts {counts(s['games_dealt'])}",
        f"tap → every screen p50 {s['tap_every_screen_p50_ms']} ms  p95 {s['tap_every_screen_p95_ms']} ms  "
        f"p99 {s['tap_every_screen_p99_ms']} ms  max {s['tap_every_screen_max_ms']} ms  "
        f"(n={s['tap_every_screen_n']})",
        f"move answer        p50 {s['post_p50_ms']} ms  p99 {s['post_p99_ms']} ms  (n={s['post_n']})",
        f"panel GET          p50 {s['panel_get_p50_ms']} ms  p99 {s['panel_get_p99_ms']} ms  "
        f"(n={s['panel_get_n']}, 304: {s['panel_get_304']}); partials pushed in frames: {s['panel_pushed_n']}"
        f"{' (--pull: numbers only)' if s['pull'] else ''}",
        f"errors             {s['errors_total']}: {counts(s['errors'])}",
        f"server             pids {', '.join(map(str, s['server_pids'])) or 'unknown'}: CPU {cpu}{rss}",
        f"this client        CPU {s['client_cpu_pct']}% of one core",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- idle sockets (memory)


def idle_sockets(options: Options, count: int, hold: float = 20.0,
                 say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The server's memory per idle socket: one table, then ``count`` board sockets that only listen.

    RSS is read after a first batch of sockets (so the server's one-off costs of serving sockets
    are paid) and again after all of them have been open ``hold`` seconds (heartbeats included).
    """
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    raise_fd_limit()
    pids = options.server_pids or server_pids(options.port)
    if not pids:
        raise SetupError(f"no process found listening on port {options.port}: give --server-pid")
    plan = setup_tables(replace(options, tables=1, phones=None), say)[0]
    url = "ws://" + options.split.netloc + f"/ws/t/{plan.code}/"
    first = min(100, max(1, count // 10))

    async def main() -> dict[str, Any]:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            sockets: list[aiohttp.ClientWebSocketResponse] = []

            async def open_some(n: int) -> None:
                gate = asyncio.Semaphore(options.connect_parallel)

                async def one() -> None:
                    async with gate:
                        sockets.append(await session.ws_connect(url, origin=options.base, heartbeat=None))
                await asyncio.gather(*(one() for _ in range(n)))

            await open_some(first)
            await asyncio.sleep(3.0)
            before = rss_bytes(pids)
            await open_some(count - first)
            say(f"{len(sockets)} idle sockets open; holding them {hold:.0f} s")
            await asyncio.sleep(hold)
            after = rss_bytes(pids)
            alive = sum(1 for ws in sockets if not ws.closed)
            for ws in sockets:
                await ws.close()
        added = count - first
        return {
            "idle_sockets": count, "alive_at_end": alive, "server_pids": pids,
            "server_rss_mb_before": round(before / 2**20, 1), "server_rss_mb_after": round(after / 2**20, 1),
            "kb_per_idle_socket": round((after - before) / 1024 / added, 1) if added else 0.0,
        }

    return asyncio.run(main())
