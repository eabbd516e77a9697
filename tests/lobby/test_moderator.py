"""The moderator's tablet, lobby side: a host without a seat, controls on the board, the host role changing hands."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from lobby.models import Seat, Table

pytestmark = pytest.mark.django_db


def moderated_table(guests, players: int = 0, engine: str = "inside_job", timer: int = 0):
    """A tablet (guest "Mod") creates a moderated table; ``players`` phones join it."""
    (tablet,) = guests(1, prefix="Mod")
    response = tablet.post("/new/", {"engine": engine, "timer": str(timer), "role": "moderate"})
    table = Table.objects.get(host=tablet.player)
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/board/"
    phones = guests(players)
    for phone in phones:
        assert phone.post(f"/t/{table.code}/join/").status_code == 302
    return table, tablet, phones


def controls(html: str) -> bool:
    return 'data-test="controls"' in html


def test_a_moderated_table_has_a_host_without_a_seat_and_its_board_shows_code_qr_seats_and_controls(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    assert not Seat.objects.filter(table=table, player=tablet.player).exists()
    assert list(table.seats.values_list("player__nickname", flat=True)) == ["P1", "P2", "P3", "P4", "P5"]
    html = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert f'data-test="table-code">{table.code}<' in html and "<svg" in html
    for name in ("P1", "P2", "P3", "P4", "P5"):
        assert f'<li class="seat">{name}</li>' in html  # the public seats, filling in live
    assert controls(html) and 'data-test="start"' in html and 'data-test="save-settings"' in html
    # The seats fill in live: the fragment refetches on every table change, as the public board does.
    assert 'id="moderator-view"' in html and f'hx-get="/t/{table.code}/board/controls/"' in html
    fragment = tablet.get(f"/t/{table.code}/board/controls/", HTTP_HX_REQUEST="true").content.decode()
    assert '<div id="moderator-view"' in fragment and 'id="public-view"' not in fragment
    assert fragment.count('data-test="seat-up"') == 5


def test_the_create_form_offers_playing_or_moderating(guests):
    (person,) = guests(1)
    html = person.get("/new/").content.decode()
    assert 'name="role" value="play" checked' in html and 'name="role" value="moderate"' in html
    # Playing is still the default: the host takes the first seat and lands on their phone page.
    response = person.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=person.player)
    assert response["Location"] == f"/t/{table.code}/"
    assert table.seats.get().player == person.player


def test_an_unknown_role_is_refused_with_a_message_and_makes_no_table(guests):
    (person,) = guests(1)
    response = person.post("/new/", {"engine": "inside_job", "timer": "0", "role": "referee"})
    assert response.status_code == 400
    assert "Choose whether you play or moderate." in response.content.decode()
    assert not Table.objects.exists()


def test_the_moderator_arranges_seats_adds_bots_and_changes_settings_from_the_board(guests):
    table, tablet, phones = moderated_table(guests, players=3)
    seats = list(table.seats.order_by("position"))
    board = f"/t/{table.code}/board/"
    response = tablet.post(f"/t/{table.code}/seat/down/", {"seat": seats[0].pk, "back": "board"})
    assert response.status_code == 302 and response["Location"] == board
    assert list(table.seats.values_list("player__nickname", flat=True)) == ["P2", "P1", "P3"]
    assert tablet.post(f"/t/{table.code}/seat/up/", {"seat": seats[0].pk, "back": "board"})["Location"] == board
    # A moderator has no seat of their own: every seat may be removed.
    assert tablet.post(f"/t/{table.code}/seat/remove/", {"seat": seats[0].pk, "back": "board"})["Location"] == board
    assert list(table.seats.values_list("player__nickname", flat=True)) == ["P2", "P3"]
    tablet.post(f"/t/{table.code}/seat/add-bot/", {"policy": "random", "back": "board"})
    assert table.seats.filter(bot="random").count() == 1
    response = tablet.post(f"/t/{table.code}/settings/", {"engine": "coup", "timer": "15", "back": "board"})
    assert response["Location"] == board
    table.refresh_from_db()
    assert table.engine == "coup" and table.timer_seconds == 15
    # A bad value is a message on the board and changes nothing.
    response = tablet.post(f"/t/{table.code}/settings/", {"engine": "chess", "timer": "15", "back": "board"},
                           follow=True)
    assert response.status_code == 200 and "Unknown game." in response.content.decode()
    table.refresh_from_db()
    assert table.engine == "coup"
    # Without back=board the same controls answer with the table page, as before.
    assert tablet.post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic"})["Location"] == f"/t/{table.code}/"


def test_anyone_else_opening_the_board_sees_no_controls_and_gets_403_on_every_control(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    seat = table.seats.first()
    for other in (phones[0], Client()):
        html = other.get(f"/t/{table.code}/board/").content.decode()
        assert not controls(html) and 'data-test="start"' not in html and "seat/up" not in html
        fragment = other.get(f"/t/{table.code}/board/controls/", HTTP_HX_REQUEST="true").content.decode()
        assert not controls(fragment) and "<form" not in fragment
        for path, data in [
            ("seat/up/", {"seat": seat.pk}), ("seat/down/", {"seat": seat.pk}), ("seat/remove/", {"seat": seat.pk}),
            ("seat/add-bot/", {"policy": "heuristic"}), ("settings/", {"engine": "coup", "timer": "0"}),
            ("host/start/", {}), ("host/again/", {}), ("host/pause/", {}), ("host/resume/", {}),
            ("host/end/", {"confirm": "yes"}), ("host/bot/", {"seat": "0"}), ("seat-link/", {"seat": "0"}),
            ("host/pass/", {"seat": seat.pk}), ("host/link/", {}),
        ]:
            response = other.post(f"/t/{table.code}/{path}", {**data, "back": "board"})
            assert response.status_code == 403, path
    table.refresh_from_db()
    assert table.host == tablet.player and table.engine == "inside_job" and table.seats.count() == 5
    assert not table.games.exists()


def test_bad_seat_values_on_the_board_are_400_or_a_message_never_a_500(guests):
    table, tablet, phones = moderated_table(guests, players=2)
    for value in ["x", "-1", "99999999999999999999", ""]:
        response = tablet.post(f"/t/{table.code}/host/pass/", {"seat": value, "back": "board"})
        assert response.status_code in (302, 400), value
    response = tablet.post(f"/t/{table.code}/host/pass/", {"seat": "424242", "back": "board"}, follow=True)
    assert "Only a person in a seat at this table can become the host." in response.content.decode()
    table.refresh_from_db()
    assert table.host == tablet.player


def test_the_moderator_hands_the_host_role_to_a_seated_player_and_the_board_says_so(guests):
    table, tablet, phones = moderated_table(guests, players=3)
    tablet.post(f"/t/{table.code}/seat/add-bot/", {"policy": "heuristic", "back": "board"})
    html = tablet.get(f"/t/{table.code}/board/").content.decode()
    menu = html.split('data-test="pass-to"')[1].split("</select>")[0]
    options = re.findall(r'<option value="(\d+)">([^<]+)</option>', menu)
    assert [name for _, name in options] == ["P1", "P2", "P3"]  # people only, never a bot
    bot = table.seats.get(bot="heuristic")
    tablet.post(f"/t/{table.code}/host/pass/", {"seat": bot.pk, "back": "board"})
    table.refresh_from_db()
    assert table.host == tablet.player and table.host_since is None
    revision = table.revision
    seat = table.seats.get(player=phones[1].player)
    response = tablet.post(f"/t/{table.code}/host/pass/", {"seat": seat.pk, "back": "board"})
    assert response["Location"] == f"/t/{table.code}/board/"
    table.refresh_from_db()
    assert table.host == phones[1].player and table.revision > revision
    # Exactly one host: the tablet's controls are gone, and its control URLs are 403 now.
    html = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert not controls(html) and 'data-test="host-note"' in html and "P2 is now the host." in html
    assert Client().get(f"/t/{table.code}/board/controls/").content.decode().count("P2 is now the host.") == 1
    assert tablet.post(f"/t/{table.code}/host/start/").status_code == 403
    assert 'data-test="start"' in phones[1].get(f"/t/{table.code}/").content.decode()


def test_a_playing_host_hands_the_role_to_a_tablet_with_a_one_time_link(guests):
    host, other = guests(2)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    other.post(f"/t/{table.code}/join/")
    assert 'data-test="host-link"' in host.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="host-link"' not in other.get(f"/t/{table.code}/").content.decode()
    page = host.post(f"/t/{table.code}/host/link/")
    assert page.status_code == 200 and "<svg" in page.content.decode()
    url = re.search(r'data-test="host-link-url">([^<]+)<', page.content.decode()).group(1)
    path = "/" + url.split("/", 3)[3]
    assert path.startswith("/h/")
    tablet = Client()  # a browser with no player yet: it becomes a guest that hosts
    response = tablet.get(path)
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/board/"
    table.refresh_from_db()
    assert table.host_id == tablet.session["player_id"] and table.host.nickname == "Moderator"
    # The old host keeps their seat and loses the controls; the board says who hosts now.
    assert table.seats.filter(player=host.player).exists()
    assert host.post(f"/t/{table.code}/host/start/").status_code == 403
    board = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert controls(board) and "Moderator is now the host." in board
    # The link works once.
    again = Client().get(path)
    assert again.status_code == 404 and "already used" in again.content.decode()
    table.refresh_from_db()
    assert table.host.nickname == "Moderator"


def test_a_host_link_opened_by_a_browser_with_a_player_makes_that_player_host(guests):
    host, other = guests(2)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    other.post(f"/t/{table.code}/join/")
    host.post(f"/t/{table.code}/host/link/")
    table.refresh_from_db()
    assert other.get(f"/h/{table.host_link}/").status_code == 302
    table.refresh_from_db()
    assert table.host == other.player and table.host_link == ""


def test_an_expired_replaced_or_junk_host_link_is_refused_and_changes_nothing(guests):
    (host,) = guests(1)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    host.post(f"/t/{table.code}/host/link/")
    table.refresh_from_db()
    first = table.host_link
    host.post(f"/t/{table.code}/host/link/")  # a new link replaces the old one
    table.refresh_from_db()
    second = table.host_link
    assert first != second
    for token in [first, "", "nope", "../../etc", "x" * 200, "%00"]:
        browser = Client()
        response = browser.get(f"/h/{token}/")
        assert response.status_code == 404, token
        assert "player_id" not in browser.session  # a dead link makes no guest
    Table.objects.filter(pk=table.pk).update(host_link_made=timezone.now() - timedelta(minutes=11))
    assert Client().get(f"/h/{second}/").status_code == 404
    table.refresh_from_db()
    assert table.host == host.player


def test_the_home_page_lists_the_tables_a_moderator_hosts(guests):
    table, tablet, phones = moderated_table(guests)
    assert table.code in tablet.get("/").content.decode()


def test_a_moderator_who_logs_in_still_hosts(guests, django_user_model):
    table, tablet, phones = moderated_table(guests)
    django_user_model.objects.create_user("modacct", password="pw-for-tests-1")
    response = tablet.post("/login/", {"username": "modacct", "password": "pw-for-tests-1"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.host.user.username == "modacct"
    assert controls(tablet.get(f"/t/{table.code}/board/").content.decode())


def test_a_seatless_host_is_not_offered_a_seat_tool_of_their_own(guests):
    table, tablet, phones = moderated_table(guests, players=2)
    html = tablet.get(f"/t/{table.code}/board/controls/").content.decode()
    assert html.count('data-test="seat-remove"') == 2  # every seat: none is the host's
