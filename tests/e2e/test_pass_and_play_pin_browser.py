"""A seat without a phone with a PIN, on a 360 px phone in Chromium (issue 45, item 2): held once, its player chooses
a PIN there; from then on the blackout asks for it (a numeric keypad), a wrong one is refused by the server and shows
nothing, the right one shows her screen, a move made there lands as her seat and the screen blacks out again; the
board never holds her secret. It draws the README's picture of the blackout asking for the PIN."""

from __future__ import annotations

import pytest

from tests.conftest import start
from tests.e2e.conftest import PHONE, TABLET, readme_picture, save_screenshots
from tests.gameplay.helpers import coup_incomes_until

pytestmark = pytest.mark.e2e
SUMMARY = "#pass-panel [data-secret-summary]"
PIN = "2468"


def test_a_shared_seat_opens_only_with_its_pin_on_a_phone(browser, server, table_with):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    coup_incomes_until(table, people, game, 1)  # Income round the table until P2 (seat 1) is to move
    device = browser.new_context(**PHONE).new_page()
    device.context.add_cookies([{"name": "sessionid", "value": people[0].client.cookies["sessionid"].value,
                                 "url": server.url}])
    try:
        device.goto(f"{server.url}/t/{table.code}/")
        device.click('#pv-tools details.host summary')  # the host's own phone: "Play P2's seat on this device"
        device.locator('[data-test="seat-share"]').nth(1).click()
        device.wait_for_url(f"{server.url}/t/{table.code}/seat/1/")
        hold = device.locator('[data-test="pass-hold"]').bounding_box()
        device.mouse.move(hold["x"] + hold["width"] / 2, hold["y"] + hold["height"] / 2)
        device.mouse.down()
        device.wait_for_selector('[data-test="pass-panel"] [data-test="action-income"]', timeout=15000)
        device.mouse.up()
        secret = device.locator(SUMMARY).text_content().strip()
        device.click('[data-test="pin-choose"]')
        device.fill('[data-test="pin-new"]', PIN)
        device.click('[data-test="pin-set"]')
        device.wait_for_selector('[data-test="pin-input"]', timeout=15000)  # back to the blackout, asking for it
        pin_input = device.locator('[data-test="pin-input"]')
        assert pin_input.get_attribute("inputmode") == "numeric" and pin_input.get_attribute("autocomplete") == "off"
        assert device.locator('[data-test="pass-hold"]').count() == 0 and secret not in device.content()
        assert device.evaluate("document.documentElement.scrollWidth") <= 360
        readme_picture(device, "pass-and-play-pin-en.png")  # the blackout asking for the PIN, its numeric field
        pin_input.fill("1357")
        device.click('[data-test="pin-unlock"]')
        device.wait_for_selector('[data-test="pin-error"]', state="visible", timeout=15000)
        assert "Wrong PIN" in device.inner_text('[data-test="pin-error"]')
        assert device.locator("#pass-panel > *").count() == 0 and secret not in device.content()
        pin_input.fill(PIN)
        device.click('[data-test="pin-unlock"]')
        device.wait_for_selector('[data-test="pass-panel"] [data-test="action-income"]', timeout=15000)
        assert device.locator(SUMMARY).text_content().strip() == secret
        assert not device.locator('[data-test="pass-cover"]').is_visible()
        board = browser.new_context(**TABLET).new_page()
        board.goto(f"{server.url}/t/{table.code}/board/")
        assert secret not in board.content()
        device.click('[data-test="pass-panel"] [data-test="action-income"]')
        device.wait_for_selector('[data-test="pass-done"]', state="visible", timeout=15000)
        assert device.locator("#pass-panel > *").count() == 0 and secret not in device.content()
        game.refresh_from_db()
        assert game.moves.order_by("-seq").first().seat == 1
        # The unlock ended with the move: the seat's screen is refused again until its PIN.
        status = device.evaluate("""async (key) => (await fetch(location.pathname.replace(/seat\\/1\\/$/, ''),
            {headers: {'X-Shared-Seat': key, 'HX-Request': 'true'}})).status""", f"{game.pk}-1")
        assert status == 403
    except Exception:
        save_screenshots([device], "pass-and-play-pin-failure")
        raise
