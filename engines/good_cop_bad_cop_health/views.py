"""What each seat (and the board) may see: the only way information leaves the engine."""

from __future__ import annotations

from .cards import DAMAGE


def public_card(card: dict | None) -> dict | None:
    """A face-up card as the views show it."""
    return None if card is None else {"id": card["id"], "kind": card["kind"]}


def visible_log(state: dict, seat: int | None) -> list[dict]:
    """Public entries, plus this seat's own private ones."""
    # Entries are flat and never changed once logged: a shallow copy per entry suffices.
    return [dict(entry) for entry in state["log"]
            if not entry.get("private") or (seat is not None and entry.get("seat") == seat)]


def reveal(state: dict) -> dict:
    """Every secret, for the end of the game."""
    return {
        "identities": [p["identity"] for p in state["players"]],
        "hands": [[card["kind"] for card in p["hand"]] for p in state["players"]],
    }


def outcome_of(state: dict) -> dict | None:
    """The outcome with teams by final identity and the reveal, or None while running."""
    result = state["result"]
    if result is None:
        return None
    teams: dict[str, list[int]] = {}
    for seat, player in enumerate(state["players"]):
        teams.setdefault(player["identity"], []).append(seat)
    return {"winners": list(result["winners"]), "reason": result["reason"],
            "teams": teams, "reveal": reveal(state)}


def awaiting_of(state: dict) -> set[int]:
    """The seats the game waits for: both duellists choosing, else the player on turn."""
    if state["result"] is not None:
        return set()
    if state["phase"] == "keep_identity":
        return {s for s, p in enumerate(state["players"]) if p["choices"] is not None}
    return {state["turn"]}


def moves_of(legal: list[dict], hand: list[dict], in_play: list[dict]) -> dict:
    """The legal moves grouped for the phone's buttons (strongest gun first)."""
    cards = {c["id"]: c for c in hand + in_play}
    shoot = [a for a in legal if a["type"] == "shoot"]
    inspect = [a for a in legal if a["type"] == "inspect"]
    guns = sorted({a["gun"] for a in shoot}, key=lambda g: (-DAMAGE[cards[g]["kind"]], g))
    return {
        "keep": [a["index"] for a in legal if a["type"] == "keep_identity"],
        "draw_deck": {"type": "draw", "from": "deck"} in legal,
        "draw_market": [a["index"] for a in legal if a["type"] == "draw" and a["from"] == "market"],
        "equip": [a["card"] for a in legal if a["type"] == "equip"],
        "inspect_card": inspect[0]["card"] if inspect else None,
        "inspect_targets": sorted({a["target"] for a in inspect}),
        "shoot_guns": [{"id": g, "kind": cards[g]["kind"], "damage": DAMAGE[cards[g]["kind"]]}
                       for g in guns],
        "shoot_targets": sorted({a["target"] for a in shoot}),
        "end_turn": {"type": "end_turn"} in legal,
    }


def build_view(state: dict, seat: int | None, legal: list[dict]) -> dict:
    """The view for ``seat`` (None: the board). Hand sizes of others are never shown."""
    players = state["players"]
    outcome = outcome_of(state)
    me = players[seat] if seat is not None else None
    view = {
        "seat": seat,
        "phase": state["phase"],
        "turn": None if state["phase"] in ("keep_identity", "over") else state["turn"],
        "log": visible_log(state, seat),
        "legal": legal,
        "players": state["n"],
        "awaiting": sorted(awaiting_of(state)),
        "outcome": outcome,
        "variant": state["variant"],
        "flawless_shot_always": state["options"]["flawless_shot_always"],
        "health": [p["health"] for p in players],
        "alive": [p["alive"] for p in players],
        # Identities of the eliminated are public; the living keep theirs secret.
        "revealed": [None if p["alive"] else p["identity"] for p in players],
        "in_play": [[public_card(c) for c in p["in_play"]] for p in players],
        "market": [public_card(c) for c in state["market"]],
        "deck": len(state["deck"]),
        "discard": len(state["discard"]),
        "identity_pile": len(state["identity_pile"]),
        "equipped": state["equipped"],
        "identity": me["identity"] if me else None,
        "identity_was": me["previous"] if me else None,
        "identity_choices": list(me["choices"]) if me and me["choices"] else None,
        "hand": [public_card(c) for c in sorted(me["hand"], key=lambda c: c["id"])] if me else [],
        "learned": list(me["learned"]) if me else [None] * state["n"],
    }
    view["moves"] = moves_of(legal, me["hand"] if me else [], me["in_play"] if me else [])
    if outcome is not None:
        view["reveal"] = outcome["reveal"]
    return view
