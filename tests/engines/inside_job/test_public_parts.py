"""The public parts (``presentation.public_parts``): each piece of the board and of the phone's public part as the
plain dict it alone is drawn from, all along random games: plain JSON, one per piece id, from the public view alone
(no role before the end), and changed exactly when the element's bytes change; drawn from its part alone, a piece
is the element the board and the phone show. The reserved keys ``board``, ``status`` and ``phone`` are what
board.jinja, phone_status.jinja and phone_public.jinja show outside their pieces: those templates read nothing
else."""

from __future__ import annotations

import json
import random
import re

from django.template.loader import render_to_string
from django.utils import translation

from engines.inside_job import ENGINE
from gameplay.selectors import public_parts
from tests.engines.parts import POISONED

from .test_information_sets import CASES, scramble
from .test_templates import game_to_the_end

NAMES = ["Ann", "Bob", "Cy <b>", "Dee", "Eve & co", "Fay", "Gus", "Hal", "Ivy", "Jo"]
T = "games/inside_job/"
TEMPLATES = {"bv-track": T + "board_track.jinja", "bv-now": T + "board_now.jinja",
             "ij-track": T + "track_drawing.jinja",
             "pv-track": T + "phone_track.jinja", "pv-log": T + "phone_log.jinja",
             "status": T + "phone_status.jinja"}  # the phone's status line: the piece pv-status reads it as ``part``
RESERVED = {"board", "status", "phone"}  # not element ids: what the public templates show outside their pieces
TAG = re.compile(r' data-tag="[^"]*"')


def seats_of(players):
    """The seats as the web layer hands them to ``public_parts`` (``is_me`` always False there)."""
    return [{"index": s, "name": NAMES[s], "is_bot": s % 3 == 1, "is_me": False} for s in range(players)]


def games(seeds=range(2)):
    """(players, state) at every step of seeded random games of every tested table, the end included."""
    for players, options in CASES:
        for seed in seeds:
            for state in game_to_the_end(players, options, seed):
                yield players, state


def parts_of(state, players, ended_views=None):
    return ENGINE.public_parts(ENGINE.view(state, None), seats_of(players), ended_views)


def template_of(key):
    return T + "board_seat.jinja" if key.startswith("bv-seat-") else TEMPLATES[key]


def alone(key, part):
    """The piece drawn from its part alone (its tags, digests of its bytes, left out)."""
    return TAG.sub("", render_to_string(template_of(key), {"part": part}))


def test_the_parts_are_plain_json_one_per_piece_at_every_step():
    ended = 0
    for players, state in games():
        parts = parts_of(state, players)
        assert set(parts) == {f"bv-seat-{s}" for s in range(players)} | set(TEMPLATES) | RESERVED
        assert parts["board"]["seats"] == list(range(players))
        assert parts["board"]["now"] == (parts["board"]["outcome"] is None)
        assert parts["status"]["shown"] == (parts["board"]["outcome"] is None)
        assert json.loads(json.dumps(parts)) == parts
        for s in range(players):
            assert parts[f"bv-seat-{s}"]["seat"] == {"index": s, "name": NAMES[s], "is_bot": s % 3 == 1}
        # The track drawn inside the board's and the phone's track is the part ij-track itself.
        assert parts["bv-track"]["track"] == parts["pv-track"]["track"] == parts["ij-track"]
        ended += ENGINE.outcome(state) is not None
    assert ended == 2 * len(CASES)


def test_the_parts_show_no_role_before_the_end_and_every_role_after_it():
    rng = random.Random(5)
    for step, (players, state) in enumerate(games()):
        parts = parts_of(state, players)
        over = ENGINE.outcome(state) is not None
        for s in range(players):
            seat = parts[f"bv-seat-{s}"]
            assert (seat["revealed"], seat["role"]) == ((True, state["roles"][s]) if over else (False, None))
        if not over and step % 3 == 0:  # other roles dealt, the same public table: the same parts
            assert parts_of(scramble(state, None, rng), players) == parts


def test_a_game_the_host_ended_shows_each_seats_role_from_its_own_last_view():
    players, state = 7, ENGINE.setup(7, {"merlin": True, "percival": True}, 3)
    ended_views = [ENGINE.view(state, s) for s in range(players)]
    parts = parts_of(state, players, ended_views)
    assert [parts[f"bv-seat-{s}"]["role"] for s in range(players)] == state["roles"]
    with translation.override("en"):
        for s, role in enumerate(state["roles"]):
            shown = alone(f"bv-seat-{s}", parts[f"bv-seat-{s}"])
            assert render_to_string(T + "role_name.jinja", {"role": role}) in shown


def test_a_pieces_part_changes_exactly_when_its_element_does():
    """Drawn from its part alone, the element's bytes change if and only if its dict does: the dict holds what the
    element shows and nothing else."""
    changed: set[tuple[str, str]] = set()
    with translation.override("en"):
        for players, options in CASES[:3]:
            before: dict[str, tuple[dict, str]] = {}
            for state in game_to_the_end(players, options, 1):
                for key, part in parts_of(state, players).items():
                    if key in ("board", "phone"):  # not an element: the templates around the pieces
                        continue
                    html = alone(key, part)
                    if key in before:
                        was, was_html = before[key]
                        assert (part != was) == (html != was_html), (key, was, part)
                        kind = "bv-seat" if key.startswith("bv-seat-") else key
                        changed |= {(kind, name) for name in part if part[name] != was[name]}
                    before[key] = (part, html)
    assert changed >= {("bv-seat", name) for name in ("leader", "awaited", "in_team", "new", "voted", "played", "vote",
                                                     "revealed", "role")}
    assert changed >= {("bv-now", "phase"), ("bv-now", "team"), ("bv-now", "awaiting"), ("ij-track", "missions"),
                       ("ij-track", "rejections"), ("bv-track", "new"), ("pv-log", "lines")}
    assert changed >= {("status", name) for name in ("shown", "phase", "mission", "leader", "team", "awaiting")}


def test_the_pieces_drawn_from_their_parts_alone_are_the_boards_and_the_phones_elements():
    for step, (players, state) in enumerate(games(seeds=[0])):
        if step % 7 and ENGINE.outcome(state) is None:
            continue
        view = ENGINE.view(state, None)
        seats = seats_of(players)
        parts = ENGINE.public_parts(view, seats, None)
        context = {"view": view, "seats": seats, "names": NAMES[:players], "me": None, "parts": parts,
                   "log_template": T + "log_line.jinja"}
        for language in ("en", "fa"):
            with translation.override(language):
                board = TAG.sub("", render_to_string(T + "board.jinja", context))
                phone = TAG.sub("", render_to_string(T + "phone_public.jinja", context))
                for key, part in parts.items():
                    if key in RESERVED:
                        continue
                    html = alone(key, part)
                    assert html.startswith("<") and f'id="{key}"' in html.split(">", 1)[0]
                    if key.startswith("pv-"):
                        assert html in phone, key
                    elif key != "bv-now" or not view["outcome"]:  # the end shows the outcome in its place
                        assert html in board, key


def public(template, context):
    return render_to_string(T + template, context)


def test_the_public_templates_read_only_their_parts():
    """board.jinja and phone_public.jinja drawn from ``parts`` alone, phone_status.jinja from ``part`` (parts.status)
    alone, are what they are with every other name of the old context given: and any read of those names fails."""
    for step, (players, state) in enumerate(games(seeds=[1])):
        over = ENGINE.outcome(state) is not None
        if step % 5 and not over:
            continue
        view = ENGINE.view(state, None)
        for ended_views in ([None, [ENGINE.view(state, s) for s in range(players)]] if step % 10 == 0 else [None]):
            parts = public_parts(ENGINE.name, view, seats_of(players), ended_views)
            for language in ("en", "fa"):
                with translation.override(language):
                    for template in ("board.jinja", "phone_public.jinja"):
                        html = public(template, {"parts": parts})
                        assert public(template, {**POISONED, "parts": parts}) == html
                    html = public("phone_status.jinja", {"part": parts["status"]})
                    assert public("phone_status.jinja", {**POISONED, "part": parts["status"]}) == html
                    assert ('data-test="phone-status"' in html) == (not over)


def test_the_board_places_every_seat_and_shows_the_end_or_the_middle():
    for players, state in games(seeds=[0]):
        parts = public_parts(ENGINE.name, ENGINE.view(state, None), seats_of(players))
        html = public("board.jinja", {"parts": parts})
        assert re.findall(r'id="bv-seat-(\d+)"', html) == [str(s) for s in range(players)]
        over = ENGINE.outcome(state) is not None
        assert ('data-test="outcome"' in html, 'id="bv-now"' in html) == (over, not over)
        assert 'data-test="reveal"' not in html  # the board's end is brief: its seats show the roles
    # A game the host ended: no outcome, and no middle either (every seat shows its role).
    players, state = 7, ENGINE.setup(7, {"merlin": True}, 3)
    ended = [ENGINE.view(state, s) for s in range(players)]
    parts = public_parts(ENGINE.name, ENGINE.view(state, None), seats_of(players), ended)
    assert parts["board"] == {"seats": list(range(players)), "outcome": None, "now": False}
    html = public("board.jinja", {"parts": parts})
    assert 'id="bv-now"' not in html and 'data-test="outcome"' not in html


def test_the_phones_public_part_shows_the_last_vote_and_the_lady():
    with translation.override("en"):
        for state in game_to_the_end(7, {"lady_of_the_lake": True}, 2):
            view = ENGINE.view(state, None)
            parts = public_parts(ENGINE.name, view, seats_of(7))
            phone = parts["phone"]
            html = public("phone_public.jinja", {"parts": parts})
            shown = bool(view["votes"]) and view["phase"] != "vote"
            assert (phone["votes"] is not None) == shown == ("ij-last-votes" in html)
            if shown:
                assert [v["approve"] for v in phone["votes"]] == [bool(v) for v in view["votes"]]
                assert html.count('class="ij-vote-approve"') == sum(map(bool, view["votes"]))
            assert phone["lady"] == (None if view["lady"] is None else NAMES[view["lady"]])
            assert ('<p class="muted">Lady of the Lake: ' in html) == (view["lady"] is not None)
