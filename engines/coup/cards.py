"""The court, the claims each action makes and the characters that block it (data only)."""

from __future__ import annotations

DUKE, ASSASSIN, CAPTAIN, AMBASSADOR, CONTESSA, INQUISITOR = (
    "duke", "assassin", "captain", "ambassador", "contessa", "inquisitor",
)
# Embezzle claims the absence of a Duke; challenges of it are judged on the whole hand.
NO_DUKE = "no_duke"

MONARCHIST, POPULIST = "monarchist", "populist"

COUP_COST = 7
ASSASSINATE_COST = 3
FORCED_COUP_AT = 10

# Actions that name a character; anyone may challenge them.
CHARACTER_ACTIONS = ("tax", "steal", "exchange", "assassinate", "examine", "embezzle")
TARGETED = ("coup", "steal", "assassinate", "examine", "convert")
# The response windows the table timer closes.
WINDOW_PHASES = ("challenge", "block", "block_challenge")
# The default countdown of a silent window (the ``window_seconds`` option).
WINDOW_SECONDS = 5


def characters(inquisitor: bool) -> tuple[str, ...]:
    """The five characters in the court (the Inquisitor replaces the Ambassador in its variant)."""
    return (DUKE, ASSASSIN, CAPTAIN, INQUISITOR if inquisitor else AMBASSADOR, CONTESSA)


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
    return {
        "tax": DUKE,
        "steal": CAPTAIN,
        "exchange": INQUISITOR if inquisitor else AMBASSADOR,
        "assassinate": ASSASSIN,
        "examine": INQUISITOR,
        "embezzle": NO_DUKE,
    }.get(action)


def blockers_of(action: str, inquisitor: bool) -> list[str]:
    """The characters that may be claimed to block an action ([] if it cannot be blocked)."""
    return {
        "foreign_aid": [DUKE],
        "steal": [CAPTAIN, INQUISITOR if inquisitor else AMBASSADOR],
        "assassinate": [CONTESSA],
    }.get(action, [])
