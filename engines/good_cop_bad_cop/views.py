"""What each seat (and the board) may see of a Good Cop Bad Cop state."""

from __future__ import annotations

from engines.base import State

from . import rules
from .cards import team_of

PHASES = {"arrange": "arrange", "action": "action", "aim": "aim", "window": "respond",
          "reveal": "reveal", "audit": "audit", "keep": "keep", "bribe": "bribe",
          "redirect": "redirect"}
# Frame fields everybody saw happen (never a card name, never a hand).
PUBLIC_FRAME = ("kind", "seat", "when", "target", "card", "why", "seats")


def card_views(state: State, seat: int | None) -> list[list[dict]]:
    """Each seat's integrity cards; a name only where this viewer may know it."""
    over = state["result"] is not None
    return [[{"name": name if (up or s == seat or over) else None, "face_up": up}
             for name, up in zip(p["cards"], p["up"], strict=True)]
            for s, p in enumerate(state["players"])]


def pending(state: State) -> dict | None:
    """The public description of the frame on top (what the table waits for)."""
    frame = rules.top(state)
    if frame is None or state["result"] is not None:
        return None
    return {key: frame[key] for key in PUBLIC_FRAME if key in frame}


def view(state: State, seat: int | None) -> dict:
    """The view for ``seat`` (None = the public board)."""
    players = state["players"]
    frame = rules.top(state)
    me = players[seat] if seat is not None else None
    over = state["result"] is not None
    outcome = state["result"]
    legal = rules.legal_actions(state, seat) if seat is not None else []
    return {
        "seat": seat,
        "phase": "over" if over or frame is None else PHASES[frame["kind"]],
        "turn": state["turn"],
        # Entries are shared with the state (never changed once written): treat them as read-only.
        "log": [line for line in state["log"] if "private" not in line or line["seat"] == seat],
        "legal": legal,
        "players": len(players),
        "awaiting": sorted(rules.awaiting(state)),
        "outcome": outcome,
        "cards": card_views(state, seat),
        "hand": list(me["hand"]) if me else [],
        "guns": [p["aim"] if p["gun"] else None for p in players],
        "armed": [p["gun"] for p in players],
        "guns_left": state["guns_left"],
        "wounded": [p["wounded"] for p in players],
        "alive": [p["alive"] for p in players],
        "arranged": [p["arranged"] for p in players],
        "learned": [dict(entry) for entry in me["learned"]] if me else [],
        "team": team_of(me["cards"], state["planted"] == seat) if me else None,
        "direction": state["direction"],
        "coffee": state["coffee"],
        "planted": state["planted"],
        "removed": list(state["removed"]),
        "no_arm": state["no_arm"],
        "pending": pending(state),
        "playable": sorted({a["card"] for a in legal if a["type"] == "play"}),
        "window": rules.window_id(state),
        # A silent equipment window is open: every screen shows the same countdown, nobody taps Pass.
        "silent": rules.silent(state),
        "reveal": outcome["reveal"] if outcome else None,
    }
