"""Real servers and a real browser: daphne processes on this machine, Debian's Chromium via Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The test database's table ids start at 1 in every run, and so do the Channels groups named
# after them: a run of its own Redis database number keeps two runs on one machine apart.
REDIS_URL = urlsplit(os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))._replace(
    path=f"/{1 + os.getpid() % 15}").geturl()
ARTIFACTS = ROOT / "test-artifacts"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _database_url() -> str:
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


class Server:
    """One daphne process serving the app on 127.0.0.1 against the test database and Redis."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": REDIS_URL,
            "DJANGO_PLAIN_STATIC": "1",
            # Every browser of every run is 127.0.0.1 and the counters sit in the shared Redis.
            "DJANGO_RATELIMIT": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GAME_WORKER": "1",
            "PYTHONUNBUFFERED": "1",
        }
        ARTIFACTS.mkdir(exist_ok=True)
        self.log = open(ARTIFACTS / f"daphne-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited; see {self.log.name}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("daphne did not start in 30 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


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
