"""Your data: the account page with the downloads, and deleting the account.

Deleting needs the password in a POST (with the CSRF token); a wrong one changes nothing. Then
the user is gone (no log-in), the player is nameless and in no group, every session signed in to
it ends, and the games stay in the other players' history, game pages, replays, group pages and
stats under the neutral name "Deleted player", never the old nickname. Refused while the player
sits in a running game.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from community.stats import group_records, player_stats
from gameplay.models import Game, GameSeat
from lobby.models import Group, Membership, Player, Seat
from tests.community.test_stats_figures import COUP_TOTALS, PASSWORD, build_figured
from tests.conftest import start

pytestmark = pytest.mark.django_db
NEUTRAL = "Deleted player"


@pytest.fixture
def figured(db):
    return build_figured()


def _logged_in(username: str, **kwargs) -> Client:
    client = Client(**kwargs)
    assert client.login(username=username, password=PASSWORD)
    return client


def _named(html: str, name: str) -> bool:
    return re.search(rf"\b{name}\b", html) is not None


def test_the_account_page_needs_a_log_in_and_links_the_downloads_which_work(figured, client):
    assert client.get("/account/").status_code == 302
    assert client.get("/account/delete/").status_code == 302
    client.login(username="ann", password=PASSWORD)
    html = client.get("/account/").content.decode()
    assert 'data-test="your-data"' in html and "/stats/my-games.json" in html and "/stats/my-games.csv" in html
    assert 'href="/account/delete/"' in html
    assert 'data-test="account-link"' in client.get("/history/").content.decode()  # the header links it
    rows = json.loads(client.get("/stats/my-games.json").content)
    assert len(rows) == 4 and rows[0]["names"] == ["Ann", "Ben", "Cat"]
    csv_response = client.get("/stats/my-games.csv")
    assert csv_response.status_code == 200 and "attachment" in csv_response["Content-Disposition"]
    page = client.get("/account/delete/")
    assert page.status_code == 200 and 'name="password"' in page.content.decode()


def test_a_wrong_password_changes_nothing(figured, client):
    group, (ann, *_), _games = figured
    client.login(username="ann", password=PASSWORD)
    response = client.post("/account/delete/", {"password": "not-my-password"})
    assert response.status_code == 400
    assert "That is not your password" in response.content.decode()
    ann.refresh_from_db()
    assert ann.nickname == "Ann" and not ann.deleted and ann.user_id is not None
    assert User.objects.filter(username="ann").exists()
    assert Membership.objects.filter(group=group, player=ann).exists()
    assert client.get("/stats/").status_code == 200  # still logged in
    assert Client().login(username="ann", password=PASSWORD)


def test_only_a_post_with_the_csrf_token_deletes(figured):
    _group, (ann, *_), _games = figured
    client = _logged_in("ann")
    assert client.get("/account/delete/", {"password": PASSWORD}).status_code == 200  # a GET only asks
    assert client.put("/account/delete/", {"password": PASSWORD}).status_code == 405
    assert client.delete("/account/delete/").status_code == 405
    strict = _logged_in("ann", enforce_csrf_checks=True)
    assert strict.post("/account/delete/", {"password": PASSWORD}).status_code == 403  # no CSRF token
    ann.refresh_from_db()
    assert not ann.deleted and User.objects.filter(username="ann").exists()


def test_the_right_password_deletes_the_account_and_the_games_stay_under_a_neutral_name(figured):
    group, (ann, ben, cat, dan, eve), games = figured
    before = {p.pk: player_stats(group_records(group, figures=True), p.pk).figures for p in (ben, cat)}
    other_phone = _logged_in("ann")
    assert other_phone.get("/stats/").status_code == 200
    client = _logged_in("ann", enforce_csrf_checks=True)
    page = client.get("/account/delete/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post("/account/delete/", {"password": PASSWORD, "csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response["Location"] == "/"
    # The user is gone: nobody logs in with it, and neither browser is signed in any more.
    assert not User.objects.filter(username="ann").exists()
    assert not Client().login(username="ann", password=PASSWORD)
    assert Client().post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 200  # the form again
    assert client.get("/stats/").status_code == 302
    assert other_phone.get("/stats/").status_code == 302
    assert other_phone.get("/stats/my-games.json").status_code == 302
    # The player stays, nameless, in no group; the group passed to its longest-standing member.
    ann.refresh_from_db()
    assert ann.deleted and ann.nickname == "" and ann.user_id is None
    assert not Membership.objects.filter(player=ann).exists()
    group.refresh_from_db()
    assert group.created_by_id == ben.pk
    assert set(GameSeat.objects.filter(player=ann).values_list("name", flat=True)) == {""}
    assert GameSeat.objects.filter(player=ann).count() == 4  # the games keep the seat
    # Other players' history, game pages and replays show the neutral name, never the old one.
    ben_client = _logged_in("ben")
    history = ben_client.get("/history/").content.decode()
    assert NEUTRAL in history and not _named(history, "Ann")
    detail = ben_client.get(f"/g/{games[0].pk}/").content.decode()
    assert NEUTRAL in detail and not _named(detail, "Ann")
    step = ben_client.get(f"/g/{games[0].pk}/", {"step": 3}, HTTP_HX_REQUEST="true").content.decode()
    assert NEUTRAL in step and not _named(step, "Ann")
    # The group: no longer a member, off the leaderboards; its recent games name the neutral name.
    html = ben_client.get(f"/groups/{group.pk}/").content.decode()
    assert NEUTRAL in html and not _named(html, "Ann")
    assert ben_client.get(f"/groups/{group.pk}/players/{ann.pk}/").status_code == 404
    ben_page = ben_client.get(f"/groups/{group.pk}/players/{ben.pk}/").content.decode()
    assert not _named(ben_page, "Ann")
    records = group_records(group, figures=True)
    assert records[0].names == (NEUTRAL, "Ben", "Cat")
    # Everyone else's figures are what they were: the games are the same games.
    assert {p.pk: player_stats(records, p.pk).figures for p in (ben, cat)} == before
    assert player_stats(records, ben.pk).figures["coup"] == COUP_TOTALS["Ben"]
    out = StringIO()
    call_command("stats_rebuild", stdout=out)
    assert "Ben coup:" in out.getvalue() and not _named(out.getvalue(), "Ann")


def _signed_up(person, username):
    response = person.post("/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    person.player.refresh_from_db()
    return person


def test_deletion_waits_while_the_player_sits_in_a_running_game_then_leaves_the_table(table_with):
    table, people = table_with(5)
    seated = _signed_up(people[2], "seated")
    game = start(table, people[0])
    response = seated.post("/account/delete/", {"password": PASSWORD})
    assert response.status_code == 409
    assert f"You are playing a game at table {table.code}" in response.content.decode()
    assert User.objects.filter(username="seated").exists()
    assert 'data-test="refusal"' in seated.get("/account/").content.decode()
    # Once the game is over, the account goes and its seat at the table too.
    assert people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.ENDED
    assert seated.post("/account/delete/", {"password": PASSWORD}).status_code == 302
    player = Player.objects.get(pk=seated.player.pk)
    assert player.deleted and not Seat.objects.filter(player=player).exists()
    assert list(table.seats.values_list("position", flat=True)) == [0, 1, 2, 3]
    html = people[0].get(f"/g/{game.pk}/").content.decode()
    assert NEUTRAL in html and not _named(html, "P3")


def test_a_host_who_deletes_between_games_passes_the_table_on(table_with):
    table, people = table_with(5)
    host = _signed_up(people[0], "host")
    game = start(table, people[0])
    assert host.post(f"/t/{table.code}/host/end/", {"confirm": "yes"}).status_code == 302
    ended = people[1].get(f"/g/{game.pk}/").content.decode()
    assert f"{host.player.nickname} ended this game early" in ended
    assert host.post("/account/delete/", {"password": PASSWORD}).status_code == 302
    # The end screen of the game they ended early no longer names them.
    ended = people[1].get(f"/g/{game.pk}/").content.decode()
    assert "The host ended this game early." in ended and not _named(ended, host.player.nickname)
    table.refresh_from_db()
    assert table.host_id == people[1].player.pk
    assert [s.player_id for s in table.seats.all()] == [p.player.pk for p in people[1:]]


def test_a_group_whose_only_member_deletes_the_account_goes(db, client):
    user = User.objects.create_user("solo", password=PASSWORD)
    solo = Player.objects.create(nickname="Solo", user=user)
    group = Group.objects.create(name="Alone", created_by=solo)
    Membership.objects.create(group=group, player=solo)
    client.login(username="solo", password=PASSWORD)
    assert client.post("/account/delete/", {"password": PASSWORD}).status_code == 302
    assert not Group.objects.filter(pk=group.pk).exists()
