"""The load tool through the balancer at 1, 2 and 3 app hosts (``make cluster-figures``, docs/deploy.md).

For each host count: a fresh cluster (``tools.cluster.cluster``, abuse limits off: every guest of the load tool
comes from this machine's one address), then ``manage.py loadtest`` against the balancer with every app host's
processes as the measured server (daphne, the game worker, supervisor), then the cluster is removed. All hosts
share this machine's cores, so more hosts cannot mean more throughput here: what the figures show is that nothing
is lost and that the app's CPU per move does not grow with the hosts. The data host's (PostgreSQL, Redis) and the
balancer's CPU is measured over the whole run (set-up included) and given per accepted move too. Each host costs
some CPU at rest (the balancer's health check every second, the game worker's two queries twice a second), measured
for 20 s before the load and shown apart: at a few moves a second it is a large part of the total.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from tools.cluster.cluster import PREFIX, ROOT, Cluster, netns_pids
from tools.loadtest import cpu_seconds

IDLE_SECONDS = 20.0


def layout(spec: str) -> tuple[int, int, str]:
    """"3" -> (3 hosts, 1 process, roundrobin); "1x3" -> (1, 3, ...); "3/table" -> (3, 1, table)."""
    shape, _, balance = spec.partition("/")
    hosts, _, processes = shape.partition("x")
    return int(hosts), int(processes or 1), balance or "roundrobin"


def one(spec: str, seconds: float, tables: int) -> dict[str, Any]:
    hosts, processes, balance = layout(spec)
    cluster = Cluster(hosts=hosts, processes=processes, extra_env={"DJANGO_RATELIMIT": "0"}, socket_balance=balance)
    try:
        cluster.up()
        app = [pid for h in range(1, hosts + 1) for pid in cluster.host_pids(h)]
        # At rest first: what the hosts cost with no game (the balancer's health checks, the workers' ticks).
        time.sleep(5)
        rest_before, rest_started = sum(cpu_seconds(app).values()), time.time()
        time.sleep(IDLE_SECONDS)
        idle_pct = 100 * (sum(cpu_seconds(app).values()) - rest_before) / (time.time() - rest_started)
        others = netns_pids(f"{PREFIX}data") + netns_pids(f"{PREFIX}lb")
        before = sum(cpu_seconds(others).values())
        command = [sys.executable, "manage.py", "loadtest", "--url", cluster.url, "--tables", str(tables),
                   "--duration", str(seconds), "--warmup", "5", "--seed", "7",
                   *[arg for pid in app for arg in ("--server-pid", str(pid))]]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=seconds + 300)
        after = sum(cpu_seconds(others).values())
        if done.returncode:
            raise RuntimeError(f"loadtest failed: {done.stderr.strip()[-800:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        cluster.down()
    moves = max(1, figures["moves_accepted"])
    app_cpu = (figures["server_cpu_pct"] or 0.0) / 100 * figures["duration_s"]
    return {
        "layout": spec,
        "hosts": hosts,
        "processes_per_host": processes,
        "socket_balance": balance,
        "moves_accepted": figures["moves_accepted"],
        "moves_per_s": figures["moves_per_s"],
        "errors_total": figures["errors_total"],
        "errors": figures["errors"],
        "sockets_open_at_end": figures["sockets_open_at_end"],
        "screens": figures["screens"],
        "tap_every_screen_p50_ms": figures["tap_every_screen_p50_ms"],
        "tap_every_screen_p95_ms": figures["tap_every_screen_p95_ms"],
        "app_cpu_pct": figures["server_cpu_pct"],
        "app_cpu_ms_per_move": round(1000 * app_cpu / moves, 1),
        "app_idle_cpu_pct": round(idle_pct, 2),
        # The CPU the moves cost: the run's, less what the hosts cost at rest over as long.
        "app_cpu_ms_per_move_above_idle": round(1000 * (app_cpu - idle_pct / 100 * figures["duration_s"]) / moves, 1),
        "data_and_balancer_cpu_ms_per_move": round(1000 * (after - before) / moves, 1),
        "app_rss_mb": figures["server_rss_mb"],
    }


def figures_main(specs: list[str], seconds: float = 60.0, tables: int = 4) -> int:
    rows = []
    for spec in specs:
        hosts, processes, balance = layout(spec)
        print(f"figures: {hosts} app host(s) x {processes} daphne, sockets {balance}, {tables} tables, {seconds:g} s "
              "measured", flush=True)
        rows.append(one(spec, seconds, tables))
        print(json.dumps(rows[-1], sort_keys=True), flush=True)
    print("| app hosts x daphnes (sockets) | moves accepted | moves/s | errors | sockets open at end "
          "| tap → every screen p50 / p95 | app hosts' CPU at rest | app CPU ms per move | of which above rest "
          "| data + balancer CPU ms per move |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['hosts']} x {r['processes_per_host']} ({r['socket_balance']}) | {r['moves_accepted']} | "
              f"{r['moves_per_s']} | {r['errors_total']} | "
              f"{r['sockets_open_at_end']} of {r['screens']} | {r['tap_every_screen_p50_ms']} / "
              f"{r['tap_every_screen_p95_ms']} ms | {r['app_idle_cpu_pct']}% of a core | {r['app_cpu_ms_per_move']} | "
              f"{r['app_cpu_ms_per_move_above_idle']} | "
              f"{r['data_and_balancer_cpu_ms_per_move']} |")
    return 0 if all(r["errors_total"] == 0 for r in rows) else 1
