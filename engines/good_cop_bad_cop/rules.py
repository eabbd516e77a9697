"""The turn machine: a stack of frames (action, aim, windows, pending choices) and its moves.

The top frame of ``state["stack"]`` says who must answer now. A turn starts as
[end window, aim, action]; actions push what they need (a reveal, a keep, a window)
on top, and ``advance`` pops frames that have nothing left to ask.

Equipment windows (after an Investigate, on a Shoot, at the end of a turn) are silent:
nobody is awaited and nobody taps Pass; a living seat's legal actions there are only the
plays of its own equipment. A window closes when its countdown ends (``timeout``) or
when a card is played in it (a fresh window frame follows where the rules say).
"""

from __future__ import annotations

from engines.base import IllegalAction, State

from . import equipment
from .cards import AGENT, CROOKED, HONEST, KINGPIN, LEADERS, permutations, team_of

# Frames the table timer applies to (everything but the active player's own phases).
TIMED = {"arrange", "window", "reveal", "audit", "keep", "bribe", "redirect"}
# The default of the ``window_seconds`` option (states saved before the option existed use it).
WINDOW_SECONDS = 4


def log(state: State, event: str, **params) -> None:
    """Append a structured log entry."""
    state["log"].append({"event": event, **params})


def push(state: State, kind: str, **data) -> dict:
    """Push a new frame with a fresh id (window ids must never repeat)."""
    state["frames"] += 1
    frame = {"kind": kind, "id": state["frames"], **data}
    state["stack"].append(frame)
    return frame


def top(state: State) -> dict | None:
    """The frame waiting for an answer, or None."""
    return state["stack"][-1] if state["stack"] else None


def living(state: State) -> list[int]:
    """Seats still in the game."""
    return [s for s, p in enumerate(state["players"]) if p["alive"]]


def face_down(state: State, seat: int) -> list[int]:
    """Indexes of a seat's face-down integrity cards."""
    return [i for i, up in enumerate(state["players"][seat]["up"]) if not up]


def learn(state: State, seat: int, target: int, card: int, how: str) -> None:
    """``seat`` privately learns ``target``'s card at position ``card``."""
    name = state["players"][target]["cards"][card]
    state["players"][seat]["learned"].append({"target": target, "card": card, "name": name, "how": how})
    log(state, "learned", seat=seat, target=target, card=card, name=name, how=how, private=True)


def draw(state: State, seat: int) -> None:
    """Draw one equipment card (if any) and ask the drawer which to keep."""
    if state["deck"]:
        card = state["deck"].pop(0)
        state["players"][seat]["hand"].append(card)
        log(state, "drew", seat=seat, equipment=card, private=True)
    # Always asked, even holding one card, so nobody learns who holds two.
    push(state, "keep", seat=seat)


def reveal_card(state: State, seat: int, card: int) -> None:
    """Turn one integrity card face-up (public)."""
    player = state["players"][seat]
    player["up"][card] = True
    log(state, "reveal", seat=seat, card=card, name=player["cards"][card])


def teams(state: State) -> dict[int, str]:
    """Each seat's team from its cards as they stand now."""
    return {s: team_of(p["cards"], state["planted"] == s) for s, p in enumerate(state["players"])}


def finish(state: State, winner: str, reason: str, seat: int | None = None) -> None:
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


def start_turn(state: State, seat: int) -> None:
    """Give the Lead Investigator to ``seat``: action, then aim, then the end window."""
    state["turn"] = seat
    state["no_arm"] = None
    state["stack"] = []
    push(state, "window", when="end", seat=seat)
    push(state, "aim", seat=seat)
    push(state, "action", seat=seat)
    log(state, "turn", seat=seat)


def next_seat(state: State) -> int:
    """Who takes the next turn: a Coffee player, else the next living seat in the direction."""
    coffee, state["coffee"] = state["coffee"], None
    if coffee is not None and state["players"][coffee]["alive"]:
        return coffee
    n = len(state["players"])
    seat = state["turn"]
    for _ in range(n):
        seat = (seat + state["direction"]) % n
        if state["players"][seat]["alive"]:
            return seat
    return state["turn"]


def vacuous(state: State, frame: dict) -> bool:
    """A frame with nothing left to ask (its chooser is gone or has no choice)."""
    kind = frame["kind"]
    if kind == "arrange":
        return all(p["arranged"] for p in state["players"])
    if kind == "window":
        # Silent: a window lasts its countdown whoever holds what (never skipped for want of a card).
        return False
    if kind == "audit":
        return not [s for s in frame["seats"] if state["players"][s]["alive"] and face_down(state, s)]
    player = state["players"][frame["seat"]]
    if not player["alive"]:
        return True
    if kind == "reveal":
        return not face_down(state, frame["seat"])
    if kind == "keep":
        return not player["hand"]
    if kind == "redirect":
        return not player["gun"] or not redirect_targets(state, frame)
    return False


def close(state: State, frame: dict) -> None:
    """What happens when a frame is done (a window whose countdown ended with no card played)."""
    if frame["kind"] == "arrange":
        start_turn(state, state["turn"])
    elif frame["kind"] == "window" and frame["when"] == "shoot":
        shoot(state, frame["seat"], frame["target"])


def check_both_leaders(state: State) -> None:
    """Seed rule: holding Agent and Kingpin wins at once, with the Crooked team."""
    for seat, player in enumerate(state["players"]):
        if AGENT in player["cards"] and KINGPIN in player["cards"]:
            finish(state, CROOKED, "both_leaders", seat)
            return


def advance(state: State) -> None:
    """Pop every finished frame and start the next turn when the stack runs out."""
    for _ in range(1000):
        if state["result"] is not None:
            return
        check_both_leaders(state)
        if state["result"] is not None:
            return
        frame = top(state)
        if frame is None:
            start_turn(state, next_seat(state))
            return
        if not vacuous(state, frame):
            return
        state["stack"].pop()
        close(state, frame)
    raise RuntimeError("advance did not settle")


def awaiting(state: State) -> set[int]:
    """The seats the game waits for now."""
    frame = top(state)
    if frame is None or state["result"] is not None:
        return set()
    kind = frame["kind"]
    if kind == "arrange":
        return {s for s, p in enumerate(state["players"]) if not p["arranged"]}
    if kind == "window":
        return set()  # a silent window: nobody must answer, it closes when its countdown ends
    if kind == "audit":
        return {s for s in frame["seats"] if state["players"][s]["alive"] and face_down(state, s)}
    return {frame["seat"]}


def window_id(state: State) -> str | None:
    """The id of the open timed window or pending choice, or None."""
    frame = top(state)
    if frame is None or state["result"] is not None or frame["kind"] not in TIMED:
        return None
    return f"{frame['id']}:{frame.get('when', frame['kind'])}"


def silent(state: State) -> bool:
    """Whether a silent equipment window is open (every window is: the rules' Equipment section)."""
    frame = top(state)
    return frame is not None and state["result"] is None and frame["kind"] == "window"


def countdown(state: State) -> int | None:
    """The seconds of the open silent window's own countdown (the ``window_seconds`` option), or None."""
    if not silent(state):
        return None
    return state["options"].get("window_seconds", WINDOW_SECONDS)


def redirect_targets(state: State, frame: dict) -> list[int]:
    """Restraining Order: living players other than the shooter and the original target."""
    return [s for s in living(state) if s not in (frame["seat"], frame["target"])]


def shoot(state: State, shooter: int, target: int) -> None:
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


# ---------------------------------------------------------------- legal actions

def action_moves(state: State, seat: int) -> list[dict]:
    """Phase 1 of a turn: Investigate, Equip, Arm, Shoot."""
    player = state["players"][seat]
    moves = [{"type": "investigate", "target": t, "card": i}
             for t in living(state) if t != seat for i in face_down(state, t)]
    moves.append({"type": "equip"})
    if state["guns_left"] > 0 and not player["gun"] and state["no_arm"] != seat:
        moves.append({"type": "arm"})
    if player["gun"] and player["aim"] is not None and state["players"][player["aim"]]["alive"]:
        moves.append({"type": "shoot"})
    return moves


def aim_moves(state: State, seat: int) -> list[dict]:
    """Phase 2: aim (and so end the turn), or end the turn keeping a valid aim / holding no gun."""
    player = state["players"][seat]
    moves = []
    if player["gun"]:
        moves = [{"type": "aim", "target": t} for t in living(state) if t != seat]
        if player["aim"] is not None and state["players"][player["aim"]]["alive"]:
            moves.append({"type": "end_turn"})
    else:
        moves.append({"type": "end_turn"})
    return moves


def is_awaited(state: State, frame: dict, seat: int) -> bool:
    """Whether the game waits for ``seat`` (a cheap form of ``seat in awaiting(state)``)."""
    kind = frame["kind"]
    player = state["players"][seat]
    if kind == "arrange":
        return not player["arranged"]
    if kind == "window":
        return False  # nobody is awaited in a silent window (holders may still play)
    if kind == "audit":
        return seat in frame["seats"] and player["alive"] and not all(player["up"])
    return frame["seat"] == seat


def legal_actions(state: State, seat: int) -> list[dict]:
    """Every concrete action ``seat`` may take now."""
    frame = top(state)
    if state["result"] is not None or frame is None:
        return []
    kind = frame["kind"]
    player = state["players"][seat]
    if kind == "window":
        # Silent: only the real plays of a living seat's equipment; nobody taps Pass.
        return equipment.plays(state, seat, frame["when"], frame) if player["alive"] else []
    if not is_awaited(state, frame, seat):
        return []
    if kind == "arrange":
        # One button per distinct row: orders that only swap identical cards are the same row.
        rows: dict[tuple, list[int]] = {}
        for order in permutations(len(player["cards"])):
            rows.setdefault(tuple(player["cards"][i] for i in order), order)
        return [{"type": "arrange", "order": order} for order in rows.values()]
    if kind == "action":
        return action_moves(state, seat) + equipment.plays(state, seat, "own", frame)
    if kind == "aim":
        return aim_moves(state, seat) + equipment.plays(state, seat, "own", frame)
    if kind in ("reveal", "audit"):
        return [{"type": "reveal", "card": i} for i in face_down(state, seat)]
    if kind == "keep":
        return [{"type": "keep", "card": card} for card in player["hand"]]
    if kind == "bribe":
        return [{"type": "swap", "card": None}] + [
            {"type": "swap", "card": k} for k in range(len(player["cards"]))]
    if kind == "redirect":
        return [{"type": "aim", "target": t} for t in redirect_targets(state, frame)]
    return []


# ---------------------------------------------------------------- applying moves

def apply(state: State, seat: int, action: dict) -> None:
    """Carry out a legal action on ``state`` (a copy the caller owns), then settle the stack."""
    frame = top(state)
    assert frame is not None  # a legal action always answers the waiting frame
    kind, kind_of = frame["kind"], action["type"]
    if kind_of == "play":
        equipment.play(state, seat, action, frame)
    elif kind == "arrange":
        player = state["players"][seat]
        player["cards"] = [player["cards"][i] for i in action["order"]]
        player["arranged"] = True
        log(state, "arranged", seat=seat)
    elif kind == "action":
        take_action(state, seat, action)
    elif kind == "aim":
        state["stack"].pop()
        if kind_of == "aim":
            state["players"][seat]["aim"] = action["target"]
            log(state, "aim", seat=seat, target=action["target"])
    elif kind == "reveal":
        state["stack"].pop()
        reveal_card(state, seat, action["card"])
    elif kind == "audit":
        frame["seats"].remove(seat)
        reveal_card(state, seat, action["card"])
    elif kind == "keep":
        keep(state, seat, action["card"])
    elif kind == "bribe":
        state["stack"].pop()
        equipment.bribe_swap(state, seat, frame, action["card"])
    elif kind == "redirect":
        state["stack"].pop()
        state["players"][seat]["aim"] = action["target"]
        log(state, "aim", seat=seat, target=action["target"])
        shoot(state, seat, action["target"])
    advance(state)


def keep(state: State, seat: int, card: str) -> None:
    """Hand limit: keep one card, the rest go to the bottom of the deck (unseen by others)."""
    state["stack"].pop()
    player = state["players"][seat]
    rest = [c for c in player["hand"] if c != card]
    player["hand"] = [card]
    state["deck"].extend(rest)
    if rest:
        log(state, "returned", seat=seat, equipment=rest[0], private=True)


def take_action(state: State, seat: int, action: dict) -> None:
    """Phase 1: Investigate, Equip, Arm or Shoot."""
    player = state["players"][seat]
    state["stack"].pop()
    kind = action["type"]
    if kind == "investigate":
        log(state, "investigate", seat=seat, target=action["target"], card=action["card"])
        learn(state, seat, action["target"], action["card"], "investigate")
        push(state, "window", when="investigate", seat=seat, target=action["target"],
             card=action["card"])
    elif kind == "equip":
        log(state, "equip", seat=seat)
        push(state, "reveal", seat=seat, why="equip")
        draw(state, seat)
    elif kind == "arm":
        player["gun"], player["aim"] = True, None
        state["guns_left"] -= 1
        log(state, "arm", seat=seat)
        push(state, "reveal", seat=seat, why="arm")
    elif kind == "shoot":
        log(state, "shoot", seat=seat, target=player["aim"])
        push(state, "window", when="shoot", seat=seat, target=player["aim"])


def timeout(state: State) -> None:
    """The countdown or timer ran out: a silent window closes unanswered, a choice takes its first option."""
    frame = top(state)
    if frame is None or window_id(state) is None:
        raise IllegalAction("no response window is open")
    if frame["kind"] == "window":
        state["stack"].pop()
        close(state, frame)
        advance(state)
        return
    if frame["kind"] == "arrange":
        for player in state["players"]:
            player["arranged"] = True
        advance(state)
        return
    for seat in sorted(awaiting(state)):
        if top(state) is frame and seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
