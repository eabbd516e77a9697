"""The board's seats as plain parts (presentation.public_parts): plain data keyed by the pieces' ids, projected from the
board's view alone, changing exactly when the element it draws does, and that element drawn from it alone."""

from __future__ import annotations

import json
import re

from django.template.loader import render_to_string
from django.utils import translation

from engines.coup import ENGINE

from .test_properties import permute_hidden, steps

BOARD, SEAT = "games/coup/board.jinja", "games/coup/board_seat.jinja"
TABLES = ((2, {}), (3, {"inquisitor": True}), (4, {"factions": True, "rounds_to_win": 2}),
          (6, {"inquisitor": True, "factions": True}), (10, {}))
TAG = re.compile(r'data-tag="[^"]*"')


def seats(players):
    """The seats as the web layer gives them to the board (``gameplay.selectors.seats_info``: nobody is the viewer)."""
    return [{"index": i, "name": f"P{i}<&>", "is_bot": i % 3 == 1, "is_me": False} for i in range(players)]


def games(seed=7):
    """(players, every state of one random game) for each table kind."""
    for players, extra in TABLES:
        yield players, list(steps(players, dict(ENGINE.default_options(), **extra), seed * 100 + players))


def parts_of(state, players, ended=False):
    """The board's parts of a state (``ended``: as for a game the host ended there, with every seat's own view)."""
    views = [ENGINE.view(state, seat) for seat in range(players)] if ended else None
    return ENGINE.public_parts(ENGINE.view(state, None), seats(players), views)


def test_the_parts_are_plain_data_for_exactly_the_seats_pieces_and_hide_every_hand_until_the_end():
    for players, states in games():
        for state in states:
            parts = parts_of(state, players)
            assert set(parts) == {f"bv-seat-{i}" for i in range(players)}
            assert json.loads(json.dumps(parts)) == parts
            for index in range(players):
                part = parts[f"bv-seat-{index}"]
                assert part["index"] == index and part["seat"] == {"name": f"P{index}<&>", "is_bot": index % 3 == 1}
                assert part["coins"] == state["players"][index]["coins"]
                assert part["lost"] == state["players"][index]["lost"]
                if ENGINE.outcome(state) is None:  # no face-down card shows, only how many there are
                    assert part["hand"] == [] and part["backs"] == len(state["players"][index]["hand"])
                else:
                    assert part["hand"] == state["players"][index]["hand"] and part["backs"] == 0


def test_the_parts_depend_on_the_public_view_alone():
    """Shuffle every card the board cannot see (hands, draws, the court): the parts stay as they were."""
    for players, states in games(seed=8):
        for index, state in enumerate(states):
            if ENGINE.outcome(state) is None:
                assert parts_of(permute_hidden(state, None, index), players) == parts_of(state, players)


def test_a_game_the_host_ended_shows_each_seats_own_hand_face_up():
    for players, states in games(seed=9):
        state = states[len(states) // 2]
        parts = parts_of(state, players, ended=True)
        for index in range(players):
            assert parts[f"bv-seat-{index}"]["hand"] == state["players"][index]["hand"]
            assert parts[f"bv-seat-{index}"]["backs"] == 0


def element(html, index):
    """A seat's element in a rendered board, its tag taken out."""
    found = re.search(rf'<li id="bv-seat-{index}" .*?\n  </li>', html, re.S)
    assert found, index
    return TAG.sub('data-tag=""', found.group(0))


def test_a_seats_element_is_drawn_from_its_part_alone_and_changes_exactly_when_its_part_does():
    """Rendered with nothing but ``part``, a seat's template gives the bytes the board shows for it; along random
    games (in two languages) a part changes exactly when its element's bytes do (coins, cards, badges, the lights)."""
    for language in ("en", "fa"):
        with translation.override(language):
            for players, states in games(seed=10):
                before: dict[str, tuple[dict, str]] = {}
                for state in states[::3] + states[-1:]:
                    view, parts = ENGINE.view(state, None), parts_of(state, players)
                    board = render_to_string(BOARD, {"view": view, "seats": seats(players), "me": None,
                                                     "names": [s["name"] for s in seats(players)], "parts": parts,
                                                     "log_template": "games/coup/log_line.jinja"})
                    for piece, part in parts.items():
                        alone = TAG.sub('data-tag=""', render_to_string(SEAT, {"part": part}))
                        assert alone == element(board, part["index"])
                        if piece in before:
                            assert (before[piece][0] == part) == (before[piece][1] == alone), (piece, part)
                        before[piece] = (part, alone)
