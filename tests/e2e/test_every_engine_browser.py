"""Phones in every engine people hold at a table: Chromium, WebKit (Safari's engine) and Firefox.

A whole Coup game with one phone in each engine and the board in Chromium: a hold-to-peek in each engine kept open
while another phone's move lands, a language switched to Persian (whose font must measure alike in every engine), a
reload and a rejoin, and pushes arriving in every engine (the page's own ``table-pushed`` event). And the hold test
of tests/e2e/test_phone_peek_browser.py (a hold kept open across a push and a refetch) in each engine.

The drivers are in tests/e2e/engines_drivers.py; a missing browser fails the run saying what to install.
"""

from __future__ import annotations

import contextlib
import time

import pytest
from django.conf import settings

from gameplay.models import Game
from tests.e2e.conftest import ARTIFACTS, MARK_STALE, PHONE, TABLET
from tests.e2e.engines_drivers import Phone
from tests.e2e.test_phone_peek_browser import HOLD_STATE, MARK, Choice, coup_phase, reach

pytestmark = pytest.mark.e2e

ENGINES = ["chromium", "webkit", "firefox"]

# Every `table-pushed` event the page has seen (the revisions pushed to it over its socket).
LISTEN = """() => {
  if (!window.__pushes) {
    window.__pushes = [];
    document.body.addEventListener('table-pushed', e => window.__pushes.push(e.detail.revision));
  }
  return true;
}"""

SETTLED = "() => { const p = document.getElementById('private-view'); return !!p && !p.dataset.stale; }"

# What a hurried human taps, first match wins: finish the turn, never stall a window (as test_coup_browser).
PREFERENCES = [
    '[data-test^="action-coup-"]',
    '[data-test="allow"]',
    '[data-test^="lose-"]',
    '[data-test^="reveal-"]',
    '[data-test^="show-"]',
    '[data-test="action-tax"]',
    '[data-test="action-income"]',
]
FIRST = "(selectors) => selectors.find(s => document.querySelector(s)) || null"

# A Persian line in the page's own font at the body's size: its width tells which font draws it.
PERSIAN = "بازی دوباره · نوبت شما: مالیات بگیرید یا کودتا کنید"
MEASURE_PERSIAN = """(text) => {
  const width = weight => {
    const probe = document.createElement('span');
    probe.textContent = text;
    probe.style.whiteSpace = 'nowrap';
    probe.style.fontWeight = weight;
    document.querySelector('main').appendChild(probe);
    const found = probe.getBoundingClientRect().width;
    probe.remove();
    return found;
  };
  return {regular: width('400'), bold: width('700'), lang: document.documentElement.lang,
          dir: document.documentElement.dir, font: getComputedStyle(document.body).fontFamily,
          scroll: document.documentElement.scrollWidth <= window.innerWidth + 1,
          header: Math.round(document.querySelector('.top').getBoundingClientRect().height)};
}"""
# Within this share of Chromium's width: the same face (WebKit rounds its advances to whole pixels); each engine's
# own fallback was 3% wider in Firefox, and a fifth wider in bold in WebKit and Firefox (the header wrapped).
ALIKE = 0.01


def sit_down(phone: Phone, base: str, name: str) -> None:
    phone.goto(base + "/")
    phone.fill('[data-test="nickname"]', name)
    phone.click('[data-test="sit"]')
    phone.wait_for("() => !document.querySelector('[data-test=nickname]') && document.readyState === 'complete'")


def tap_and_settle(phone: Phone, selector: str) -> bool:
    """Tap and wait until the answer replaced the panel; False when the button went first (a window closed)."""
    phone.evaluate(MARK_STALE)
    try:
        phone.click(selector, timeout=3)
        phone.wait_for(SETTLED, timeout=10)
    except AssertionError:
        return False
    return True


def act(phone: Phone) -> bool:
    selector = phone.evaluate(FIRST, PREFERENCES)
    return bool(selector) and tap_and_settle(phone, selector)


def on_the_game(phone: Phone) -> None:
    """The phone shows its cards and listens for pushes (again after a load)."""
    phone.wait_selector('[data-test="my-cards"]', timeout=20)
    phone.wait_for("() => window.htmx && document.readyState === 'complete'")
    phone.evaluate(LISTEN)
    phone.watch_errors()


def revision(phone: Phone) -> int:
    return int(phone.evaluate("() => parseInt(document.getElementById('private-view').dataset.revision, 10)"))


def save(phones: list[Phone], prefix: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for phone in phones:
        with contextlib.suppress(Exception):  # a failure's screenshot is a courtesy: the failure is reported
            phone.screenshot(ARTIFACTS / f"{prefix}-{phone.engine}.png")


def hold_while_another_moves(holders: list[Phone], mover: Phone) -> None:
    """Each holder holds its cards open while ``mover`` takes Income: the move is pushed to every holder (the next
    player's own part, now with its turn's moves, swapped in under the finger; the other's public parts), and every
    hold stays open (and says so) until its finger lifts."""
    before = {}
    for phone in holders:
        phone.evaluate(MARK, ["pv-seat"])
        before[phone.engine] = phone.evaluate(HOLD_STATE, "peek-hand")["revision"]
        phone.hold("#peek-hand [data-peek-button]")
        assert phone.evaluate(HOLD_STATE, "peek-hand")["open"], phone.engine
    assert tap_and_settle(mover, '[data-test="action-income"]'), mover.engine
    for phone in holders:
        phone.wait_for("(rev) => parseInt(document.getElementById('private-view').dataset.revision, 10) > rev",
                       before[phone.engine])
        time.sleep(0.2)
        held = phone.evaluate(HOLD_STATE, "peek-hand")
        assert held["open"] and held["visible"] and held["expanded"] == "true", (phone.engine, held)
        assert any(v > before[phone.engine] for v in phone.evaluate("() => window.__pushes")), phone.engine
        phone.lift()
        released = phone.evaluate(HOLD_STATE, "peek-hand")
        assert not released["open"] and released["expanded"] == "false", (phone.engine, released)


def to_persian(phone: Phone) -> dict:
    """The phone picks Persian in the language menu at the foot of the page; the page comes back in Persian."""
    phone.evaluate("""() => { const menu = document.getElementById('lang'); menu.value = 'fa';
      menu.dispatchEvent(new Event('change', {bubbles: true})); }""")
    phone.wait_for("() => document.documentElement.lang === 'fa' && document.readyState === 'complete'")
    on_the_game(phone)
    return phone.evaluate(MEASURE_PERSIAN, PERSIAN)


def test_a_whole_coup_game_with_a_phone_in_each_engine_and_a_chromium_board(browser, server, phones):
    host, webkit, firefox = phones("chromium"), phones("webkit"), phones("firefox")
    everyone = [host, webkit, firefox]
    board = browser.new_context(**TABLET).new_page()
    try:
        assert "Safari" in webkit.user_agent() and "Firefox" in firefox.user_agent()
        for phone in everyone:
            phone.goto(server.url + "/")
            assert phone.evaluate("() => [innerWidth, innerHeight]") == [360, 740], phone.engine
        for phone, name in zip(everyone, ["Ana", "Bo", "Cy"], strict=True):
            sit_down(phone, server.url, name)
        host.goto(server.url + "/new/?engine=coup")
        host.click('[data-test="create"]')
        host.wait_selector('[data-test="table-code"]')
        code = host.text('[data-test="table-code"]').strip()
        for phone in (webkit, firefox):
            phone.goto(f"{server.url}/t/{code}/")
            phone.click('[data-test="join"]')
            phone.wait_for("() => !document.querySelector('[data-test=join]') && document.readyState === 'complete'")
        host.wait_for("() => document.querySelectorAll('[data-test=seats] li').length === 3")
        board.goto(f"{server.url}/t/{code}/board/")
        host.click('[data-test="start"]')
        for phone in everyone:
            on_the_game(phone)

        # The first turn: the other two hold their cards open while its player takes Income.
        started = time.monotonic()
        while True:
            movers = [p for p in everyone if p.count('[data-test="action-income"]')]
            if movers or time.monotonic() - started > 15:
                break
            time.sleep(0.1)
        assert len(movers) == 1, [p.engine for p in movers]
        hold_while_another_moves([p for p in everyone if p is not movers[0]], movers[0])

        # Persian on every phone (through the menu at the page's foot): the same font, so the same width, in all.
        persian = {phone.engine: to_persian(phone) for phone in everyone}
        for engine, found in persian.items():
            assert found["lang"] == "fa" and found["dir"] == "rtl" and found["scroll"], (engine, found)
            for weight in ("regular", "bold"):
                assert abs(found[weight] / persian["chromium"][weight] - 1) <= ALIKE, (engine, weight, persian)
            assert abs(found["header"] - persian["chromium"]["header"]) <= 2, (engine, persian)  # as many rows
        for phone in everyone:
            phone.screenshot(ARTIFACTS / f"every-engine-fa-{phone.engine}.png")
        print("Persian in every engine:", persian)

        # A reload (WebKit) and a rejoin from the home page by the table's link (Firefox).
        webkit.reload()
        on_the_game(webkit)
        firefox.goto(server.url + "/")
        firefox.goto(f"{server.url}/t/{code}/")
        on_the_game(firefox)

        for _ in range(600):
            if board.locator('[data-test="winners"]').count():
                break
            acted = [act(phone) for phone in everyone]
            if not any(acted):
                time.sleep(0.3)
        else:
            raise AssertionError("the game did not end")
        for phone in everyone:
            phone.wait_selector('[data-test="winners"]', timeout=15)
            # Pushes kept arriving in every engine after the reload and the rejoin.
            assert phone.evaluate("() => window.__pushes.length") >= 3, phone.engine
        print("Errors in every engine:", {phone.engine: phone.errors() for phone in everyone})
        for phone in everyone:
            assert phone.errors() == [], (phone.engine, phone.errors())
    except Exception:
        save(everyone, "every-engine-failure")
        board.screenshot(path=str(ARTIFACTS / "every-engine-failure-board.png"))
        raise
    finally:
        board.context.close()
    game = Game.objects.get(table__code=code)
    assert game.status == Game.FINISHED


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hold_stays_open_while_another_phones_move_lands_in_every_engine(browser, server, phones, engine):
    """Seat 0 (a phone in ``engine``) holds its cards while seat 2's Income lands (pushed: the seat's part swapped
    in), then while the whole panel is fetched again (htmx): the cards stay shown, the cover says so
    (aria-expanded), and they hide at the release."""
    choice = Choice("coup", 3, lambda s: s["phase"] == "action" and s["turn"] == 2, {}, coup_phase, "#peek-hand",
                    '[data-test^="action-"]', {"first_player": "3"})
    table, people = reach(choice)
    cookie = settings.SESSION_COOKIE_NAME
    phone = phones(engine)
    phone.add_cookie(server.url, cookie, people[0].client.cookies[cookie].value)
    phone.goto(f"{server.url}/t/{table.code}/")
    mover = browser.new_context(**PHONE)
    mover.add_cookies([{"name": cookie, "value": people[2].client.cookies[cookie].value, "url": server.url}])
    other = mover.new_page()
    try:
        other.goto(f"{server.url}/t/{table.code}/")
        other.wait_for_selector('[data-test="action-income"]', timeout=15000)
        phone.wait_selector("#pv-seat [data-peek]", timeout=20)
        phone.wait_for("() => window.htmx && document.getElementById('pv-seat') && document.readyState === 'complete'")
        phone.evaluate(LISTEN)
        phone.evaluate(MARK, ["pv-seat"])
        before = phone.evaluate(HOLD_STATE, "peek-hand")
        phone.hold("#peek-hand [data-peek-button]")
        assert phone.evaluate(HOLD_STATE, "peek-hand")["open"]

        # Another phone's move, pushed to this one: its own part (now with its turn's moves) swapped in.
        other.click('[data-test="action-income"]')
        phone.wait_for("(rev) => parseInt(document.getElementById('private-view').dataset.revision, 10) > rev "
                       "&& document.querySelector('[data-test=action-income]')", before["revision"])
        time.sleep(0.2)
        held = phone.evaluate(HOLD_STATE, "peek-hand")
        assert not held["same"], held
        assert held["open"] and held["visible"] and held["expanded"] == "true" and held["hidden"] == "false", held
        assert phone.evaluate("() => window.__pushes"), "no push reached the phone"

        # The whole panel fetched again (a refetch after a missed push) while the finger is still down.
        phone.evaluate(MARK, ["private-view"])
        phone.evaluate("() => htmx.trigger(document.body, 'table-changed')")
        phone.wait_for("() => !window.__marked.every(el => document.contains(el))", timeout=10)
        time.sleep(0.2)
        held = phone.evaluate(HOLD_STATE, "peek-hand")
        assert held["open"] and held["visible"] and held["expanded"] == "true" and held["hidden"] == "false", held

        phone.lift()
        released = phone.evaluate(HOLD_STATE, "peek-hand")
        assert not released["open"] and not released["visible"] and released["expanded"] == "false", released
    except Exception:
        save([phone], "every-engine-hold-failure")
        other.screenshot(path=str(ARTIFACTS / "every-engine-hold-failure-mover.png"))
        raise
    finally:
        mover.close()
