"""A private result shown to the one player it belongs to, on the moderator's tablet (issue 45, item 2).

A moderated Good Cop Bad Cop table: the moderator's tablet plays P3's seat (she has no phone). On her turn the tablet
shows her screen on a hold and she investigates a card; the move lands and the tablet blacks out, so she has not read
what she saw. The moderator's board then offers "Show P3 their result" outside its drawer (closed during play);
tapping it gives a blackout asking to pass the device to P3, holding nothing of the result; her hold shows that result
alone (not her hand), "Done" blacks it out again and the prompt is gone from the board. Another board, open all along
in another browser, never holds the result's words.

The tablet is in each engine (Chromium, WebKit, Firefox: tests/e2e/engines_drivers.py, at 1024×768); the other board
is a Chromium tablet. The Chromium run draws the README's picture of the result's blackout.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from gameplay.briefing import seat_private_lines
from gameplay.models import GameSeat
from gameplay.worker import tick
from tests.conftest import start
from tests.e2e.conftest import ARTIFACTS, TABLET, readme_picture
from tests.e2e.test_every_engine_browser import ENGINES, save
from tests.gameplay.helpers import legal, move_data
from tests.lobby.test_moderator import moderated_table

pytestmark = pytest.mark.e2e
DANA = 2  # P3's seat
SUMMARY = "#pass-panel [data-secret-summary]"
INVESTIGATE = '[data-test="pass-panel"] [data-test^="investigate-"]'
PROMPT = '[data-test="shared-result-prompt"]'
RESULT = '[data-test="pass-panel"] [data-test="shared-result"]'
# Everything the page ever held: its markup now and every node added since (the other board's pushes).
RECORD = """() => {
  window.__seen = [document.documentElement.outerHTML];
  new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(n => {
    window.__seen.push(n.outerHTML || n.textContent || '');
  }))).observe(document.documentElement, {subtree: true, childList: true, characterData: true});
}"""


def _to_danas_turn(table, moderator, people, game, header) -> None:
    """Arrange every seat, then play round the table (guns, reveals, aims; silent windows left to close by the clock)
    until P3 may investigate. Her own arranging is sent as the tablet's, naming her seat."""
    for _ in range(400):
        movers = [s for s in range(len(people)) if legal(game, s)]
        if DANA in movers and any(a["type"] == "investigate" for a in legal(game, DANA)):
            return
        turn = [s for s in movers if any(a["type"] != "play" for a in legal(game, s))]
        if not turn:  # a silent window: nobody must answer, it closes when its countdown ends
            tick(timezone.now() + timedelta(minutes=10))
            continue
        seat = turn[0]
        options = [a for a in legal(game, seat) if a["type"] != "play"]
        action = next((a for a in options if a["type"] in ("arrange", "end_turn", "aim", "reveal", "arm")),
                      next((a for a in options if a["type"] == "equip"), options[0]))
        who, extra = (moderator, header) if seat == DANA else (people[seat], {"HTTP_HX_REQUEST": "true"})
        assert who.post(f"/t/{table.code}/move/", move_data(game, action), **extra).status_code == 200
    raise AssertionError("P3's turn never came")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_private_result_is_shown_on_the_moderators_tablet_to_its_player_alone(browser, server, guests, phones,
                                                                              engine):
    table, moderator, people = moderated_table(guests, players=5, engine="good_cop_bad_cop")
    game = start(table, moderator)
    shared = moderator.post(f"/t/{table.code}/host/share/", {"seat": DANA})
    assert shared.status_code == 302 and shared["Location"] == f"/t/{table.code}/seat/{DANA}/"
    _to_danas_turn(table, moderator, people, game, {"HTTP_X_SHARED_SEAT": f"{game.pk}-{DANA}",
                                                     "HTTP_HX_REQUEST": "true"})
    assert seat_private_lines(game, DANA) == []  # nothing to show her yet
    board_url = f"{server.url}/t/{table.code}/board/"
    tablet = phones(engine, tablet=True)
    tablet.add_cookie(server.url, "sessionid", moderator.client.cookies["sessionid"].value)
    other = browser.new_context(**TABLET)
    other.add_cookies([{"name": "sessionid", "value": people[1].client.cookies["sessionid"].value,
                        "url": server.url}])
    board = other.new_page()
    try:
        board.goto(board_url)
        board.wait_for_function("() => window.htmx && document.readyState === 'complete'")
        board.evaluate(RECORD)
        tablet.goto(board_url)
        tablet.wait_for("() => window.htmx && document.readyState === 'complete'")
        assert tablet.count(PROMPT) == 0  # no result yet

        # P3's turn on the tablet: her screen on a hold, her Investigate; the move lands and the tablet blacks out.
        tablet.goto(f"{server.url}/t/{table.code}/seat/{DANA}/")
        tablet.wait_for("() => window.htmx && document.readyState === 'complete'")
        tablet.watch_errors()
        tablet.hold('[data-test="pass-hold"]')
        tablet.wait_visible(INVESTIGATE)
        tablet.lift()
        secret = tablet.evaluate("(s) => document.querySelector(s).textContent.trim()", SUMMARY)
        assert secret
        tablet.click(INVESTIGATE)
        tablet.wait_visible('[data-test="pass-done"]')
        assert tablet.count("#pass-panel > *") == 0
        game.refresh_from_db()
        assert game.moves.order_by("-seq").first().seat == DANA
        lines = seat_private_lines(game, DANA)
        assert len(lines) == 1 and lines[0]["event"] == "learned"
        assert tablet.errors() == [], (engine, tablet.errors())

        # The moderator's board offers it outside the drawer (closed during play): her name alone.
        tablet.goto(board_url)
        tablet.wait_for("() => window.htmx && document.readyState === 'complete'")
        assert tablet.count('[data-test="controls"][open]') == 0
        tablet.wait_visible(PROMPT)
        assert tablet.text(PROMPT).strip() == "Show P3 their result"
        offered = tablet.content()
        assert secret not in offered and 'data-test="result-line"' not in offered
        tablet.click(PROMPT)
        tablet.wait_for("(url) => location.href === url && document.readyState === 'complete' && window.htmx",
                        f"{server.url}/t/{table.code}/seat/{DANA}/result/")
        tablet.watch_errors()
        assert tablet.visible('[data-test="pass-cover"]')
        assert tablet.text('[data-test="pass-to"]').strip() == "A private result for P3: pass the device to P3"
        cover = tablet.content()
        assert tablet.count("#pass-panel > *") == 0 and 'data-test="shared-result"' not in cover
        assert 'data-test="result-line"' not in cover and secret not in cover and "data-secret-summary" not in cover
        readme_picture(tablet, "shared-result-en.png")

        # Her hold shows the result alone: the one line she has not been shown, not her hand.
        tablet.hold('[data-test="pass-hold"]')
        tablet.wait_visible(RESULT)
        tablet.lift()
        assert not tablet.visible('[data-test="pass-cover"]')
        assert tablet.count('[data-test="pass-panel"] [data-test="result-line"]') == 1
        words = tablet.text('[data-test="pass-panel"] [data-test="result-line"]').strip()
        assert words.startswith("You saw P") and words in tablet.text("#pass-panel")
        shown = tablet.content()
        assert secret not in shown and "data-secret-summary" not in shown and "pv-seat" not in shown
        assert tablet.count('#pass-panel [data-test^="investigate-"], #pass-panel form') == 0
        assert GameSeat.objects.get(game=game, index=DANA).results_shown == 1

        # Done: the blackout again, the result gone from the page; the board offers it no more.
        tablet.click('[data-test="pass-hide"]')
        tablet.wait_visible('[data-test="pass-cover"]')
        assert tablet.count("#pass-panel > *") == 0 and words not in tablet.content()
        assert tablet.errors() == [], (engine, tablet.errors())
        tablet.goto(board_url)
        tablet.wait_for("() => window.htmx && document.readyState === 'complete'")
        assert tablet.count(PROMPT) == 0
        assert words not in tablet.content()

        # The other board, open all along (the moves pushed to it), never held the result's words.
        seen = board.evaluate("() => window.__seen")
        board.reload()
        seen = " ".join([*seen, board.content()])
        assert len(seen) > 1000 and "P3" in seen  # it did show the table
        assert words not in seen and "You saw" not in seen and "shared-result" not in seen and secret not in seen
    except Exception:
        save([tablet], "shared-result-failure")
        board.screenshot(path=str(ARTIFACTS / "shared-result-failure-board.png"))
        raise
    finally:
        other.close()
