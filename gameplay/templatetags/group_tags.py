"""``{% night_scoreboard table %}``: tonight's running scoreboard of a table, for the board between games.

Read from finished games only (their outcomes), so it shows nothing of a running game.
"""

from __future__ import annotations

from django import template
from django.utils import timezone
from django.utils.translation import gettext

from engines.registry import ENGINES
from gameplay.stats import table_night

register = template.Library()


@register.inclusion_tag("groups/_night_scoreboard.html")
def night_scoreboard(table) -> dict:
    """Wins per player (by seat name) and per team over the table's games tonight; empty before the second game."""
    night = table_night(table.pk, timezone.now())
    if night is None or len(night.games) < 2:
        return {"night": None}
    wins: dict[str, list[int]] = {}
    for record in night.games:
        for seat, name in enumerate(record.names):
            row = wins.setdefault(name, [0, 0])
            row[0] += seat in record.winners
            row[1] += 1
    ordered = sorted(wins.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
    rows = [{"name": name, "wins": won, "played": played} for name, (won, played) in ordered]
    teams = [{"title": gettext(ENGINES[e].title) if e in ENGINES else e, "team": t, "wins": n}
             for (e, t), n in sorted(night.teams().items())]
    return {"night": night, "games": len(night.games), "rows": rows, "teams": teams}
