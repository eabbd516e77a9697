"""Write the balance figures (docs/balance.md): heuristic vs random, and team balance, per game and count."""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from engines.registry import ENGINES
from engines.simulate import simulate, team_versus


class Command(BaseCommand):
    help = "Simulate every game at every player count and write docs/balance.md."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=200)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--output", default=str(Path(settings.BASE_DIR) / "docs" / "balance.md"))

    def handle(self, *args, games: int, seed: int, output: str, **options):
        lines = [
            "# Balance figures",
            "",
            f"Made by `python manage.py balance --games {games} --seed {seed}` (engine-only bot games).",
            "",
            "- **mixed**: seats alternate heuristic and random bots, so both policies play every role; the",
            "  columns give the win rate of the seats each policy played. The heuristic must clearly win.",
            "- **all heuristic**: every seat is the heuristic bot; the win rate of each team (or, in a",
            "  game without teams, of the best and worst seat).",
            "- **team vs team** (games with teams): a team's win rate when every seat plays random, when",
            "  the team plays heuristic against random opponents, and when it plays random against",
            "  heuristic opponents. Teams are the seats' teams at the deal.",
            "",
        ]
        for name, engine in sorted(ENGINES.items()):
            lines += [f"## {engine.title}", "",
                      "| players | mixed: heuristic | mixed: random | all heuristic: teams | moves | games/s |",
                      "|---|---|---|---|---|---|"]
            for players in range(engine.min_players, engine.max_players + 1):
                opts = engine.default_options()
                mixed = ["heuristic" if seat % 2 == 0 else "random" for seat in range(players)]
                started = time.perf_counter()
                m = simulate(engine, players, opts, games, mixed, seed)
                h = simulate(engine, players, opts, games, ["heuristic"] * players, seed)
                speed = 2 * games / (time.perf_counter() - started)
                if any(not team.startswith("seat") for team in h["team_win_rate"]):
                    teams = ", ".join(f"{t} {r:.0%}" for t, r in h["team_win_rate"].items())
                else:
                    rates = h["seat_win_rate"]
                    teams = f"seats {min(rates):.0%}–{max(rates):.0%}"
                lines.append(
                    f"| {players} | {m['policy_win_rate']['heuristic']:.0%} | {m['policy_win_rate']['random']:.0%} "
                    f"| {teams} | {h['average_moves']:.0f} | {speed:.0f} |"
                )
                self.stdout.write(f"{name} {players}: done")
            lines.append("")
            if engine.team_key is not None:
                lines += ["| players | team | all random | heuristic vs random | random vs heuristic |",
                          "|---|---|---|---|---|"]
                for players in range(engine.min_players, engine.max_players + 1):
                    versus = team_versus(engine, players, engine.default_options(), max(games // 2, 1), seed)
                    for team, rates in sorted(versus.items()):
                        lines.append(f"| {players} | {team} | {rates['random']:.0%} | {rates['heuristic']:.0%} "
                                     f"| {rates['outplayed']:.0%} |")
                    self.stdout.write(f"{name} {players}: teams done")
                lines.append("")
        path = Path(output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines))
        self.stdout.write(f"wrote {path}")
