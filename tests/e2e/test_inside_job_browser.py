"""Five phones and a board play a whole Inside Job game by tapping, across two server processes."""

from __future__ import annotations

import re

import pytest

from gameplay.models import Game
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, save_screenshots, tap_and_settle

pytestmark = pytest.mark.e2e
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed"]


def sit_down(page, base: str, name: str) -> None:
    page.goto(base + "/")
    page.fill('[data-test="nickname"]', name)
    page.click('[data-test="sit"]')


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def act(page) -> bool:
    """Tap whatever this phone is asked to do now; False when it has nothing to do."""
    if page.locator('[data-test="propose"]').count():
        size = int(re.search(r"team of (\d+)", page.inner_text(".ij-mission-title")).group(1))
        for seat in range(size):
            page.click(f'[data-test="pick-{seat}"]', timeout=5000)
        tap_and_settle(page, page.locator('[data-test="propose"]').first)
        return True
    # Votes and mission cards answer a shared window: another phone's last answer may close it
    # (even end the game) while this tap is on its way, so a button that vanished is looked for again.
    for hook in ('[data-test="vote-approve"]', '[data-test="play-sabotage"]', '[data-test="play-success"]'):
        if page.locator(hook).count():
            return tap_and_settle(page, page.locator(hook).first, tolerant=True)
    if page.locator('[data-test^="assassinate-"]').count():
        tap_and_settle(page, page.locator('[data-test^="assassinate-"]').first)
        return True
    return False


def test_whole_inside_job_game_on_five_phones_and_a_board(browser, servers):
    first, second = servers
    phones = [browser.new_context(**PHONE).new_page() for _ in NAMES]
    # The fifth phone and the board talk to the second process: pushes must cross Redis.
    bases = [first.url] * 4 + [second.url]
    for page, base, name in zip(phones, bases, NAMES, strict=True):
        sit_down(page, base, name)

    host = phones[0]
    host.click('[data-test="new-table"]')
    host.click('[data-test="create"]')
    code = host.inner_text('[data-test="table-code"]').strip()
    assert re.fullmatch(r"[A-Z2-9]{5}", code)

    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{second.url}/t/{code}/board/")
    assert code in board.inner_text('[data-test="table-code"]')

    for page in phones[1:]:
        page.fill('[data-test="code"]', code.lower())
        page.click('[data-test="find"]')
        page.click('[data-test="join"]')
    # The host's page learns of each join without a reload.
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 5", timeout=15000)
    host.click('[data-test="start"]')

    roles = []
    for page in phones:
        page.wait_for_selector('[data-test="role"]', timeout=15000)
        roles.append(page.get_attribute('[data-test="role"]', "data-role"))
        assert no_horizontal_scroll(page)
    assert sorted(roles).count("traitor") == 2
    board.wait_for_selector('[data-test="seed-hash"]', timeout=15000)
    board_text = board.inner_text("body")
    for role in ("traitor", "agent"):
        assert f'data-role="{role}"' not in board.content()
    assert "seed" not in board_text.lower().replace("seed hash", "")

    try:
        for _ in range(400):
            if board.locator('[data-test="outcome"]').count():
                break
            acted = False
            for page in phones:
                acted = act(page) or acted
            if not acted:
                board.wait_for_timeout(300)
        else:
            raise AssertionError("the game did not end")
    except Exception:
        save_screenshots([*phones, board], "failure")
        raise

    board.wait_for_selector('[data-test="outcome"]', timeout=15000)
    game = Game.objects.get(table__code=code)
    assert game.status == Game.FINISHED
    for page in phones:
        page.wait_for_selector('[data-test="outcome"]', timeout=15000)
        assert game.seed in page.content()
    ARTIFACTS.mkdir(exist_ok=True)
    phones[0].screenshot(path=str(ARTIFACTS / "inside-job-phone-end.png"), full_page=True)
    board.screenshot(path=str(ARTIFACTS / "inside-job-board-end.png"), full_page=True)
    # Every move came through the phones: the log replays to the recorded outcome.
    from django.core.management import call_command

    call_command("verify_game", str(game.pk))
