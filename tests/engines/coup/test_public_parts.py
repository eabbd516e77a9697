"""The board's seats as plain parts (presentation.public_parts): plain data keyed by the pieces' ids, projected from the
board's view alone, changing exactly when the element it draws does, and that element drawn from it alone. The reserved
keys ``board``, ``status`` and ``phone`` are what board.jinja, phone_status.jinja (as ``part``) and phone_public.jinja
show outside their pieces: those templates read nothing else."""

from __future__ import annotations

import json
import re

from django.template.loader import render_to_string
from django.utils import translation

from engines.coup import ENGINE
from gameplay.selectors import public_parts
from tests.engines.parts import POISONED

from .test_properties import permute_hidden, steps

BOARD, SEAT = "games/coup/board.jinja", "games/coup/board_seat.jinja"
TABLES = ((2, {}), (3, {"inquisitor": True}), (4, {"factions": True, "rounds_to_win": 2}),
          (6, {"inquisitor": True, "factions": True}), (10, {}))
TAG = re.compile(r'data-tag="[^"]*"')
RESERVED = {"board", "status", "phone"}  # not element ids: what the public templates show outside their pieces


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
            assert set(parts) == {f"bv-seat-{i}" for i in range(players)} | RESERVED
            assert json.loads(json.dumps(parts)) == parts
            assert parts["board"]["seats"] == list(range(players))
            assert parts["board"]["status"] == parts["status"]
            assert [s["name"] for s in parts["phone"]["seats"]] == parts["phone"]["names"]
            assert not any(line.get("private") for line in parts["phone"]["log"])
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
                        if piece in RESERVED:
                            continue
                        alone = TAG.sub('data-tag=""', render_to_string(SEAT, {"part": part}))
                        assert alone == element(board, part["index"])
                        if piece in before:
                            assert (before[piece][0] == part) == (before[piece][1] == alone), (piece, part)
                        before[piece] = (part, alone)


T = "games/coup/"


def test_the_public_templates_read_only_their_parts():
    """board.jinja and phone_public.jinja drawn from ``parts`` alone, phone_status.jinja from ``part`` (parts.status)
    alone, are what they are with every name of the old context given (any read of those names fails); the status
    line is the same on the board and the phones, and the board shows none in a game the host ended."""
    for players, states in games(seed=11):
        for index, state in enumerate(states[::4] + states[-1:]):
            ended = [None, [ENGINE.view(state, s) for s in range(players)]] if index % 3 == 0 else [None]
            for views in ended:
                parts = public_parts(ENGINE.name, ENGINE.view(state, None), seats(players), views)
                for language in ("en", "fa"):
                    with translation.override(language):
                        html = {name: render_to_string(T + name, {"parts": parts})
                                for name in ("board.jinja", "phone_public.jinja")}
                        for name, alone in html.items():
                            assert render_to_string(T + name, {**POISONED, "parts": parts}) == alone
                        status = render_to_string(T + "phone_status.jinja", {"part": parts["status"]})
                        poisoned = {**POISONED, "part": parts["status"]}
                        assert render_to_string(T + "phone_status.jinja", poisoned) == status
                        line = render_to_string(T + "status.jinja", {"part": parts["status"]})
                        assert (line in html["board.jinja"]) == (views is None)
                        assert (line in status) == (ENGINE.view(state, None)["phase"] != "over")
                        placed = re.findall(r'id="bv-seat-(\d+)"', html["board.jinja"])
                        assert placed == [str(s) for s in range(players)]


def test_the_phones_public_part_shows_each_seat_and_the_newest_public_lines():
    for players, states in games(seed=12):
        for state in states[::5]:
            view = ENGINE.view(state, None)
            parts = public_parts(ENGINE.name, view, seats(players))
            phone = parts["phone"]
            html = render_to_string(T + "phone_public.jinja", {"parts": parts})
            assert [s["coins"] for s in phone["seats"]] == view["coins"]
            assert [s["cards"] for s in phone["seats"]] == view["counts"]
            assert [s["out"] for s in phone["seats"]] == [not alive for alive in view["alive"]]
            assert phone["log"] == [line for line in reversed(view["log"]) if not line.get("private")][:8]
            assert html.count('class="coup-seat-line') == players
            assert html.count("<li>") == len(phone["log"])
            assert ("Almshouse" in html) == bool(view["factions"]) == (phone["almshouse"] is not None)
