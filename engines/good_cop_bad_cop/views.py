"""What each seat (and the board) may see of a Good Cop Bad Cop state."""

from __future__ import annotations

from typing import Any

from engines.base import visible_log

from .cards import PHASES, PUBLIC_FRAME, CardView, GameState, GameView, Phase
from .legal import awaiting, legal_actions
from .rules import silent, team_of, window_id
from .table import top


def card_views(state: GameState, seat: int | None) -> list[list[CardView]]:
    """Each seat's integrity cards; a name only where this viewer may know it."""
    over = state["result"] is not None
    return [[{"name": name if (up or s == seat or over) else None, "face_up": up}
             for name, up in zip(p["cards"], p["up"], strict=True)]
            for s, p in enumerate(state["players"])]


def pending(state: GameState) -> dict[str, Any] | None:
    """The public description of the frame on top (what the table waits for)."""
    frame = top(state)
    if frame is None or state["result"] is not None:
        return None
    fields: dict[str, Any] = dict(frame)
    return {key: fields[key] for key in PUBLIC_FRAME if key in fields}


def build_view(state: GameState, seat: int | None) -> GameView:
    """The view for ``seat`` (None = the public board)."""
    players = state["players"]
    frame = top(state)
    me = players[seat] if seat is not None else None
    over = state["result"] is not None
    outcome = state["result"]
    legal = legal_actions(state, seat) if seat is not None else []
    return {
        "seat": seat,
        "phase": Phase.OVER if over or frame is None else PHASES[frame["kind"]],
        "turn": state["turn"],
        "log": visible_log(state["log"], seat),
        "legal": legal,
        "players": len(players),
        "awaiting": sorted(awaiting(state)),
        "outcome": outcome,
        "cards": card_views(state, seat),
        "hand": list(me["hand"]) if me else [],
        "guns": [p["aim"] if p["gun"] else None for p in players],
        "armed": [p["gun"] for p in players],
        "guns_left": state["guns_left"],
        "wounded": [p["wounded"] for p in players],
        "alive": [p["alive"] for p in players],
        "arranged": [p["arranged"] for p in players],
        "learned": [entry.copy() for entry in me["learned"]] if me else [],
        "team": team_of(me["cards"], state["planted"] == seat) if me else None,
        "direction": state["direction"],
        "coffee": state["coffee"],
        "planted": state["planted"],
        "removed": list(state["removed"]),
        "no_arm": state["no_arm"],
        "pending": pending(state),
        "playable": sorted({a["card"] for a in legal if a["type"] == "play"}),
        "window": window_id(state),
        # A silent equipment window is open: every screen shows the same countdown, nobody taps Pass.
        "silent": silent(state),
        "reveal": outcome["reveal"] if outcome else None,
    }
