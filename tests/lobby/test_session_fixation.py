"""Session fixation: a session id planted in a victim's browser is worth nothing once the victim becomes a player.

The attack: the attacker opens the site, gets a session id (and perhaps a guest of their own), and
plants that id in the victim's browser (a shared tablet, a cookie set through a sibling host). If
the victim then sits down, signs up, logs in, opens a seat link or a host link in that session, and
the session keeps its id, the attacker's browser is the victim's player: it sees the victim's hand
and moves for them. So every way of becoming a player gives the browser a new session key, and the
planted one no longer exists.

A planted *logged-in* session is another matter: a new key does not help, since its planter still
has the password, so a seat or a host role taken under that account is the planter's. So a page that
would sit down or host under an account names it, its button names it, and only that POST (naming the
player it was drawn for) acts; "Not you?" logs out and comes back as a guest (``lobby.signin``).
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.test import Client
from django.utils import translation

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


def _host_link() -> tuple[Table, str]:
    """A table (its host a guest) and the path of its live host link."""
    host = Guest("Host")
    table = _table_of(host)
    host.post(f"/t/{table.code}/host/link/")
    table.refresh_from_db()
    return table, f"/h/{table.host_link}/"


@pytest.mark.parametrize("with_guest", [True, False], ids=["planted-guest", "planted-empty-session"])
def test_claiming_a_host_link_gives_a_new_session_key(with_guest):
    table, link = _host_link()
    attacker, victim, key = _planted(with_guest=with_guest)
    assert victim.get(link).status_code == 302
    table.refresh_from_db()
    assert table.host_id == victim.session["player_id"]
    _assert_planted_key_is_dead(attacker, victim, key)
    assert attacker.post(f"/t/{table.code}/host/start/").status_code == 403


# ----- a planted logged-in session: the account is named and asked before it is used ------------------

def _planted_account() -> tuple[Client, Client, Player]:
    """(Mallory's browser, Vera's browser carrying Mallory's logged-in session, Mallory's player)."""
    User.objects.create_user("mallory", password=PASSWORD)
    mallory = Client()
    assert mallory.post("/login/", {"username": "mallory", "password": PASSWORD}).status_code == 302
    vera = Client()
    vera.cookies[settings.SESSION_COOKIE_NAME] = mallory.cookies[settings.SESSION_COOKIE_NAME].value
    return mallory, vera, Player.objects.get(user__username="mallory")


def test_the_table_page_names_the_account_a_browser_would_sit_down_as():
    _, vera, _ = _planted_account()
    table = _table_of(Guest("Host"))
    html = vera.get(f"/t/{table.code}/").content.decode()
    assert "You are logged in as <strong>mallory</strong>." in html
    assert 'data-test="join">Sit down as mallory</button>' in html
    assert 'data-test="sign-out">Not you? Log out and go on as a guest</button>' in html
    assert f'<input type="hidden" name="next" value="/t/{table.code}/">' in html
    assert "Take a seat" not in html


def test_an_account_sits_down_only_from_the_form_that_named_it():
    _, vera, mallory = _planted_account()
    table = _table_of(Guest("Host"))
    # A post that does not name the account (a page drawn before the browser changed hands, a script) sits nobody.
    response = vera.post(f"/t/{table.code}/join/", follow=True)
    assert "Check whose account this browser is logged in to" in response.content.decode()
    assert "Sit down as mallory" in response.content.decode()  # asked again, on the table's page
    other = Guest("Other").player
    assert vera.post(f"/t/{table.code}/join/", {"as": str(other.pk)}).status_code == 302
    assert vera.post(f"/t/{table.code}/join/", {"as": "junk"}).status_code == 302
    assert not table.seats.filter(player=mallory).exists()
    # The button that named the account sits it down.
    assert vera.post(f"/t/{table.code}/join/", {"as": str(mallory.pk)}).status_code == 302
    assert table.seats.filter(player=mallory).exists()
    assert "Sit down as" not in vera.get(f"/t/{table.code}/").content.decode()  # seated: nothing more to ask


def test_a_name_form_drawn_before_the_account_was_planted_does_not_sit_the_account_down():
    table = _table_of(Guest("Host"))
    _, vera, mallory = _planted_account()
    sit_down = {"nickname": "Vera", "next": f"/t/{table.code}/", "join": table.code}
    response = vera.post("/guest/", sit_down)
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/"
    assert not table.seats.filter(player=mallory).exists()
    mallory.refresh_from_db()
    assert mallory.nickname == "mallory"
    html = vera.get(f"/t/{table.code}/").content.decode()
    assert "Check whose account this browser is logged in to" in html and "Sit down as mallory" in html


def test_a_guest_still_takes_a_seat_but_never_as_another_player():
    table = _table_of(Guest("Host"))
    phone = Guest("Noor")
    other = Guest("Other").player
    assert f'name="as" value="{phone.player.pk}"' in phone.get(f"/t/{table.code}/").content.decode()
    phone.post(f"/t/{table.code}/join/", {"as": str(other.pk)})
    assert not table.seats.filter(player=phone.player).exists()
    assert phone.post(f"/t/{table.code}/join/", {"as": str(phone.player.pk)}).status_code == 302
    assert table.seats.filter(player=phone.player).exists()


def test_not_you_logs_the_planted_account_out_and_offers_a_guest_seat():
    mallory_browser, vera, mallory = _planted_account()
    table = _table_of(Guest("Host"))
    planted = vera.cookies[settings.SESSION_COOKIE_NAME].value
    response = vera.post("/logout/", {"next": f"/t/{table.code}/"})
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/"
    html = vera.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="nickname"' in html and "mallory" not in html
    sit_down = {"nickname": "Vera", "next": f"/t/{table.code}/", "join": table.code}
    assert vera.post("/guest/", sit_down).status_code == 302
    assert table.seats.filter(player__nickname="Vera").exists()
    assert not table.seats.filter(player=mallory).exists()
    # The planted session is gone for Mallory's browser too.
    assert not DBStore().exists(planted)
    assert "_auth_user_id" not in mallory_browser.session


def test_a_host_link_opened_while_logged_in_asks_first_and_only_the_post_naming_the_account_hosts():
    _, vera, mallory = _planted_account()
    table, link = _host_link()
    key = vera.cookies[settings.SESSION_COOKIE_NAME].value
    response = vera.get(link)
    assert response.status_code == 200
    html = response.content.decode()
    assert "You are logged in as <strong>mallory</strong>." in html
    assert 'data-test="host-as">Host as mallory</button>' in html
    assert f'action="{link}"' in html and f'name="next" value="{link}"' in html
    assert 'data-test="sign-out"' in html
    # GET changed nothing: the same host, the link still live, the same session key.
    fresh = Table.objects.get(pk=table.pk)
    assert (fresh.host_id, fresh.host_link) == (table.host_id, table.host_link)
    assert vera.cookies[settings.SESSION_COOKIE_NAME].value == key
    # A post that does not name the account is asked again (409) and changes nothing either.
    assert vera.post(link).status_code == 409
    assert vera.post(link, {"as": "0"}).status_code == 409
    assert Table.objects.get(pk=table.pk).host_id == table.host_id
    # The button that named it hosts, with a new session key.
    response = vera.post(link, {"as": str(mallory.pk)})
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/board/"
    fresh = Table.objects.get(pk=table.pk)
    assert fresh.host_id == mallory.pk and fresh.host_link == ""
    assert vera.cookies[settings.SESSION_COOKIE_NAME].value != key


def test_not_you_on_a_host_link_hosts_as_a_guest_instead():
    _, vera, mallory = _planted_account()
    table, link = _host_link()
    response = vera.post("/logout/", {"next": link})
    assert response["Location"] == link
    assert vera.get(link).status_code == 302
    fresh = Table.objects.get(pk=table.pk)
    assert fresh.host_id != mallory.pk and fresh.host.nickname == "Moderator" and fresh.host.user_id is None


@pytest.mark.parametrize("lang", ["fa", "ja"])
def test_the_account_is_named_and_asked_in_the_browsers_language(lang):
    _, vera, _ = _planted_account()
    table, link = _host_link()
    messages = ("Host this table from here?", "Host as %(name)s", "Sit down as %(name)s",
                "You are logged in as <strong>%(name)s</strong>.", "Not you? Log out and go on as a guest")
    with translation.override(lang):
        words = [translation.gettext(message) for message in messages]
    assert all(word != message for word, message in zip(words, messages, strict=True))
    hosting = vera.get(link, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    sitting = vera.get(f"/t/{table.code}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert words[0] in hosting and words[1] % {"name": "mallory"} in hosting
    assert words[2] % {"name": "mallory"} in sitting
    assert words[3] % {"name": "mallory"} in sitting and words[4] in sitting
