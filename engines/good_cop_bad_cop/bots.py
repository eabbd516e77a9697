"""The heuristic bot: investigate the unknown, arm against a known enemy, shoot the likely enemy leader."""

from __future__ import annotations

import random
from typing import cast

from .cards import Action, GameView

# By card name (a card this seat cannot see is named None: no side).
SIDE: dict[str | None, str] = {"agent": "honest", "kingpin": "crooked", "honest": "honest", "crooked": "crooked"}
INFO_CARDS = ("polygraph", "wiretap", "metal_detector", "truth_serum")


def known_cards(view: GameView) -> dict[int, dict[int, str]]:
    """What this seat believes each card position holds: face-up names, then what it saw."""
    known: dict[int, dict[int, str]] = {s: {} for s in range(view["players"])}
    for entry in view["learned"]:
        known[entry["target"]][entry["card"]] = entry["name"]
    for seat, cards in enumerate(view["cards"]):
        for i, card in enumerate(cards):
            if card["name"] is not None:
                known[seat][i] = card["name"]
            elif card["face_up"]:
                known[seat].pop(i, None)
    return known


def suspicion(view: GameView, known: dict[int, dict[int, str]], seat: int) -> float:
    """How likely ``seat`` is on the other team (higher = more likely; enemy leader far higher)."""
    mine = view["team"] if view["team"] in ("honest", "crooked") else "crooked"
    enemy_leader = "kingpin" if mine == "honest" else "agent"
    own_leader = "agent" if mine == "honest" else "kingpin"
    score = 0.0
    for name in known[seat].values():
        if name == enemy_leader:
            score += 10
        elif name == own_leader:
            score -= 10
        else:
            side = SIDE[name]
            if view["planted"] == seat:
                side = "crooked" if side == "honest" else "honest"
            score += 1 if side != mine else -1
    return score


def pick(legal: list[Action], kind: str) -> list[Action]:
    """The legal actions of one type."""
    return [a for a in legal if a["type"] == kind]


def reveal_choice(view: GameView, options: list[Action], rng: random.Random) -> Action:
    """Turn face-up a card of our own side that is not a leader, if there is one."""
    me = cast(int, view["seat"])  # a bot always plays a seat
    mine = view["team"]
    cards = view["cards"][me]
    good = [a for a in options if cards[a["card"]]["name"] not in ("agent", "kingpin")
            and SIDE.get(cards[a["card"]]["name"]) == mine]
    safe = [a for a in options if cards[a["card"]]["name"] not in ("agent", "kingpin")]
    return rng.choice(good or safe or options)


def action_choice(view: GameView, known: dict[int, dict[int, str]], rng: random.Random) -> Action:
    """Phase 1: shoot a likely enemy, arm against one, else investigate the least known player."""
    legal = view["legal"]
    me = cast(int, view["seat"])
    others = [s for s in range(view["players"]) if s != me and view["alive"][s]]
    scores = {s: suspicion(view, known, s) for s in others}
    aim = view["guns"][me]
    if pick(legal, "shoot") and aim is not None and scores.get(aim, 0) >= 2:
        return pick(legal, "shoot")[0]
    if pick(legal, "arm") and others and max(scores.values()) >= 2:
        return pick(legal, "arm")[0]
    plays = [a for a in pick(legal, "play") if a["card"] in INFO_CARDS]
    if plays and rng.random() < 0.3:
        return rng.choice(plays)
    investigate = [a for a in pick(legal, "investigate") if a["card"] not in known[a["target"]]]
    if investigate:
        unknown = {s: sum(1 for a in investigate if a["target"] == s) for s in others}
        most = max(unknown.values())
        return rng.choice([a for a in investigate if unknown[a["target"]] == most])
    if pick(legal, "arm"):
        return pick(legal, "arm")[0]
    return rng.choice(pick(legal, "equip") or legal)


def window_choice(view: GameView, known: dict[int, dict[int, str]]) -> Action | None:
    """A silent window: shield a friend (or oneself) from a Shoot with a Restraining Order, else let it pass."""
    pending = view["pending"] or {}
    shielding = [a for a in view["legal"] if a.get("card") == "restraining_order"]
    target = pending.get("target")
    if shielding and pending.get("when") == "shoot" and target is not None and (
            target == view["seat"] or suspicion(view, known, target) <= -5):
        return shielding[0]
    return None


def heuristic(view: GameView, rng: random.Random) -> Action | None:
    """One of ``view['legal']``, chosen from this seat's view only.

    In a silent window (``view["silent"]``) it returns a play when it wants one, or None to
    let the window pass; everywhere else always a legal action.
    """
    legal = view["legal"]
    phase = view["phase"]
    me = cast(int, view["seat"])
    known = known_cards(view)
    if phase == "action":
        return action_choice(view, known, rng)
    if phase in ("reveal", "audit"):
        return reveal_choice(view, legal, rng)
    if phase == "aim" or phase == "redirect":
        aims = pick(legal, "aim")
        if not aims:  # no gun: only rules version 1 asks such a seat to end its turn
            return pick(legal, "end_turn")[0]
        best = max(suspicion(view, known, a["target"]) for a in aims)
        if phase == "aim" and pick(legal, "end_turn") and suspicion(view, known, cast(int, view["guns"][me])) >= best:
            return pick(legal, "end_turn")[0]
        return rng.choice([a for a in aims if suspicion(view, known, a["target"]) == best])
    if phase == "respond":
        return window_choice(view, known)
    if phase == "bribe":
        return {"type": "swap", "card": None} if {"type": "swap", "card": None} in legal else legal[0]
    return rng.choice(legal) if phase == "arrange" else legal[0]
