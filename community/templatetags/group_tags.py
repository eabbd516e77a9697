"""Game-night tags for the board and the host's controls (``community.nights``).

``night_scoreboard(table, game)``: the values of the running scoreboard of the table's game night, which the
board draws between games (``groups/_night_scoreboard.jinja``: the open night; after the host ends it, its final
scoreboard until the next game is dealt). ``{% open_night table as night %}``: the table's open night, for the
host's controls. ``{% player_nights player as found %}``: their latest nights, for links from their history.
All of them read finished games' outcomes only, so nothing of a running game shows.
"""

from __future__ import annotations

from django import template

from community import nights
from gameplay.models import GameNight

register = template.Library()


def _code(table) -> str:
    """A table's code, from the pages' ``table`` dict (``lobby.context.table_info``) or a Table row."""
    return str(table["code"] if isinstance(table, dict) else table.code)


def night_scoreboard(table, game=None) -> dict:
    """The night's figures between games: wins and games per player (by seat name), wins per team
    per game system, the leaders; nothing when the table runs no night (``game``: the latest game's
    public info, whose start after a night's end takes that night's final scoreboard down)."""
    code = _code(table)
    latest = game.get("created") if isinstance(game, dict) else getattr(game, "created", None)
    night = nights.board_night(code=code, latest_created=latest)
    if night is None:
        return {"night": None}
    board = nights.scoreboard(nights.night_records(night))
    return {
        "night": night, "board": board, "leaders": board.leader_names,
        "summary_url": None if night.is_open else nights.summary_url(night, code),
    }


@register.simple_tag
def open_night(table) -> GameNight | None:
    """The table's open game night, or None (one query)."""
    return nights.open_night(code=_code(table))


@register.simple_tag
def player_nights(player) -> list[GameNight]:
    """The latest game nights of ``player`` (started by them, or with a game they sat at)."""
    return nights.player_nights(player)
