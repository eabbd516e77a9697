"""Two phones and two bots play a whole Coup game; the board follows; bots answer windows at once."""

from __future__ import annotations

import pytest

from gameplay.models import Game
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, save_screenshots, tap_and_settle
from tests.e2e.test_inside_job_browser import no_horizontal_scroll, sit_down

pytestmark = pytest.mark.e2e

# What a hurried human taps, first match wins: finish the turn, never stall a window.
PREFERENCES = [
    '[data-test^="action-coup-"]',
    '[data-test="allow"]',
    '[data-test^="lose-"]',
    '[data-test^="reveal-"]',
    '[data-test^="show-"]',
    '[data-test="action-tax"]',
    '[data-test="action-income"]',
]


def act(page) -> bool:
    """Tap the first thing this phone may do now; False when it waits.

    Bots answer windows at once, so a button seen a moment ago may be gone when the tap
    lands (the window closed): that is the game moving on, and the loop looks again.
    """
    for selector in PREFERENCES:
        if page.locator(selector).count():
            return tap_and_settle(page, page.locator(selector).first, tolerant=True)
    return False


def two_phones_at_a_coup_table(browser, server):
    """Ana creates a Coup table on her phone and Bo joins it on his: (Ana's page, Bo's page, the table's code)."""
    host = browser.new_context(**PHONE).new_page()
    guest = browser.new_context(**PHONE).new_page()
    sit_down(host, server.url, "Ana")
    sit_down(guest, server.url, "Bo")
    host.goto(server.url + "/new/?engine=coup")
    host.click('[data-test="create"]')
    code = host.inner_text('[data-test="table-code"]').strip()
    guest.goto(f"{server.url}/t/{code}/")
    guest.click('[data-test="join"]')
    return host, guest, code


def test_whole_coup_game_with_two_phones_two_bots_and_a_board(browser, server):
    host, guest, code = two_phones_at_a_coup_table(browser, server)
    for _ in range(2):
        host.click('[data-test="add-bot"]')
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 4", timeout=15000)
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    phones = [host, guest]
    for page in phones:
        page.wait_for_selector('[data-test="my-cards"]', timeout=15000)
        assert no_horizontal_scroll(page)
    try:
        for _ in range(600):
            if board.locator('[data-test="winners"]').count():
                break
            acted = [act(page) for page in phones]  # every phone gets its turn to tap
            if not any(acted):
                board.wait_for_timeout(300)
        else:
            raise AssertionError("the game did not end")
    except Exception:
        save_screenshots([*phones, board], "coup-failure")
        raise
    game = Game.objects.get(table__code=code)
    assert game.status == Game.FINISHED
    assert game.moves.filter(seat__in=[2, 3]).exists()  # the bots played through move_submit
    assert board.locator("#public-view .board-seat .bot-mark svg").count() == 2  # the bots' seats are marked
    for page in phones:
        page.wait_for_selector('[data-test="winners"]', timeout=15000)
    board.screenshot(path=str(ARTIFACTS / "coup-board-end.png"), full_page=True)
