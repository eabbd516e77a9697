"""Try attacks on sessions, table codes and passwords against a real daphne on this machine; say what they got.

``manage.py attackcheck`` migrates the database it is given (use a scratch one:
``DATABASE_URL=sqlite:////tmp/attack.sqlite3``), starts daphne on 127.0.0.1 with the abuse limits
on and the same database, and plays, with browsers that keep their own cookies and come from
loopback addresses of their own (127.0.0.x: daphne sees each as a different client):

- a session key planted in a victim's browser, then the victim sits down (the planted key already
  had a guest) or opens a host link: does the attacker's browser, still sending that key, become
  the victim's player?
- one phone behind the table's address mistypes 21 codes: do the table's own phone page, board,
  poll and socket still answer, and does a fresh browser from that address still learn nothing?
- wrong passwords for "bob" from one address, then bob's right one from another; and how many
  tries one address gets at "amy" when it alternates "amy" with its full-width spelling.

Loopback only, a fixed number of requests. Figures: docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from http.cookies import SimpleCookie

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from tools.chaos import stop_process

HOST = "127.0.0.1"
PASSWORD = "a-long-Passw0rd!"
FULL_WIDTH_AMY = "\uff41\uff4d\uff59"  # "amy", full width


class Browser:
    """A browser with its own cookies, connecting from loopback address ``source``."""

    def __init__(self, port: int, source: str = HOST) -> None:
        self.port, self.source = port, source
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, data: dict | None = None) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=30, source_address=(self.source, 0))
        headers = {"Host": f"{HOST}:{self.port}"}
        body = None
        if data is not None:
            token = self.cookies.get("csrftoken") or self.csrf()
            body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **data})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        for raw in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(raw).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        conn.close()
        return response.status, dict(response.headers), text

    def csrf(self) -> str:
        self.request("GET", "/login/")
        return self.cookies["csrftoken"]

    def get(self, path: str) -> int:
        return self.request("GET", path)[0]

    def post(self, path: str, data: dict) -> int:
        return self.request("POST", path, data)[0]

    def name(self) -> str | None:
        """Whom the server takes this browser for (the home page's "You are …"), or None."""
        found = re.search(r"<strong>([^<]+)</strong>\.", self.request("GET", "/")[2])
        return found.group(1) if found else None

    async def socket_opens(self, code: str) -> bool:
        import aiohttp

        connector = aiohttp.TCPConnector(local_addr=(self.source, 0))
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        async with aiohttp.ClientSession(connector=connector) as session:
            try:
                async with session.ws_connect(f"http://{HOST}:{self.port}/ws/t/{code}/",
                                              headers={"Origin": f"http://{HOST}:{self.port}", "Cookie": cookie}) as ws:
                    message = await ws.receive(timeout=10)  # the first frame is the revision; a refusal closes
                    return message.type == aiohttp.WSMsgType.TEXT
            except (aiohttp.ClientError, TimeoutError):
                return False


def guest(port: int, nickname: str, source: str = HOST) -> Browser:
    browser = Browser(port, source)
    browser.post("/guest/", {"nickname": nickname, "next": "/"})
    return browser


def new_table(host: Browser) -> str:
    status, headers, _ = host.request("POST", "/new/", {"engine": "coup", "timer": "0"})
    if status != 302:
        raise CommandError(f"could not make a table ({status})")
    return headers["Location"].strip("/").split("/")[1]


def fixation(port: int) -> dict:
    rows: dict[str, object] = {}
    # The victim sits down in a browser whose session key the attacker planted (it holds the attacker's guest).
    attacker = guest(port, "Mallory", "127.0.0.10")
    victim = Browser(port, "127.0.0.11")
    victim.cookies = dict(attacker.cookies)
    host = guest(port, "Host", "127.0.0.12")
    code = new_table(host)
    victim.post("/guest/", {"nickname": "Vera", "next": "/", "join": code})
    rows["guest sit-down: the victim is"] = victim.name()
    rows["guest sit-down: the attacker's browser is"] = attacker.name()
    # The victim opens a host link in a planted session.
    attacker = guest(port, "Mallory2", "127.0.0.13")
    victim = Browser(port, "127.0.0.14")
    victim.cookies = dict(attacker.cookies)
    page = host.request("POST", f"/t/{code}/host/link/", {})[2]
    link = re.search(r'data-test="host-link-url">[^<]*?(/h/[^<]+)<', page)
    if link is None:
        raise CommandError("no host link on the page")
    victim.get(link.group(1))
    rows["host link: the attacker's browser may start the game"] = attacker.post(f"/t/{code}/host/start/", {}) != 403
    return rows


def code_guesses(port: int) -> dict:
    nat = "127.0.0.20"  # every phone below comes from this one address
    host = guest(port, "Host", nat)
    code = new_table(host)
    phone = guest(port, "Phone", nat)
    phone.post(f"/t/{code}/join/", {})
    board = Browser(port, nat)
    board.get(f"/t/{code}/board/")
    typo = Browser(port, nat)
    misses = [typo.get(f"/find/?code=ZZZ{i:02d}") for i in range(21)]
    rows: dict[str, object] = {
        "21 unknown codes from the address": f"{misses.count(302)} answered, then {misses[-1]}"}
    for who, browser in (("seated phone", phone), ("board opened by code", board), ("host", host)):
        rows[f"{who}: page, board, poll"] = [browser.get(f"/t/{code}/"), browser.get(f"/t/{code}/board/"),
                                              browser.get(f"/t/{code}/rev/")]
        rows[f"{who}: socket opens"] = asyncio.run(browser.socket_opens(code))
    fresh = Browser(port, nat)
    rows["fresh browser, right code: page, board, poll"] = [fresh.get(f"/t/{code}/"), fresh.get(f"/t/{code}/board/"),
                                                           fresh.get(f"/t/{code}/rev/")]
    rows["fresh browser, right code: socket opens"] = asyncio.run(fresh.socket_opens(code))
    return rows


def log_ins(port: int) -> dict:
    User.objects.filter(username="bob").delete()
    User.objects.create_user("bob", password=PASSWORD)
    stranger = Browser(port, "127.0.0.30")
    wrong = [stranger.post("/login/", {"username": "bob", "password": "guess"}) for _ in range(8)]
    rows: dict[str, object] = {
        "8 wrong passwords for bob from one address": f"{wrong.count(200)} tried, {wrong.count(429)} refused"}
    rows["bob's right password from another address"] = Browser(port, "127.0.0.31").post(
        "/login/", {"username": "bob", "password": PASSWORD})
    rows["bob's right password from the stranger's address"] = stranger.post(
        "/login/", {"username": "bob", "password": PASSWORD})
    User.objects.filter(username="amy").delete()
    User.objects.create_user("amy", password=PASSWORD)
    rows["the full-width spelling logs in as amy"] = Browser(port, "127.0.0.33").post(
        "/login/", {"username": FULL_WIDTH_AMY, "password": PASSWORD}) == 302
    spelled = Browser(port, "127.0.0.32")
    tries = 0
    for i in range(20):
        status = spelled.post("/login/", {"username": FULL_WIDTH_AMY if i % 2 else "amy", "password": "guess"})
        if status == 429:
            break
        tries += 1
    rows["wrong tries one address gets at amy, alternating amy and its full-width spelling"] = tries
    return rows


class Command(BaseCommand):
    help = "Issue 28's attacks against a daphne on 127.0.0.1 (a scratch database; loopback only)."

    def _attacks(self, process: subprocess.Popen, port: int) -> dict:
        deadline = time.time() + 60
        while True:
            if process.poll() is not None:
                raise CommandError("daphne exited")
            try:
                socket.create_connection((HOST, port), timeout=0.5).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise CommandError("daphne did not listen") from None
                time.sleep(0.2)
        return {"session fixation": fixation(port), "code guesses": code_guesses(port), "log-in limits": log_ins(port)}

    def handle(self, *args, **options):
        database = settings.DATABASES["default"]
        if "sqlite" not in database["ENGINE"] or not str(database["NAME"]).startswith("/tmp/"):
            raise CommandError("give it a scratch database: DATABASE_URL=sqlite:////tmp/attack.sqlite3")
        if not settings.RATELIMIT_ENABLE:
            raise CommandError("the abuse limits are off (DJANGO_RATELIMIT=0): nothing to try")
        call_command("migrate", verbosity=0)
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = probe.getsockname()[1]
        env = {**os.environ, "GAME_WORKER": "0", "DJANGO_PLAIN_STATIC": "1"}
        env.pop("REDIS_URL", None)  # one process: its own cache counts the limits
        with open(os.environ.get("ATTACKCHECK_LOG", os.devnull), "w") as log:
            process = subprocess.Popen([sys.executable, "-m", "daphne", "-b", HOST, "-p", str(port),
                                        "config.asgi:application"], cwd=settings.BASE_DIR, env=env,
                                       stdout=log, stderr=subprocess.STDOUT)
            try:
                results = self._attacks(process, port)
            finally:
                stop_process(process)
        for part, rows in results.items():
            self.stdout.write(part)
            for key, value in rows.items():
                self.stdout.write(f"  {key}: {value}")
        self.stdout.write(json.dumps(results, ensure_ascii=False))
