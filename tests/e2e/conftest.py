"""Real servers and a real browser: daphne processes on this machine, Debian's Chromium via Playwright."""

from __future__ import annotations

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
    every phone opened is closed after the test."""
    from tests.e2e.engines_drivers import ChromiumPhone, FirefoxPhone, WebKitPhone

    opened = []

    def open_phone(engine: str):
        if engine == "chromium":
            phone = ChromiumPhone(browser, PHONE)
        elif engine == "webkit":
            phone = WebKitPhone(request.getfixturevalue("xvfb"))
        elif engine == "firefox":
            phone = FirefoxPhone(request.getfixturevalue("firefox"))
        else:
            raise ValueError(engine)
        opened.append(phone)
        return phone

    yield open_phone
    for phone in opened:
        phone.close()
