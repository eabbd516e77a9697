"""The turn machine: a stack of frames (action, aim, windows, pending choices), its moves and endings.

The top frame of ``state["stack"]`` says who must answer now. A turn starts as
[end window, aim, action]; moves push what they need (a reveal, a keep, a window)
on top, and ``advance`` pops frames that have nothing left to ask (from rules version 2
also an aim step without a choice: ``no_aim_choice``).

Equipment windows (after an Investigate, on a Shoot, at the end of a turn) are silent:
nobody is awaited and nobody taps Pass; a living seat's legal actions there are only the
plays of its own equipment. A window closes when its countdown ends (``timeout``) or
when a card is played in it (a fresh window frame follows where the rules say).

Moves are dispatched by action type through ``MOVES``; a type answers whatever frame is on
top (``aim`` both aims at the end of a turn and redirects a Restraining Order's shot).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.base import IllegalAction, Rng, first_player, next_seat

from . import equipment
from .cards import (
    AGENT,
    BRIBE,
    CROOKED,
    EQUIPMENT,
    GUNS,
    HONEST,
    KINGPIN,
    LEADERS,
    MIN_PLAYERS,
    SIDE_CARDS,
    TIMED,
    WINDOW_SECONDS,
    Action,
    Frame,
    GameState,
    Kind,
    Options,
    When,
)
from .legal import awaiting, legal_actions, redirect_targets
from .table import aim_choice, face_down, learn, log, others, push, reveal_card, rules_version, tell, top

# ---------------------------------------------------------------- the deal and the teams


def equipment_deck(players: int, bribe: bool) -> list[str]:
    """The equipment cards in play for this table (before shuffling)."""
    deck = [card for card in EQUIPMENT if players >= MIN_PLAYERS.get(card, 0)]
    if bribe:
        deck.append(BRIBE)
    return deck


def deal_integrity(rng: Rng, players: int) -> tuple[list[list[str]], list[str]]:
    """Three integrity cards per player (never both leaders to one), and the burned rest."""
    others = rng.shuffle([HONEST] * SIDE_CARDS[players] + [CROOKED] * SIDE_CARDS[players])
    first = rng.shuffle([AGENT, KINGPIN] + others[: players - 2])
    rest = others[players - 2:]
    hands = [[first[s]] + rest[2 * s: 2 * s + 2] for s in range(players)]
    return hands, rest[2 * players:]


def deal(players: int, options: Options, seed: int) -> GameState:
    """Deal integrity cards (leaders apart), one equipment card each, guns to the centre; all arrange first."""
    rng = Rng(seed)
    hands, burned = deal_integrity(rng, players)
    deck = rng.shuffle(equipment_deck(players, options["bribe"]))
    first = first_player(dict(options), rng, players)
    state: GameState = {
        "seed": seed,
        "options": options,
        "players": [
            {"cards": hands[s], "up": [False] * 3, "hand": [deck[s]], "alive": True,
             "wounded": False, "gun": False, "aim": None, "learned": [], "arranged": False}
            for s in range(players)
        ],
        "deck": deck[players:],
        "burned": burned,
        "removed": [],
        "guns_left": GUNS[players],
        "turn": first,
        "direction": 1,
        "coffee": None,
        "no_arm": None,
        "planted": None,
        "frames": 0,
        "stack": [],
        "log": [{"event": "start", "seat": first}],
        "result": None,
        "draws": 0,
    }
    state["stack"].append({"kind": Kind.ARRANGE, "id": 0})
    state["draws"] = rng.counter
    return state


def side_of(card: str, planted: bool) -> str:
    """The side an integrity card counts for; Planted Evidence flips Honest and Crooked."""
    if card == AGENT:
        return HONEST
    if card == KINGPIN:
        return CROOKED
    if planted:
        return CROOKED if card == HONEST else HONEST
    return card


def team_of(cards: list[str], planted: bool) -> str:
    """'honest', 'crooked' or 'both' (holding Agent and Kingpin) from a player's cards."""
    if AGENT in cards and KINGPIN in cards:
        return "both"
    if AGENT in cards:
        return HONEST
    if KINGPIN in cards:
        return CROOKED
    honest = sum(1 for card in cards if side_of(card, planted) == HONEST)
    return HONEST if 2 * honest > len(cards) else CROOKED


def teams(state: GameState) -> dict[int, str]:
    """Each seat's team from its cards as they stand now."""
    return {s: team_of(p["cards"], state["planted"] == s) for s, p in enumerate(state["players"])}


# ---------------------------------------------------------------- turns, shots, endings

def finish(state: GameState, winner: str, reason: str, seat: int | None = None) -> None:
    """End the game: the winning team (plus the both-leaders holder) and the reveal."""
    by_seat = teams(state)
    winners = [s for s, team in by_seat.items() if team == winner or team == "both"]
    state["result"] = {
        "winners": sorted(winners),
        "reason": reason,
        "team": winner,
        "seat": seat,
        "teams": {str(s): t for s, t in by_seat.items()},
        "reveal": {
            "cards": [list(p["cards"]) for p in state["players"]],
            "hands": [list(p["hand"]) for p in state["players"]],
            "burned": list(state["burned"]),
        },
    }
    state["stack"] = []
    log(state, "win", team=winner, reason=reason, seat=seat)


def start_turn(state: GameState, seat: int) -> None:
    """Give the Lead Investigator to ``seat``: action, then aim, then the end window."""
    state["turn"] = seat
    state["no_arm"] = None
    state["stack"] = []
    push(state, Kind.WINDOW, when=When.END, seat=seat)
    push(state, Kind.AIM, seat=seat)
    push(state, Kind.ACTION, seat=seat)
    log(state, "turn", seat=seat)


def next_turn(state: GameState) -> int:
    """Who takes the next turn: a Coffee player, else the next living seat in the direction."""
    coffee, state["coffee"] = state["coffee"], None
    if coffee is not None and state["players"][coffee]["alive"]:
        return coffee
    alive = [p["alive"] for p in state["players"]]
    return next_seat(alive, state["turn"], state["direction"]) if any(alive) else state["turn"]


def draw(state: GameState, seat: int) -> None:
    """Draw one equipment card (if any) and ask the drawer which to keep."""
    if state["deck"]:
        card = state["deck"].pop(0)
        state["players"][seat]["hand"].append(card)
        tell(state, "drew", seat, equipment=card)
    # Always asked, even holding one card, so nobody learns who holds two.
    push(state, Kind.KEEP, seat=seat)


def fire(state: GameState, shooter: int, target: int) -> None:
    """Fire: the gun goes back; the target reveals all, then is wounded or eliminated."""
    gunner = state["players"][shooter]
    if not gunner["gun"] or not state["players"][target]["alive"]:
        return
    gunner["gun"], gunner["aim"] = False, None
    state["guns_left"] += 1
    victim = state["players"][target]
    victim["up"] = [True] * len(victim["cards"])
    log(state, "shot", seat=target, by=shooter, cards=list(victim["cards"]))
    leader = any(card in LEADERS for card in victim["cards"])
    if leader and not victim["wounded"]:
        victim["wounded"] = True
        log(state, "wounded", seat=target)
        draw(state, target)
        return
    victim["alive"] = False
    state["deck"].extend(victim["hand"])
    victim["hand"] = []
    if victim["gun"]:
        victim["gun"], victim["aim"] = False, None
        state["guns_left"] += 1
    log(state, "eliminated", seat=target)
    if KINGPIN in victim["cards"]:
        finish(state, HONEST, "kingpin_eliminated", target)
    elif AGENT in victim["cards"]:
        finish(state, CROOKED, "agent_eliminated", target)


def vacuous(state: GameState, frame: Frame) -> bool:
    """A frame with nothing left to ask (its chooser is gone or has no choice)."""
    kind = frame["kind"]
    if kind == Kind.ARRANGE:
        return all(p["arranged"] for p in state["players"])
    if kind == Kind.WINDOW:
        # Silent: a window lasts its countdown whoever holds what (never skipped for want of a card).
        return False
    if kind == Kind.AUDIT:
        return not [s for s in frame["seats"] if state["players"][s]["alive"] and face_down(state, s)]
    player = state["players"][frame["seat"]]
    if not player["alive"]:
        return True
    if kind == Kind.REVEAL:
        return not face_down(state, frame["seat"])
    if kind == Kind.KEEP:
        return not player["hand"]
    if kind == Kind.REDIRECT:
        return not player["gun"] or not redirect_targets(state, frame)
    if kind == Kind.AIM:
        return no_aim_choice(state, frame["seat"])
    return False


def no_aim_choice(state: GameState, seat: int) -> bool:
    """Rules version 2: the aim step asks nothing of a seat with no gun, or with one player left to aim at.

    Whether a seat holds a gun, its aim and who lives are public, so skipping the step tells nobody
    anything; the equipment it could have played there fits the end window that follows at once (from
    version 3 such a card reopens the step where it made a choice: ``equipment.reopens_aim``).
    """
    return rules_version(state) >= 2 and not aim_choice(state, seat)


def aim_at_the_only_target(state: GameState, seat: int) -> None:
    """A gun whose aim step was skipped points at the one player left to aim at (logged if its aim moves)."""
    player = state["players"][seat]
    targets = others(state, seat)
    if player["alive"] and player["gun"] and len(targets) == 1 and player["aim"] != targets[0]:
        player["aim"] = targets[0]
        log(state, "aim", seat=seat, target=targets[0])


def close(state: GameState, frame: Frame) -> None:
    """What happens when a frame is done (a window whose countdown ended with no card played)."""
    if frame["kind"] == Kind.ARRANGE:
        start_turn(state, state["turn"])
    elif frame["kind"] == Kind.WINDOW and frame["when"] == When.SHOOT:
        fire(state, frame["seat"], frame["target"])
    elif frame["kind"] == Kind.AIM:
        aim_at_the_only_target(state, frame["seat"])


def check_both_leaders(state: GameState) -> None:
    """Seed rule: holding Agent and Kingpin wins at once, with the Crooked team."""
    for seat, player in enumerate(state["players"]):
        if AGENT in player["cards"] and KINGPIN in player["cards"]:
            finish(state, CROOKED, "both_leaders", seat)
            return


def advance(state: GameState) -> None:
    """Pop every finished frame and start the next turn when the stack runs out."""
    for _ in range(1000):
        if state["result"] is not None:
            return
        check_both_leaders(state)
        if state["result"] is not None:
            return
        frame = top(state)
        if frame is None:
            start_turn(state, next_turn(state))
            return
        if not vacuous(state, frame):
            return
        state["stack"].pop()
        close(state, frame)
    raise RuntimeError("advance did not settle")


# ---------------------------------------------------------------- windows

def window_id(state: GameState) -> str | None:
    """The id of the open timed window or pending choice, or None."""
    frame = top(state)
    if frame is None or state["result"] is not None or frame["kind"] not in TIMED:
        return None
    return f"{frame['id']}:{frame.get('when', frame['kind'])}"


def silent(state: GameState) -> bool:
    """Whether a silent equipment window is open (every window is: the rules' Equipment section)."""
    frame = top(state)
    return frame is not None and state["result"] is None and frame["kind"] == Kind.WINDOW


def countdown(state: GameState) -> int | None:
    """The seconds of the open silent window's own countdown (the ``window_seconds`` option), or None."""
    if not silent(state):
        return None
    return state["options"].get("window_seconds", WINDOW_SECONDS)


# ---------------------------------------------------------------- the moves, by action type

def arrange(state: GameState, seat: int, action: Action) -> None:
    """Before the first turn: put one's cards in the chosen order (first card = the one shown first)."""
    player = state["players"][seat]
    player["cards"] = [player["cards"][i] for i in action["order"]]
    player["arranged"] = True
    log(state, "arranged", seat=seat)


def investigate(state: GameState, seat: int, action: Action) -> None:
    """Phase 1: look at another player's face-down card; a silent window follows."""
    state["stack"].pop()
    log(state, "investigate", seat=seat, target=action["target"], card=action["card"])
    learn(state, seat, action["target"], action["card"], "investigate")
    push(state, Kind.WINDOW, when=When.INVESTIGATE, seat=seat, target=action["target"], card=action["card"])


def equip(state: GameState, seat: int, action: Action) -> None:
    """Phase 1: reveal a card, then draw an equipment card."""
    state["stack"].pop()
    log(state, "equip", seat=seat)
    push(state, Kind.REVEAL, seat=seat, why="equip")
    draw(state, seat)


def arm(state: GameState, seat: int, action: Action) -> None:
    """Phase 1: take a gun from the centre, then reveal a card."""
    player = state["players"][seat]
    state["stack"].pop()
    player["gun"], player["aim"] = True, None
    state["guns_left"] -= 1
    log(state, "arm", seat=seat)
    push(state, Kind.REVEAL, seat=seat, why="arm")


def shoot(state: GameState, seat: int, action: Action) -> None:
    """Phase 1: shoot at one's aim; a silent window comes first (the shot fires when it closes)."""
    state["stack"].pop()
    log(state, "shoot", seat=seat, target=state["players"][seat]["aim"])
    push(state, Kind.WINDOW, when=When.SHOOT, seat=seat, target=state["players"][seat]["aim"])


def aim(state: GameState, seat: int, action: Action) -> None:
    """Phase 2: aim (which ends the turn), or a Restraining Order's redirected aim (which fires at once)."""
    frame = state["stack"].pop()
    state["players"][seat]["aim"] = action["target"]
    log(state, "aim", seat=seat, target=action["target"])
    if frame["kind"] == Kind.REDIRECT:
        fire(state, seat, action["target"])


def end_turn(state: GameState, seat: int, action: Action) -> None:
    """Phase 2: end the turn keeping one's aim (or, in rules version 1, holding no gun)."""
    state["stack"].pop()


def reveal(state: GameState, seat: int, action: Action) -> None:
    """Turn a card face-up: one's own reveal, or one's answer to a Report Audit."""
    frame = top(state)
    assert frame is not None  # a legal reveal answers the frame on top
    if frame["kind"] == Kind.AUDIT:
        frame["seats"].remove(seat)
    else:
        state["stack"].pop()
    reveal_card(state, seat, action["card"])


def keep(state: GameState, seat: int, action: Action) -> None:
    """Hand limit: keep one card, the rest go to the bottom of the deck (unseen by others)."""
    state["stack"].pop()
    player = state["players"][seat]
    rest = [c for c in player["hand"] if c != action["card"]]
    player["hand"] = [action["card"]]
    state["deck"].extend(rest)
    if rest:
        tell(state, "returned", seat, equipment=rest[0])


def swap(state: GameState, seat: int, action: Action) -> None:
    """Bribe: swap the seen card with one of one's own, or not."""
    frame = state["stack"].pop()
    equipment.bribe_swap(state, seat, frame, action["card"])


def play(state: GameState, seat: int, action: Action) -> None:
    """An equipment card, in one's own turn or in a window (see ``equipment.CARDS``)."""
    frame = top(state)
    assert frame is not None  # a legal play answers the frame on top
    equipment.play(state, seat, action, frame)


MOVES: dict[str, Callable[[GameState, int, Action], None]] = {
    "arrange": arrange, "investigate": investigate, "equip": equip, "arm": arm, "shoot": shoot,
    "aim": aim, "end_turn": end_turn, "reveal": reveal, "keep": keep, "swap": swap, "play": play,
}


def apply(state: GameState, seat: int, action: Action) -> None:
    """Carry out a legal action on ``state`` (a copy the caller owns), then settle the stack."""
    MOVES[action["type"]](state, seat, action)
    advance(state)


def timeout(state: GameState) -> None:
    """The countdown or timer ran out: a silent window closes unanswered, a choice takes its first option."""
    frame = top(state)
    if frame is None or window_id(state) is None:
        raise IllegalAction("no response window is open")
    if frame["kind"] == Kind.WINDOW:
        state["stack"].pop()
        close(state, frame)
        advance(state)
        return
    if frame["kind"] == Kind.ARRANGE:
        for player in state["players"]:
            player["arranged"] = True
        advance(state)
        return
    for seat in sorted(awaiting(state)):
        if top(state) is frame and seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])


def upgrade(state: GameState) -> None:
    """A state saved before private log entries named their addressee: ``"to"`` is the entry's seat."""
    for entry in state.get("log", ()):
        if entry.get("private") and "to" not in entry:
            entry["to"] = entry["seat"]
