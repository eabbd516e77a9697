"""The board's seats as plain parts (presentation.public_parts): plain data keyed by the pieces' ids, projected from the
board's view alone, changing exactly when the element it draws does, and that element drawn from it alone. The reserved
keys ``board``, ``status`` and ``phone`` are what board.jinja, phone_status.jinja (as ``part``) and phone_public.jinja
show outside their pieces: those templates read nothing else."""

from __future__ import annotations

import json
import random
import re

from django.template.loader import render_to_string
from django.utils import translation

from engines.good_cop_bad_cop_health import ENGINE
from gameplay.selectors import public_parts
from tests.engines.parts import POISONED

from .helpers import game_states
from .test_information_sets import scramble

BOARD, SEAT = "games/good_cop_bad_cop_health/board.jinja", "games/good_cop_bad_cop_health/board_seat.jinja"
PLAYERS = (2, 3, 4, 5, 6, 8)
TAG = re.compile(r'data-tag="[^"]*"')
RESERVED = {"board", "status", "phone"}  # not element ids: what the public templates show outside their pieces


def seats(players):
    """The seats as the web layer gives them to the board (``gameplay.selectors.seats_info``: nobody is the viewer)."""
    return [{"index": i, "name": f"P{i}<&>", "is_bot": i % 3 == 1, "is_me": False} for i in range(players)]


def games(seed=7, every=1):
    """(players, the states of one random game) for each table size."""
    for players in PLAYERS:
        yield players, list(game_states(players, seed * 100 + players, every))


def parts_of(state, players, ended=False):
    """The board's parts of a state (``ended``: as for a game the host ended there, with every seat's own view)."""
    views = [ENGINE.view(state, seat) for seat in range(players)] if ended else None
    return ENGINE.public_parts(ENGINE.view(state, None), seats(players), views)


def test_the_parts_are_plain_data_for_exactly_the_seats_pieces_and_hide_every_identity_until_it_is_public():
    for players, states in games():
        for state in states:
            parts, over = parts_of(state, players), ENGINE.outcome(state) is not None
            assert set(parts) == {f"bv-seat-{i}" for i in range(players)} | RESERVED
            assert json.loads(json.dumps(parts)) == parts
            assert parts["board"]["seats"] == list(range(players))
            assert (parts["board"]["outcome"] is not None) == over == (not parts["status"]["shown"])
            assert parts["board"]["turn"] == (None if over else parts["status"])
            assert [s["name"] for s in parts["phone"]["seats"]] == parts["phone"]["names"]
            assert not any(line.get("private") for line in parts["phone"]["log"])
            for index in range(players):
                part, player = parts[f"bv-seat-{index}"], state["players"][index]
                assert part["index"] == index and part["seat"] == {"name": f"P{index}<&>", "is_bot": index % 3 == 1}
                assert part["health"] == player["health"] and part["out"] == (not player["alive"])
                assert part["in_play"] == [{"kind": card["kind"]} for card in player["in_play"]]
                assert part["revealed"] == (None if player["alive"] else player["identity"])
                assert part["end"] == over and part["identity"] == (player["identity"] if over else None)


def test_the_parts_depend_on_the_public_view_alone():
    """Shuffle everything the board cannot see (living identities, hands, the deck): the parts stay as they were."""
    rng = random.Random(5)
    for players, states in games(seed=8):
        for state in states:
            if ENGINE.outcome(state) is None:
                assert parts_of(scramble(state, None, rng), players) == parts_of(state, players)


def test_a_game_the_host_ended_shows_each_seats_own_identity():
    for players, states in games(seed=9):
        state = states[len(states) // 2]
        parts = parts_of(state, players, ended=True)
        for index in range(players):
            assert parts[f"bv-seat-{index}"]["end"] is True
            assert parts[f"bv-seat-{index}"]["identity"] == state["players"][index]["identity"]


def element(html, index):
    """A seat's element in a rendered board, its tag taken out."""
    found = re.search(rf'<li id="bv-seat-{index}" .*?\n  </li>', html, re.S)
    assert found, index
    return TAG.sub('data-tag=""', found.group(0))


def test_a_seats_element_is_drawn_from_its_part_alone_and_changes_exactly_when_its_part_does():
    """Rendered with nothing but ``part``, a seat's template gives the bytes the board shows for it; along random
    games (in two languages) a part changes exactly when its element's bytes do (health, equipment, identities, the
    lights)."""
    for language in ("en", "ja"):
        with translation.override(language):
            for players, states in games(seed=10, every=2):
                before: dict[str, tuple[dict, str]] = {}
                for state in states:
                    view, parts = ENGINE.view(state, None), parts_of(state, players)
                    board = render_to_string(BOARD, {
                        "view": view, "seats": seats(players), "me": None, "parts": parts,
                        "names": [s["name"] for s in seats(players)],
                        "log_template": "games/good_cop_bad_cop_health/log_line.jinja"})
                    for piece, part in parts.items():
                        if piece in RESERVED:
                            continue
                        alone = TAG.sub('data-tag=""', render_to_string(SEAT, {"part": part}))
                        assert alone == element(board, part["index"])
                        if piece in before:
                            assert (before[piece][0] == part) == (before[piece][1] == alone), (piece, part)
                        before[piece] = (part, alone)


T = "games/good_cop_bad_cop_health/"


def test_the_public_templates_read_only_their_parts():
    """board.jinja and phone_public.jinja drawn from ``parts`` alone, phone_status.jinja from ``part`` (parts.status)
    alone, are what they are with every name of the old context given (any read of those names fails); the board
    shows the end's outcome (brief) or whose turn it is and the market, neither in a game the host ended."""
    for players, states in games(seed=11, every=3):
        for index, state in enumerate(states + states[-1:]):
            over = ENGINE.outcome(state) is not None
            ended = [None, [ENGINE.view(state, s) for s in range(players)]] if index % 4 == 0 else [None]
            for views in ended:
                parts = public_parts(ENGINE.name, ENGINE.view(state, None), seats(players), views)
                for language in ("en", "ja"):
                    with translation.override(language):
                        html = {name: render_to_string(T + name, {"parts": parts})
                                for name in ("board.jinja", "phone_public.jinja")}
                        for name, alone in html.items():
                            assert render_to_string(T + name, {**POISONED, "parts": parts}) == alone
                        status = render_to_string(T + "phone_status.jinja", {"part": parts["status"]})
                        poisoned = {**POISONED, "part": parts["status"]}
                        assert render_to_string(T + "phone_status.jinja", poisoned) == status
                        board = html["board.jinja"]
                        assert ('data-test="phone-status"' in status) == (not over)
                        assert ('data-test="outcome"' in board, 'data-test="reveal"' in board) == (over, False)
                        live = not over and views is None
                        assert ('data-test="turn"' in board) == live == ('data-test="deck"' in board)
                        assert re.findall(r'id="bv-seat-(\d+)"', board) == [str(s) for s in range(players)]


def test_the_phones_public_part_shows_each_seat_the_market_and_the_newest_public_lines():
    for players, states in games(seed=12, every=4):
        for state in states:
            view = ENGINE.view(state, None)
            parts = public_parts(ENGINE.name, view, seats(players))
            phone = parts["phone"]
            html = render_to_string(T + "phone_public.jinja", {"parts": parts})
            assert [s["health"] for s in phone["seats"]] == view["health"]
            assert [s["active"] for s in phone["seats"]] == [view["turn"] == s for s in range(players)]
            assert phone["market"]["cards"] == [card["kind"] if card else None for card in view["market"]]
            assert phone["log"] == [line for line in reversed(view["log"]) if not line.get("private")][:10]
            assert html.count('data-test="seat-') == players
            assert html.count("<li>") == len(phone["log"])
