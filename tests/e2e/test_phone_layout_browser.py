"""On a 360×640 phone, the seat's own move is on the first screen of every game, with no sideways scroll;
on a 360×740 phone, a joining phone's name field and sit-down button are on the join page's first screen.

One human phone and bots at each table; the human plays first, so the phone opens on a decision.
A screenshot of the first screen of each game goes to test-artifacts/phone-layout-<game>.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, PHONE, save_screenshots
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


# Where the join page's controls end, measured from the top of the page (it opens scrolled to the top).
JOIN_CONTROLS = """() => Object.fromEntries(['nickname', 'sit', 'join'].map(name => {
  const el = document.querySelector(`[data-test=${name}]`);
  return [name, el && el.offsetParent !== null ? el.getBoundingClientRect().bottom + window.scrollY : null];
}))"""


def test_a_joining_phone_sits_down_without_scrolling(browser, server):
    """A phone that opened the table's link or QR finds the name field and the sit-down button on its
    first screen at 360×740, at a table of one (the invite the host shows) and at a full table; a phone
    that already has a name finds "Take a seat" there. The invite is folded on the joining phone."""
    host = browser.new_context(**PHONE).new_page()
    sit_down(host, server.url, "Ana")
    host.goto(f"{server.url}/new/?engine=coup")
    host.click('[data-test="create"]')
    code = host.inner_text('[data-test="table-code"]').strip()
    # The host alone at the table finds the invite open, to show its QR round.
    assert host.evaluate("() => document.querySelector('details.invite').open") is True
    joiner_context = browser.new_context(**PHONE)
    joiner = joiner_context.new_page()
    try:
        for bots in (0, 8):
            for _ in range(bots):
                host.click('[data-test="add-bot"]')
            joiner.goto(f"{server.url}/t/{code}/")
            joiner.screenshot(path=str(ARTIFACTS / f"phone-join-{bots + 1}-seats.png"))
            found = joiner.evaluate(JOIN_CONTROLS)
            assert found["nickname"] is not None and found["nickname"] <= 740, found
            assert found["sit"] is not None and found["sit"] <= 740, found
            assert joiner.evaluate("() => document.querySelector('details.invite').open") is False
            assert joiner.evaluate("() => document.documentElement.scrollWidth") <= 360
        # A phone with a name (it played before) but no seat here: "Take a seat" on the first screen.
        named = joiner_context.new_page()
        sit_down(named, server.url, "Bea")
        named.goto(f"{server.url}/t/{code}/")
        found = named.evaluate(JOIN_CONTROLS)
        assert found["join"] is not None and found["join"] <= 740, found
    except Exception:
        save_screenshots([joiner], "phone-join-failure")
        raise
