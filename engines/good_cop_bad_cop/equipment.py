"""The equipment cards, one record each: when it may be played, its concrete targets, and its effect.

``CARDS[name]`` is an :class:`Equipment`. ``plays`` lists every legal play of a seat's hand from
the records; ``play`` does what every card does when played (discard, log, close the window it
was played in) and then the card's own ``effect``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cards import Action, Frame, GameState, Kind, When
from .table import (
    aim_choice,
    distinct_orders,
    face_down,
    learn,
    living,
    log,
    others,
    push,
    reveal_card,
    rules_version,
    tell,
)

Extras = dict[str, Any]
Ready = Callable[[GameState, int, Frame], bool]
Targets = Callable[[GameState, int, Frame], list[Extras]]
Effect = Callable[[GameState, int, Action, Frame], None]

ANYWHERE = frozenset(When)
OWN_TURN = frozenset({When.OWN})


def always(state: GameState, seat: int, frame: Frame) -> bool:
    """No condition beyond the card's contexts."""
    return True


@dataclass(frozen=True)
class Equipment:
    """One equipment card.

    ``when``: the contexts it may be played in (its holder's own turn, or a window after an
    Investigate, on a Shoot, at the end of a turn), and ``ready`` the condition on top of them;
    ``targets``: the extra fields of every legal way to play it now; ``effect``: what it does.
    """

    when: frozenset[When]
    targets: Targets
    effect: Effect
    ready: Ready = always
    # Action fields only its player sees (kept out of the public log).
    secret: tuple[str, ...] = ()
    # It stays in front of its target for the rest of the game instead of going back to the deck.
    stays: bool = False
    # Played on a Shoot it decides the shot itself (else the shooter gets the action phase back).
    answers_shoot: bool = False


# ---------------------------------------------------------------- shared targets and helpers

def no_target(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """A card played as it is (one way to play it)."""
    return [{}]


def another_player(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Any other living player."""
    return [{"target": t} for t in others(state, seat)]


def positions(state: GameState, seat: int, only_face_down: bool) -> list[int]:
    """Card positions (3 * seat + index) of a seat, optionally face-down ones only."""
    player = state["players"][seat]
    return [3 * seat + i for i in range(len(player["cards"])) if not (only_face_down and player["up"][i])]


def cross_pairs(state: GameState, seats: list[int], only_face_down: bool) -> list[list[int]]:
    """Pairs of positions [p, q], p < q, of two different seats."""
    pool = [p for s in seats for p in positions(state, s, only_face_down)]
    return [[p, q] for i, p in enumerate(pool) for q in pool[i + 1:] if p // 3 != q // 3]


def product(groups: list[list[int]]) -> list[list[int]]:
    """Every choice of one element from each group."""
    result: list[list[int]] = [[]]
    for group in groups:
        result = [done + [x] for done in result for x in group]
    return result


def swap(state: GameState, a: int, b: int) -> None:
    """Swap the integrity cards at positions a and b; each keeps its face (up or down)."""
    pa, pb = state["players"][a // 3], state["players"][b // 3]
    ia, ib = a % 3, b % 3
    pa["cards"][ia], pb["cards"][ib] = pb["cards"][ib], pa["cards"][ia]
    pa["up"][ia], pb["up"][ib] = pb["up"][ib], pa["up"][ia]


def learn_picks(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """See the picked cards (Metal Detector, Wiretap)."""
    for pos in action["cards"]:
        learn(state, seat, pos // 3, pos % 3, action["card"])


# ---------------------------------------------------------------- the cards, one block each

# Blackmail: swap any two cards of two other players.
def blackmail_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Pairs of any two cards of two different other players."""
    return [{"cards": pair} for pair in cross_pairs(state, others(state, seat), False)]


def blackmail(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Swap the two cards."""
    swap(state, *action["cards"])


BLACKMAIL = Equipment(ANYWHERE, blackmail_targets, blackmail)


# Coffee: take the next turn.
def coffee(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """The next turn is this player's."""
    state["coffee"] = seat


COFFEE = Equipment(ANYWHERE, no_target, coffee)


# Defibrillator: bring an eliminated player back with one card of their choice (5+ players).
def defibrillator_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Each eliminated other player, with each card they may keep."""
    players = state["players"]
    dead = [s for s in range(len(players)) if not players[s]["alive"] and s != seat]
    return [{"target": t, "keep": i} for t in dead for i in range(len(players[t]["cards"]))]


def defibrillator(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """The player is back, unwounded, with the kept card face-up; the others leave the game."""
    revived = state["players"][action["target"]]
    kept = revived["cards"][action["keep"]]
    state["removed"].extend(c for i, c in enumerate(revived["cards"]) if i != action["keep"])
    revived["cards"], revived["up"], revived["alive"], revived["wounded"] = [kept], [True], True, False


DEFIBRILLATOR = Equipment(ANYWHERE, defibrillator_targets, defibrillator)


# Evidence Bag: take another player's equipment card.
def evidence_bag(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Take the target's equipment (each of the two sees which); the table sees whether."""
    target = action["target"]
    players = state["players"]
    victim = players[target]["hand"]
    taken = bool(victim)
    if taken:
        players[seat]["hand"].append(victim.pop(0))
        tell(state, "drew", seat, equipment=players[seat]["hand"][-1])
        tell(state, "lost", target, equipment=players[seat]["hand"][-1])
    log(state, "bag_result", seat=seat, target=target, taken=taken)


EVIDENCE_BAG = Equipment(ANYWHERE, another_player, evidence_bag)


# Flashbang: rearrange your own cards, all face-down again (the new order stays secret).
def flashbang_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Each distinct new order of one's own cards."""
    return [{"order": order} for order in distinct_orders(state["players"][seat]["cards"])]


def flashbang(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Reorder one's cards and turn them all face-down."""
    me = state["players"][seat]
    me["cards"] = [me["cards"][i] for i in action["order"]]
    me["up"] = [False] * len(me["cards"])


FLASHBANG = Equipment(ANYWHERE, flashbang_targets, flashbang, secret=("order",))


# K-9 Unit: disarm a player; on their own turn they may not arm again.
def k9_unit(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """The target's gun goes back; the Lead Investigator so disarmed cannot Arm this turn."""
    target = action["target"]
    victim = state["players"][target]
    if victim["gun"]:
        victim["gun"], victim["aim"] = False, None
        state["guns_left"] += 1
    if state["turn"] == target:
        state["no_arm"] = target


K9_UNIT = Equipment(ANYWHERE, another_player, k9_unit)


# Metal Detector: see one face-down card of each other armed player.
def metal_detector_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """One face-down card of each armed other player that has one (none armed: not playable)."""
    players = state["players"]
    groups = [positions(state, t, True) for t in others(state, seat) if players[t]["gun"]]
    groups = [g for g in groups if g]
    return [{"cards": pick} for pick in product(groups)] if groups else []


METAL_DETECTOR = Equipment(ANYWHERE, metal_detector_targets, learn_picks)


# Planted Evidence: the target's Honest and Crooked cards count for the other side.
def anyone(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Any living player, oneself included."""
    return [{"target": t} for t in living(state)]


def planted_evidence(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Planted in front of the target."""
    state["planted"] = action["target"]


PLANTED_EVIDENCE = Equipment(ANYWHERE, anyone, planted_evidence, stays=True)


# Polygraph: you and another player see all of each other's cards.
def polygraph(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Each of the two learns every card of the other."""
    target = action["target"]
    players = state["players"]
    for i in range(len(players[target]["cards"])):
        learn(state, seat, target, i, "polygraph")
    for i in range(len(players[seat]["cards"])):
        learn(state, target, seat, i, "polygraph")


POLYGRAPH = Equipment(ANYWHERE, another_player, polygraph)


# Report Audit (6+ players, own turn): every player with no face-up card reveals one.
def report_audit_ready(state: GameState, seat: int, frame: Frame) -> bool:
    """One's own turn: its steps, or (rules version 2) the window at its end.

    Version 2 skips an aim step with no choice, where a seat with no gun could play it after its
    action; the end window that follows at once is still that seat's turn, so it may play it there.
    """
    return frame["kind"] != Kind.WINDOW or (rules_version(state) >= 2 and frame["seat"] == seat)


def report_audit(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Ask every living player without a face-up card (and with a face-down one) to reveal one."""
    players = state["players"]
    seats = [s for s in living(state) if not any(players[s]["up"]) and face_down(state, s)]
    push(state, Kind.AUDIT, seats=seats)


REPORT_AUDIT = Equipment(frozenset({When.OWN, When.END}), no_target, report_audit, ready=report_audit_ready)


# Restraining Order (on another's Shoot, 3+ alive): the shooter must aim at a third player and shoot.
def restraining_order_ready(state: GameState, seat: int, frame: Frame) -> bool:
    """Someone else's Shoot, with a third living player to redirect to."""
    return seat != frame["seat"] and len(living(state)) > 2


def restraining_order(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """The shooter picks a new target (neither themself nor the old one) and fires at once."""
    push(state, Kind.REDIRECT, seat=frame["seat"], target=frame["target"])


RESTRAINING_ORDER = Equipment(frozenset({When.SHOOT}), no_target, restraining_order,
                              ready=restraining_order_ready, answers_shoot=True)


# Smoke Grenade: turns now go the other way.
def smoke_grenade(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Reverse the direction of play."""
    state["direction"] = -state["direction"]


SMOKE_GRENADE = Equipment(ANYWHERE, no_target, smoke_grenade)


# Surveillance Camera (after an Investigate): the investigated card is turned face-up.
def surveillance_camera_ready(state: GameState, seat: int, frame: Frame) -> bool:
    """The investigated player is alive and the card is still there, face-down."""
    target = state["players"][frame["target"]]
    return target["alive"] and frame["card"] < len(target["cards"]) and not target["up"][frame["card"]]


def surveillance_camera(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Reveal the investigated card."""
    reveal_card(state, frame["target"], frame["card"])


SURVEILLANCE_CAMERA = Equipment(frozenset({When.INVESTIGATE}), no_target, surveillance_camera,
                                ready=surveillance_camera_ready)


# Taser (own action phase, unarmed): take another player's gun; that is the turn's action.
def taser_ready(state: GameState, seat: int, frame: Frame) -> bool:
    """Phase 1 of one's own turn, holding no gun."""
    return frame["kind"] == Kind.ACTION and not state["players"][seat]["gun"]


def taser_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Each armed other player."""
    return [{"target": t} for t in others(state, seat) if state["players"][t]["gun"]]


def taser(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """The gun changes hands, unaimed; the action phase is over."""
    players = state["players"]
    players[action["target"]]["gun"], players[action["target"]]["aim"] = False, None
    players[seat]["gun"], players[seat]["aim"] = True, None
    state["stack"].pop()  # the action frame: Taser is this turn's action


TASER = Equipment(OWN_TURN, taser_targets, taser, ready=taser_ready)


# Truth Serum: a player of your choice reveals a card of their choice.
def truth_serum_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Any living player with a face-down card, oneself included."""
    return [{"target": t} for t in living(state) if face_down(state, t)]


def truth_serum(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Ask the target to reveal one card."""
    push(state, Kind.REVEAL, seat=action["target"], why="truth_serum")


TRUTH_SERUM = Equipment(ANYWHERE, truth_serum_targets, truth_serum)


# Wiretap: see two face-down cards of two other players.
def wiretap_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Pairs of face-down cards of two different other players."""
    return [{"cards": pair} for pair in cross_pairs(state, others(state, seat), True)]


WIRETAP = Equipment(ANYWHERE, wiretap_targets, learn_picks)


# Bribe (optional card): see a face-down card of another player, then you may swap it with one of yours.
def bribe_targets(state: GameState, seat: int, frame: Frame) -> list[Extras]:
    """Each face-down card of each other player."""
    return [{"target": t, "index": i} for t in others(state, seat) for i in face_down(state, t)]


def bribe(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """See the card, then choose whether to swap (a ``bribe`` frame)."""
    learn(state, seat, action["target"], action["index"], "bribe")
    push(state, Kind.BRIBE, seat=seat, target=action["target"], card=action["index"])


def bribe_swap(state: GameState, seat: int, frame: Frame, own: int | None) -> None:
    """Bribe's second step: optionally swap the investigated card with one of your own."""
    if own is None:
        return
    swap(state, 3 * seat + own, 3 * frame["target"] + frame["card"])
    log(state, "bribe_swap", seat=seat, target=frame["target"], card=frame["card"], own=own)


BRIBE = Equipment(ANYWHERE, bribe_targets, bribe)


CARDS: dict[str, Equipment] = {
    "blackmail": BLACKMAIL, "coffee": COFFEE, "defibrillator": DEFIBRILLATOR, "evidence_bag": EVIDENCE_BAG,
    "flashbang": FLASHBANG, "k9_unit": K9_UNIT, "metal_detector": METAL_DETECTOR,
    "planted_evidence": PLANTED_EVIDENCE, "polygraph": POLYGRAPH, "report_audit": REPORT_AUDIT,
    "restraining_order": RESTRAINING_ORDER, "smoke_grenade": SMOKE_GRENADE,
    "surveillance_camera": SURVEILLANCE_CAMERA, "taser": TASER, "truth_serum": TRUTH_SERUM,
    "wiretap": WIRETAP, "bribe": BRIBE,
}


# ---------------------------------------------------------------- playing a card

def plays(state: GameState, seat: int, when: When, frame: Frame) -> list[Action]:
    """Every play of an equipment card ``seat`` holds, in context ``when`` (own/investigate/shoot/end)."""
    moves: list[Action] = []
    for name in sorted(state["players"][seat]["hand"]):
        card = CARDS[name]
        if when in card.when and card.ready(state, seat, frame):
            moves.extend({"type": "play", "card": name, **extra} for extra in card.targets(state, seat, frame))
    return moves


def reopens_aim(state: GameState, seat: int, frame: Frame) -> bool:
    """Rules version 3: whether a card played in ``frame`` reopens its player's skipped aim step.

    From version 2 an armed Lead Investigator with one player to aim at gets no aim step, so the cards
    it could have played there come in the end window of its turn. Played in its own step, a card that
    makes a choice there (a Defibrillator's revived player) would be followed by the aim; so in that
    window its own card, played armed with no aim choice, reopens the step (``advance`` skips it again
    if the card made no choice). Nobody else's card, nor a window of another turn, moves an aim.
    """
    return (rules_version(state) >= 3 and frame["kind"] == Kind.WINDOW and frame["when"] == When.END
            and frame["seat"] == seat and state["players"][seat]["gun"] and not aim_choice(state, seat))


def play(state: GameState, seat: int, action: Action, frame: Frame) -> None:
    """Play a card: discard it, log it, close a window it was played in (reopening a skipped aim step
    beneath the card: ``reopens_aim``), then its effect."""
    reopen = reopens_aim(state, seat, frame)
    name = action["card"]
    card = CARDS[name]
    state["players"][seat]["hand"].remove(name)
    if not card.stays:
        state["deck"].append(name)
    public = {k: v for k, v in action.items() if k not in ("type", "card", *card.secret)}
    if "cards" in action:
        public["picks"] = [[pos // 3, pos % 3] for pos in action["cards"]]
    log(state, "play", seat=seat, equipment=name, **public)
    if frame["kind"] == Kind.WINDOW:
        state["stack"].pop()
        if frame["when"] == When.SHOOT:
            if not card.answers_shoot:
                # Seed rule: after a card answers a Shoot, the shooter may shoot or act otherwise.
                push(state, Kind.ACTION, seat=frame["seat"])
        else:
            # ("answered": a key of windows in states saved before windows were silent.)
            data = {k: v for k, v in frame.items() if k not in ("kind", "id", "answered")}
            push(state, Kind.WINDOW, **data)
    if reopen:
        push(state, Kind.AIM, seat=seat)
    card.effect(state, seat, action, frame)
