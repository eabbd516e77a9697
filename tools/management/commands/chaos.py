"""Bot games on two processes while one process is killed, Redis is paused and PostgreSQL restarts.

    manage.py chaos [--seconds 120] [--tables 6] [--humans 2] [--restart-postgres]

Everything runs on 127.0.0.1 and belongs to the run except PostgreSQL itself:
- its own database (``--db-name``, default ``tablegames_chaos``: dropped and recreated at the
  start, migrated in a subprocess, dropped at the end unless ``--keep-db``);
- its own ``redis-server`` on a free port without persistence (so SIGSTOP harms nobody else);
- two daphne processes (``python -m daphne``) with the worker thread on, logs in a temp dir.

Tables are created over HTTP like people do it (guest names, /new/, join, bots, start); on each
table a few phone-like clients (threads with their own cookie jar) poll their panel and POST
random legal moves with their own unique move ids, alternating between the two processes; the
bots play on both processes' workers. During the run, in order: ``kill -9`` of process A and
its restart a few seconds later, SIGSTOP/SIGCONT of Redis, and (only with
``--restart-postgres``, because it restarts the machine's shared cluster) ``pg_ctlcluster
<version> main restart``.

Then, with the servers stopped, a subprocess whose default database is the chaos one reads the
event log and the report says: moves played, moves lost (acknowledged 200 but not in the log:
must be 0), duplicates (must be 0), the max and p99 stall of the running games and each
fault's recovery, the replay check of every game, and the HTTP status counts. The last line is
JSON. The exit status is 1 when anything was lost, duplicated, misattributed or failed replay.
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

# A mixed room: the game of each table in turn, with its seat count.
TABLE_GAMES = [("inside_job", 5), ("coup", 4), ("good_cop_bad_cop_health", 4), ("good_cop_bad_cop", 4)]
# When each fault starts, as a fraction of --seconds.
FAULT_AT = {"kill": 0.20, "redis": 0.45, "postgres": 0.70}
MIN_SECONDS, MAX_SECONDS = 60, 1800
PROGRESS_EVERY = 30.0


def _interrupt(signum, frame) -> None:
    """SIGTERM ends the run like Ctrl-C does: through the finally blocks that clean up."""
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = ("Play bot games on two daphne processes while killing one, pausing Redis and (with "
            "--restart-postgres) restarting PostgreSQL; report moves played, lost, stalls and replays.")

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=int, default=120,
                            help=f"length of play ({MIN_SECONDS}-{MAX_SECONDS}; the faults are spread over it)")
        parser.add_argument("--tables", type=int, default=6, help="tables (1-20), games mixed in turn")
        parser.add_argument("--humans", type=int, default=2, help="phone-like HTTP clients per table (1-4)")
        parser.add_argument("--restart-postgres", action="store_true",
                            help="also restart this machine's PostgreSQL cluster (every database on it blips)")
        parser.add_argument("--kill-down", type=float, default=5.0, help="seconds process A stays dead (1-30)")
        parser.add_argument("--redis-pause", type=float, default=10.0, help="seconds Redis stays stopped (1-60)")
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
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", options["db_name"]) or "chaos" not in options["db_name"]:
            raise CommandError("--db-name: lower-case letters, digits and _, and it must contain 'chaos'")
        run = ChaosRun(self, options)
        text, summary = run.execute()
        self.stdout.write(text)
        self.stdout.write(json.dumps(summary, sort_keys=True))
        if summary["verdict"] != "PASS":
            raise CommandError("chaos: moves were lost or duplicated, or a replay failed (see above)")


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
        kill_at, redis_at, pg_at = (round(FAULT_AT[k] * self.seconds) for k in ("kill", "redis", "postgres"))
        self.say(f"chaos: logs in {self.logdir}; client seed {self.seed}")
        self.say(f"chaos: code: a copy of {self.source} (git HEAD {head} plus any uncommitted edits) in {self.root}")
        self.say(f"chaos: plan: {self.seconds} s of play on {self.table_count} tables; kill -9 daphne A at "
                 f"t={kill_at}s (back after {self.kill_down:g} s), SIGSTOP Redis at t={redis_at}s for "
                 f"{self.redis_pause:g} s, " + (
                     f"restart PostgreSQL {version}/{name} (the machine's shared cluster) at t={pg_at}s"
                     if self.restart_postgres else
                     "no PostgreSQL restart (pass --restart-postgres to restart the machine's cluster)"))
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
            "GAME_WORKER": "1",
            "PYTHONUNBUFFERED": "1",
        }
        self.servers = [DaphneServer(label, self.python, self.root, env, self.logdir) for label in ("A", "B")]
        for server in self.servers:
            server.start()
        self.say(f"chaos: redis-server pid {self.redis.process.pid if self.redis.process else '?'} on "
                 f":{self.redis.port}; daphne A pid {self.servers[0].pid} on :{self.servers[0].port}, "
                 f"daphne B pid {self.servers[1].pid} on :{self.servers[1].port}")

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

    def _play(self) -> None:
        self.t0 = time.time()
        self.t_end = self.t0 + self.seconds
        self._last_progress = self.t0
        for client in self.clients:
            client.until = self.t_end
            client.start()
        self.at(f"play starts: {len(self.clients)} HTTP clients (client i talks to process i%2), bots on both workers")
        self._wait_until(self.t0 + FAULT_AT["kill"] * self.seconds)
        self._fault_kill()
        self._wait_until(self.t0 + FAULT_AT["redis"] * self.seconds)
        self._fault_redis()
        self._wait_until(self.t0 + FAULT_AT["postgres"] * self.seconds)
        if self.restart_postgres:
            self._fault_postgres()
        else:
            self.at("PostgreSQL restart skipped (no --restart-postgres)")
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
            for server in self.servers:
                if server.label not in self.expected_down and not server.alive():
                    code = server.process.returncode if server.process else None
                    self.incidents.append(f"daphne {server.label} exited by itself (rc {code}) at "
                                          f"t={now - self.t0:.1f}; restarted")
                    self.at(f"daphne {server.label} exited by itself (rc {code}); restarting it")
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

    def _fault_kill(self) -> None:
        server = self.servers[0]
        start = time.time()
        pid = server.pid
        self.expected_down.add(server.label)
        server.kill()
        self.at(f"FAULT kill -9 daphne A (pid {pid})")
        fault: dict = {"name": "kill -9 daphne A", "start": start}
        self._probe_soon(fault)
        try:
            self._wait_until(start + self.kill_down)
            up = server.start()
        finally:
            self.expected_down.discard(server.label)
        end = time.time()
        self.at(f"daphne A restarted (pid {server.pid}), answering after {up:.1f} s")
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
        for server in self.servers:
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
        for server in self.servers:
            logs[f"daphne {server.label}"] = {**scan_log(server.log_path), "path": str(server.log_path)}
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
        }
        write_json(self.logdir / "run.json", run)
        return run

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
            steps = [(f"daphne {s.label}", s.stop) for s in self.servers]
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
