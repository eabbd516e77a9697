"""Who is at the table right now: a seat is present while its phone has a socket or asked lately.

Each phone page, move and revision poll marks its player present at the table, and so does
each socket heartbeat (every ``gameplay.consumers.HEARTBEAT_SECONDS``) while the socket is
open. Marks live in the cache (Redis when several processes serve, so they share them) and
fade after ``PRESENT_SECONDS``: a phone that slept or left shows up as asleep on the board
and the phones, and the host is offered a bot for it.
"""

from __future__ import annotations

from django.core.cache import cache

PRESENT_SECONDS = 30


def _key(table_id: int, player_id: int) -> str:
    return f"presence:{table_id}:{player_id}"


def seen(table_id: int, player_id: int) -> None:
    """Mark the player present at the table for the next ``PRESENT_SECONDS``."""
    cache.set(_key(table_id, player_id), 1, timeout=PRESENT_SECONDS)


async def aseen(table_id: int, player_id: int) -> None:
    """``seen`` for the socket consumer."""
    await cache.aset(_key(table_id, player_id), 1, timeout=PRESENT_SECONDS)


def present(table_id: int, player_ids: list[int]) -> set[int]:
    """The players among ``player_ids`` seen at the table lately (one cache read)."""
    if not player_ids:
        return set()
    found = cache.get_many([_key(table_id, pid) for pid in player_ids])
    return {pid for pid in player_ids if _key(table_id, pid) in found}


def asleep_seats(game, table_id: int) -> list[int]:
    """The game's seats played by a person whose phone has not been seen lately."""
    humans = [(s.index, s.player_id) for s in game.seats.all() if not s.bot and s.player_id is not None]
    here = present(table_id, [pid for _, pid in humans])
    return [index for index, pid in humans if pid not in here]
