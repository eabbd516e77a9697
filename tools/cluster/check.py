"""The cluster's proof (``make cluster-check``, and ``tests/cluster/``): a game across hosts, one host lost mid-game.

On a fresh cluster of three app hosts (``tools.cluster.cluster``), everything through the balancer:

1. **Only the balancer reaches an app host**, and what it says of the client is what the app trusts: a
   connection to an app host from this machine fails; 22 unknown table codes from one address, each request with
   another forged ``X-Forwarded-For``, spread by the balancer over several hosts, are limited after 20 (the
   abuse limit ``code_miss``: one shared counter, keyed by the address the balancer saw); a second address is not.
2. **Tables set up and played as in ``manage.py chaos``** (``tools.chaos``: guests, ``/new/``, join by code,
   bots, start; phone-like HTTP clients posting moves with their own move ids, re-tapped on no answer), and for
   every table a board socket and a phone socket that never move (``tools.pushwatch.PushWatch``), which the
   balancer spreads over the hosts in turn. The game worker runs on every app host at once.
3. **A host is killed mid-game**: the one holding most of those sockets, every process of its namespace
   SIGKILLed and its link deleted at once (``Cluster.kill_host``). Its sockets are closed by the balancer once
   its health checks fail, and they reconnect through it to the other hosts.
4. **The checks**: every watcher knew its table's revision within one heartbeat (and grace) both before the kill
   and after it; each of the killed host's sockets connected again to another host (seconds, from the balancer's
   log); ``tools.chaos.analyse_log`` on the cluster's database: 0 acknowledged moves lost, 0 duplicates (the
   phones' and the bots' move ids: three workers deciding for one bot make one move), 0 misattributed, every game's
   replay equal to its stored state; bots and timers did move (so the three workers did run them).

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from typing import Any

from tools import pushwatch
from tools.chaos import (
    Browser,
    HumanClient,
    add_bot,
    attempts_as_dicts,
    create_table,
    format_report,
    parse_forms,
    percentile,
    scan_log,
    seat_count,
    sit_down,
    start_game,
    summarise,
    write_json,
)
from tools.cluster.cluster import (
    APP_PORT,
    BALANCER,
    BRIDGE,
    NET,
    PORT,
    Cluster,
    ClusterError,
    app_address,
    port_open,
    run,
)
from tools.pushwatch import HEARTBEAT_GRACE, PushWatch, fault_push_figures

# The first tables of ``manage.py chaos``'s mixed room (game, seats, phones), bots in the other seats; and a Coup
# table whose challenge windows are silent and close on the table's timer after TIMER seconds (one phone, three
# bots), so that the game workers expire windows all the time.
TIMER = 2
TABLE_GAMES = [("inside_job", 5, 2), ("coup", 4, 2), ("good_cop_bad_cop_health", 4, 2), ("coup-timed", 4, 1)]
HEARTBEAT = 15.0  # the app's (gameplay/live/consumers.py), not shortened here
DEFAULT_SECONDS = 60.0
LIMITED_AFTER = 20  # settings.RATELIMITS["code_miss"]: 20 a minute
SPOOFER, OTHER_PHONE = f"{NET}.3", f"{NET}.4"  # two more addresses of this machine on the bridge
LOG_LINE = re.compile(r"^(\d+)\.(\d+) (\S+):(\d+) (\w+)/(\S+) (-?\d+) \"(\w+) (\S+)")


def balancer_requests(log: str) -> list[dict[str, Any]]:
    """The balancer's request lines: when (the connection's accept time), client, backend, server, status, path."""
    found = []
    for line in log.splitlines():
        match = LOG_LINE.match(line)
        if match:
            seconds, millis, client, _port, backend, server, status, method, path = match.groups()
            found.append({"t": int(seconds) + int(millis) / 1000, "client": client, "backend": backend,
                          "server": server, "status": int(status), "method": method, "path": path})
    return found


def socket_landings(requests: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[float, str]]]:
    """(table code, view) -> [(when, app host)] of every socket the balancer handed to a host."""
    landed: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for r in requests:
        match = re.match(r"/ws/t/([A-Z0-9]+)/\?view=(\w+)", r["path"])
        if r["backend"] == "sockets" and match and r["server"].startswith("app"):
            landed[(match.group(1), match.group(2))].append((r["t"], r["server"]))
    return landed


def forged_address_check(cluster: Cluster) -> dict[str, Any]:
    """Step 1: the app hosts are out of reach but through the balancer; the limits count the balancer's address."""
    direct = {f"app{h}": port_open(app_address(h), APP_PORT, timeout=1.0) for h in range(1, cluster.hosts + 1)}
    for address in (SPOOFER, OTHER_PHONE):
        run("ip", "addr", "add", f"{address}/24", "dev", BRIDGE, check=False)

    def get(source: str, path: str, forged: str) -> int:
        conn = http.client.HTTPConnection(BALANCER, PORT, timeout=10, source_address=(source, 0))
        try:
            conn.request("GET", path, headers={"X-Forwarded-For": forged, "X-Forwarded-Proto": "https",
                                               "Forwarded": f"for={forged}"})
            return conn.getresponse().status
        finally:
            conn.close()

    tag = secrets.token_hex(3).upper()
    statuses = [get(SPOOFER, f"/find/?code=ZZ{tag}{i}", f"203.0.113.{i}") for i in range(LIMITED_AFTER + 2)]
    other = get(OTHER_PHONE, f"/find/?code=ZZ{tag}X", "203.0.113.1")
    served = sorted({r["server"] for r in balancer_requests(cluster.balancer_log()) if tag in r["path"]})
    passed = (not any(direct.values()) and all(s != 429 for s in statuses[:LIMITED_AFTER])
              and statuses[-1] == 429 and other != 429 and len(served) >= 2)
    return {"direct_connection_to_app_host": direct, "statuses": dict(Counter(map(str, statuses))),
            "last_status": statuses[-1], "other_address_status": other, "served_by": served, "passed": passed}


def create_timed_table(browser: Browser, engine: str) -> str:
    """``tools.chaos.create_table`` with the table's silent windows on and their timer at TIMER seconds (Coup)."""
    answer = browser.send("GET", f"/new/?engine={engine}")
    form = next((f for f in parse_forms(answer.body) if any(x.name == "engine" for x in f.fields)), None)
    if answer.status != 200 or form is None:
        raise ClusterError(f"no create form for {engine} (HTTP {answer.status})")
    silent, seconds = f"opt-{engine}-silent_windows", f"opt-{engine}-window_seconds"
    data = [(k, str(TIMER) if k == seconds else v) for k, v in form.defaults() if k != silent] + [(silent, "on")]
    answer = browser.send("POST", "/new/", data)
    found = re.search(r"/t/([A-Z0-9]+)/$", answer.url)
    if answer.status != 200 or not found:
        raise ClusterError(f"creating a timed {engine} table failed: HTTP {answer.status} at {answer.url}")
    return found.group(1)


def timer_expiries(database_url: str) -> dict[str, Any]:
    """The workers' window expiries (moves with no seat): how many, and the shortest time between two of one game.
    A window expired twice (two workers at once) would be two expiries a moment apart; one window's timer is TIMER
    seconds, so each game's expiries must lie at least about that far apart."""
    import psycopg

    with psycopg.connect(database_url, connect_timeout=5) as conn:
        rows = conn.execute("SELECT game_id, created FROM gameplay_move WHERE seat IS NULL ORDER BY game_id, seq"
                            ).fetchall()
    gaps = [(b[1] - a[1]).total_seconds() for a, b in zip(rows, rows[1:], strict=False) if a[0] == b[0]]
    shortest = min(gaps, default=None)
    return {"expiries": len(rows), "shortest_gap_s": None if shortest is None else round(shortest, 2),
            "passed": bool(rows) and (shortest is None or shortest >= TIMER - 0.5)}


def deploy_check(cluster: Cluster) -> dict[str, Any]:
    """``manage.py check --deploy --fail-level WARNING`` with the cluster's settings and HTTPS on (as behind a balancer
    that terminates TLS: ``DJANGO_HTTPS=1`` trusts X-Forwarded-Proto, which the balancer sets and never passes on)."""
    done = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          cwd=cluster.code, env={**cluster.app_env(), "DJANGO_HTTPS": "1"}, capture_output=True,
                          text=True, timeout=120)
    return {"passed": done.returncode == 0, "said": (done.stdout + done.stderr).strip()[-600:]}


def _state_after(cluster: Cluster, server: str, wanted: str, since: float, timeout: float) -> float | None:
    """Seconds from ``since`` until HAProxy reports ``server`` as ``wanted`` (None: not within ``timeout``)."""
    while time.time() < since + timeout:
        if cluster.server_states().get(server) == wanted:
            return round(time.time() - since, 2)
        time.sleep(0.1)
    return None


def database_loss(cluster: Cluster, host: int) -> dict[str, Any]:
    """A live host loses its route to the data host while its processes run: its health check (``/health/``)
    fails, HAProxy takes it out of rotation and leaves the other hosts in; with the route back, it returns."""
    server = f"app{host}"
    cut = time.time()
    cluster.cut_data_host(host)
    try:
        down_after = _state_after(cluster, server, "DOWN", cut, 20.0)
        others = {name: state for name, state in cluster.server_states().items() if name != server}
    finally:
        cluster.cut_data_host(host, cut=False)
    restored = time.time()
    up_after = _state_after(cluster, server, "UP", restored, 60.0)
    live_others = {name: state for name, state in others.items()
                   if int(name.removeprefix("app")) not in cluster.killed}
    passed = down_after is not None and up_after is not None and all(s == "UP" for s in live_others.values())
    return {"host": host, "down_after_s": down_after, "up_after_s": up_after, "others_while_cut": others,
            "passed": passed}


class ClusterCheck:
    """One run of the proof on a cluster that is up."""

    def __init__(self, cluster: Cluster, seconds: float, say=print) -> None:
        self.cluster, self.seconds, self.say = cluster, seconds, say
        self.seed = secrets.randbelow(10**6)
        self.tag = secrets.token_hex(2)
        self.stop = threading.Event()
        self.clients: list[HumanClient] = []
        self.tables: list[dict[str, Any]] = []
        self.watch: PushWatch | None = None
        self.t0 = self.t_end = 0.0

    def execute(self) -> dict[str, Any]:
        address = forged_address_check(self.cluster)
        self.say(f"check: balancer only: direct connection to an app host: {address['direct_connection_to_app_host']}; "
                 f"{LIMITED_AFTER + 2} unknown codes with forged addresses -> {address['statuses']} "
                 f"(served by {', '.join(address['served_by'])}); another address -> {address['other_address_status']}")
        address["check --deploy"] = deploy_check(self.cluster)
        self.say(f"check: check --deploy with the cluster's settings and HTTPS on: {address['check --deploy']['said']}")
        workers = {f"app{h}": self._workers(h) for h in range(1, self.cluster.hosts + 1)}
        self._setup()
        kill = self._play()
        run_record = self._record(kill)
        analysis = self._analyse(run_record)
        timers = timer_expiries(self.cluster.database_url)
        summary = summarise(run_record, analysis)
        report = format_report(run_record, analysis, summary)
        landings = socket_landings(balancer_requests(self.cluster.balancer_log()))
        lost = database_loss(self.cluster, next(h for h in range(1, self.cluster.hosts + 1)
                                                if f"app{h}" != kill["host"]))
        self.say(f"check: app{lost['host']} lost its route to the database and Redis: out of rotation after "
                 f"{lost['down_after_s']} s (the others {lost['others_while_cut']}); back {lost['up_after_s']} s "
                 f"after the route returned")
        address["database loss"] = lost
        figures = self._figures(kill, landings, run_record["push"], summary, analysis, address, workers,
                               timers)
        self.say(report.replace("2 daphne processes", f"{self.cluster.hosts} app hosts behind HAProxy"))
        return figures

    def _workers(self, host: int) -> int:
        count = 0
        for pid in self.cluster.host_pids(host):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    count += b"gameworker" in cmdline.read()
            except OSError:
                pass
        return count

    # ------------------------------------------------------------------ set-up and play

    def _browser(self) -> Browser:
        return Browser([PORT], 0, host=BALANCER)

    def _setup(self) -> None:
        rng = random.Random(self.seed)
        hosts = []
        for t, (game, players, humans) in enumerate(TABLE_GAMES):
            host = self._browser()
            names = [f"cl-t{t}-host"] + [f"cl-t{t}-p{h}" for h in range(1, humans)]
            sit_down(host, names[0])
            engine = game.removesuffix("-timed")
            code = create_timed_table(host, engine) if game.endswith("-timed") else create_table(host, engine)
            browsers = [host]
            for name in names[1:]:
                browser = self._browser()
                sit_down(browser, name, join=code)
                browsers.append(browser)
            for _ in range(players - humans):
                add_bot(host, code)
            if seat_count(host, code) != players:
                raise ClusterError(f"table {code} does not have {players} seats")
            self.tables.append({"code": code, "engine": game, "players": players, "clients": names})
            for h, (browser, name) in enumerate(zip(browsers, names, strict=True)):
                self.clients.append(HumanClient(
                    index=len(self.clients), nickname=name, code=code, browser=browser, is_host=h == 0,
                    stop=self.stop, until=0.0, rng=random.Random(rng.random()), id_prefix=f"cl{self.tag}"))
            hosts.append((host, code))
        for host, code in hosts:
            start_game(host, code)
        # PushWatch talks to tools.chaos.HOST (127.0.0.1) on the ports it is given: here, the balancer.
        pushwatch.HOST = BALANCER  # type: ignore[misc]
        last = {c.code: c for c in self.clients}  # a seated player's browser opens the phone socket, as a 2nd tab
        watched = [(t["code"], {c.name: c.value or "" for c in last[t["code"]].browser.jar}) for t in self.tables]
        self.watch = PushWatch([PORT], watched, self.cluster.database_url, lambda line: None)
        self.watch.start()
        self.watch.ready.wait(30)
        if self.watch.crash:
            raise ClusterError(f"the push watch failed to start: {self.watch.crash}")
        self.say(f"check: {len(self.tables)} tables ({', '.join(t['code'] + ' ' + t['engine'] for t in self.tables)}), "
                 f"{len(self.clients)} phone-like HTTP clients, a board and a phone socket per table watching")

    def _play(self) -> dict[str, Any]:
        self.t0 = time.time()
        self.t_end = self.t0 + self.seconds
        for client in self.clients:
            client.until = self.t_end
            client.start()
        # The kill comes once the sockets have settled and a heartbeat has been watched, leaving one heartbeat and
        # its grace, and more, to watch the recovery.
        kill_at = self.t0 + max(HEARTBEAT + 2.0, self.seconds - 2 * (HEARTBEAT + HEARTBEAT_GRACE))
        self.stop.wait(kill_at - time.time())
        log = self.cluster.balancer_log()
        now_on = Counter(entries[-1][1] for entries in socket_landings(balancer_requests(log)).values() if entries)
        victim = now_on.most_common(1)[0][0] if now_on else "app2"
        host = int(victim.removeprefix("app"))
        when, killed = self.cluster.kill_host(host)
        # Which sockets the kill cut is told by the balancer's log up to it (none of them can land again before
        # the health checks fail, seconds later): by place in the log, not by clock, which a fresh machine's
        # time service may step while the check runs.
        mark = len(self.cluster.balancer_log())
        self.say(f"check: t={when - self.t0:.1f} s: host {victim} killed ({killed} processes SIGKILLed, its link "
                 f"deleted); it held {now_on.get(victim, 0)} of the {sum(now_on.values())} watching sockets")
        self.stop.wait(self.t_end - time.time())
        self.stop.set()
        for client in self.clients:
            client.join(timeout=40)
        time.sleep(1.0)  # in-flight bot moves land
        assert self.watch is not None
        self.watch.finish()
        return {"name": f"host {victim} killed", "start": when, "end": when, "host": victim, "log_mark": mark,
                "detail": f"{killed} processes SIGKILLed and the link deleted at once; not restarted",
                "sockets_on_it": now_on.get(victim, 0)}

    # ------------------------------------------------------------------ after the run

    def _record(self, kill: dict[str, Any]) -> dict[str, Any]:
        errors: Counter[str] = Counter()
        gets: Counter[str] = Counter()
        host_actions: Counter[str] = Counter()
        incidents = []
        for client in self.clients:
            errors.update(client.errors)
            gets.update(client.gets)
            host_actions.update(client.host_actions)
            if client.crash:
                incidents.append(f"client {client.nickname} crashed: {client.crash.strip().splitlines()[-1]}")
        logs = {}
        for h in range(1, self.cluster.hosts + 1):
            for name in ("web0", "worker"):
                path = self.cluster.state / f"app{h}" / f"{name}.log"
                logs[f"app{h} {name}"] = {**scan_log(path), "path": str(path)}
        assert self.watch is not None
        watched = self.watch.result()
        limit = HEARTBEAT + HEARTBEAT_GRACE
        push = {**watched, "heartbeat_s": HEARTBEAT, "limit_s": limit,
                "faults": [fault_push_figures(watched, kill["end"], self.t_end, limit)],
                "before": fault_push_figures(watched, self.t0, kill["start"], limit)}
        record = {
            "tag": self.tag, "seed": self.seed, "t0": self.t0, "t_end": self.t_end, "seconds": self.seconds,
            "tables": self.tables, "faults": [kill], "attempts": attempts_as_dicts(self.clients),
            "gets": dict(gets), "get_times": [g for c in self.clients for g in c.get_times],
            "host_actions": dict(host_actions), "client_errors": dict(errors),
            "client_crashes": [c.crash for c in self.clients if c.crash], "incidents": incidents, "notes": [],
            "server_logs": logs, "logdir": str(self.cluster.state), "layout": "serve", "push": push,
        }
        write_json(self.cluster.state / "run.json", record)
        return record

    def _analyse(self, record: dict[str, Any]) -> dict[str, Any]:
        """``manage.py chaos --analyse`` on the cluster's database, in the cluster's copy of the code."""
        done = subprocess.run(
            [sys.executable, "manage.py", "chaos", "--analyse", str(self.cluster.state / "run.json")],
            cwd=self.cluster.code, env=self.cluster.app_env(), capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise ClusterError(f"the analysis failed: {done.stderr.strip()[-1500:]}")
        return dict(json.loads((self.cluster.state / "analysis.json").read_text()))

    def _figures(self, kill: dict[str, Any], landings: dict[tuple[str, str], list[tuple[float, str]]],
                 push: dict[str, Any], summary: dict[str, Any], analysis: dict[str, Any],
                 address: dict[str, Any], workers: dict[str, int], timers: dict[str, Any]) -> dict[str, Any]:
        victim, when = kill["host"], kill["start"]
        tables_across = sorted(code for code in {c for c, _ in landings}
                               if len({entries[0][1] for (c, _), entries in landings.items() if c == code}) > 1)
        log = self.cluster.balancer_log()
        after_kill = socket_landings(balancer_requests(log[kill["log_mark"]:]))
        back: dict[str, float | None] = {}
        for (code, view), entries in socket_landings(balancer_requests(log[:kill["log_mark"]])).items():
            if entries[-1][1] == victim:
                later = [t for t, server in after_kill.get((code, view), []) if server != victim]
                back[f"{code} {view}"] = round(min(later) - when, 2) if later else None
        back_times = [v for v in back.values() if v is not None]
        after, before = push["faults"][0], push["before"]
        by_kind = analysis["moves_by_kind"]
        checks = {
            "balancer only (forged addresses ignored, limits shared)": address["passed"],
            "a table's board and phone sockets on different hosts": bool(tables_across),
            "every screen within a heartbeat before the kill": before["passed"],
            "every screen caught up within a heartbeat after the kill": after["passed"],
            "every socket of the killed host back on another host": bool(back) and len(back_times) == len(back),
            "check --deploy clean with the cluster's settings (HTTPS on)": address["check --deploy"]["passed"],
            "a host that lost the database out of rotation, the others not, and back with it":
                address["database loss"]["passed"],
            "game workers running on every host": all(n >= 1 for n in workers.values()),
            "bots moved": by_kind.get("bots", 0) > 0,
            f"windows expired by the workers, each once ({TIMER} s apart at least)": timers["passed"],
            "0 lost, 0 duplicated, 0 misattributed, replay = stored state": summary["verdict"] == "PASS",
        }
        figures = {
            "verdict": "PASS" if all(checks.values()) else "FAIL",
            "checks": checks,
            "hosts": self.cluster.hosts,
            "seconds": self.seconds,
            "tables": len(self.tables),
            "killed_host": victim,
            "killed_at_s": round(when - self.t0, 1),
            "sockets_of_killed_host_back_after_s": back,
            "sockets_back_worst_s": max(back_times, default=None),
            "sockets_back_p50_s": percentile(back_times, 0.5) if back_times else None,
            "screens_caught_up_after_kill_s": after["caught_up_worst_s"],
            "worst_behind_after_kill_s": after["worst_behind_after_s"],
            "worst_behind_before_kill_s": before["worst_behind_after_s"],
            "push_limit_s": after["limit_s"],
            "tables_with_sockets_on_two_hosts": tables_across,
            "socket_hosts": {f"{c} {v}": [s for _, s in entries] for (c, v), entries in sorted(landings.items())},
            "workers": workers,
            "timer_expiries": timers,
            "moves_played": analysis["moves"],
            "moves_by_kind": by_kind,
            "human_moves_acknowledged": summary["human_moves_acknowledged"],
            "moves_lost": summary["moves_lost"],
            "duplicates": summary["duplicates"],
            "misattributed": summary["misattributed"],
            "replay_ok": summary["replay_ok"],
            "replay_failed": summary["replay_failed"],
            "http_move_posts": summary["http_move_posts"],
            "address_check": address,
            "server_tracebacks": summary["server_tracebacks"],
        }
        return figures


def format_figures(figures: dict[str, Any]) -> str:
    lines = [f"==== cluster check: {figures['hosts']} app hosts behind HAProxy, {figures['tables']} tables, "
             f"{figures['seconds']:g} s; host {figures['killed_host']} killed at t={figures['killed_at_s']} s ===="]
    for name, passed in figures["checks"].items():
        lines.append(f"  {'PASS' if passed else 'FAIL'}  {name}")
    back = figures["sockets_of_killed_host_back_after_s"]
    lines.append(f"sockets of the killed host back on another host after: {back} "
                 f"(worst {figures['sockets_back_worst_s']} s); the longest any screen was behind its table: "
                 f"{figures['worst_behind_before_kill_s']} s before the kill, {figures['worst_behind_after_kill_s']} s "
                 f"after it (limit: a heartbeat and its grace, {figures['push_limit_s']:g} s)")
    lost = figures["address_check"]["database loss"]
    lines.append(f"app{lost['host']} without the database: out of rotation after {lost['down_after_s']} s, back "
                 f"{lost['up_after_s']} s after it had it again")
    lines.append(f"moves {figures['moves_played']} {figures['moves_by_kind']}; lost {figures['moves_lost']}, "
                 f"duplicates {figures['duplicates']}, replay ok {figures['replay_ok']} "
                 f"failed {figures['replay_failed']}")
    lines.append(f"verdict {figures['verdict']}")
    return "\n".join(lines)


def check_main(seconds: float | None = None, hosts: int = 3) -> int:
    cluster = Cluster(hosts=hosts, processes=1)
    started = time.time()
    try:
        cluster.up()
        figures = ClusterCheck(cluster, seconds or DEFAULT_SECONDS).execute()
    finally:
        cluster.down()
    figures["wall_seconds"] = round(time.time() - started, 1)
    print(format_figures(figures), flush=True)
    print(json.dumps(figures, sort_keys=True, default=str), flush=True)
    return 0 if figures["verdict"] == "PASS" else 1
