"""The state helpers both the rules and the equipment cards use: the frame stack, the log, what seats learn.

Nothing here imports another module of the package but ``cards``, so ``equipment``, ``legal`` and
``rules`` can all build on it without an import cycle.
"""

from __future__ import annotations

from typing import Any, cast

from engines.base import clone

from .cards import Frame, GameState, Kind, Player


def log(state: GameState, event: str, **params: Any) -> None:
    """Append a public structured log entry."""
    state["log"].append({"event": event, **params})


def tell(state: GameState, event: str, seat: int, **params: Any) -> None:
    """Append a private log entry about ``seat`` that only ``seat`` sees (``"to"``: base.visible_log)."""
    state["log"].append({"event": event, "seat": seat, **params, "private": True, "to": seat})


def push(state: GameState, kind: Kind, **data: Any) -> Frame:
    """Push a new frame with a fresh id (window ids must never repeat)."""
    state["frames"] += 1
    frame = cast(Frame, {"kind": kind, "id": state["frames"], **data})
    state["stack"].append(frame)
    return frame


def top(state: GameState) -> Frame | None:
    """The frame waiting for an answer, or None."""
    return state["stack"][-1] if state["stack"] else None


def living(state: GameState) -> list[int]:
    """Seats still in the game."""
    return [s for s, p in enumerate(state["players"]) if p["alive"]]


def others(state: GameState, seat: int) -> list[int]:
    """Living seats other than ``seat`` (whom it may aim at, investigate, target)."""
    return [s for s in living(state) if s != seat]


def rules_version(state: GameState) -> int:
    """The rules version the game was dealt under (``cards.RULES_VERSIONS``); a state naming none is version 1."""
    return state["options"].get("rules_version", 1)  # cards.RULES


def aim_choice(state: GameState, seat: int) -> bool:
    """Whether an aim step holds a choice for ``seat``: a gun, and two or more players to aim at."""
    return state["players"][seat]["gun"] and len(others(state, seat)) >= 2


def face_down(state: GameState, seat: int) -> list[int]:
    """Indexes of a seat's face-down integrity cards."""
    return [i for i, up in enumerate(state["players"][seat]["up"]) if not up]


def learn(state: GameState, seat: int, target: int, card: int, how: str) -> None:
    """``seat`` privately learns ``target``'s card at position ``card``."""
    name = state["players"][target]["cards"][card]
    state["players"][seat]["learned"].append({"target": target, "card": card, "name": name, "how": how})
    tell(state, "learned", seat, target=target, card=card, name=name, how=how)


def reveal_card(state: GameState, seat: int, card: int) -> None:
    """Turn one integrity card face-up (public)."""
    player = state["players"][seat]
    player["up"][card] = True
    log(state, "reveal", seat=seat, card=card, name=player["cards"][card])


def permutations(n: int) -> list[list[int]]:
    """Every order of range(n), in lexicographic order (identity first)."""
    if n <= 1:
        return [list(range(n))]
    result = []
    for first in range(n):
        for tail in permutations(n - 1):
            rest = [i for i in range(n) if i != first]
            result.append([first] + [rest[i] for i in tail])
    return result


def distinct_orders(cards: list[str]) -> list[list[int]]:
    """One order per distinct row of ``cards``: orders that only swap identical cards are the same row."""
    rows: dict[tuple[str, ...], list[int]] = {}
    for order in permutations(len(cards)):
        rows.setdefault(tuple(cards[i] for i in order), order)
    return list(rows.values())


def copy_table(state: GameState) -> GameState:
    """A deep copy, except that log and learned entries (never changed once written) are shared.

    Random games run to thousands of moves; deep-copying the whole log each move made
    them quadratic.
    """
    # Every mutable top-level key of the state must be copied below (see rules.deal for the list).
    new = cast(GameState, dict(state))
    new["deck"], new["burned"] = list(state["deck"]), list(state["burned"])
    new["removed"], new["log"] = list(state["removed"]), list(state["log"])
    new["options"] = state["options"].copy()
    new["result"] = clone(state["result"])
    new["stack"] = [clone(frame) for frame in state["stack"]]
    new["players"] = [
        cast(Player, {**p, "cards": list(p["cards"]), "up": list(p["up"]), "hand": list(p["hand"]),
                      "learned": list(p["learned"])})
        for p in state["players"]
    ]
    return new
