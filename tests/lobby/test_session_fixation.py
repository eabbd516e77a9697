"""Session fixation: a session id planted in a victim's browser is worth nothing once the victim becomes a player.

The attack: the attacker opens the site, gets a session id (and perhaps a guest of their own), and
plants that id in the victim's browser (a shared tablet, a cookie set through a sibling host). If
the victim then sits down, signs up, logs in, opens a seat link or a host link in that session, and
the session keeps its id, the attacker's browser is the victim's player: it sees the victim's hand
and moves for them. So every way of becoming a player gives the browser a new session key, and the
planted one no longer exists.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.test import Client

from lobby.models import Player, Table
from tests.conftest import Guest, start

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-Passw0rd!"


@pytest.fixture(autouse=True)
def _fast_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _planted(*, with_guest: bool) -> tuple[Client, Client, str]:
    """(attacker, victim, planted key): the victim's browser carries the attacker's session id.

    ``with_guest``: the attacker first sat down as a guest, so the planted session holds a player.
    """
    if with_guest:
        attacker = Guest("Mallory").client
    else:
        attacker = Client()
        session = attacker.session
        session["planted"] = True
        session.save()
        attacker.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    key = attacker.cookies[settings.SESSION_COOKIE_NAME].value
    victim = Client()
    victim.cookies[settings.SESSION_COOKIE_NAME] = key
    return attacker, victim, key


def _assert_planted_key_is_dead(attacker: Client, victim: Client, key: str) -> None:
    """The victim's browser has a new key; the planted one is gone from the store, and the
    attacker's browser, still sending it, is nobody (no player, no account, no seat links)."""
    assert victim.cookies[settings.SESSION_COOKIE_NAME].value != key
    assert not DBStore().exists(key)
    assert attacker.cookies[settings.SESSION_COOKIE_NAME].value == key
    session = attacker.session  # read from the store by the planted key, as a request would
    assert session.get("player_id") is None
    assert session.get("_auth_user_id") is None
    assert not session.get("seat_devices")


def _table_of(host: Guest) -> Table:
    assert host.post("/new/", {"engine": "inside_job", "timer": "0"}).status_code == 302
    return Table.objects.get(host=host.player)


ROLE = 'data-test="role"'


@pytest.mark.parametrize("with_guest", [True, False], ids=["planted-guest", "planted-empty-session"])
def test_sitting_down_as_a_guest_gives_a_new_session_key(with_guest):
    host = Guest("Host")
    table = _table_of(host)
    others = [Guest(f"P{i}") for i in range(3)]
    for person in others:
        person.post(f"/t/{table.code}/join/")
    attacker, victim, key = _planted(with_guest=with_guest)
    response = victim.post("/guest/", {"nickname": "Vera", "next": f"/t/{table.code}/", "join": table.code})
    assert response.status_code == 302
    victim_player = Player.objects.get(pk=victim.session["player_id"])
    assert victim_player.nickname == "Vera"
    assert table.seats.filter(player=victim_player).exists()
    _assert_planted_key_is_dead(attacker, victim, key)
    # The game starts: the victim sees their role, the attacker's browser does not.
    start(table, host)
    assert ROLE in victim.get(f"/t/{table.code}/").content.decode()
    assert ROLE not in attacker.get(f"/t/{table.code}/").content.decode()


def test_signing_up_gives_a_new_session_key():
    attacker, victim, key = _planted(with_guest=True)
    response = victim.post("/signup/", {"username": "vera", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert victim.session["_auth_user_id"] == str(User.objects.get(username="vera").pk)
    _assert_planted_key_is_dead(attacker, victim, key)


@pytest.mark.parametrize("with_guest", [True, False], ids=["planted-guest", "planted-empty-session"])
def test_logging_in_gives_a_new_session_key(with_guest):
    User.objects.create_user("vera", password=PASSWORD)
    attacker, victim, key = _planted(with_guest=with_guest)
    response = victim.post("/login/", {"username": "vera", "password": PASSWORD})
    assert response.status_code == 302
    assert victim.session.get("_auth_user_id")
    _assert_planted_key_is_dead(attacker, victim, key)


def _link_path(response) -> str:
    url = re.search(r'data-test="seat-link">(http[^<]+)<', response.content.decode()).group(1)
    return "/" + url.split("/", 3)[3]


def test_claiming_a_seat_link_gives_a_new_session_key():
    host = Guest("Host")
    table = _table_of(host)
    people = [host] + [Guest(f"P{i}") for i in range(4)]
    for person in people[1:]:
        person.post(f"/t/{table.code}/join/")
    start(table, host)
    asked = people[2].post(f"/t/{table.code}/move-me/")
    assert asked.status_code == 200
    attacker, victim, key = _planted(with_guest=False)
    assert victim.get(_link_path(asked)).status_code == 302
    assert ROLE in victim.get(f"/t/{table.code}/").content.decode()
    _assert_planted_key_is_dead(attacker, victim, key)
    assert ROLE not in attacker.get(f"/t/{table.code}/").content.decode()


@pytest.mark.parametrize("with_guest", [True, False], ids=["planted-guest", "planted-empty-session"])
def test_claiming_a_host_link_gives_a_new_session_key(with_guest):
    host = Guest("Host")
    table = _table_of(host)
    host.post(f"/t/{table.code}/host/link/")
    table.refresh_from_db()
    attacker, victim, key = _planted(with_guest=with_guest)
    assert victim.get(f"/h/{table.host_link}/").status_code == 302
    table.refresh_from_db()
    assert table.host_id == victim.session["player_id"]
    _assert_planted_key_is_dead(attacker, victim, key)
    assert attacker.post(f"/t/{table.code}/host/start/").status_code == 403
