"""A seat without a phone, on the host's tablet (issue 45, item 2): marked from the board's drawer, the tablet
blacks out ("Pass the device to P2"); holding the button shows P2's screen, a move made there lands as P2 and the
tablet blacks out again; the board, in another browser, never holds P2's secret."""

from __future__ import annotations

import pytest

from tests.conftest import start
from tests.e2e.conftest import SCREENS, TABLET, save_screenshots
from tests.gameplay.helpers import legal, move_data

pytestmark = pytest.mark.e2e
SUMMARY = "#pass-panel [data-secret-summary]"


def test_a_tablet_plays_a_seat_without_a_phone_behind_a_blackout(browser, server, table_with):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    while not legal(game, 1):  # Income round the table until P2 (seat 1) is to move
        seat = next(s for s in range(3) if legal(game, s))
        income = next(a for a in legal(game, seat) if a["type"] == "income")
        assert people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, income)).status_code == 200
    tablet = browser.new_context(**TABLET).new_page()
    tablet.context.add_cookies([{"name": "sessionid", "value": people[0].client.cookies["sessionid"].value,
                                 "url": server.url}])
    try:
        tablet.goto(f"{server.url}/t/{table.code}/board/")
        tablet.click('[data-test="controls"] summary')
        tablet.locator('[data-test="seat-share"]').nth(1).click()
        tablet.wait_for_url(f"{server.url}/t/{table.code}/seat/1/")
        assert tablet.locator('[data-test="pass-cover"]').is_visible()
        assert "Pass the device to P2" in tablet.inner_text('[data-test="pass-to"]')
        assert tablet.locator("[data-secret-summary]").count() == 0 and tablet.locator("#pass-panel > *").count() == 0
        tablet.screenshot(path=str(SCREENS / "pass-and-play-tablet-en.png"), scale="css")  # the README's picture
        hold = tablet.locator('[data-test="pass-hold"]').bounding_box()
        tablet.mouse.move(hold["x"] + hold["width"] / 2, hold["y"] + hold["height"] / 2)
        tablet.mouse.down()
        tablet.wait_for_selector('[data-test="pass-panel"] [data-test="action-income"]', timeout=15000)
        tablet.mouse.up()
        secret = tablet.locator(SUMMARY).text_content().strip()
        assert secret and not tablet.locator('[data-test="pass-cover"]').is_visible()
        board = browser.new_context(**TABLET).new_page()
        board.goto(f"{server.url}/t/{table.code}/board/")
        assert secret not in board.content()
        tablet.click('[data-test="pass-panel"] [data-test="action-income"]')
        tablet.wait_for_selector('[data-test="pass-done"]', state="visible", timeout=15000)
        assert tablet.locator('[data-test="pass-cover"]').is_visible()
        assert tablet.locator("#pass-panel > *").count() == 0 and secret not in tablet.content()
        game.refresh_from_db()
        assert game.moves.order_by("-seq").first().seat == 1
        board.reload()
        assert secret not in board.content()
    except Exception:
        save_screenshots([tablet], "pass-and-play-failure")
        raise
