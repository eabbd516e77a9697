"""Moves sent over the table socket (``gameplay.live.moves``), judged as the POST judges them.

A phone's page sends a move form's fields over its socket; the answer names the move's number and
is that socket's frame of the push the move made, or the refusal's note beside the table as it stands, or
``{"post": true}`` where the socket cannot judge (no session, no valid CSRF token): then the page
posts the form. Bad input changes nothing, a repeated move id plays once, and the answer holds
that seat's secrets and public facts only, as its GET would.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.middleware.csrf import get_token
from django.test import RequestFactory

from gameplay.models import Game
from lobby.models import Table
from tests.conftest import Guest, start
from tests.gameplay.helpers import awaited_movers, legal, move_data
from tests.gameplay.test_privacy import normalized
from tests.gameplay.test_socket_frames import frame_after, htmx_get, opened, socket
from tools.loadtest import apply_frame


def token_of(guest: Guest) -> str:
    """A CSRF token for the guest's CSRF cookie, as its page's header holds it (forms.js adds it to a form as it
    leaves): Django's ``get_token`` for a request with that cookie."""
    return token_for(guest.client.cookies["csrftoken"].value)


def token_for(secret: str) -> str:
    request = RequestFactory().get("/")
    request.META["CSRF_COOKIE"] = secret
    return get_token(request)


async def send_move(phone: WebsocketCommunicator, fields: dict, number: int = 1) -> dict:
    await phone.send_json_to({"move": fields, "id": number})
    while True:
        frame = await phone.receive_json_from(timeout=10)
        if "answer" in frame:
            return frame


def versions(game: Game) -> tuple[int, int]:
    game.refresh_from_db()
    return game.version, game.moves.count()


async def seated(table_with, count: int = 5):
    table, people = await sync_to_async(table_with)(count)
    game = await sync_to_async(start)(table, people[0])
    pages = {}
    for seat, person in enumerate(people):  # each browser loads its page (and so holds its CSRF cookie)
        pages[seat] = (await sync_to_async(htmx_get)(person, f"/t/{table.code}/")).decode()
    return table, people, game, pages


@pytest.mark.django_db(transaction=True)
async def test_a_move_over_the_socket_is_played_and_answered_with_the_screen_its_get_shows(redis_layer, table_with):
    table, people, game, pages = await seated(table_with)
    (mover,) = await sync_to_async(awaited_movers)(game)
    phone = socket(table.code, people[mover])
    watcher_seat = next(seat for seat in range(5) if seat != mover)
    watcher = socket(table.code, people[watcher_seat])
    known = await opened(phone)
    watched = await opened(watcher)
    action = (await sync_to_async(legal)(game, mover))[0]
    fields = {**move_data(game, action), "window": "", "csrfmiddlewaretoken": token_of(people[mover])}
    answer = await send_move(phone, fields, number=7)
    assert answer["answer"] == 7 and answer["status"] == 200 and answer["v"] == known + 1
    version, moves = await sync_to_async(versions)(game)
    assert moves == 1
    # The answer is the mover's frame: assembled on its page it is what its GET shows now.
    shown = apply_frame(pages[mover], answer)
    assert shown is not None
    get = await sync_to_async(htmx_get)(people[mover], f"/t/{table.code}/")
    assert normalized(shown.encode()) == normalized(get)
    # The others hear the push as ever; the mover's socket is not sent the same revision again.
    pushed = await frame_after(watcher, watched)
    assert pushed["v"] == known + 1 and "f" in pushed
    assert await phone.receive_nothing(timeout=0.5)
    await phone.disconnect()
    await watcher.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_refused_move_over_the_socket_changes_nothing_and_answers_the_note(redis_layer, table_with):
    table, people, game, _pages = await seated(table_with)
    (mover,) = await sync_to_async(awaited_movers)(game)
    phone = socket(table.code, people[mover])
    await opened(phone)
    action = (await sync_to_async(legal)(game, mover))[0]
    token = token_of(people[mover])
    before = await sync_to_async(versions)(game)
    revision = (await sync_to_async(Table.objects.get)(pk=table.pk)).revision
    cases = [
        ({**move_data(game, action, version=game.version + 5), "csrfmiddlewaretoken": token}, "table moved on"),
        ({**move_data(game, {"type": "no such move"}), "csrfmiddlewaretoken": token}, "not allowed"),
        ({**move_data(game, action), "version": 1, "csrfmiddlewaretoken": token}, "malformed"),  # JSON types
        ({**move_data(game, action), "action": ["a", 2], "csrfmiddlewaretoken": token}, "malformed"),
        ({"csrfmiddlewaretoken": token, "version": "x", "action": "{}"}, "malformed"),
    ]
    for number, (fields, note) in enumerate(cases, start=1):
        answer = await send_move(phone, fields, number)
        assert answer["answer"] == number and answer["status"] in (400, 409), answer
        # The note, as the POST's panel shows it above itself, beside a frame of the table as it stands (nothing
        # moved: the page takes a frame only when it is newer than what it shows).
        assert answer["note"].startswith('<p class="notice" role="alert" data-test="note">'), answer
        assert note in answer["note"].lower() and answer["v"] == revision, answer
    assert await sync_to_async(versions)(game) == before
    await phone.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_what_the_socket_cannot_judge_is_posted_instead(redis_layer, table_with):
    """A forged or missing CSRF token, a board's socket, a logged-out session: the answer is
    ``{"post": true}`` (the page posts the form, the HTTP path answers) and nothing is played."""
    table, people, game, _pages = await seated(table_with)
    (mover,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, mover))[0]
    phone = socket(table.code, people[mover])
    await opened(phone)
    other = token_for("x" * 32)  # a well-made token, for another browser's cookie
    for number, token in enumerate(["", "forged", other, None], start=1):
        fields = move_data(game, action)
        if token is not None:
            fields["csrfmiddlewaretoken"] = token
        assert await send_move(phone, fields, number) == {"answer": number, "post": True}
    board = socket(table.code, people[mover], query="?view=board")
    await opened(board)
    fields = {**move_data(game, action), "csrfmiddlewaretoken": token_of(people[mover])}
    assert await send_move(board, fields, 9) == {"answer": 9, "post": True}
    await sync_to_async(people[mover].post)("/logout/")
    assert await send_move(phone, fields, 10) == {"answer": 10, "post": True}
    assert await sync_to_async(versions)(game) == (game.version, 0)
    await phone.disconnect()
    await board.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_repeated_move_over_the_socket_is_played_once(redis_layer, table_with):
    table, people, game, _pages = await seated(table_with)
    (mover,) = await sync_to_async(awaited_movers)(game)
    phone = socket(table.code, people[mover])
    known = await opened(phone)
    action = (await sync_to_async(legal)(game, mover))[0]
    fields = {**move_data(game, action), "csrfmiddlewaretoken": token_of(people[mover])}
    first = await send_move(phone, fields, 1)
    again = await send_move(phone, fields, 2)
    assert first["status"] == again["status"] == 200 and first["v"] == again["v"] == known + 1
    # Posted after the socket's answer was lost: the same move id, still one move.
    status = (await sync_to_async(people[mover].htmx_post)(f"/t/{table.code}/move/", fields)).status_code
    assert status == 200
    assert (await sync_to_async(versions)(game))[1] == 1
    await phone.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_oversized_or_unreadable_message_closes_the_socket_and_plays_nothing(redis_layer, table_with):
    table, people, game, _pages = await seated(table_with)
    (mover,) = await sync_to_async(awaited_movers)(game)
    action = (await sync_to_async(legal)(game, mover))[0]
    fields = {**move_data(game, action), "csrfmiddlewaretoken": token_of(people[mover]), "pad": "x" * 20000}
    phone = socket(table.code, people[mover])
    await opened(phone)
    await phone.send_to(text_data=json.dumps({"move": fields, "id": 1}))
    assert (await phone.receive_output(timeout=5))["type"] == "websocket.close"
    assert await sync_to_async(versions)(game) == (game.version, 0)
