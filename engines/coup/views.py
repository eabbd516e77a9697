"""What each seat (and the board) may see of a Coup state."""

from __future__ import annotations

from .cards import FORCED_COUP_AT
from .legal import awaiting, exchange_returns, legal_actions
from .table import restricted, silent

PUBLIC_PENDING = ("actor", "action", "target", "claim", "paid", "block", "challenger",
                  "revealer", "on_trial")


def visible_log(state: dict, seat: int | None) -> list[dict]:
    """Public entries plus the private ones addressed to this seat."""
    return [dict(e) for e in state["log"] if not e.get("private") or (seat is not None and e["to"] == seat)]


def public_pending(state: dict) -> dict | None:
    """The declared action, its claim and any block: never the examined card."""
    pend = state["pending"]
    if pend is None:
        return None
    public = {key: pend[key] for key in PUBLIC_PENDING}
    public["block"] = dict(pend["block"]) if pend["block"] else None
    return public


def build_view(state: dict, seat: int | None) -> dict:
    """The view for a seat (its own secrets + public facts) or the board (seat None)."""
    players = state["players"]
    pend = state["pending"]
    phase = state["phase"]
    window = state["window"]
    me = players[seat] if seat is not None else None
    view = {
        "seat": seat,
        "phase": phase,
        "turn": state["turn"] if phase != "over" else None,
        "log": visible_log(state, seat),
        "legal": legal_actions(state, seat) if seat is not None else [],
        "players": state["n"],
        "awaiting": sorted(awaiting(state)),
        "outcome": state["result"],
        "coins": [p["coins"] for p in players],
        "hand": list(me["hand"]) if me else [],
        "alive": [bool(p["hand"]) for p in players],
        "lost": [list(p["lost"]) for p in players],
        "counts": [len(p["hand"]) for p in players],
        "factions": [p["faction"] for p in players] if state["options"]["factions"] else None,
        "almshouse": state["almshouse"],
        "restricted": restricted(state),
        "pending": public_pending(state),
        "window": dict(window, eligible=list(window["eligible"]), answered=list(window["answered"]))
        if window else None,
        "losing": state["losers"][0] if phase == "lose" else None,
        # A silent challenge/block window is open: one countdown on every screen, no Allow to tap.
        "silent": silent(state),
        "match": {"target": state["match"]["target"], "wins": list(state["match"]["wins"]),
                  "round": state["match"]["round"]},
        "variants": {"inquisitor": state["options"]["inquisitor"],
                     "factions": state["options"]["factions"]},
        "must_coup": bool(me and phase == "action" and seat == state["turn"]
                          and me["coins"] >= FORCED_COUP_AT),
        "drawn": [],
        "exchange_options": [],
        "examined": None,
    }
    if me and phase == "exchange" and pend["actor"] == seat:
        view["drawn"] = list(me["drawn"])
        options = []
        for cards in exchange_returns(me):
            keep = sorted(me["hand"] + me["drawn"])
            for card in cards:
                keep.remove(card)
            options.append({"action": {"type": "return", "cards": list(cards)}, "keep": keep})
        view["exchange_options"] = options
    if me and phase == "examine_decide" and seat in (pend["actor"], pend["target"]):
        view["examined"] = {"target": pend["target"], "card": pend["shown"]}
    return view
