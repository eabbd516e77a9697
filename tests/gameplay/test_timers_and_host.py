"""Response windows: server-kept deadlines, expiry as a system move, pause/resume, end early, bots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from gameplay.models import Game, Move
from gameplay.selectors import game_state
from gameplay.services import game_expire
from gameplay.worker import tick
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data

pytestmark = pytest.mark.django_db


def propose(game, people, table):
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    game.refresh_from_db()


def test_vote_window_gets_a_deadline_and_its_expiry_is_a_system_move(table_with):
    table, people = table_with(5, timer=10)
    game = start(table, people[0])
    assert game.deadline is None  # the proposal has no timer
    propose(game, people, table)
    assert game.window and game.deadline is not None
    left = (game.deadline - timezone.now()).total_seconds()
    assert 8 < left <= 10
    assert not game_expire(game_id=game.pk)  # not yet
    assert game_expire(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
    game.refresh_from_db()
    system = Move.objects.get(game=game, seq=2)
    assert system.seat is None and system.action == {"type": "timeout"}
    # Unvoted counts as Approve: the team goes on the mission.
    assert game_state(game)["phase"] == "mission"
    assert game.deadline is not None and game.window  # a new window, a fresh countdown


def test_worker_tick_expires_due_windows(table_with):
    table, people = table_with(5, timer=5)
    game = start(table, people[0])
    propose(game, people, table)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert tick() >= 1
    game.refresh_from_db()
    assert game.moves.filter(seat=None).count() == 1


def test_a_page_load_after_the_deadline_expires_the_window(table_with):
    table, people = table_with(5, timer=5)
    game = start(table, people[0])
    propose(game, people, table)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    people[1].get(f"/t/{table.code}/rev/")
    assert game.moves.filter(seat=None).count() == 1


def test_pause_keeps_the_time_left_and_resume_restores_it(table_with):
    table, people = table_with(5, timer=30)
    game = start(table, people[0])
    propose(game, people, table)
    people[0].post(f"/t/{table.code}/host/pause/")
    game.refresh_from_db()
    assert game.paused and game.deadline is None and 28 < game.paused_remaining <= 30
    assert not game_expire(game_id=game.pk, now=timezone.now() + timedelta(hours=1))
    assert 'data-test="paused"' in people[2].get(f"/t/{table.code}/").content.decode()
    people[0].post(f"/t/{table.code}/host/resume/")
    game.refresh_from_db()
    assert not game.paused and 28 < (game.deadline - timezone.now()).total_seconds() <= 30
    assert people[1].post(f"/t/{table.code}/host/pause/").status_code == 403


def test_host_ends_the_game_early_recorded_as_such(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    # The first tap only asks: ending is for everyone.
    asked = people[0].post(f"/t/{table.code}/host/end/")
    assert asked.status_code == 200 and 'data-test="confirm-end"' in asked.content.decode()
    game.refresh_from_db()
    assert game.status == Game.RUNNING
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    game.refresh_from_db()
    assert game.status == Game.ENDED and game.outcome["reason"] == "ended_by_host"
    assert game.outcome["by"] == "P1"
    html = people[1].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="ended"' in html and game.seed in html and "P1 ended this game early" in html


@pytest.mark.parametrize("engine", ["inside_job", "coup", "good_cop_bad_cop", "good_cop_bad_cop_health"])
def test_an_ended_game_shows_its_end_first_and_no_live_controls(table_with, engine):
    table, people = table_with(4 if engine != "inside_job" else 5, engine=engine)
    start(table, people[0])
    # While it runs, someone has a move to make.
    assert any(f"/t/{table.code}/move/" in person.get(f"/t/{table.code}/").content.decode() for person in people)
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    for page in [person.get(f"/t/{table.code}/").content.decode() for person in people] + [
        people[0].get(f"/t/{table.code}/board/").content.decode()
    ]:
        assert f"/t/{table.code}/move/" not in page and 'name="action"' not in page
        # The end comes first, above the cards and the log (the phone's game, the board's table).
        cards = page.find('class="game-body"') if 'class="game-body"' in page else page.index('class="board-table')
        assert page.index('data-test="ended"') < cards
        assert 'data-test="end-game"' not in page


def test_play_again_deals_a_new_game_on_the_same_seats(table_with):
    table, people = table_with(5)
    first = start(table, people[0])
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    people[0].post(f"/t/{table.code}/host/again/")
    second = table.games.get(status="running")
    assert second.pk != first.pk
    assert list(second.seats.values_list("player", flat=True)) == list(first.seats.values_list("player", flat=True))
    assert second.seed_hash != first.seed_hash


def test_bots_fill_seats_and_finish_a_game_through_move_submit(table_with):
    table, people = table_with(2)
    for _ in range(3):
        people[0].post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic"})
    game = start(table, people[0])
    assert game.seats.exclude(bot="").count() == 3
    later = timezone.now()
    for _ in range(400):
        game.refresh_from_db()
        if game.over:
            break
        later += timedelta(seconds=5)
        if tick(now=later):
            continue
        for seat in awaited_movers(game):
            if seat < 2:
                people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[0]))
                break
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    bot_moves = Move.objects.filter(game=game, seat__gte=2)
    assert bot_moves.exists()
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert "bot" in board


def test_host_hands_a_departed_players_seat_to_a_bot(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    people[0].post(f"/t/{table.code}/host/bot/", {"seat": "3"})
    seat = game.seats.get(index=3)
    assert seat.bot == "heuristic" and seat.player == people[3].player  # still in their history
    assert seat.name == "P4"  # no word stored in the name: pages draw the bot mark from ``bot``
    (leader,) = awaited_movers(game)
    if leader == 3:
        response = people[3].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, 3)[0]))
        assert response.status_code == 403


def test_a_bot_whose_policy_errs_still_moves_legally(table_with, monkeypatch):
    import engines.inside_job as inside_job

    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic"})
    game = start(table, people[0])
    monkeypatch.setitem(inside_job.BOTS, "heuristic", lambda view, rng: {"type": "nonsense"})
    later = timezone.now()
    for _ in range(60):
        game.refresh_from_db()
        if game.moves.filter(seat=4).exists():
            break
        later += timedelta(seconds=5)
        if tick(now=later):
            continue
        for seat in awaited_movers(game):
            if seat < 4:
                people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[0]))
                break
    assert game.moves.filter(seat=4).exists()
