"""What the web layer shows of Good Cop Bad Cop beside its views: the reference card's facts, a seat's role
from the end's reveal, and the Kingpin as the minority role a fair deal evens out."""

from __future__ import annotations

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
