"""Coup's state machine: dealing, the turn, challenge and block windows, losses, resolution.

The flow follows the Coup rules page (shared/rules/coup.md, "Resolution order"): declare (costs
paid) -> challenge window for a character claim -> block window -> the block's challenge window ->
resolve. Losing influence may need the loser's choice, so losses queue up in
``state["losers"]`` and ``state["after"]`` names the step (a key of ``STEPS``) that runs once they
are done. The moves (``declare`` … ``examine_decide``) are what the engine's ``handlers`` call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engines.base import Rng, State, next_seat, state_rng

from .cards import (
    AFTER_WINDOW,
    CHARACTER_ACTIONS,
    COSTS,
    DUKE,
    INCOME,
    MONARCHIST,
    NO_DUKE,
    POPULIST,
    STEAL_AMOUNT,
    TARGET_BLOCKS,
    CoupState,
    Phase,
    Player,
    build_court,
    claim_of,
)
from .legal import (
    challenger,
    claimed_block,
    current_window,
    living,
    may_target,
    pending,
    revealer,
    target_of,
)

Step = Callable[[CoupState], None]


def log(state: CoupState, event: str, **params: Any) -> None:
    """Append a structured log entry."""
    state["log"].append({"event": event, **params})


def rng_of(state: CoupState) -> Rng:
    """The generator that continues the state's stream (``state["draws"] = rng.counter`` after drawing)."""
    return state_rng(cast(State, state))


def reset_turn(state: CoupState, phase: Phase) -> None:
    """Nothing declared, no window, no queued loss: the game waits in ``phase``."""
    state["phase"] = phase
    state["pending"] = None
    state["window"] = None
    state["losers"] = []
    state["after"] = None


# ------------------------------------------------------------------ rounds


def deal_round(state: CoupState, first: int) -> None:
    """Shuffle a full court, deal two cards and the starting coins, assign factions."""
    opts = state["options"]
    n = state["n"]
    rng = rng_of(state)
    deck: list[str] = rng.shuffle(build_court(n, opts["inquisitor"]))
    state["draws"] = rng.counter
    players: list[Player] = []
    for seat in range(n):
        coins = 2
        if n == 2:
            # The seed gives each player 1 coin; the published head-to-head rule 1 and 2.
            coins = 1 if opts["two_player_start"] == "seed" or seat == first else 2
        players.append({"hand": [deck.pop(), deck.pop()], "lost": [], "coins": coins,
                        "faction": None, "drawn": []})
    if opts["factions"]:
        # Decision: allegiances alternate around the table from the first player.
        for i in range(n):
            players[(first + i) % n]["faction"] = MONARCHIST if i % 2 == 0 else POPULIST
    state["players"] = players
    state["deck"] = deck
    state["almshouse"] = 0
    state["turn"] = first
    reset_turn(state, Phase.ACTION)
    log(state, "round_start", round=state["match"]["round"], first=first)


def end_round_if_won(state: CoupState) -> bool:
    """If one player alone holds influence, they win the round; then the next round is dealt
    (the winner starts) or the match is over. True if the round ended."""
    alive = living(state)
    if len(alive) > 1:
        return False
    winner = alive[0]
    match = state["match"]
    match["wins"][winner] += 1
    log(state, "round_won", seat=winner, round=match["round"], wins=list(match["wins"]))
    if match["wins"][winner] >= match["target"]:
        state["result"] = {
            "winners": [winner],
            "reason": "last_standing",
            "wins": list(match["wins"]),
            "reveal": {"hands": [list(p["hand"]) for p in state["players"]],
                       "lost": [list(p["lost"]) for p in state["players"]]},
        }
        if match["target"] > 1:
            log(state, "match_won", seat=winner, wins=list(match["wins"]))
        reset_turn(state, Phase.OVER)
        return True
    # Decision: the winner of a game starts the next one.
    match["round"] += 1
    deal_round(state, winner)
    return True


def end_turn(state: CoupState) -> None:
    """Pass the turn clockwise to the next living player (unless the round just ended)."""
    if end_round_if_won(state):
        return
    state["turn"] = next_seat([bool(p["hand"]) for p in state["players"]], state["turn"])
    reset_turn(state, Phase.ACTION)


# ------------------------------------------------------------------ the moves


def declare(state: CoupState, seat: int, kind: str, target: int | None) -> None:
    """The active player declares an action; its cost is paid now."""
    claim = claim_of(kind, state["options"]["inquisitor"])
    cost = COSTS.get(kind, 0)
    state["players"][seat]["coins"] -= cost
    state["pending"] = {"actor": seat, "action": kind, "target": target, "claim": claim,
                        "paid": cost, "block": None, "challenger": None, "revealer": None,
                        "on_trial": None, "shown": None}
    entry: dict[str, Any] = {"seat": seat, "action": kind}
    if target is not None:
        entry["target"] = target
    if claim is not None:
        entry["claim"] = claim
    log(state, "declare", **entry)
    DECLARED[kind](state)


def allow(state: CoupState, seat: int) -> None:
    """One eligible seat lets the claim or the action pass; the last one closes the window."""
    win = current_window(state)
    win["answered"].append(seat)
    if set(win["answered"]) >= set(win["eligible"]):
        close_window(state, timeout=False)


def challenge(state: CoupState, seat: int) -> None:
    """The first challenge wins the race; the challenged player must reveal."""
    pend = pending(state)
    kind = current_window(state)["kind"]
    state["window"] = None
    pend["challenger"] = seat
    if kind == Phase.CHALLENGE:
        pend["on_trial"] = "action"
        pend["revealer"] = pend["actor"]
        claim = pend["claim"]
    else:
        claimed = claimed_block(pend)
        pend["on_trial"] = "block"
        pend["revealer"] = claimed["seat"]
        claim = claimed["as"]
    log(state, "challenge", seat=seat, against=pend["revealer"], claim=claim)
    if claim == NO_DUKE:
        embezzle_challenge(state)
        return
    on_trial = revealer(pend)
    hand = state["players"][on_trial]["hand"]
    if len(hand) == 1:
        reveal(state, on_trial, hand[0])
    else:
        state["phase"] = Phase.REVEAL


def block(state: CoupState, seat: int, card: str) -> None:
    """The first block wins the race; it opens its own challenge window."""
    pend = pending(state)
    state["window"] = None
    pend["block"] = {"seat": seat, "as": card}
    log(state, "block", seat=seat, card=card, against=pend["actor"], action=pend["action"])
    open_window(state, Phase.BLOCK_CHALLENGE, [s for s in living(state) if s != seat])


def reveal(state: CoupState, seat: int, card: str) -> None:
    """Judge a challenge: the shown card proves the claim or loses the bluffer that card."""
    pend = pending(state)
    on_action = pend["on_trial"] == "action"
    claim = pend["claim"] if on_action else claimed_block(pend)["as"]
    proved = card == claim
    log(state, "reveal", seat=seat, card=card, claim=claim, proved=proved)
    if proved:
        replace_card(state, seat, card)
        state["losers"] = [challenger(pend)]
        state["after"] = "claim_stands" if on_action else "block_stands"
        process_losses(state)
        return
    lose_card(state, seat, card)
    if end_round_if_won(state):
        return
    if on_action:
        fail_action(state)
    else:
        resolve(state)


def lose(state: CoupState, seat: int, card: str) -> None:
    """The first queued loser turns the chosen card face up; the queue goes on."""
    state["losers"].pop(0)
    lose_card(state, seat, card)
    if not end_round_if_won(state):
        process_losses(state)


def finish_exchange(state: CoupState, seat: int, cards: list[str]) -> None:
    """Send the chosen cards back to the court (shuffled) and keep the rest."""
    player = state["players"][seat]
    pool = player["hand"] + player["drawn"]
    for card in cards:
        pool.remove(card)
    player["hand"] = pool
    player["drawn"] = []
    rng = rng_of(state)
    state["deck"] = rng.shuffle(state["deck"] + list(cards))
    state["draws"] = rng.counter
    log(state, "exchanged", seat=seat, count=len(cards))
    log(state, "kept", to=seat, cards=sorted(pool), private=True)
    end_turn(state)


def show(state: CoupState, card: str) -> None:
    """The examined player shows the card they chose to the examiner alone."""
    pend = pending(state)
    pend["shown"] = card
    log(state, "shown", seat=pend["target"], to_seat=pend["actor"])
    log(state, "examined", to=pend["actor"], target=pend["target"], card=card, private=True)
    log(state, "examined", to=pend["target"], target=pend["target"], card=card, private=True)
    state["phase"] = Phase.EXAMINE_DECIDE


def examine_decide(state: CoupState, swap: bool) -> None:
    """The examiner hands the card back or forces it into the court for a replacement."""
    pend = pending(state)
    log(state, "examine_done", seat=pend["actor"], target=pend["target"], swap=swap)
    if swap:
        card = pend["shown"]
        assert card is not None, "no card was shown"
        replace_card(state, target_of(pend), card)
    end_turn(state)


# ------------------------------------------------------------------ what a declaration opens


def take_income(state: CoupState) -> None:
    """Income: one coin, nothing to answer."""
    pend = pending(state)
    state["players"][pend["actor"]]["coins"] += INCOME["income"]
    end_turn(state)


def target_loses(state: CoupState) -> None:
    """A Coup (at once, no answer possible) or an Assassination that stands: the target loses an influence."""
    state["losers"] = [target_of(pending(state))]
    state["after"] = "end_turn"
    process_losses(state)


def convert(state: CoupState) -> None:
    """Pay 1 (self) or 2 (another) to the almshouse and flip the target's faction."""
    pend = pending(state)
    seat = pend["actor"]
    target = target_of(pend)
    cost = 1 if target == seat else 2
    state["players"][seat]["coins"] -= cost
    state["almshouse"] += cost
    other = state["players"][target]
    other["faction"] = POPULIST if other["faction"] == MONARCHIST else MONARCHIST
    log(state, "converted", seat=seat, target=target, faction=other["faction"], cost=cost)
    end_turn(state)


def open_challenge_window(state: CoupState) -> None:
    """A character claim: every other living player may challenge it."""
    actor = pending(state)["actor"]
    open_window(state, Phase.CHALLENGE, [s for s in living(state) if s != actor])


def open_block_window(state: CoupState) -> None:
    """Offer the block to the eligible blockers (the target; anyone for Foreign Aid)."""
    pend = pending(state)
    actor = pend["actor"]
    if pend["action"] == "foreign_aid":
        # Any other living player may claim Duke, but not against their own faction.
        eligible = [s for s in living(state) if s != actor and may_target(state, s, actor)]
    else:
        target = target_of(pend)
        eligible = [target] if may_target(state, target, actor) else []
    open_window(state, Phase.BLOCK, eligible)


# What each declared action does at once.
DECLARED: dict[str, Step] = {
    "income": take_income,
    "coup": target_loses,
    "convert": convert,
    "foreign_aid": open_block_window,
    **dict.fromkeys(CHARACTER_ACTIONS, open_challenge_window),
}


# ------------------------------------------------------------------ windows


def open_window(state: CoupState, kind: Phase, eligible: list[int]) -> None:
    """Open a timed response window (or close it at once if nobody may answer)."""
    state["window_count"] += 1
    state["window"] = {"id": f"{state['window_count']}:{kind}", "kind": kind,
                       "eligible": list(eligible), "answered": []}
    state["phase"] = kind
    if not eligible:
        close_window(state, timeout=False, quiet=True)


def close_window(state: CoupState, timeout: bool, quiet: bool = False) -> None:
    """Everyone allowed (or the timer ran out): the claim or block stands, or nobody blocked."""
    kind = current_window(state)["kind"]
    state["window"] = None
    if not quiet:
        log(state, "window_closed", kind=kind, timeout=timeout)
    STEPS[AFTER_WINDOW[kind]](state)


def claim_stands(state: CoupState) -> None:
    """The claim was not challenged (or was proved): the target may block a Steal or an Assassination."""
    pend = pending(state)
    if pend["action"] in TARGET_BLOCKS and state["players"][target_of(pend)]["hand"]:
        open_block_window(state)
    else:
        resolve(state)


def block_stands(state: CoupState) -> None:
    """The block was not challenged (or was proved): the action fails, the turn ends."""
    pend = pending(state)
    claimed = claimed_block(pend)
    log(state, "blocked", seat=pend["actor"], action=pend["action"], blocker=claimed["seat"],
        card=claimed["as"])
    end_turn(state)


# ------------------------------------------------------------------ challenges and losses


def replace_card(state: CoupState, seat: int, card: str) -> None:
    """Shuffle a shown card into the court and draw a replacement (secretly)."""
    replace_cards(state, seat, [card])


def replace_cards(state: CoupState, seat: int, cards: list[str]) -> None:
    """Shuffle shown cards into the court together and draw as many replacements."""
    player = state["players"][seat]
    for card in cards:
        player["hand"].remove(card)
    rng = rng_of(state)
    deck: list[str] = rng.shuffle(state["deck"] + list(cards))
    state["draws"] = rng.counter
    new = [deck.pop() for _ in cards]
    state["deck"] = deck
    player["hand"].extend(new)
    log(state, "replaced", seat=seat, cards=list(cards))
    log(state, "drew", to=seat, cards=new, private=True)


def fail_action(state: CoupState) -> None:
    """A caught bluff: the action fails; a caught Assassin gets the 3 coins back."""
    pend = pending(state)
    actor = state["players"][pend["actor"]]
    log(state, "failed", seat=pend["actor"], action=pend["action"])
    if pend["action"] == "assassinate" and pend["paid"] and actor["hand"]:
        # Decision (published rules): refunded when the Assassin is caught bluffing.
        actor["coins"] += pend["paid"]
        log(state, "refund", seat=pend["actor"], amount=pend["paid"])
    end_turn(state)


def embezzle_challenge(state: CoupState) -> None:
    """Embezzle challenged: every face-down card is shown; any Duke means a bluff."""
    pend = pending(state)
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
        if end_round_if_won(state):
            return
        fail_action(state)
        return
    replace_cards(state, seat, shown)
    state["losers"] = [challenger(pend)]
    state["after"] = "claim_stands"
    process_losses(state)


def lose_card(state: CoupState, seat: int, card: str) -> None:
    """Turn one face-down card face-up for good; no cards left means elimination."""
    player = state["players"][seat]
    player["hand"].remove(card)
    player["lost"].append(card)
    log(state, "lost", seat=seat, card=card)
    if not player["hand"]:
        # Decision: an eliminated player's coins return to the treasury.
        player["coins"] = 0
        log(state, "eliminated", seat=seat)


def process_losses(state: CoupState) -> None:
    """Take the queued losses (asking the loser when there is a choice), then run ``state["after"]``."""
    while state["losers"]:
        seat = state["losers"][0]
        hand = state["players"][seat]["hand"]
        if not hand:
            # Already eliminated: the remaining effect is void.
            state["losers"].pop(0)
            continue
        if len(hand) > 1:
            state["phase"] = Phase.LOSE
            return
        state["losers"].pop(0)
        lose_card(state, seat, hand[0])
        if end_round_if_won(state):
            return
    step = state["after"]
    state["after"] = None
    if step is not None:
        STEPS[step](state)


# ------------------------------------------------------------------ resolution


def resolve(state: CoupState) -> None:
    """The action takes effect (void against an eliminated target: the turn just ends)."""
    pend = pending(state)
    target = pend["target"]
    if target is not None and not state["players"][target]["hand"]:
        end_turn(state)
        return
    EFFECTS[pend["action"]](state)


def take_coins(state: CoupState) -> None:
    """Foreign Aid or Tax: coins from the treasury."""
    pend = pending(state)
    kind = pend["action"]
    amount = INCOME[kind]
    state["players"][pend["actor"]]["coins"] += amount
    log(state, "gained", seat=pend["actor"], amount=amount, action=kind)
    end_turn(state)


def steal(state: CoupState) -> None:
    """Steal: up to two coins from the target."""
    pend = pending(state)
    players = state["players"]
    target = target_of(pend)
    amount = min(STEAL_AMOUNT, players[target]["coins"])
    players[target]["coins"] -= amount
    players[pend["actor"]]["coins"] += amount
    log(state, "stole", seat=pend["actor"], target=target, amount=amount)
    end_turn(state)


def draw_for_exchange(state: CoupState) -> None:
    """Exchange: draw two cards from the court (one with the Inquisitor), secretly."""
    pend = pending(state)
    me = state["players"][pend["actor"]]
    size = min(1 if state["options"]["inquisitor"] else 2, len(state["deck"]))
    me["drawn"] = [state["deck"].pop() for _ in range(size)]
    log(state, "drew", to=pend["actor"], cards=list(me["drawn"]), private=True)
    state["phase"] = Phase.EXCHANGE


def examine(state: CoupState) -> None:
    """Examine: the target shows a card of their choice (no choice with one card)."""
    hand = state["players"][target_of(pending(state))]["hand"]
    if len(hand) == 1:
        show(state, hand[0])
    else:
        state["phase"] = Phase.EXAMINE_SHOW


def embezzle(state: CoupState) -> None:
    """Embezzle: every coin in the almshouse."""
    pend = pending(state)
    amount = state["almshouse"]
    state["almshouse"] = 0
    state["players"][pend["actor"]]["coins"] += amount
    log(state, "embezzled", seat=pend["actor"], amount=amount)
    end_turn(state)


# What a character or general action does once nothing stops it.
EFFECTS: dict[str, Step] = {
    "foreign_aid": take_coins,
    "tax": take_coins,
    "steal": steal,
    "assassinate": target_loses,
    "exchange": draw_for_exchange,
    "examine": examine,
    "embezzle": embezzle,
}

# The steps that continue a turn after a window or a queue of losses (``state["after"]``).
STEPS: dict[str, Step] = {
    "end_turn": end_turn,
    "claim_stands": claim_stands,
    "block_stands": block_stands,
    "resolve": resolve,
}
