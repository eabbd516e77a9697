"""Games on the app's processes while each is killed, Redis is paused and restarted, a client floods and
PostgreSQL restarts; moves are checked in the log and push delivery on real sockets.

    manage.py chaos [--seconds 360] [--tables 20] [--humans 2] [--restart-postgres]

Everything runs on 127.0.0.1 and belongs to the run except PostgreSQL itself:
- its own copy of the code (without ``.serve/``, sockets or other runtime files, so it runs beside
  ``make serve`` in the same tree), its own ports and temp dir;
- its own database (``--db-name``, default ``tablegames_chaos``: dropped and recreated at the
  start, migrated in a subprocess, dropped at the end unless ``--keep-db``);
- its own ``redis-server`` on a free port without persistence (so stopping or restarting it harms nobody);
- the app as ``make serve`` runs it (``--layout serve``, the default): two daphne processes with
  ``GAME_WORKER=0`` and ``manage.py gameworker``; or ``--layout threads``: two daphnes, each with the
  worker thread on. Logs in a temp dir.

Tables are created over HTTP like people do it (guest names, /new/, join, bots, start); on each
table a few phone-like clients (threads with their own cookie jar) poll their panel and POST
random legal moves with their own unique move ids, alternating between the two processes; the
bots play on the worker. For every table a board socket and a phone socket that never move watch
push delivery (``tools.pushwatch``). During the run, spread evenly (``--faults`` picks some): ``kill -9``
of daphne A, of daphne B and of the game worker, each restarted a few seconds later;
SIGSTOP/SIGCONT of Redis; a Redis restart (killed, started again empty on its port); a misbehaving
client (sockets that send a bad frame and never answer the close, sockets that flood moves); and
(only with ``--restart-postgres``, because it restarts the machine's shared cluster)
``pg_ctlcluster <version> main restart``.

Then, with the servers stopped, a subprocess whose default database is the chaos one reads the
event log and the report says: moves played, moves lost (acknowledged 200 but not in the log:
must be 0), duplicates (must be 0), the max and p99 stall of the running games and each
fault's recovery, the replay check of every game, and the HTTP status counts; and per fault, how
long until every watcher knew its table's revision (worst and p50 over tables), against one heartbeat
plus a grace. The last line is JSON. The exit status is 1 when anything was lost, duplicated,
misattributed or failed replay, or a fault's pushes did not catch up within one heartbeat.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tools.chaos import (
    MAX_ATTEMPTS,
    REQUEST_TIMEOUT,
    AppProcess,
    Browser,
    DaphneServer,
    HumanClient,
    Postgres,
    RedisServer,
    SetupError,
    add_bot,
    analyse_log,
    attempts_as_dicts,
    code_changes,
    code_fingerprint,
    copy_code,
    create_table,
    format_report,
    lobby_probe,
    scan_log,
    seat_count,
    sit_down,
    start_game,
    summarise,
    write_json,
)
from tools.pushwatch import (
    HEARTBEAT_GRACE,
    Misbehaving,
    PushWatch,
    fault_push_figures,
    heartbeat_seconds,
)

# A mixed room: the game of each table in turn, with its seat count.
TABLE_GAMES = [("inside_job", 5), ("coup", 4), ("good_cop_bad_cop_health", 4), ("good_cop_bad_cop", 4)]
# The faults of a run, in order; they start evenly spread over --seconds.
FAULTS = ("kill-a", "kill-b", "kill-worker", "redis-pause", "redis-restart", "flood", "postgres")
FAULT_NAMES = {
    "kill-a": "kill -9 daphne A", "kill-b": "kill -9 daphne B", "kill-worker": "kill -9 game worker",
    "redis-pause": "SIGSTOP Redis", "redis-restart": "restart Redis", "flood": "misbehaving client",
    "postgres": "restart PostgreSQL",
}
MIN_SECONDS, MAX_SECONDS = 60, 1800
# The misbehaving client, on each process: flooding sockets, and sockets that send a bad frame and hang on.
FLOOD_SOCKETS, BAD_SOCKETS = 5, 10
PROGRESS_EVERY = 30.0


def _interrupt(signum, frame) -> None:
    """SIGTERM ends the run like Ctrl-C does: through the finally blocks that clean up."""
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = ("Play games on the app's processes while killing each, pausing and restarting Redis, flooding, and "
            "(with --restart-postgres) restarting PostgreSQL; report moves lost, stalls, replays and push catch-up.")

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=int, default=360,
                            help=f"length of play ({MIN_SECONDS}-{MAX_SECONDS}; the faults are spread over it)")
        parser.add_argument("--tables", type=int, default=20, help="tables (1-20), games mixed in turn")
        parser.add_argument("--humans", type=int, default=2, help="phone-like HTTP clients per table (1-4)")
        parser.add_argument("--restart-postgres", action="store_true",
                            help="also restart this machine's PostgreSQL cluster (every database on it blips)")
        parser.add_argument("--kill-down", type=float, default=5.0, help="seconds process A stays dead (1-30)")
        parser.add_argument("--redis-pause", type=float, default=10.0, help="seconds Redis stays stopped (1-60)")
        parser.add_argument("--redis-down", type=float, default=2.0,
                            help="seconds between killing Redis and starting it again, empty (0-60)")
        parser.add_argument("--flood-seconds", type=float, default=5.0,
                            help="seconds the flooding sockets send moves (1-60); the bad sockets hang on for one "
                                 "heartbeat and 2 s")
        parser.add_argument("--layout", choices=("serve", "threads"), default="serve",
                            help="serve: as make serve (2 daphnes with GAME_WORKER=0 and manage.py gameworker); "
                                 "threads: 2 daphnes, each with the worker thread")
        parser.add_argument("--faults", default=",".join(FAULTS),
                            help=f"the faults, comma-separated, of: {', '.join(FAULTS)} (postgres also needs "
                                 "--restart-postgres)")
        parser.add_argument("--no-watch", action="store_true", help="no board and phone sockets watching pushes")
        parser.add_argument("--db-name", default="tablegames_chaos",
                            help="the run's own database (dropped and recreated; must contain 'chaos')")
        parser.add_argument("--keep-db", action="store_true", help="keep the database after the run")
        parser.add_argument("--seed", type=int, default=None, help="seed of the clients' choices")
        # Internal: the after-run check, run in a subprocess whose DATABASE_URL is the chaos database.
        parser.add_argument("--analyse", default="", help=argparse.SUPPRESS)

    def handle(self, *args, **options):
        if options["analyse"]:
            # The after-run check (also by hand, on a kept database: DATABASE_URL=... chaos --analyse run.json).
            path = Path(options["analyse"])
            run = json.loads(path.read_text())
            db = analyse_log(run)
            write_json(path.parent / "analysis.json", db)
            if options["verbosity"] > 1:
                self.stdout.write(format_report(run, db, summarise(run, db)))
            return
        if not MIN_SECONDS <= options["seconds"] <= MAX_SECONDS:
            raise CommandError(f"--seconds must be {MIN_SECONDS}-{MAX_SECONDS}")
        if not 1 <= options["tables"] <= 20 or not 1 <= options["humans"] <= 4:
            raise CommandError("--tables must be 1-20 and --humans 1-4")
        if not 1 <= options["kill_down"] <= 30 or not 1 <= options["redis_pause"] <= 60:
            raise CommandError("--kill-down must be 1-30 s and --redis-pause 1-60 s")
        if not 0 <= options["redis_down"] <= 60 or not 1 <= options["flood_seconds"] <= 60:
            raise CommandError("--redis-down must be 0-60 s and --flood-seconds 1-60 s")
        unknown = set(options["faults"].split(",")) - set(FAULTS) - {""}
        if unknown:
            raise CommandError(f"--faults: unknown {', '.join(sorted(unknown))} (known: {', '.join(FAULTS)})")
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", options["db_name"]) or "chaos" not in options["db_name"]:
            raise CommandError("--db-name: lower-case letters, digits and _, and it must contain 'chaos'")
        run = ChaosRun(self, options)
        text, summary = run.execute()
        self.stdout.write(text)
        self.stdout.write(json.dumps(summary, sort_keys=True))
        if summary["verdict"] != "PASS":
            raise CommandError("chaos: moves were lost or duplicated, or a replay failed (see above)")
        if summary.get("push_verdict") == "FAIL":
            raise CommandError("chaos: after a fault, some screen stayed behind its table longer than one heartbeat "
                               "(see above)")


class ChaosRun:
    """One run: prepare, set up tables, play through the faults, stop, analyse, clean up."""

    def __init__(self, command: BaseCommand, options: dict) -> None:
        self.command = command
        self.seconds: int = options["seconds"]
        self.table_count: int = options["tables"]
        self.humans: int = options["humans"]
        self.restart_postgres: bool = options["restart_postgres"]
        self.kill_down: float = options["kill_down"]
        self.redis_pause: float = options["redis_pause"]
        self.redis_down: float = options["redis_down"]
        self.flood_seconds: float = options["flood_seconds"]
        self.layout: str = options["layout"]
        self.watch_pushes = not options["no_watch"]
        chosen = set(options["faults"].split(","))
        self.fault_plan = [f for f in FAULTS if f in chosen and (f != "postgres" or options["restart_postgres"])
                           and (f != "kill-worker" or self.layout == "serve")]
        self.skipped = [f for f in FAULTS if f in chosen and f not in self.fault_plan]
        self.db_name: str = options["db_name"]
        self.keep_db: bool = options["keep_db"]
        self.seed: int = options["seed"] if options["seed"] is not None else secrets.randbelow(10**6)
        self.tag = secrets.token_hex(2)
        self.source = Path(settings.BASE_DIR)
        self.python = sys.executable
        self.logdir = Path(tempfile.mkdtemp(prefix="chaos-"))
        # Every process of the run (migrate, both daphnes, the restart, the analysis) runs this copy.
        self.root = self.logdir / "code"
        self.pg = Postgres()
        self.redis: RedisServer | None = None
        self.servers: list[DaphneServer] = []
        self.worker: AppProcess | None = None
        self.watch: PushWatch | None = None
        self.flood_code = ""
        self.heartbeat = 15.0
        self.clients: list[HumanClient] = []
        self.tables: list[dict] = []
        self.stop = threading.Event()
        self.faults: list[dict] = []
        self.incidents: list[str] = []
        self.db_created = False
        self.pg_touched = False
        self.expected_down: set[str] = set()
        self.t0 = 0.0
        self.t_end = 0.0
        self._last_progress = 0.0
        self._probes: list[tuple[threading.Thread, dict]] = []
        self._code: dict[str, tuple[float, int]] = {}

    # ------------------------------------------------------------------ output

    def say(self, text: str) -> None:
        self.command.stdout.write(text)
        self.command.stdout.flush()

    def at(self, text: str) -> None:
        """A line stamped with the time since play started."""
        self.say(f"[t={time.time() - self.t0:6.1f}s] {text}" if self.t0 else f"[setup] {text}")

    # ------------------------------------------------------------------ the run

    def execute(self) -> tuple[str, dict]:
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            self._prepare()
            self._setup_tables()
            self._play()
            self._stop_servers()
            run = self._record()
            db = self._analyse(run)
            summary = summarise(run, db)
            return format_report(run, db, summary), summary
        except (SetupError, RuntimeError, OSError, subprocess.SubprocessError) as error:
            raise CommandError(f"chaos: {error} (logs in {self.logdir})") from error
        except KeyboardInterrupt:
            raise CommandError(f"chaos: interrupted; cleaned up (logs in {self.logdir})") from None
        finally:
            self._cleanup()
            signal.signal(signal.SIGTERM, previous)

    def _prepare(self) -> None:
        if shutil.which("redis-server") is None:
            raise CommandError("redis-server is missing: apt-get install redis-server")
        if not self.pg.ready():
            raise CommandError(f"PostgreSQL is not answering on {self.pg.host}:{self.pg.port} (user {self.pg.user})")
        version, name = self.pg.cluster()
        self._code = code_fingerprint(self.source)
        copy_code(self.source, self.root)
        head = subprocess.run(["git", "-C", str(self.source), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
        self.heartbeat = heartbeat_seconds(self.root)
        self.say(f"chaos: logs in {self.logdir}; client seed {self.seed}")
        self.say(f"chaos: code: a copy of {self.source} (git HEAD {head} plus any uncommitted edits) in {self.root}")
        plan = ", ".join(f"{FAULT_NAMES[f]} at t={at:.0f}s" for f, at in self._schedule())
        self.say(f"chaos: plan: {self.seconds} s of play on {self.table_count} tables, layout {self.layout}; "
                 f"{plan or 'no faults'}; " + (
                     f"PostgreSQL {version}/{name} is the machine's shared cluster" if "postgres" in self.fault_plan
                     else "no PostgreSQL restart (pass --restart-postgres to restart the machine's cluster)"))
        spacing = self.seconds / (len(self.fault_plan) + 1)
        if self.watch_pushes and spacing - max(self.kill_down, self.redis_pause, self.heartbeat + 2) < \
                self.heartbeat + HEARTBEAT_GRACE:
            self.say(f"chaos: note: {spacing:.0f} s between faults leaves less than one heartbeat "
                     f"({self.heartbeat:g} s) and its grace to watch each recovery; give more --seconds")
        self.pg.recreate(self.db_name)
        self.db_created = True
        url = self.pg.url(self.db_name)
        with open(self.logdir / "migrate.log", "w") as log:
            done = subprocess.run(
                [self.python, str(self.root / "manage.py"), "migrate", "--noinput"], cwd=self.root,
                env={**os.environ, "DATABASE_URL": url}, stdout=log, stderr=subprocess.STDOUT, timeout=300,
            )
        if done.returncode:
            raise CommandError(f"migrate failed; see {self.logdir / 'migrate.log'}")
        self.say(f"chaos: database {self.db_name} on {self.pg.host}:{self.pg.port} recreated and migrated")
        self.redis = RedisServer(self.logdir)
        self.redis.start()
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "REDIS_URL": self.redis.url,
            "DJANGO_PLAIN_STATIC": "1",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GAME_WORKER": "1" if self.layout == "threads" else "0",
            "PYTHONUNBUFFERED": "1",
        }
        self.servers = [DaphneServer(label, self.python, self.root, env, self.logdir) for label in ("A", "B")]
        for server in self.servers:
            server.start()
        worker = ""
        if self.layout == "serve":
            self.worker = AppProcess("worker", self.python, self.root, env, self.logdir)
            self.worker.start()
            worker = f", game worker pid {self.worker.pid}"
        self.say(f"chaos: redis-server pid {self.redis.process.pid if self.redis.process else '?'} on "
                 f":{self.redis.port}; daphne A pid {self.servers[0].pid} on :{self.servers[0].port}, "
                 f"daphne B pid {self.servers[1].pid} on :{self.servers[1].port}{worker}")

    def _schedule(self) -> list[tuple[str, float]]:
        """(fault, when it starts: seconds after play starts), evenly spread."""
        n = len(self.fault_plan)
        return [(f, self.seconds * (i + 1) / (n + 1)) for i, f in enumerate(self.fault_plan)]

    @property
    def processes(self) -> list[AppProcess]:
        return [*self.servers, *([self.worker] if self.worker is not None else [])]

    def _setup_tables(self) -> None:
        ports = [s.port for s in self.servers]
        rng = random.Random(self.seed)
        hosts: list[tuple[Browser, str]] = []
        for t in range(self.table_count):
            engine, players = TABLE_GAMES[t % len(TABLE_GAMES)]
            humans = min(self.humans, players)
            host = Browser(ports, prefer=t)
            sit_down(host, f"chaos-t{t}-host")
            code = create_table(host, engine)
            browsers = [host]
            for h in range(1, humans):
                browser = Browser(ports, prefer=t + h)
                sit_down(browser, f"chaos-t{t}-p{h}", join=code)
                browsers.append(browser)
            for _ in range(players - humans):
                add_bot(host, code)
            seated = seat_count(host, code)
            if seated != players:
                raise SetupError(f"table {code} has {seated} seats, expected {players}")
            names = [f"chaos-t{t}-host"] + [f"chaos-t{t}-p{h}" for h in range(1, humans)]
            self.tables.append({"code": code, "engine": engine, "players": players, "clients": names})
            for h, (browser, name) in enumerate(zip(browsers, names, strict=True)):
                self.clients.append(HumanClient(
                    index=len(self.clients), nickname=name, code=code, browser=browser, is_host=h == 0,
                    stop=self.stop, until=0.0, rng=random.Random(rng.random()), id_prefix=f"chaos{self.tag}",
                ))
            hosts.append((host, code))
        for host, code in hosts:
            start_game(host, code)
        for table in self.tables:
            self.say(f"chaos: table {table['code']}: {table['engine']}, {table['players']} seats, "
                     f"{len(table['clients'])} HTTP clients, {table['players'] - len(table['clients'])} bots; started")
        if "flood" in self.fault_plan:
            flooder = Browser(ports, prefer=0)
            sit_down(flooder, "chaos-flooder")
            self.flood_code = create_table(flooder, TABLE_GAMES[0][0])
            self.say(f"chaos: table {self.flood_code}: the misbehaving client's own (no game)")
        if self.watch_pushes:
            # A seated player's browser (not the host's when there is another) opens the phone socket, as a 2nd tab.
            watcher_of = {c.code: c for c in self.clients}  # a table's last client: the host only if alone
            watched = [(t["code"], {c.name: c.value or "" for c in watcher_of[t["code"]].browser.jar})
                       for t in self.tables]
            self.watch = PushWatch(ports, watched, self.pg.url(self.db_name), self.say)
            self.watch.start()
            self.watch.ready.wait(30)
            if self.watch.crash:
                raise RuntimeError(f"the push watch failed to start: {self.watch.crash}")
            self.say(f"chaos: watching pushes: {2 * len(watched)} sockets (a board and a phone per table that never "
                     f"move), against one heartbeat ({self.heartbeat:g} s) + {HEARTBEAT_GRACE:g} s")

    def _play(self) -> None:
        self.t0 = time.time()
        self.t_end = self.t0 + self.seconds
        self._last_progress = self.t0
        for client in self.clients:
            client.until = self.t_end
            client.start()
        bots = "the game worker" if self.worker is not None else "both processes' worker threads"
        self.at(f"play starts: {len(self.clients)} HTTP clients (client i talks to process i%2), bots on {bots}")
        actions = {
            "kill-a": lambda: self._fault_kill(self.servers[0]),
            "kill-b": lambda: self._fault_kill(self.servers[1]),
            "kill-worker": lambda: self._fault_kill(self.worker),
            "redis-pause": self._fault_redis,
            "redis-restart": self._fault_redis_restart,
            "flood": self._fault_flood,
            "postgres": self._fault_postgres,
        }
        for fault, at in self._schedule():
            self._wait_until(self.t0 + at)
            actions[fault]()
        for fault in self.skipped:
            self.at(f"{FAULT_NAMES[fault]} skipped" + (" (no --restart-postgres)" if fault == "postgres" else
                                                        " (no game worker process in --layout threads)"))
        self._wait_until(self.t_end)
        self.stop.set()
        for client in self.clients:
            client.join(timeout=REQUEST_TIMEOUT * MAX_ATTEMPTS + 5)
            if client.is_alive():
                self.incidents.append(f"client {client.nickname} still busy at the end")
        self._join_probes()
        self.at("play ends: clients stopped")

    def _wait_until(self, moment: float) -> None:
        """Sleep until ``moment``, watching the servers and printing progress now and then."""
        while True:
            now = time.time()
            if now >= moment:
                return
            for server in self.processes:
                if server.label not in self.expected_down and not server.alive():
                    code = server.process.returncode if server.process else None
                    self.incidents.append(f"{server.name} exited by itself (rc {code}) at "
                                          f"t={now - self.t0:.1f}; restarted")
                    self.at(f"{server.name} exited by itself (rc {code}); restarting it")
                    server.start()
            if now - self._last_progress >= PROGRESS_EVERY:
                self._last_progress = now
                attempts = [a for c in self.clients for a in c.attempts]
                acked = len({a.move_id for a in attempts if a.status == "200"})
                silent = sum(1 for a in attempts if a.status == "no answer")
                self.at(f"progress: {len({a.move_id for a in attempts})} human moves sent, {acked} acknowledged, "
                        f"{silent} attempts without answer")
            time.sleep(min(0.25, moment - now))

    # ------------------------------------------------------------------ faults

    def _probe_soon(self, fault: dict, delay: float = 1.0) -> None:
        """A moment into the fault, someone new joins a table by code on every process that is up."""
        ports = {s.label: s.port for s in self.servers if s.label not in self.expected_down}
        code = self.tables[0]["code"]

        def probe() -> None:
            if not self.stop.wait(delay):
                fault["probe"] = lobby_probe(ports, code)

        thread = threading.Thread(target=probe, name="chaos-probe", daemon=True)
        thread.start()
        self._probes.append((thread, fault))

    def _join_probes(self) -> None:
        for thread, fault in self._probes:
            thread.join(timeout=30)
            if thread.is_alive():
                self.incidents.append(f"the lobby probe of '{fault['name']}' was still waiting at the end")

    def _fault_kill(self, server: AppProcess | None) -> None:
        assert server is not None
        start = time.time()
        pid = server.pid
        self.expected_down.add(server.label)
        server.kill()
        self.at(f"FAULT kill -9 {server.name} (pid {pid})")
        fault: dict = {"name": f"kill -9 {server.name}", "start": start}
        self._probe_soon(fault)
        try:
            self._wait_until(start + self.kill_down)
            up = server.start()
        finally:
            self.expected_down.discard(server.label)
        end = time.time()
        self.at(f"{server.name} restarted (pid {server.pid}), ready after {up:.1f} s")
        fault.update(end=end, detail=f"pid {pid} killed, down {end - start:.1f} s, restarted as pid {server.pid}")
        self.faults.append(fault)

    def _fault_redis(self) -> None:
        assert self.redis is not None
        start = time.time()
        self.redis.pause()
        self.at(f"FAULT SIGSTOP redis-server (pid {self.redis.process.pid if self.redis.process else '?'})")
        fault: dict = {"name": "SIGSTOP Redis", "start": start}
        self._probe_soon(fault)
        try:
            self._wait_until(start + self.redis_pause)
        finally:
            self.redis.resume()
        end = time.time()
        self.at("SIGCONT redis-server")
        fault.update(end=end, detail=f"stopped {end - start:.1f} s, then SIGCONT")
        self.faults.append(fault)

    def _fault_redis_restart(self) -> None:
        """kill -9 of the run's redis-server, and a new one on the same port, empty (no persistence)."""
        assert self.redis is not None
        start = time.time()
        pid = self.redis.process.pid if self.redis.process else 0
        self.redis.kill()
        self.at(f"FAULT kill -9 redis-server (pid {pid}); starting it again empty in {self.redis_down:g} s")
        fault: dict = {"name": "restart Redis", "start": start}
        self._probe_soon(fault, delay=min(1.0, self.redis_down / 2))
        self._wait_until(start + self.redis_down)
        self.redis.start()
        end = time.time()
        self.at(f"redis-server back (pid {self.redis.process.pid if self.redis.process else '?'}), empty")
        fault.update(end=end, detail=f"pid {pid} killed, down {end - start:.1f} s, started again empty")
        self.faults.append(fault)

    def _fault_flood(self) -> None:
        """Sockets that send a bad frame and never answer the close (for a heartbeat and 2 s), and sockets
        that flood moves (for --flood-seconds), on every process, on a table of their own."""
        start = time.time()
        bad_seconds = self.heartbeat + 2.0
        self.at(f"FAULT misbehaving client on {self.flood_code}: per process {FLOOD_SOCKETS} sockets flooding "
                f"moves for {self.flood_seconds:g} s, {BAD_SOCKETS} sending a bad frame and hanging on for "
                f"{bad_seconds:g} s")
        fault: dict = {"name": "misbehaving client", "start": start}
        self._probe_soon(fault, delay=min(2.0, self.flood_seconds / 2))
        client = Misbehaving([s.port for s in self.servers], self.flood_code, flood_sockets=FLOOD_SOCKETS,
                             flood_seconds=self.flood_seconds, bad_sockets=BAD_SOCKETS, bad_seconds=bad_seconds)
        self._wait_until(start + max(self.flood_seconds, bad_seconds))
        counts = client.wait(timeout=30)
        end = time.time()
        shown = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        self.at(f"misbehaving client done: {shown}")
        fault.update(end=end, detail=f"{end - start:.1f} s; {shown}", counts=dict(counts))
        self.faults.append(fault)

    def _fault_postgres(self) -> None:
        command = self.pg.restart_command()
        start = time.time()
        self.pg_touched = True
        self.at(f"FAULT {' '.join(command)}")
        fault: dict = {"name": "restart PostgreSQL", "start": start}
        self._probe_soon(fault, delay=0.5)
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        ready = self.pg.wait_ready(60)
        end = time.time()
        detail = (f"{' '.join(command[-3:])}: rc {done.returncode}, "
                  f"accepting connections again after {end - start:.1f} s")
        if done.returncode:
            detail += f" ({(done.stderr or done.stdout).strip()[:200]})"
            self.incidents.append(f"pg_ctlcluster restart failed: {(done.stderr or done.stdout).strip()[:300]}")
        if not ready:
            self.incidents.append("PostgreSQL did not accept connections within 60 s of the restart")
        self.at(f"PostgreSQL back: {detail}")
        fault.update(end=end, detail=detail)
        self.faults.append(fault)

    # ------------------------------------------------------------------ after the run

    def _stop_servers(self) -> None:
        time.sleep(1.0)  # let in-flight bot moves land
        if self.watch is not None:
            self.watch.finish()
        for server in self.processes:
            server.stop()
        if self.redis is not None:
            self.redis.stop()
        self.at("servers stopped")

    def _record(self) -> dict:
        errors: Counter[str] = Counter()
        gets: Counter[str] = Counter()
        host_actions: Counter[str] = Counter()
        for client in self.clients:
            errors.update(client.errors)
            gets.update(client.gets)
            host_actions.update(client.host_actions)
            if client.crash:
                self.incidents.append(f"client {client.nickname} crashed: {client.crash.strip().splitlines()[-1]}")
        changed = code_changes(self._code, code_fingerprint(self.source))
        notes = []
        if changed:
            shown = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
            notes.append(f"the working tree changed during the run ({shown}); the run used its own copy, "
                         "taken at the start, so all its processes ran the same code")
        logs = {}
        for server in self.processes:
            logs[server.name] = {**scan_log(server.log_path), "path": str(server.log_path)}
        run = {
            "tag": self.tag,
            "seed": self.seed,
            "t0": self.t0,
            "t_end": self.t_end,
            "seconds": self.seconds,
            "tables": self.tables,
            "faults": self.faults,
            "attempts": attempts_as_dicts(self.clients),
            "gets": dict(gets),
            "get_times": [g for c in self.clients for g in c.get_times],
            "host_actions": dict(host_actions),
            "client_errors": dict(errors),
            "client_crashes": [c.crash for c in self.clients if c.crash],
            "incidents": self.incidents,
            "notes": notes,
            "server_logs": logs,
            "logdir": str(self.logdir),
            "layout": self.layout,
            "push": self._push_record(),
        }
        write_json(self.logdir / "run.json", run)
        return run

    def _push_record(self) -> dict | None:
        """The watchers' series, and per fault their catch-up from its end to the next fault's start (or the end)."""
        if self.watch is None:
            return None
        watched = self.watch.result()
        limit = self.heartbeat + HEARTBEAT_GRACE
        starts = [float(f["start"]) for f in self.faults[1:]] + [self.t_end]
        per_fault = [fault_push_figures(watched, float(f["end"]), stop, limit)
                     for f, stop in zip(self.faults, starts, strict=True)]
        if watched["crash"]:
            self.incidents.append(f"the push watch crashed: {watched['crash']}")
        return {**watched, "heartbeat_s": self.heartbeat, "limit_s": limit, "faults": per_fault}

    def _analyse(self, run: dict) -> dict:
        """Read the log in a subprocess whose default database is the chaos one."""
        self.at("reading the event log")
        done = subprocess.run(
            [self.python, str(self.root / "manage.py"), "chaos", "--analyse", str(self.logdir / "run.json")],
            cwd=self.root, env={**os.environ, "DATABASE_URL": self.pg.url(self.db_name)},
            capture_output=True, text=True, timeout=600,
        )
        if done.returncode:
            (self.logdir / "analysis.err").write_text(done.stdout + done.stderr)
            self.keep_db = True  # so that the analysis can be run again by hand
            url = self.pg.url(self.db_name)
            raise CommandError(
                f"the analysis failed (database {self.db_name} kept; again with: DATABASE_URL={url} "
                f"{self.python} manage.py chaos --analyse {self.logdir / 'run.json'} -v 2): "
                f"{done.stderr.strip()[-1500:]}"
            )
        return json.loads((self.logdir / "analysis.json").read_text())

    def _cleanup(self) -> None:
        """Stop everything this run started and drop its database; each step reports its own failure."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not skip the cleanup
        try:
            self.stop.set()
            for client in self.clients:
                if client.is_alive():
                    client.join(timeout=REQUEST_TIMEOUT + 2)
            if self.watch is not None:
                self.watch.finish()
            steps = [(s.name, s.stop) for s in self.processes]
            if self.redis is not None:
                steps.append(("redis", self.redis.stop))
            if self.pg_touched:
                steps.append(("PostgreSQL up", self._ensure_postgres))
            if self.db_created and not self.keep_db:
                steps.append((f"drop {self.db_name}", lambda: self.pg.drop(self.db_name)))
            for name, step in steps:
                try:
                    step()
                except Exception as error:  # reported, and the other steps still run
                    self.say(f"chaos: cleanup step '{name}' failed: {type(error).__name__}: {error}")
            kept = f"database {self.db_name} kept" if self.keep_db and self.db_created else "database dropped"
            self.say(f"chaos: cleaned up (servers stopped, {kept}; logs kept in {self.logdir})")
        finally:
            signal.signal(signal.SIGINT, previous)

    def _ensure_postgres(self) -> None:
        if self.pg.wait_ready(20):
            return
        version, name = self.pg.cluster()
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, name, "start"], timeout=120, check=False)
        if not self.pg.wait_ready(60):
            raise RuntimeError("PostgreSQL is still down after pg_ctlcluster start")
