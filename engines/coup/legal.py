"""Which concrete actions each seat may play now, and whose answer the game awaits."""

from __future__ import annotations

from itertools import combinations

from .cards import ASSASSINATE_COST, COUP_COST, FORCED_COUP_AT, WINDOW_PHASES, blockers_of
from .table import living, may_target, silent


def legal_actions(state: dict, seat: int) -> list[dict]:
    """Every concrete action ``seat`` may play now."""
    phase = state["phase"]
    pend = state["pending"]
    players = state["players"]
    if phase == "over" or not 0 <= seat < state["n"]:
        return []
    if phase == "action":
        return turn_actions(state, seat) if seat == state["turn"] else []
    if phase in WINDOW_PHASES:
        win = state["window"]
        if seat not in win["eligible"] or seat in win["answered"]:
            return []
        # A silent window has no Allow: not answering allows (the countdown closes it).
        allow = [] if silent(state) else [{"type": "allow"}]
        if phase == "block":
            blocks = blockers_of(pend["action"], state["options"]["inquisitor"])
            return [{"type": "block", "as": card} for card in blocks] + allow
        return [{"type": "challenge"}] + allow
    if phase == "reveal" and seat == pend["revealer"]:
        return [{"type": "reveal", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == "lose" and seat == state["losers"][0]:
        return [{"type": "lose", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == "exchange" and seat == pend["actor"]:
        return [{"type": "return", "cards": list(c)} for c in exchange_returns(players[seat])]
    if phase == "examine_show" and seat == pend["target"]:
        return [{"type": "show", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == "examine_decide" and seat == pend["actor"]:
        return [{"type": "examine_decide", "swap": False}, {"type": "examine_decide", "swap": True}]
    return []


def exchange_returns(player: dict) -> list[tuple[str, ...]]:
    """The distinct sets of cards (sorted) the exchanging player may send back."""
    pool = sorted(player["hand"] + player["drawn"])
    return sorted(set(combinations(pool, len(player["drawn"]))))


def turn_actions(state: dict, seat: int) -> list[dict]:
    """The actions the active player can afford (only Coup from 10 coins up)."""
    opts = state["options"]
    coins = state["players"][seat]["coins"]
    targets = [t for t in range(state["n"]) if may_target(state, seat, t)]
    coups: list[dict] = [{"type": "coup", "target": t} for t in targets]
    if coins >= FORCED_COUP_AT:
        return coups
    actions: list[dict] = [{"type": "income"}, {"type": "foreign_aid"}]
    if coins >= COUP_COST:
        actions += coups
    actions.append({"type": "tax"})
    actions += [{"type": "steal", "target": t} for t in targets]
    actions.append({"type": "exchange"})
    if coins >= ASSASSINATE_COST:
        actions += [{"type": "assassinate", "target": t} for t in targets]
    if opts["inquisitor"]:
        actions += [{"type": "examine", "target": t} for t in targets]
    if opts["factions"]:
        # Convert is never restricted by faction: any living player, oneself for 1, others for 2.
        for t in living(state):
            if coins >= (1 if t == seat else 2):
                actions.append({"type": "convert", "target": t})
        actions.append({"type": "embezzle"})
    return actions


def awaiting(state: dict) -> set[int]:
    """The seats whose answer the game is waiting for."""
    phase = state["phase"]
    pend = state["pending"]
    if phase == "over":
        return set()
    if phase == "action":
        return {state["turn"]}
    if phase in WINDOW_PHASES:
        if silent(state):
            return set()  # nobody must answer: the countdown closes the window
        win = state["window"]
        return set(win["eligible"]) - set(win["answered"])
    if phase == "reveal":
        return {pend["revealer"]}
    if phase == "lose":
        return {state["losers"][0]}
    if phase == "examine_show":
        return {pend["target"]}
    return {pend["actor"]}
