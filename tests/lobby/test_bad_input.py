"""Bad input everywhere: garbage in every form of every POST route gets a clear 4xx, never a 500."""

from __future__ import annotations

import pytest

from tests.conftest import start

pytestmark = pytest.mark.django_db

HOST_VERBS = ["start", "again", "pause", "resume", "end", "bot"]
GARBAGE = ["", "abc", "-99999999999999999999999", "\x00" + "Ω" * 300, "{}"]


@pytest.mark.parametrize("value", GARBAGE)
def test_every_post_route_survives_garbage(table_with, value):
    table, people = table_with(5)
    host = people[0]
    code = table.code
    forms = [
        ("/guest/", {"nickname": value, "next": value}),
        ("/new/", {"engine": value, "timer": value, "opt-inside_job-first_player": value}),
        ("/new/", {"engine": "good_cop_bad_cop_health", "timer": "0", "opt-good_cop_bad_cop_health-deck-vest": value}),
        (f"/t/{code}/join/", {}),
        *((f"/t/{code}/seat/{verb}/", {"seat": value}) for verb in ("up", "down", "remove", "leave")),
        (f"/t/{code}/seat/add-bot/", {"policy": value}),
        (f"/t/{code}/settings/", {"engine": value, "timer": value}),
        (f"/t/{code}/settings/", {"engine": "coup", "timer": "10", "opt-coup-rounds_to_win": value}),
        (f"/t/{code}/seat-link/", {"seat": value}),
        *((f"/t/{code}/host/{verb}/", {"seat": value, "confirm": value}) for verb in HOST_VERBS),
        (f"/t/{code}/move/", {"version": value, "action": value, "move_id": value, "a.team[]": value}),
        ("/signup/", {"username": value, "password1": value, "password2": value}),
        ("/login/", {"username": value, "password": value}),
    ]
    for path, data in forms:
        for person in (host, people[1]):
            response = person.post(path, data)
            assert response.status_code < 500, (path, data, response.status_code)
    start(table, host)
    for path, data in [
        *((f"/t/{code}/host/{verb}/", {"seat": value, "confirm": value}) for verb in HOST_VERBS if verb != "start"),
        (f"/t/{code}/seat-link/", {"seat": value}),
        (f"/t/{code}/move-me/", {}),
        (f"/t/{code}/wait/", {}),
        (f"/t/{code}/move/", {"version": "0", "action": '{"type": "propose"}', "a.team[]": [value, value]}),
        (f"/t/{code}/move/", {"version": "0", "action": '{"type": "propose"}', f"a.{value[:20]}": value}),
    ]:
        response = host.post(path, data, HTTP_HX_REQUEST="true")
        assert response.status_code < 500, (path, data)
    for path in (f"/g/{value}/", f"/t/{code}/board/?x={value}", f"/g/1/?step={value}", f"/find/?code={value}",
                 f"/rules/{value}/", f"/s/{value}/"):
        assert host.get(path).status_code < 500, path
