"""Undo by the table's consent in real browsers (issue 45): a phone takes Income, asks to take it back, the other phone
agrees, and the board and both phones show the table as it was before the move, with the log's undone line."""

from __future__ import annotations

import pytest

from engines.base import UNDO
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_state
from tests.e2e.conftest import SCREENS, TABLET, save_screenshots, tap_and_settle
from tests.e2e.test_coup_browser import two_phones_at_a_coup_table
from tests.e2e.test_inside_job_browser import no_horizontal_scroll

pytestmark = pytest.mark.e2e


def test_a_phone_takes_its_move_back_when_the_other_phone_agrees(browser, server):
    host, guest, code = two_phones_at_a_coup_table(browser, server)
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 2", timeout=15000)
    board = browser.new_context(**TABLET).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    phones = [host, guest]
    try:
        for page in phones:
            page.wait_for_selector('[data-test="my-cards"]', timeout=15000)
        game = Game.objects.get(table__code=code)
        engine = get_engine(game.engine)
        before = engine.encode(game_state(game))
        mover, other = (host, guest) if host.locator('[data-test="action-income"]').count() else (guest, host)
        tap_and_settle(mover, mover.locator('[data-test="action-income"]'))
        undo = mover.locator('[data-test="undo-ask"]')
        undo.wait_for(timeout=15000)
        assert undo.bounding_box()["height"] >= 44  # a thumb's target at 360px
        assert no_horizontal_scroll(mover)
        tap_and_settle(mover, undo)
        mover.wait_for_selector('[data-test="undo-waiting"]', timeout=15000)
        agree = other.locator('[data-test="undo-agree"]')
        agree.wait_for(timeout=15000)  # pushed to the other phone
        assert no_horizontal_scroll(other)
        other.screenshot(path=str(SCREENS / "undo-asked-phone-en.png"), scale="css")  # the README's picture
        tap_and_settle(other, agree)
        board.wait_for_selector('#public-view [data-test="undone-line"]', timeout=15000)
        line = board.inner_text('#public-view [data-test="undone-line"]')
        mover.wait_for_selector('[data-test="action-income"]', timeout=15000)
        mover.screenshot(path=str(SCREENS / "undo-done-phone-en.png"), scale="css")
        mover.wait_for_selector('[data-test="action-income"]', timeout=15000)  # their turn again
        assert not mover.locator('[data-test="undo-waiting"]').count()
    except Exception:
        save_screenshots([*phones, board], "undo-failure")
        raise
    names = {host: "Ana", guest: "Bo"}
    assert f"{names[mover]}'s move was undone (agreed: {names[other]})." in line
    game.refresh_from_db()
    assert engine.encode(game_state(game)) == before
    entry = Move.objects.get(game=game, seq=2)
    assert entry.seat is None and entry.action["type"] == UNDO
