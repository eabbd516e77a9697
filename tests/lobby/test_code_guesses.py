"""The code-guess limit slows guessing, never play (``lobby.known_tables``).

Before, once one address had tried too many unknown codes, every browser behind it (phones behind
one café or home NAT) got 429 on the table it was playing at: its phone page, the board, the poll
and the socket. Now only browsers that do not know the table wait.
"""

from __future__ import annotations

from types import SimpleNamespace

import django_ratelimit.core
import pytest
from django.core.cache import cache
from django.test import Client

from lobby.known_tables import KNOWN_KEY, KNOWN_MAX, known_codes, remember
from lobby.models import Table
from tests.conftest import Guest

pytestmark = pytest.mark.django_db

NAT = "203.0.113.7"  # every phone at the table, and the mistyping one, behind one public address


@pytest.fixture(autouse=True)
def _few_guesses(settings, monkeypatch):
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "3/m"}
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))
    cache.clear()
    yield
    cache.clear()


def _lock_the_address() -> None:
    """A phone behind the NAT mistypes four codes: the address is over 3 a minute."""
    typo = Client(REMOTE_ADDR=NAT)
    answers = [typo.get("/find/", {"code": f"ZZZZ{i}"}).status_code for i in range(4)]
    assert answers == [302, 302, 302, 429]


def _nat_table(count: int = 3):
    """A lobby table whose guests all sit behind the NAT; the first one hosts."""
    people = [Guest(f"P{i + 1}", REMOTE_ADDR=NAT) for i in range(count)]
    assert people[0].post("/new/", {"engine": "inside_job", "timer": "0"}).status_code == 302
    table = Table.objects.get(host=people[0].player)
    for person in people[1:]:
        assert person.post(f"/t/{table.code}/join/").status_code == 302
    return table, people


def test_phones_at_a_table_keep_it_when_another_phone_on_their_address_mistypes_codes():
    table, people = _nat_table()
    board = Client(REMOTE_ADDR=NAT)
    assert board.get(f"/t/{table.code}/board/").status_code == 200  # a board opened by code: no player
    _lock_the_address()
    for browser in [*(p.client for p in people), board]:
        for path in (f"/t/{table.code}/rev/", f"/t/{table.code}/qr.svg", f"/t/{table.code}/board/"):
            assert browser.get(path).status_code == 200, path
        assert browser.get("/find/", {"code": table.code}).status_code == 302
    # A seat's move of its own (leaving) goes through too.
    seat = table.seats.get(player=people[2].player)
    assert people[2].post(f"/t/{table.code}/seat/leave/", {"seat": seat.pk}).status_code == 302
    assert not table.seats.filter(pk=seat.pk).exists()


def test_a_guesser_behind_the_address_still_learns_nothing():
    table, _ = _nat_table(1)
    _lock_the_address()
    guesser = Client(REMOTE_ADDR=NAT)  # a fresh browser: a right code is refused like a wrong one
    for path in (f"/t/{table.code}/", f"/t/{table.code}/board/", f"/t/{table.code}/rev/", "/t/ZZZZ9/"):
        assert guesser.get(path).status_code == 429, path
    assert guesser.get("/find/", {"code": table.code}).status_code == 429
    response = guesser.post("/guest/", {"nickname": "Eve", "next": "/", "join": table.code})
    assert response.status_code == 429
    assert not table.seats.filter(player__nickname="Eve").exists()
    # Unknown codes from a browser that knows some table are still guesses.
    person = Guest("Known", REMOTE_ADDR=NAT)
    assert person.get("/t/ZZZZ8/").status_code == 429


def test_a_seated_player_whose_session_lost_its_list_keeps_the_table():
    table, people = _nat_table(2)
    session = people[1].client.session
    session.pop(KNOWN_KEY)
    session.save()
    _lock_the_address()
    assert people[1].get(f"/t/{table.code}/rev/").status_code == 200  # the seat is enough
    assert KNOWN_KEY in people[1].client.session  # and the table is remembered again


def test_a_name_given_with_a_known_code_still_takes_a_seat():
    table, _ = _nat_table(1)
    phone = Client(REMOTE_ADDR=NAT)
    assert phone.get(f"/t/{table.code}/qr.svg").status_code == 200  # opened the table's link before
    _lock_the_address()
    response = phone.post("/guest/", {"nickname": "Noor", "next": f"/t/{table.code}/", "join": table.code})
    assert response.status_code == 302
    assert table.seats.filter(player__nickname="Noor").exists()


def test_a_known_code_whose_table_has_gone_is_not_a_guess():
    table, people = _nat_table(1)
    code = table.code
    Table.objects.filter(pk=table.pk).delete()
    for _ in range(5):
        assert people[0].get(f"/t/{code}/rev/").status_code == 404
    assert Client(REMOTE_ADDR=NAT).get("/find/", {"code": "ZZZZ1"}).status_code == 302  # nothing counted


def test_the_list_keeps_the_latest_codes_only():
    session: dict = {}
    for i in range(KNOWN_MAX + 5):
        remember(session, f"C{i:04d}")
    remember(session, f"C{KNOWN_MAX + 4:04d}")  # already known: no change
    assert known_codes(session) == [f"C{i:04d}" for i in range(5, KNOWN_MAX + 5)]
    assert known_codes({KNOWN_KEY: "junk"}) == [] and known_codes(None) == []
