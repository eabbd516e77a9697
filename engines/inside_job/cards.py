"""Inside Job's fixed data: sides and roles, mission sizes, who sees whom, and the JSON shapes.

Everything here is a table or a lookup in one; nothing changes a state. The ``TypedDict``s
name the keys of the state and of a view, which stay plain JSON (a ``Phase`` is a ``str``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypedDict

from engines.base import BaseView

# players -> (agents, traitors); decision: the published Resistance table.
SIDES: dict[int, tuple[int, int]] = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}

# players -> team size of missions 1..5; decision: the published table.
MISSION_SIZES: dict[int, list[int]] = {
    5: [2, 3, 2, 3, 3],
    6: [2, 3, 4, 3, 4],
    7: [2, 3, 3, 4, 4],
    8: [3, 4, 4, 5, 5],
    9: [3, 4, 4, 5, 5],
    10: [3, 4, 4, 5, 5],
}
MISSIONS = 5

# Seed rule (mission 4 at 7 players), extended by the published table to 8-10.
TWO_SABOTAGE_MIN_PLAYERS = 7
TWO_SABOTAGE_MISSION = 3  # index of mission 4

MAX_REJECTIONS = 5
WINS_NEEDED = 3

AGENT_ROLES = ("agent", "merlin", "percival")
TRAITOR_ROLES = ("traitor", "assassin", "morgana", "mordred", "oberon")
ROLES = AGENT_ROLES + TRAITOR_ROLES
# The options that each put one special Traitor in place of a plain one (merlin brings the Assassin).
TRAITOR_SPECIALS = ("merlin", "morgana", "mordred", "oberon")

# Lady of the Lake is used after these mission indexes (missions 2, 3 and 4).
LADY_AFTER = (1, 2, 3)
LADY_MIN_PLAYERS = 7


class Phase(StrEnum):
    """What the table is doing now (stored as its plain string)."""

    PROPOSE = "propose"
    VOTE = "vote"
    MISSION = "mission"
    LADY = "lady"
    ASSASSINATE = "assassinate"
    OVER = "over"


# The phases the table timer applies to (the vote and the mission play).
TIMED_PHASES = (Phase.VOTE, Phase.MISSION)

Action = dict[str, Any]
LogEntry = dict[str, Any]


class Result(TypedDict):
    """How the game ended, kept in the state once it has."""

    side: str
    reason: str


class Reveal(TypedDict):
    """The secrets shown to everyone after the end."""

    roles: list[str]
    assassin_target: int | None


class Outcome(TypedDict):
    """The contract's outcome (plus the winning ``side``)."""

    winners: list[int]
    side: str
    reason: str
    teams: dict[str, list[int]]
    reveal: Reveal


class Examined(TypedDict):
    """What the Lady of the Lake showed this seat."""

    target: int
    side: str


class InsideJobState(TypedDict):
    """The whole game. Secrets: ``roles``, the hidden ``votes`` and ``cards`` of the open window."""

    seed: int
    draws: int
    players: int
    options: dict[str, Any]
    roles: list[str]
    phase: Phase
    mission: int  # index of the mission being played (5 after the last)
    missions: list[str]  # "success" or "fail", by mission
    sabotage_counts: list[int | None]  # None: failed by five rejections
    mission_teams: list[list[int] | None]
    leader: int
    team: list[int] | None
    rejections: int
    votes: list[bool | None]
    last_votes: list[bool | None] | None
    cards: list[str | None]
    lady: int | None
    lady_past: list[int]
    window_no: int
    assassin_target: int | None
    result: Result | None
    log: list[LogEntry]


class InsideJobView(BaseView[Phase, LogEntry, Action, Outcome]):
    """What one seat (or the board, seat None) may see."""

    role: str | None
    side: str | None
    known: list[int]
    known_as: str | None
    examined: list[Examined]
    missions: list[str]
    mission_number: int
    mission_sizes: list[int]
    sabotage_needed: list[int]
    sabotage_counts: list[int | None]
    mission_teams: list[list[int] | None]
    leader: int
    team: list[int] | None
    team_size: int
    rejections: int
    max_rejections: int
    votes: list[bool | None] | None
    voted: list[int]
    my_vote: bool | None
    played: list[int]
    my_card: str | None
    lady: int | None
    lady_past: list[int]
    assassin_target: int | None
    reveal: Reveal | None


def side_of(role: str) -> str:
    """'agents' or 'traitors' for a role id."""
    return "agents" if role in AGENT_ROLES else "traitors"


def sabotage_needed(players: int, mission: int) -> int:
    """How many Sabotage cards make this mission (0-based index) fail."""
    if players >= TWO_SABOTAGE_MIN_PLAYERS and mission == TWO_SABOTAGE_MISSION:
        return 2
    return 1


def role_list(players: int, options: dict[str, Any]) -> list[str]:
    """The role cards dealt for this table, special roles replacing plain ones."""
    agents, traitors = SIDES[players]
    good = [r for r, on in (("merlin", options["merlin"]), ("percival", options["percival"])) if on]
    bad = [
        r
        for r, on in (
            ("assassin", options["merlin"]),
            ("morgana", options["morgana"]),
            ("mordred", options["mordred"]),
            ("oberon", options["oberon"]),
        )
        if on
    ]
    return good + ["agent"] * (agents - len(good)) + bad + ["traitor"] * (traitors - len(bad))


def knowledge(roles: list[str], seat: int) -> tuple[str | None, list[int]]:
    """What a seat sees at the start: (kind, seats) with kind 'traitors', 'merlin_candidates' or None."""
    role = roles[seat]
    if role == "merlin":
        # Merlin sees every Traitor (Oberon too) but not Mordred.
        return "traitors", [s for s, r in enumerate(roles) if side_of(r) == "traitors" and r != "mordred"]
    if role == "percival":
        return "merlin_candidates", [s for s, r in enumerate(roles) if r in ("merlin", "morgana")]
    if role == "oberon":
        return None, []
    if side_of(role) == "traitors":
        # Traitors see each other, except Oberon (he is hidden from them and blind to them).
        return "traitors", [
            s for s, r in enumerate(roles) if s != seat and side_of(r) == "traitors" and r != "oberon"
        ]
    return None, []
