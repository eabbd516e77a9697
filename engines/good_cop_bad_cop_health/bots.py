"""A heuristic bot that reads only its own seat's view."""

from __future__ import annotations

import random
from typing import Any

from .cards import DAMAGE, GUNS, INSPECTION, JAMMER, VEST, opposite

EQUIP_ORDER = ("magnum_44", "magnum_357", "revolver_38", "vest", "jammer", "flawless_shot")


def _known_identity(view: dict[str, Any], seat: int) -> str | None:
    """What this seat knows of ``seat``'s identity: revealed at death, or learned by inspection."""
    known: str | None = view["revealed"][seat] or view["learned"][seat]
    return known


def _stance(view: dict[str, Any]) -> dict[int, float]:
    """A score per living other seat: positive for likely enemies, negative for likely friends."""
    me, mine = view["seat"], view["identity"]
    scores = {s: 0.0 for s in range(view["players"]) if s != me and view["alive"][s]}
    if view["variant"] == "duel" or mine == "wanted":
        return dict.fromkeys(scores, 1.0)
    enemy = opposite(mine)
    for entry in view["log"]:
        if entry["event"] != "shoot" or entry["seat"] not in scores:
            continue
        target = entry["target"]
        hit = 1 + entry["damage"]
        known = _known_identity(view, target) if target != me else mine
        # Shooting my side marks an enemy; shooting the other side marks a friend.
        if known == mine:
            scores[entry["seat"]] += hit
        elif known == enemy:
            scores[entry["seat"]] -= hit
    for seat in scores:
        known = view["learned"][seat]
        if known == enemy or (known == "wanted" and view["variant"] == "wanted"):
            scores[seat] += 100 if known == enemy else -5
        elif known == mine:
            scores[seat] -= 100
    return scores


def _by_type(legal: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The legal actions grouped by type."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        groups.setdefault(action["type"], []).append(action)
    return groups


def _draw(view: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    """Take a useful market card, else the top of the deck."""
    me = view["seat"]
    mine = view["in_play"][me] + view["hand"]
    best_gun = max((DAMAGE[c["kind"]] for c in mine if c["kind"] in GUNS), default=0)
    wanted: list[tuple[int, dict[str, Any]]] = []
    for action in moves:
        if action["from"] != "market":
            continue
        kind = view["market"][action["index"]]["kind"]
        if kind in GUNS and DAMAGE[kind] > best_gun:
            wanted.append((10 + DAMAGE[kind], action))
        elif kind == VEST and view["health"][me] <= 2:
            wanted.append((8, action))
        elif kind == INSPECTION and not any(c["kind"] == INSPECTION for c in view["hand"]):
            wanted.append((5, action))
    if wanted:
        return max(wanted, key=lambda pair: pair[0])[1]
    deck = [a for a in moves if a["from"] == "deck"]
    return deck[0] if deck else moves[0]


def _shoot(view: dict[str, Any], moves: list[dict[str, Any]], scores: dict[int, float], rng: random.Random,
           sure: bool) -> dict[str, Any] | None:
    """The strongest shot at the likeliest enemy (only sure enemies when ``sure``)."""
    guns = {c["id"]: DAMAGE[c["kind"]] for c in view["in_play"][view["seat"]] if c["kind"] in GUNS}
    targets = [s for s in scores if scores[s] > 0] if sure else [s for s in scores if scores[s] >= 0]
    if not targets or not moves:
        return None
    top = max(scores[s] for s in targets)
    best = [s for s in targets if scores[s] == top]
    target = min(best, key=lambda s: (view["health"][s], rng.random()))
    shots = [a for a in moves if a["target"] == target]
    return max(shots, key=lambda a: guns.get(a["gun"], 0)) if shots else None


def heuristic(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Shoot known enemies, inspect the unknown, equip the rest, never shoot known friends."""
    legal = view["legal"]
    groups = _by_type(legal)
    if "keep_identity" in groups:
        return rng.choice(groups["keep_identity"])
    if "draw" in groups:
        return _draw(view, groups["draw"])
    scores = _stance(view)
    shot = _shoot(view, groups.get("shoot", []), scores, rng, sure=True)
    if shot:
        return shot
    unknown = [a for a in groups.get("inspect", []) if view["learned"][a["target"]] is None]
    if unknown:
        clear = [a for a in unknown
                 if not any(c["kind"] == JAMMER for c in view["in_play"][a["target"]])]
        return rng.choice(clear or unknown)
    equips = groups.get("equip", [])
    if equips:
        kinds = {c["id"]: c["kind"] for c in view["hand"]}
        return min(equips, key=lambda a: EQUIP_ORDER.index(kinds[a["card"]]))
    if groups.get("shoot") and rng.random() < 0.3:
        shot = _shoot(view, groups["shoot"], scores, rng, sure=False)
        if shot:
            return shot
    return groups["end_turn"][0] if "end_turn" in groups else rng.choice(legal)
