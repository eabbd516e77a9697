"""Abuse: guessing table codes, hammering log-in, sign-up and table creation, names that lie, bad form values."""

from __future__ import annotations

from types import SimpleNamespace

import django_ratelimit.core
import pytest
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from lobby.models import Player, Table
from lobby.services import LobbyError, clean_nickname
from tests.conftest import Guest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_limits(settings, monkeypatch):
    """Each test starts with no attempts counted (every test client is 127.0.0.1).

    The limiter's clock stands still, so that no test straddles the end of a counting window.
    """
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # sign-ups, fast
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))
    cache.clear()
    yield
    cache.clear()


def _text(response) -> str:
    return response.content.decode()


# ----- table codes -------------------------------------------------------------------------

def test_twenty_unknown_codes_a_minute_then_429_even_for_a_right_code(table_with, settings):
    assert settings.RATELIMITS["code_miss"] == "20/m"
    table, _ = table_with(1)
    guesser = Client()
    for i in range(20):
        assert guesser.get("/find/", {"code": f"QQQ{i:02d}"}).status_code == 302
    response = guesser.get("/find/", {"code": "QQQZZ"})
    assert response.status_code == 429
    assert "Too many unknown table codes" in _text(response)
    # Once over the limit a right guess is refused too, or the answers would still tell.
    assert guesser.get("/find/", {"code": table.code}).status_code == 429
    # Another phone on the Wi-Fi has its own address and its own count.
    other = Client(REMOTE_ADDR="192.168.1.23")
    assert other.get("/find/", {"code": table.code})["Location"] == f"/t/{table.code}/"


def test_known_codes_are_not_counted(table_with):
    table, _ = table_with(1)
    person = Client()
    for _ in range(40):
        assert person.get("/find/", {"code": table.code}).status_code == 302


def test_unknown_join_codes_given_with_a_name_count_and_a_limited_one_creates_nobody(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "3/m"}
    for i in range(3):
        response = Client().post("/guest/", {"nickname": f"G{i}", "next": "/", "join": f"ZZZ{i}Z"})
        assert response.status_code == 302
    before = Player.objects.count()
    response = Client().post("/guest/", {"nickname": "G4", "next": "/", "join": "ZZZ9Z"})
    assert response.status_code == 429
    assert Player.objects.count() == before
    # A name without a code is not a guess.
    assert Client().post("/guest/", {"nickname": "G5", "next": "/"}).status_code == 302


# ----- log-in, sign-up, creating tables ------------------------------------------------------

def test_log_in_is_limited_to_ten_a_minute_per_address(db):
    User.objects.create_user("amy", password="a-long-Passw0rd!")
    phone = Client()
    for i in range(10):
        response = phone.post("/login/", {"username": f"nobody{i}", "password": "wrong"})
        assert response.status_code == 200
    response = phone.post("/login/", {"username": "amy", "password": "a-long-Passw0rd!"})
    assert response.status_code == 429
    assert "Too many log-in attempts" in _text(response)
    assert "_auth_user_id" not in phone.session
    assert Client(REMOTE_ADDR="10.0.0.7").post(
        "/login/", {"username": "amy", "password": "a-long-Passw0rd!"}
    ).status_code == 302


LOGIN = {"username": "bob", "password": "a-long-Passw0rd!"}


def test_log_in_is_limited_to_five_a_minute_per_address_and_username(db, settings):
    assert settings.RATELIMITS["login_pair"] == "5/m"
    User.objects.create_user("bob", password=LOGIN["password"])
    phone = Client(REMOTE_ADDR="10.0.1.1")
    for i in range(5):  # case changes count as one name
        assert phone.post("/login/", {"username": "Bob" if i % 2 else "bob", "password": "x"}).status_code == 200
    response = phone.post("/login/", LOGIN)
    assert response.status_code == 429
    assert "Too many log-in attempts" in _text(response)
    assert "_auth_user_id" not in phone.session


def test_wrong_passwords_from_one_address_do_not_lock_the_account_for_another(db):
    """Before: five wrong passwords at a username from anywhere refused its owner's right one from everywhere."""
    User.objects.create_user("bob", password=LOGIN["password"])
    stranger = Client(REMOTE_ADDR="10.0.1.66")
    for _ in range(8):
        stranger.post("/login/", {"username": "bob", "password": "guess"})
    assert stranger.post("/login/", LOGIN).status_code == 429  # the failing address waits
    owner = Client(REMOTE_ADDR="10.0.1.2")
    assert owner.post("/login/", LOGIN).status_code == 302
    assert owner.session["_auth_user_id"] == str(User.objects.get(username="bob").pk)


def test_a_full_width_username_counts_as_the_same_username(db):
    """Django's log-in reads "ｂｏｂ" as "bob" (NFKC); before, the limit counted it as another name."""
    User.objects.create_user("bob", password=LOGIN["password"])
    # The same account, as authentication normalises the name.
    assert Client(REMOTE_ADDR="10.0.2.9").post(
        "/login/", {"username": "\uff42\uff4f\uff42", "password": LOGIN["password"]}).status_code == 302
    phone = Client(REMOTE_ADDR="10.0.2.1")
    for name in ("bob", "\uff42\uff4f\uff42", "\uff22\uff4f\uff42", "bob ", "\uff42ob"):
        assert phone.post("/login/", {"username": name, "password": "x"}).status_code == 200
    assert phone.post("/login/", {"username": "\uff42\uff4f\uff42", "password": LOGIN["password"]}).status_code == 429
    assert phone.post("/login/", LOGIN).status_code == 429


def test_the_global_brake_slows_many_addresses_but_never_one_that_has_not_tried(db, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "login_user": "6/h"}
    User.objects.create_user("bob", password=LOGIN["password"])
    guessers = [Client(REMOTE_ADDR=f"10.0.3.{i}") for i in range(1, 5)]
    for guesser in guessers:  # 8 tries at bob from 4 addresses: over 6 an hour
        for _ in range(2):
            guesser.post("/login/", {"username": "bob", "password": "guess"})
    # Each of them has tried bob already: held back, though under its own 5 a minute.
    assert all(g.post("/login/", {"username": "bob", "password": "guess"}).status_code == 429 for g in guessers)
    assert guessers[0].post("/login/", LOGIN).status_code == 429
    # The owner's phone has not tried: it logs in, brake or not.
    owner = Client(REMOTE_ADDR="10.0.3.200")
    assert owner.post("/login/", LOGIN).status_code == 302
    # Other usernames are not braked.
    User.objects.create_user("amy", password=LOGIN["password"])
    assert Client(REMOTE_ADDR="10.0.3.201").post(
        "/login/", {"username": "amy", "password": LOGIN["password"]}).status_code == 302


def test_wrong_deletion_passwords_count_as_log_in_tries_of_that_address_only(db):
    User.objects.create_user("bob", password=LOGIN["password"])
    phone = Client(REMOTE_ADDR="10.0.4.1")
    assert phone.post("/login/", LOGIN).status_code == 302
    for _ in range(4):
        assert phone.post("/account/delete/", {"password": "wrong"}).status_code == 400
    response = phone.post("/account/delete/", {"password": "wrong"})
    assert response.status_code == 429
    assert User.objects.filter(username="bob").exists()
    # Another address still logs in as bob.
    assert Client(REMOTE_ADDR="10.0.4.2").post("/login/", LOGIN).status_code == 302


ADMIN = {"username": "root", "password": "a-long-Passw0rd!"}


@pytest.fixture
def admin_user(db) -> User:
    return User.objects.create_superuser(ADMIN["username"], password=ADMIN["password"])


@pytest.fixture
def checked_passwords(monkeypatch) -> list[str]:
    """The usernames whose passwords the log-in backend checked, in order."""
    checked: list[str] = []
    authenticate = ModelBackend.authenticate

    def counted(self, request, username=None, password=None, **kwargs):
        checked.append(username)
        return authenticate(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", counted)
    return checked


def _wrong_passwords(address: str, path: str, count: int, *, usernames=("root",)) -> Client:
    """A browser at ``address`` that tried ``count`` wrong passwords at ``path`` (each answered with the form)."""
    browser = Client(REMOTE_ADDR=address)
    for i in range(count):
        username = usernames[i % len(usernames)]
        assert browser.post(path, {"username": username, "password": "guess"}).status_code == 200
    return browser


def test_the_admin_log_in_is_limited_and_over_it_not_even_the_right_password_is_checked(admin_user, checked_passwords):
    """Before: 30 wrong passwords at /admin/login/ were 30 answers of 200."""
    laptop = _wrong_passwords("10.0.5.1", "/admin/login/", 5)
    assert len(checked_passwords) == 5
    response = laptop.post("/admin/login/", ADMIN)
    assert response.status_code == 429
    assert "Too many log-in attempts" in _text(response)
    assert '<main><section class="panel">' in _text(response)  # the app's own page, as for every limit
    assert len(checked_passwords) == 5  # refused before the password was checked
    assert "_auth_user_id" not in laptop.session
    assert laptop.get("/admin/").status_code == 302  # still to the log-in


def test_the_admin_log_in_under_the_limit_still_logs_in(admin_user):
    laptop = _wrong_passwords("10.0.5.2", "/admin/login/", 3)
    assert laptop.get("/admin/login/").status_code == 200
    response = laptop.post("/admin/login/?next=/admin/", ADMIN)
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert laptop.get("/admin/").status_code == 200


def test_the_admin_log_in_and_the_players_log_in_count_together(admin_user):
    """One set of counters for both doors: tries at /login/ hold back /admin/login/ from that address, and back."""
    laptop = _wrong_passwords("10.0.5.3", "/login/", 5)
    assert laptop.post("/admin/login/", ADMIN).status_code == 429
    phone = _wrong_passwords("10.0.5.4", "/admin/login/", 10, usernames=[f"nobody{i}" for i in range(10)])
    assert phone.post("/login/", ADMIN).status_code == 429
    # Another address is not held back.
    assert Client(REMOTE_ADDR="10.0.5.5").post("/admin/login/", ADMIN).status_code == 302


def test_a_limited_admin_log_in_is_refused_in_the_browsers_language(db, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "login_ip": "1/m"}
    laptop = Client(REMOTE_ADDR="10.0.5.6", HTTP_ACCEPT_LANGUAGE="fa")
    laptop.post("/admin/login/", {"username": "root", "password": "guess"})
    response = laptop.post("/admin/login/", {"username": "root", "password": "guess"})
    assert response.status_code == 429
    with translation.override("fa"):
        assert translation.gettext("Too many log-in attempts. Wait a minute, then try again.") in _text(response)
    assert 'dir="rtl"' in _text(response)


def test_sign_up_is_limited_to_twenty_attempts_an_hour_per_address(db, settings):
    assert settings.RATELIMITS["signup"] == "20/h"
    for i in range(20):  # every attempt counts, a typo too
        response = Client().post("/signup/", {"username": f"user{i}", "password1": "a-long-Passw0rd!",
                                              "password2": "a-long-Passw0rd!" if i % 2 else "typo"})
        assert response.status_code == (302 if i % 2 else 400)
    response = Client().post("/signup/", {"username": "user20", "password1": "a-long-Passw0rd!",
                                          "password2": "a-long-Passw0rd!"})
    assert response.status_code == 429
    assert not User.objects.filter(username="user20").exists()
    assert Client().get("/signup/").status_code == 200  # only attempts count, not the page


def test_table_creation_is_limited_to_thirty_an_hour_per_address(db, settings):
    assert settings.RATELIMITS["table_create"] == "30/h"
    host = Guest("Host")
    for _ in range(30):
        assert host.post("/new/", {"engine": "coup", "timer": "0"}).status_code == 302
    response = host.post("/new/", {"engine": "coup", "timer": "0"})
    assert response.status_code == 429
    assert "Too many new tables" in _text(response)
    assert Table.objects.count() == 30
    assert host.get("/new/").status_code == 200


def test_limits_can_be_switched_off(db, settings):
    settings.RATELIMIT_ENABLE = False
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "1/m"}
    for _ in range(3):
        assert Client().get("/find/", {"code": "QQQQQ"}).status_code == 302


# ----- names -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "name",
    [
        "\u202eevil",  # right-to-left override
        "Ann\u2066a",  # left-to-right isolate
        "\u200fNoor",  # right-to-left mark
        "Bo\u061c",  # Arabic letter mark
        "\u200b\u200b",  # zero-width spaces only
        "\u200d",  # a zero-width joiner alone
        "\u2800\u2800",  # blank Braille patterns
        "\u3164",  # Hangul filler
        "\u0301\u0301",  # combining marks alone
        "a\x07b",  # a control character
        "\x00",
        "Bot 1 \U0001f916",  # a bot's name as the board shows it
        "\U0001f916",
        "Ro\U0001f916b",
    ],
)
def test_names_that_lie_are_refused(name):
    with pytest.raises(LobbyError):
        clean_nickname(name)


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("  Sara   Ali ", "Sara Ali"),
        ("می\u200cخواهم", "می\u200cخواهم"),  # Persian: the zero-width non-joiner belongs in words
        ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),  # emoji ZWJ
        ("さくら", "さくら"),
        ("<script>", "<script>"),  # escaped where shown, not refused
    ],
)
def test_ordinary_names_are_kept(name, kept):
    assert clean_nickname(name) == kept


def test_a_refused_name_creates_nobody_and_renames_nobody(db):
    client = Client()
    response = client.post("/guest/", {"nickname": "Bot 2 \U0001f916", "next": "/"}, follow=True)
    assert "marks bots" in _text(response)
    assert not Player.objects.exists()
    guest = Guest("Dana")
    response = guest.post("/guest/", {"nickname": "\u202eanaD", "next": "/"}, follow=True)
    assert "text-direction" in _text(response)
    guest.player.refresh_from_db()
    assert guest.player.nickname == "Dana"


# ----- bad create and settings values --------------------------------------------------------

@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"engine": "chess"}, "Unknown game."),
        ({"engine": "coup", "opt-coup-rounds_to_win": "three"}, "Rounds to win the match"),
        ({"engine": "coup", "opt-coup-rounds_to_win": "0"}, "Rounds to win the match: a whole number from 1 to 9"),
        ({"engine": "coup", "opt-coup-two_player_start": "lots"}, "Two-player starting coins"),
        ({"engine": "coup", "opt-coup-first_player": "0"}, "First player"),
        ({"engine": "coup", "opt-coup-first_player": "one"}, "First player"),
        ({"engine": "coup", "opt-coup-inquisitor": "maybe"}, "Inquisitor replaces the Ambassador"),
        ({"engine": "good_cop_bad_cop_health", "opt-good_cop_bad_cop_health-deck-vest": "x"},
         "Equipment deck: Bulletproof vest"),
        ({"engine": "good_cop_bad_cop_health", "opt-good_cop_bad_cop_health-deck-vest": "99"}, "Equipment deck"),
        ({"engine": "coup", "timer": "soon"}, "Response timer"),
    ],
)
def test_a_bad_create_value_is_an_error_naming_it_not_a_default(data, said):
    host = Guest("Host")
    response = host.post("/new/", {"timer": "0", **data})
    assert response.status_code == 400
    assert said in _text(response)
    assert not Table.objects.exists()


def test_missing_create_fields_still_mean_the_defaults(db):
    host = Guest("Host")
    assert host.post("/new/", {"engine": "coup", "opt-coup-factions": "on"}).status_code == 302
    table = Table.objects.get()
    assert table.timer_seconds == 0
    assert table.options["factions"] is True and table.options["inquisitor"] is False
    assert table.options["rounds_to_win"] == 1 and table.options["first_player"] is None


def test_a_bad_settings_value_is_a_message_and_changes_nothing(table_with):
    table, people = table_with(2, engine="coup", timer=10)
    host = people[0]
    for data, said in [
        ({"engine": "coup", "timer": "ten"}, "Response timer"),
        ({"engine": "coup", "timer": "10", "opt-coup-rounds_to_win": "-1"}, "Rounds to win the match"),
        ({"engine": "chess", "timer": "10"}, "Unknown game."),
    ]:
        response = host.post(f"/t/{table.code}/settings/", data)
        assert response.status_code == 302
        assert said in _text(host.get(response["Location"]))
        table.refresh_from_db()
        assert (table.engine, table.timer_seconds, table.options["rounds_to_win"]) == ("coup", 10, 1)


def test_every_route_with_a_code_counts_unknown_codes(client, settings):
    """Phone, board, revision poll and QR answer 404 for unknown codes, then 429 for everyone."""
    settings.RATELIMITS = {**settings.RATELIMITS, "code_miss": "4/m"}
    answers = [client.get(path).status_code for path in
               ("/t/ZZZZ2/", "/t/ZZZZ3/board/", "/t/ZZZZ4/rev/", "/t/ZZZZ5/qr.svg", "/t/ZZZZ6/", "/t/ZZZZ7/rev/")]
    assert answers[:4] == [404] * 4
    assert answers[4:] == [429, 429]
