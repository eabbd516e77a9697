"""Undo by the table's consent in real browsers (issue 45): a phone takes Income, asks to take it back, the other phone
agrees, and the board and both phones show the table as it was before the move, with the log's undone line.

The two phones are in each engine people hold at a table (Chromium, WebKit, Firefox: tests/e2e/engines_drivers.py),
tapped with a finger (a mouse in WebKit); the board is a Chromium tablet. The Chromium run draws the README's
pictures."""

from __future__ import annotations

import pytest

from engines.base import UNDO
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_state
from tests.e2e.conftest import ARTIFACTS, TABLET, readme_picture
from tests.e2e.engines_drivers import Phone
from tests.e2e.test_every_engine_browser import ENGINES, save, sit_down, tap_and_settle

pytestmark = pytest.mark.e2e


def two_phones_at_a_coup_table(phones, engine: str, base: str) -> tuple[Phone, Phone, str]:
    """Ana creates a Coup table on her phone and Bo joins it on his, both in ``engine``: (Ana, Bo, the code)."""
    host, guest = phones(engine), phones(engine)
    sit_down(host, base, "Ana")
    sit_down(guest, base, "Bo")
    host.goto(base + "/new/?engine=coup")
    host.click('[data-test="create"]')
    host.wait_selector('[data-test="table-code"]')
    code = host.text('[data-test="table-code"]').strip()
    guest.goto(f"{base}/t/{code}/")
    guest.click('[data-test="join"]')
    guest.wait_for("() => !document.querySelector('[data-test=join]') && document.readyState === 'complete'")
    return host, guest, code


def settle(phone: Phone, selector: str) -> None:
    """Tap ``selector`` (waiting for it to be there) and wait until the answer replaced the private panel."""
    phone.wait_selector(selector)
    assert tap_and_settle(phone, selector), (phone.engine, selector)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_phone_takes_its_move_back_when_the_other_phone_agrees(browser, server, phones, engine):
    host, guest, code = two_phones_at_a_coup_table(phones, engine, server.url)
    host.wait_for("() => document.querySelectorAll('[data-test=seats] li').length === 2")
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    everyone = [host, guest]
    try:
        for phone in everyone:
            phone.wait_selector('[data-test="my-cards"]', timeout=20)
            phone.wait_for("() => window.htmx && document.readyState === 'complete'")
            phone.watch_errors()
        game = Game.objects.get(table__code=code)
        rules = get_engine(game.engine)
        before = rules.encode(game_state(game))
        mover, other = (host, guest) if host.count('[data-test="action-income"]') else (guest, host)
        settle(mover, '[data-test="action-income"]')
        mover.wait_selector('[data-test="undo-ask"]')
        assert mover.box('[data-test="undo-ask"]')["height"] >= 44  # a thumb's target at 360px
        assert not mover.scrolls_sideways()
        settle(mover, '[data-test="undo-ask"]')
        mover.wait_selector('[data-test="undo-waiting"]')
        other.wait_selector('[data-test="undo-agree"]')  # pushed to the other phone
        assert not other.scrolls_sideways()
        readme_picture(other, "undo-asked-phone-en.png")
        settle(other, '[data-test="undo-agree"]')
        board.wait_for_selector('#public-view [data-test="undone-line"]', timeout=15000)
        line = board.inner_text('#public-view [data-test="undone-line"]')
        mover.wait_selector('[data-test="action-income"]')  # their turn again
        readme_picture(mover, "undo-done-phone-en.png")
        assert not mover.count('[data-test="undo-waiting"]')
        assert other.count('[data-test="undo-agree"]') == 0
        for phone in everyone:
            assert phone.errors() == [], (phone.engine, phone.errors())
    except Exception:
        save(everyone, "undo-failure")
        board.screenshot(path=str(ARTIFACTS / "undo-failure-board.png"))
        raise
    finally:
        board.context.close()
    names = {id(host): "Ana", id(guest): "Bo"}
    assert f"{names[id(mover)]}'s move was undone (agreed: {names[id(other)]})." in line
    game.refresh_from_db()
    assert rules.encode(game_state(game)) == before
    entry = Move.objects.get(game=game, seq=2)
    assert entry.seat is None and entry.action["type"] == UNDO
