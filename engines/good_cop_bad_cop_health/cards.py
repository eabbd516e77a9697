"""The pieces: equipment kinds, the default deck, the identity table."""

from __future__ import annotations

# Equipment kinds, named as in the `deck` option (the rules page, "Pieces").
REVOLVER_38 = "revolver_38"
MAGNUM_357 = "magnum_357"
MAGNUM_44 = "magnum_44"
VEST = "vest"
INSPECTION = "inspection"
FLAWLESS_SHOT = "flawless_shot"
JAMMER = "jammer"

KINDS = (REVOLVER_38, MAGNUM_357, MAGNUM_44, VEST, INSPECTION, FLAWLESS_SHOT, JAMMER)

# Decision on the rules page: the seed names the kinds only; these counts make 44 cards.
DEFAULT_DECK = {
    REVOLVER_38: 8,
    MAGNUM_357: 6,
    MAGNUM_44: 4,
    VEST: 8,
    INSPECTION: 10,
    FLAWLESS_SHOT: 4,
    JAMMER: 4,
}

DAMAGE = {REVOLVER_38: 1, MAGNUM_357: 2, MAGNUM_44: 3}
GUNS = tuple(DAMAGE)
# Inspection is played from hand (discarded on use); everything else is equipped first.
EQUIPPABLE = (REVOLVER_38, MAGNUM_357, MAGNUM_44, VEST, FLAWLESS_SHOT, JAMMER)

GOOD = "good"
BAD = "bad"
WANTED = "wanted"

START_HEALTH = 4
MARKET_SIZE = 4
IDENTITY_CARDS = {GOOD: 8, BAD: 8}

# Players -> (good, bad) identities dealt, from the setup table.
TEAM_TABLE = {4: (2, 2), 5: (3, 2), 6: (3, 3), 7: (4, 3), 8: (4, 4)}


def build_deck(counts: dict) -> list[dict]:
    """The equipment cards in kind order, each {"id", "kind"} with ids 0..n-1."""
    cards: list[dict] = []
    for kind in KINDS:
        for _ in range(counts.get(kind, 0)):
            cards.append({"id": len(cards), "kind": kind})
    return cards


def identity_cards() -> list[str]:
    """The 16 identity cards, unshuffled."""
    return [GOOD] * IDENTITY_CARDS[GOOD] + [BAD] * IDENTITY_CARDS[BAD]


def opposite(identity: str) -> str | None:
    """The other team of Good/Bad; None for Wanted."""
    return {GOOD: BAD, BAD: GOOD}.get(identity)
