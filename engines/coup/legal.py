"""Which concrete actions each seat may play now and whose answer the game awaits.

Also the readers of the state that the rules and the views share (the declared action, the open
window, who is alive, who may target whom): ``rules`` imports them from here, never the reverse.
"""

from __future__ import annotations

from itertools import combinations

from .cards import (
    ASSASSINATE_COST,
    COUP_COST,
    FORCED_COUP_AT,
    TURN_ACTIONS,
    WINDOW_PHASES,
    Action,
    Block,
    CoupState,
    Pending,
    Phase,
    Player,
    Window,
    blockers_of,
)

# ------------------------------------------------------------------ reading the state


def pending(state: CoupState) -> Pending:
    """The declared action (there is one in every phase but the turn and the end)."""
    pend = state["pending"]
    assert pend is not None, "no declared action"
    return pend


def current_window(state: CoupState) -> Window:
    """The open challenge or block window (there is one in every window phase)."""
    win = state["window"]
    assert win is not None, "no open window"
    return win


def challenger(pend: Pending) -> int:
    """The seat that challenged."""
    seat = pend["challenger"]
    assert seat is not None, "nobody challenged"
    return seat


def claimed_block(pend: Pending) -> Block:
    """The block claimed against the action."""
    block = pend["block"]
    assert block is not None, "nobody blocked"
    return block


def revealer(pend: Pending) -> int:
    """The seat a challenge calls on to reveal."""
    seat = pend["revealer"]
    assert seat is not None, "nobody was challenged"
    return seat


def target_of(pend: Pending) -> int:
    """The target of a targeted action."""
    seat = pend["target"]
    assert seat is not None, "the action has no target"
    return seat


def living(state: CoupState) -> list[int]:
    """Seats that still hold influence, in table order."""
    return [s for s, p in enumerate(state["players"]) if p["hand"]]


def restricted(state: CoupState) -> bool:
    """The Factions rule is in force: both factions are present among living players."""
    if not state["options"]["factions"]:
        return False
    return len({state["players"][s]["faction"] for s in living(state)}) > 1


def may_target(state: CoupState, actor: int, target: int) -> bool:
    """Another living player, not of the actor's faction while the restriction holds."""
    if target == actor or not state["players"][target]["hand"]:
        return False
    players = state["players"]
    return not (restricted(state) and players[actor]["faction"] == players[target]["faction"])


def silent(state: CoupState) -> bool:
    """A silent challenge or block window is open (table option ``silent_windows``): nobody taps Allow."""
    return bool(state["options"].get("silent_windows")) and state["phase"] in WINDOW_PHASES


# ------------------------------------------------------------------ legal actions and awaited seats


def legal_actions(state: CoupState, seat: int) -> list[Action]:
    """Every concrete action ``seat`` may play now."""
    phase = state["phase"]
    players = state["players"]
    if phase == Phase.OVER or not 0 <= seat < state["n"]:
        return []
    if phase == Phase.ACTION:
        return turn_actions(state, seat) if seat == state["turn"] else []
    pend = pending(state)
    if phase in WINDOW_PHASES:
        win = current_window(state)
        if seat not in win["eligible"] or seat in win["answered"]:
            return []
        # A silent window has no Allow: not answering allows (the countdown closes it).
        allow: list[Action] = [] if silent(state) else [{"type": "allow"}]
        if phase == Phase.BLOCK:
            blocks = blockers_of(pend["action"], state["options"]["inquisitor"])
            return [{"type": "block", "as": card} for card in blocks] + allow
        return [{"type": "challenge"}, *allow]
    if phase == Phase.REVEAL and seat == pend["revealer"]:
        return [{"type": "reveal", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == Phase.LOSE and seat == state["losers"][0]:
        return [{"type": "lose", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == Phase.EXCHANGE and seat == pend["actor"]:
        return [{"type": "return", "cards": list(c)} for c in exchange_returns(players[seat])]
    if phase == Phase.EXAMINE_SHOW and seat == pend["target"]:
        return [{"type": "show", "card": c} for c in sorted(set(players[seat]["hand"]))]
    if phase == Phase.EXAMINE_DECIDE and seat == pend["actor"]:
        return [{"type": "examine_decide", "swap": False}, {"type": "examine_decide", "swap": True}]
    return []


def exchange_returns(player: Player) -> list[tuple[str, ...]]:
    """The distinct sets of cards (sorted) the exchanging player may send back."""
    pool = sorted(player["hand"] + player["drawn"])
    return sorted(set(combinations(pool, len(player["drawn"]))))


def turn_actions(state: CoupState, seat: int) -> list[Action]:
    """The actions the active player can afford (only Coup from 10 coins up)."""
    opts = state["options"]
    coins = state["players"][seat]["coins"]
    targets = [t for t in range(state["n"]) if may_target(state, seat, t)]
    coups: list[Action] = [{"type": "coup", "target": t} for t in targets]
    if coins >= FORCED_COUP_AT:
        return coups
    actions: list[Action] = [{"type": "income"}, {"type": "foreign_aid"}]
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


def awaiting(state: CoupState) -> set[int]:
    """The seats whose answer the game is waiting for."""
    phase = state["phase"]
    if phase == Phase.OVER:
        return set()
    if phase == Phase.ACTION:
        return {state["turn"]}
    pend = pending(state)
    if phase in WINDOW_PHASES:
        if silent(state):
            return set()  # nobody must answer: the countdown closes the window
        win = current_window(state)
        return set(win["eligible"]) - set(win["answered"])
    if phase == Phase.REVEAL:
        return {revealer(pend)}
    if phase == Phase.LOSE:
        return {state["losers"][0]}
    if phase == Phase.EXAMINE_SHOW:
        return {target_of(pend)}
    return {pend["actor"]}


# ------------------------------------------------------------------ taking a move back (engine.undoable)

# The moves a table may agree to take back, where they showed nothing: a declaration (a claim is a word, not a card),
# an answer in a window, a block, a challenge before the challenged player shows a card, the examiner's decision.
# Never a reveal or a loss (a card turned face up), the end of an Exchange (the cards kept, the court shuffled), or
# the card shown to an examiner.
UNDOABLE_MOVES = frozenset({*TURN_ACTIONS, "allow", "challenge", "block", "examine_decide"})
# What such a move may write to the log and still be taken back. Any other entry shows what an undo would hide: a
# card revealed ("reveal", "reveal_all") or lost ("lost"), a replacement or an Exchange drawn ("drew", "replaced"),
# a shown card ("shown", "examined"), a round won and the next one dealt.
QUIET_EVENTS = frozenset({"declare", "challenge", "block", "window_closed", "blocked", "gained", "stole",
                          "embezzled", "converted", "examine_done"})


def undoable(before: CoupState, seat: int, action: Action, after: CoupState) -> bool:
    """Whether the move is one of ``UNDOABLE_MOVES`` and wrote only ``QUIET_EVENTS`` (``after`` extends ``before``'s
    log: the generic rule checked it)."""
    written = after["log"][len(before["log"]):]
    return action["type"] in UNDOABLE_MOVES and all(entry["event"] in QUIET_EVENTS for entry in written)
