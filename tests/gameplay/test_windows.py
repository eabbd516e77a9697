"""Window-scoped concurrency: an answer lands while its window is open, whoever answered first.

Per engine with shared response windows, a second seat answers from a screen made before the
first seat's answer (an older version, the same window id) and its answer lands; once the
window has closed the same answer is refused with 409 and changes nothing. Turn actions keep
the exact version check.
"""

from __future__ import annotations

import random

import pytest

from engines.base import BaseEngine
from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.helpers import legal, move_data, submit_status

pytestmark = pytest.mark.django_db

QUIET_ANSWERS = ("allow", "pass", "vote")


def _answer(actions: list[dict]) -> dict:
    """An answer that leaves the window open for the others where the game has one."""
    return next((a for a in actions if a["type"] in QUIET_ANSWERS), actions[0])


def _players(game: Game, people) -> dict:
    by_player = {person.player.pk: person for person in people}
    return {s.index: by_player[s.player_id] for s in game.seats.all()}


def _shared_window(game: Game, seats: dict, rng: random.Random, steps: int = 400):
    """Play random legal moves until a window is open with two awaited seats; returns them."""
    for _ in range(steps):
        game.refresh_from_db()
        assert not game.over, "the game ended before a shared window opened"
        movers = [s for s in seats if legal(game, s)]
        if game.window and len(movers) >= 2:
            return movers
        seat = rng.choice(movers)
        assert submit_status(game_id=game.pk, player=seats[seat].player, version=game.version,
                             move_id=None, action=rng.choice(legal(game, seat)), window=game.window) == 200
    raise AssertionError("no shared window opened")


@pytest.mark.parametrize(("engine", "count"), [("coup", 4), ("inside_job", 5), ("good_cop_bad_cop", 4)])
def test_a_second_answer_in_the_same_window_lands(table_with, engine, count):
    table, people = table_with(count, engine=engine)
    game = start(table, people[0])
    seats = _players(game, people)
    rng = random.Random(7)
    for _attempt in range(20):
        first, second, *_ = _shared_window(game, seats, rng)
        version, window = game.version, game.window
        late = _answer(legal(game, second))  # what the second phone's screen offered
        assert seats[first].htmx_post(
            f"/t/{table.code}/move/", {**move_data(game, _answer(legal(game, first))), "window": window}
        ).status_code == 200
        game.refresh_from_db()
        if game.window != window or late not in legal(game, second):
            continue  # that answer closed the window (say a challenge): look for another one
        # The second phone still shows the old version: its answer lands all the same.
        response = seats[second].htmx_post(
            f"/t/{table.code}/move/", {**move_data(game, late, version=version), "window": window}
        )
        assert response.status_code == 200
        game.refresh_from_db()
        assert game.version == version + 2
        assert game.moves.filter(seat=second).order_by("-seq").first().action == late
        return
    raise AssertionError("no window stayed open after one answer")


def test_an_answer_to_a_closed_window_is_refused_and_changes_nothing(table_with):
    table, people = table_with(5, engine="inside_job")
    game = start(table, people[0])
    seats = _players(game, people)
    _shared_window(game, seats, random.Random(3))
    version, window = game.version, game.window
    for seat in seats:  # everybody votes: the vote window closes
        game.refresh_from_db()
        assert submit_status(game_id=game.pk, player=seats[seat].player, version=game.version, move_id=None,
                             action=legal(game, seat)[0], window=window) == 200
    game.refresh_from_db()
    assert game.window != window
    before = (game.version, game.moves.count())
    response = seats[0].htmx_post(f"/t/{table.code}/move/", {
        **move_data(game, {"type": "vote", "approve": True}, version=version), "window": window})
    assert response.status_code == 409
    assert "window has closed" in response.content.decode()
    game.refresh_from_db()
    assert (game.version, game.moves.count()) == before


def test_a_turn_action_keeps_the_version_check(table_with):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    seats = _players(game, people)
    turn = game_state(game)["turn"]
    action = legal(game, turn)[0]
    # A window id from the screen does not stand in for the version when no window is open.
    status = submit_status(game_id=game.pk, player=seats[turn].player, version=game.version + 5, move_id=None,
                           action=action, window="0:challenge")
    assert status == 409
    assert get_engine("coup").window(game_state(game)) is None


def test_the_health_edition_has_no_shared_windows():
    """Its turns are one seat's own (the rules page has no interrupt windows), so the version check holds."""
    engine = get_engine("good_cop_bad_cop_health")
    assert type(engine).window is BaseEngine.window  # always None


def test_a_phone_in_a_window_sends_the_window_it_shows(table_with):
    table, people = table_with(5, engine="inside_job")
    game = start(table, people[0])
    seats = _players(game, people)
    movers = _shared_window(game, seats, random.Random(5))
    page = seats[movers[0]].get(f"/t/{table.code}/").content.decode()
    assert f'name="window" value="{game.window}"' in page
