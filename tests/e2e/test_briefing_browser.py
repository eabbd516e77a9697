"""A late joiner's briefing in real browsers (issue 45): Ana hosts a Coup game with Bo and a bot; she makes a link for a
person to take over the bot's seat; a new phone opens it and is shown, once, the seat's cards and what it drew, and
closes the briefing; the board only says that a person took the seat over, and shows nothing of what it knows."""

from __future__ import annotations

import re

import pytest

from engines.registry import get_engine
from gameplay.briefing import seat_briefing
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.e2e.conftest import PHONE, SCREENS, TABLET, save_screenshots
from tests.e2e.test_coup_browser import two_phones_at_a_coup_table
from tests.e2e.test_inside_job_browser import no_horizontal_scroll

pytestmark = pytest.mark.e2e


def _bot_seat_link(host) -> str:
    """The host opens the controls on her phone and makes the link for the bot's seat: the link's address."""
    for _ in range(3):  # a push may redraw the tools between the two taps: open them again
        host.locator("details.host > summary").click()
        button = host.locator('[data-test="bot-seat-link"]')
        if button.is_visible():
            button.click()
            break
    host.wait_for_selector('[data-test="seat-link"]', timeout=15000)
    return host.inner_text('[data-test="seat-link"]').strip()


def test_a_new_phone_takes_a_bots_seat_over_and_is_briefed_once_and_the_board_shows_no_secret(browser, server):
    host, guest, code = two_phones_at_a_coup_table(browser, server)
    host.click('[data-test="add-bot"]')
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 3", timeout=15000)
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    host.wait_for_selector('[data-test="my-cards"]', timeout=15000)
    newcomer = browser.new_context(**PHONE).new_page()
    try:
        link = _bot_seat_link(host)
        newcomer.goto(server.url + "/" + link.split("/", 3)[3])  # the link names the LAN address: the test's server
        briefing = newcomer.locator('[data-test="briefing"]')
        briefing.wait_for(timeout=15000)
        game = Game.objects.get(table__code=code)
        seat = game.seats.get(bot="", device__gt="").index
        view = get_engine(game.engine).view(game_state(game), seat)
        assert newcomer.locator('[data-test="briefing-card"]').count() == len(view["hand"])
        facts = seat_briefing(game, seat)["facts"]
        assert newcomer.locator('[data-test="briefing-fact"]').count() == len(facts)
        assert no_horizontal_scroll(newcomer)
        newcomer.screenshot(path=str(SCREENS / "briefing-phone-en.png"), scale="css")  # the README's picture
        dismiss = newcomer.locator('[data-test="briefing-dismiss"]')
        assert dismiss.bounding_box()["height"] >= 44  # a thumb's target at 360px
        dismiss.click()
        briefing.wait_for(state="hidden", timeout=15000)
        newcomer.wait_for_selector('[data-test="my-cards"]', timeout=15000)  # the seat's own panel, below
        newcomer.reload()
        newcomer.wait_for_selector('[data-test="my-cards"]', timeout=15000)
        assert newcomer.locator('[data-test="briefing"]').count() == 0  # once only
        name = game.seats.get(index=seat).name
        board.wait_for_function(
            "(text) => document.querySelector('#public-view').innerText.includes(text)",
            arg=f"A person took over {name}'s seat from the bot.", timeout=15000)
    except Exception:
        save_screenshots([host, guest, newcomer, board], "briefing-failure")
        raise
    for page in (board, host, guest):
        html = page.content()
        assert 'data-test="briefing' not in html
        assert not re.search(r"What this seat learned|what \w+ knows", html)
