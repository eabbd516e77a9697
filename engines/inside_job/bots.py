"""The heuristic bot for Inside Job: it reads only its own seat's view.

Agents keep a suspicion score per seat from the public record (who sat on missions that
drew Sabotage, what the Lady showed) and back the least suspicious teams. Traitors put one
of their own on each team, sabotage when it decides the mission, and, as Assassin, name
the Agent whose votes looked most like someone who knew the Traitors.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engines.inside_job.cards import Action, InsideJobView, LogEntry

LAST_CHANCE = 4  # rejections before the fifth proposal


def heuristic(view: InsideJobView, rng: random.Random) -> Action:
    """One legal action for this seat, chosen from its view only."""
    legal = view["legal"]
    choose = CHOOSERS.get(legal[0]["type"])
    return rng.choice(legal) if choose is None else choose(view, legal, rng)


def _me(view: InsideJobView) -> int:
    """This bot's seat (a bot only ever reads a seat's view, never the board's)."""
    seat = view["seat"]
    assert seat is not None, "a bot reads a seat's view"
    return seat


def _events(view: InsideJobView, name: str) -> list[LogEntry]:
    """Log entries of one kind."""
    return [e for e in view["log"] if e["event"] == name]


def _traitor_mates(view: InsideJobView) -> set[int]:
    """The Traitors this seat knows, itself included when it is one."""
    mates = set(view["known"]) if view["known_as"] == "traitors" and view["side"] == "traitors" else set()
    if view["side"] == "traitors":
        mates.add(_me(view))
    return mates


def suspicion(view: InsideJobView) -> list[float]:
    """How likely each seat looks to be a Traitor, from this Agent's point of view."""
    me = _me(view)
    score = [0.0] * view["players"]
    approved_by: list[int] = []
    rejected_by: list[int] = []
    leader = None
    for entry in view["log"]:
        if entry["event"] == "proposal":
            leader = entry["leader"]
        elif entry["event"] == "votes" and entry["approved"]:
            approved_by, rejected_by = entry["approve"], entry["reject"]
        elif entry["event"] == "votes":
            for s in entry["reject"]:
                score[s] += 0.05
        elif entry["event"] == "mission":
            _score_mission(score, entry, me, approved_by, leader)
            if not entry["sabotage"]:
                # Rejecting a team that then came back clean looks like a Traitor's vote.
                for s in rejected_by:
                    score[s] += 0.3
    for found in view["examined"]:
        score[found["target"]] += 20 if found["side"] == "traitors" else -20
    if view["known_as"] == "traitors":  # Merlin
        for s in view["known"]:
            score[s] += 50
    elif view["known_as"] == "merlin_candidates":
        for s in view["known"]:
            score[s] -= 0.3
    score[me] = -100.0
    return score


def _score_mission(score: list[float], entry: LogEntry, me: int, approved_by: list[int],
                   leader: int | None) -> None:
    """Blame the team (and, less, its leader and backers) for Sabotage; credit clean teams."""
    others = [s for s in entry["team"] if s != me]
    if not others:
        return
    sabotage = entry["sabotage"]
    if not sabotage:
        for s in others:
            score[s] -= 0.4
        return
    # Every other member sabotaged when the count equals their number: certain Traitors.
    share = 20.0 if sabotage >= len(others) else 3 * sabotage / len(others)
    for s in others:
        score[s] += share
    for s in approved_by:
        if s != me and s not in entry["team"]:
            score[s] += 0.5 * sabotage
    if leader is not None and leader != me:
        score[leader] += 0.5


def _least_suspicious(view: InsideJobView, size: int, rng: random.Random) -> list[int]:
    """The ``size`` seats this Agent trusts most (itself first), ties broken at random."""
    score = suspicion(view)
    order = sorted(range(view["players"]), key=lambda s: (score[s], rng.random()))
    return sorted(order[:size])


def _propose(view: InsideJobView, legal: list[Action], rng: random.Random) -> Action:
    """Agents pick the most trusted team; Traitors take themself plus trusted-looking Agents."""
    size = view["team_size"]
    me = _me(view)
    if view["side"] == "traitors":
        mates = _traitor_mates(view)
        others = [s for s in range(view["players"]) if s not in mates]
        clean = [s for s in others if not _was_on_failed_mission(view, s)]
        rng.shuffle(clean)
        pool = clean + [s for s in others if s not in clean]
        team = sorted([me, *pool[: size - 1]])
    else:
        team = _least_suspicious(view, size, rng)
    return {"type": "propose", "team": team}


def _was_on_failed_mission(view: InsideJobView, seat: int) -> bool:
    """Whether a seat sat on a mission that drew Sabotage."""
    return any(seat in e["team"] and e["sabotage"] for e in _events(view, "mission"))


def _vote(view: InsideJobView, legal: list[Action], rng: random.Random) -> Action:
    """Agents back teams of trusted seats; Traitors back teams holding a Traitor."""
    team = view["team"] or []
    if view["side"] == "traitors":
        mates = _traitor_mates(view)
        # A fifth rejection hands the mission to the Traitors outright.
        approve = view["rejections"] < LAST_CHANCE and any(s in mates for s in team)
        if view["role"] == "oberon":
            approve = view["rejections"] < LAST_CHANCE and view["seat"] in team
        return {"type": "vote", "approve": approve}
    if view["rejections"] >= LAST_CHANCE:
        return {"type": "vote", "approve": True}
    score = suspicion(view)
    ranked = sorted(score)
    cutoff = ranked[len(team) - 1] if team else 0.0
    worst = max((score[s] for s in team), default=0.0)
    approve = worst <= cutoff + 1e-9 and worst < 20
    if view["seat"] not in team and view["leader"] != view["seat"] and worst > 0.5:
        approve = False
    return {"type": "vote", "approve": approve}


def _play(view: InsideJobView, legal: list[Action], rng: random.Random) -> Action:
    """Agents play Success; a Traitor sabotages when the known Traitors on the team can fail it."""
    if len(legal) == 1:
        return legal[0]
    team = view["team"] or []
    mates_on_team = sorted(s for s in team if s in _traitor_mates(view))
    needed = view["sabotage_needed"][view["mission_number"] - 1]
    if view["role"] == "oberon":
        sabotage = True
    elif needed == 1:
        # One Sabotage is enough; the lowest known Traitor plays it to stay less exposed.
        sabotage = mates_on_team[0] == view["seat"]
    else:
        sabotage = len(mates_on_team) >= needed
    return {"type": "play", "card": "sabotage" if sabotage else "success"}


def _examine(view: InsideJobView, legal: list[Action], rng: random.Random) -> Action:
    """Agents examine the most doubtful seat; Traitors examine a seat they do not know."""
    targets = [a["target"] for a in legal]
    if view["side"] == "traitors":
        mates = _traitor_mates(view)
        pick = [t for t in targets if t not in mates] or targets
        return {"type": "examine", "target": rng.choice(pick)}
    score = suspicion(view)
    unsure = [t for t in targets if abs(score[t]) < 20] or targets
    best = max(unsure, key=lambda t: (score[t], rng.random()))
    return {"type": "examine", "target": best}


def _assassinate(view: InsideJobView, legal: list[Action], rng: random.Random) -> Action:
    """Name the seat whose votes and proposals best avoided the Traitors."""
    mates = _traitor_mates(view)
    merlin_like = {a["target"]: 0.0 for a in legal}
    for entry in _events(view, "votes"):
        dirty = any(s in mates for s in entry["team"])
        for s in merlin_like:
            if dirty and s in entry["reject"]:
                merlin_like[s] += 1.0
            elif not dirty and s in entry["approve"]:
                merlin_like[s] += 0.3
            elif dirty and s in entry["approve"]:
                merlin_like[s] -= 0.5
    for entry in _events(view, "proposal"):
        if entry["leader"] in merlin_like and not any(s in mates for s in entry["team"]):
            merlin_like[entry["leader"]] += 1.0
    best = max(merlin_like, key=lambda s: (merlin_like[s], rng.random()))
    return {"type": "assassinate", "target": best}


Chooser = Callable[[InsideJobView, list[Action], random.Random], Action]
# The kind of decision this seat faces (its legal actions all share one type) -> who decides it.
CHOOSERS: dict[str, Chooser] = {
    "propose": _propose,
    "vote": _vote,
    "play": _play,
    "examine": _examine,
    "assassinate": _assassinate,
}
