"""The recorder of seeded games (``tools.record_games``): the same game twice records the same, tokens out."""

from __future__ import annotations

import re

import pytest

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_replay
from tools import record_games

pytestmark = pytest.mark.django_db


def test_a_seeded_game_records_the_same_twice_with_every_screen_and_no_per_render_token():
    first = record_games.record_game("coup", 3, 21, 3, max_moves=8)
    game = Game.objects.latest("pk")
    second = record_games.record_game("coup", 3, 21, 3, max_moves=8)
    assert len(first["steps"]) == 9 and first["steps"][0]["move"] is None
    assert all(step["move"]["answer"] == 200 for step in first["steps"][1:])
    engine = get_engine("coup")
    # The last step's state is the game's state, as its log replays it.
    assert first["steps"][-1]["state"] == engine.encode(game_replay(game))
    assert set(first["steps"][0]["frames"]) == {"phone0", "phone1", "phone2", "board_en", "board_fa", "board_ja",
                                                "board_host"}
    assert set(first["steps"][0]["frames"]["phone1"]["f"]) == {"private-view"}  # a socket's first frame: all of it
    # A second table (another code, other sessions and CSRF secrets) records the same steps; on one
    # database its row ids (the host's "pass to" choices, the game's in the drawer's kept key) are its own,
    # on a fresh one the same.
    def rows_out(steps: list) -> str:
        return re.sub(r'moderator:CODE:\d+:', "moderator:CODE:ID:",
                      re.sub(r'<option value="\d+">', '<option value="ID">', repr(steps)))

    assert second["steps"] != first["steps"] and rows_out(second["steps"]) == rows_out(first["steps"])
    text = repr(first)
    assert 'value="CSRF"' in text and "/t/CODE/" in text
    assert game.table.code not in text
    assert re.search(r'name="(csrfmiddlewaretoken|move_id)" value="(?!CSRF"|MOVEID")', text) is None


def test_tokens_are_taken_out():
    html = ('<input name="csrfmiddlewaretoken" value="abc"><input name="move_id" value="m1">'
            '<div data-tag="0a1b" data-deadline="17" data-server-now="18"><a href="/g/3/?k=Zz_-9">'
            '<path class="qrline" stroke="#111" d="M2 2.5h7"/> AB12C</a></div>'
            '<p>12/03/2026 10:47 a.m. · 01/02/2026 noon</p>')
    assert record_games.normalized(html, "AB12C") == (
        '<input name="csrfmiddlewaretoken" value="CSRF"><input name="move_id" value="MOVEID">'
        '<div data-tag="TAG" data-deadline="DEADLINE" data-server-now="NOW"><a href="/g/3/?k=KEY">'
        '<path class="qrline" stroke="#111" d="QR"/> CODE</a></div><p>WHEN · WHEN</p>')


def test_the_site_records_each_games_rules_and_every_static_file_by_its_url_path():
    site = record_games.record_site()
    assert set(site["pages"]) == {"/rules/", "/ratings/about/", *(f"/rules/{name}/" for name in ENGINES)}
    assert all("<h1" in html and 'value="CSRF"' in html for html in site["pages"].values())
    # A game's stylesheet is found under the URL path the pages link, wherever its file sits.
    assert {f"css/games/{name}.css" for name in ENGINES} | {"css/app.css", "js/board.js"} <= set(site["static"])
    assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in site["static"].values())
