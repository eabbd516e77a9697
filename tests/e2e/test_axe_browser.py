"""axe-core on every kind of page: no serious or critical accessibility violation.

The pinned copy in tests/e2e/vendor/axe.min.js (see its README) is injected into each page by
Playwright, never fetched at run time; the browser contexts bypass the CSP only so that this
injected script may run. Pages: the home page, a table's lobby, each game's phone and board
during play and after the game ended, the history and a finished game's log and replay.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ARTIFACTS, ROOT, save_screenshots
from tests.e2e.test_board_ux_browser import PLAYERS, create_table, open_board, seated_phone, start_game

pytestmark = pytest.mark.e2e

AXE_VERSION = "4.14.1"
AXE = (ROOT / "tests" / "e2e" / "vendor" / "axe.min.js").read_text()
BLOCKING = ("serious", "critical")

RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return {version: axe.version, violations: result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 6).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').slice(0, 160))}))};
}"""


def axe_violations(page) -> list[dict]:
    """The serious and critical violations axe finds on ``page`` as it is now."""
    page.add_script_tag(content=AXE)
    found = page.evaluate(RUN_AXE)
    assert found["version"] == AXE_VERSION
    return [v for v in found["violations"] if v["impact"] in BLOCKING]


def csrf_token(page) -> str:
    return page.evaluate("() => JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_no_serious_violations_on_any_page_of_a_game(browser, server, engine):
    """Home, lobby, phone and board in play and at the end, history, log and replay."""
    bypass = {"bypass_csp": True}
    phone = seated_phone(browser, server, context_options=bypass)
    pages = {"home": axe_violations(phone)}
    code = create_table(phone, server, engine, PLAYERS[engine])
    pages["table lobby"] = axe_violations(phone)
    start_game(phone)
    board = open_board(browser, server, code, context_options=bypass)
    try:
        pages["phone in play"] = axe_violations(phone)
        pages["board in play"] = axe_violations(board)
        # The host ends the game (asked first on screen; confirmed here): every screen shows the end.
        response = phone.request.post(f"{server.url}/t/{code}/host/end/", form={"confirm": "yes"},
                                      headers={"X-CSRFToken": csrf_token(phone)}, max_redirects=0)
        assert response.status in (302, 303), response.status
        phone.reload()
        phone.wait_for_selector('[data-test="replay-link"]', timeout=15000)
        pages["phone at the end"] = axe_violations(phone)
        board.reload()
        board.wait_for_selector('#public-view [data-test="replay-link"]', timeout=15000)
        pages["board at the end"] = axe_violations(board)
        board.screenshot(path=str(ARTIFACTS / f"axe-{engine}-board-end.png"), full_page=True)
        replay = phone.get_attribute('[data-test="replay-link"]', "href")
        phone.goto(f"{server.url}/history/")
        pages["history"] = axe_violations(phone)
        phone.goto(f"{server.url}{replay}")
        pages["log and replay"] = axe_violations(phone)
    except Exception:
        save_screenshots([phone, board], f"axe-{engine}-failure")
        raise
    assert {name: v for name, v in pages.items() if v} == {}
