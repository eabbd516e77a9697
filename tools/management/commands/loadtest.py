"""Phone-like load on a running server: guests, sockets, htmx refetches, moves; figures people would feel.

    manage.py loadtest --url http://127.0.0.1:8000 [--tables 1] [--duration 30] [--think 2]
                       [--phones N] [--engine inside_job] [--server-pid PID ...] [--warmup 0] [--seed S]

It starts nothing: start the server first (with ``DJANGO_RATELIMIT=0``: hundreds of guests from one
address would hit the abuse limits). The logic is ``tools.loadtest``; progress goes to stderr,
the summary to stdout, and stdout's last line is one JSON object with every figure.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tools.chaos import SetupError
from tools.loadtest import Options, check_options, format_summary, idle_sockets, run


class Command(BaseCommand):
    help = ("Load a running server like real phones (own sessions, table sockets, htmx refetches, a board "
            "per table) and report tap → every screen p50/p95/p99/max, moves/s, errors and server CPU.")
    requires_system_checks: list[str] = []  # it talks HTTP to another process; nothing here to check

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="the running server (http://host:port)")
        parser.add_argument("--tables", type=int, default=1, help="tables, each with its phones and a board")
        parser.add_argument("--duration", type=float, default=30.0, help="seconds measured (after --warmup)")
        parser.add_argument("--think", type=float, default=2.0, help="~seconds between moves at a table (jittered)")
        parser.add_argument("--phones", type=int, default=None,
                            help="players (phones) per table; default 5, 6, 7 in turn over the tables")
        parser.add_argument("--engine", default="inside_job", help="the game every table plays")
        parser.add_argument("--server-pid", type=int, action="append", default=[], dest="server_pids",
                            help="a server process to measure (repeatable); default: every process listening "
                                 "on the URL's port")
        parser.add_argument("--warmup", type=float, default=0.0, help="seconds of play before measuring")
        parser.add_argument("--seed", type=int, default=None, help="seed of the drivers' choices")
        parser.add_argument("--setup-threads", type=int, default=16, help="parallel HTTP clients during setup")
        parser.add_argument("--pull", action="store_true",
                            help="sockets carry numbers only and every screen refetches its partial "
                                 "(the protocol before partials came in push frames), to compare the two")
        parser.add_argument("--post-moves", action="store_true",
                            help="moves as htmx POSTs even while the socket is open (the page sends them over "
                                 "its socket), to compare the two")
        parser.add_argument("--idle-sockets", type=int, default=0,
                            help="instead of playing: open this many idle sockets and print the server's KB per socket")

    def handle(self, *args, **options):
        chosen = Options(
            url=options["url"], tables=options["tables"], duration=options["duration"], think=options["think"],
            phones=options["phones"], engine=options["engine"], server_pids=options["server_pids"],
            warmup=options["warmup"], seed=options["seed"], setup_threads=max(1, options["setup_threads"]),
            pull=options["pull"], post_moves=options["post_moves"],
        )
        try:
            check_options(chosen)
            if options["idle_sockets"] > 0:
                idle = idle_sockets(chosen, options["idle_sockets"], say=lambda line: self.stderr.write(line))
                self.stdout.write(f"{idle['idle_sockets']} idle sockets ({idle['alive_at_end']} alive at the end): "
                                  f"server RSS {idle['server_rss_mb_before']} -> {idle['server_rss_mb_after']} MB, "
                                  f"{idle['kb_per_idle_socket']} KB per socket")
                self.stdout.write(json.dumps(idle, sort_keys=True))
                return
            figures = run(chosen, say=lambda line: self.stderr.write(line))
        except (ValueError, SetupError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(format_summary(figures))
        self.stdout.write(json.dumps(figures, sort_keys=True))
