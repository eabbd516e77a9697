"""Coup's data: the court, the claims and blocks of each action, costs, phases and the state's shape."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from engines.base import BaseView

DUKE, ASSASSIN, CAPTAIN, AMBASSADOR, CONTESSA, INQUISITOR = (
    "duke", "assassin", "captain", "ambassador", "contessa", "inquisitor",
)
# Embezzle claims the absence of a Duke; challenges of it are judged on the whole hand.
NO_DUKE = "no_duke"

MONARCHIST, POPULIST = "monarchist", "populist"

COUP_COST = 7
ASSASSINATE_COST = 3
FORCED_COUP_AT = 10
# What declaring costs (paid at once, before any challenge).
COSTS = {"coup": COUP_COST, "assassinate": ASSASSINATE_COST}
# The coins an unblocked general or character action takes from the treasury.
INCOME = {"income": 1, "foreign_aid": 2, "tax": 3}
STEAL_AMOUNT = 2

# Every action the active player may declare.
TURN_ACTIONS = ("income", "foreign_aid", "coup", "tax", "steal", "exchange", "assassinate", "examine",
                "convert", "embezzle")
# Actions that name a character; anyone may challenge them.
CHARACTER_ACTIONS = ("tax", "steal", "exchange", "assassinate", "examine", "embezzle")
TARGETED = ("coup", "steal", "assassinate", "examine", "convert")
# Character actions whose target may block them once the claim stands.
TARGET_BLOCKS = ("steal", "assassinate")

# The character an action claims; the Ambassador's slot goes to the Inquisitor in its variant.
CLAIMS = {"tax": DUKE, "steal": CAPTAIN, "exchange": AMBASSADOR, "assassinate": ASSASSIN,
          "examine": INQUISITOR, "embezzle": NO_DUKE}
# The characters that may be claimed to block an action.
BLOCKERS = {"foreign_aid": (DUKE,), "steal": (CAPTAIN, AMBASSADOR), "assassinate": (CONTESSA,)}


class Phase(StrEnum):
    """What the game waits for (stored as its plain string value)."""

    ACTION = "action"  # the active player's turn
    CHALLENGE = "challenge"  # anyone may challenge the declared claim
    BLOCK = "block"  # the eligible may block
    BLOCK_CHALLENGE = "block_challenge"  # anyone may challenge the block
    REVEAL = "reveal"  # the challenged player shows a card
    LOSE = "lose"  # a player chooses the influence to lose
    EXCHANGE = "exchange"  # the exchanging player returns cards
    EXAMINE_SHOW = "examine_show"  # the examined player picks the card to show
    EXAMINE_DECIDE = "examine_decide"  # the examiner hands it back or forces a swap
    OVER = "over"


# The response windows the table timer closes.
WINDOW_PHASES = (Phase.CHALLENGE, Phase.BLOCK, Phase.BLOCK_CHALLENGE)
# What runs when a window closes unanswered (everyone allowed, or the timer ran out).
AFTER_WINDOW: dict[str, str] = {Phase.CHALLENGE: "claim_stands", Phase.BLOCK: "resolve",
                                 Phase.BLOCK_CHALLENGE: "block_stands"}
# The default countdown of a silent window (the ``window_seconds`` option).
WINDOW_SECONDS = 5


def characters(inquisitor: bool) -> tuple[str, ...]:
    """The five characters in the court (the Inquisitor replaces the Ambassador in its variant)."""
    return (DUKE, ASSASSIN, CAPTAIN, INQUISITOR if inquisitor else AMBASSADOR, CONTESSA)


def court_card(card: str, inquisitor: bool) -> str:
    """The card as this court has it: the Ambassador is the Inquisitor in its variant."""
    return INQUISITOR if inquisitor and card == AMBASSADOR else card


def copies(players: int) -> int:
    """Copies of each character: 3 up to 6 players; decision: 4 for 7-8, 5 for 9-10."""
    if players <= 6:
        return 3
    return 4 if players <= 8 else 5


def build_court(players: int, inquisitor: bool) -> list[str]:
    """The unshuffled court deck for this table."""
    return [card for card in characters(inquisitor) for _ in range(copies(players))]


def claim_of(action: str, inquisitor: bool) -> str | None:
    """The character an action claims (None for Income, Foreign Aid, Coup, Convert)."""
    claim = CLAIMS.get(action)
    return None if claim is None else court_card(claim, inquisitor)


def blockers_of(action: str, inquisitor: bool) -> list[str]:
    """The characters that may be claimed to block an action ([] if it cannot be blocked)."""
    return [court_card(card, inquisitor) for card in BLOCKERS.get(action, ())]


# ------------------------------------------------------------------ the state and the view (plain JSON)

Action = dict[str, Any]
LogEntry = dict[str, Any]


class Options(TypedDict):
    """The checked table options."""

    first_player: int | None
    inquisitor: bool
    factions: bool
    two_player_start: str  # "seed" or "published"
    rounds_to_win: int
    # Games stored before the silent-window option have neither key: read with .get.
    silent_windows: NotRequired[bool]
    window_seconds: NotRequired[int]


class Player(TypedDict):
    """One seat: its face-down hand (secret), face-up lost cards, coins, faction, exchange draw."""

    hand: list[str]
    lost: list[str]
    coins: int
    faction: str | None
    drawn: list[str]


# A claimed block: the blocker and the character claimed ("as" is a Python keyword).
Block = TypedDict("Block", {"seat": int, "as": str})


class PublicPending(TypedDict):
    """The declared action being resolved, as everyone sees it."""

    actor: int
    action: str
    target: int | None
    claim: str | None
    paid: int
    block: Block | None
    challenger: int | None
    revealer: int | None
    on_trial: str | None  # "action" or "block": the claim a challenge judges


class Pending(PublicPending):
    """The declared action in the state: also the examined card (examiner and examined only)."""

    shown: str | None


class Window(TypedDict):
    """An open challenge or block window."""

    id: str
    kind: str  # a window Phase
    eligible: list[int]
    answered: list[int]


class Match(TypedDict):
    """Rounds to win, rounds won by seat, the round being played."""

    target: int
    wins: list[int]
    round: int


class Reveal(TypedDict):
    """Every hand at the end."""

    hands: list[list[str]]
    lost: list[list[str]]


class Result(TypedDict):
    """The match's outcome."""

    winners: list[int]
    reason: str
    wins: list[int]
    reveal: Reveal


class CoupState(TypedDict):
    """A Coup match (secrets: ``players[s]["hand"]``/``["drawn"]``, ``deck``, ``pending["shown"]``)."""

    seed: int
    draws: int
    options: Options
    n: int
    players: list[Player]
    deck: list[str]
    almshouse: int
    turn: int
    phase: str  # a Phase
    pending: Pending | None
    window: Window | None
    window_count: int
    losers: list[int]
    after: str | None  # the step run once the queued losses are taken
    log: list[LogEntry]
    match: Match
    result: Result | None


class ExchangeOption(TypedDict):
    """A return the exchanging player may make, and the hand it keeps."""

    action: Action
    keep: list[str]


class Examined(TypedDict):
    """The examined card (examiner and examined only)."""

    target: int
    card: str | None


class Variants(TypedDict):
    """The variants in play."""

    inquisitor: bool
    factions: bool


class CoupView(BaseView[str, LogEntry, Action, Result]):
    """What one seat (or the board) sees."""

    coins: list[int]
    hand: list[str]
    alive: list[bool]
    lost: list[list[str]]
    counts: list[int]
    factions: list[str | None] | None
    almshouse: int
    restricted: bool
    pending: PublicPending | None
    window: Window | None
    losing: int | None
    silent: bool
    match: Match
    variants: Variants
    must_coup: bool
    drawn: list[str]
    exchange_options: list[ExchangeOption]
    examined: Examined | None
    my_phase: str | None
    embezzle_gain: int | None
