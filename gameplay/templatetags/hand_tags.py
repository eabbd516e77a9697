"""A seat's own cards on its phone, named by position: moves and log lines that never say the card.

A phone lying on the table must not give its owner away, so the move buttons that choose among the
seat's own secret cards say "Card 1", "Card 2" (the hold-to-peek boxes number the cards the same way),
and there is one button per card the seat holds, not one per distinct card: two Dukes still make two
buttons, so the number of buttons tells nothing either. Each button plays a legal action as the engine
lists it (``view["legal"]``), so the server checks it as any move. What one game alone needs is its own
(its presentation.py's ``TEMPLATE_FILTERS`` and ``TEMPLATE_TAGS``).

Load with ``{% load hand_tags %}`` (templates/games/*).
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from django import template
from django.utils.translation import pgettext

register = template.Library()


def _legal(view: dict, action: dict) -> dict | None:
    """``action`` if the engine lists it for this seat now (JSON equality), else None."""
    for legal in view.get("legal") or []:
        if legal == action:
            return legal
    return None


@register.simple_tag
def by_position(view: dict, kind: str, cards: list | None = None) -> list[dict[str, Any]]:
    """One choice per own card: ``{"n": 1-based position, "i": index, "action": {"type": kind, "card": name}}``.

    ``cards`` are the seat's own cards in the order its peek box shows them (by default ``view["hand"]``).
    Positions whose card the engine does not offer are left out.
    """
    choices = []
    for i, card in enumerate(cards if cards is not None else view.get("hand") or []):
        action = _legal(view, {"type": kind, "card": card})
        if action is not None:
            choices.append({"n": i + 1, "i": i, "action": action})
    return choices


@register.simple_tag
def orders_by_position(view: dict, names: list | None, **match: Any) -> list[dict[str, Any]]:
    """Every order of the seat's own cards, by position (an arrangement of them, or a card that reorders them).

    ``names`` are the seat's own card names in position order. The engine lists one order per distinct
    row of cards; here every order of positions is a choice, played as the listed order that gives the
    same row, so three Honest cards show the same six buttons as three different cards. ``match`` picks
    the legal actions (``type="arrange"``, or ``type="play" card="flashbang"``).
    ``{"positions": [1-based, in the new order], "same": True for the order as it is, "action": …}``.
    """
    names = list(names or [])
    listed = [a for a in view.get("legal") or []
              if all(a.get(key) == value for key, value in match.items()) and "order" in a]
    by_row: dict[tuple, dict] = {}
    for action in listed:
        row = tuple(names[i] for i in action["order"]) if all(0 <= i < len(names) for i in action["order"]) else None
        if row is not None:
            by_row.setdefault(row, action)
    choices = []
    for order in permutations(range(len(names))):
        action = by_row.get(tuple(names[i] for i in order))
        if action is not None:
            choices.append({"positions": [i + 1 for i in order], "order": list(order),
                            "same": list(order) == sorted(order), "action": action})
    return choices


@register.filter
def public_lines(log: list | None) -> list:
    """The log lines everyone may read (the board's): a phone's open log shows only these.

    A seat's private lines (what it drew, saw or was shown) would give it away on a phone lying on the
    table, and so would their number; they lie face-down in the seat's peek boxes instead (``private_lines``).
    """
    return [line for line in log or [] if is_public(line)]


def is_public(line: dict) -> bool:
    """Whether everyone may read this log line (``public_lines``; a private one names its seat in ``"to"``)."""
    return not line.get("private")


@register.filter
def private_lines(log: list | None, events: str = "") -> list:
    """This seat's own private log lines, newest first, for its peek boxes; ``events``: only these
    (comma-separated event names)."""
    wanted = {e for e in events.split(",") if e}
    return [line for line in reversed(log or [])
            if line.get("private") and (not wanted or line.get("event") in wanted)]


@register.filter
def positions(numbers) -> str:
    """Card positions joined with the language's list separator ("1, 3"; the panel writes the digits natively)."""
    return pgettext("list separator", ", ").join(str(n) for n in numbers or [])


@register.filter
def names_of(cards: list | None) -> list:
    """The names of a seat's own cards given as records (``{"name": …}``, as ``view["cards"][me]``), in position
    order."""
    return [card.get("name") for card in cards or []]


@register.filter
def learned_by_seat(learned: list | None) -> list[dict[str, Any]]:
    """What a seat learned, one group per seat looked at (in the order first looked at), every sighting
    kept in order: a short line per seat, so a long game's knowledge still fits its peek box."""
    groups: dict[Any, dict[str, Any]] = {}
    for entry in learned or []:
        groups.setdefault(entry.get("target"), {"target": entry.get("target"), "entries": []})["entries"].append(entry)
    return list(groups.values())
