"""Fair deals: over a group's games, nobody is dealt the minority role far more often than chance.

The minority role is each game's own (``minority`` and ``is_minority``, from its presentation.py, which
says which role it is). In a game without one (no ``minority``) every candidate weighs the same, so the
option changes nothing but which ordinary random deal is made.

The method (a choice among candidate deals, all made from the game's seed):

1. From the public history the table passes ``options["fair_deal"] = {"excess": [x per seat]}``:
   for the player in each seat, how many more times than chance they were dealt the minority role
   in the group's finished games (dealt minus expected; the roles were revealed at each game's end).
2. ``CANDIDATES`` deals are made exactly as a plain deal is, each from its own seed
   ``sha256(seed, "fair", k)``. Each is an ordinary random deal.
3. A seat's weight is ``2 ** (LIMIT - e)`` with ``e`` its excess rounded and clamped to
   ``[-LIMIT, LIMIT]``; a candidate's weight is the product of the weights of its minority seats.
   One candidate is drawn with those weights (integers: the same draw on every machine) by a
   generator seeded from ``sha256(seed, "fair")``, and that deal is the game's.

So the deal is a function of the seed and the public history alone: after the game, anyone with
the revealed seed and the history re-runs ``setup`` and gets the same deal (the published seed
hash still commits to it). Someone overdue is more likely, not certain, to be dealt the minority
role, and someone ahead less likely, never excluded: the seed is secret until the end, so the
deal stays unpredictable (tests/gameplay/test_stats.py checks both over thousands of deals).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

# Self-contained (hashlib only): engines.base calls it from ``setup``, so it must not import base back.

# The options key the table sets (not a table option: no form shows it).
KEY = "fair_deal"
CANDIDATES = 4
LIMIT = 3


def minority_seats(engine: Any, state: Any) -> set[int]:
    """The seats dealt the minority role, read from each seat's own view (the engine's public contract:
    ``engine.is_minority``, for a game that names a ``minority``)."""
    if engine.minority is None:
        return set()
    return {seat for seat in range(engine.seat_count(state)) if engine.is_minority(engine.view(state, seat), seat)}


def check(value: Any, players: int | None) -> dict[str, Any]:
    """The ``fair_deal`` option checked: ``{"excess": [finite numbers, one per seat]}``; raises ValueError."""
    if not isinstance(value, dict) or set(value) != {"excess"} or not isinstance(value["excess"], list):
        raise ValueError("fair_deal: {\"excess\": [a number per seat]}")
    excess = value["excess"]
    if players is not None and len(excess) != players:
        raise ValueError("fair_deal: one excess per seat")
    for x in excess:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x) or abs(x) > 10_000:
            raise ValueError("fair_deal: each excess is a finite number")
    return {"excess": list(excess)}


def _derived(seed: int, *parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, (seed, "fair", *parts))).encode()).digest()[:16], "big")


def seat_weight(excess: float) -> int:
    """``2 ** (LIMIT - e)``, ``e`` the excess rounded and clamped to [-LIMIT, LIMIT] (an integer)."""
    e = max(-LIMIT, min(LIMIT, round(excess)))
    return 1 << (LIMIT - e)


def _randbelow(seed: int, n: int) -> int:
    """A uniform integer in [0, n) from sha256 blocks of ``seed`` (the engines' counter-based way, no modulo bias)."""
    limit = (1 << 256) - ((1 << 256) % n)
    counter = 0
    while True:
        value = int.from_bytes(hashlib.sha256(f"{seed}:{counter}".encode()).digest(), "big")
        counter += 1
        if value < limit:
            return value % n


def fair_setup(engine: Any, players: int, options: dict[str, Any], seed: int, fair: dict[str, Any]) -> Any:
    """The deal chosen among CANDIDATES plain deals of derived seeds, weighted against the overdue (see above)."""
    excess = fair["excess"]
    candidates = [engine._setup(players, options, _derived(seed, k)) for k in range(CANDIDATES)]
    weights = [math.prod(seat_weight(excess[s]) for s in minority_seats(engine, state)) for state in candidates]
    pick = _randbelow(_derived(seed), sum(weights))
    for state, weight in zip(candidates, weights, strict=True):
        if pick < weight:
            return state
        pick -= weight
    raise AssertionError("unreachable: pick < sum(weights)")
