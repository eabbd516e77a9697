"""On a 360×640 phone, the seat's own move is on the first screen of every game, with no sideways scroll.

One human phone and bots at each table; the human plays first, so the phone opens on a decision.
A screenshot of the first screen of each game goes to test-artifacts/phone-layout-<game>.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, save_screenshots
from tests.e2e.test_inside_job_browser import sit_down

pytestmark = pytest.mark.e2e

SMALL_PHONE = {
    "viewport": {"width": 360, "height": 640},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
FOLD = 640
# Players at each table (the human and bots): the smallest usual table of each game.
PLAYERS = {"coup": 4, "good_cop_bad_cop": 4, "good_cop_bad_cop_health": 4, "inside_job": 5}

MEASURE = """() => {
  const blocks = document.querySelectorAll('[data-test=my-move]');
  const block = blocks[0];
  const box = block.getBoundingClientRect();
  const buttons = [...block.querySelectorAll('button')].filter(b => b.offsetParent !== null);
  const first = buttons.length ? buttons[0].getBoundingClientRect() : null;
  // Every piece of text in the block, with its font size (own text nodes only).
  const sizes = [];
  for (const el of block.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && el.offsetParent !== null)
      sizes.push([parseFloat(getComputedStyle(el).fontSize), el.textContent.trim().slice(0, 40)]);
  }
  return {
    count: blocks.length,
    top: box.top + window.scrollY,
    firstButtonBottom: first ? first.bottom + window.scrollY : null,
    buttonHeights: buttons.map(b => b.getBoundingClientRect().height),
    smallText: sizes.filter(([size]) => size < 14),
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_seats_own_move_is_above_the_fold(browser, server, engine):
    phone = browser.new_context(**SMALL_PHONE).new_page()
    sit_down(phone, server.url, "Ana")
    phone.goto(f"{server.url}/new/?engine={engine}")
    phone.fill(f'[name="opt-{engine}-first_player"]', "1")  # the human (seat 1 of the form) starts
    phone.click('[data-test="create"]')
    for _ in range(PLAYERS[engine] - 1):
        phone.click('[data-test="add-bot"]')
    phone.wait_for_function(
        f"() => document.querySelectorAll('[data-test=seats] li').length === {PLAYERS[engine]}", timeout=15000
    )
    phone.click('[data-test="start"]')
    try:
        phone.wait_for_selector('[data-test="my-move"] form.move-form button', timeout=15000)
        # A fresh load, as a phone picked up from the table: scrolled to the top.
        phone.reload()
        phone.wait_for_selector('[data-test="my-move"] form.move-form button', timeout=15000)
        phone.screenshot(path=str(ARTIFACTS / f"phone-layout-{engine}.png"))
        phone.screenshot(path=str(ARTIFACTS / f"phone-layout-{engine}-full.png"), full_page=True)
        found = phone.evaluate(MEASURE)
        assert found["count"] == 1
        assert found["top"] < FOLD, found
        assert found["firstButtonBottom"] is not None and found["firstButtonBottom"] <= FOLD, found
        assert found["scrollWidth"] <= 360, found
        assert all(height >= 44 for height in found["buttonHeights"]), found
        assert found["smallText"] == [], found
    except Exception:
        save_screenshots([phone], f"phone-layout-{engine}-failure")
        raise
