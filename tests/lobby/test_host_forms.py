"""The host's forms (issue 26, item 12): a moderator creates a table with no name to type; the settings
show the options of the game picked, not the saved one's; "Check the shuffle" is a button."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from engines.registry import ENGINES
from lobby.models import Player, Seat, Table
from tests.conftest import start
from tests.gameplay.test_moves import play_to_end

pytestmark = pytest.mark.django_db


def test_a_moderator_creates_a_table_without_typing_a_name(db):
    tablet = Client()
    html = tablet.get("/new/").content.decode()
    # The whole form, with a name field for one who plays (a moderator needs none: CSS hides it then).
    assert 'data-test="create"' in html and 'name="role" value="moderate"' in html
    name_field = re.search(r'<input id="nick" name="nickname"[^>]*>', html).group(0)
    assert 'class="stack create-name"' in html and "required" not in name_field
    response = tablet.post("/new/", {"engine": "inside_job", "timer": "0", "role": "moderate"})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/board/"
    assert table.host.nickname == "Moderator" and not Seat.objects.filter(table=table).exists()
    assert 'data-test="controls"' in tablet.get(f"/t/{table.code}/board/").content.decode()  # it hosts


def test_one_who_plays_names_themself_in_the_create_form(db):
    phone = Client()
    refused = phone.post("/new/", {"engine": "coup", "timer": "0", "role": "play", "nickname": "  "})
    assert refused.status_code == 400 and "A nickname is needed." in refused.content.decode()
    assert not Table.objects.exists() and not Player.objects.exists()
    response = phone.post("/new/", {"engine": "coup", "timer": "0", "role": "play", "nickname": "Ana"})
    table = Table.objects.get()
    assert response["Location"] == f"/t/{table.code}/"
    assert table.host.nickname == "Ana" and table.seats.get().player == table.host
    # A browser that has a player already is not asked again.
    assert 'name="nickname"' not in phone.get("/new/").content.decode()


def _settings_form(html: str, code: str) -> str:
    start_at = html.index(f'action="/t/{code}/settings/"')
    return html[start_at:html.index("</form>", start_at)]


def test_the_settings_hold_every_games_options_and_send_only_the_chosen_ones(guests):
    (host,) = guests(1)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    form = _settings_form(host.get(f"/t/{table.code}/").content.decode(), table.code)
    assert 'data-engine-switch' in form
    sets = dict(re.findall(r'<fieldset class="engine-options" data-engine-options="([a-z_]+)"([^>]*)>', form))
    assert set(sets) == set(ENGINES)
    # The saved game's options show and are sent; every other game's are hidden and disabled (not sent) until
    # the select picks that game (lobby/static/js/forms.js).
    assert sets.pop("inside_job") == ""
    assert all(attrs == " hidden disabled" for attrs in sets.values())
    for name in ENGINES:
        assert f'name="opt-{name}-' in form or not ENGINES[name].option_specs()
    # Saving another game takes that game's options as the form sent them.
    response = host.post(f"/t/{table.code}/settings/", {"engine": "coup", "timer": "0", "opt-coup-inquisitor": "on"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.engine == "coup" and table.options["inquisitor"] is True
    form = _settings_form(host.get(f"/t/{table.code}/").content.decode(), table.code)
    assert 'data-engine-options="coup">' in form and 'data-engine-options="inside_job" hidden disabled' in form


def test_check_the_shuffle_is_a_button(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    html = people[0].get(f"/t/{table.code}/").content.decode()
    assert re.search(r'<summary class="btn quiet" data-test="check-shuffle">Check the shuffle</summary>', html)
