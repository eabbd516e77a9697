"""What the web layer shows of Good Cop Bad Cop (health edition) beside its views: the reference card's facts,
a seat's final identity from the end's reveal, and the Bad Cops as the minority a fair deal evens out."""

from __future__ import annotations

from engines.base import JSONDict

from . import cards

MINORITY = ("role", "bad")


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
