"""The pieces: equipment kinds, the default deck, the identity table, and the shapes of state and view."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from engines.base import BaseView

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


class Phase(StrEnum):
    """Where the game stands: duellists choosing, a turn's draw or act step, or the end."""

    KEEP_IDENTITY = "keep_identity"
    DRAW = "draw"
    ACT = "act"
    OVER = "over"


class Variant(StrEnum):
    """The seed's variant by player count: a duel (2), Wanted (3) or the identity table (4-8)."""

    DUEL = "duel"
    WANTED = "wanted"
    STANDARD = "standard"


# Players -> variant (every other count plays the standard identity table).
VARIANTS = {2: Variant.DUEL, 3: Variant.WANTED}

# The action types, each carried out by its handler (engine.handlers, rules.py).
KEEP_IDENTITY = "keep_identity"
DRAW = "draw"
EQUIP = "equip"
INSPECT = "inspect"
SHOOT = "shoot"
END_TURN = "end_turn"

Action = dict[str, Any]
# A structured log entry {"event": ..., params}; a private one adds "private": True, "to": seat.
LogEntry = dict[str, Any]


class Card(TypedDict):
    """One equipment card (ids 0..n-1 over the whole deck)."""

    id: int
    kind: str


class Options(TypedDict):
    """The checked table options."""

    first_player: int | None
    deck: dict[str, int]
    flawless_shot_always: bool


class Player(TypedDict):
    """One seat's record; its secrets are identity, choices, previous, hand and learned."""

    identity: str | None
    choices: list[str] | None
    previous: str | None
    health: int
    alive: bool
    hand: list[Card]
    in_play: list[Card]
    learned: list[str | None]


class Result(TypedDict):
    """How the game ended."""

    winners: list[int]
    reason: str


class HealthState(TypedDict):
    """The whole game (plain JSON: the enums are str)."""

    seed: int
    draws: int
    n: int
    variant: str
    options: Options
    phase: str
    turn: int
    first: int
    equipped: bool
    players: list[Player]
    deck: list[Card]
    discard: list[Card]
    market: list[Card | None]
    identity_pile: list[str]
    log: list[LogEntry]
    result: Result | None


class Reveal(TypedDict):
    """Every secret, shown at the end."""

    identities: list[str | None]
    hands: list[list[str]]


class Outcome(TypedDict):
    """The contract's outcome: winners, reason, teams by final identity, and the reveal."""

    winners: list[int]
    reason: str
    teams: dict[str, list[int]]
    reveal: Reveal


class GunChoice(TypedDict):
    """A gun the phone offers to shoot with."""

    id: int
    kind: str
    damage: int


class MarketChoice(TypedDict):
    """A market card the phone offers to take."""

    index: int
    kind: str


class Target(TypedDict):
    """A seat the phone offers to shoot, with what the table sees of it (health, equipment in play)."""

    seat: int
    health: int
    in_play: list[Card]


class Inspected(TypedDict):
    """What a seat saw when it inspected another: that seat's identity then."""

    seat: int
    identity: str


class OwnPlace(TypedDict):
    """A seat's own place at the table as its phone's own part shows it."""

    alive: bool


class Moves(TypedDict):
    """The legal moves grouped for the phone's buttons, with the public facts the buttons show (only while they
    are offered: a phone's own part changes only when its moves do)."""

    keep: list[int]
    draw_deck: bool
    deck_left: int | None
    draw_market: list[int]
    market: list[MarketChoice]
    equip: list[int]
    inspect_card: int | None
    inspect_targets: list[int]
    shoot_guns: list[GunChoice]
    shoot_targets: list[int]
    targets: list[Target]
    end_turn: bool
    equipped: bool


class HealthView(BaseView[str, LogEntry, Action, Outcome]):
    """What one seat (or the board, seat None) sees."""

    variant: str
    flawless_shot_always: bool
    health: list[int]
    alive: list[bool]
    revealed: list[str | None]
    in_play: list[list[Card]]
    market: list[Card | None]
    deck: int
    discard: int
    identity_pile: int
    equipped: bool
    identity: str | None
    identity_was: str | None
    identity_choices: list[str] | None
    hand: list[Card]
    learned: list[str | None]
    moves: Moves
    step: str | None
    own: OwnPlace | None
    inspected: list[Inspected]
    reveal: NotRequired[Reveal]


def build_deck(counts: dict[str, int]) -> list[Card]:
    """The equipment cards in kind order, each {"id", "kind"} with ids 0..n-1."""
    cards: list[Card] = []
    for kind in KINDS:
        for _ in range(counts.get(kind, 0)):
            cards.append({"id": len(cards), "kind": kind})
    return cards


def identity_cards() -> list[str]:
    """The 16 identity cards, unshuffled."""
    return [GOOD] * IDENTITY_CARDS[GOOD] + [BAD] * IDENTITY_CARDS[BAD]


def opposite(identity: str | None) -> str | None:
    """The other team of Good/Bad; None for Wanted."""
    return {GOOD: BAD, BAD: GOOD}.get(identity) if identity is not None else None
