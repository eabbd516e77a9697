"""A seat without a phone, on the host's tablet (issue 45, item 2): marked from the board's drawer, the tablet
blacks out ("Pass the device to P2"); holding the button shows P2's screen, a move made there lands as P2 and the
tablet blacks out again; the board, in another browser, never holds P2's secret.

The tablet is in each engine (Chromium, WebKit, Firefox: tests/e2e/engines_drivers.py, at 1024×768), its hold a
finger's press and lift (a mouse's in WebKit); the board beside it is a Chromium tablet. The Chromium run draws the
README's picture."""

from __future__ import annotations

import pytest

from tests.conftest import start
from tests.e2e.conftest import ARTIFACTS, TABLET, readme_picture
from tests.e2e.test_every_engine_browser import ENGINES, save
from tests.gameplay.helpers import coup_incomes_until

pytestmark = pytest.mark.e2e
SUMMARY = "#pass-panel [data-secret-summary]"
INCOME = '[data-test="pass-panel"] [data-test="action-income"]'


@pytest.mark.parametrize("engine", ENGINES)
def test_a_tablet_plays_a_seat_without_a_phone_behind_a_blackout(browser, server, table_with, phones, engine):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    coup_incomes_until(table, people, game, 1)  # Income round the table until P2 (seat 1) is to move
    tablet = phones(engine, tablet=True)
    tablet.add_cookie(server.url, "sessionid", people[0].client.cookies["sessionid"].value)
    board = browser.new_context(**TABLET).new_page()
    try:
        tablet.goto(f"{server.url}/t/{table.code}/board/")
        tablet.wait_for("() => window.htmx && document.readyState === 'complete'")
        tablet.click('[data-test="controls"] summary')
        tablet.click(tablet.nth('[data-test="seat-share"]', 1))
        tablet.wait_for("(url) => location.href === url && document.readyState === 'complete' && window.htmx",
                        f"{server.url}/t/{table.code}/seat/1/")
        tablet.watch_errors()
        assert tablet.visible('[data-test="pass-cover"]')
        assert "Pass the device to P2" in tablet.text('[data-test="pass-to"]')
        assert tablet.count("[data-secret-summary]") == 0 and tablet.count("#pass-panel > *") == 0
        readme_picture(tablet, "pass-and-play-tablet-en.png")
        tablet.hold('[data-test="pass-hold"]')  # the finger stays down until P2's screen has come
        tablet.wait_visible(INCOME)
        tablet.lift()
        secret = tablet.evaluate("(s) => document.querySelector(s).textContent.trim()", SUMMARY)
        assert secret and not tablet.visible('[data-test="pass-cover"]')
        assert tablet.visible(INCOME)  # the screen stays once the finger lifts: a thumb is free to play
        board.goto(f"{server.url}/t/{table.code}/board/")
        assert secret not in board.content()
        tablet.click(INCOME)
        tablet.wait_visible('[data-test="pass-done"]')
        assert tablet.visible('[data-test="pass-cover"]')
        assert tablet.count("#pass-panel > *") == 0 and secret not in tablet.content()
        game.refresh_from_db()
        assert game.moves.order_by("-seq").first().seat == 1
        board.reload()
        assert secret not in board.content()
        assert tablet.errors() == [], (engine, tablet.errors())
    except Exception:
        save([tablet], "pass-and-play-failure")
        board.screenshot(path=str(ARTIFACTS / "pass-and-play-failure-board.png"))
        raise
    finally:
        board.context.close()
