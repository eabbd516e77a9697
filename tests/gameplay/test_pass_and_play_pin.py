"""A seat without a phone, its PIN and its private results (issue 45, item 2).

The shared seat's player may choose a 4-to-6-digit PIN, once, while her screen is shown; the server keeps its hash
alone, and from then on refuses her screen's requests (``X-Shared-Seat``) unless the session holds a live unlock that
the right PIN granted: it ends when the screen blacks out (the page says so, or a move landed) and lapses by itself.
Five wrong PINs lock the seat until the host clears it (the table is told); giving the seat back clears it. A private
result of hers is offered beside the seat on the host's controls (the moderator's board) and shown on a hold or PIN,
alone, never in a page or on the board. Every refusal leaks nothing and changes nothing.
"""

from __future__ import annotations

import json
import random
import uuid

import pytest
from django.contrib.auth.hashers import check_password

from gameplay.briefing import seat_private_lines
from gameplay.models import PIN_TRIES, Game, GameSeat
from gameplay.seats import UNLOCK_SECONDS, UNLOCKS_KEY
from tests.gameplay.helpers import legal, move_data
from tests.gameplay.test_pass_and_play import DANA, _dana_to_move, shared
from tests.gameplay.test_secret_summary import summaries

pytestmark = pytest.mark.django_db
PIN = "4826"


def _urls(table) -> dict[str, str]:
    base = f"/t/{table.code}/seat/{DANA}/"
    return {"page": base, "unlock": base + "unlock/", "lock": base + "lock/", "pin": base + "pin/",
            "result": base + "result/", "show": base + "result/show/", "panel": f"/t/{table.code}/"}


def _row(game) -> GameSeat:
    return GameSeat.objects.get(game=game, index=DANA)


def _with_pin(table, people, engine="inside_job"):
    """A shared seat whose player chose ``PIN`` while held; its held screen's secret."""
    game, header = shared(table, people)
    urls = _urls(table)
    held = people[0].get(urls["panel"], **header)
    assert held.status_code == 200
    (secret,) = summaries(held.content.decode())
    assert people[0].post(urls["pin"], {"pin": PIN}).status_code == 302
    return game, header, urls, secret


def test_a_pin_is_chosen_only_while_the_seat_is_shown_and_kept_as_a_hash(table_with):
    table, people = table_with(5)
    game, header = shared(table, people)
    urls = _urls(table)
    refused = people[0].post(urls["pin"], {"pin": PIN})  # a passer-by at the blackout: nothing shown, no PIN
    assert refused.status_code == 403 and _row(game).pin == ""
    assert people[0].get(urls["panel"], **header).status_code == 200  # held: shown to her
    for bad in ["12", "1234567", "12a4", "", "1" * 5000]:
        page = people[0].post(urls["pin"], {"pin": bad}, follow=True).content.decode()
        assert "A PIN is 4 to 6 digits." in page and _row(game).pin == ""
        people[0].get(urls["panel"], **header)  # each answer blacks out: held again
    assert people[0].post(urls["pin"], {"pin": PIN}).status_code == 302
    row = _row(game)
    assert row.pin and PIN not in row.pin and check_password(PIN, row.pin)
    # Once chosen: the blackout asks for it, and no second PIN replaces it (her screen is not shown any more).
    page = people[0].get(urls["page"]).content.decode()
    assert 'data-test="pin-input"' in page and 'inputmode="numeric"' in page and 'autocomplete="off"' in page
    assert 'data-test="pass-hold"' not in page
    assert people[0].post(urls["pin"], {"pin": "9999"}).status_code == 403
    assert check_password(PIN, _row(game).pin)


def test_her_screen_shows_only_after_the_right_pin_and_blacks_out_again(table_with):
    table, people = table_with(5)
    game, header, urls, secret = _with_pin(table, people)
    locked = people[0].get(urls["panel"], **header)
    assert locked.status_code == 403 and secret not in locked.content.decode()
    wrong = people[0].post(urls["unlock"], {"pin": "0000"})
    assert wrong.status_code == 403 and wrong.content.decode() == f"Wrong PIN. Tries left: {PIN_TRIES - 1}."
    assert people[0].get(urls["panel"], **header).status_code == 403
    assert people[0].post(urls["unlock"], {"pin": PIN}).status_code == 204
    assert _row(game).pin_tries == 0  # a right PIN starts the count again
    shown = people[0].get(urls["panel"], **header)
    assert shown.status_code == 200 and secret in shown.content.decode()
    assert people[0].post(urls["lock"]).status_code == 204  # "Done", a move landed, the page hidden
    assert people[0].get(urls["panel"], **header).status_code == 403
    # An unlock unused for UNLOCK_SECONDS lapses by itself.
    assert people[0].post(urls["unlock"], {"pin": PIN}).status_code == 204
    session = people[0].client.session
    session[UNLOCKS_KEY] = {key: stamp - UNLOCK_SECONDS - 1 for key, stamp in session[UNLOCKS_KEY].items()}
    session.save()
    stale = people[0].get(urls["panel"], **header)
    assert stale.status_code == 403 and secret not in stale.content.decode()
    # The board and the blackout never hold it, locked or not.
    for html in (people[0].get(f"/t/{table.code}/board/").content.decode(),
                 people[0].get(urls["page"]).content.decode()):
        assert secret not in html and PIN not in html


def test_a_move_that_landed_ends_the_unlock(table_with):
    table, people = table_with(5, engine="coup")
    game, header, urls, _secret = _with_pin(table, people)
    game, header = _dana_to_move_unlocked(table, people, game, header, urls)
    assert people[0].post(urls["unlock"], {"pin": PIN}).status_code == 204
    assert people[0].post(f"/t/{table.code}/move/", move_data(game, legal(game, DANA)[0]), **header).status_code == 200
    assert game.moves.order_by("-seq").first().seat == DANA
    assert people[0].get(urls["panel"], **header).status_code == 403


def _dana_to_move_unlocked(table, people, game, header, urls):
    """Play round the table until Dana moves; her own moves on the way after her PIN."""
    for _ in range(20):
        game.refresh_from_db()
        if legal(game, DANA):
            return game, header
        seat = next(s for s in range(5) if legal(game, s))
        action = next((a for a in legal(game, seat) if a.get("type") == "income"), legal(game, seat)[0])
        assert people[seat].post(f"/t/{table.code}/move/", move_data(game, action),
                                 HTTP_HX_REQUEST="true").status_code == 200
    return _dana_to_move(table, people, game, header)


def test_five_wrong_pins_lock_the_seat_until_the_host_clears_it(table_with):
    table, people = table_with(5)
    game, header, urls, secret = _with_pin(table, people)
    for tries in range(1, PIN_TRIES + 1):
        answer = people[0].post(urls["unlock"], {"pin": "1111"})
        assert answer.status_code == (423 if tries == PIN_TRIES else 403)
    assert people[0].post(urls["unlock"], {"pin": PIN}).status_code == 423  # even the right one now
    assert people[0].get(urls["panel"], **header).status_code == 403
    assert 'data-test="pin-locked"' in people[0].get(urls["page"]).content.decode()
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="pin-clear"' in board and "PIN is locked" in board.replace("&#x27;", "'")
    assert people[1].post(f"/t/{table.code}/host/pin-clear/", {"seat": DANA}).status_code == 403
    assert people[0].post(f"/t/{table.code}/host/pin-clear/", {"seat": "x"}).status_code == 400
    assert _row(game).pin
    version = Game.objects.get(pk=game.pk).seat_moves
    assert people[0].post(f"/t/{table.code}/host/pin-clear/", {"seat": DANA, "back": "board"}).status_code == 302
    assert _row(game).pin == "" and _row(game).pin_tries == 0
    assert len(Game.objects.get(pk=game.pk).seat_moves) == len(version) + 1
    board = people[0].get(f"/t/{table.code}/board/").content.decode().replace("&#x27;", "'")
    assert "The host cleared the PIN of P3's seat on the shared device." in board and secret not in board
    again = people[0].post(f"/t/{table.code}/host/pin-clear/", {"seat": DANA}, follow=True)  # repeated: a message
    assert "That seat has no PIN to clear." in again.content.decode()
    assert people[0].get(urls["panel"], **header).status_code == 200  # the hold again


def test_other_devices_forged_headers_and_bad_input_change_nothing(table_with, guests):
    table, people = table_with(5)
    game, header, urls, secret = _with_pin(table, people)
    row = _row(game)
    for person in [people[1], people[DANA], *guests(1, prefix="W")]:
        for name in ("unlock", "pin", "lock", "show"):
            answer = person.post(urls[name], {"pin": PIN}, **header)
            assert answer.status_code == 403 and secret not in answer.content.decode()
        assert person.get(urls["result"]).status_code == 403
    for bad in ["12", "abcd", "1" * 5000, ""]:
        answer = people[0].post(urls["unlock"], {"pin": bad})
        assert answer.status_code == 400 and answer.content.decode() == "A PIN is 4 to 6 digits."
    forged = {**header, "HTTP_X_SHARED_SEAT": f"{game.pk}-1"}
    assert people[0].post(urls["show"], **forged).status_code == 403
    for url in (f"/t/{table.code}/seat/9/unlock/", f"/t/{table.code}/seat/1/pin/", f"/t/{table.code}/seat/7/result/"):
        assert people[0].post(url, {"pin": PIN}).status_code in (403, 405)
    assert people[0].get(urls["unlock"]).status_code == 405
    after = _row(game)
    assert (after.pin, after.pin_tries, after.results_shown) == (row.pin, 0, row.results_shown)


def test_giving_the_seat_back_to_its_phone_clears_the_pin(table_with):
    table, people = table_with(5)
    game, header, urls, _secret = _with_pin(table, people)
    assert people[0].post(f"/t/{table.code}/unshare/", {"seat": DANA}).status_code == 302
    assert _row(game).pin == "" and _row(game).device == ""
    own = people[DANA].get(f"/t/{table.code}/").content.decode()
    assert summaries(own)  # her own phone shows her screen with no PIN


def test_a_private_result_is_offered_beside_the_seat_and_shown_alone_on_a_hold(table_with):
    table, people = table_with(5, engine="good_cop_bad_cop")
    game, header = shared(table, people)
    urls = _urls(table)
    rng = random.Random(45)
    for _ in range(300):
        game.refresh_from_db()
        if game.over or len(seat_private_lines(game, DANA)) > _row(game).results_shown:
            break
        movers = [s for s in range(5) if legal(game, s)]
        seat = DANA if DANA in movers else rng.choice(movers)
        options = legal(game, seat)
        action = next((a for a in options if "investigat" in json.dumps(a)), rng.choice(options))
        data = {"version": str(game.version), "move_id": uuid.uuid4().hex, "action": json.dumps(action)}
        person, extra = (people[0], header) if seat == DANA else (people[seat], {"HTTP_HX_REQUEST": "true"})
        person.post(f"/t/{table.code}/move/", data, **extra)
    lines = seat_private_lines(game, DANA)
    fresh = len(lines) - _row(game).results_shown
    assert not game.over and fresh > 0, "Dana never learned anything in 300 moves"
    held = people[0].get(urls["panel"], **header).content.decode()
    (secret,) = summaries(held)
    people[0].post(urls["lock"])
    # Offered on the moderator's board and the host's phone tools: her name alone.
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="shared-result-prompt"' in board and urls["result"] in board
    assert "Show P3 their result" in board and secret not in board and 'data-test="result-line"' not in board
    public = people[1].get(f"/t/{table.code}/board/").content.decode()
    assert "shared-result" not in public and secret not in public
    page = people[0].get(urls["result"]).content.decode()
    assert "A private result for P3: pass the device to P3" in page
    assert 'data-test="result-line"' not in page and secret not in page and "data-secret-summary" not in page
    assert people[0].post(urls["show"]).status_code == 403  # not naming the seat
    result = people[0].post(urls["show"], **header)
    html = result.content.decode()
    assert result.status_code == 200 and html.count('data-test="result-line"') == fresh
    assert secret not in html and "data-secret-summary" not in html and "pv-seat" not in html
    assert _row(game).results_shown == len(lines)
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="shared-result-prompt"' not in board  # shown: the prompt goes
    again = people[0].post(urls["show"], **header).content.decode()  # a repeated POST: her last result again
    assert again.count('data-test="result-line"') == 1 and _row(game).results_shown == len(lines)


def test_a_private_result_behind_a_pin_needs_the_pin(table_with):
    table, people = table_with(5, engine="good_cop_bad_cop")
    game, header, urls, secret = _with_pin(table, people)
    refused = people[0].post(urls["show"], **header)
    assert refused.status_code == 403 and 'data-test="result-line"' not in refused.content.decode()
    assert people[0].post(urls["unlock"], {"pin": PIN}).status_code == 204
    shown = people[0].post(urls["show"], **header)
    assert shown.status_code == 200 and secret not in shown.content.decode()
    assert people[0].get(urls["panel"], **header).status_code == 200  # the unlock stays live while used
