"""What each seat (and the board) may see of a Coup state."""

from __future__ import annotations

from engines.base import visible_log

from .cards import FORCED_COUP_AT, CoupState, CoupView, ExchangeOption, Phase, PublicPending, Window
from .legal import awaiting, exchange_returns, legal_actions, restricted, silent, target_of


def public_pending(state: CoupState) -> PublicPending | None:
    """The declared action, its claim and any block: never the examined card."""
    pend = state["pending"]
    if pend is None:
        return None
    block = pend["block"]
    return {"actor": pend["actor"], "action": pend["action"], "target": pend["target"],
            "claim": pend["claim"], "paid": pend["paid"], "block": {**block} if block else None,
            "challenger": pend["challenger"], "revealer": pend["revealer"], "on_trial": pend["on_trial"]}


def public_window(window: Window | None) -> Window | None:
    """A copy of the open window (who may answer, who has)."""
    if not window:
        return None
    return {**window, "eligible": list(window["eligible"]), "answered": list(window["answered"])}


def build_view(state: CoupState, seat: int | None) -> CoupView:
    """The view for a seat (its own secrets + public facts) or the board (seat None)."""
    players = state["players"]
    pend = state["pending"]
    phase = state["phase"]
    me = players[seat] if seat is not None else None
    legal = legal_actions(state, seat) if seat is not None else []
    view: CoupView = {
        "seat": seat,
        "phase": phase,
        "turn": state["turn"] if phase != Phase.OVER else None,
        "log": visible_log(state["log"], seat),
        "legal": legal,
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
        "window": public_window(state["window"]),
        "losing": state["losers"][0] if phase == Phase.LOSE else None,
        # A silent challenge/block window is open: one countdown on every screen, no Allow to tap.
        "silent": silent(state),
        "match": {"target": state["match"]["target"], "wins": list(state["match"]["wins"]),
                  "round": state["match"]["round"]},
        "variants": {"inquisitor": state["options"]["inquisitor"],
                     "factions": state["options"]["factions"]},
        "must_coup": bool(me and phase == Phase.ACTION and seat == state["turn"]
                          and me["coins"] >= FORCED_COUP_AT),
        "drawn": [],
        "exchange_options": [],
        "examined": None,
        # What the seat's own part of the phone reads in place of public facts that change with everyone's moves
        # (engine.phone_private_keys): the phase while this seat has a move in it (None while it waits), and
        # what an Embezzle would take now (the almshouse's coins) while it may Embezzle.
        "my_phase": phase if legal else None,
        "embezzle_gain": state["almshouse"] if any(a["type"] == "embezzle" for a in legal) else None,
    }
    if me and pend and phase == Phase.EXCHANGE and pend["actor"] == seat:
        view["drawn"] = list(me["drawn"])
        options: list[ExchangeOption] = []
        for cards in exchange_returns(me):
            keep = sorted(me["hand"] + me["drawn"])
            for card in cards:
                keep.remove(card)
            options.append({"action": {"type": "return", "cards": list(cards)}, "keep": keep})
        view["exchange_options"] = options
    if me and pend and phase == Phase.EXAMINE_DECIDE and seat in (pend["actor"], pend["target"]):
        view["examined"] = {"target": target_of(pend), "card": pend["shown"]}
    return view
