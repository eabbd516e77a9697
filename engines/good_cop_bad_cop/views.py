"""What each seat (and the board) may see of a Good Cop Bad Cop state."""

from __future__ import annotations

from typing import Any

from engines.base import visible_log

from .cards import PHASES, PUBLIC_FRAME, Action, CardView, GameState, GameView, OwnView, Phase
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


# Equipment played on picked cards: the phone lists the cards each player offers (from the legal plays).
PICK_CARDS = ("blackmail", "wiretap", "metal_detector")


def picks(legal: list[Action]) -> dict[str, list[dict[str, Any]]]:
    """For each playable pick card, the players whose cards it may pick and which: ``[{"seat", "cards"}]``.

    Read from the legal plays alone (never from the table), so a seat's own part changes only when its
    moves do: Blackmail any card of two other players, Wiretap a face-down one, Metal Detector a face-down
    card of each other gun holder.
    """
    found: dict[str, dict[int, set[int]]] = {}
    for action in legal:
        if action["type"] == "play" and action["card"] in PICK_CARDS:
            groups = found.setdefault(action["card"], {})
            for pos in action["cards"]:
                groups.setdefault(pos // 3, set()).add(pos % 3)
    return {card: [{"seat": s, "cards": sorted(groups[s])} for s in sorted(groups)] for card, groups in found.items()}


def revivals(state: GameState, legal: list[Action]) -> list[dict[str, Any]]:
    """Defibrillator's plays with the (face-up) card each revived player keeps: ``[{"target", "keep", "name"}]``."""
    return [{"target": a["target"], "keep": a["keep"], "name": state["players"][a["target"]]["cards"][a["keep"]]}
            for a in legal if a["type"] == "play" and a["card"] == "defibrillator"]


def own(state: GameState, seat: int | None) -> OwnView | None:
    """The seat's own place at the table as its phone's own part shows it (None for the board)."""
    if seat is None:
        return None
    player = state["players"][seat]
    return {"cards": [{"name": name, "face_up": up} for name, up in zip(player["cards"], player["up"], strict=True)],
            "alive": player["alive"], "wounded": player["wounded"], "armed": player["gun"],
            "aim": player["aim"] if player["gun"] else None, "planted": state["planted"] == seat}


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
        # The seat's own part of the phone (engine.phone_private_keys): its place, and what its moves need.
        "own": own(state, seat),
        # The step this seat takes now: the phase while it has moves (or a silent window is open, alike for every
        # seat), else None: a seat that waits keeps its own part while the table's phase moves on.
        "step": None if seat is None or not (legal or silent(state)) else (
            Phase.OVER if over or frame is None else PHASES[frame["kind"]]),
        "picks": picks(legal),
        "revive": revivals(state, legal),
    }
