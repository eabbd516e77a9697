"""What the web layer shows of Inside Job beside its views: the reference card's facts, each seat's figures
from a finished game's log (sabotaged missions, the Assassin's guess), a seat's revealed role, the
minority side a fair deal evens out, what its templates compute from a view (a team member's two mission cards,
the mission track's geometry: templates/games/inside_job/track_drawing.jinja), and the public parts: each piece of
the board and of the phone's public part as the plain dict that is all it shows (``public_parts``), the one thing
its template reads (as ``part``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engines.base import BaseEngine, JSONDict, State, effective_moves, item_at, seat_name

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
    moves = effective_moves(moves)  # an undone Sabotage card was never played
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


def track(part: JSONDict, rtl: bool = False) -> JSONDict:
    """The missions of the part ``ij-track`` (:func:`track_part`) placed (centre, Sabotage marks, where the result
    badge and the two-Sabotage tag go) and its rejection pips, in viewBox units; a right-to-left page runs the track
    from the right, as its text runs."""
    missions = []
    for mission in part["missions"]:
        count = mission["count"]
        n_marks = count or 0
        start = -(n_marks * MARK_W + (n_marks - 1) * MARK_GAP) / 2 if n_marks else 0
        missions.append({
            **mission, "x": _x(mission["n"] - 1, STEP, MARGIN, WIDTH, rtl),
            "rejected_out": bool(mission["result"]) and count is None,  # lost to five rejected proposals
            # Relative to the mission's centre: its Sabotage cards, the result badge, the two-Sabotage tag.
            "marks": [round(start + k * (MARK_W + MARK_GAP), 1) for k in range(n_marks)],
            "badge_dx": -30 if rtl else 30, "two_dx": 30 if rtl else -30,
        })
    most = int(part["max_rejections"] or 5)
    done = int(part["rejections"] or 0)
    pips_width = PIP_MARGIN * 2 + PIP_STEP * (most - 1)
    pips = [{"x": _x(j, PIP_STEP, PIP_MARGIN, pips_width, rtl), "filled": j < done, "last": j == most - 1}
            for j in range(most)]
    return {"missions": missions, "pips": pips, "pips_width": pips_width, "rejections": done, "max": most}


# The public parts (``public_parts``): what each piece of the board and of the phone's public part shows.
LOG_TEMPLATE = "games/inside_job/log_line.jinja"
PHONE_LOG_LINES = 8  # the newest public lines the phone shows


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """Element id → all it shows, from the board's view: each seat (``bv-seat-N``), the middle of the board
    (``bv-now``), the track (``ij-track``, drawn inside ``bv-track`` on the board and ``pv-track`` on a phone: their
    parts hold it as ``track``) and the phone's public log (``pv-log``). Roles only once the game is over. Three keys
    are not element ids: ``board``, ``status`` and ``phone``, what board.jinja, phone_status.jinja (as ``part``) and
    phone_public.jinja show outside their pieces."""
    names = [s["name"] for s in seats]
    log = list(view.get("log") or [])
    last: JSONDict = log[-1] if log else {}
    drawn = track_part(view)
    parts = {f"bv-seat-{s['index']}": seat_part(view, s, last, ended_views) for s in seats}
    parts["bv-track"] = {"new": last.get("event") in ("mission", "auto_fail"), "track": drawn}
    parts["bv-now"] = now_part(view, names)
    parts["ij-track"] = drawn
    parts["pv-track"] = {"track": drawn}
    parts["pv-log"] = log_part(log, names)
    # The reserved keys (not element ids): what board.jinja, phone_status.jinja and phone_public.jinja show
    # outside their pieces.
    parts["board"] = board_part(view, seats, ended_views)
    parts["status"] = status_part(view, names)
    parts["phone"] = phone_part(view, seats)
    return parts


def board_part(view: JSONDict, seats: Sequence[JSONDict], ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """What board.jinja shows outside its pieces: the seats' indexes in order (where it places ``bv-seat-N``), the
    end's outcome in the middle (:func:`outcome_part`, brief: the seats show the roles) or else whether the middle
    (``bv-now``) shows: not in a game the host ended."""
    names = [s["name"] for s in seats]
    outcome = outcome_part(view, names) if view.get("outcome") else None
    return {"seats": [s["index"] for s in seats], "outcome": outcome, "now": outcome is None and not ended_views}


def outcome_part(view: JSONDict, names: Sequence[str], seats: Sequence[JSONDict] | None = None,
                 me: int | None = None) -> JSONDict:
    """The end (outcome.jinja): the winning side, why, the Assassin's target (where the reason names it), whether
    the seat ``me``'s side won (None on the board), and with ``seats`` every seat's name, role and side (the
    board's is brief: None, its seats show the roles)."""
    outcome = view.get("outcome") or {}
    reveal = view.get("reveal") or {}
    roles = reveal.get("roles")
    named = outcome.get("reason") in ("merlin_found", "merlin_survived")
    return {
        "side": outcome.get("side"), "reason": outcome.get("reason"),
        "target": seat_name(reveal.get("assassin_target"), names) if named else None,
        "won": view["side"] == outcome.get("side") if me is not None and view.get("side") else None,
        "reveal": None if seats is None else [
            {"index": s["index"], "name": s["name"], "role": item_at(roles, s["index"]),
             "side": "agents" if item_at(roles, s["index"]) in ("agent", "merlin", "percival") else "traitors"}
            for s in seats],
    }


def status_part(view: JSONDict, names: Sequence[str]) -> JSONDict:
    """The phone's public status line (phone_status.jinja): nothing once the game is over (``shown``), else the
    phase, the mission (None while the Assassin chooses) and what the phase's lines name: the leader (proposing,
    voting), the team (voting, on the mission), the fifth-proposal warning, whom the table waits for, the Lady."""
    phase = view.get("phase")
    if view.get("outcome"):
        phase = None
    return {
        "shown": phase is not None, "phase": phase,
        "mission": None if phase in (None, "assassinate") else {"n": view.get("mission_number"),
                                                                "size": view.get("team_size")},
        "leader": seat_name(view.get("leader"), names) if phase in ("propose", "vote") else None,
        "team": [seat_name(s, names) for s in view.get("team") or []] if phase in ("vote", "mission") else [],
        "last_chance": phase == "vote" and view.get("rejections") == 4,
        "awaiting": [seat_name(s, names) for s in view.get("awaiting") or []]
        if phase in ("vote", "mission", "assassinate") else [],
        "lady": seat_name(view.get("lady"), names) if phase == "lady" else None,
    }


def phone_part(view: JSONDict, seats: Sequence[JSONDict]) -> JSONDict:
    """What phone_public.jinja shows outside its pieces: the last vote (each seat's name, bot or not, and whether
    it approved; None while a vote runs or before the first) and who holds the Lady of the Lake (None: nobody)."""
    votes = view.get("votes")
    lady = view.get("lady")
    return {
        "votes": [{"name": s["name"], "is_bot": bool(s["is_bot"]), "approve": bool(item_at(votes, s["index"]))}
                  for s in seats] if votes and view.get("phase") != "vote" else None,
        "lady": None if lady is None else seat_name(lady, [s["name"] for s in seats]),
    }


def seat_part(view: JSONDict, seat: JSONDict, last: JSONDict, ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """A seat on the board: its name, whether it leads, is awaited, is on the team, was named by the newest log
    line, holds the Lady; its Voted/Played badge, its last vote ("approve", "reject" or None: not shown) and, at
    the end, its role (``revealed``)."""
    i = seat["index"]
    phase = view.get("phase")
    votes = view.get("votes")
    revealed, role = _revealed_role(view, i, ended_views)
    return {
        "seat": {"index": i, "name": seat["name"], "is_bot": bool(seat["is_bot"])},
        "leader": i == view.get("leader") and not view.get("outcome"),
        "awaited": i in (view.get("awaiting") or []),
        "in_team": i in (view.get("team") or []),
        "new": (i == last.get("leader") and last.get("event") == "proposal") or i == last.get("seat"),
        "lady": i == view.get("lady"),
        "voted": phase == "vote" and i in (view.get("voted") or []),
        "played": phase == "mission" and i in (view.get("played") or []),
        "vote": ("approve" if item_at(votes, i) else "reject") if votes and phase != "vote" else None,
        "revealed": revealed, "role": role,
    }


def _revealed_role(view: JSONDict, index: int, ended_views: Sequence[JSONDict] | None) -> tuple[bool, str | None]:
    """Whether roles are public (a finished game's reveal, or a game the host ended) and this seat's."""
    roles = (view.get("reveal") or {}).get("roles")
    if not roles and not ended_views:
        return False, None
    mine = item_at(ended_views, index)
    return True, item_at(roles, index) or (mine.get("role") if isinstance(mine, dict) else None)


def now_part(view: JSONDict, names: Sequence[str]) -> JSONDict:
    """The middle of the board: the phase, the mission (number and team size; None while the Assassin chooses),
    the leader, the proposed team, whom the table waits for (by name, where the phase's line names them), the
    Lady's holder in her phase, the fifth-proposal warning and whether the last vote's title shows."""
    phase = view.get("phase")
    return {
        "phase": phase,
        "mission": None if phase == "assassinate" else {"n": view.get("mission_number"), "size": view.get("team_size")},
        "leader": seat_name(view.get("leader"), names),
        "team": [seat_name(s, names) for s in view.get("team") or []],
        "awaiting": [seat_name(s, names) for s in view.get("awaiting") or []]
        if phase in ("vote", "mission", "assassinate") else [],
        "lady": seat_name(view.get("lady"), names) if phase == "lady" else None,
        "last_chance": phase == "vote" and view.get("rejections") == 4,
        "votes_title": bool(view.get("votes")) and phase != "vote",
    }


def track_part(view: JSONDict) -> JSONDict:
    """The mission track's facts: each mission's number, team size, result, Sabotage count (once played), whether
    it needs two Sabotage cards and whether it is the one being played; the rejected proposals. Its geometry is
    :func:`track`'s, in the page's direction."""
    sizes = list(view.get("mission_sizes") or [])
    results = list(view.get("missions") or [])
    counts = list(view.get("sabotage_counts") or [])
    needed = list(view.get("sabotage_needed") or [])
    live = not view.get("outcome") and view.get("phase") not in ("assassinate", "over")
    missions = []
    for i, size in enumerate(sizes):
        result = results[i] if i < len(results) else None
        missions.append({
            "n": i + 1, "size": size, "result": result, "count": counts[i] if i < len(counts) and result else None,
            "two": (needed[i] if i < len(needed) else 1) >= 2,
            "current": live and not result and i + 1 == view.get("mission_number"),
        })
    return {"missions": missions, "two_legend": 2 in needed, "rejections": view.get("rejections"),
            "max_rejections": view.get("max_rejections")}


def log_part(log: Sequence[JSONDict], names: list[str]) -> JSONDict:
    """The phone's public log: its newest public lines, newest first, with the seats' names and the template that
    writes a line (the ``log_line`` global)."""
    lines: list[JSONDict] = []
    for line in reversed(log):
        if len(lines) >= PHONE_LOG_LINES:
            break
        if not line.get("private"):
            lines.append(line)
    return {"template": LOG_TEMPLATE, "lines": lines, "names": names}




# What the game's templates call (``{{ view|mission_cards }}``, ``view|ij_outcome(names, seats, me)``,
# ``ij_track(part, language_bidi())``).
TEMPLATE_FILTERS: dict[str, Callable[..., Any]] = {"mission_cards": mission_cards, "ij_outcome": outcome_part}
TEMPLATE_TAGS = {"ij_track": track}


# Marks beside the words (``mark(kind)``): the sides, a vote, a mission's result.
MARK_SHAPES = {"agents": "circle", "traitors": "triangle", "approve": "check", "reject": "cross",
               "success": "check", "fail": "cross"}
