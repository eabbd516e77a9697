"""A phone plays a whole Good Cop Bad Cop (health edition) game against three bots, tapping its buttons."""

from __future__ import annotations

import random

import pytest

from gameplay.models import Game
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, save_screenshots, tap_and_settle
from tests.e2e.test_inside_job_browser import no_horizontal_scroll, sit_down

pytestmark = pytest.mark.e2e


# A player who wants the game over: shoot when armed, arm when possible, else anything.
DECISIVE = ['[data-test="shoot"]', '[data-test="arm"]', '[data-test^="aim-"]']


def open_folds(page) -> None:
    """Open the closed folds of this seat's move ("Inspect", "Equip a card"), as a player would to play from them."""
    from playwright.sync_api import Error as PlaywrightError

    for summary in page.locator('#private-view [data-test="my-move"] details:not([open]) > summary').all():
        try:
            summary.click(timeout=1000)
        except PlaywrightError:  # the panel was swapped meanwhile: its folds are looked at again next time
            return


def tap_any(page, rng: random.Random) -> bool:
    """Tap a decisive move if there is one, else one of this phone's visible buttons; False when it has none."""
    open_folds(page)
    buttons = page.locator("#private-view form.move-form button[type=submit]:not([disabled]):visible")
    for selector in DECISIVE:
        decisive = page.locator(f"#private-view form.move-form button{selector}:not([disabled])")
        if decisive.count():
            buttons = decisive
            break
    count = buttons.count()
    if not count:
        return False
    return tap_and_settle(page, buttons.nth(rng.randrange(count)), tolerant=True)


# The published rule set runs to hundreds of moves with bots pausing like people; its screens are
# covered by its template and information-set tests, and the health edition plays through here.
@pytest.mark.parametrize("engine", ["good_cop_bad_cop_health"])
def test_a_phone_and_three_bots_finish_a_game(browser, server, engine):
    rng = random.Random(engine)
    phone = browser.new_context(**PHONE).new_page()
    sit_down(phone, server.url, "Ana")
    phone.goto(f"{server.url}/new/?engine={engine}")
    phone.click('[data-test="create"]')
    for _ in range(3):
        phone.click('[data-test="add-bot"]')
    code = phone.inner_text('[data-test="table-code"]').strip()
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    phone.click('[data-test="start"]')
    phone.wait_for_selector("#private-view [data-test]", timeout=15000)
    assert no_horizontal_scroll(phone)
    try:
        for _ in range(900):
            if board.locator('[data-test="winners"]').count():
                break
            if not tap_any(phone, rng):
                phone.wait_for_timeout(300)
            assert no_horizontal_scroll(phone)
        else:
            raise AssertionError("the game did not end")
    except Exception:
        save_screenshots([phone, board], f"{engine}-failure")
        raise
    game = Game.objects.get(table__code=code)
    assert game.status == Game.FINISHED
    assert game.moves.filter(seat=0).exists() and game.moves.filter(seat__gt=0).exists()
    phone.wait_for_selector('[data-test="winners"]', timeout=15000)
    board.screenshot(path=str(ARTIFACTS / f"{engine}-board-end.png"), full_page=True)
