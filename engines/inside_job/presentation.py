"""What the web layer shows of Inside Job beside its views: the reference card's facts, each seat's figures
from a finished game's log (sabotaged missions, the Assassin's guess; gameplay.stats describes each), a
seat's revealed role, and the minority side a fair deal evens out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import BaseEngine, JSONDict, State

from . import cards

# In the order the stats pages and downloads list them.
FIGURES = ("sabotaged_missions", "sabotage_cards", "assassin_guesses", "merlin_found", "found_as_merlin")
# A finished game's teams name the Traitors' side so.
MINORITY = ("team", "traitors")


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """Team sizes, Sabotage cards needed, the sides' sizes, the special roles this table deals and what each does."""
    sizes = cards.MISSION_SIZES.get(players, [])
    agents, traitors = cards.SIDES.get(players, (0, 0))
    # The special roles this table deals (each in place of a plain Agent or Traitor), from the options.
    roles = cards.role_list(players, options) if players in cards.SIDES else []
    specials = [{"role": r, "side": cards.side_of(r)} for r in dict.fromkeys(roles) if r not in ("agent", "traitor")]
    lady = bool(options.get("lady_of_the_lake")) and players >= cards.LADY_MIN_PLAYERS
    return {"missions": [{"n": i + 1, "size": size, "sabotage": cards.sabotage_needed(players, i)}
                         for i, size in enumerate(sizes)],
            "agents": agents, "traitors": traitors, "wins": cards.WINS_NEEDED, "rejections": cards.MAX_REJECTIONS,
            "specials": specials,
            "lady": {"after": [i + 1 for i in cards.LADY_AFTER]} if lady else None}


def log_figures(engine: BaseEngine, state: State, moves: Sequence[tuple[int | None, JSONDict | None]],
                players: int) -> tuple[dict[str, int], ...]:
    """Sabotaged missions from the public mission results and the end's reveal; the Assassin's guess; own cards."""
    figures = [dict.fromkeys(FIGURES, 0) for _ in range(players)]
    for seat, action in moves:
        if seat is not None and (action or {}).get("type") == "play" and (action or {}).get("card") == "sabotage":
            figures[seat]["sabotage_cards"] += 1
    state = engine.replay(state, moves)
    outcome: dict[str, Any] = engine.outcome(state) or {}
    # The roles are public once the game is over (and only then).
    traitors = set((outcome.get("teams") or {}).get("traitors", []))
    entry: dict[str, Any]
    for entry in engine.view(state, None)["log"]:
        event = entry.get("event")
        if event == "mission" and entry.get("result") == "fail" and entry.get("sabotage"):
            for seat in entry.get("team", []):
                if seat in traitors:
                    figures[seat]["sabotaged_missions"] += 1
        elif event == "assassinate":
            figures[int(entry["assassin"])]["assassin_guesses"] += 1
            if entry.get("hit"):
                figures[int(entry["assassin"])]["merlin_found"] += 1
                figures[int(entry["target"])]["found_as_merlin"] += 1
    return tuple(figures)


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """The revealed role (agent, traitor, merlin, …)."""
    roles = (outcome.get("reveal") or {}).get("roles")
    return str(roles[seat]) if isinstance(roles, list) and seat < len(roles) else None


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat on the Traitors' side, whatever its role."""
    return bool(view.get("side") == "traitors")
