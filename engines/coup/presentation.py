"""What the web layer shows of Coup beside its views: the board's seats as plain parts (``public_parts``: each
seat's element projected from the board's view alone), the reference card's facts, each seat's figures
from a finished game's log (claims, bluffs and challenges), all of them public once the game is over,
and an Exchange's choices by card position for its templates."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from engines.base import BaseEngine, JSONDict, State, effective_moves, item_at, seat_name

from . import cards

# In the order the stats pages and downloads list them. ``claims``: character claims made (an action
# that names a character, or a block). ``bluffs``: claims of a character the player did not hold at
# that moment (for Embezzle, which claims *no* Duke: holding one). ``caught_bluffing``: the player's
# bluffs exposed by a challenge. ``bluffs_caught``: the player's challenges that exposed a bluff.
# ``challenges_lost``: the player's challenges of an honest claim, which the claimer proved.
FIGURES = ("claims", "bluffs", "caught_bluffing", "bluffs_caught", "challenges_lost")


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """Every action this table plays with, its cost and gain, the character it claims, who may challenge
    and who may block it (as which characters), the court's counts."""
    variants = view.get("variants") or {}
    inquisitor, factions = bool(variants.get("inquisitor")), bool(variants.get("factions"))
    actions = []
    for action in cards.TURN_ACTIONS:
        if (action == "examine" and not inquisitor) or (action in ("convert", "embezzle") and not factions):
            continue
        blockers = cards.blockers_of(action, inquisitor)
        gain = cards.STEAL_AMOUNT if action == "steal" else cards.INCOME.get(action)
        actions.append({
            "action": action,
            "cost": cards.COSTS.get(action),
            "gain": gain,
            "claim": cards.claim_of(action, inquisitor),
            "challenge": action in cards.CHARACTER_ACTIONS,
            "blockers": blockers,
            "block_by": ("target" if action in cards.TARGET_BLOCKS else "anyone") if blockers else None,
        })
    copies = cards.copies(players)
    return {"actions": actions, "court": [{"card": c, "n": copies} for c in cards.characters(inquisitor)],
            "forced_coup_at": cards.FORCED_COUP_AT, "factions": factions}


PHONE_LOG_LINES = 8  # the newest public lines a phone's public part shows


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """Each seat's element of the board (``bv-seat-N``, templates/games/coup/board_seat.jinja): all it shows, from
    the board's view, the seats and, for a game the host ended, each seat's own last view (its hand, face up).

    Three keys are not element ids: ``board``, ``status`` and ``phone``, what board.jinja, phone_status.jinja (as
    ``part``) and phone_public.jinja show outside their pieces."""
    log = view.get("log") or []
    last = log[-1] if log else {}
    names = [str(s["name"]) for s in seats]
    parts = {f"bv-seat-{s['index']}": _seat_part(view, s, last, ended_views) for s in seats}
    parts["status"] = status_part(view, names)
    parts["board"] = board_part(view, seats, parts["status"], ended_views)
    parts["phone"] = phone_part(view, seats)
    return parts


def board_part(view: JSONDict, seats: Sequence[JSONDict], status: JSONDict,
               ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """What board.jinja shows outside its pieces: the seats' indexes in order (where it places ``bv-seat-N``), the
    phase, the match's round, the status line (status.jinja, as the phone's: None in a game the host ended) and the
    almshouse (None without factions)."""
    return {"seats": [s["index"] for s in seats], "phase": view.get("phase"), "match": _match(view),
            "status": None if ended_views else status, "almshouse": _almshouse(view)}


def phone_part(view: JSONDict, seats: Sequence[JSONDict]) -> JSONDict:
    """What phone_public.jinja shows outside its pieces: the match's round, each seat's line (name, bot or not, whose
    turn, out, coins, cards, lost influence, faction, wins), the almshouse, and the newest public log lines (newest
    first) with the seats' names."""
    match = _match(view)
    factions = view.get("factions")
    lines: list[JSONDict] = []
    for line in reversed(view.get("log") or []):
        if len(lines) >= PHONE_LOG_LINES:
            break
        if not line.get("private"):
            lines.append(line)
    return {
        "match": match,
        "seats": [{"index": s["index"], "name": s["name"], "is_bot": bool(s["is_bot"]),
                   "active": view.get("turn") == s["index"], "out": not item_at(view.get("alive"), s["index"]),
                   "coins": item_at(view.get("coins"), s["index"]), "cards": item_at(view.get("counts"), s["index"]),
                   "lost": list(item_at(view.get("lost"), s["index"]) or []),
                   "faction": item_at(factions, s["index"]) if factions else None,
                   "wins": item_at(view["match"].get("wins"), s["index"]) if match else None} for s in seats],
        "factions": bool(factions), "almshouse": _almshouse(view),
        "log": lines, "names": [s["name"] for s in seats],
    }


def status_part(view: JSONDict, names: Sequence[str]) -> JSONDict:
    """The status line (status.jinja: the board's, and the phone's, phone_status.jinja): the phase, the winner (over)
    or whose turn it is (action), else the pending claim (its ids and names: ``pending``, whether there is one),
    who reveals or loses, whether the window is silent, whom the table waits for and the window's id."""
    phase = view.get("phase")
    pend = view.get("pending") or {}
    middle = phase not in ("over", "action")
    block = pend.get("block") if middle else None
    awaiting = [seat_name(s, names) for s in view.get("awaiting") or []]
    return {
        "phase": phase,
        "winner": (seat_name(((view.get("outcome") or {}).get("winners") or [None])[0], names)
                   if phase == "over" else None),
        "turn": seat_name(view.get("turn"), names) if phase == "action" else None,
        "pending": bool(pend) and middle,
        "claim": pend.get("claim") if middle else None, "action": pend.get("action") if middle else None,
        "actor": seat_name(pend.get("actor"), names) if middle else None,
        "target": seat_name(pend.get("target"), names) if middle else None,
        "targeted": middle and pend.get("target") is not None,
        "block": {"as": block.get("as"), "seat": seat_name(block.get("seat"), names)} if block else None,
        "revealer": seat_name(pend.get("revealer"), names) if phase == "reveal" else None,
        "challenger": seat_name(pend.get("challenger"), names) if phase == "reveal" else None,
        "losing": seat_name(view.get("losing"), names) if phase == "lose" else None,
        "silent": bool(view.get("silent")) and phase in ("challenge", "block", "block_challenge"),
        "awaiting": awaiting, "window": (view.get("window") or {}).get("id") if awaiting else None,
    }


def _match(view: JSONDict) -> JSONDict | None:
    """A match of several rounds: this round and the wins it takes (None for a single game)."""
    match = view.get("match") or {}
    return {"round": match.get("round"), "target": match["target"]} if (match.get("target") or 0) > 1 else None


def _almshouse(view: JSONDict) -> JSONDict | None:
    """With factions: the almshouse's coins and whether targets are restricted (None without factions)."""
    if not view.get("factions"):
        return None
    return {"coins": view.get("almshouse"), "restricted": bool(view.get("restricted"))}




def _seat_part(view: JSONDict, seat: JSONDict, last: JSONDict,
               ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """One seat's element: its state on the table (the classes), its coins, cards and badges."""
    index = int(seat["index"])
    pending = view.get("pending") or {}
    match = view.get("match") or {}
    factions = view.get("factions")
    return {
        "index": index,
        "seat": {"name": seat["name"], "is_bot": bool(seat["is_bot"])},
        "active": view.get("turn") == index,
        "out": not item_at(view.get("alive"), index),
        "awaited": index in (view.get("awaiting") or ()),
        "actor": pending.get("actor") == index,
        "new": index in (last.get("seat"), last.get("target")),
        "coins": item_at(view.get("coins"), index),
        **_seat_cards(view, index, ended_views),
        "faction": item_at(factions, index) if factions else None,
        # In a match of several rounds, the rounds this seat has won of the ones it takes.
        "match": {"wins": item_at(match.get("wins"), index), "target": match["target"]}
        if (match.get("target") or 0) > 1 else None,
        "blocker": (pending.get("block") or {}).get("seat") == index,
        "challenger": pending.get("challenger") == index and view.get("phase") == "reveal",
    }


def _seat_cards(view: JSONDict, index: int, ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """A seat's cards: its hand face up at the end (a finished game's reveal, or the seat's own last view in a game
    the host ended), else as many backs as it holds (two at most); its lost influence face up."""
    reveal = (view.get("outcome") or {}).get("reveal") or {}
    hand = item_at(reveal.get("hands"), index) or (item_at(ended_views, index) or {}).get("hand") or []
    held = item_at(view.get("counts"), index) or 0
    lost = item_at(view.get("lost"), index) or []
    return {"hand": list(hand), "backs": 0 if hand else min(held, 2), "lost": list(lost)}


def _claim(action: JSONDict, inquisitor: bool) -> str | None:
    """The character a move claims (``no_duke`` for Embezzle), or None for a move that claims none."""
    kind = action.get("type")
    if kind == "block":
        return str(action.get("as"))
    if kind in cards.TURN_ACTIONS:
        return cards.claim_of(str(kind), inquisitor)
    return None


def log_figures(engine: BaseEngine, state: State, options: JSONDict,
                moves: Sequence[tuple[int | None, JSONDict | None]], players: int) -> tuple[dict[str, int], ...]:
    """Claims and bluffs from each claimer's own hand at the moment of the claim; challenges from the public log.

    The state is replayed up to each claiming move, and the claimer's own view says what they
    held then. The public log then lists the claims (``declare`` with a claim, ``block``) in the
    same order, each ``challenge`` of one, and the ``reveal`` (or ``reveal_all``) that judged it.
    """
    inquisitor = bool(options.get("inquisitor"))
    moves = effective_moves(moves)  # an undone claim was never made
    figures = [dict.fromkeys(FIGURES, 0) for _ in range(players)]
    bluffs: list[tuple[int, bool]] = []  # (seat, bluffed) for each claiming move, in order
    waiting: list[tuple[int | None, JSONDict | None]] = []
    for seat, action in moves:
        claim = _claim(action or {}, inquisitor) if seat is not None else None
        if seat is not None and claim is not None:
            state = engine.replay(state, waiting)
            waiting = []
            hand = engine.view(state, seat)["hand"]
            bluffs.append((seat, cards.DUKE in hand if claim == cards.NO_DUKE else claim not in hand))
        waiting.append((seat, action))
    state = engine.replay(state, waiting)
    claims = iter(bluffs)
    latest: dict[int, bool] = {}  # seat -> whether their latest claim was a bluff
    on_trial: tuple[int, int, bool] | None = None  # (challenger, claimer, bluffed)
    entry: dict[str, Any]
    for entry in engine.view(state, None)["log"]:
        event = entry.get("event")
        if (event == "declare" and entry.get("claim")) or event == "block":
            seat, bluffed = next(claims)
            figures[seat]["claims"] += 1
            figures[seat]["bluffs"] += bluffed
            latest[seat] = bluffed
        elif event == "challenge":
            against = int(entry["against"])
            on_trial = (int(entry["seat"]), against, latest.get(against, False))
        elif event in ("reveal", "reveal_all") and on_trial is not None:
            challenger, claimer, bluffed = on_trial
            on_trial = None
            if entry.get("proved"):
                figures[challenger]["challenges_lost"] += 1
            elif bluffed:
                figures[claimer]["caught_bluffing"] += 1
                figures[challenger]["bluffs_caught"] += 1
    return tuple(figures)


def exchange_choices(view: JSONDict) -> list[JSONDict]:
    """An Exchange's choices by position: the hand and then the drawn cards are cards 1..n; each choice keeps
    ``len(hand)`` of them and sends the rest back (the engine's action names the cards returned).

    Every set of positions is a choice, so identical cards give as many buttons as different ones.
    """
    hand = list(view.get("hand") or [])
    pool = hand + list(view.get("drawn") or [])
    listed = view.get("legal") or []
    choices = []
    for keep in combinations(range(len(pool)), len(hand)):
        action = {"type": "return", "cards": sorted(card for i, card in enumerate(pool) if i not in keep)}
        if action in listed:
            choices.append({"keep": [i + 1 for i in keep], "action": action})
    return choices


# What the game's templates call (``{% exchange_choices view as choices %}``).
TEMPLATE_TAGS = {"exchange_choices": exchange_choices}


# Marks beside the words (``mark(kind)``): the factions.
MARK_SHAPES = {"monarchist": "square", "populist": "diamond"}
