"""Phones in the three browser engines people hold at a table, behind one small interface.

- Chromium: Debian's ``chromium`` through Playwright (as every other browser test).
- WebKit (Safari's engine): Debian's ``webkit2gtk-driver`` (WebKitWebDriver and its MiniBrowser) through Selenium,
  on a private Xvfb screen (WebKitGTK has no headless mode); it reports a Safari user agent.
- Firefox: Debian's ``firefox-esr``, headless, over WebDriver BiDi (built into Firefox; Debian ships no geckodriver)
  with the small client below on ``websocket-client``. One Firefox process; each phone its own user context (its
  own cookies and storage, as another phone would have).

A missing browser fails the run and says what to install (``make test`` installs them as root), never a skip.

Every phone is driven through real input at the element's place on the screen, not ``element.click()`` from a
script: a finger's touches in Chromium (DevTools' touch events) and Firefox (BiDi ``input.performActions``, pointer
type "touch"); a mouse in WebKit (WebKitGTK's WebDriver has no touch input: its "touch" actions arrive as a mouse).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

WEBKIT_DRIVER = shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
MINIBROWSER = next(iter(sorted(Path("/usr/lib").glob("*/webkit2gtk-4.*/MiniBrowser"))), None)
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox") or "/usr/bin/firefox-esr"
XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"

INSTALL = {
    "webkit": "WebKit (WebKitWebDriver and Xvfb) is missing: apt-get install webkit2gtk-driver xvfb "
              "(make test installs them as root)",
    "firefox": "Firefox is missing: apt-get install firefox-esr (make test installs it as root)",
}

# A phone's screen, as the Chromium tests' PHONE (360×740 CSS pixels); a tablet's, as their TABLET (1024×768).
WIDTH, HEIGHT = 360, 740
TABLET_WIDTH, TABLET_HEIGHT = 1024, 768


def require(engine: str) -> None:
    """Fail (never skip) when ``engine``'s browser is not installed, saying what to install."""
    missing = {
        "webkit": not (Path(WEBKIT_DRIVER).exists() and MINIBROWSER and Path(XVFB).exists()),
        "firefox": not Path(FIREFOX).exists(),
    }.get(engine, False)
    if missing:
        pytest.fail(INSTALL[engine])


def js_call(function: str) -> str:
    """A function expression taking one JSON-text argument, answering the JSON text of ``function(arg)``."""
    return (f"(__a) => {{ const __r = ({function})(JSON.parse(__a)); "
            "return __r === undefined ? 'null' : JSON.stringify(__r); }")


# Where an element lies on the screen, scrolled into view first (its centre, in viewport CSS pixels).
CENTRE = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  return {x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2)};
}"""


# A page's own reports of what went wrong: script errors, refused promises, content-security-policy refusals.
WATCH_ERRORS = """() => {
  if (window.__errors) return true;
  window.__errors = [];
  addEventListener('error', e => window.__errors.push('error: ' + e.message));
  addEventListener('unhandledrejection', e => window.__errors.push('rejection: ' + e.reason));
  document.addEventListener('securitypolicyviolation', e =>
    window.__errors.push('csp: ' + e.violatedDirective + ' ' + (e.blockedURI || e.sample)));
  return true;
}"""


# Drawn, as Playwright's ``is_visible``: a non-empty box, and not ``visibility: hidden``.
VISIBLE = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}"""
NTH = itertools.count(1)


class Phone:
    """One phone (or a tablet): a page in one engine."""

    engine = ""

    # -- what each engine provides --
    def goto(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def evaluate(self, function: str, arg: Any = None) -> Any:
        """``function`` (a JS function expression of one argument) called with ``arg``; its JSON-able result."""
        raise NotImplementedError

    def add_cookie(self, base: str, name: str, value: str) -> None:
        raise NotImplementedError

    def press(self, x: int, y: int) -> None:
        """A finger (pointer) goes down at (x, y) and stays down."""
        raise NotImplementedError

    def lift(self) -> None:
        raise NotImplementedError

    def screenshot(self, path: Path, css: bool = False) -> None:
        """The viewport as a PNG at ``path``: in device pixels, or in CSS pixels (``css``, as the README's pictures)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- the same on every engine --
    def count(self, selector: str) -> int:
        return int(self.evaluate("(s) => document.querySelectorAll(s).length", selector))

    def text(self, selector: str) -> str:
        return str(self.evaluate("(s) => document.querySelector(s).innerText", selector))

    def wait_for(self, predicate: str, arg: Any = None, timeout: float = 15.0) -> Any:
        """Poll ``predicate`` (a JS function of one argument) until it answers truthy; a navigation under way
        (the page gone between two polls) is only waited out."""
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while True:
            try:
                found = self.evaluate(predicate, arg)
                if found:
                    return found
                last = None
            except Exception as error:  # noqa: BLE001 - a page being replaced answers with an error; look again
                last = error
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.engine}: timed out after {timeout:.0f} s waiting for {predicate!r} "
                                     f"({arg!r}){f'; last error: {last}' if last else ''}")
            time.sleep(0.1)

    def wait_selector(self, selector: str, timeout: float = 15.0) -> None:
        self.wait_for("(s) => !!document.querySelector(s)", selector, timeout)

    def visible(self, selector: str) -> bool:
        """The first match is drawn (as Playwright's ``is_visible``: a box, and not ``visibility: hidden``)."""
        return bool(self.evaluate(VISIBLE, selector))

    def wait_visible(self, selector: str, timeout: float = 15.0) -> None:
        self.wait_for(VISIBLE, selector, timeout)

    def box(self, selector: str) -> dict:
        """The first match's box on the screen (x, y, width, height in CSS pixels); None when there is none."""
        return self.evaluate("""(s) => { const el = document.querySelector(s); if (!el) return null;
          const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; }""",
                             selector)

    def url(self) -> str:
        return str(self.evaluate("() => location.href"))

    def content(self) -> str:
        """The page's markup as it is now (Playwright's ``content``)."""
        return str(self.evaluate("() => document.documentElement.outerHTML"))

    def scrolls_sideways(self) -> bool:
        return bool(self.evaluate("() => document.documentElement.scrollWidth > window.innerWidth + 1"))

    def nth(self, selector: str, index: int) -> str:
        """A selector for the ``index``-th match of ``selector`` as the page is now (Playwright's ``nth``)."""
        self.wait_for("([s, i]) => document.querySelectorAll(s).length > i", [selector, index])
        mark = f"e2e-{next(NTH)}"
        self.evaluate("([s, i, m]) => { document.querySelectorAll(s)[i].setAttribute('data-e2e-nth', m); }",
                      [selector, index, mark])
        return f'[data-e2e-nth="{mark}"]'

    def centre(self, selector: str, timeout: float = 10.0) -> tuple[int, int]:
        at = self.wait_for(CENTRE, selector, timeout)
        return at["x"], at["y"]

    def click(self, selector: str, timeout: float = 10.0) -> None:
        x, y = self.centre(selector, timeout)
        self.press(x, y)
        self.lift()

    def hold(self, selector: str) -> None:
        self.press(*self.centre(selector))

    def fill(self, selector: str, value: str) -> None:
        """Type into a field as a keyboard would (the field focused by a tap first)."""
        self.click(selector)
        self.type_text(value)

    def type_text(self, value: str) -> None:
        raise NotImplementedError

    def user_agent(self) -> str:
        return str(self.evaluate("() => navigator.userAgent"))

    def watch_errors(self) -> None:
        """From now until the page is left: the page's script errors and content-security-policy refusals."""
        self.evaluate(WATCH_ERRORS)

    def errors(self) -> list[str]:
        """What the page reported since ``watch_errors``, and what the engine's own log holds (Chromium, Firefox)."""
        return [str(e) for e in self.evaluate("() => window.__errors || []")] + self.logged_errors()

    def logged_errors(self) -> list[str]:
        return []  # WebKitGTK's WebDriver reads no console: the page's own reports only


class ChromiumPhone(Phone):
    """A Playwright page in Debian's Chromium (the ``browser`` fixture), as a 360×740 touch phone (or as
    ``context_options`` say: a tablet's)."""

    engine = "chromium"

    def __init__(self, browser, context_options: dict) -> None:
        self.context = browser.new_context(**context_options)
        self.page = self.context.new_page()
        self.cdp = self.context.new_cdp_session(self.page)  # a finger: the browser's own touch events
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.console.append(str(e)))

    def logged_errors(self) -> list[str]:
        return list(self.console)

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def evaluate(self, function: str, arg: Any = None) -> Any:
        return json.loads(self.page.evaluate(js_call(function), json.dumps(arg)))

    def add_cookie(self, base: str, name: str, value: str) -> None:
        self.context.add_cookies([{"name": name, "value": value, "url": base}])

    def press(self, x: int, y: int) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})

    def lift(self) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def type_text(self, value: str) -> None:
        self.page.keyboard.type(value)

    def screenshot(self, path: Path, css: bool = False) -> None:
        self.page.screenshot(path=str(path), scale="css" if css else "device")

    def close(self) -> None:
        self.context.close()


# MiniBrowser's toolbar would keep its window at least 447 pixels wide: its GTK widgets (never the page) shrunk.
GTK_CSS = "* { min-width: 0; min-height: 0; padding: 0; margin: 0; font-size: 4px; }\n"


class Xvfb:
    """A private X screen for WebKitGTK (it has no headless mode), its display number chosen by Xvfb, and the
    environment its browsers start in (GTK's settings: a toolbar small enough for a phone-wide window)."""

    def __init__(self) -> None:
        self.config = tempfile.mkdtemp(prefix="h44-gtk-")
        Path(self.config, "gtk-3.0").mkdir()
        Path(self.config, "gtk-3.0", "gtk.css").write_text(GTK_CSS)
        read, write = os.pipe()
        self.process = subprocess.Popen(
            [XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number}"
        self.env = {**os.environ, "DISPLAY": self.display, "XDG_CONFIG_HOME": self.config}

    def stop(self) -> None:
        self.process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
        shutil.rmtree(self.config, ignore_errors=True)


class WebKitPhone(Phone):
    """WebKitGTK's MiniBrowser through WebKitWebDriver (Selenium), a window on the Xvfb screen whose page is 360×740
    (or ``width``×``height``: a tablet's) at device pixel ratio 1 (WebKitGTK scales with the screen, not per window)."""

    engine = "webkit"

    def __init__(self, screen: Xvfb, width: int = WIDTH, height: int = HEIGHT) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        options = Options()
        options.overlay_scrollbars_enabled = True
        service = Service(executable_path=WEBKIT_DRIVER, env=screen.env, log_output=subprocess.DEVNULL)
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_rect(0, 0, width, height)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight];")
        self.driver.set_window_rect(0, 0, 2 * width - inner[0], 2 * height - inner[1])  # the toolbar's room added
        self.driver.set_script_timeout(20)
        self.driver.set_page_load_timeout(30)

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def evaluate(self, function: str, arg: Any = None) -> Any:
        return json.loads(self.driver.execute_script(f"return ({js_call(function)})(arguments[0]);", json.dumps(arg)))

    def add_cookie(self, base: str, name: str, value: str) -> None:
        if not self.driver.current_url.startswith(base):
            self.driver.get(base + "/static/css/app.css")  # the cookie's site first (WebDriver's rule)
        self.driver.add_cookie({"name": name, "value": value, "path": "/"})

    def _actions(self):
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        return ActionBuilder(self.driver, mouse=PointerInput("mouse", "finger"))

    def press(self, x: int, y: int) -> None:
        actions = self._actions()
        actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pointer_down()
        actions.perform()

    def lift(self) -> None:
        actions = self._actions()
        actions.pointer_action.pointer_up()
        actions.perform()

    def type_text(self, value: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(value).perform()

    def screenshot(self, path: Path, css: bool = False) -> None:
        self.driver.save_screenshot(str(path))  # device pixel ratio 1: CSS pixels either way

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.driver.quit()


class BiDiError(RuntimeError):
    pass


class Firefox:
    """One headless Firefox ESR and a WebDriver BiDi session on it (a small synchronous client)."""

    def __init__(self) -> None:
        import websocket  # websocket-client, which Selenium brings

        self.profile = tempfile.mkdtemp(prefix="h44-firefox-")
        # The remote agent sets its recommended preferences itself (no updates, no first-run pages).
        Path(self.profile, "user.js").write_text(
            'user_pref("browser.shell.checkDefaultBrowser", false);\n'
            'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n'
            'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);\n'
            'user_pref("browser.startup.homepage_override.mstone", "ignore");\n'
            'user_pref("font.name-list.emoji", "Noto Color Emoji");\n')
        self.process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", self.profile, "--remote-debugging-port", "0",
             "--remote-allow-hosts", "127.0.0.1", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1", "MOZ_HEADLESS": "1"})
        address = None
        deadline = time.monotonic() + 60
        assert self.process.stderr is not None
        while address is None:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError("Firefox exited before its WebDriver BiDi server listened")
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                address = found.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError("Firefox's WebDriver BiDi server did not listen in 60 s")
        # Firefox keeps writing to stderr: drain it so it never blocks on a full pipe.
        self._drain = subprocess.Popen(["cat"], stdin=self.process.stderr, stdout=subprocess.DEVNULL)
        self.socket = websocket.create_connection(address.rstrip("/") + "/session", timeout=60,
                                                  suppress_origin=True)
        self.ids = itertools.count(1)
        self.log: list[dict] = []  # log.entryAdded events: console errors and uncaught script errors
        self.version = self.send("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})[
            "capabilities"]["browserVersion"]
        self.send("session.subscribe", {"events": ["log.entryAdded"]})

    def send(self, method: str, params: dict) -> dict:
        number = next(self.ids)
        self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("method") == "log.entryAdded":
                self.log.append(message["params"])
            if message.get("id") != number:
                continue  # an event or a late answer
            if message.get("type") == "error":
                raise BiDiError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.send("browser.close", {})
        with contextlib.suppress(Exception):
            self.socket.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._drain.wait(5)
        shutil.rmtree(self.profile, ignore_errors=True)


class FirefoxPhone(Phone):
    """A tab of the shared Firefox in a user context of its own, its viewport 360×740 at 2× (a phone; or
    ``width``×``height`` at ``scale``: a tablet's)."""

    engine = "firefox"

    def __init__(self, firefox: Firefox, width: int = WIDTH, height: int = HEIGHT, scale: int = 2) -> None:
        self.firefox = firefox
        self.user_context = firefox.send("browser.createUserContext", {})["userContext"]
        self.context = firefox.send("browsingContext.create", {"type": "tab", "userContext": self.user_context})[
            "context"]
        self.size, self.scale = {"width": width, "height": height}, scale
        self._viewport(scale)

    def _viewport(self, scale: int) -> None:
        self.firefox.send("browsingContext.setViewport", {"context": self.context, "viewport": self.size,
                                                          "devicePixelRatio": scale})

    def goto(self, url: str) -> None:
        self.firefox.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def reload(self) -> None:
        self.firefox.send("browsingContext.reload", {"context": self.context, "wait": "complete"})

    def evaluate(self, function: str, arg: Any = None) -> Any:
        answer = self.firefox.send("script.callFunction", {
            "functionDeclaration": js_call(function), "awaitPromise": False, "target": {"context": self.context},
            "arguments": [{"type": "string", "value": json.dumps(arg)}], "userActivation": True})
        if answer["type"] == "exception":
            raise BiDiError(answer["exceptionDetails"].get("text", "a script error"))
        return json.loads(answer["result"]["value"])

    def add_cookie(self, base: str, name: str, value: str) -> None:
        host = re.match(r"https?://([^:/]+)", base).group(1)  # type: ignore[union-attr]
        self.firefox.send("storage.setCookie", {
            "cookie": {"name": name, "value": {"type": "string", "value": value}, "domain": host, "path": "/"},
            "partition": {"type": "storageKey", "userContext": self.user_context}})

    def _pointer(self, actions: list[dict]) -> None:
        """A finger: Firefox's touch input (touch events and pointer events of type "touch", as on a phone)."""
        self.firefox.send("input.performActions", {"context": self.context, "actions": [
            {"type": "pointer", "id": "finger", "parameters": {"pointerType": "touch"}, "actions": actions}]})

    def press(self, x: int, y: int) -> None:
        self._pointer([{"type": "pointerMove", "x": x, "y": y}, {"type": "pointerDown", "button": 0}])

    def lift(self) -> None:
        self._pointer([{"type": "pointerUp", "button": 0}])

    def type_text(self, value: str) -> None:
        keys = [{"type": kind, "value": char} for char in value for kind in ("keyDown", "keyUp")]
        self.firefox.send("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": keys}]})

    def logged_errors(self) -> list[str]:
        return [entry.get("text") or "" for entry in self.firefox.log
                if entry.get("level") == "error" and entry.get("source", {}).get("context") == self.context]

    def screenshot(self, path: Path, css: bool = False) -> None:
        if css:  # drawn at 1× for the picture, then back to the phone's own ratio
            self._viewport(1)
        try:
            data = self.firefox.send("browsingContext.captureScreenshot", {"context": self.context})["data"]
        finally:
            if css:
                self._viewport(self.scale)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.firefox.send("browsingContext.close", {"context": self.context})
        with contextlib.suppress(Exception):
            self.firefox.send("browser.removeUserContext", {"userContext": self.user_context})
