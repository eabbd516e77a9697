"""Real servers and a real browser: daphne processes on this machine, Debian's Chromium via Playwright."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.servers import ARTIFACTS, ROOT, Server

__all__ = ["ARTIFACTS", "ROOT", "SCREENS"]  # the browser tests import them from here
SCREENS = ROOT / "docs" / "screens"  # the README's pictures, drawn by the browser tests
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def servers(transactional_db):
    """Two app processes sharing PostgreSQL (the test database) and Redis: the scale-out shape."""
    started = [Server(), Server()]
    yield started
    for server in started:
        server.stop()


@pytest.fixture
def server(transactional_db):
    """One app process against the test database and Redis."""
    started = Server()
    yield started
    started.stop()


@pytest.fixture
def browser():
    """Headless Debian Chromium. Missing it fails the run and says what to install."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: apt-get install chromium (make test installs it as root)")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # plain synchronous ones made between browser steps.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield chromium
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
TABLET = {"viewport": {"width": 1024, "height": 768}}


# The panel is marked stale before a tap; the answer clears the mark: a POST's answer replaces the whole panel,
# a move sent over the table socket is answered with the fragments that changed ("table:answered").
MARK_STALE = """() => {
  if (!window.__answerClears) {
    window.__answerClears = true;
    document.body.addEventListener('table:answered', () => {
      const panel = document.getElementById('private-view');
      if (panel) { delete panel.dataset.stale; }
    });
  }
  document.getElementById('private-view').dataset.stale = '1';
}"""


def tap_and_settle(page, locator, *, tolerant: bool = False) -> bool:
    """Tap a move button and wait until the answer has replaced the private panel.

    ``tolerant``: bots answer windows at once, so a button seen a moment ago may be gone when
    the tap lands (the window closed); then return False instead of failing, and look again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate(MARK_STALE)
    try:
        locator.click(timeout=3000 if tolerant else 30000)
        page.wait_for_selector("#private-view:not([data-stale])", timeout=10000 if tolerant else 15000)
    except PlaywrightTimeout:
        if not tolerant:
            raise
        return False
    return True


def save_screenshots(pages, prefix: str) -> None:
    """Whole-page screenshots into test-artifacts/, to see what a failing game looked like."""
    ARTIFACTS.mkdir(exist_ok=True)
    for i, page in enumerate(pages):
        page.screenshot(path=str(ARTIFACTS / f"{prefix}-{i}.png"), full_page=True)


# ---- Phones in every engine (tests/e2e/engines_drivers.py): WebKit and Firefox beside Chromium ----

@pytest.fixture(scope="module")
def xvfb():
    """A private X screen for WebKitGTK's windows. Missing WebKit or Xvfb fails the run saying what to install."""
    from tests.e2e.engines_drivers import Xvfb, require

    require("webkit")
    screen = Xvfb()
    yield screen
    screen.stop()


@pytest.fixture(scope="module")
def firefox():
    """One headless Firefox ESR over WebDriver BiDi for a test module; each phone is a user context of it."""
    from tests.e2e.engines_drivers import Firefox, require

    require("firefox")
    started = Firefox()
    yield started
    started.stop()


@pytest.fixture
def phones(browser, request):
    """``phones(engine)``: a new phone (tests/e2e/engines_drivers.Phone) in ``chromium``, ``webkit`` or ``firefox``;
    ``phones(engine, tablet=True)``: a tablet (TABLET's 1024×768, at 1×) driven alike. Every one opened is closed
    after the test."""
    from tests.e2e.engines_drivers import TABLET_HEIGHT, TABLET_WIDTH, ChromiumPhone, FirefoxPhone, WebKitPhone

    opened = []
    size = {"width": TABLET_WIDTH, "height": TABLET_HEIGHT}
    assert TABLET["viewport"] == size

    def open_phone(engine: str, tablet: bool = False):
        if engine == "chromium":
            phone = ChromiumPhone(browser, TABLET if tablet else PHONE)
        elif engine == "webkit":
            phone = WebKitPhone(request.getfixturevalue("xvfb"), **size) if tablet else WebKitPhone(
                request.getfixturevalue("xvfb"))
        elif engine == "firefox":
            phone = FirefoxPhone(request.getfixturevalue("firefox"), **size, scale=1) if tablet else FirefoxPhone(
                request.getfixturevalue("firefox"))
        else:
            raise ValueError(engine)
        opened.append(phone)
        return phone

    yield open_phone
    for phone in opened:
        phone.close()


# The share of two pictures' pixels that differ (0 to 1), or None when their sizes differ: both decoded by Chromium.
PIXELS_DIFFER = """async ([a, b]) => {
  const load = src => new Promise((done, fail) => {
    const img = new Image(); img.onload = () => done(img); img.onerror = fail; img.src = src; });
  const [one, two] = await Promise.all([load(a), load(b)]);
  if (one.naturalWidth !== two.naturalWidth || one.naturalHeight !== two.naturalHeight) return null;
  const pixels = img => {
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d'); g.drawImage(img, 0, 0);
    return g.getImageData(0, 0, canvas.width, canvas.height).data;
  };
  const p = pixels(one), q = pixels(two);
  let differ = 0;
  for (let i = 0; i < p.length; i += 4) {
    if (p[i] !== q[i] || p[i + 1] !== q[i + 1] || p[i + 2] !== q[i + 2] || p[i + 3] !== q[i + 3]) differ++;
  }
  return differ / (p.length / 4);
}"""


def pixels_differ(browser, old: bytes, new: bytes) -> float | None:
    """The share of the pixels two PNG pictures differ in (None: not the same size), as Chromium decodes them."""
    import base64

    context = browser.new_context()
    try:
        page = context.new_page()
        return page.evaluate(PIXELS_DIFFER, [f"data:image/png;base64,{base64.b64encode(png).decode()}"
                                             for png in (old, new)])
    finally:
        context.close()


# What draws the pages: their templates, stylesheets, scripts, drawings, fonts and translations. A README picture is
# drawn again when these changed since it was drawn (its fingerprint in FINGERPRINTS), not at every run: the deal, the
# table's code and who moves first are new each run, so a new drawing would differ with nothing changed.
DRAWN_BY = ("templates", "gameplay/static", "lobby/static", "locale")
FINGERPRINTS = SCREENS / "fingerprints.json"


@functools.cache
def pages_fingerprint() -> str:
    digest = hashlib.sha256()
    for top in DRAWN_BY:
        for path in sorted(p for p in (ROOT / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def readme_picture(screen, name: str, *, full_page: bool = False, scale: str = "css") -> None:
    """The README's picture ``docs/screens/<name>`` of ``screen`` (a Playwright page, or a Phone of
    tests/e2e/engines_drivers), in CSS pixels (or ``scale="device"``: the page's own, as a board drawn small).
    Drawn by Chromium alone: a WebKit or Firefox phone's run of the same journey leaves it be. Drawn again only when
    it is missing, when what draws the pages changed since it was drawn (DRAWN_BY), or when asked
    (``DRAW_SCREENS=1``); a drawing with the same pixels leaves the file as it is."""
    page = getattr(screen, "page", screen)  # a ChromiumPhone's Playwright page
    if getattr(screen, "engine", "chromium") != "chromium":
        return
    path = SCREENS / name
    drawn = json.loads(FINGERPRINTS.read_text()) if FINGERPRINTS.exists() else {}
    if path.exists() and drawn.get(name) == pages_fingerprint() and not os.environ.get("DRAW_SCREENS"):
        return  # the page is drawn by what drew the picture: keep it
    new = page.screenshot(scale=scale, full_page=full_page)
    old = path.read_bytes() if path.exists() else None
    if old != new and (old is None or pixels_differ(page.context.browser, old, new) != 0):
        path.write_bytes(new)
    drawn = json.loads(FINGERPRINTS.read_text()) if FINGERPRINTS.exists() else {}
    FINGERPRINTS.write_text(json.dumps({**drawn, name: pages_fingerprint()}, indent=1, sort_keys=True) + "\n")
