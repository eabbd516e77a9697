"""Who is at the table right now: a seat is present while its phone has a socket or asked lately.

Each phone page, move and revision poll marks its browser present at the table, and so does
each socket heartbeat (every ``gameplay.live.consumers.HEARTBEAT_SECONDS``) while the socket is
open. A browser is its player and the seats handed to it by a seat link (device tokens in
its session). Marks live in the cache (Redis when several processes serve, so they share
them): a seat not marked for ``PRESENT_SECONDS`` shows as asleep, and after ``GONE_SECONDS``
the host may make a rescue link for it.
"""

from __future__ import annotations

import time

from django.core.cache import cache

from gameplay.seats import game_seats
from infra.resilience import cache_guard

PRESENT_SECONDS = 30
GONE_SECONDS = 60
_KEEP_SECONDS = 600


def _keys(table_id: int, player_id: int | None, devices) -> list[str]:
    keys = [f"presence:{table_id}:p{player_id}"] if player_id is not None else []
    return keys + [f"presence:{table_id}:d{token}" for token in devices or ()]


def _seat_key(table_id: int, seat) -> str:
    """A game seat is its handed-over device's, or else its player's."""
    return f"presence:{table_id}:d{seat.device}" if seat.device else f"presence:{table_id}:p{seat.player_id}"


def seen(table_id: int, player_id: int | None, devices=()) -> None:
    """Mark this browser (its player, its handed-over seats' device tokens) present now."""
    seen_all(marks(table_id, player_id, devices))


def marks(table_id: int, player_id: int | None, devices=()) -> dict[str, float]:
    """The marks that say this browser is present now (for :func:`seen_all`)."""
    return dict.fromkeys(_keys(table_id, player_id, devices), time.time())


def seen_all(made: dict[str, float]) -> None:
    """Mark many browsers present at once (one cache call: the sockets of a process, at each heartbeat)."""
    if made:
        cache_guard(lambda: cache.set_many(made, timeout=_KEEP_SECONDS), None, "presence mark")


def quiet_for(game, table_id: int) -> dict[int, float] | None:
    """Seconds since each human seat of ``game`` was last seen (inf: not lately), one cache read.

    None while the cache is down: presence is unknown then.
    """
    humans = [s for s in game_seats(game) if not s.bot and (s.player_id is not None or s.device)]
    # While the cache is down presence is unknown: nobody is called asleep.
    found = cache_guard(lambda: cache.get_many([_seat_key(table_id, s) for s in humans]), None, "presence read")
    if found is None:
        return None
    now = time.time()
    return {s.index: now - found[_seat_key(table_id, s)] if _seat_key(table_id, s) in found else float("inf")
            for s in humans}


def asleep_seats(game, table_id: int) -> list[int]:
    """The game's seats played by a person whose phone has not been seen lately."""
    quiet = quiet_for(game, table_id)
    return sorted(index for index, seconds in (quiet or {}).items() if seconds > PRESENT_SECONDS)
