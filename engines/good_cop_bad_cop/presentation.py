"""What the web layer shows of Good Cop Bad Cop beside its views: the reference card's facts, a seat's role
from the end's reveal, the Kingpin as the minority role a fair deal evens out, and the board's public parts
(each seat's element, ``bv-seat-N``, as the plain dict it shows: ``public_parts``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import JSONDict, seat_team

from . import cards, rules

MINORITY = ("role", cards.KINGPIN)


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """The integrity cards and guns for this many players, the equipment deck."""
    side = cards.SIDE_CARDS.get(players, 0)
    return {"integrity": [{"name": cards.HONEST, "n": side}, {"name": cards.CROOKED, "n": side},
                          {"name": cards.AGENT, "n": 1}, {"name": cards.KINGPIN, "n": 1}],
            "guns": cards.GUNS.get(players, 0), "equipment": rules.equipment_deck(players, bribe=False),
            "bribe": cards.BRIBE}


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """Kingpin or agent for the leaders, else the team (honest or crooked)."""
    revealed = (outcome.get("reveal") or {}).get("cards")
    mine = revealed[seat] if isinstance(revealed, list) and seat < len(revealed) else []
    for leader in ("kingpin", "agent"):
        if leader in mine:
            return leader
    return seat_team(outcome, seat)


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat whose own integrity cards hold the Kingpin."""
    own = view.get("cards") or []
    return seat < len(own) and any(card.get("name") == "kingpin" for card in own[seat])


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """The board's seats (``bv-seat-N``: templates/games/good_cop_bad_cop/board_seat.jinja), each as all it shows:
    its name, its cards, its badges, and whether the latest public log line names it (``is_new``)."""
    log = view.get("log") or []
    last = log[-1] if log and isinstance(log[-1], dict) else {}
    return {f"bv-seat-{i}": board_seat(view, seats, ended_views, i, last) for i in range(len(view["cards"]))}


def board_seat(view: JSONDict, seats: Sequence[JSONDict], ended_views: Sequence[JSONDict] | None, i: int,
               last: JSONDict) -> JSONDict:
    """Seat ``i`` on the board: who (``seat``: name, is_bot), its state (lead, out, awaited, newly named by the log),
    its cards (``cards``; ``revealed``: every one face up at the end) and its badges (team, wound, gun and aim,
    Planted Evidence, Coffee)."""
    seat = _at(seats, i) or {}
    names = [s.get("name") for s in seats]
    aim = _at(view["guns"], i)
    cards = revealed_cards(view, ended_views, i)
    return {
        "index": i,
        "seat": {"name": seat.get("name", ""), "is_bot": bool(seat.get("is_bot"))},
        "active": i == view["turn"],
        "out": not _at(view["alive"], i),
        "awaited": i in (view.get("awaiting") or []),
        "is_new": i == last.get("seat") or i == last.get("target"),
        "revealed": cards is not None,
        "cards": cards if cards is not None else [{"name": c["name"], "face_up": bool(c["face_up"])}
                                                  for c in view["cards"][i]],
        "team": ((view.get("outcome") or {}).get("teams") or {}).get(str(i)) or None,
        "wounded": bool(_at(view["wounded"], i)),
        "armed": bool(_at(view["armed"], i)),
        "aim": None if aim is None else _at(names, aim),
        "planted": view.get("planted") == i,
        "coffee": view.get("coffee") == i,
    }


def revealed_cards(view: JSONDict, ended_views: Sequence[JSONDict] | None, i: int) -> list[JSONDict] | None:
    """Seat ``i``'s cards all face up at the end (a finished game's reveal, else its own last view in a game the host
    ended), by name; None while they lie as the table sees them."""
    shown = _at((view.get("reveal") or {}).get("cards"), i) or _at((_at(ended_views, i) or {}).get("cards"), i)
    if not shown:
        return None
    return [{"name": (card.get("name") if isinstance(card, dict) else None) or card, "face_up": True} for card in shown]


def _at(items: Any, i: Any) -> Any:
    """``items[i]``, or None where there is none (as the templates' ``get`` filter)."""
    try:
        return items[i]
    except (IndexError, KeyError, TypeError):
        return None
