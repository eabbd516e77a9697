"""A countdown on a phone (gameplay/static/js/countdown.js), in headless Chromium: it counts the seconds left by the
server's clock, not the phone's, and at its deadline the page asks the server for the news (table.js polls once),
with its socket open and nothing else asking."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import PHONE, save_screenshots

pytestmark = pytest.mark.e2e

# A countdown as the server draws one (templates/gameplay/_countdown.jinja), 2.5 s from now by a server clock
# that runs an hour ahead of this phone's.
ADD = """() => {
  const el = document.createElement('span');
  const ahead = 3600 * 1000;
  el.dataset.deadline = String(Date.now() + ahead + 2500);
  el.dataset.serverNow = String(Date.now() + ahead);
  el.id = 'test-countdown';
  document.body.appendChild(el);
}"""


def test_a_countdown_ticks_by_the_servers_clock_and_asks_for_the_news_at_its_deadline(browser, server, table_with):
    table, people = table_with(2)
    phone = browser.new_context(**PHONE).new_page()
    phone.context.add_cookies([{"name": "sessionid", "value": people[0].client.cookies["sessionid"].value,
                                "url": server.url}])
    try:
        with phone.expect_websocket():
            phone.goto(f"{server.url}/t/{table.code}/")
        phone.wait_for_load_state("networkidle")
        rev_url = phone.evaluate("() => document.body.dataset.revUrl")
        assert rev_url
        polls = []
        phone.on("request", lambda request: polls.append(request.url) if request.url.endswith(rev_url) else None)
        phone.evaluate(ADD)
        phone.wait_for_function("() => ['2', '3'].includes(document.getElementById('test-countdown').textContent)",
                                timeout=2000)
        assert not polls  # nothing asked before the deadline
        phone.wait_for_function("() => document.getElementById('test-countdown').textContent === '0'", timeout=5000)
        phone.wait_for_timeout(1500)  # the poll leaves 800 ms after the deadline
        assert len(polls) == 1, polls
    except Exception:
        save_screenshots([phone], "countdown-failure")
        raise
