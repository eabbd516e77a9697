"""Undo by the table's consent through the web (issue 45): a phone asks to take its last move back, the other phones
(a moderated table's moderator alone, bots through the worker) agree or refuse, and the log keeps it.

Every refusal is judged against the table as it is now and changes nothing; an undo is an entry of the log that replay
and ``verify_game`` read.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from engines.base import UNDO, effective_moves
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_replay, game_state
from gameplay.services import game_end_early
from gameplay.undo import UNDO_SECONDS
from gameplay.worker import tick
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data
from tests.lobby.test_moderator import moderated_table

pytestmark = pytest.mark.django_db


def encoded(game: Game) -> dict:
    game.refresh_from_db()
    return get_engine(game.engine).encode(game_state(game))


def play(person, table, game, action: dict, **form) -> int:
    game.refresh_from_db()
    return person.htmx_post(f"/t/{table.code}/move/", {**move_data(game, action), **form}).status_code


def ask(person, table, seq: int):
    return person.htmx_post(f"/t/{table.code}/undo/", {"seq": str(seq)})


def answer(person, table, game, agree: bool = True, request_id: int | None = None):
    game.refresh_from_db()
    number = request_id if request_id is not None else game.undo_request["id"]
    return person.htmx_post(f"/t/{table.code}/undo/answer/",
                            {"request": str(number), "answer": "agree" if agree else "refuse"})


def panel(person, table) -> str:
    return person.get(f"/t/{table.code}/").content.decode()


def coup_income(table_with, players: int = 3):
    """A Coup table whose first player took Income (a move that revealed nothing): table, people, game, mover."""
    table, people = table_with(players, engine="coup")
    game = start(table, people[0])
    (mover,) = awaited_movers(game)
    assert play(people[mover], table, game, {"type": "income"}) == 200
    game.refresh_from_db()
    return table, people, game, mover


def test_a_phone_offers_its_last_move_back_and_all_agreeing_returns_the_state_before_it(table_with):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    before = encoded(game)
    (mover,) = awaited_movers(game)
    assert play(people[mover], table, game, {"type": "income"}) == 200
    others = [seat for seat in range(3) if seat != mover]
    assert 'data-test="undo-offer"' in panel(people[mover], table)
    assert all('data-test="undo-offer"' not in panel(people[seat], table) for seat in others)
    assert ask(people[mover], table, 1).status_code == 200
    assert 'data-test="undo-waiting"' in panel(people[mover], table)
    assert 'data-test="undo-ask"' in panel(people[others[0]], table)
    assert answer(people[others[0]], table, game).status_code == 200
    game.refresh_from_db()
    assert game.version == 1 and game.undo_request["agreed"] == [others[0]]  # still waiting for the other
    assert answer(people[others[1]], table, game).status_code == 200
    assert encoded(game) == before
    entry = Move.objects.get(game=game, seq=2)
    assert entry.seat is None and entry.action == {"type": UNDO, "seq": 1, "seat": mover, "agreed": sorted(others),
                                                   "moderated": False}
    assert Move.objects.get(game=game, seq=1).action == {"type": "income"}  # the move stays recorded
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    names = [people[seat].player.nickname for seat in others]
    assert 'data-test="undone-line"' in board
    assert f"s move was undone (agreed: {names[0]}, {names[1]})." in board
    assert awaited_movers(game) == [mover]  # their turn again, the move to make again
    assert play(people[mover], table, game, {"type": "income"}) == 200


def test_a_refusal_closes_the_request_and_the_asker_sees_who_refused(table_with):
    table, people, game, mover = coup_income(table_with)
    before = encoded(game)
    refuser = (mover + 1) % 3
    ask(people[mover], table, 1)
    assert answer(people[refuser], table, game, agree=False).status_code == 200
    assert encoded(game) == before and game.version == 1
    shown = panel(people[mover], table)
    assert 'data-test="undo-refused"' in shown and f"Refused by {people[refuser].player.nickname}" in shown
    # Closed: a late answer and a second request for the same move are refused, nothing changes.
    assert answer(people[(mover + 2) % 3], table, game).status_code == 409
    assert ask(people[mover], table, 1).status_code == 409
    assert encoded(game) == before and game.version == 1


def test_a_request_nobody_answers_expires_through_the_worker_and_nothing_changes(table_with):
    table, people, game, mover = coup_income(table_with)
    before = encoded(game)
    ask(people[mover], table, 1)
    game.refresh_from_db()
    assert (game.undo_deadline - timezone.now()).total_seconds() <= UNDO_SECONDS
    tick(now=game.undo_deadline - timedelta(seconds=1))
    game.refresh_from_db()
    assert game.undo_request["status"] == "open"
    assert tick(now=game.undo_deadline + timedelta(seconds=1)) >= 1
    game.refresh_from_db()
    assert game.undo_request["status"] == "expired" and game.undo_deadline is None
    assert encoded(game) == before and game.version == 1
    assert 'data-test="undo-expired"' in panel(people[mover], table)
    assert answer(people[(mover + 1) % 3], table, game).status_code == 409


def test_a_second_request_while_one_is_open_is_refused(table_with):
    table, people, game, mover = coup_income(table_with)
    assert ask(people[mover], table, 1).status_code == 200
    second = ask(people[mover], table, 1)
    assert second.status_code == 409 and "open already" in second.content.decode()
    game.refresh_from_db()
    assert game.undo_request["id"] == 1


def test_only_the_movers_latest_move_may_be_asked_for(table_with):
    table, people, game, mover = coup_income(table_with)
    nxt = (mover + 1) % 3
    assert ask(people[nxt], table, 1).status_code == 409  # not their move
    assert ask(people[mover], table, 2).status_code == 409  # no such move
    assert ask(people[mover], table, 0).status_code == 400
    assert people[mover].htmx_post(f"/t/{table.code}/undo/", {"seq": "x"}).status_code == 400
    # Another move lands after it: it is no longer the latest in force.
    (turn,) = awaited_movers(game)
    assert play(people[turn], table, game, {"type": "income"}) == 200
    assert ask(people[mover], table, 1).status_code == 409
    game.refresh_from_db()
    assert game.undo_request is None and game.version == 2


def coup_reveal(table_with):
    """A two-seat Coup table played to a card shown: Foreign Aid (a claim, undoable), blocked, the block challenged,
    and the blocker's answer to the challenge (a card shown or lost). Returns table, people, game, the blocker."""
    table, people = table_with(2, engine="coup")
    game = start(table, people[0])
    (mover,) = awaited_movers(game)
    other = 1 - mover
    assert play(people[mover], table, game, {"type": "foreign_aid"}) == 200
    game.refresh_from_db()
    assert game.undo_point is not None
    block = next(a for a in legal(game, other) if a["type"] == "block")
    assert play(people[other], table, game, block, window=game.window_token) == 200
    challenge = next(a for a in legal(game, mover) if a["type"] == "challenge")
    assert play(people[mover], table, game, challenge, window=game.window_token) == 200
    game.refresh_from_db()
    assert play(people[other], table, game, legal(game, other)[0], window=game.window_token) == 200
    game.refresh_from_db()
    return table, people, game, other


def test_a_move_that_revealed_something_is_never_offered_nor_taken(table_with):
    table, people, game, other = coup_reveal(table_with)
    assert game.undo_point is None  # a card was shown (or lost): no one may take it back
    assert 'data-test="undo-offer"' not in panel(people[other], table)
    assert ask(people[other], table, game.version).status_code == 409


def test_the_whole_rule_is_judged_again_when_the_mover_asks(table_with):
    """A move is offered on the cheap part of ``Engine.undoable`` (no view built); the views are compared when its
    mover asks. An offer the whole rule refuses (here forged onto a move that showed a card) is refused then, the
    offer goes, and nothing else changes."""
    table, people, game, other = coup_reveal(table_with)
    game.undo_point = {"seq": game.version, "seat": other, "lines": []}  # an offer the whole rule refuses
    game.save(update_fields=["undo_point"])
    before, version = encoded(game), game.version
    assert ask(people[other], table, game.version).status_code == 409
    game.refresh_from_db()
    assert game.undo_point is None and game.undo_request is None
    assert encoded(game) == before and game.version == version
    assert 'data-test="undo-offer"' not in panel(people[other], table)


def test_another_move_during_the_request_voids_it(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    assert play(people[leader], table, game, legal(game, leader)[0]) == 200
    game.refresh_from_db()
    voter = (leader + 1) % 5
    assert play(people[voter], table, game, {"type": "vote", "approve": True}, window=game.window_token) == 200
    ask(people[voter], table, 2)
    other = (leader + 2) % 5
    assert play(people[other], table, game, {"type": "vote", "approve": False}, window=game.window_token) == 200
    game.refresh_from_db()
    assert game.undo_request["status"] == "void" and game.undo_deadline is None
    assert answer(people[leader], table, game).status_code == 409


def test_a_stale_answer_from_a_screen_older_than_the_undo_is_refused(table_with):
    """An undo restores the engine's window id: a vote from a screen drawn before it must not land on the window."""
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    play(people[leader], table, game, legal(game, leader)[0])
    game.refresh_from_db()
    stale_window = game.window_token
    voter = (leader + 1) % 5
    play(people[voter], table, game, {"type": "vote", "approve": True}, window=stale_window)
    ask(people[voter], table, 2)
    for seat in range(5):
        if seat != voter:
            assert answer(people[seat], table, game).status_code == 200
    game.refresh_from_db()
    assert game.version == 3 and game.window and game.window_token != stale_window
    slow = (leader + 2) % 5
    vote = {"type": "vote", "approve": False}
    game.refresh_from_db()
    stale = people[slow].htmx_post(f"/t/{table.code}/move/", {**move_data(game, vote), "version": "",
                                                               "window": stale_window})
    assert stale.status_code == 409
    game.refresh_from_db()
    assert game.version == 3
    assert f'value="{game.window_token}"' in panel(people[slow], table)  # the fresh screen names the window anew
    fresh = people[slow].htmx_post(f"/t/{table.code}/move/", {**move_data(game, vote), "version": "",
                                                               "window": game.window_token})
    assert fresh.status_code == 200
    # An answer to the closed request, and a repeated one, are refused too.
    assert answer(people[slow], table, game, request_id=1).status_code == 409


def test_an_answer_from_a_seat_not_asked_or_twice_is_refused(table_with, guests):
    table, people = table_with(4, engine="coup")
    game = start(table, people[0])
    (mover,) = awaited_movers(game)
    play(people[mover], table, game, {"type": "income"})
    ask(people[mover], table, 1)
    assert answer(people[mover], table, game).status_code == 403  # the asker is not asked
    (stranger,) = guests(1, prefix="X")
    assert answer(stranger, table, game).status_code == 403
    other = (mover + 1) % 4
    assert answer(people[other], table, game).status_code == 200
    assert answer(people[other], table, game).status_code == 409
    assert people[other].htmx_post(f"/t/{table.code}/undo/answer/", {"request": "1", "answer": "maybe"}
                                   ).status_code == 400
    game.refresh_from_db()
    assert game.version == 1 and game.undo_request["agreed"] == [other]


def test_on_a_moderated_table_the_moderator_alone_decides(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    tablet.post(f"/t/{table.code}/host/start/", {"back": "board"})
    game = table.games.get(status="running")
    (leader,) = awaited_movers(game)
    play(phones[leader], table, game, legal(game, leader)[0])
    before = encoded(game)
    voter = (leader + 1) % 5
    game.refresh_from_db()
    play(phones[voter], table, game, {"type": "vote", "approve": True}, window=game.window_token)
    assert ask(phones[voter], table, 2).status_code == 200
    assert all('data-test="undo-ask"' not in panel(phone, table) for phone in phones)
    assert answer(phones[leader], table, game).status_code == 403  # the phones are not asked
    board = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="mod-undo"' in board
    assert 'data-test="mod-undo"' not in phones[0].get(f"/t/{table.code}/board/").content.decode()
    game.refresh_from_db()
    response = tablet.post(f"/t/{table.code}/host/undo/", {"back": "board", "request": str(game.undo_request["id"]),
                                                            "answer": "agree"})
    assert response.status_code == 302
    assert encoded(game) == before
    assert Move.objects.get(game=game, seq=3).action["moderated"] is True
    assert phones[0].post(f"/t/{table.code}/host/undo/", {"request": "1", "answer": "agree"}).status_code == 403
    assert "(agreed: the moderator)" in tablet.get(f"/t/{table.code}/board/").content.decode()


def test_bots_agree_through_the_worker(table_with):
    table, people = table_with(1, engine="coup")
    for _ in range(2):
        people[0].post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic"})
    game = start(table, people[0])
    later = timezone.now()
    for _ in range(40):  # the bots play (the person lets their claims pass) until it is the person's turn
        mine = legal(game, 0)
        if {"type": "income"} in mine:
            break
        if mine:
            play(people[0], table, game, next((a for a in mine if a["type"] == "allow"), mine[0]),
                 window=game.window_token)
        later += timedelta(seconds=5)
        tick(now=later)
    assert play(people[0], table, game, {"type": "income"}) == 200
    game.refresh_from_db()
    before_move = game.version
    ask(people[0], table, game.version)
    game.refresh_from_db()
    assert game.bot_due
    tick(now=later)
    game.refresh_from_db()
    assert game.undo_request["status"] == "agreed" and game.undo_request["agreed"] == [1, 2]
    assert game.version == before_move + 1 and Move.objects.get(game=game, seq=game.version).action["type"] == UNDO


def test_replay_and_verify_game_read_through_undos(table_with):
    table, people, game, mover = coup_income(table_with)
    ask(people[mover], table, 1)
    for seat in range(3):
        if seat != mover:
            answer(people[seat], table, game)
    play(people[mover], table, game, {"type": "tax"})
    game.refresh_from_db()
    engine = get_engine(game.engine)
    assert engine.encode(game_replay(game, checked=True)) == engine.encode(game_state(game))
    moves = list(game.moves.values_list("seat", "action"))
    assert effective_moves(moves) == [(mover, {"type": "tax"})]
    game_end_early(game=game, by=people[0].player)
    call_command("verify_game", str(game.pk))
    detail = people[0].get(f"/g/{game.pk}/").content.decode()
    assert 'data-test="undone-line"' in detail
    step = people[0].get(f"/g/{game.pk}/?step=2").content.decode()
    assert "The table agreed to take the last move back." in step
