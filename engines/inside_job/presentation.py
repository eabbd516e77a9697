"""What the web layer shows of Inside Job beside its views: the reference card's facts, each seat's figures
from a finished game's log (sabotaged missions, the Assassin's guess), a seat's revealed role, the
minority side a fair deal evens out, and what its templates compute from a view: a team member's two
mission cards and the mission track's geometry (drawn by templates/games/inside_job/track.jinja)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import BaseEngine, JSONDict, State

from . import cards

# In the order the stats pages and downloads list them. Who played a Sabotage card is never made public
# (the rules page: the public sees only how many), and the end of the game reveals roles, not cards. So
# ``sabotaged_missions`` counts what the reveal makes public: missions that failed by Sabotage cards while
# the player was on the team as a Traitor (two Traitors on a mission failed by one card both count).
# ``sabotage_cards``, the Sabotage cards the player really played, is the player's own secret
# (``PRIVATE_FIGURES``). The Merlin variant: ``assassin_guesses`` (the Assassin named someone),
# ``merlin_found`` (the Assassin named Merlin) and ``found_as_merlin`` (the Assassin named this player, Merlin).
FIGURES = ("sabotaged_missions", "sabotage_cards", "assassin_guesses", "merlin_found", "found_as_merlin")
# Figures only the player themself may see: who played a Sabotage card stays secret for good.
PRIVATE_FIGURES = frozenset({"sabotage_cards"})
# A finished game's teams name the Traitors' side so.
MINORITY = ("team", "traitors")


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """Team sizes, Sabotage cards needed, the sides' sizes, the special roles this table deals and what each does."""
    sizes = cards.MISSION_SIZES.get(players, [])
    agents, traitors = cards.SIDES.get(players, (0, 0))
    # The special roles this table deals (each in place of a plain Agent or Traitor), from the options.
    roles = cards.role_list(players, options) if players in cards.SIDES else []
    specials = [{"role": r, "side": cards.side_of(r)} for r in dict.fromkeys(roles) if r not in ("agent", "traitor")]
    lady = bool(options.get("lady_of_the_lake")) and players >= cards.LADY_MIN_PLAYERS
    return {"missions": [{"n": i + 1, "size": size, "sabotage": cards.sabotage_needed(players, i)}
                         for i, size in enumerate(sizes)],
            "agents": agents, "traitors": traitors, "wins": cards.WINS_NEEDED, "rejections": cards.MAX_REJECTIONS,
            "specials": specials,
            "lady": {"after": [i + 1 for i in cards.LADY_AFTER]} if lady else None}


def log_figures(engine: BaseEngine, state: State, moves: Sequence[tuple[int | None, JSONDict | None]],
                players: int) -> tuple[dict[str, int], ...]:
    """Sabotaged missions from the public mission results and the end's reveal; the Assassin's guess; own cards."""
    figures = [dict.fromkeys(FIGURES, 0) for _ in range(players)]
    for seat, action in moves:
        if seat is not None and (action or {}).get("type") == "play" and (action or {}).get("card") == "sabotage":
            figures[seat]["sabotage_cards"] += 1
    state = engine.replay(state, moves)
    outcome: dict[str, Any] = engine.outcome(state) or {}
    # The roles are public once the game is over (and only then).
    traitors = set((outcome.get("teams") or {}).get("traitors", []))
    entry: dict[str, Any]
    for entry in engine.view(state, None)["log"]:
        event = entry.get("event")
        if event == "mission" and entry.get("result") == "fail" and entry.get("sabotage"):
            for seat in entry.get("team", []):
                if seat in traitors:
                    figures[seat]["sabotaged_missions"] += 1
        elif event == "assassinate":
            figures[int(entry["assassin"])]["assassin_guesses"] += 1
            if entry.get("hit"):
                figures[int(entry["assassin"])]["merlin_found"] += 1
                figures[int(entry["target"])]["found_as_merlin"] += 1
    return tuple(figures)


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """The revealed role (agent, traitor, merlin, …)."""
    roles = (outcome.get("reveal") or {}).get("roles")
    return str(roles[seat]) if isinstance(roles, list) and seat < len(roles) else None


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat on the Traitors' side, whatever its role."""
    return bool(view.get("side") == "traitors")


def mission_cards(view: JSONDict) -> list[str]:
    """The two mission cards of a team member about to play, in position order; [] for any other seat.

    Every team member holds two cards, so every phone shows two buttons ("Play card 1", "Play card 2"):
    a seat the engine lets play Sabotage (a Traitor, whatever its role) holds Success and Sabotage, any
    other (an Agent, Merlin, Percival) two Success cards, both playing the one Success the engine lists.
    """
    listed = view.get("legal") or []
    played = [card for card in ("success", "sabotage") if {"type": "play", "card": card} in listed]
    return played * 2 if len(played) == 1 else played


# The track's geometry, in viewBox units: one mission every STEP from MARGIN across WIDTH.
WIDTH = 500
STEP = 100
MARGIN = 50
MARK_W = 14  # a Sabotage card under a mission
MARK_GAP = 4
PIP_STEP = 34  # the rejection pips
PIP_MARGIN = 17


def _x(i: int, step: int, margin: int, width: int, rtl: bool) -> int:
    """The centre of item ``i`` from the start of the line (the right in a right-to-left page)."""
    x = margin + i * step
    return width - x if rtl else x


def track(view: JSONDict, rtl: bool = False) -> JSONDict:
    """The missions (centre, size, result, Sabotage marks, the two-Sabotage ring, the current one) and the
    rejection pips of ``view``, in viewBox units; a right-to-left page runs the track from the right, as its
    text runs. Only public facts of the view become circles, marks and pips."""
    sizes = list(view.get("mission_sizes") or [])
    results = list(view.get("missions") or [])
    counts = list(view.get("sabotage_counts") or [])
    needed = list(view.get("sabotage_needed") or [])
    live = not view.get("outcome") and view.get("phase") not in ("assassinate", "over")
    missions = []
    for i, size in enumerate(sizes):
        result = results[i] if i < len(results) else None
        count = counts[i] if i < len(counts) and result else None
        n_marks = count or 0
        start = -(n_marks * MARK_W + (n_marks - 1) * MARK_GAP) / 2 if n_marks else 0
        missions.append({
            "n": i + 1, "x": _x(i, STEP, MARGIN, WIDTH, rtl), "size": size, "result": result, "count": count,
            "rejected_out": bool(result) and count is None,  # lost to five rejected proposals
            "two": (needed[i] if i < len(needed) else 1) >= 2,
            "current": live and not result and i + 1 == view.get("mission_number"),
            # Relative to the mission's centre: its Sabotage cards, the result badge, the two-Sabotage tag.
            "marks": [round(start + k * (MARK_W + MARK_GAP), 1) for k in range(n_marks)],
            "badge_dx": -30 if rtl else 30, "two_dx": 30 if rtl else -30,
        })
    most = int(view.get("max_rejections") or 5)
    done = int(view.get("rejections") or 0)
    pips_width = PIP_MARGIN * 2 + PIP_STEP * (most - 1)
    pips = [{"x": _x(j, PIP_STEP, PIP_MARGIN, pips_width, rtl), "filled": j < done, "last": j == most - 1}
            for j in range(most)]
    return {"missions": missions, "pips": pips, "pips_width": pips_width, "rejections": done, "max": most}


# What the game's templates call (``{{ view|mission_cards }}``, ``{% ij_track view rtl as t %}``).
TEMPLATE_FILTERS = {"mission_cards": mission_cards}
TEMPLATE_TAGS = {"ij_track": track}
