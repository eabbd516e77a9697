"""What the web layer shows of Coup beside its views: the board's seats as plain parts (``public_parts``: each
seat's element projected from the board's view alone), the reference card's facts, each seat's figures
from a finished game's log (claims, bluffs and challenges), all of them public once the game is over,
and an Exchange's choices by card position for its templates."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from engines.base import BaseEngine, JSONDict, State

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


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """Each seat's element of the board (``bv-seat-N``, templates/games/coup/board_seat.jinja): all it shows, from
    the board's view, the seats and, for a game the host ended, each seat's own last view (its hand, face up)."""
    log = view.get("log") or []
    last = log[-1] if log else {}
    return {f"bv-seat-{s['index']}": _seat_part(view, s, last, ended_views) for s in seats}


def _at(values: Any, index: int) -> Any:
    """``values[index]``, or None where there is no such item (the templates' ``get``)."""
    try:
        return values[index]
    except (KeyError, IndexError, TypeError):
        return None


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
        "out": not _at(view.get("alive"), index),
        "awaited": index in (view.get("awaiting") or ()),
        "actor": pending.get("actor") == index,
        "new": index in (last.get("seat"), last.get("target")),
        "coins": _at(view.get("coins"), index),
        **_seat_cards(view, index, ended_views),
        "faction": _at(factions, index) if factions else None,
        # In a match of several rounds, the rounds this seat has won of the ones it takes.
        "match": {"wins": _at(match.get("wins"), index), "target": match["target"]}
        if (match.get("target") or 0) > 1 else None,
        "blocker": (pending.get("block") or {}).get("seat") == index,
        "challenger": pending.get("challenger") == index and view.get("phase") == "reveal",
    }


def _seat_cards(view: JSONDict, index: int, ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """A seat's cards: its hand face up at the end (a finished game's reveal, or the seat's own last view in a game
    the host ended), else as many backs as it holds (two at most); its lost influence face up."""
    reveal = (view.get("outcome") or {}).get("reveal") or {}
    hand = _at(reveal.get("hands"), index) or (_at(ended_views, index) or {}).get("hand") or []
    held = _at(view.get("counts"), index) or 0
    return {"hand": list(hand), "backs": 0 if hand else min(held, 2), "lost": list(_at(view.get("lost"), index) or [])}


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
