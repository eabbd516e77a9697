"""What each seat (and the board) may see: the only way information leaves the engine."""

from __future__ import annotations

from engines.base import visible_log

from .cards import (
    DAMAGE,
    DRAW,
    END_TURN,
    EQUIP,
    INSPECT,
    KEEP_IDENTITY,
    SHOOT,
    Action,
    Card,
    HealthState,
    HealthView,
    Moves,
    Outcome,
    Phase,
    Reveal,
)
from .legal import awaiting, legal_actions


def public_card(card: Card) -> Card:
    """A face-up card as the views show it."""
    return {"id": card["id"], "kind": card["kind"]}


def reveal(state: HealthState) -> Reveal:
    """Every secret, for the end of the game."""
    return {
        "identities": [p["identity"] for p in state["players"]],
        "hands": [[card["kind"] for card in p["hand"]] for p in state["players"]],
    }


def outcome_of(state: HealthState) -> Outcome | None:
    """The outcome with teams by final identity and the reveal, or None while running."""
    result = state["result"]
    if result is None:
        return None
    teams: dict[str, list[int]] = {}
    for seat, player in enumerate(state["players"]):
        identity = player["identity"]
        assert identity is not None  # every seat holds one before any shot (duellists choose first)
        teams.setdefault(identity, []).append(seat)
    return {"winners": list(result["winners"]), "reason": result["reason"],
            "teams": teams, "reveal": reveal(state)}


def moves_of(state: HealthState, legal: list[Action], seat: int | None) -> Moves:
    """The legal moves grouped for the phone's buttons (strongest gun first), with what the buttons show of the
    table (the deck's size, the market cards, the targets' health and equipment) only while they are offered."""
    me = state["players"][seat] if seat is not None else None
    cards = {c["id"]: c for c in (me["hand"] + me["in_play"] if me else [])}
    shoot = [a for a in legal if a["type"] == SHOOT]
    inspect = [a for a in legal if a["type"] == INSPECT]
    guns = sorted({a["gun"] for a in shoot}, key=lambda g: (-DAMAGE[cards[g]["kind"]], g))
    draw_deck = {"type": DRAW, "from": "deck"} in legal
    draw_market = [a["index"] for a in legal if a["type"] == DRAW and a["from"] == "market"]
    market = state["market"]
    targets = sorted({a["target"] for a in shoot})
    players = state["players"]
    return {
        "keep": [a["index"] for a in legal if a["type"] == KEEP_IDENTITY],
        "draw_deck": draw_deck,
        "deck_left": len(state["deck"]) if draw_deck else None,
        "draw_market": draw_market,
        "market": [{"index": i, "kind": card["kind"]} for i in draw_market if (card := market[i]) is not None],
        "equip": [a["card"] for a in legal if a["type"] == EQUIP],
        "inspect_card": inspect[0]["card"] if inspect else None,
        "inspect_targets": sorted({a["target"] for a in inspect}),
        "shoot_guns": [{"id": g, "kind": cards[g]["kind"], "damage": DAMAGE[cards[g]["kind"]]}
                       for g in guns],
        "shoot_targets": targets,
        "targets": [{"seat": t, "health": players[t]["health"],
                     "in_play": [public_card(c) for c in players[t]["in_play"]]} for t in targets],
        "end_turn": {"type": END_TURN} in legal,
        "equipped": bool(legal) and state["equipped"],
    }


def build_view(state: HealthState, seat: int | None) -> HealthView:
    """The view for ``seat`` (None: the board). Hand sizes of others are never shown."""
    players = state["players"]
    outcome = outcome_of(state)
    me = players[seat] if seat is not None else None
    legal = [] if seat is None else legal_actions(state, seat)
    view: HealthView = {
        "seat": seat,
        "phase": state["phase"],
        "turn": None if state["phase"] in (Phase.KEEP_IDENTITY, Phase.OVER) else state["turn"],
        "log": visible_log(state["log"], seat),
        "legal": legal,
        "players": state["n"],
        "awaiting": sorted(awaiting(state)),
        "outcome": outcome,
        "variant": state["variant"],
        "flawless_shot_always": state["options"]["flawless_shot_always"],
        "health": [p["health"] for p in players],
        "alive": [p["alive"] for p in players],
        # Identities of the eliminated are public; the living keep theirs secret.
        "revealed": [None if p["alive"] else p["identity"] for p in players],
        "in_play": [[public_card(c) for c in p["in_play"]] for p in players],
        "market": [None if c is None else public_card(c) for c in state["market"]],
        "deck": len(state["deck"]),
        "discard": len(state["discard"]),
        "identity_pile": len(state["identity_pile"]),
        "equipped": state["equipped"],
        "identity": me["identity"] if me else None,
        "identity_was": me["previous"] if me else None,
        "identity_choices": list(me["choices"]) if me and me["choices"] else None,
        "hand": [public_card(c) for c in sorted(me["hand"], key=lambda c: c["id"])] if me else [],
        "learned": list(me["learned"]) if me else [None] * state["n"],
        "moves": moves_of(state, legal, seat),
        # The phone's own part (engine.phone_private_keys): the step this seat takes now (None while it waits: the
        # table's phase is the public status's), and its own place.
        "step": state["phase"] if legal else None,
        "own": {"alive": me["alive"]} if me else None,
        "inspected": [{"seat": s, "identity": found} for s, found in enumerate(me["learned"]) if found and s != seat]
        if me else [],
    }
    if outcome is not None:
        view["reveal"] = outcome["reveal"]
    return view
