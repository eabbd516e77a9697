"""Coup's state machine: the turn, challenge and block windows, losses, resolution.

The flow follows /work/shared/rules/coup.md ("Resolution order"): declare (costs paid) ->
challenge window for a character claim -> block window -> the block's challenge window ->
resolve. Losing influence may need the loser's choice, so losses queue up in
``state["losers"]`` and ``state["after"]`` names the step that runs once they are done.
"""

from __future__ import annotations

from typing import cast

from engines.base import IllegalAction, state_rng

from .cards import ASSASSINATE_COST, COUP_COST, DUKE, MONARCHIST, NO_DUKE, POPULIST, claim_of
from .table import living, may_target, round_over


def apply_action(state: dict, seat: int, action: dict) -> None:
    """Play a legal action (already checked) on the state, in place."""
    phase = state["phase"]
    kind = action["type"]
    if phase == "action":
        declare(state, seat, action)
    elif kind == "allow":
        state["window"]["answered"].append(seat)
        win = state["window"]
        if set(win["answered"]) >= set(win["eligible"]):
            close_window(state, timeout=False)
    elif kind == "challenge":
        challenge(state, seat)
    elif kind == "block":
        block(state, seat, action["as"])
    elif kind == "reveal":
        reveal(state, seat, action["card"])
    elif kind == "lose":
        state["losers"].pop(0)
        lose_card(state, seat, action["card"])
        if not round_over(state):
            process_losses(state)
    elif kind == "return":
        finish_exchange(state, seat, action["cards"])
    elif kind == "show":
        show(state, action["card"])
    elif kind == "examine_decide":
        examine_decide(state, action["swap"])
    else:  # pragma: no cover - legal_actions lists nothing else
        raise IllegalAction(f"unknown action {kind}")


def log(state: dict, event: str, **params) -> None:
    """Append a structured log entry."""
    state["log"].append({"event": event, **params})


def declare(state: dict, seat: int, action: dict) -> None:
    """The active player declares an action; costs are paid now."""
    kind = action["type"]
    target = cast(int, action.get("target"))  # present for every targeted action
    player = state["players"][seat]
    claim = claim_of(kind, state["options"]["inquisitor"])
    state["pending"] = {"actor": seat, "action": kind, "target": target, "claim": claim,
                        "paid": 0, "block": None, "challenger": None, "revealer": None,
                        "on_trial": None, "shown": None}
    entry = {"seat": seat, "action": kind}
    if target is not None:
        entry["target"] = target
    if claim is not None:
        entry["claim"] = claim
    log(state, "declare", **entry)
    if kind == "income":
        player["coins"] += 1
        end_turn(state)
    elif kind == "coup":
        player["coins"] -= COUP_COST
        state["pending"]["paid"] = COUP_COST
        state["losers"] = [target]
        state["after"] = "end_turn"
        process_losses(state)
    elif kind == "convert":
        convert(state, seat, target)
    elif kind == "foreign_aid":
        open_block_window(state)
    else:
        if kind == "assassinate":
            player["coins"] -= ASSASSINATE_COST
            state["pending"]["paid"] = ASSASSINATE_COST
        open_window(state, "challenge", [s for s in living(state) if s != seat])


def convert(state: dict, seat: int, target: int) -> None:
    """Pay 1 (self) or 2 (another) to the almshouse and flip the target's faction."""
    cost = 1 if target == seat else 2
    state["players"][seat]["coins"] -= cost
    state["almshouse"] += cost
    other = state["players"][target]
    other["faction"] = POPULIST if other["faction"] == MONARCHIST else MONARCHIST
    log(state, "converted", seat=seat, target=target, faction=other["faction"], cost=cost)
    end_turn(state)


def open_window(state: dict, kind: str, eligible: list[int]) -> None:
    """Open a timed response window (or close it at once if nobody may answer)."""
    state["window_count"] += 1
    state["window"] = {"id": f"{state['window_count']}:{kind}", "kind": kind,
                       "eligible": list(eligible), "answered": []}
    state["phase"] = kind
    if not eligible:
        close_window(state, timeout=False, quiet=True)


def close_window(state: dict, timeout: bool, quiet: bool = False) -> None:
    """Everyone allowed (or the timer ran out): the claim or block stands, or nobody blocked."""
    kind = state["window"]["kind"]
    state["window"] = None
    if not quiet:
        log(state, "window_closed", kind=kind, timeout=timeout)
    if kind == "challenge":
        run(state, "claim_stands")
    elif kind == "block":
        run(state, "resolve")
    else:
        run(state, "block_stands")


def open_block_window(state: dict) -> None:
    """Offer the block to the eligible blockers (the target; anyone for Foreign Aid)."""
    pend = state["pending"]
    actor = pend["actor"]
    if pend["action"] == "foreign_aid":
        # Any other living player may claim Duke, but not against their own faction.
        eligible = [s for s in living(state) if s != actor and may_target(state, s, actor)]
    else:
        target = pend["target"]
        eligible = [target] if may_target(state, target, actor) else []
    open_window(state, "block", eligible)


def run(state: dict, step: str) -> None:
    """Continue the turn after a window or a queue of losses."""
    pend = state["pending"]
    if step == "end_turn":
        end_turn(state)
    elif step == "claim_stands":
        target = pend["target"]
        if pend["action"] in ("steal", "assassinate") and state["players"][target]["hand"]:
            open_block_window(state)
        else:
            resolve(state)
    elif step == "block_stands":
        log(state, "blocked", seat=pend["actor"], action=pend["action"],
            blocker=pend["block"]["seat"], card=pend["block"]["as"])
        end_turn(state)
    elif step == "resolve":
        resolve(state)


def block(state: dict, seat: int, card: str) -> None:
    """The first block wins the race; it opens its own challenge window."""
    pend = state["pending"]
    state["window"] = None
    pend["block"] = {"seat": seat, "as": card}
    log(state, "block", seat=seat, card=card, against=pend["actor"], action=pend["action"])
    open_window(state, "block_challenge", [s for s in living(state) if s != seat])


def challenge(state: dict, seat: int) -> None:
    """The first challenge wins the race; the challenged player must reveal."""
    pend = state["pending"]
    kind = state["window"]["kind"]
    state["window"] = None
    pend["challenger"] = seat
    if kind == "challenge":
        pend["on_trial"] = "action"
        pend["revealer"] = pend["actor"]
        claim = pend["claim"]
    else:
        pend["on_trial"] = "block"
        pend["revealer"] = pend["block"]["seat"]
        claim = pend["block"]["as"]
    log(state, "challenge", seat=seat, against=pend["revealer"], claim=claim)
    if claim == NO_DUKE:
        embezzle_challenge(state)
        return
    hand = state["players"][pend["revealer"]]["hand"]
    if len(hand) == 1:
        reveal(state, pend["revealer"], hand[0])
    else:
        state["phase"] = "reveal"


def replace_card(state: dict, seat: int, card: str) -> None:
    """Shuffle a shown card into the court and draw a replacement (secretly)."""
    replace_cards(state, seat, [card])


def replace_cards(state: dict, seat: int, cards: list[str]) -> None:
    """Shuffle shown cards into the court together and draw as many replacements."""
    player = state["players"][seat]
    for card in cards:
        player["hand"].remove(card)
    rng = state_rng(state)
    deck = rng.shuffle(state["deck"] + list(cards))
    state["draws"] = rng.counter
    new = [deck.pop() for _ in cards]
    state["deck"] = deck
    player["hand"].extend(new)
    log(state, "replaced", seat=seat, cards=list(cards))
    log(state, "drew", to=seat, cards=new, private=True)


def reveal(state: dict, seat: int, card: str) -> None:
    """Judge a challenge: the shown card proves the claim or loses the bluffer that card."""
    pend = state["pending"]
    on_action = pend["on_trial"] == "action"
    claim = pend["claim"] if on_action else pend["block"]["as"]
    proved = card == claim
    log(state, "reveal", seat=seat, card=card, claim=claim, proved=proved)
    if proved:
        replace_card(state, seat, card)
        state["losers"] = [pend["challenger"]]
        state["after"] = "claim_stands" if on_action else "block_stands"
        process_losses(state)
        return
    lose_card(state, seat, card)
    if round_over(state):
        return
    if on_action:
        fail_action(state)
    else:
        run(state, "resolve")


def fail_action(state: dict) -> None:
    """A caught bluff: the action fails; a caught Assassin gets the 3 coins back."""
    pend = state["pending"]
    actor = state["players"][pend["actor"]]
    log(state, "failed", seat=pend["actor"], action=pend["action"])
    if pend["action"] == "assassinate" and pend["paid"] and actor["hand"]:
        # Decision (published rules): refunded when the Assassin is caught bluffing.
        actor["coins"] += pend["paid"]
        log(state, "refund", seat=pend["actor"], amount=pend["paid"])
    end_turn(state)


def embezzle_challenge(state: dict) -> None:
    """Embezzle challenged: every face-down card is shown; any Duke means a bluff."""
    pend = state["pending"]
    seat = pend["actor"]
    player = state["players"][seat]
    shown = sorted(player["hand"])
    has_duke = DUKE in shown
    log(state, "reveal_all", seat=seat, cards=shown, proved=not has_duke)
    if has_duke:
        lose_card(state, seat, DUKE)
        others = list(player["hand"])
        if others:
            replace_cards(state, seat, others)
        if round_over(state):
            return
        fail_action(state)
        return
    replace_cards(state, seat, shown)
    state["losers"] = [pend["challenger"]]
    state["after"] = "claim_stands"
    process_losses(state)


def lose_card(state: dict, seat: int, card: str) -> None:
    """Turn one face-down card face-up for good; no cards left means elimination."""
    player = state["players"][seat]
    player["hand"].remove(card)
    player["lost"].append(card)
    log(state, "lost", seat=seat, card=card)
    if not player["hand"]:
        # Decision: an eliminated player's coins return to the treasury.
        player["coins"] = 0
        log(state, "eliminated", seat=seat)


def process_losses(state: dict) -> None:
    """Take the queued losses (asking the loser when there is a choice), then continue."""
    while state["losers"]:
        seat = state["losers"][0]
        hand = state["players"][seat]["hand"]
        if not hand:
            # Already eliminated: the remaining effect is void.
            state["losers"].pop(0)
            continue
        if len(hand) > 1:
            state["phase"] = "lose"
            return
        state["losers"].pop(0)
        lose_card(state, seat, hand[0])
        if round_over(state):
            return
    step = state["after"]
    state["after"] = None
    run(state, step)


def resolve(state: dict) -> None:
    """The action takes effect (void against an eliminated target)."""
    pend = state["pending"]
    kind = pend["action"]
    actor = pend["actor"]
    players = state["players"]
    me = players[actor]
    target = pend["target"]
    alive_target = target is not None and bool(players[target]["hand"])
    if kind == "foreign_aid":
        me["coins"] += 2
        log(state, "gained", seat=actor, amount=2, action=kind)
    elif kind == "tax":
        me["coins"] += 3
        log(state, "gained", seat=actor, amount=3, action=kind)
    elif kind == "steal" and alive_target:
        amount = min(2, players[target]["coins"])
        players[target]["coins"] -= amount
        me["coins"] += amount
        log(state, "stole", seat=actor, target=target, amount=amount)
    elif kind == "assassinate" and alive_target:
        state["losers"] = [target]
        state["after"] = "end_turn"
        process_losses(state)
        return
    elif kind == "exchange":
        size = min(1 if state["options"]["inquisitor"] else 2, len(state["deck"]))
        me["drawn"] = [state["deck"].pop() for _ in range(size)]
        log(state, "drew", to=actor, cards=list(me["drawn"]), private=True)
        state["phase"] = "exchange"
        return
    elif kind == "examine" and alive_target:
        hand = players[target]["hand"]
        if len(hand) == 1:
            show(state, hand[0])
        else:
            state["phase"] = "examine_show"
        return
    elif kind == "embezzle":
        amount = state["almshouse"]
        state["almshouse"] = 0
        me["coins"] += amount
        log(state, "embezzled", seat=actor, amount=amount)
    end_turn(state)


def finish_exchange(state: dict, seat: int, cards: list[str]) -> None:
    """Send the chosen cards back to the court (shuffled) and keep the rest."""
    player = state["players"][seat]
    pool = player["hand"] + player["drawn"]
    for card in cards:
        pool.remove(card)
    player["hand"] = pool
    player["drawn"] = []
    rng = state_rng(state)
    state["deck"] = rng.shuffle(state["deck"] + list(cards))
    state["draws"] = rng.counter
    log(state, "exchanged", seat=seat, count=len(cards))
    log(state, "kept", to=seat, cards=sorted(pool), private=True)
    end_turn(state)


def show(state: dict, card: str) -> None:
    """The examined player shows the card they chose to the examiner alone."""
    pend = state["pending"]
    pend["shown"] = card
    log(state, "shown", seat=pend["target"], to_seat=pend["actor"])
    log(state, "examined", to=pend["actor"], target=pend["target"], card=card, private=True)
    log(state, "examined", to=pend["target"], target=pend["target"], card=card, private=True)
    state["phase"] = "examine_decide"


def examine_decide(state: dict, swap: bool) -> None:
    """The examiner hands the card back or forces it into the court for a replacement."""
    pend = state["pending"]
    log(state, "examine_done", seat=pend["actor"], target=pend["target"], swap=swap)
    if swap:
        replace_card(state, pend["target"], pend["shown"])
    end_turn(state)


def end_turn(state: dict) -> None:
    """Pass the turn clockwise to the next living player."""
    if round_over(state):
        return
    n = state["n"]
    seat = state["turn"]
    for step in range(1, n + 1):
        nxt = (seat + step) % n
        if state["players"][nxt]["hand"]:
            break
    state.update(turn=nxt, phase="action", pending=None, window=None, losers=[], after=None)
