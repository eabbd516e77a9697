"""Home, guests and accounts, creating and joining tables, the host's seat controls, seat links."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from gameplay.models import GameSeat
from lobby.models import CODE_ALPHABET, Player, Table
from tests.conftest import Guest, start

pytestmark = pytest.mark.django_db


def test_home_shows_the_lan_address_as_text_and_qr(client):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert re.search(r'data-test="lan-url">http://\d+\.\d+\.\d+\.\d+:\d+/<', html)
    assert "<svg" in html


def test_table_code_is_five_unambiguous_characters(table_with):
    table, _ = table_with(1)
    assert len(table.code) == 5
    assert set(table.code) <= set(CODE_ALPHABET)
    assert not set(table.code) & set("0O1IL")


def test_join_by_code_typed_in_lower_case_and_unknown_code_is_said_plainly(table_with, guests):
    table, _ = table_with(1)
    (person,) = guests(1, prefix="J")
    response = person.get("/find/", {"code": table.code.lower()})
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/"
    response = person.get("/find/", {"code": "QQQQQ"}, follow=True)
    assert "No table has the code QQQQQ" in response.content.decode()


def test_a_full_table_refuses_another_player(table_with, guests):
    table, _ = table_with(10)
    (late,) = guests(1, prefix="L")
    response = late.post(f"/t/{table.code}/join/", follow=True)
    assert "This table is full." in response.content.decode()
    assert table.seats.count() == 10


def test_nickname_is_capped_and_escaped(client):
    client.post("/guest/", {"nickname": "x" * 25, "next": "/"}, follow=True)
    assert not Player.objects.exists()
    client.post("/guest/", {"nickname": "<script>x()</script>", "next": "/"})
    player = Player.objects.get()
    client.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get()
    html = client.get(f"/t/{table.code}/").content.decode()
    assert "<script>x()</script>" not in html and "&lt;script&gt;" in html
    assert player.nickname.startswith("<script>")


def test_host_reorders_and_removes_seats_others_cannot(table_with):
    table, people = table_with(4)
    seats = list(table.seats.order_by("position"))
    assert people[2].post(f"/t/{table.code}/seat/up/", {"seat": seats[2].pk}).status_code == 403
    people[0].post(f"/t/{table.code}/seat/up/", {"seat": seats[2].pk})
    order = list(table.seats.order_by("position").values_list("player__nickname", flat=True))
    assert order == ["P1", "P3", "P2", "P4"]
    people[0].post(f"/t/{table.code}/seat/remove/", {"seat": seats[1].pk})
    order = list(table.seats.order_by("position").values_list("player__nickname", flat=True))
    assert order == ["P1", "P3", "P4"]
    assert list(table.seats.order_by("position").values_list("position", flat=True)) == [0, 1, 2]


def test_start_needs_a_count_that_fits_the_game(table_with):
    table, people = table_with(4)
    response = people[0].post(f"/t/{table.code}/host/start/", follow=True)
    assert "needs 5-10 players" in response.content.decode()
    assert not table.games.exists()
    assert people[1].post(f"/t/{table.code}/host/start/").status_code == 403


def test_guest_who_signs_up_keeps_seat_and_history(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    guest = people[3]
    response = guest.post(
        "/signup/", {"username": "dana", "password1": "a-long-Passw0rd!", "password2": "a-long-Passw0rd!"}
    )
    assert response.status_code == 302
    user = User.objects.get(username="dana")
    assert Player.objects.get(user=user) == guest.player
    assert GameSeat.objects.get(game=game, index=3).player == guest.player
    html = guest.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="role"' in html  # still holds the seat and its secrets
    guest.post("/logout/")
    assert guest.get(f"/t/{table.code}/").content.decode().count('data-test="role"') == 0
    guest.post("/login/", {"username": "dana", "password": "a-long-Passw0rd!"})
    assert 'data-test="role"' in guest.get(f"/t/{table.code}/").content.decode()


def test_guests_are_separate_browsers(db):
    a, b = Guest("A"), Guest("B")
    assert a.player != b.player


def test_a_seated_guest_who_gives_a_name_again_is_renamed_not_replaced(table_with):
    table, people = table_with(2)
    before = people[1].player.pk
    people[1].post("/guest/", {"nickname": "Bea", "next": "/"})
    assert people[1].client.session["player_id"] == before
    assert "Bea" in people[0].get(f"/t/{table.code}/").content.decode()


def test_a_new_phone_opening_the_join_link_sits_down_with_just_a_name(table_with, client):
    table, _ = table_with(1)
    html = client.get(f"/t/{table.code}/").content.decode()
    assert 'name="join"' in html
    client.post("/guest/", {"nickname": "Cy", "next": f"/t/{table.code}/", "join": table.code})
    assert list(table.seats.order_by("position").values_list("player__nickname", flat=True)) == ["P1", "Cy"]


def test_logging_in_after_playing_as_a_guest_keeps_the_seat(table_with):
    table, people = table_with(5)
    User.objects.create_user("eve", password="a-long-Passw0rd!")
    account = Player.objects.create(nickname="Eve", user=User.objects.get(username="eve"))
    game = start(table, people[0])
    people[4].post("/login/", {"username": "eve", "password": "a-long-Passw0rd!"})
    assert GameSeat.objects.get(game=game, index=4).player == account
    assert 'data-test="role"' in people[4].get(f"/t/{table.code}/").content.decode()


def test_create_form_starts_coup_with_its_ten_second_timer(guests):
    (host,) = guests(1)
    html = host.get("/new/?engine=coup").content.decode()
    assert '<option value="10" selected>' in html
    assert '<option value="0" selected>' in host.get("/new/?engine=inside_job").content.decode()
