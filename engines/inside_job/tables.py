"""Inside Job's fixed data: role counts, mission sizes, and who sees whom."""

from __future__ import annotations

# players -> (agents, traitors); decision: the published Resistance table.
SIDES = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}

# players -> team size of missions 1..5; decision: the published table.
MISSION_SIZES = {
    5: [2, 3, 2, 3, 3],
    6: [2, 3, 4, 3, 4],
    7: [2, 3, 3, 4, 4],
    8: [3, 4, 4, 5, 5],
    9: [3, 4, 4, 5, 5],
    10: [3, 4, 4, 5, 5],
}

# Seed rule (mission 4 at 7 players), extended by the published table to 8-10.
TWO_SABOTAGE_MIN_PLAYERS = 7
TWO_SABOTAGE_MISSION = 3  # index of mission 4

MAX_REJECTIONS = 5
WINS_NEEDED = 3

AGENT_ROLES = ("agent", "merlin", "percival")
TRAITOR_ROLES = ("traitor", "assassin", "morgana", "mordred", "oberon")
ROLES = AGENT_ROLES + TRAITOR_ROLES

# Lady of the Lake is used after these mission indexes (missions 2, 3 and 4).
LADY_AFTER = (1, 2, 3)
LADY_MIN_PLAYERS = 7


def side_of(role: str) -> str:
    """'agents' or 'traitors' for a role id."""
    return "agents" if role in AGENT_ROLES else "traitors"


def sabotage_needed(players: int, mission: int) -> int:
    """How many Sabotage cards make this mission (0-based index) fail."""
    if players >= TWO_SABOTAGE_MIN_PLAYERS and mission == TWO_SABOTAGE_MISSION:
        return 2
    return 1


def role_list(players: int, options: dict) -> list[str]:
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
