"""move_submit through the phone's POST: accept, illegal, stale, repeated id, forged seat, malformed."""

from __future__ import annotations

import pytest

from gameplay.models import Game, Move
from gameplay.selectors import game_replay, game_state
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data, submit_status

pytestmark = pytest.mark.django_db


def leader_and_team(game):
    (leader,) = awaited_movers(game)
    return leader, legal(game, leader)[0]


def test_leader_proposal_is_accepted_and_logged(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    response = people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, proposal))
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.version == 1
    move = Move.objects.get(game=game)
    assert (move.seq, move.seat, move.action) == (1, leader, proposal)
    assert b'id="private-view"' in response.content


def test_team_built_from_checkbox_fields(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    data = move_data(game, {"type": "propose"})
    data["a.team[]"] = [str(s) for s in proposal["team"]]
    response = people[leader].htmx_post(f"/t/{table.code}/move/", data)
    assert response.status_code == 200
    assert Move.objects.get(game=game).action == {"type": "propose", "team": proposal["team"]}


def test_move_not_legal_for_this_seat_is_refused_and_changes_nothing(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    other = (leader + 1) % 5
    response = people[other].htmx_post(f"/t/{table.code}/move/", move_data(game, proposal))
    assert response.status_code == 400
    assert b"not allowed now" in response.content
    game.refresh_from_db()
    assert game.version == 0 and not Move.objects.exists()


def test_stale_version_answers_409_with_fresh_panel(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, proposal, version=0))
    game.refresh_from_db()
    voter = 0
    vote = {"type": "vote", "approve": True}
    response = people[voter].htmx_post(f"/t/{table.code}/move/", move_data(game, vote, version=0))
    assert response.status_code == 409
    assert b"moved on" in response.content
    assert b'id="private-view"' in response.content
    game.refresh_from_db()
    assert game.version == 1


def test_repeated_move_id_makes_one_move(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    data = move_data(game, proposal, move_id="double-tap")
    first = people[leader].htmx_post(f"/t/{table.code}/move/", data)
    second = people[leader].htmx_post(f"/t/{table.code}/move/", data)
    assert first.status_code == second.status_code == 200
    assert Move.objects.filter(game=game).count() == 1


def test_move_for_a_seat_the_requester_does_not_own_is_403(table_with, guests):
    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    (stranger,) = guests(1, prefix="X")
    response = stranger.htmx_post(f"/t/{table.code}/move/", move_data(game, proposal))
    assert response.status_code == 403
    assert not Move.objects.exists()
    status = submit_status(game_id=game.pk, player=None, version=0, move_id="m", action=proposal, bot_seat=leader)
    assert status == 403  # not a bot seat: nobody may forge one


@pytest.mark.parametrize(
    "data",
    [
        {"version": "x", "action": "{}"},
        {"version": "0", "action": "not json"},
        {"version": "0", "action": "[1, 2]"},
        {"version": "0"},
        {"version": "0", "action": "{\"type\": \"vote\", \"approve\": \"maybe\"}"},
    ],
)
def test_malformed_moves_are_400_and_change_nothing(table_with, data):
    table, people = table_with(5)
    start(table, people[0])
    for person in people:
        response = person.htmx_post(f"/t/{table.code}/move/", data)
        assert response.status_code == 400
    assert not Move.objects.exists()


def test_oversized_form_is_refused(table_with):
    table, people = table_with(5)
    start(table, people[0])
    response = people[0].htmx_post(f"/t/{table.code}/move/", {"version": "0", "action": "x" * 100_000})
    assert response.status_code == 400
    assert not Move.objects.exists()


def test_move_without_csrf_is_refused(table_with):
    from django.test import Client

    table, people = table_with(5)
    game = start(table, people[0])
    leader, proposal = leader_and_team(game)
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = people[leader].client.cookies
    response = strict.post(f"/t/{table.code}/move/", move_data(game, proposal))
    assert response.status_code == 403
    assert not Move.objects.exists()


def test_unknown_table_code_is_404_for_moves_and_pages(guests):
    (person,) = guests(1)
    assert person.post("/t/ZZZZZ/move/", {"version": "0", "action": "{}"}).status_code == 404
    assert person.get("/t/ZZZZZ/").status_code == 404
    assert person.get("/t/ZZZZZ/board/").status_code == 404


def play_to_end(game, people, table):
    """Every seat plays its first legal move until the game ends; returns the number of moves."""
    count = 0
    while True:
        game.refresh_from_db()
        if game.over:
            return count
        movers = awaited_movers(game)
        assert movers, "the game waits on nobody"
        seat = movers[0]
        response = people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[-1]))
        assert response.status_code == 200
        count += 1


def test_whole_game_replay_equals_live_state_and_verify_game(table_with):
    from django.core.management import call_command

    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    game.refresh_from_db()
    assert game.status == Game.FINISHED and game.outcome["winners"]
    from engines.registry import get_engine

    engine = get_engine(game.engine)
    assert engine.encode(game_replay(game)) == game.snapshot == engine.encode(game_state(game))
    assert engine.outcome(game_replay(game)) == game.outcome
    from io import StringIO

    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "verified" in out.getvalue()


def test_verify_game_fails_when_the_log_was_tampered(table_with):
    from django.core.management import CommandError, call_command

    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    game.refresh_from_db()
    game.outcome = {**game.outcome, "winners": [9]}
    game.save()
    with pytest.raises(CommandError):
        call_command("verify_game", str(game.pk))


def test_moves_after_the_end_are_refused(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    game.refresh_from_db()
    response = people[0].htmx_post(f"/t/{table.code}/move/", move_data(game, {"type": "vote", "approve": True}))
    assert response.status_code == 409
