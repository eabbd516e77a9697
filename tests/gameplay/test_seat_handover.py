"""Moving a seat to a new phone without peeking: asked by the seat, or a rescue link for a gone phone.

The link lives 10 minutes, one per seat; opening it moves the seat in this game only (no
account, no history moves), revokes the old phone at once, is told to the whole table,
and gives the new phone a new session key. The host cannot make one for a phone that is
still at the table.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test import Client

from gameplay.models import SeatHandover
from gameplay.selectors import player_history
from tests.conftest import start
from tests.gameplay.helpers import legal, move_data
from tests.gameplay.test_socket_frames import frame_after, opened, socket

pytestmark = pytest.mark.django_db

ROLE = re.compile(r'data-test="role"[^>]*>(.*?)<', re.S)


def _link_path(response) -> str:
    url = re.search(r'data-test="seat-link">(http[^<]+)<', response.content.decode()).group(1)
    return "/" + url.split("/", 3)[3]


def _seat(game, person) -> int:
    return game.seats.get(player=person.player).index


def test_a_player_moves_their_own_seat_and_the_old_phone_stops_at_once(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    ben = people[2]
    before = ben.get(f"/t/{table.code}/").content.decode()
    role = ROLE.search(before).group(1)
    asked = ben.post(f"/t/{table.code}/move-me/")
    assert asked.status_code == 200
    new_phone = Client()
    old_key = new_phone.session.session_key
    assert new_phone.get(_link_path(asked)).status_code == 302
    assert new_phone.session.session_key != old_key  # a seat changing hands: a new session key
    after = new_phone.get(f"/t/{table.code}/").content.decode()
    assert ROLE.search(after).group(1) == role
    # The old phone is told, shows no secrets, and can no longer move for the seat.
    old = ben.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="moved-away"' in old and 'data-test="role"' not in old
    seat = _seat(game, ben)
    game.refresh_from_db()
    if legal(game, seat):
        response = ben.htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[0]))
        assert response.status_code == 403
        assert new_phone.post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[0]),
                              HTTP_HX_REQUEST="true").status_code == 200
    # The whole table is told; the board too.
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert "P3's seat moved to a new phone." in board
    assert "P3's seat moved to a new phone." in people[1].get(f"/t/{table.code}/").content.decode()
    # Nobody's account or history moved: the game is still P3's.
    assert [row["game"]["id"] for row in player_history(player=ben.player)] == [game.pk]


def test_a_link_works_once_lasts_ten_minutes_and_one_lives_per_seat(table_with):
    table, people = table_with(5)
    start(table, people[0])
    ben = people[2]
    first = _link_path(ben.post(f"/t/{table.code}/move-me/"))
    second = _link_path(ben.post(f"/t/{table.code}/move-me/"))
    assert Client().get(first).status_code == 404  # replaced by the newer one
    holder = Client()
    assert holder.get(second).status_code == 302
    assert Client().get(second).status_code == 404  # one time only
    # Only the phone that holds the seat now can ask to move it again.
    assert ben.post(f"/t/{table.code}/move-me/", HTTP_HX_REQUEST="true").status_code == 403
    third = _link_path(holder.post(f"/t/{table.code}/move-me/"))
    token = third.strip("/").split("/")[-1]
    SeatHandover.objects.filter(token=token).update(
        created=SeatHandover.objects.get(token=token).created - timedelta(minutes=11))
    expired = Client().get(third)
    assert expired.status_code == 404 and "10 minutes" in expired.content.decode()


def test_the_host_rescue_link_only_for_a_phone_gone_a_while_and_announced(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    ben = people[2]
    ben.get(f"/t/{table.code}/")  # Ben's phone is at the table
    seat = _seat(game, ben)
    refused = people[0].post(f"/t/{table.code}/seat-link/", {"seat": seat}, follow=True)
    assert "a moment ago" in refused.content.decode().replace("&#x27;", "'").replace("&#39;", "'")
    assert not SeatHandover.objects.exists()
    # Not for someone else than the host.
    assert people[1].post(f"/t/{table.code}/seat-link/", {"seat": seat}).status_code == 403
    # Ben's phone goes quiet for more than a minute (its presence marks fade).
    cache.clear()
    host_page = people[0].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="rescue-link"' in host_page
    made = people[0].post(f"/t/{table.code}/seat-link/", {"seat": seat})
    assert made.status_code == 200
    board = people[0].get(f"/t/{table.code}/board/").content.decode().replace("&#x27;", "'").replace("&#39;", "'")
    assert "The host made a link that moves P3's seat to a new phone." in board
    new_phone = Client()
    assert new_phone.get(_link_path(made)).status_code == 302
    board = people[0].get(f"/t/{table.code}/board/").content.decode().replace("&#x27;", "'").replace("&#39;", "'")
    assert "P3's seat moved to a new phone with the host's link." in board
    # The host's own devices hold only the host's seat: the rescued seat is the new phone's alone.
    assert 'data-test="moved-away"' in ben.get(f"/t/{table.code}/").content.decode()


def test_no_seat_links_between_games_or_for_spectators(table_with, guests):
    table, people = table_with(5)
    assert people[2].post(f"/t/{table.code}/move-me/").status_code == 302  # no game: a message, no link
    assert not SeatHandover.objects.exists()
    start(table, people[0])
    (watcher,) = guests(1, prefix="W")
    assert watcher.post(f"/t/{table.code}/move-me/", HTTP_HX_REQUEST="true").status_code == 403
    assert not SeatHandover.objects.exists()


def test_a_new_guest_gets_a_new_session_key(db):
    browser = Client()
    browser.get("/")
    browser.session.save()
    key = browser.session.session_key
    browser.post("/guest/", {"nickname": "Ana", "next": "/"})
    assert browser.session.session_key != key


def test_a_finished_games_page_lists_its_seat_moves(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    Client().get(_link_path(people[2].post(f"/t/{table.code}/move-me/")))
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    page = people[0].get(f"/g/{game.pk}/").content.decode()
    assert "P3's seat moved to a new phone." in page


def _asleep(html: str) -> str:
    """The "phone is asleep" notice of a page or fragment ("" when there is none)."""
    found = re.search(r'data-test="asleep".*?</p>', html, re.S)
    return found.group(0) if found else ""


@pytest.mark.django_db(transaction=True)
async def test_a_seat_moved_to_a_new_phone_is_not_called_asleep_by_the_push_that_tells_it(redis_layer, table_with):
    """The rescued seat's old phone went quiet (every screen says so); the new phone that opens the link is at
    the table, so the push that tells the table of the move no longer calls that seat's phone asleep: the phones,
    which refetch nothing until the next move, would show the stale notice until then."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    for person in people:
        await sync_to_async(person.get)(f"/t/{table.code}/")
    ben = people[2]
    seat = await sync_to_async(_seat)(game, ben)
    await sync_to_async(cache.delete)(f"presence:{table.pk}:p{ben.player.pk}")  # Ben's phone went quiet
    watcher = socket(table.code, people[1])
    known = await opened(watcher)
    made = await sync_to_async(people[0].post)(f"/t/{table.code}/seat-link/", {"seat": seat})
    assert made.status_code == 200
    frame = await frame_after(watcher, known)
    # The rescue link's push (this socket's first: the whole panel): the old phone is asleep.
    assert "P3" in _asleep("".join(frame["f"].values()))
    new_phone = Client()
    claimed = await sync_to_async(new_phone.get)(_link_path(made))  # the redirect is not followed yet
    assert claimed.status_code == 302
    frame = await frame_after(watcher, frame["v"])
    head = frame["f"]["pv-head"].replace("&#x27;", "'").replace("&#39;", "'")  # the head, which tells of the move
    assert "P3's seat moved to a new phone with the host's link." in head
    assert "P3" not in _asleep(head), head
    # The same on the board.
    board = (await sync_to_async(people[0].get)(f"/t/{table.code}/board/")).content.decode()
    assert "P3" not in _asleep(board)
    await watcher.disconnect()
