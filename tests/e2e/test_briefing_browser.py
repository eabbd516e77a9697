"""A late joiner's briefing in real browsers (issue 45): Ana hosts a Coup game with Bo and a bot; she makes a link for a
person to take over the bot's seat; a new phone opens it and is shown, once, the seat's cards and what it drew, and
closes the briefing; the board only says that a person took the seat over, and shows nothing of what it knows.

Ana's phone and the new phone are in each engine (Chromium, WebKit, Firefox: tests/e2e/engines_drivers.py); Bo's
phone and the board are Chromium's. The Chromium run draws the README's picture."""

from __future__ import annotations

import re

import pytest

from engines.registry import get_engine
from gameplay.briefing import seat_briefing
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, readme_picture
from tests.e2e.engines_drivers import Phone
from tests.e2e.test_coup_browser import sit_down as sit_down_page
from tests.e2e.test_every_engine_browser import ENGINES, save, sit_down

pytestmark = pytest.mark.e2e


def _bot_seat_link(host: Phone) -> str:
    """The host opens the controls on her phone and makes the link for the bot's seat: the link's address."""
    for _ in range(3):  # a push may redraw the tools between the two taps: open them again
        host.click("details.host > summary")
        if host.visible('[data-test="bot-seat-link"]'):
            host.click('[data-test="bot-seat-link"]')
            break
    host.wait_selector('[data-test="seat-link"]')
    return host.text('[data-test="seat-link"]').strip()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_new_phone_takes_a_bots_seat_over_and_is_briefed_once_and_the_board_shows_no_secret(
        browser, server, phones, engine):
    host = phones(engine)
    guest = browser.new_context(**PHONE).new_page()
    sit_down(host, server.url, "Ana")
    sit_down_page(guest, server.url, "Bo")
    host.goto(server.url + "/new/?engine=coup")
    host.click('[data-test="create"]')
    host.wait_selector('[data-test="table-code"]')
    code = host.text('[data-test="table-code"]').strip()
    guest.goto(f"{server.url}/t/{code}/")
    guest.click('[data-test="join"]')
    host.wait_for("() => document.querySelectorAll('[data-test=seats] li').length === 2")
    host.click('[data-test="add-bot"]')
    host.wait_for("() => document.querySelectorAll('[data-test=seats] li').length === 3")
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    host.wait_selector('[data-test="my-cards"]', timeout=20)
    host.wait_for("() => window.htmx && document.readyState === 'complete'")
    newcomer = phones(engine)
    try:
        link = _bot_seat_link(host)
        newcomer.goto(server.url + "/" + link.split("/", 3)[3])  # the link names the LAN address: the test's server
        newcomer.wait_visible('[data-test="briefing"]')
        newcomer.wait_for("() => window.htmx && document.readyState === 'complete'")
        newcomer.watch_errors()
        game = Game.objects.get(table__code=code)
        seat = game.seats.get(bot="", device__gt="").index
        view = get_engine(game.engine).view(game_state(game), seat)
        assert newcomer.count('[data-test="briefing-card"]') == len(view["hand"])
        facts = seat_briefing(game, seat)["facts"]
        assert newcomer.count('[data-test="briefing-fact"]') == len(facts)
        assert not newcomer.scrolls_sideways()
        readme_picture(newcomer, "briefing-phone-en.png")
        assert newcomer.box('[data-test="briefing-dismiss"]')["height"] >= 44  # a thumb's target at 360px
        newcomer.click('[data-test="briefing-dismiss"]')
        newcomer.wait_for("() => { const b = document.querySelector('[data-test=briefing]');"
                          " return !b || b.getClientRects().length === 0; }")
        newcomer.wait_selector('[data-test="my-cards"]')  # the seat's own panel, below
        assert newcomer.errors() == [], (engine, newcomer.errors())
        newcomer.reload()
        newcomer.wait_selector('[data-test="my-cards"]')
        assert newcomer.count('[data-test="briefing"]') == 0  # once only
        name = game.seats.get(index=seat).name
        board.wait_for_function(
            "(text) => document.querySelector('#public-view').innerText.includes(text)",
            arg=f"A person took over {name}'s seat from the bot.", timeout=15000)
        for html in (board.content(), host.content(), guest.content()):
            assert 'data-test="briefing' not in html
            assert not re.search(r"What this seat learned|what \w+ knows", html)
    except Exception:
        save([host, newcomer], "briefing-failure")
        for page, who in ((guest, "guest"), (board, "board")):
            page.screenshot(path=str(ARTIFACTS / f"briefing-failure-{who}.png"))
        raise
    finally:
        board.context.close()
        guest.context.close()
