"""``python -m tools.cluster up | down | check | figures``: the cluster of test hosts (``tools.cluster.cluster``),
its proof (``tools.cluster.check``) and its figures (``tools.cluster.figures``) from the command line."""

from __future__ import annotations

import argparse
import signal
import sys
import time

from tools.cluster.check import check_main
from tools.cluster.cluster import Cluster, ClusterError, _interrupt, down, hold_lock, require_root
from tools.cluster.figures import figures_main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cluster", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start the cluster and wait; Ctrl-C (or SIGTERM) stops it and cleans up")
    up.add_argument("--hosts", type=int, default=3, help="app hosts (1-8)")
    up.add_argument("--processes", type=int, default=1, help="daphne processes per app host (SERVE_PROCESSES)")
    sub.add_parser("down", help="remove whatever a cluster left (namespaces, links, processes)")
    check = sub.add_parser("check", help="the proof: a game across hosts, a host killed mid-game (make cluster-check)")
    figures = sub.add_parser("figures", help="the load tool through the balancer at 1, 2 and 3 app hosts")
    for sub_parser in (check, figures):
        sub_parser.add_argument("--seconds", type=float, default=0, help="seconds of play (default: the command's)")
    figures.add_argument("--tables", type=int, default=4)
    figures.add_argument("--hosts", default="1,2,3",
                         help="the layouts to run, comma-separated: H (app hosts), HxP (P daphne processes each), "
                              "and /table after either: a table's sockets hashed onto one host (HAProxy balance uri)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.command == "down":
            require_root()
            lock = hold_lock(wait=0.0)
            try:
                down()
            finally:
                lock.close()
            return 0
        if args.command == "check":
            return check_main(seconds=args.seconds or None)
        if args.command == "figures":
            return figures_main(args.hosts.split(","), seconds=args.seconds or 60.0, tables=args.tables)
        cluster = Cluster(hosts=args.hosts, processes=args.processes)
        try:
            cluster.up()
            print(f"cluster: open {cluster.url}/ from this machine; Ctrl-C stops it", flush=True)
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            cluster.down()
        return 0
    except ClusterError as error:
        print(f"cluster: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cluster: interrupted; the cluster was removed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
