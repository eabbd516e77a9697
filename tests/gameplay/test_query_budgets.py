"""Read once, compute once: the SQL statements a move and a refresh may cost.

Budgets: a move POST (its answer, the fresh panel, included) at most 8 statements; a phone's or
the board's refresh at most 5. Counted as the app's reads and writes: transaction control
(BEGIN, COMMIT, SAVEPOINT, RELEASE) is left out, because it differs by backend (SQLite's
``BEGIN IMMEDIATE`` is a statement, PostgreSQL's driver begins by itself) and is no read or
write. The figures before this budget were 22, 12 and 11.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from engines.registry import get_engine
from gameplay.selectors import REPLAY_CHECKPOINT, game_replay, replay_state
from gameplay.worker import bots_due, tick
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")
MOVE_BUDGET = 8
REFRESH_BUDGET = 5


@contextmanager
def statements(budget: int):
    """Fail if the block issues more than ``budget`` reads and writes (listing them)."""
    with CaptureQueriesContext(connection) as captured:
        yield captured
    issued = [q["sql"] for q in captured.captured_queries
              if not q["sql"].lstrip().upper().startswith(TRANSACTION_CONTROL)]
    assert len(issued) <= budget, f"{len(issued)} statements, budget {budget}:\n" + "\n".join(s[:160] for s in issued)


@pytest.fixture
def playing(table_with):
    """A running Inside Job table whose phones have all been seen once."""
    table, people = table_with(5)
    game = start(table, people[0])
    for person in people:
        person.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true")
    return table, people, game


@pytest.mark.django_db(transaction=True)
def test_a_move_post_costs_at_most_8_statements(playing):
    table, people, game = playing
    (leader,) = awaited_movers(game)
    data = move_data(game, legal(game, leader)[0])
    with statements(MOVE_BUDGET):
        response = people[leader].htmx_post(f"/t/{table.code}/move/", data)
    assert response.status_code == 200 and 'data-revision="' in response.content.decode()
    game.refresh_from_db()
    assert game.version == 1
    # An answer in the vote window, from a screen made before another seat answered: the same budget.
    voters = awaited_movers(game)[:2]
    pages = {s: move_data(game, legal(game, s)[0]) | {"window": game.window} for s in voters}
    people[voters[0]].htmx_post(f"/t/{table.code}/move/", pages[voters[0]])
    with statements(MOVE_BUDGET):
        assert people[voters[1]].htmx_post(f"/t/{table.code}/move/", pages[voters[1]]).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_phone_refresh_costs_at_most_5_statements(playing):
    table, people, game = playing
    with statements(REFRESH_BUDGET):
        response = people[1].get(f"/t/{table.code}/", HTTP_HX_REQUEST="true")
    assert 'data-test="role"' in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_an_unchanged_phone_panel_answers_304_for_4_statements_and_no_rendering(playing, monkeypatch):
    """A phone that holds the panel already (its ETag) gets 304; any change gives a fresh 200."""
    table, people, game = playing
    url = f"/t/{table.code}/"
    first = people[1].get(url, HTTP_HX_REQUEST="true")
    tag = first["ETag"]
    assert first.status_code == 200 and tag and "no-cache" in first["Cache-Control"]
    assert "HX-Request" in first["Vary"] and "Cookie" in first["Vary"]
    rendered = []
    import gameplay.web.views as views
    original = views.render
    monkeypatch.setattr(views, "render", lambda *a, **k: rendered.append(1) or original(*a, **k))
    with statements(4):  # the table, the session, the game and its seats (whose phones are asleep)
        again = people[1].get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again["ETag"] == tag and not rendered
    # Another phone's tag is not this phone's panel; another language is another panel.
    assert people[2].get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag).status_code == 200
    persian = people[1].get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT_LANGUAGE="fa")
    assert persian.status_code == 200 and persian["ETag"] != tag
    # A move changes every panel.
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    after = people[1].get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag)
    assert after.status_code == 200 and after["ETag"] != tag


@pytest.mark.django_db(transaction=True)
def test_the_public_board_is_rendered_once_per_push_for_every_board(playing, monkeypatch, client, settings):
    """Two boards' sockets (a tablet, a spectator's phone) get the same bytes from one rendering in a push; a
    board holding them gets 304 from its GET, rendering nothing; a move renders what changed once, for both."""
    from gameplay.live import frames as pushes
    from gameplay.screens import pieces

    settings.SCREEN_PIECES_VERIFY = False  # it would render each reused fragment again: this test counts renders
    table, people, game = playing
    rendered = []
    original = pieces._render
    monkeypatch.setattr(pieces, "_render", lambda *args: rendered.append(1) or original(*args))
    boards = [pushes.Socket(kind="board", session_key=None, language="en", csrf_secret="", url="http://testserver")
              for _ in range(2)]
    table.refresh_from_db()
    first = pushes.push_frame(table.pk, table.code, table.revision, boards[0])
    assert rendered
    rendered.clear()
    second = pushes.push_frame(table.pk, table.code, table.revision, boards[1])
    assert rendered == [] and first["f"]["public-view"] == second["f"]["public-view"]
    url = f"/t/{table.code}/board/"
    tag = first["tag"]  # the board's entity tag, as its GET has it
    assert client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=tag).status_code == 304
    assert rendered == []
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    table.refresh_from_db()
    later = pushes.push_frame(table.pk, table.code, table.revision, boards[0])
    assert rendered and later["f"] and later["tag"] != first["tag"]
    count = len(rendered)
    again = pushes.push_frame(table.pk, table.code, table.revision, boards[1])
    assert len(rendered) == count and again["f"] == later["f"]


@pytest.mark.django_db(transaction=True)
def test_a_board_refresh_costs_at_most_5_statements_and_draws_no_qr_during_play(playing):
    table, people, game = playing
    with statements(REFRESH_BUDGET):
        response = people[1].get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    # The join QR (and its link) shows between games only; the game's own drawings are other SVGs.
    assert 'class="qr"' not in html and f"/t/{table.code}/" not in html.replace(f"/t/{table.code}/board/", "")


@pytest.mark.django_db(transaction=True)
def test_a_lobby_refresh_costs_at_most_5_statements(table_with):
    table, people = table_with(3)
    people[1].get(f"/t/{table.code}/")
    with statements(REFRESH_BUDGET):
        response = people[1].get(f"/t/{table.code}/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200


@pytest.mark.django_db
def test_the_replay_steps_from_a_checkpoint_and_shows_what_a_full_replay_shows(table_with, monkeypatch):
    table, people = table_with(2)
    for _ in range(3):
        people[0].post(f"/t/{table.code}/seat/add-bot/", {"policy": "random"})
    game = start(table, people[0])
    people[0].post(f"/t/{table.code}/host/bot/", {"seat": 0})
    people[0].post(f"/t/{table.code}/host/bot/", {"seat": 1})
    for i in range(2000):  # an all-bot game, played by the worker's clock
        game.refresh_from_db()
        if game.over:
            break
        tick(now=timezone.now() + timedelta(seconds=5 * (i + 1)))
    assert game.over and game.version > 2 * REPLAY_CHECKPOINT
    engine = get_engine(game.engine)
    cache.clear()
    for step in (0, 1, game.version // 2, game.version):
        assert engine.encode(replay_state(game, step)) == engine.encode(game_replay(game, upto=step))
    applied = []
    original = type(engine).apply
    monkeypatch.setattr(type(engine), "apply", lambda self, *a: applied.append(1) or original(self, *a))
    for step in range(game.version, 0, -1):  # stepping back through the whole game
        applied.clear()
        replay_state(game, step)
        assert len(applied) < REPLAY_CHECKPOINT


@pytest.mark.django_db
def test_the_worker_thinks_for_bots_only_where_a_bot_is_awaited(table_with):
    """``Game.bot_due`` follows every move: set exactly while a bot is awaited (or a silent window is open)."""
    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic"})
    game = start(table, people[0])
    bot = game.seats.exclude(bot="").get().index
    seen = set()
    for _ in range(60):
        game.refresh_from_db()
        if game.over:
            break
        expected = bot in game.awaiting or game.countdown is not None
        assert game.bot_due == expected and (game.pk in bots_due()) == expected
        seen.add(expected)
        if expected:
            tick(now=timezone.now() + timedelta(seconds=5))  # the bot answers
            continue
        seat = next(s for s in awaited_movers(game) if s != bot)
        action = legal(game, seat)[0]
        people[seat].post(f"/t/{table.code}/move/", move_data(game, action))
    assert seen == {True, False}, "the game never both awaited the bot and awaited only people"
    game.refresh_from_db()
    if game.over:
        assert not game.bot_due


@pytest.mark.django_db
def test_the_worker_reads_only_due_games(table_with):
    """Many running games awaiting only people cost the worker's tick one indexed query each pass."""
    for _ in range(5):
        table, people = table_with(5)
        start(table, people[0])
    with CaptureQueriesContext(connection) as captured:
        assert bots_due() == []
        tick()
    assert len(captured.captured_queries) == 3  # bots_due(), then the tick's due windows and due bots
