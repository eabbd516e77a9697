"""Good Cop Bad Cop's data: integrity cards, guns and equipment by player count, frames, phases, the types.

Data only: the rules that use it are in ``rules.py`` (turns, shots, endings), ``legal.py`` (who may
do what) and ``equipment.py`` (one record per equipment card).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NotRequired, Required, TypedDict

from engines.base import BaseView

HONEST = "honest"
CROOKED = "crooked"
AGENT = "agent"
KINGPIN = "kingpin"
LEADERS = (AGENT, KINGPIN)

# Honest = Crooked count by players (the printed 5+/6+/7+/8+ markings), and guns.
SIDE_CARDS = {4: 5, 5: 7, 6: 8, 7: 10, 8: 11}
GUNS = {4: 2, 5: 3, 6: 3, 7: 4, 8: 4}

# The deck before shuffling, in this order (the deal depends on it).
EQUIPMENT = [
    "blackmail", "coffee", "defibrillator", "evidence_bag", "flashbang", "k9_unit",
    "metal_detector", "planted_evidence", "polygraph", "report_audit", "restraining_order",
    "smoke_grenade", "surveillance_camera", "taser", "truth_serum", "wiretap",
]
BRIBE = "bribe"
# Cards printed for larger tables only.
MIN_PLAYERS = {"defibrillator": 5, "report_audit": 6}

# The default of the ``window_seconds`` option (states saved before the option existed use it).
WINDOW_SECONDS = 4

# The rules version a game is dealt under: the ``rules_version`` of its options, which the engine stamps on
# every new deal (engine.validate_options). Games stored before versions name 1 (a gameplay data migration);
# a state that names none is version 1 (snapshots from then; version-1 deals still name none: engine._setup).
# 1: every turn has an aim step; a seat with no gun taps End turn there.
# 2: the aim step only when it holds a choice (a gun and two or more players to aim at); Report Audit may
#    also be played in the window at the end of its holder's own turn, where the skipped step allowed it.
# 3: as 2, and a card the armed Lead Investigator plays in that window, its aim step skipped with one player
#    to aim at, reopens the step where the card made a choice (a Defibrillator's revived player:
#    equipment.reopens_aim), as if played in the skipped step.
RULES = "rules_version"
RULES_VERSIONS = (1, 2, 3)
RULES_VERSION = RULES_VERSIONS[-1]


class Kind(StrEnum):
    """A frame of the turn stack: what the table waits for."""

    ARRANGE = "arrange"
    ACTION = "action"
    AIM = "aim"
    WINDOW = "window"
    REVEAL = "reveal"
    AUDIT = "audit"
    KEEP = "keep"
    BRIBE = "bribe"
    REDIRECT = "redirect"


class When(StrEnum):
    """Where an equipment card is played: the holder's own turn, or a window (after what)."""

    OWN = "own"
    INVESTIGATE = "investigate"
    SHOOT = "shoot"
    END = "end"


class Phase(StrEnum):
    """The phase a view names (the top frame's kind; a window is "respond")."""

    ARRANGE = "arrange"
    ACTION = "action"
    AIM = "aim"
    RESPOND = "respond"
    REVEAL = "reveal"
    AUDIT = "audit"
    KEEP = "keep"
    BRIBE = "bribe"
    REDIRECT = "redirect"
    OVER = "over"


PHASES = {Kind.ARRANGE: Phase.ARRANGE, Kind.ACTION: Phase.ACTION, Kind.AIM: Phase.AIM,
          Kind.WINDOW: Phase.RESPOND, Kind.REVEAL: Phase.REVEAL, Kind.AUDIT: Phase.AUDIT,
          Kind.KEEP: Phase.KEEP, Kind.BRIBE: Phase.BRIBE, Kind.REDIRECT: Phase.REDIRECT}
# Frames the table timer applies to (everything but the active player's own phases).
TIMED = frozenset({Kind.ARRANGE, Kind.WINDOW, Kind.REVEAL, Kind.AUDIT, Kind.KEEP, Kind.BRIBE, Kind.REDIRECT})
# Frame fields everybody saw happen (never a card name, never a hand).
PUBLIC_FRAME = ("kind", "seat", "when", "target", "card", "why", "seats")

# An action, a log entry, an equipment card's extra fields: plain JSON dicts.
Action = dict[str, Any]
LogEntry = dict[str, Any]


class Options(TypedDict):
    """The checked table options."""

    first_player: int | None
    bribe: bool
    window_seconds: NotRequired[int]
    rules_version: NotRequired[int]


class Learned(TypedDict):
    """What a seat saw privately: ``target``'s card at index ``card`` was ``name`` (learned by ``how``)."""

    target: int
    card: int
    name: str
    how: str


class Player(TypedDict):
    """One seat: integrity cards (and which are face-up), equipment hand, gun and aim, what it learned."""

    cards: list[str]
    up: list[bool]
    hand: list[str]
    alive: bool
    wounded: bool
    gun: bool
    aim: int | None
    learned: list[Learned]
    arranged: bool


class Frame(TypedDict, total=False):
    """A frame of the turn stack; which fields it has depends on its kind."""

    kind: Required[Kind]
    id: Required[int]
    seat: int
    target: int
    card: int
    when: When
    why: str
    seats: list[int]


class Reveal(TypedDict):
    """Every secret, shown at the end."""

    cards: list[list[str]]
    hands: list[list[str]]
    burned: list[str]


class Result(TypedDict):
    """The outcome: the winning team and seats, why, and the reveal."""

    winners: list[int]
    reason: str
    team: str
    seat: int | None
    teams: dict[str, str]
    reveal: Reveal


class GameState(TypedDict):
    """The whole state (plain JSON; secrets in ``players[s]``, ``deck`` and ``burned``)."""

    seed: int
    draws: int
    options: Options
    players: list[Player]
    deck: list[str]
    burned: list[str]
    removed: list[str]
    guns_left: int
    turn: int
    direction: int
    coffee: int | None
    no_arm: int | None
    planted: int | None
    frames: int
    stack: list[Frame]
    log: list[LogEntry]
    result: Result | None


class CardView(TypedDict):
    """One integrity card as a viewer sees it."""

    name: str | None
    face_up: bool


class OwnView(TypedDict):
    """A seat's own place at the table: its integrity cards (it knows them all), life, wound, gun and aim."""

    cards: list[CardView]
    alive: bool
    wounded: bool
    armed: bool
    aim: int | None
    planted: bool


class GameView(BaseView[Phase, LogEntry, Action, Result]):
    """What one seat (or the board, seat None) sees."""

    cards: list[list[CardView]]
    hand: list[str]
    guns: list[int | None]
    armed: list[bool]
    guns_left: int
    wounded: list[bool]
    alive: list[bool]
    arranged: list[bool]
    learned: list[Learned]
    team: str | None
    direction: int
    coffee: int | None
    planted: int | None
    removed: list[str]
    no_arm: int | None
    pending: dict[str, Any] | None
    playable: list[str]
    window: str | None
    silent: bool
    reveal: Reveal | None
    own: OwnView | None
    step: Phase | None
    picks: dict[str, list[dict[str, Any]]]
    revive: list[dict[str, Any]]
