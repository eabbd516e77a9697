"""Two phones answering on the same version at the same moment: exactly one move is taken."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from gameplay.models import Move
from gameplay.services import move_submit
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, submit_status


@pytest.mark.django_db(transaction=True)
def test_two_threads_on_one_version_make_exactly_one_move(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    proposals = legal(game, leader)[:2]
    # Two different proposals from the leader's two hands, racing on version 0.
    barrier = threading.Barrier(2)
    results = []

    def submit(action, move_id):
        barrier.wait()
        try:
            results.append(
                submit_status(game_id=game.pk, player=people[leader].player, version=0, move_id=move_id, action=action)
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(a, f"race-{i}")) for i, a in enumerate(proposals)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [200, 409]
    assert Move.objects.filter(game=game).count() == 1
    game.refresh_from_db()
    assert game.version == 1


@pytest.mark.django_db(transaction=True)
def test_many_voters_at_once_each_vote_counts_once_or_is_told_to_retry(table_with):
    table, people = table_with(7)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    move_submit(game_id=game.pk, player=people[leader].player, version=0, move_id="p", action=legal(game, leader)[0])
    barrier = threading.Barrier(7)
    results = {}

    def vote(seat):
        barrier.wait()
        try:
            results[seat] = submit_status(game_id=game.pk, player=people[seat].player, version=1,
                                          move_id=f"v{seat}", action={"type": "vote", "approve": True})
        finally:
            connection.close()

    threads = [threading.Thread(target=vote, args=(s,)) for s in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [s for s, r in results.items() if r == 200]
    assert len(winners) == 1
    assert all(r == 409 for s, r in results.items() if s not in winners)
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_seven_voters_at_once_in_one_window_all_land(table_with):
    table, people = table_with(7)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    move_submit(game_id=game.pk, player=people[leader].player, version=0, move_id="p", action=legal(game, leader)[0])
    game.refresh_from_db()
    window = game.window
    barrier = threading.Barrier(7)
    results = {}

    def vote(seat):
        barrier.wait()
        try:
            # Every phone's screen shows version 1 and the vote window: nobody's tap bounces.
            results[seat] = submit_status(game_id=game.pk, player=people[seat].player, version=1, window=window,
                                          move_id=f"v{seat}", action={"type": "vote", "approve": True})
        finally:
            connection.close()

    threads = [threading.Thread(target=vote, args=(s,)) for s in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 7 and all(r == 200 for r in results.values()), results
    assert Move.objects.filter(game=game).count() == 8
