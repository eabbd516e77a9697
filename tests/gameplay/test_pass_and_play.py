"""A seat without a phone (issue 45, item 2): the host plays it on their own device, passed to its player.

The host marks a seat "played on this device"; its page (``/t/<code>/seat/<n>/``) is a blackout holding none of the
seat's secrets; the seat's screen is fetched only with ``X-Shared-Seat`` from a session holding the seat's token,
and moves sent so land as that seat. The board, every other phone and the blackout hold none of its secrets, in
every state of every game; only the host marks seats; the device gives the seat back.
"""

from __future__ import annotations

import json
import random
import uuid

import pytest

from engines.registry import ENGINES, get_engine
from gameplay.models import Game, GameSeat
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.helpers import legal, move_data
from tests.gameplay.test_secret_summary import REGION, summaries

pytestmark = pytest.mark.django_db

DANA = 2


def shared(table, people, index=DANA) -> tuple[Game, dict]:
    """A running game with seat ``index`` played on the host's device; the header its page sends."""
    game = start(table, people[0])
    response = people[0].post(f"/t/{table.code}/host/share/", {"seat": index})
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/seat/{index}/"
    return game, {"HTTP_X_SHARED_SEAT": f"{game.pk}-{index}", "HTTP_HX_REQUEST": "true"}


def test_the_blackout_page_holds_no_secret_and_the_seat_shows_only_when_asked(table_with):
    table, people = table_with(5)
    game, header = shared(table, people)
    page = people[0].get(f"/t/{table.code}/seat/{DANA}/").content.decode()
    assert 'data-test="pass-cover"' in page and "Pass the device to P3" in page
    assert "pv-seat" not in page and "data-secret-summary" not in page and 'data-test="role"' not in page
    held = people[0].get(f"/t/{table.code}/", **header).content.decode()
    (secret,) = summaries(held)
    own = people[DANA].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="moved-away"' in own and secret not in own  # her old phone (if any) stops showing it
    host_own = people[0].get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode()
    assert secret not in REGION.sub("", host_own)  # the host's own screen is the host's seat
    assert 'data-test="move-me"' not in held and 'data-test="seat-share"' not in held  # no tools on her screen
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert "P3 plays on the host" in board.replace("&#x27;", "'").replace("&#39;", "'")
    assert secret not in board


def test_only_a_device_holding_the_seat_sees_or_moves_it(table_with, guests):
    table, people = table_with(5)
    game, header = shared(table, people)
    before = Game.objects.get(pk=game.pk).version
    for person in [people[1], people[DANA], *guests(1, prefix="W")]:
        assert person.get(f"/t/{table.code}/seat/{DANA}/").status_code == 403
        assert person.get(f"/t/{table.code}/", **header).status_code == 403
        assert person.post(f"/t/{table.code}/move/", move_data(game, {"type": "x"}), **header).status_code == 403
    for bad in ["x", f"{game.pk}-9", f"{game.pk}-1", "1-2-3", ""]:
        response = people[0].get(f"/t/{table.code}/", HTTP_X_SHARED_SEAT=bad, HTTP_HX_REQUEST="true")
        assert response.status_code == (200 if bad == "" else 403)
    assert people[0].get(f"/t/{table.code}/seat/7/").status_code == 403
    assert people[0].get(f"/t/{table.code}/seat/1/").status_code == 403
    assert Game.objects.get(pk=game.pk).version == before


def test_a_non_host_cannot_mark_seats_and_bad_seats_change_nothing(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    assert people[1].post(f"/t/{table.code}/host/share/", {"seat": DANA}).status_code == 403
    assert people[0].post(f"/t/{table.code}/host/share/", {"seat": "x"}).status_code == 400
    refused = people[0].post(f"/t/{table.code}/host/share/", {"seat": 9}, follow=True)
    assert "cannot be played on this device" in refused.content.decode()
    assert not GameSeat.objects.filter(game=game).exclude(device="").exists()
    assert Game.objects.get(pk=game.pk).seat_moves == []


def test_moves_from_the_shared_page_land_as_that_seat(table_with):
    table, people = table_with(5, engine="coup")
    game, header = shared(table, people)
    game, header = _dana_to_move(table, people, game, header)  # Coup's turns go round
    action = legal(game, DANA)[0]
    version = game.version
    response = people[0].post(f"/t/{table.code}/move/", move_data(game, action), **header)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.version > version
    assert game.moves.order_by("-seq").first().seat == DANA


def _dana_to_move(table, people, game, header):
    for _ in range(20):
        game.refresh_from_db()
        movers = [s for s in range(5) if legal(game, s)]
        if DANA in movers:
            return game, header
        seat = movers[0]
        action = next((a for a in legal(game, seat) if a.get("type") == "income"), legal(game, seat)[0])
        person = people[0] if seat == DANA else people[seat]
        assert person.post(f"/t/{table.code}/move/", move_data(game, action), HTTP_HX_REQUEST="true").status_code == 200
    raise AssertionError("Dana never came to move")


def test_the_host_gives_the_seat_back_to_its_phone(table_with):
    table, people = table_with(5)
    game, header = shared(table, people)
    assert people[1].post(f"/t/{table.code}/unshare/", {"seat": DANA}).status_code == 302  # not held: a message
    assert GameSeat.objects.get(game=game, index=DANA).device
    assert people[0].post(f"/t/{table.code}/unshare/", {"seat": DANA}).status_code == 302
    assert GameSeat.objects.get(game=game, index=DANA).device == ""
    assert people[0].get(f"/t/{table.code}/seat/{DANA}/").status_code == 403
    assert people[0].get(f"/t/{table.code}/", **header).status_code == 403
    own = people[DANA].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="moved-away"' not in own and summaries(own)
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert "P3 plays on their own phone again." in board


def _screens(table, people, header) -> list[str]:
    """Every screen but the shared seat's held one: the board (page, fragment), the blackout, every phone."""
    code = table.code
    board = [people[0].get(f"/t/{code}/board/", **h).content.decode() for h in ({}, {"HTTP_HX_REQUEST": "true"})]
    phones = [REGION.sub("", p.get(f"/t/{code}/").content.decode()) for p in people]
    return [*board, people[0].get(f"/t/{code}/seat/{DANA}/").content.decode(), *phones]


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_no_other_screen_holds_the_shared_seats_secret_in_any_state(table_with, engine_name):
    players = max(ENGINES[engine_name].min_players, 5)
    table, people = table_with(players, engine=engine_name)
    game, header = shared(table, people)
    rng = random.Random(45)
    for _ in range(40):
        game.refresh_from_db()
        if game.over:
            break
        held = people[0].get(f"/t/{table.code}/", **header).content.decode()
        (secret,) = summaries(held)
        assert [n for n, html in enumerate(_screens(table, people, header)) if secret in html] == []
        movers = [s for s in range(players) if legal(game, s)]
        if not movers:
            break
        seat = rng.choice(movers)
        data = {"version": str(game.version), "move_id": uuid.uuid4().hex,
                "action": json.dumps(rng.choice(legal(game, seat)))}
        extra = header if seat == DANA else {"HTTP_HX_REQUEST": "true"}
        assert (people[0] if seat == DANA else people[seat]).post(
            f"/t/{table.code}/move/", data, **extra).status_code in (200, 400)


def test_the_host_is_prompted_to_pass_the_device_when_the_game_waits_for_the_shared_seat(table_with):
    """The host's own phone (outside its closed controls) and the moderator's board say when the game waits for a seat
    played on the device, as the board says whom it waits for, with the way to its blackout; not otherwise."""
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    (mover,) = {s for s in range(3) if legal(game, s)}
    other = next(s for s in range(1, 3) if s != mover)
    prompt = f'href="/t/{table.code}/seat/{mover}/" data-test="shared-turn-prompt"'
    for index in (mover, other):
        assert people[0].post(f"/t/{table.code}/host/share/", {"seat": index}).status_code == 302
    host = people[0].get(f"/t/{table.code}/").content.decode()
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert prompt in host and prompt in board
    assert host.count('data-test="shared-turn-prompt"') == board.count('data-test="shared-turn-prompt"') == 1
    header = {"HTTP_X_SHARED_SEAT": f"{game.pk}-{mover}", "HTTP_HX_REQUEST": "true"}
    assert people[0].get(f"/t/{table.code}/", **header).status_code == 200  # her hold: her screen
    income = next(a for a in legal(game, mover) if a["type"] == "income")
    assert people[0].post(f"/t/{table.code}/move/", move_data(game, income), **header).status_code == 200
    game.refresh_from_db()
    waiting = get_engine("coup").view(game_state(game), None)["awaiting"]
    host = people[0].get(f"/t/{table.code}/").content.decode()
    assert prompt not in host and (f'/seat/{other}/" data-test="shared-turn-prompt"' in host) == (other in waiting)
    assert 'data-test="shared-turn-prompt"' not in people[1].get(f"/t/{table.code}/board/").content.decode()
