"""The pieces of ``manage.py chaos``: local servers, phone-like HTTP clients, and the after-run checks.

Everything runs on 127.0.0.1. The command (``tools/management/commands/chaos.py``) wires these
together: it starts its own Redis and two daphne processes against its own PostgreSQL database,
lets phone-like clients play over HTTP next to the bots while it breaks things, and then reads
the event log (``analyse_log``, run in a subprocess whose default database is the chaos one) to
say whether any acknowledged move was lost.

Nothing here swallows errors silently: a client's unexpected exception is counted by type and
kept (with its traceback) in the run record that the report prints.
"""

from __future__ import annotations

import html.parser
import http.client
import http.cookiejar
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
# A phone re-taps a button whose answer never came: same form, same move id, up to this many times.
MAX_ATTEMPTS = 3
REQUEST_TIMEOUT = 10.0


# --------------------------------------------------------------------------- small helpers


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def port_open(port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def status_bucket(status: str) -> str:
    """'200', '400', '403', '409', '5xx', 'no answer', or 'other NNN'."""
    if status in ("200", "400", "403", "409", "no answer"):
        return status
    if status.startswith("5"):
        return "5xx"
    return f"other {status}"


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (0 for an empty list)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


# What a run's copy of the code leaves out: the environment, history, caches, data, test output, and what a
# running ``make serve`` keeps beside the code (``.serve/``: supervisor's socket, pid file and logs).
COPY_IGNORE = (".venv", ".git", ".hypothesis", ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pycache__",
               "test-artifacts", "staticfiles", "node_modules", "db.sqlite3", "*.sqlite3", "tests", "docs",
               ".serve", "*.sock", "*.pid", "*.log")


def copy_ignored(folder: str, names: list[str]) -> set[str]:
    """``shutil.copytree``'s ignore: COPY_IGNORE, and anything that is not a file, folder or link (a socket, a
    FIFO, a device: copytree cannot copy one, and a running server's are not code), or that vanished meanwhile."""
    import shutil
    import stat

    ignored = set(shutil.ignore_patterns(*COPY_IGNORE)(folder, names))
    for name in names:
        if name in ignored:
            continue
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            ignored.add(name)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            ignored.add(name)
    return ignored


def copy_code(root: Path, target: Path) -> Path:
    """A snapshot of the app's code for every process of a run (the working tree may change meanwhile).

    The copy keeps ``.secret_key`` so that sessions and CSRF tokens agree between processes. It leaves out
    runtime files (``copy_ignored``), so a run works beside ``make serve`` in the same tree.
    """
    import shutil

    shutil.copytree(root, target, ignore=copy_ignored, symlinks=True, ignore_dangling_symlinks=True)
    return target


def code_fingerprint(root: Path) -> dict[str, tuple[float, int]]:
    """(mtime, size) of the app's code, templates and migrations: to notice code changing mid-run.

    A process restarted during the run loads whatever is on disk then; a new migration would
    not be applied to the run's database.
    """
    found: dict[str, tuple[float, int]] = {}
    for folder in ("community", "config", "engines", "gameplay", "lobby", "templates"):
        for path in (root / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".html") and "__pycache__" not in path.parts:
                stat = path.stat()
                found[str(path.relative_to(root))] = (stat.st_mtime, stat.st_size)
    return found


def code_changes(before: dict[str, tuple[float, int]], after: dict[str, tuple[float, int]]) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


# --------------------------------------------------------------------------- HTML forms


@dataclass
class Field:
    """One named control of a form, as a browser sees it."""

    kind: str  # hidden, text, number, checkbox, radio, select, button
    name: str
    value: str
    checked: bool = False
    disabled: bool = False
    options: list[tuple[str, bool]] = field(default_factory=list)  # a select's (value, selected)


@dataclass
class Form:
    attrs: dict[str, str]
    fields: list[Field] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def action(self) -> str:
        return self.attrs.get("hx-post") or self.attrs.get("action", "")

    def buttons(self) -> list[Field]:
        return [f for f in self.fields if f.kind == "button"]

    def defaults(self) -> list[tuple[str, str]]:
        """What the browser sends for this form untouched (buttons aside)."""
        pairs: list[tuple[str, str]] = []
        for f in self.fields:
            if f.kind == "button" or not f.name:
                continue
            if f.kind in ("checkbox", "radio"):
                if f.checked:
                    pairs.append((f.name, f.value))
            elif f.kind == "select":
                chosen = [value for value, selected in f.options if selected] or [v for v, _ in f.options[:1]]
                pairs.extend((f.name, value) for value in chosen[:1])
            else:
                pairs.append((f.name, f.value))
        return pairs


class _FormParser(html.parser.HTMLParser):
    """Collects forms and their controls; attribute values come back unescaped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: Field | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = Form(a)
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text").lower()
            default = "on" if kind in ("checkbox", "radio") else ""
            if kind == "submit":
                kind = "button"
            self._form.fields.append(
                Field(kind, a["name"], a.get("value", default), "checked" in a, "disabled" in a)
            )
        elif tag == "button" and a.get("type", "submit").lower() == "submit":
            self._form.fields.append(Field("button", a.get("name", ""), a.get("value", ""), disabled="disabled" in a))
        elif tag == "select" and a.get("name"):
            self._select = Field("select", a["name"], "")
            self._form.fields.append(self._select)
        elif tag == "option" and self._select is not None:
            self._select.options.append((a.get("value", ""), "selected" in a))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form, self._select = None, None
        elif tag == "select":
            self._select = None


def parse_forms(page: str) -> list[Form]:
    parser = _FormParser()
    parser.feed(page)
    parser.close()
    return parser.forms


def fill_move_form(form: Form, page: str, rng: random.Random) -> list[tuple[str, str]]:
    """A move form as a player fills it: hidden fields as given, a random pick for each choice group.

    Inside Job's team proposal says how many to tap ("a team of N"); other pick groups get a
    random size, and a wrong guess is simply refused (400) and tried again later.
    """
    pairs: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in form.fields:
        if f.kind in ("checkbox", "radio"):
            groups[(f.kind, f.name)].append(f.value)
        elif f.kind == "select":
            if f.options:
                pairs.append((f.name, rng.choice(f.options)[0]))
        elif f.kind != "button" and f.name:
            pairs.append((f.name, f.value))
    size_hint = re.search(r"a team of (\d+)", page)
    for (kind, name), values in groups.items():
        if kind == "radio":
            pairs.append((name, rng.choice(values)))
            continue
        hinted = name == "a.team[]" and size_hint is not None
        size = int(size_hint.group(1)) if size_hint and hinted else rng.randint(1, min(len(values), 4))
        picked = set(rng.sample(range(len(values)), min(size, len(values))))
        # A browser sends checked boxes in document order.
        pairs.extend((name, value) for i, value in enumerate(values) if i in picked)
    return pairs


# --------------------------------------------------------------------------- HTTP


class NoAnswer(Exception):
    """The request got no HTTP answer: refused, reset, or timed out (``port``: where it went)."""

    def __init__(self, reason: str, port: int) -> None:
        super().__init__(reason)
        self.port = port


@dataclass
class Answer:
    status: int
    body: str
    url: str
    port: int


class Browser:
    """One phone's browser: a cookie jar (session + CSRF) and two app processes to talk to.

    It prefers one process (``prefer``); a process that gave no answer or a 5xx is avoided for
    a couple of seconds, as a load balancer would take it out of rotation.
    """

    def __init__(self, ports: list[int], prefer: int, timeout: float = REQUEST_TIMEOUT, host: str = HOST) -> None:
        self.host = host
        self.ports = ports
        self.prefer = prefer % len(ports)
        self.timeout = timeout
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(self.jar)
        )
        self._avoid_until: dict[int, float] = {}

    def csrf(self) -> str:
        return next((c.value or "" for c in self.jar if c.name == "csrftoken"), "")

    def pick_port(self, other: bool = False) -> int:
        """The preferred process unless it is being avoided (``other``: the second choice)."""
        first = self.ports[self.prefer]
        second = self.ports[(self.prefer + 1) % len(self.ports)]
        if self._avoid_until.get(first, 0.0) > time.time():
            first, second = second, first
        return second if other else first

    def send(
        self, method: str, path: str, data: list[tuple[str, str]] | None = None, *, htmx: bool = False,
        port: int | None = None,
    ) -> Answer:
        port = port or self.pick_port()
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(f"http://{self.host}:{port}{path}", data=body, method=method)
        if htmx:
            request.add_header("HX-Request", "true")
        if method == "POST":
            request.add_header("X-CSRFToken", self.csrf())
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Answer(response.status, response.read().decode("utf-8", "replace"), response.geturl(), port)
        except urllib.error.HTTPError as error:  # a 4xx/5xx is an answer, with a body
            with error:
                text = error.read().decode("utf-8", "replace")
            if error.code >= 500:
                self._avoid_until[port] = time.time() + 2.0  # as a load balancer's passive health check
            return Answer(error.code, text, error.geturl(), port)
        except (OSError, http.client.HTTPException) as error:  # refused, reset, timeout, half a reply
            self._avoid_until[port] = time.time() + 2.0
            reason = getattr(error, "reason", None)
            name = type(reason).__name__ if isinstance(reason, BaseException) else type(error).__name__
            raise NoAnswer(name, port) from error


class SetupError(Exception):
    """The tables could not be set up over HTTP (the message says which step)."""


def _form_with(forms: list[Form], *, action_end: str = "", field_name: str = "") -> Form | None:
    for form in forms:
        if action_end and not form.action.endswith(action_end):
            continue
        if field_name and not any(f.name == field_name for f in form.fields):
            continue
        return form
    return None


def _expect(answer: Answer, step: str, needle: str = "") -> None:
    if answer.status != 200 or (needle and needle not in answer.body):
        snippet = re.sub(r"\s+", " ", answer.body)[:300]
        raise SetupError(f"{step}: HTTP {answer.status} at {answer.url}: {snippet}")


def sit_down(browser: Browser, nickname: str, *, join: str = "") -> None:
    """GET a page for the CSRF cookie, then POST /guest/ (and take a seat at ``join`` if given)."""
    page = f"/t/{join}/" if join else "/"
    _expect(browser.send("GET", page), f"GET {page}")
    data = [("csrfmiddlewaretoken", browser.csrf()), ("nickname", nickname), ("next", page)]
    if join:
        data.append(("join", join))
    _expect(browser.send("POST", "/guest/", data), f"guest {nickname}")


def create_table(browser: Browser, engine: str) -> str:
    """The host fills the create form with its defaults (options, the game's timer); returns the code."""
    answer = browser.send("GET", f"/new/?engine={engine}")
    _expect(answer, f"GET /new/ {engine}")
    form = _form_with([f for f in parse_forms(answer.body) if f.attrs.get("method") == "post"], field_name="engine")
    if form is None:
        raise SetupError(f"no create form for {engine}")
    answer = browser.send("POST", "/new/", form.defaults())
    _expect(answer, f"POST /new/ {engine}")
    found = re.search(r"/t/([A-Z0-9]+)/$", answer.url)
    if not found:
        raise SetupError(f"creating a {engine} table did not land on a table page: {answer.url}")
    return found.group(1)


def host_post(browser: Browser, path: str, **fields: str) -> Answer:
    data = [("csrfmiddlewaretoken", browser.csrf()), *fields.items()]
    return browser.send("POST", path, data)


def add_bot(browser: Browser, code: str) -> None:
    _expect(host_post(browser, f"/t/{code}/seat/add-bot/", policy="heuristic"), f"add bot {code}")


def seat_count(browser: Browser, code: str) -> int:
    answer = browser.send("GET", f"/t/{code}/", htmx=True)
    _expect(answer, f"panel {code}")
    return answer.body.count('class="seat-row')


def start_game(browser: Browser, code: str) -> None:
    _expect(host_post(browser, f"/t/{code}/host/start/"), f"start {code}", 'class="game-head"')


# --------------------------------------------------------------------------- phone-like clients


@dataclass
class Attempt:
    """One POST of a move (a re-tap of the same form is another attempt with the same move id)."""

    client: str
    table: str
    move_id: str
    attempt: int
    port: int
    sent: float
    seconds: float
    status: str  # "200", "409", ..., or "no answer"
    note: str = ""
    action: str = ""  # the posted action and pick fields, for reading a run afterwards


class HumanClient(threading.Thread):
    """A phone that polls its panel, taps a random legal move, and records what the server said.

    The host's phone also starts the next game when one ends. Moves carry this client's own
    unique move ids; a move with no answer (or a 5xx) is re-tapped with the same id, on the
    other process, the way a phone whose panel was never replaced would repeat it.
    """

    def __init__(
        self, *, index: int, nickname: str, code: str, browser: Browser, is_host: bool,
        stop: threading.Event, until: float, rng: random.Random, id_prefix: str,
    ) -> None:
        super().__init__(name=f"chaos-{nickname}", daemon=True)
        self.index, self.nickname, self.code, self.browser = index, nickname, code, browser
        self.is_host, self.stop, self.until, self.rng = is_host, stop, until, rng
        self.id_prefix = id_prefix
        self.attempts: list[Attempt] = []
        self.gets: Counter[str] = Counter()
        self.get_times: list[tuple[float, float, int, str]] = []  # (sent, seconds, port, status) of panel GETs
        self.host_actions: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.crash = ""
        self._moves = 0

    # The loop ends on time or on ``stop``; it never raises (a crash is kept for the report).
    def run(self) -> None:
        try:
            self._loop()
        except Exception as error:
            self.errors[type(error).__name__] += 1
            self.crash = traceback.format_exc()

    def _running(self) -> bool:
        return not self.stop.is_set() and time.time() < self.until

    def _pause(self, seconds: float) -> None:
        self.stop.wait(max(0.0, min(seconds, self.until - time.time())))

    def _loop(self) -> None:
        while self._running():
            sent = time.time()
            try:
                panel = self.browser.send("GET", f"/t/{self.code}/", htmx=True)
            except NoAnswer:
                self.gets["no answer"] += 1
                self.get_times.append((sent, time.time() - sent, 0, "no answer"))
                self._pause(0.5)
                continue
            self.gets[status_bucket(str(panel.status))] += 1
            self.get_times.append((sent, time.time() - sent, panel.port, str(panel.status)))
            if panel.status != 200:
                self._pause(0.5)
                continue
            forms = parse_forms(panel.body)
            moves = [f for f in forms if "move-form" in f.classes]
            # The lobby's Start / Play again form (its action is /host/start/ or /host/again/).
            start = next((f for f in forms if f.action.endswith(("/host/start/", "/host/again/"))), None)
            start = start if self.is_host and not moves else None
            if moves:
                self._pause(self.rng.uniform(0.15, 0.6))  # a person reads the screen first
                if self._running():
                    self._play(panel.body, moves)
            elif start is not None and any(not b.disabled for b in start.buttons()):
                self._pause(1.0)
                self._again()
            else:
                self._pause(self.rng.uniform(0.4, 0.9))

    def _again(self) -> None:
        try:
            answer = host_post(self.browser, f"/t/{self.code}/host/again/")
            self.host_actions[status_bucket(str(answer.status))] += 1
        except NoAnswer:
            self.host_actions["no answer"] += 1

    def _play(self, page: str, moves: list[Form]) -> None:
        # Pick groups (a team, two cards) are often guessed wrong: prefer plain buttons when there are some.
        weights = [0.3 if any(f.kind == "checkbox" for f in m.fields) else 1.0 for m in moves]
        form = self.rng.choices(moves, weights=weights)[0]
        self._moves += 1
        move_id = f"{self.id_prefix}-{self.index:02d}-{self._moves:05d}"
        data = [(k, move_id if k == "move_id" else v) for k, v in fill_move_form(form, page, self.rng)]
        if not any(k == "move_id" for k, _ in data):
            data.append(("move_id", move_id))
        posted = " ".join(v if k == "action" else f"{k}={v}" for k, v in data if k == "action" or k.startswith("a."))
        port: int | None = None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            sent = time.time()
            note = ""
            try:
                answer = self.browser.send("POST", form.action, data, htmx=True, port=port)
                status, used = str(answer.status), answer.port
            except NoAnswer as error:
                status, note, used = "no answer", str(error), error.port
            elapsed = time.time() - sent
            self.attempts.append(
                Attempt(self.nickname, self.code, move_id, attempt, used, sent, elapsed, status, note, posted)
            )
            if status != "no answer" and not status.startswith("5"):
                return
            # Re-tap on the other process after a moment.
            port = self.browser.ports[(self.browser.ports.index(used) + 1) % len(self.browser.ports)]
            self._pause(0.5)
            if self.stop.is_set():
                return


def lobby_probe(ports: dict[str, int], code: str, timeout: float = 20.0) -> list[dict]:
    """Someone new joins by code on each process (GET /find/?code=...): status and seconds.

    /find/ consults the abuse limits' counters in the cache (Redis when REDIS_URL is set), so
    this shows what a fault does to the lobby, which the playing clients never touch.
    """
    results: dict[str, dict] = {}

    def one(label: str, port: int) -> None:
        sent = time.time()
        try:
            answer = Browser([port], 0, timeout=timeout).send("GET", f"/find/?code={code}", port=port)
            status = str(answer.status)
        except NoAnswer as error:
            status = f"no answer ({error})"
        results[label] = {"process": label, "status": status, "seconds": round(time.time() - sent, 2)}

    # At the same moment on every process, so that each is measured during the fault.
    threads = [threading.Thread(target=one, args=item, daemon=True) for item in ports.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout + 5)
    return [results.get(label, {"process": label, "status": "still waiting", "seconds": timeout}) for label in ports]


# --------------------------------------------------------------------------- local servers


def stop_process(process: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGCONT (a stopped process cannot act on SIGTERM), SIGTERM, then SIGKILL after ``timeout``."""
    if process.poll() is not None:
        return
    try:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
    except ProcessLookupError:
        pass


class RedisServer:
    """A private redis-server (no persistence) on a free port, so pausing it harms nobody else."""

    def __init__(self, logdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://{HOST}:{self.port}/0"
        self.log_path = logdir / "redis.log"
        self.process: subprocess.Popen | None = None
        self._logdir = logdir

    def start(self) -> None:
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly", "no",
                 "--dir", str(self._logdir)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.ping():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start; see {self.log_path}")

    def ping(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def pause(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def kill(self) -> None:
        """kill -9: without persistence, everything it held (groups, channels, cache) is gone."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)  # a paused one must not linger as a zombie-to-be
            self.process.kill()
            self.process.wait(timeout=10)

    def resume(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)


class AppProcess:
    """One process of the app (``label``: A, B, worker), its log appended to across restarts."""

    def __init__(self, label: str, python: str, root: Path, env: dict[str, str], logdir: Path) -> None:
        self.label, self.python, self.root, self.env = label, python, root, env
        self.log_path = logdir / f"{'daphne-' if label != 'worker' else ''}{label}.log"
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def name(self) -> str:
        return "game worker" if self.label == "worker" else f"daphne {self.label}"

    @property
    def pid(self) -> int:
        return self.process.pid if self.process is not None else 0

    def command(self) -> list[str]:
        return [self.python, "manage.py", "gameworker"]

    def start(self, timeout: float = 30.0) -> float:
        """Start it and wait until it is ready; returns the seconds that took."""
        started = time.time()
        self.starts += 1
        with open(self.log_path, "a") as log:
            log.write(f"----- chaos: start {self.starts} at {started:.3f}\n")
            log.flush()
            self.process = subprocess.Popen(
                self.command(), cwd=self.root, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        while time.time() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; see {self.log_path}")
            if self.ready():
                return time.time() - started
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} was not ready within {timeout:.0f} s; see {self.log_path}")

    def ready(self) -> bool:
        """The worker is ready once it says it ticks (its first line, after Django's setup)."""
        return "game worker: ticking" in self.log_path.read_text(errors="replace").rsplit("----- chaos:", 1)[-1]

    def kill(self) -> None:
        """kill -9: no shutdown, in-flight requests and worker transactions die with it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)


class DaphneServer(AppProcess):
    """One web process: ``python -m daphne`` on a fixed port of its own."""

    def __init__(self, label: str, python: str, root: Path, env: dict[str, str], logdir: Path) -> None:
        super().__init__(label, python, root, env, logdir)
        self.port = free_port()
        self.access_path = logdir / f"access-{label}.log"

    def command(self) -> list[str]:
        return [self.python, "-m", "daphne", "-b", HOST, "-p", str(self.port), "--access-log",
                str(self.access_path), "config.asgi:application"]

    def ready(self) -> bool:
        if not port_open(self.port):
            return False
        try:
            Browser([self.port], 0, timeout=5).send("GET", "/rules/")
            return True
        except NoAnswer:
            return False


@dataclass
class Postgres:
    """The machine's PostgreSQL (trust auth): the chaos database, and the cluster's restart."""

    host: str = HOST
    port: int = 5432
    user: str = "postgres"

    def url(self, name: str) -> str:
        return f"postgres://{self.user}@{self.host}:{self.port}/{name}"

    def _admin(self):
        import psycopg

        return psycopg.connect(
            host=self.host, port=self.port, user=self.user, dbname="postgres", autocommit=True, connect_timeout=5
        )

    def ready(self) -> bool:
        import psycopg

        try:
            with self._admin() as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.ready():
                return True
            time.sleep(0.2)
        return False

    def recreate(self, name: str) -> None:
        from psycopg import sql

        with self._admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop(self, name: str) -> None:
        from psycopg import sql

        with self._admin() as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def cluster(self) -> tuple[str, str]:
        """(version, name) of the cluster on our port, from pg_lsclusters (else /etc/postgresql)."""
        try:
            listing = subprocess.run(
                ["pg_lsclusters", "--no-header"], capture_output=True, text=True, timeout=10, check=True
            ).stdout
            for line in listing.splitlines():
                parts = line.split()
                if len(parts) >= 3 and parts[2] == str(self.port):
                    return parts[0], parts[1]
        except (OSError, subprocess.SubprocessError):
            pass
        versions = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
        if not versions:
            raise RuntimeError("no PostgreSQL cluster found (pg_lsclusters, /etc/postgresql)")
        return versions[0], "main"

    def restart_command(self) -> list[str]:
        version, name = self.cluster()
        return ["pg_ctlcluster", "--skip-systemctl-redirect", "--mode", "fast", version, name, "restart"]


# --------------------------------------------------------------------------- server logs


CHAIN = ("During handling of the above exception", "The above exception was the direct cause")


def scan_log(path: Path) -> dict[str, Any]:
    """Errors in a server log: how many tracebacks, their final exceptions, the line logged before each.

    A chained traceback ("The above exception was the direct cause ...") is one error, named by
    its last exception. Other lines (warnings, Django's notes of 4xx/5xx answers) are counted too.
    """
    empty: dict[str, Any] = {"tracebacks": 0, "exceptions": {}, "contexts": {}, "other_lines": {}}
    if not path.exists():
        return empty
    exceptions: Counter[str] = Counter()
    contexts: Counter[str] = Counter()
    other: Counter[str] = Counter()
    tracebacks = 0
    in_trace = after_exception = False
    previous = last_exception = ""
    for line in path.read_text(errors="replace").splitlines():
        stripped = line.strip()
        if line.startswith("Traceback (most recent call last)"):
            if previous.startswith(CHAIN) and last_exception:
                exceptions[last_exception] -= 1  # the chain goes on: only its last exception counts
                exceptions += Counter()  # drops the zero
            else:
                tracebacks += 1
                if previous:
                    contexts[_normalize(previous)] += 1
            in_trace, after_exception = True, False
            continue
        if in_trace:
            if not stripped or line[:1].isspace():
                continue  # a frame
            in_trace, after_exception = False, True
            last_exception = _normalize(line)
            exceptions[last_exception] += 1
            previous = line
            continue
        if after_exception and line[:1].isspace():
            continue  # the rest of a multi-line exception message
        after_exception = False
        if stripped and not stripped.startswith(CHAIN) and not line.startswith("----- chaos:"):
            other[_normalize(line)] += 1
        if stripped:
            previous = line
    other -= contexts  # a line that introduced a traceback is listed with it
    return {
        "tracebacks": tracebacks,
        "exceptions": dict(exceptions.most_common(12)),
        "contexts": dict(contexts.most_common(12)),
        "other_lines": dict(other.most_common(12)),
    }


def _normalize(line: str) -> str:
    line = re.sub(r"/t/[A-Z0-9]+/", "/t/CODE/", line.strip())
    line = re.sub(r"(?<![\w.])\d+(?![\w.])", "N", line)  # counts and ids, not addresses or versions
    line = re.sub(r"0x[0-9a-f]+", "0x…", line)
    return line[:200]


# --------------------------------------------------------------------------- after the run: the log


def _json_normal(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def analyse_log(run: dict) -> dict:
    """Read the chaos database (Django's default connection) against the clients' record.

    Returns only JSON-able figures: moves by kind, lost/duplicate/misattributed move ids, the
    stalls of every running game within the play window, each fault's recovery, and the replay
    check of every game.
    """
    from engines.base import seed_hash
    from engines.registry import get_engine
    from gameplay.models import Game, GameSeat, Move
    from gameplay.selectors import game_replay

    t0, t_end = float(run["t0"]), float(run["t_end"])
    # Only the columns read here, so that a column added to the model since the run's migrate
    # (other people edit the tree) does not break the reading.
    columns = ("id", "table__code", "engine", "options", "players", "seed", "seed_hash", "status", "version",
               "snapshot", "outcome", "created", "finished")
    games = {g.pk: g for g in Game.objects.select_related("table").only(*columns).order_by("pk")}
    seats: dict[tuple[int, int], dict] = {
        (row["game_id"], row["index"]): row
        for row in GameSeat.objects.values("game_id", "index", "bot", "player__nickname")
    }
    moves = list(Move.objects.order_by("game_id", "seq").values("game_id", "seq", "seat", "client_move_id", "created"))

    kinds: Counter[str] = Counter()
    by_game: dict[int, list[float]] = defaultdict(list)
    rows_by_id: dict[str, list[dict]] = defaultdict(list)
    # A move id is its seat's own (unique per game and seat), so that is where a repeat is a duplicate.
    per_game_ids: Counter[tuple[int, int | None, str]] = Counter()
    for move in moves:
        when = move["created"].timestamp()
        by_game[move["game_id"]].append(when)
        if move["seat"] is None:
            kinds["timeouts"] += 1
        elif seats.get((move["game_id"], move["seat"]), {}).get("bot"):
            kinds["bots"] += 1
        else:
            kinds["humans"] += 1
        if move["client_move_id"]:
            rows_by_id[move["client_move_id"]].append(move)
            per_game_ids[(move["game_id"], move["seat"], move["client_move_id"])] += 1

    # Acknowledged = some attempt was answered 200; every one must be in the log, once, on its seat.
    attempts = run["attempts"]
    acked: dict[str, dict] = {}
    sent: dict[str, dict] = {}
    for a in attempts:
        sent.setdefault(a["move_id"], a)
        if a["status"] == "200":
            acked.setdefault(a["move_id"], a)
    lost, misattributed = [], []
    for move_id, a in acked.items():
        rows = rows_by_id.get(move_id, [])
        if not rows:
            lost.append({"move_id": move_id, "client": a["client"], "table": a["table"], "port": a["port"],
                         "t": round(a["sent"] - t0, 2),
                         "statuses": [x["status"] for x in attempts if x["move_id"] == move_id]})
            continue
        row = rows[0]
        game = games.get(row["game_id"])
        owner = seats.get((row["game_id"], row["seat"]), {}).get("player__nickname")
        if game is None or game.table.code != a["table"] or owner != a["client"]:
            misattributed.append({"move_id": move_id, "client": a["client"], "game": row["game_id"],
                                  "seat": row["seat"], "seat_owner": owner})
    ours_twice = sorted(m for m in sent if len(rows_by_id.get(m, [])) > 1)
    twice_in_a_game = sorted(f"game {g} seat {s}: {m}" for (g, s, m), n in per_game_ids.items() if n > 1)
    applied_unacked = sorted(m for m in sent if m not in acked and rows_by_id.get(m))

    # Stalls: gaps between consecutive events (game start, moves) of a running game, within [t0, t_end].
    gaps: list[dict] = []
    for game in games.values():
        start = game.created.timestamp()
        stop = game.finished.timestamp() if game.finished else t_end
        points = [start, *by_game.get(game.pk, [])]
        if not game.finished:
            points.append(t_end)
        for a, b in zip(points, points[1:], strict=False):
            a, b = max(a, t0), min(b, stop, t_end)
            if b > a:
                gaps.append({"game": game.pk, "engine": game.engine, "table": game.table.code,
                             "from": round(a - t0, 2), "to": round(b - t0, 2), "seconds": round(b - a, 3)})
    gaps.sort(key=lambda g: -g["seconds"])
    seconds = [g["seconds"] for g in gaps]

    # Each fault: when every table that had a running game at its end had moved again.
    table_moves: dict[str, list[float]] = defaultdict(list)
    for game in games.values():
        table_moves[game.table.code].extend(by_game.get(game.pk, []))
    faults = []
    for fault in run["faults"]:
        start, end = float(fault["start"]), float(fault["end"])
        waiting = {
            g.table.code for g in games.values()
            if g.created.timestamp() <= end and (g.finished is None or g.finished.timestamp() > end)
        }
        recovered: dict[str, float | None] = {}
        for code in sorted(waiting):
            later = [t for t in table_moves[code] if t > end]
            recovered[code] = round(min(later) - end, 3) if later else None
        values = [v for v in recovered.values() if v is not None]
        overlapping = [g for g in gaps if g["from"] < end - t0 and g["to"] > start - t0]
        faults.append({
            **fault,
            "tables": len(waiting),
            "all_moved_again_after": max(values) if values and len(values) == len(recovered) else None,
            "tables_not_moved_again": sorted(c for c, v in recovered.items() if v is None),
            "longest_overlapping_stall": overlapping[0] if overlapping else None,
        })

    # Replay: setup(seed) + moves must equal the snapshot, and the recorded outcome of a finished game.
    replay_ok, replay_failed = 0, []
    for game in games.values():
        engine = get_engine(game.engine)
        try:
            state = game_replay(game)
            problems = []
            if _json_normal(engine.encode(state)) != _json_normal(game.snapshot):
                problems.append("snapshot differs")
            if game.status == Game.FINISHED and _json_normal(engine.outcome(state)) != _json_normal(game.outcome):
                problems.append(f"outcome {engine.outcome(state)} != recorded {game.outcome}")
            if seed_hash(int(game.seed)) != game.seed_hash:
                problems.append("seed hash differs")
        except Exception as error:  # a replay that raises is a failed check, reported with its reason
            problems = [f"replay raised {type(error).__name__}: {error}"]
        if problems:
            replay_failed.append({"game": game.pk, "engine": game.engine, "status": game.status,
                                  "moves": game.version, "problems": problems})
        else:
            replay_ok += 1

    statuses = Counter(g.status for g in games.values())
    return {
        "games": len(games),
        "games_by_status": dict(statuses),
        "games_by_engine": dict(Counter(g.engine for g in games.values())),
        "moves": len(moves),
        "moves_by_kind": {k: kinds.get(k, 0) for k in ("humans", "bots", "timeouts")},
        "moves_in_play_window": sum(1 for m in moves if t0 <= m["created"].timestamp() <= t_end),
        "acknowledged": len(acked),
        "lost": lost,
        "misattributed": misattributed,
        "duplicates": ours_twice + twice_in_a_game,
        "applied_not_acknowledged": len(applied_unacked),
        "stall_max": gaps[0] if gaps else None,
        "stall_p99": round(percentile(seconds, 0.99), 3),
        "stall_median": round(percentile(seconds, 0.5), 3),
        "stall_top": gaps[:5],
        "gaps": len(gaps),
        "faults": faults,
        "replay_ok": replay_ok,
        "replay_failed": replay_failed,
    }


# --------------------------------------------------------------------------- the report


def _counts(counter: dict[str, int], order: tuple[str, ...]) -> str:
    keys = [k for k in order if k in counter] + sorted(k for k in counter if k not in order)
    return "  ".join(f"{k}: {counter[k]}" for k in keys) or "none"


STATUS_ORDER = ("200", "400", "403", "409", "5xx", "no answer")
# Log lines not worth a line in the report: Django's notes of answered 4xx, the static-files warning.
NOISE = ("Conflict: ", "Bad Request: ", "Forbidden: ", "mw_instance = ", "UserWarning: No directory at")


def summarise(run: dict, db: dict) -> dict:
    """The figures the command prints (and its final JSON line)."""
    posts = Counter(status_bucket(a["status"]) for a in run["attempts"])
    moves_sent = len({a["move_id"] for a in run["attempts"]})
    faults = [
        {"fault": f["name"], "at": round(f["start"] - run["t0"], 1), "end": round(f["end"] - run["t0"], 1),
         "detail": f.get("detail", ""), "tables": f.get("tables"),
         "all_tables_moved_again_after_s": f.get("all_moved_again_after"),
         "tables_not_moved_again": f.get("tables_not_moved_again", []),
         "longest_overlapping_stall_s": (f.get("longest_overlapping_stall") or {}).get("seconds")}
        for f in db["faults"]
    ]
    get_times = run["get_times"]
    for fault in faults:
        start, end = fault["at"] + run["t0"], fault["end"] + run["t0"]
        during = [g for g in get_times if start <= g[0] <= end]
        slowest = max(during, key=lambda g: g[1], default=None)
        fault["slowest_panel_get_s"] = round(slowest[1], 2) if slowest else None
        fault["slowest_panel_get_status"] = slowest[3] if slowest else None
        fault["lobby_probe"] = next((f.get("probe", []) for f in run["faults"] if f["name"] == fault["fault"]), [])
    answered = [g[1] for g in get_times if g[3] != "no answer"]
    passed = not db["lost"] and not db["duplicates"] and not db["misattributed"] and not db["replay_failed"]
    push = run.get("push") or None
    if push is not None:
        for fault, figures in zip(faults, push["faults"], strict=True):
            fault["push"] = figures
    return {
        "verdict": "PASS" if passed else "FAIL",
        "push_verdict": None if push is None else
        "PASS" if all(f["passed"] for f in push["faults"]) and not push.get("crash") else "FAIL",
        "push_limit_s": None if push is None else push["limit_s"],
        "push_socket_errors": None if push is None else push["errors"],
        "layout": run.get("layout", "threads"),
        "seconds": run["seconds"],
        "tables": len(run["tables"]),
        "human_clients": sum(len(t["clients"]) for t in run["tables"]),
        "games": db["games"],
        "games_by_status": db["games_by_status"],
        "moves_played": db["moves"],
        "moves_by_kind": db["moves_by_kind"],
        "moves_per_second": round(db["moves_in_play_window"] / max(1.0, run["t_end"] - run["t0"]), 2),
        "human_moves_sent": moves_sent,
        "human_moves_acknowledged": db["acknowledged"],
        "moves_lost": len(db["lost"]),
        "duplicates": len(db["duplicates"]),
        "misattributed": len(db["misattributed"]),
        "applied_not_acknowledged": db["applied_not_acknowledged"],
        "max_stall_s": (db["stall_max"] or {}).get("seconds", 0.0),
        "p99_stall_s": db["stall_p99"],
        "median_gap_s": db["stall_median"],
        "faults": faults,
        "replay_ok": db["replay_ok"],
        "replay_failed": len(db["replay_failed"]),
        "http_move_posts": dict(posts),
        "http_panel_gets": run["gets"],
        "panel_get_p99_s": round(percentile(answered, 0.99), 3),
        "panel_get_max_s": round(max(answered, default=0.0), 3),
        "host_actions": run["host_actions"],
        "server_tracebacks": {label: log["tracebacks"] for label, log in run["server_logs"].items()},
        "client_errors": run["client_errors"],
        "incidents": run["incidents"],
    }


def format_report(run: dict, db: dict, summary: dict) -> str:
    """The human-readable block printed before the JSON line."""
    out = [
        "",
        f"==== chaos: {summary['seconds']} s of play, {summary['tables']} tables, "
        f"{summary['human_clients']} phone-like HTTP clients, 2 daphne processes"
        f"{' and the game worker' if summary['layout'] == 'serve' else ''} ====",
        "faults (t = seconds since play started):",
    ]
    for fault in summary["faults"]:
        after = fault["all_tables_moved_again_after_s"]
        moved = (f"all {fault['tables']} tables moved again {after:.2f} s after its end" if after is not None
                 else f"tables that never moved again after it: {', '.join(fault['tables_not_moved_again'])}")
        stall = fault["longest_overlapping_stall_s"]
        out.append(f"  t={fault['at']:6.1f} → {fault['end']:6.1f}  {fault['fault']}: {fault['detail']}")
        out.append(f"  {'':19}{moved}; longest table stall overlapping it {stall or 0:.2f} s")
        if fault["slowest_panel_get_s"] is not None:
            out.append(f"  {'':19}slowest panel GET during it {fault['slowest_panel_get_s']:.2f} s "
                       f"({fault['slowest_panel_get_status']})")
        if fault["lobby_probe"]:
            probes = ", ".join(f"{p['process']} {p['status']} in {p['seconds']:.2f} s" for p in fault["lobby_probe"])
            out.append(f"  {'':19}join by code during it (GET /find/): {probes}")
        if "push" in fault:
            out.append(f"  {'':19}{push_line(fault['push'])}")
    if not summary["faults"]:
        out.append("  none")
    by = summary["moves_by_kind"]
    out += [
        f"moves played        {summary['moves_played']} (humans {by['humans']}, bots {by['bots']}, "
        f"timeouts {by['timeouts']}) in {summary['games']} games "
        f"({_counts(summary['games_by_status'], ('finished', 'running', 'ended'))}); "
        f"{summary['moves_per_second']} moves/s",
        f"human moves sent    {summary['human_moves_sent']} distinct move ids, "
        f"{summary['human_moves_acknowledged']} acknowledged (answered 200)",
        f"moves lost          {summary['moves_lost']}   (acknowledged move ids missing from the log)",
        f"duplicates          {summary['duplicates']}   (a client move id recorded twice in the log)",
        f"misattributed       {summary['misattributed']}   (an acknowledged move on another table or seat)",
        f"applied, not acked  {summary['applied_not_acknowledged']}   "
        "(in the log although no attempt was answered 200: the answer was lost)",
    ]
    top = db["stall_max"]
    if top:
        out.append(f"max stall           {top['seconds']:.2f} s (game {top['game']} {top['engine']} at {top['table']}, "
                   f"t={top['from']:.1f}→{top['to']:.1f}); p99 {summary['p99_stall_s']:.2f} s, "
                   f"median gap {summary['median_gap_s']:.2f} s over {db['gaps']} gaps")
        for gap in db["stall_top"][1:]:
            out.append(f"{'':20}{gap['seconds']:.2f} s (game {gap['game']} {gap['engine']}, "
                       f"t={gap['from']:.1f}→{gap['to']:.1f})")
    out.append(f"replay check        {summary['replay_ok']} ok, {summary['replay_failed']} failed "
               f"(setup(seed) + moves = snapshot, and = outcome when finished)")
    for failure in db["replay_failed"][:10]:
        out.append(f"{'':20}game {failure['game']} {failure['engine']} ({failure['status']}, "
                   f"{failure['moves']} moves): {'; '.join(failure['problems'])[:200]}")
    out += [
        f"HTTP move POSTs     {_counts(summary['http_move_posts'], STATUS_ORDER)}",
        f"HTTP panel GETs     {_counts(summary['http_panel_gets'], STATUS_ORDER)}; "
        f"answered in p99 {summary['panel_get_p99_s']:.2f} s, max {summary['panel_get_max_s']:.2f} s",
        f"host 'play again'   {_counts(summary['host_actions'], STATUS_ORDER)}",
    ]
    for move in db["lost"][:10]:
        out.append(f"  LOST {move['move_id']} ({move['client']} at {move['table']}, :{move['port']}, "
                   f"t={move['t']}): attempts {move['statuses']}")
    for move in db["misattributed"][:10]:
        out.append(f"  MISATTRIBUTED {move}")
    for move_id in db["duplicates"][:10]:
        out.append(f"  DUPLICATE {move_id}")
    for label, log in run["server_logs"].items():
        out.append(f"{'server log ' + label:<19} {log['tracebacks']} errors with a traceback ({log['path']}):")
        for line, n in log["exceptions"].items():
            out.append(f"{'':20}{n}× {line}")
        for line, n in log["contexts"].items():
            out.append(f"{'':20}{n}× logged as: {line}")
        for line, n in log["other_lines"].items():
            if not any(noise in line for noise in NOISE):
                out.append(f"{'':20}{n}× {line}")
    out.append(f"client errors       {_counts(summary['client_errors'], ()) if summary['client_errors'] else 'none'}")
    if summary["push_verdict"] is not None:
        out.append(f"push watch          {summary['push_verdict']} (needed: after every fault, every table's screens "
                   f"caught up within one heartbeat + grace, {summary['push_limit_s']:g} s, and none fell behind "
                   "longer afterwards)")
        out.append(f"watch sockets       {_counts(summary['push_socket_errors'], ()) or 'no drops'}")
    for incident in summary["incidents"]:
        out.append(f"incident            {incident}")
    for note in run.get("notes", []):
        out.append(f"note                {note}")
    out.append(f"logs                {run['logdir']}")
    out.append(f"verdict             {summary['verdict']} ({summary['moves_lost']} lost, {summary['duplicates']} "
               f"duplicates, {summary['misattributed']} misattributed, {summary['replay_failed']} replay failures)")
    return "\n".join(out)


def push_line(push: dict) -> str:
    """One fault's push catch-up, as the report prints it."""
    if push["never_caught_up"]:
        caught = f"{len(push['never_caught_up'])} of {push['tables']} tables never caught up " \
                 f"({', '.join(push['never_caught_up'][:6])})"
    else:
        caught = (f"every board caught up after worst {push['caught_up_worst_s']:.1f} s, "
                  f"p50 {push['caught_up_p50_s']:.1f} s ({push['tables']} tables)")
    return (f"pushes: {caught}; longest behind afterwards {push['worst_behind_after_s']:.1f} s: "
            f"{'PASS' if push['passed'] else 'FAIL'} (limit {push['limit_s']:g} s)")


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))


def attempts_as_dicts(clients: list[HumanClient]) -> list[dict]:
    return [asdict(a) for c in clients for a in c.attempts]

