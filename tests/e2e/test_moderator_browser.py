"""A tablet moderates a whole Inside Job game from the board, without a seat, while five phones play it.

The tablet creates the table as moderator and lands on the board (code, QR, seats filling in
live, the controls drawer); five phones join by code; the tablet starts the game, pauses and
resumes the timer, and reads the board aloud, while the phones play to the end by tapping.
The tablet's page never holds a role, and the game is in the moderator's history.
"""

from __future__ import annotations

import re

import pytest

from gameplay.models import Game
from lobby.models import Table
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, save_screenshots
from tests.e2e.test_inside_job_browser import act, no_horizontal_scroll, sit_down

pytestmark = pytest.mark.e2e
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed"]


def overlap(a: dict, b: dict) -> bool:
    """Whether two boxes (Playwright bounding boxes) cover each other anywhere."""
    return (a["x"] < b["x"] + b["width"] - 1 and b["x"] < a["x"] + a["width"] - 1
            and a["y"] < b["y"] + b["height"] - 1 and b["y"] < a["y"] + a["height"] - 1)


def test_a_tablet_moderates_a_whole_inside_job_game_played_on_five_phones(browser, server):
    base = server.url
    tablet = browser.new_context(**TABLET).new_page()
    sit_down(tablet, base, "Mia")
    tablet.click('[data-test="new-table"]')
    tablet.check('[data-test="role-moderate"]')
    tablet.select_option('[data-test="timer"]', "30")
    tablet.click('[data-test="create"]')
    tablet.wait_for_url(re.compile(r"/t/[A-Z2-9]{5}/board/$"))
    code = tablet.inner_text('[data-test="table-code"]').strip()
    table = Table.objects.get(code=code)
    assert not table.seats.exists()  # the moderator has no seat
    assert tablet.locator(".qr svg").count() == 1
    assert tablet.locator('[data-test="controls"][open]').count() == 1
    # Read aloud is off until the tablet turns it on (then remembered on this tablet).
    reads = tablet.locator('[data-test="read-aloud"]')
    can_speak = reads.is_visible()
    if can_speak:
        assert reads.get_attribute("aria-pressed") == "false"
        reads.click()
        assert reads.get_attribute("aria-pressed") == "true"

    phones = [browser.new_context(**PHONE).new_page() for _ in NAMES]
    for page, name in zip(phones, NAMES, strict=True):
        sit_down(page, base, name)
        page.fill('[data-test="code"]', code.lower())
        page.click('[data-test="find"]')
        page.click('[data-test="join"]')
    # The seats fill in live on the public board and in the drawer, without a reload.
    tablet.wait_for_function("() => document.querySelectorAll('[data-test=mod-seats] li').length === 5", timeout=15000)
    tablet.wait_for_function("() => document.querySelectorAll('#public-view .seat-grid li').length === 5",
                             timeout=15000)
    assert not overlap(tablet.locator('[data-test="controls"]').bounding_box(),
                       tablet.locator("#public-view").bounding_box())
    tablet.screenshot(path=str(ARTIFACTS / "moderator-board-seating.png"), full_page=True)
    tablet.click('[data-test="start"]')

    for page in phones:
        page.wait_for_selector('[data-test="role"]', timeout=15000)
        assert no_horizontal_scroll(page)
    tablet.wait_for_selector('[data-test="seed-hash"]', timeout=15000)
    # During play the drawer starts closed and sits beside or below the board, never over it.
    assert tablet.locator('[data-test="controls"][open]').count() == 0
    assert not overlap(tablet.locator('[data-test="controls"]').bounding_box(),
                       tablet.locator("#public-view").bounding_box())

    try:
        # The first proposal opens the vote window (30 s): the moderator pauses, then resumes it.
        for _ in range(50):
            if tablet.locator('[data-test="countdown"]').count():
                break
            for page in phones:
                if page.locator('[data-test="propose"]').count():
                    act(page)
            tablet.wait_for_timeout(200)
        tablet.click('[data-test="controls"] > summary')
        tablet.click('[data-test="pause"]')
        tablet.wait_for_selector('[data-test="paused"]', timeout=15000)
        assert tablet.locator('[data-test="controls"][open]').count() == 1  # the drawer stays as chosen
        assert reads.get_attribute("aria-pressed") == ("true" if can_speak else "false")  # remembered
        assert Game.objects.get(table=table).paused
        tablet.click('[data-test="resume"]')
        tablet.wait_for_selector('[data-test="countdown"]', timeout=15000)

        for _ in range(400):
            if tablet.locator('[data-test="outcome"]').count():
                break
            acted = False
            for page in phones:
                acted = act(page) or acted
            if not acted:
                tablet.wait_for_timeout(300)
        else:
            raise AssertionError("the game did not end")
        tablet.wait_for_selector('[data-test="outcome"]', timeout=15000)
    except Exception:
        save_screenshots([*phones, tablet], "moderator-failure")
        raise

    game = Game.objects.get(table=table)
    assert game.status == Game.FINISHED and game.moderator == table.host
    html = tablet.content()
    assert 'data-role="' not in html and 'data-test="role"' not in html
    if can_speak:
        spoken = tablet.evaluate("window.__spoken || []")
        assert spoken, "read aloud said nothing"
        # Every phrase said is text the board shows (the server's translated lines), not words of the script.
        page_text = re.sub(r"\s+", " ", tablet.inner_text("body"))
        assert any(line.split(" ")[0] in page_text for line in spoken)
    ARTIFACTS.mkdir(exist_ok=True)
    tablet.screenshot(path=str(ARTIFACTS / "moderator-board-end.png"), full_page=True)
    # At the end the drawer starts closed, so the reveal shows whole; opened, it offers Play again. The game is in the
    # moderator's history as moderator.
    assert tablet.locator('[data-test="controls"][open]').count() == 0
    tablet.click('[data-test="controls"] > summary')
    assert tablet.locator('[data-test="start"]').inner_text().strip() == "Play again"
    tablet.goto(base + "/history/")
    assert tablet.locator('[data-test="as-moderator"]').count() == 1
    from django.core.management import call_command

    call_command("verify_game", str(game.pk))
