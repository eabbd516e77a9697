"""Secrets without colour (issue 45, item 4): every distinction a screen draws survives grey scale, and axe agrees.

For each game, a phone and the board during play and at the end: axe finds no violation of the rules about colour,
images and ARIA (and nothing serious anywhere), and, with the page turned grey (``filter: grayscale(1)``), every two
marks of one kind that differ in colour (two sides, two teams, two integrity cards, Approve and Reject, a mission's
success and failure…), found in the page as it is by the classes that colour them, still differ in words (their text
or accessible name, seat names and numbers left out) and in shape (the mark's ``data-shape``, a card's drawing).
"""

from __future__ import annotations

import itertools

import pytest

from infra.sessions import SessionStore
from lobby.services import SESSION_KEY as PLAYER_KEY
from tests.e2e.conftest import ARTIFACTS, PHONE, TABLET, readme_picture, save_screenshots
from tests.e2e.test_axe_browser import AXE, AXE_VERSION, BLOCKING, RUN_AXE
from tests.e2e.test_board_ux_browser import PLAYERS, finished_table

pytestmark = pytest.mark.e2e

# The rules about colour, pictures and ARIA: none of them may fail at any impact.
RELEVANT = {"color-contrast", "image-alt", "svg-img-alt", "role-img-alt", "aria-allowed-attr", "aria-hidden-body",
            "aria-hidden-focus", "aria-prohibited-attr", "aria-required-attr", "aria-valid-attr",
            "aria-valid-attr-value", "aria-roles", "aria-allowed-role", "link-name", "button-name"}

# Each kind of mark the stylesheets colour: the class that colours it (its variant in the group); "both" is the Crooked
# team's badge (a seat holding both leaders), drawn and named as the Crooked team.
FAMILIES = {
    "side": r"^ij-side-(agents|traitors)$", "vote": r"^ij-vote-(approve|reject)$", "result": r"^ij-(success|fail)$",
    "integrity": r"^gcbc-(honest|crooked|agent|kingpin)$", "team": r"^gcbc-team-(honest|crooked|both)$",
    "identity": r"^gh-id-(good|bad|wanted)$", "faction": r"^coup-(monarchist|populist)$",
    "card": r"^coup-(duke|assassin|captain|ambassador|contessa|inquisitor)$",
}
SAME = {"both": "crooked"}
# Coup's characters are told apart by their names (a phone's small tiles have no room for a drawing); where two are
# drawn, the drawings differ too. Every other kind needs a shape on both marks.
NAMED = {"card"}
# The kinds each game must show in two variants or more over its four screens (else the check proves nothing).
EXPECTED = {"inside_job": {"side", "vote", "result"}, "coup": {"card"},
            "good_cop_bad_cop": {"integrity", "team"}, "good_cop_bad_cop_health": {"identity"}}
# During play: a few rounds in, with something to tell apart on the board.
DURING = {
    "inside_job": lambda v: bool(v["missions"]) and bool(v.get("votes")) and v["phase"] != "vote",
    "coup": lambda v: any(v["lost"]),
    "good_cop_bad_cop": lambda v: any(c["face_up"] for cards in v["cards"] for c in cards),
    "good_cop_bad_cop_health": lambda v: v["phase"] != "choose_identity" and not all(v["alive"]),
}
# A deal and moves that reach that point before the end (with six players, seed 6 shoots a leader in the first round).
SEEDS = {"good_cop_bad_cop": 2}

MARKS_IN_GREY = """(families) => {
  document.documentElement.style.filter = 'grayscale(1)';
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
    && !el.closest('.visually-hidden');
  const shapesOf = el => [el, ...el.querySelectorAll('[data-shape], svg[class*="card-art-"]')]
    .map(e => e.getAttribute('data-shape') || [...e.classList].find(c => c.startsWith('card-art-')))
    .filter(Boolean);
  const wordsOf = el => `${el.textContent} ${el.getAttribute('aria-label') || ''}`
    .replace(/Player \\d+/g, '').replace(/[0-9]/g, '').replace(/\\s+/g, ' ').trim();
  const found = [];
  for (const [family, pattern] of Object.entries(families)) {
    const re = new RegExp(pattern);
    for (const el of document.querySelectorAll('[class]')) {
      const m = [...el.classList].map(c => c.match(re)).find(Boolean);
      if (!m) continue;
      const marks = [el, ...el.querySelectorAll('[data-shape], svg[class*="card-art-"]')]
        .filter(e => shapesOf(e).length);
      found.push({family, variant: m[1], words: wordsOf(el), shapes: [...new Set(shapesOf(el))].sort().join(' '),
        shown: shown(el), drawn: marks.some(shown), where: el.outerHTML.slice(0, 120)});
    }
  }
  return found;
}"""


def relevant_violations(page) -> list[dict]:
    """axe's violations of the colour, image and ARIA rules (any impact), and any serious or critical one."""
    page.add_script_tag(content=AXE)
    found = page.evaluate(RUN_AXE)
    assert found["version"] == AXE_VERSION
    return [v for v in found["violations"] if v["id"] in RELEVANT or v["impact"] in BLOCKING]


def marks_in_grey(page) -> list[dict]:
    """Every coloured mark of the page as it is, turned grey: its kind, variant, words, shapes, whether it shows."""
    marks = page.evaluate(MARKS_IN_GREY, FAMILIES)
    page.evaluate("() => { document.documentElement.style.filter = ''; }")
    return [{**mark, "variant": SAME.get(mark["variant"], mark["variant"])} for mark in marks]


def colour_only_pairs(marks: list[dict]) -> list[tuple[dict, dict]]:
    """The pairs of marks of one kind and two variants that differ by colour alone: not in words, or not in shape."""
    bad = []
    for a, b in itertools.combinations(marks, 2):
        if a["family"] != b["family"] or a["variant"] == b["variant"]:
            continue
        drawn = bool(a["shapes"] and b["shapes"])
        shapes_needed = a["family"] not in NAMED or drawn
        if a["words"] == b["words"] or shapes_needed and (not drawn or a["shapes"] == b["shapes"]):
            bad.append((a, b))
    return bad


def open_screens(browser, server, table):
    """Seat 0's phone (360 px) and the board, each in its own browser (CSP bypassed for axe alone)."""
    session = SessionStore()
    session[PLAYER_KEY] = table.seats.order_by("position").first().player_id
    session.create()
    phone = browser.new_context(**PHONE, bypass_csp=True)
    phone.add_cookies([{"name": "sessionid", "value": session.session_key, "url": server.url}])
    phone.add_init_script(script="localStorage.setItem('peek-hint-seen', '1')")
    board = browser.new_context(**TABLET, bypass_csp=True)
    pages = phone.new_page(), board.new_page()
    pages[0].goto(f"{server.url}/t/{table.code}/")
    pages[1].goto(f"{server.url}/t/{table.code}/board/")
    pages[1].wait_for_selector("#public-view .board-seat", timeout=15000)
    return pages


def check_screens(browser, server, table, name: str) -> tuple[dict, list[dict]]:
    """axe's findings on the phone and the board of ``table``, and their marks in grey (with the phone's width)."""
    phone, board = open_screens(browser, server, table)
    try:
        found = {f"{name} phone": relevant_violations(phone), f"{name} board": relevant_violations(board)}
        marks = marks_in_grey(phone) + marks_in_grey(board)
        found[f"{name} phone scrolls sideways"] = phone.evaluate(
            "() => document.scrollingElement.scrollWidth > window.innerWidth") and ["scrolls"] or []
        board.evaluate("() => { document.documentElement.style.filter = 'grayscale(1)'; }")
        # A finished game's board in grey is the README's picture of it.
        if name.endswith("-over"):
            readme_picture(board, f"grey-{name}-board.png")
        else:
            board.screenshot(path=str(ARTIFACTS / f"grey-{name}-board.png"))
    except Exception:
        save_screenshots([phone, board], f"grey-{name}-failure")
        raise
    finally:
        phone.context.close()
        board.context.close()
    return found, marks


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_every_mark_is_told_apart_without_colour_and_axe_finds_nothing(browser, server, engine):
    """During play and at the end, the phone and the board: axe clean, and no two coloured marks alike in grey."""
    ARTIFACTS.mkdir(exist_ok=True)
    players, during = PLAYERS[engine], DURING[engine]
    playing = finished_table(engine, players, seed=SEEDS.get(engine, players), until=during)
    assert not playing.games.get().over
    found, marks = check_screens(browser, server, playing, f"{engine}-playing")
    ended_found, ended_marks = check_screens(browser, server, finished_table(engine, players, seed=players + 1),
                                             f"{engine}-over")
    found.update(ended_found)
    marks += ended_marks
    assert {name: v for name, v in found.items() if v} == {}
    kinds = {family for family in FAMILIES if len({m["variant"] for m in marks if m["family"] == family}) > 1}
    assert EXPECTED[engine] <= kinds, kinds
    assert colour_only_pairs(marks) == []
    # A shown mark shows its shape in grey (a character's tile its name: NAMED).
    assert [m["where"] for m in marks if m["shown"] and not m["drawn"] and m["family"] not in NAMED] == []
