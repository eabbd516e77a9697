"""A phone that can lie on the table, in headless Chromium: hold to peek (finger, keys, release, the
page hidden, the timeout, a swapped panel), the first-time hint, the awaited cue (vibration), the
screen wake lock, the sound option, and sizes (text >= 14 px, header links and toggles >= 44 px).

One human phone at an Inside Job table of bots; a bot leads first, so the phone starts waiting and is
then asked to vote. Vibration and the wake lock are stubbed by an init script (headless Chromium has
no motor and refuses a real lock): the test checks the page asks for them at the right moments.
Screenshots go to test-artifacts/phone-ux-*.png.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, ROOT, save_screenshots
from tests.e2e.test_inside_job_browser import sit_down

pytestmark = pytest.mark.e2e

SMALL_PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2}

# Records what the page asks of the hardware (an init script runs before the page's own scripts).
STUBS = """() => {
  window.__vibrations = [];
  window.__locks = 0;
  Object.defineProperty(Navigator.prototype, 'vibrate', {configurable: true,
    value: function (pattern) { window.__vibrations.push(pattern); return true; }});
  const fake = {request: function () {
    window.__locks += 1;
    const sentinel = new EventTarget();
    sentinel.release = function () { sentinel.dispatchEvent(new Event('release')); return Promise.resolve(); };
    window.__sentinel = sentinel;
    return Promise.resolve(sentinel);
  }};
  Object.defineProperty(Navigator.prototype, 'wakeLock', {configurable: true, get: function () { return fake; }});
}"""

STATE = """() => {
  const peek = document.querySelector('[data-peek]');
  const secret = peek.querySelector('.peek-secret');
  const cover = peek.querySelector('[data-peek-button]');
  const box = peek.getBoundingClientRect();
  return {visible: getComputedStyle(secret).visibility === 'visible',
          expanded: cover.getAttribute('aria-expanded'), hidden: secret.getAttribute('aria-hidden'),
          width: box.width, height: box.height, page: document.documentElement.scrollHeight};
}"""

SIZES = """() => {
  const small = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && el.offsetParent !== null && getComputedStyle(el).visibility === 'visible'
        && parseFloat(getComputedStyle(el).fontSize) < 14)
      small.push([el.tagName, el.className, el.textContent.trim().slice(0, 30)]);
  }
  const short = [...document.querySelectorAll('a[href], button, select, summary, [data-peek-button]')]
    .filter(el => el.offsetParent !== null && el.getBoundingClientRect().height < 44)
    .map(el => [el.tagName, el.textContent.trim().slice(0, 30), el.getBoundingClientRect().height]);
  return {small: small, short: short, scrollWidth: document.documentElement.scrollWidth,
          h1: document.querySelectorAll('h1').length};
}"""


# The status line says the table waits for this phone's vote alone.
ONLY_ANA_AWAITED = """() => {
  const waiting = document.querySelector('[data-test=phone-status] .ij-waiting');
  return !!waiting && waiting.textContent.includes('Waiting for Ana to vote.');
}"""


def state(page) -> dict:
    return page.evaluate(STATE)


def cover_center(page) -> tuple[float, float]:
    """The middle of the first face-down card. Asked again if a panel swapped in just then (a push
    or a refetch replaces the element between finding it and measuring it)."""
    for _ in range(50):
        box = page.locator("[data-peek-button]").first.bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.wait_for_timeout(100)
    raise AssertionError("no face-down card to hold on the page")


@pytest.fixture
def phone(browser, server):
    context = browser.new_context(**SMALL_PHONE)
    context.add_init_script(script=f"({STUBS})()")
    page = context.new_page()
    sit_down(page, server.url, "Ana")
    page.goto(f"{server.url}/new/?engine=inside_job")
    page.fill('[name="opt-inside_job-first_player"]', "2")  # a bot leads: the phone starts by waiting
    page.click('[data-test="create"]')
    for _ in range(4):
        page.click('[data-test="add-bot"]')
    page.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 5", timeout=15000)
    page.click('[data-test="start"]')
    page.wait_for_selector("[data-peek-button]", timeout=15000)
    yield page
    context.close()


def test_a_secret_shows_only_while_held_and_the_page_looks_the_same_held_or_not(phone):
    page = phone
    try:
        # The bots vote first, a move each 1.2 s: once the table waits for this phone alone, nothing on the page
        # moves but what the phone itself does (a bot's vote landing while the card is held changes the page).
        page.wait_for_function(ONLY_ANA_AWAITED, timeout=30000)
        before = state(page)
        assert not before["visible"] and before["expanded"] == "false" and before["hidden"] == "true"
        page.screenshot(path=str(ARTIFACTS / "phone-ux-face-down.png"))
        # The first-time hint shows until the first peek.
        assert page.locator("[data-peek-hint]").is_visible()
        x, y = cover_center(page)
        page.mouse.move(x, y)
        page.mouse.down()
        held = state(page)
        assert held["visible"] and held["expanded"] == "true" and held["hidden"] == "false"
        # Nothing moves under the finger while it holds (the hint goes only after the release).
        assert (held["width"], held["height"], held["page"]) == (before["width"], before["height"], before["page"])
        page.wait_for_timeout(300)
        assert state(page)["visible"]
        assert page.locator("[data-peek-hint]").is_visible()
        page.mouse.up()
        assert not state(page)["visible"]
        assert not page.locator("[data-peek-hint]").is_visible()
        assert page.evaluate("() => localStorage.getItem('peek-hint-seen')") == "1"
        page.reload()
        page.wait_for_selector("[data-peek-button]")
        assert not page.locator("[data-peek-hint]").is_visible()  # remembered

        # Held or not, the page has the same size everywhere.
        before = state(page)
        page.mouse.move(*cover_center(page))
        page.mouse.down()
        held = state(page)
        page.screenshot(path=str(ARTIFACTS / "phone-ux-held.png"))
        assert held["visible"] and state(page)["visible"]
        assert (held["width"], held["height"], held["page"]) == (before["width"], before["height"], before["page"])
        page.mouse.up()

        # A finger that slides off the card hides it.
        x, y = cover_center(page)
        page.mouse.move(x, y)
        page.mouse.down()
        assert state(page)["visible"]
        page.mouse.move(x, 5)
        assert not state(page)["visible"]
        page.mouse.up()

        # Keys: Space or Enter held on the focused cover, hidden on release; a held key is not a click.
        page.locator("[data-peek-button]").first.focus()
        for key in ("Space", "Enter"):
            page.keyboard.down(key)
            assert state(page)["visible"], key
            page.keyboard.up(key)
            assert not state(page)["visible"], key

        # The page hidden (the phone put down, another app): hidden at once.
        page.mouse.move(*cover_center(page))
        page.mouse.down()
        assert state(page)["visible"]
        page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
                                 document.dispatchEvent(new Event('visibilitychange')); }""")
        assert not state(page)["visible"]
        page.mouse.up()
        page.evaluate("() => { delete document.hidden; }")

        # Held too long: hidden after about five seconds anyway.
        page.mouse.move(*cover_center(page))
        page.mouse.down()
        assert state(page)["visible"]
        page.wait_for_function("() => getComputedStyle(document.querySelector('.peek-secret')).visibility === 'hidden'",
                               timeout=7000)
        page.mouse.up()

        # A panel swapped in by htmx (every table change refetches it) still peeks.
        # (Asked again every half second until it comes: a refetch asked while another is in flight is
        # dropped by hx-sync, and bots' moves keep refetching meanwhile on a busy machine.)
        page.evaluate("""() => { document.getElementById('private-view').dataset.old = '1';
          const ask = () => { if (document.getElementById('private-view').dataset.old) {
            htmx.trigger(document.body, 'table-changed'); setTimeout(ask, 500); } };
          ask(); }""")
        page.wait_for_function("() => !document.getElementById('private-view').dataset.old", timeout=10000)
        page.mouse.move(*cover_center(page))
        page.mouse.down()
        assert state(page)["visible"]
        page.mouse.up()
        assert not state(page)["visible"]
    except Exception:
        save_screenshots([page], "phone-ux-peek-failure")
        raise


def test_the_phone_is_kept_awake_and_buzzes_when_its_answer_is_awaited(phone):
    page = phone
    try:
        page.wait_for_function("() => window.__locks >= 1 && document.body.dataset.wakeLock === 'on'", timeout=10000)
        # The browser drops the lock when the page is hidden; coming back asks again.
        page.evaluate("() => window.__sentinel.release()")
        page.wait_for_function("() => document.body.dataset.wakeLock === undefined", timeout=5000)
        page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
        page.wait_for_function("() => window.__locks >= 2 && document.body.dataset.wakeLock === 'on'", timeout=5000)
        # The bot leader proposes, the vote awaits this phone: it vibrates once and says so.
        page.wait_for_selector('[data-test="vote-approve"]', timeout=20000)
        page.wait_for_function("() => window.__vibrations.length === 1", timeout=10000)
        assert page.locator('[data-test="your-move"]').is_visible()
        assert page.evaluate("() => document.body.classList.contains('awaited')")
        page.screenshot(path=str(ARTIFACTS / "phone-ux-awaited.png"))
        page.click('[data-test="vote-approve"]')
        page.wait_for_selector('[data-test="vote-approve"]', state="detached", timeout=10000)
        assert page.evaluate("() => window.__vibrations.length") == 1
    except Exception:
        save_screenshots([page], "phone-ux-awake-failure")
        raise


def test_the_sound_option_is_off_by_default_and_remembered(phone):
    page = phone
    toggle = page.locator("[data-sound-toggle]")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("[data-sound-toggle]")
    assert page.locator("[data-sound-toggle]").get_attribute("aria-pressed") == "true"
    page.locator("[data-sound-toggle]").click()
    assert page.evaluate("() => localStorage.getItem('sound-on')") == "0"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_phone_text_is_at_least_14px_and_targets_44px_in_both_themes(phone, scheme):
    page = phone
    page.emulate_media(color_scheme=scheme)
    page.locator('[data-test="reference"] > summary').click()  # open the reference card too
    found = page.evaluate(SIZES)
    page.screenshot(path=str(ARTIFACTS / f"phone-ux-{scheme}.png"), full_page=True)
    assert found["small"] == [], found
    assert found["short"] == [], found
    assert found["scrollWidth"] <= 360, found
    assert found["h1"] == 1
    if scheme == "dark":
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(18, 20, 23)"


def test_the_manifest_and_favicon_load(phone, server):
    page = phone
    manifest = page.request.get(server.url + "/manifest.webmanifest")
    assert manifest.ok and manifest.headers["content-type"].startswith("application/manifest+json")
    assert page.request.get(server.url + "/favicon.ico").ok
    for icon in manifest.json()["icons"]:
        assert page.request.get(server.url + icon["src"]).ok, icon


# One held box: its secret shows whole (grown over the page if it is longer than the box) and on the screen.
HELD_FITS = """(id) => {
  const peek = document.getElementById(id);
  const secret = peek.querySelector('.peek-secret');
  const r = secret.getBoundingClientRect();
  const whole = secret.scrollHeight <= secret.clientHeight + 1 && secret.scrollWidth <= secret.clientWidth + 1;
  const onScreen = r.top >= -1 && r.bottom <= window.innerHeight + 1;
  return {id: id, open: peek.classList.contains('open'), fits: whole && onScreen, onScreen: onScreen,
          need: secret.scrollHeight, have: secret.clientHeight, top: r.top, bottom: r.bottom};
}"""


@pytest.mark.parametrize("engine", ["coup", "good_cop_bad_cop", "good_cop_bad_cop_health", "inside_job"])
def test_every_games_secrets_fit_their_face_down_box(browser, server, engine):
    context = browser.new_context(**SMALL_PHONE)
    page = context.new_page()
    try:
        sit_down(page, server.url, "Ana")
        page.goto(f"{server.url}/new/?engine={engine}")
        page.click('[data-test="create"]')
        for _ in range(3 if engine != "inside_job" else 4):
            page.click('[data-test="add-bot"]')
        page.click('[data-test="start"]')
        page.wait_for_selector("[data-peek-button]", timeout=15000)
        # The bots play on and the panel is swapped meanwhile: a box that went away is looked for again.
        found = []
        for peek_id in page.evaluate("() => [...document.querySelectorAll('[data-peek]')].map(p => p.id)"):
            for attempt in range(3):
                try:
                    cover = page.locator(f"#{peek_id} [data-peek-button]")
                    cover.scroll_into_view_if_needed(timeout=3000)
                    box = cover.bounding_box()
                    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                    page.mouse.down()
                    page.screenshot(path=str(ARTIFACTS / f"phone-ux-{engine}-{peek_id}.png"))
                    held = page.evaluate(HELD_FITS, peek_id)
                    page.mouse.up()
                    # Off the screen: a panel swapped in meanwhile moved the box away from the finger; again.
                    if held["open"] and (held["onScreen"] or attempt == 2):
                        found.append(held)
                        break
                except Exception:  # noqa: BLE001 (a swapped panel; tried again)
                    page.mouse.up()
        # Held, each secret shows whole and on the screen (a longer one grows over the page while held).
        assert found and all(f["fits"] for f in found), found
    except Exception:
        save_screenshots([page], f"phone-ux-{engine}-fit-failure")
        raise
    finally:
        context.close()


LONGER = """(n) => { const s = document.querySelector('#peek-role .peek-secret');
  for (let i = 0; i < n; i++) {
    const p = document.createElement('p'); p.textContent = 'Line ' + i; s.appendChild(p);
  } }"""


def test_a_secret_longer_than_its_box_grows_while_held_and_nothing_moves(phone):
    """A long game's secret (here twelve more lines in the role box) is never cut off: held, it grows over
    the page below, kept on the screen; the box keeps its size and place, the page its length; let go,
    it lies face-down again in its box. Longer than the screen, it is as tall as the screen and scrolls."""
    page = phone
    try:
        page.evaluate(LONGER, 12)
        cover = page.locator("#peek-role [data-peek-button]")
        cover.scroll_into_view_if_needed()
        before = state(page)
        x, y = cover_center(page)
        page.mouse.move(x, y)
        page.mouse.down()
        held = page.evaluate(HELD_FITS, "peek-role")
        grown = page.evaluate("() => document.getElementById('peek-role').classList.contains('peek-grown')")
        shown = page.evaluate("""() => { const s = document.querySelector('#peek-role .peek-secret');
          const last = s.lastElementChild.getBoundingClientRect(); return last.bottom <= window.innerHeight; }""")
        page.screenshot(path=str(ARTIFACTS / "phone-ux-long-secret-held.png"))
        during = state(page)
        page.mouse.up()
        after = state(page)
        assert grown and held["fits"] and shown, held
        assert (during["width"], during["height"]) == (before["width"], before["height"])
        assert during["page"] == before["page"]
        assert not after["visible"]
        assert not page.evaluate("() => document.getElementById('peek-role').classList.contains('peek-grown')")
        # Longer than the screen: the screen's height, scrolling inside, still on the screen.
        page.evaluate(LONGER, 40)
        page.mouse.move(*cover_center(page))
        page.mouse.down()
        tall = page.evaluate("""() => { const s = document.querySelector('#peek-role .peek-secret');
          const r = s.getBoundingClientRect();
          return {top: r.top, bottom: r.bottom, scrolls: s.scrollHeight > s.clientHeight
                  && getComputedStyle(s).overflowY === 'auto', height: window.innerHeight}; }""")
        page.mouse.up()
        assert tall["scrolls"] and tall["top"] >= 0 and tall["bottom"] <= tall["height"], tall
    except Exception:
        save_screenshots([page], "phone-ux-long-secret-failure")
        raise


AXE_FILE = ROOT / "tests" / "e2e" / "vendor" / "axe.min.js"
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, nodes: v.nodes.slice(0, 4)
      .map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').slice(0, 120))}));
}"""


@pytest.mark.parametrize("engine", ["coup", "good_cop_bad_cop", "good_cop_bad_cop_health", "inside_job"])
def test_the_dark_phone_in_play_passes_axe_with_its_secrets_face_down_and_held(browser, server, engine):
    """The dark theme (the system's choice) keeps AA contrast; the pinned axe-core runs in the page."""
    assert AXE_FILE.exists(), f"the pinned axe-core is missing: {AXE_FILE} (it is part of the repository)"
    context = browser.new_context(**SMALL_PHONE, color_scheme="dark", bypass_csp=True)  # bypass: to inject axe
    page = context.new_page()
    try:
        sit_down(page, server.url, "Ana")
        page.goto(f"{server.url}/new/?engine={engine}")
        page.fill(f'[name="opt-{engine}-first_player"]', "1")
        page.click('[data-test="create"]')
        for _ in range(3 if engine != "inside_job" else 4):
            page.click('[data-test="add-bot"]')
        page.click('[data-test="start"]')
        page.wait_for_selector('[data-test="my-move"] form.move-form button', timeout=15000)
        page.add_script_tag(content=AXE_FILE.read_text())
        assert page.evaluate(RUN_AXE) == []
        page.evaluate("() => document.querySelectorAll('[data-peek]').forEach(p => p.classList.add('open'))")
        page.screenshot(path=str(ARTIFACTS / f"phone-ux-{engine}-dark-open.png"), full_page=True)
        assert page.evaluate(RUN_AXE) == []
    except Exception:
        save_screenshots([page], f"phone-ux-{engine}-dark-failure")
        raise
    finally:
        context.close()
