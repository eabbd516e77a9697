"""What the web layer shows of Good Cop Bad Cop (health edition) beside its views: the board's seats as plain parts
(``public_parts``: each seat's element projected from the board's view alone), the reference card's facts,
a seat's final identity from the end's reveal, and the Bad Cops as the minority a fair deal evens out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import JSONDict

from . import cards

MINORITY = ("role", "bad")


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """Each seat's element of the board (``bv-seat-N``, templates/games/good_cop_bad_cop_health/board_seat.jinja): all
    it shows, from the board's view, the seats and, for a game the host ended, each seat's own last view (its
    identity, face up)."""
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
    """One seat's element: its state on the table (the classes), its health, its equipment in play, its identity once
    eliminated (``revealed``) and every seat's at the end (``end``: a finished game's reveal, or the seat's own last
    view in a game the host ended; ``identity`` None there draws the back)."""
    index = int(seat["index"])
    identities = (view.get("reveal") or {}).get("identities")
    end = bool(identities or ended_views)
    identity = _at(identities, index) or (_at(ended_views, index) or {}).get("identity") if end else None
    return {
        "index": index,
        "seat": {"name": seat["name"], "is_bot": bool(seat["is_bot"])},
        "out": not _at(view.get("alive"), index),
        "active": view.get("turn") == index,
        "awaited": index in (view.get("awaiting") or ()),
        "new": index in (last.get("seat"), last.get("target")),
        "health": _at(view.get("health"), index),
        "revealed": _at(view.get("revealed"), index) or None,
        "in_play": [{"kind": card["kind"]} for card in _at(view.get("in_play"), index) or []],
        "end": end,
        "identity": identity or None,
    }


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """The kinds of equipment with this table's deck counts, guns' damage, the identities."""
    # The deck as this table deals it: the host may change the counts (the ``deck`` option).
    deck = options.get("deck") or cards.DEFAULT_DECK
    return {"kinds": [{"kind": k, "damage": cards.DAMAGE.get(k), "n": int(deck.get(k, 0))} for k in cards.KINDS],
            "deck": sum(int(deck.get(k, 0)) for k in cards.KINDS),
            "health": cards.START_HEALTH, "market": cards.MARKET_SIZE,
            "identities": dict(cards.IDENTITY_CARDS), "variant": cards.VARIANTS.get(players, cards.Variant.STANDARD),
            "flawless_shot_always": bool(options.get("flawless_shot_always")),
            "teams": cards.TEAM_TABLE.get(players)}


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """The final identity (good, bad or wanted)."""
    identities = (outcome.get("reveal") or {}).get("identities")
    return str(identities[seat]) if isinstance(identities, list) and seat < len(identities) else None


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat whose own identity is a Bad Cop."""
    return bool(view.get("identity") == "bad")
