"""Engine-only games between bots: win rates by team and by seat, game length, games per second."""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from engines.base import OptionError
from engines.registry import ENGINES
from engines.simulate import parse_option, simulate


class Command(BaseCommand):
    help = "Run bot-only games of one engine and print win rates, average length and speed (last line: JSON)."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=sorted(ENGINES))
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--games", type=int, default=100)
        parser.add_argument("--bot", default="heuristic",
                            help="heuristic, random, or a comma list by seat (e.g. heuristic,random,...)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")

    def handle(self, *args, **opts):
        engine = ENGINES[opts["game"]]
        if opts["games"] < 1:
            raise CommandError("--games must be at least 1")
        try:
            options = dict(parse_option(engine, raw) for raw in opts["option"])
            options = engine.validate_options(options, opts["players"])
            engine.check_players(opts["players"])
        except (OptionError, ValueError) as error:
            raise CommandError(str(error)) from error
        bots = opts["bot"].split(",")
        if len(bots) == 1:
            bots = bots * opts["players"]
        if len(bots) != opts["players"] or any(b not in ("heuristic", "random") for b in bots):
            raise CommandError("--bot is heuristic, random, or one of them per seat")
        started = time.perf_counter()
        report = simulate(engine, opts["players"], options, opts["games"], bots, opts["seed"])
        report["seconds"] = round(time.perf_counter() - started, 3)
        report["games_per_second"] = round(opts["games"] / max(report["seconds"], 1e-9), 1)
        self.stdout.write(f"{engine.title}: {opts['games']} games, {opts['players']} players, bots {opts['bot']}")
        for team, rate in sorted(report["team_win_rate"].items()):
            self.stdout.write(f"  team {team}: {rate:.1%}")
        for seat, rate in enumerate(report["seat_win_rate"]):
            self.stdout.write(f"  seat {seat + 1} ({bots[seat]}): {rate:.1%}")
        self.stdout.write(f"  average length: {report['average_moves']:.1f} moves")
        self.stdout.write(f"  speed: {report['games_per_second']} games/s")
        self.stdout.write(json.dumps(report, sort_keys=True))
