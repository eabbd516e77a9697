"""Coup bots: a heuristic that reads only its own view (own cards + public facts)."""

from __future__ import annotations

import random

from .cards import Action, CoupView, copies

# How much a card is worth keeping: the coin engines first, the blockers after.
VALUE = {"duke": 5, "captain": 4, "assassin": 4, "contessa": 3, "inquisitor": 2, "ambassador": 1}
BLOCK_OF = {"foreign_aid": ("duke",), "steal": ("captain", "ambassador", "inquisitor"),
            "assassinate": ("contessa",)}


def heuristic(view: CoupView, rng: random.Random) -> Action | None:
    """Mostly honest play: use the cards you hold, challenge claims the visible cards rule out.

    In a silent window (``view["silent"]``) allowing is not answering: it returns a
    challenge or a block, or None to let the window pass.
    """
    legal = view["legal"]
    if not legal:
        return None
    choice = pick(view, rng)
    if choice in legal:
        return choice
    if view.get("silent"):
        return None  # "allow" (not listed in a silent window)
    return rng.choice(legal)


def pick(view: CoupView, rng: random.Random) -> Action:
    """The heuristic's preferred move (checked against the legal list by the caller)."""
    legal = view["legal"]
    kinds = {action["type"] for action in legal}
    phase = view["phase"]
    if phase == "action":
        return choose_turn(view, rng)
    if "challenge" in kinds or "block" in kinds:
        return answer_window(view, rng)
    if phase == "reveal":
        claim = claim_on_trial(view)
        for action in legal:
            if action["card"] == claim:
                return action
        return cheapest(legal, "card")
    if phase in ("lose", "examine_show"):
        return cheapest(legal, "card")
    if phase == "exchange":
        best = max(view["exchange_options"], key=lambda opt: hand_value(opt["keep"]))
        return best["action"]
    if phase == "examine_decide":
        examined = view["examined"]
        card = examined["card"] if examined else None
        return {"type": "examine_decide", "swap": VALUE.get(card or "", 0) >= 4}
    return rng.choice(legal)


def hand_value(cards: list[str]) -> int:
    """Value of a hand, with a bonus for holding two different characters."""
    return sum(VALUE.get(card, 0) for card in cards) + (2 if len(set(cards)) == len(cards) else 0)


def cheapest(legal: list[Action], key: str) -> Action:
    """The legal action naming the least valuable card."""
    return min(legal, key=lambda action: VALUE.get(action[key], 0))


def claim_on_trial(view: CoupView) -> str | None:
    """The character whose claim is being challenged now."""
    pend = view["pending"]
    if pend is None:
        return None
    block = pend["block"]
    if pend["on_trial"] == "block" and block:
        return block["as"]
    return pend["claim"]


def unseen(view: CoupView, card: str) -> int:
    """Copies of a card that could still be in another player's hand (none of mine, none lost)."""
    seen = view["hand"].count(card) + sum(lost.count(card) for lost in view["lost"])
    return copies(view["players"]) - seen


def own_seat(view: CoupView) -> int:
    """The bot's seat (a bot reads its own seat's view, never the board's)."""
    seat = view["seat"]
    assert seat is not None, "a bot reads a seat's view"
    return seat


def threat(view: CoupView, seat: int) -> tuple[int, int]:
    """How dangerous an opponent is: influence first, then coins."""
    return (view["counts"][seat], view["coins"][seat])


def choose_turn(view: CoupView, rng: random.Random) -> Action:
    """Pick the turn's action from what the bot holds and can afford."""
    legal = view["legal"]
    hand = view["hand"]
    me = own_seat(view)
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)

    def strongest(kind: str) -> Action:
        """The targeted action of this kind aimed at the most dangerous opponent."""
        return max(by_type[kind], key=lambda a: threat(view, a["target"]))

    if "coup" in by_type and (view["must_coup"] or view["coins"][me] >= 7):
        return strongest("coup")
    if "assassinate" in by_type and "assassin" in hand:
        choice = strongest("assassinate")
        if not was_blocked(view, "assassinate", choice["target"]) or rng.random() < 0.25:
            return choice
    if "embezzle" in by_type and "duke" not in hand and view["almshouse"] >= 3:
        return {"type": "embezzle"}
    if "duke" in hand:
        return {"type": "tax"}
    if "steal" in by_type and "captain" in hand:
        richest = max(by_type["steal"], key=lambda a: view["coins"][a["target"]])
        if view["coins"][richest["target"]] >= 2 and (
                not was_blocked(view, "steal", richest["target"]) or rng.random() < 0.25):
            return richest
    if ("ambassador" in hand or "inquisitor" in hand) and hand_value(hand) < 7:
        return {"type": "exchange"}
    if rng.random() < 0.2:
        return {"type": "tax"}
    return {"type": "foreign_aid"} if unseen(view, "duke") <= 1 else {"type": "income"}


def was_blocked(view: CoupView, action: str, target: int) -> bool:
    """Whether this seat's last such action against that target was blocked (public log)."""
    me = view["seat"]
    for entry in reversed(view["log"]):
        if entry["event"] == "round_start":
            return False
        if entry["event"] == "blocked" and entry["seat"] == me and entry["action"] == action:
            return bool(entry["blocker"] == target)
    return False


def answer_window(view: CoupView, rng: random.Random) -> Action:
    """Challenge what cannot be true, block with what is held, allow the rest."""
    legal = view["legal"]
    pend = view["pending"]
    assert pend is not None, "a window answers a declared action"
    me = view["seat"]
    hand = view["hand"]
    blocks = [a for a in legal if a["type"] == "block"]
    if blocks:
        for action in blocks:
            if action["as"] in hand:
                return action
        if pend["action"] == "assassinate" and pend["target"] == me and len(hand) == 1:
            # Nothing left to lose: a bluffed Contessa is the only hope.
            return blocks[0]
        return {"type": "allow"}
    block = pend["block"]
    claim = block["as"] if view["phase"] == "block_challenge" and block else pend["claim"]
    if claim == "no_duke":
        if "duke" in hand or rng.random() < 0.1:
            return {"type": "allow"}
        duke_cards = unseen(view, "duke")
        return {"type": "challenge"} if duke_cards >= 2 and rng.random() < 0.2 else {"type": "allow"}
    left = unseen(view, claim) if claim else 3
    if left <= 0:
        return {"type": "challenge"}
    if (pend["action"] == "assassinate" and pend["target"] == me and "contessa" not in hand
            and len(hand) == 1):
        return {"type": "challenge"}
    if left == 1 and rng.random() < 0.4:
        return {"type": "challenge"}
    if view["phase"] == "block_challenge" and pend["actor"] == me and rng.random() < 0.15:
        return {"type": "challenge"}
    return {"type": "allow"}
