"""The equipment cards: when each may be played, its concrete targets, and its effect."""

from __future__ import annotations

from typing import cast

from engines.base import State

from . import rules
from .cards import permutations


def positions(state: State, seat: int, only_face_down: bool) -> list[int]:
    """Card positions (3 * seat + index) of a seat, optionally face-down ones only."""
    player = state["players"][seat]
    return [3 * seat + i for i in range(len(player["cards"])) if not (only_face_down and player["up"][i])]


def cross_pairs(state: State, seats: list[int], only_face_down: bool) -> list[list[int]]:
    """Pairs of positions [p, q], p < q, of two different seats."""
    pool = [p for s in seats for p in positions(state, s, only_face_down)]
    return [[p, q] for i, p in enumerate(pool) for q in pool[i + 1:] if p // 3 != q // 3]


def product(groups: list[list[int]]) -> list[list[int]]:
    """Every choice of one element from each group."""
    result: list[list[int]] = [[]]
    for group in groups:
        result = [done + [x] for done in result for x in group]
    return result


def options(state: State, seat: int, card: str, ctx: str, frame: dict) -> list[dict]:
    """The extra fields of every legal way to play ``card`` in context ``ctx``."""
    alive = rules.living(state)
    others = [s for s in alive if s != seat]
    players = state["players"]
    if card == "taser":
        if ctx != "own" or frame["kind"] != "action" or players[seat]["gun"]:
            return []
        return [{"target": t} for t in others if players[t]["gun"]]
    if card == "report_audit":
        return [{}] if ctx == "own" else []
    if card == "restraining_order":
        ok = ctx == "shoot" and seat != frame["seat"] and len(alive) > 2
        return [{}] if ok else []
    if card == "surveillance_camera":
        ok = ctx == "investigate" and players[frame["target"]]["alive"] and \
            frame["card"] < len(players[frame["target"]]["cards"]) and \
            not players[frame["target"]]["up"][frame["card"]]
        return [{}] if ok else []
    if card in ("coffee", "smoke_grenade"):
        return [{}]
    if card == "blackmail":
        return [{"cards": pair} for pair in cross_pairs(state, others, False)]
    if card == "wiretap":
        return [{"cards": pair} for pair in cross_pairs(state, others, True)]
    if card == "defibrillator":
        dead = [s for s in range(len(players)) if not players[s]["alive"] and s != seat]
        return [{"target": t, "keep": i} for t in dead for i in range(len(players[t]["cards"]))]
    if card in ("evidence_bag", "polygraph", "k9_unit"):
        return [{"target": t} for t in others]
    if card == "flashbang":
        own = players[seat]["cards"]
        rows: dict[tuple, list[int]] = {}
        for order in permutations(len(own)):
            rows.setdefault(tuple(own[i] for i in order), order)
        return [{"order": order} for order in rows.values()]
    if card == "metal_detector":
        groups = [positions(state, t, True) for t in others if players[t]["gun"]]
        groups = [g for g in groups if g]
        return [{"cards": pick} for pick in product(groups)] if groups else []
    if card == "planted_evidence":
        return [{"target": t} for t in alive]
    if card == "truth_serum":
        return [{"target": t} for t in alive if rules.face_down(state, t)]
    if card == "bribe":
        return [{"target": t, "index": i} for t in others for i in rules.face_down(state, t)]
    return []


def plays(state: State, seat: int, ctx: str, frame: dict) -> list[dict]:
    """Every play of an equipment card ``seat`` holds, in context own/shoot/investigate/end."""
    moves = []
    for card in sorted(state["players"][seat]["hand"]):
        for extra in options(state, seat, card, ctx, frame):
            moves.append({"type": "play", "card": card, **extra})
    return moves


def play(state: State, seat: int, action: dict, frame: dict) -> None:
    """Play a card: close a window it was played in, discard it, then resolve its effect."""
    card = action["card"]
    player = state["players"][seat]
    player["hand"].remove(card)
    if card == "planted_evidence":
        # It stays in front of its target for the rest of the game.
        state["planted"] = action["target"]
    else:
        state["deck"].append(card)
    # Flashbang's new order is the player's secret; everything else is seen at the table.
    public = {k: v for k, v in action.items() if k not in ("type", "card", "order")}
    if "cards" in action:
        public["picks"] = [[pos // 3, pos % 3] for pos in action["cards"]]
    rules.log(state, "play", seat=seat, equipment=card, **public)
    if frame["kind"] == "window":
        state["stack"].pop()
        if frame["when"] == "shoot":
            if card == "restraining_order":
                rules.push(state, "redirect", seat=frame["seat"], target=frame["target"])
                return
            # Seed rule: after a card answers a Shoot, the shooter may shoot or act otherwise.
            rules.push(state, "action", seat=frame["seat"])
        else:
            # ("answered": a key of windows in states saved before windows were silent.)
            data = {k: v for k, v in frame.items() if k not in ("kind", "id", "answered")}
            rules.push(state, "window", **data)
    resolve(state, seat, action, frame)


def swap(state: State, a: int, b: int) -> None:
    """Swap the integrity cards at positions a and b; each keeps its face (up or down)."""
    pa, pb = state["players"][a // 3], state["players"][b // 3]
    ia, ib = a % 3, b % 3
    pa["cards"][ia], pb["cards"][ib] = pb["cards"][ib], pa["cards"][ia]
    pa["up"][ia], pb["up"][ib] = pb["up"][ib], pa["up"][ia]


def resolve(state: State, seat: int, action: dict, frame: dict) -> None:
    """The effect of each card."""
    card = action["card"]
    players = state["players"]
    target = cast(int, action.get("target"))  # present for every card that names a player
    if card == "blackmail":
        swap(state, *action["cards"])
    elif card == "coffee":
        state["coffee"] = seat
    elif card == "smoke_grenade":
        state["direction"] = -state["direction"]
    elif card == "defibrillator":
        revived = players[target]
        kept = revived["cards"][action["keep"]]
        state["removed"].extend(c for i, c in enumerate(revived["cards"]) if i != action["keep"])
        revived.update(cards=[kept], up=[True], alive=True, wounded=False)
    elif card == "evidence_bag":
        victim = players[target]["hand"]
        taken = bool(victim)
        if taken:
            players[seat]["hand"].append(victim.pop(0))
            rules.log(state, "drew", seat=seat, equipment=players[seat]["hand"][-1], private=True)
            rules.log(state, "lost", seat=target, equipment=players[seat]["hand"][-1], private=True)
        rules.log(state, "bag_result", seat=seat, target=target, taken=taken)
    elif card == "flashbang":
        me = players[seat]
        me["cards"] = [me["cards"][i] for i in action["order"]]
        me["up"] = [False] * len(me["cards"])
    elif card == "k9_unit":
        if players[target]["gun"]:
            players[target]["gun"], players[target]["aim"] = False, None
            state["guns_left"] += 1
        if state["turn"] == target:
            state["no_arm"] = target
    elif card in ("metal_detector", "wiretap"):
        for pos in action["cards"]:
            rules.learn(state, seat, pos // 3, pos % 3, card)
    elif card == "polygraph":
        for i in range(len(players[target]["cards"])):
            rules.learn(state, seat, target, i, card)
        for i in range(len(players[seat]["cards"])):
            rules.learn(state, target, seat, i, card)
    elif card == "report_audit":
        seats = [s for s in rules.living(state) if not any(players[s]["up"]) and rules.face_down(state, s)]
        rules.push(state, "audit", seats=seats)
    elif card == "surveillance_camera":
        rules.reveal_card(state, frame["target"], frame["card"])
    elif card == "taser":
        players[target]["gun"], players[target]["aim"] = False, None
        players[seat]["gun"], players[seat]["aim"] = True, None
        state["stack"].pop()  # the action frame: Taser is this turn's action
    elif card == "truth_serum":
        rules.push(state, "reveal", seat=target, why="truth_serum")
    elif card == "bribe":
        rules.learn(state, seat, target, action["index"], "bribe")
        rules.push(state, "bribe", seat=seat, target=target, card=action["index"])


def bribe_swap(state: State, seat: int, frame: dict, own: int | None) -> None:
    """Bribe: optionally swap the investigated card with one of your own."""
    if own is None:
        return
    swap(state, 3 * seat + own, 3 * frame["target"] + frame["card"])
    rules.log(state, "bribe_swap", seat=seat, target=frame["target"], card=frame["card"], own=own)
