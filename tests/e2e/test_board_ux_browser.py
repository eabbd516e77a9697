"""The board on a 10-inch tablet, read from across the table, and the phone at 360×640.

One human phone (it plays first, so the game waits on it) and bots at each table; the board is an
anonymous tablet. During play the board is one screen at 1024×768 and 1280×800 (no scrolling), the
seats sit around the table in seating order without covering the middle, names and key figures are
at least 24 px, nothing is under 18 px, words are never broken inside, and every tap target is at
least 44 px. Screenshots of each game's board and phone in English, Persian and Japanese go to
docs/screens/ (shown in the README).
"""

from __future__ import annotations

import contextlib
import random
import urllib.request
from collections.abc import Callable
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import MoveRefused, game_expire, move_submit
from infra.sessions import SessionStore
from lobby.models import NICKNAME_MAX, Table
from lobby.services import SESSION_KEY as PLAYER_KEY
from tests.conftest import Guest
from tests.e2e.conftest import SCREENS, readme_picture, save_screenshots
from tests.e2e.test_inside_job_browser import sit_down

pytestmark = pytest.mark.e2e

SMALL_PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2}
BOARD_SIZES = [(1024, 768), (1280, 800)]
# Players at each table (the human and bots).
PLAYERS = {"coup": 5, "good_cop_bad_cop": 6, "good_cop_bad_cop_health": 5, "inside_job": 7}
LANGUAGES = ["en", "fa", "ja"]


def set_language(context, base: str, lang: str) -> None:
    """Django's language cookie, as the language menu at the foot of every page sets it."""
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])


def seated_phone(browser, server, *, lang: str = "en", context_options: dict | None = None):
    """A 360×640 phone whose guest has sat down (on the home page), speaking ``lang``."""
    phone = browser.new_context(**SMALL_PHONE, **(context_options or {})).new_page()
    sit_down(phone, server.url, "Ana")
    phone.wait_for_load_state()
    set_language(phone.context, server.url, lang)
    phone.goto(f"{server.url}/")
    return phone


def create_table(phone, server, engine: str, players: int) -> str:
    """A table of ``engine`` with the phone's human first to play and bots in the other seats (its lobby open)."""
    phone.goto(f"{server.url}/new/?engine={engine}")
    phone.fill(f'[name="opt-{engine}-first_player"]', "1")  # the human (seat 1 of the form) starts
    phone.click('[data-test="create"]')
    code = phone.inner_text('[data-test="table-code"]').strip()
    for _ in range(players - 1):
        phone.click('[data-test="add-bot"]')
    phone.wait_for_function(f"() => document.querySelectorAll('[data-test=seats] li').length === {players}",
                            timeout=15000)
    return code


def start_game(phone) -> None:
    phone.click('[data-test="start"]')
    phone.wait_for_selector('[data-test="my-move"]', timeout=15000)


def open_board(browser, server, code: str, *, lang: str = "en", size: tuple[int, int] = BOARD_SIZES[0],
               context_options: dict | None = None):
    """An anonymous tablet on the table's board, during play."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, **(context_options or {}))
    set_language(context, server.url, lang)
    board = context.new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    board.wait_for_selector("#public-view[data-playing] .board-seat", timeout=15000)
    return board


def start_table(browser, server, engine: str, *, lang: str = "en", players: int | None = None,
                context_options: dict | None = None):
    """A running game: the human's phone (waited on, first to play) and an anonymous board."""
    phone = seated_phone(browser, server, lang=lang, context_options=context_options)
    code = create_table(phone, server, engine, players or PLAYERS[engine])
    start_game(phone)
    board = open_board(browser, server, code, lang=lang, context_options=context_options)
    return phone, board, code


# What the board looks like to a measuring tape. Text: own text nodes of visible elements (screen-reader-only
# labels left out). Tap targets: every visible link, button, field and summary on the page.
BOARD_MEASURE = """() => {
  const root = document.documentElement;
  const shown = el => el.getClientRects().length > 0 && !el.closest('.visually-hidden')
    && getComputedStyle(el).visibility !== 'hidden';
  const texts = [];
  // A glyph inside a card's drawing (aria-hidden) is part of the picture, not text to read.
  const drawn = el => el.closest('svg[aria-hidden="true"]');
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && shown(el) && !drawn(el)) texts.push(el);
  }
  const label = el => (el.textContent || el.getAttribute('aria-label') || el.tagName).trim().slice(0, 40);
  const px = el => parseFloat(getComputedStyle(el).fontSize);
  const board = document.getElementById('public-view');
  const broken = texts.filter(el => board.contains(el)).filter(el => {
    const s = getComputedStyle(el);
    return s.overflowWrap !== 'normal' || s.wordBreak === 'break-all' && !el.closest('.fair')
      || s.hyphens === 'auto';
  });
  const taps = [...document.querySelectorAll('a[href], button, select, input:not([type=hidden]), summary')]
    .filter(shown).map(el => [label(el), el.getBoundingClientRect()])
    .filter(([, r]) => r.height < 44 || r.width < 44)
    .map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)]);
  const rect = el => el.getBoundingClientRect();
  const seats = [...board.querySelectorAll('.board-seat')];
  const centre = board.querySelector('.board-centre');
  const c = rect(centre);
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const table = rect(board.querySelector('.board-table'));
  const cx = table.left + table.width / 2, cy = table.top + table.height / 2;
  const clipped = [centre, ...seats]
    .filter(el => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)
    .map(el => [label(el), el.scrollHeight, el.clientHeight, el.scrollWidth, el.clientWidth]);
  return {
    scrollWidth: root.scrollWidth, scrollHeight: root.scrollHeight,
    width: window.innerWidth, height: window.innerHeight,
    small: texts.filter(el => px(el) < 17.99).map(el => [label(el), px(el)]),
    smallNames: [...board.querySelectorAll('.board-name-text, .board-figure, .board-figure *')]
      .filter(el => px(el) < 23.99).map(el => [label(el), px(el)]),
    broken: broken.map(el => [label(el), getComputedStyle(el).overflowWrap, getComputedStyle(el).wordBreak]),
    taps,
    seatCount: seats.length,
    seatOrder: seats.map(el => Number(el.dataset.i)),
    // Clockwise from the top, in degrees, around the table's middle.
    angles: seats.map(el => { const r = rect(el); const x = r.left + r.width / 2 - cx, y = r.top + r.height / 2 - cy;
      return (Math.atan2(x, -y) * 180 / Math.PI + 360) % 360; }),
    overCentre: seats.filter(el => meets(rect(el), c)).map(label),
    overlapping: seats.flatMap((a, i) => seats.slice(i + 1).filter(b => meets(rect(a), rect(b)))
      .map(b => [label(a), label(b)])),
    clipped,
    inView: [centre, ...seats].every(el => { const r = rect(el); return r.top >= 0 && r.left >= 0
      && r.bottom <= window.innerHeight + 1 && r.right <= window.innerWidth + 1; }),
  };
}"""

PHONE_MEASURE = """() => {
  const shown = el => el.getClientRects().length > 0 && !el.closest('.visually-hidden');
  const small = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (own && shown(el) && size < 13.99) small.push([el.textContent.trim().slice(0, 40), size]);
  }
  // A box inside its label is tapped through the label: the label is the target.
  const taps = [...document.querySelectorAll('a[href], button, select, input:not([type=hidden]), summary')]
    .filter(shown).map(el => el.closest('label') || el)
    .map(el => [(el.textContent || el.name || el.tagName).trim().slice(0, 40), el.getBoundingClientRect()])
    .filter(([, r]) => r.height < 44).map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)]);
  return {scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth, small, taps};
}"""


def assert_board_fits(found: dict, players: int) -> None:
    """Everything the board promises a table, from one measurement."""
    assert found["scrollWidth"] <= found["width"], found
    assert found["scrollHeight"] <= found["height"], found
    assert found["inView"], found
    assert found["seatCount"] == players and found["seatOrder"] == list(range(players)), found
    # Clockwise in seating order: each seat's angle from seat 0 grows, once round the table.
    angles = [(a - found["angles"][0] + 1) % 360 for a in found["angles"]]
    assert all(a < b for a, b in zip(angles, angles[1:], strict=False)), f"seats not clockwise in order: {angles}"
    assert found["overCentre"] == [] and found["overlapping"] == [], found
    assert found["clipped"] == [], found
    assert found["small"] == [], found
    assert found["smallNames"] == [], found
    assert found["broken"] == [], found
    assert found["taps"] == [], found


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_board_is_one_screen_around_an_oval_in_seating_order(browser, server, engine):
    phone, board, _ = start_table(browser, server, engine)
    try:
        for width, height in BOARD_SIZES:
            board.set_viewport_size({"width": width, "height": height})
            board.wait_for_timeout(100)
            assert_board_fits(board.evaluate(BOARD_MEASURE), PLAYERS[engine])
        # The latest event is large and lit up for a moment (a CSS animation), unless motion is reduced.
        latest = board.locator(".board-log > li").first
        assert "board-latest" in latest.get_attribute("class")
        assert float(latest.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 24
        assert latest.evaluate("el => getComputedStyle(el).animationName") == "board-lit-line"
        board.emulate_media(reduced_motion="reduce")
        assert latest.evaluate("el => getComputedStyle(el).animationName") == "none"
        # Bots are marked by a drawing and a word, not an emoji; names stay plain.
        assert board.locator(".board-seat .bot-mark svg").count() == PLAYERS[engine] - 1
        assert "🤖" not in board.inner_text("body")
        assert board.locator(".board-seat .bot-mark .visually-hidden").first.inner_text() == "bot"
    except Exception:
        save_screenshots([board, phone], f"board-ux-{engine}-failure")
        raise


@pytest.mark.parametrize("engine", ["inside_job", "coup"])
def test_the_board_fits_the_largest_table(browser, server, engine):
    phone, board, _ = start_table(browser, server, engine, players=10)
    try:
        for width, height in BOARD_SIZES:
            board.set_viewport_size({"width": width, "height": height})
            board.wait_for_timeout(100)
            assert_board_fits(board.evaluate(BOARD_MEASURE), 10)
    except Exception:
        save_screenshots([board, phone], f"board-ux-{engine}-10-failure")
        raise


# The newest line of the log whole in sight: inside the events' box and the middle's, none of it cut off.
NEWEST_LINE = """() => {
  const line = document.querySelector('#public-view .board-events .board-log > li:first-child');
  const r = line.getBoundingClientRect();
  const within = el => { const b = el.getBoundingClientRect();
    return r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 && r.left >= b.left - 0.5 && r.right <= b.right + 0.5; };
  return {text: line.textContent.trim(), height: Math.round(r.height),
          whole: within(line.closest('.board-events')) && within(line.closest('.board-centre'))
            && line.scrollHeight <= line.clientHeight + 1 && line.scrollWidth <= line.clientWidth + 1};
}"""


def test_the_newest_log_line_is_whole_at_ten_seats(browser, server):
    """Ten seats of Inside Job just after a team was approved by most of the table: the newest line (the vote and the
    long list of who approved) wraps, and shows whole at 1024×768 and 1280×800, never cut in half."""
    def approved(view: dict) -> bool:
        last = view["log"][-1] if view["log"] else {}
        return last.get("event") == "votes" and last.get("approved", False)

    table = finished_table("inside_job", 10, seed=3, until=approved)
    assert table.games.get().status == Game.RUNNING
    code = table.code
    for seat in table.seats.all():  # each phone looks in, as phones at a table do: none of them is called asleep
        session = SessionStore()
        session[PLAYER_KEY] = seat.player_id
        session.create()
        cookie = {"Cookie": f"sessionid={session.session_key}"}
        request = urllib.request.Request(f"{server.url}/t/{code}/", headers=cookie)
        with urllib.request.urlopen(request) as answer:
            assert answer.status == 200
    board = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    board.goto(f"{server.url}/t/{code}/board/")
    board.wait_for_selector("#public-view[data-playing] .board-seat", timeout=15000)
    try:
        for width, height in BOARD_SIZES:
            board.set_viewport_size({"width": width, "height": height})
            board.wait_for_timeout(100)
            assert_board_fits(board.evaluate(BOARD_MEASURE), 10)
            newest = board.evaluate(NEWEST_LINE)
            assert newest["text"].startswith("Team approved."), newest
            assert newest["height"] > 40, newest  # it wraps
            assert newest["whole"], (width, height, newest)
    except Exception:
        save_screenshots([board], "board-ux-newest-line-failure")
        raise


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_screens_of_each_game_in_each_language(browser, server, engine, lang):
    """docs/screens/<game>-board-<lang>.png (1024×768 drawn at 0.625: 640×480) and <game>-phone-<lang>.png
    (360×640), the phone's hand also held open (<game>-phone-held-<lang>.png) where it lies face-down."""
    phone = seated_phone(browser, server, lang=lang)
    code = create_table(phone, server, engine, PLAYERS[engine])
    start_game(phone)
    board = open_board(browser, server, code, lang=lang, context_options={"device_scale_factor": 0.625})
    SCREENS.mkdir(parents=True, exist_ok=True)
    shots = [f"{engine}-board-{lang}.png", f"{engine}-phone-{lang}.png"]
    try:
        assert board.evaluate("() => document.documentElement.lang") == lang
        assert_board_fits(board.evaluate(BOARD_MEASURE), PLAYERS[engine])
        board.wait_for_timeout(2600)  # the highlight of the latest change has faded
        readme_picture(board, shots[0], scale="device")
        phone.reload()
        phone.wait_for_selector('[data-test="my-move"]', timeout=15000)
        readme_picture(phone, shots[1])
        cover = phone.locator("[data-peek-button]").first
        if cover.count():
            # Hold to peek: the finger stays down while the picture is taken.
            cover.scroll_into_view_if_needed()
            box = cover.bounding_box()
            phone.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            phone.mouse.down()
            phone.wait_for_timeout(200)
            shots.append(f"{engine}-phone-held-{lang}.png")
            readme_picture(phone, shots[-1])
            phone.mouse.up()
    except Exception:
        save_screenshots([board, phone], f"screens-{engine}-{lang}-failure")
        raise
    for name in shots:
        assert (SCREENS / name).stat().st_size < 150_000, name


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_phone_at_360_has_no_sideways_scroll_small_text_or_small_targets(browser, server, engine):
    phone, board, _ = start_table(browser, server, engine)
    found = phone.evaluate(PHONE_MEASURE)
    assert found["scrollWidth"] <= found["width"], found
    assert found["small"] == [], found
    assert found["taps"] == [], found


def _card_ids() -> list[tuple[str, str]]:
    """Every card the boards and phones may draw, by game, from the engines' own lists."""
    from engines.coup import cards as coup
    from engines.good_cop_bad_cop import cards as gcbc
    from engines.good_cop_bad_cop_health import cards as health
    from engines.inside_job import cards as inside_job

    ids = {
        "coup": [coup.DUKE, coup.ASSASSIN, coup.CAPTAIN, coup.AMBASSADOR, coup.CONTESSA, coup.INQUISITOR],
        "inside_job": list(inside_job.ROLES),
        "good_cop_bad_cop": [gcbc.HONEST, gcbc.CROOKED, gcbc.AGENT, gcbc.KINGPIN],
        "good_cop_bad_cop_health": [*health.KINDS, health.GOOD, health.BAD, health.WANTED],
    }
    return [(game, card) for game, cards in ids.items() for card in cards]


@pytest.mark.parametrize(("game", "card"), _card_ids())
def test_every_card_has_its_own_drawing(game, card):
    """templates/games/<game>/card.jinja draws each card of the game (not the back), hidden from screen readers."""
    from django.template.loader import render_to_string

    svg = render_to_string(f"games/{game}/card.jinja", {"card": card})
    assert f'class="card-art card-art-{card}"' in svg and 'aria-hidden="true"' in svg
    assert "card-art-back" in render_to_string(f"games/{game}/card.jinja", {"card": None})
    # Original drawings: shapes only, no pictures pulled in from elsewhere.
    assert "<image" not in svg and "href" not in svg


def moderated_table(tablet, phone, server, players: int) -> str:
    """A table the tablet moderates (no seat), the phone's guest and bots in its seats, its game started."""
    tablet.goto(f"{server.url}/new/?engine=inside_job")
    tablet.check('[data-test="role-moderate"]')
    tablet.click('[data-test="create"]')
    code = tablet.inner_text('[data-test="table-code"]').strip()
    if phone is not None:
        phone.fill('[data-test="code"]', code.lower())
        phone.click('[data-test="find"]')
        phone.click('[data-test="join"]')
        tablet.wait_for_function("() => document.querySelectorAll('[data-test=mod-seats] li').length === 1",
                                 timeout=15000)
    for _ in range(players - (phone is not None)):
        tablet.click('[data-test="add-bot"]')
    tablet.click('[data-test="start"]')
    tablet.wait_for_selector("#public-view[data-playing] .board-seat", timeout=15000)
    return code


# The seats' and the middle's boxes, and the open drawer's sheet (null while it is closed).
BOXES = """() => {
  const box = el => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map(Math.round); };
  const sheet = document.querySelector('#moderator-view details[open] > .drawer-sheet');
  return {seats: [...document.querySelectorAll('#public-view .board-seat')].map(box),
          centre: box(document.querySelector('#public-view .board-centre')), sheet: sheet && box(sheet)};
}"""


def meets(a: list[int], b: list[int]) -> bool:
    """Whether two boxes ([left, top, width, height]) cover each other anywhere."""
    return a[0] < b[0] + b[2] - 1 and b[0] < a[0] + a[2] - 1 and a[1] < b[1] + b[3] - 1 and b[1] < a[1] + a[3] - 1


# Every seat, and the site's header, in sight beside the open drawer: each seat's box inside the window and clear of the
# sheet, and the seat itself under the pointer at its middle and near each corner (nothing drawn over it).
IN_SIGHT = """() => {
  const sheet = document.querySelector('#moderator-view details[open] > .drawer-sheet');
  const s = sheet.getBoundingClientRect();
  const label = el => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40);
  const hidden = [];
  for (const el of [...document.querySelectorAll('#public-view .board-seat, .top a, #public-view .fair')]) {
    const r = el.getBoundingClientRect();
    const clear = r.right <= s.left + 0.5 || r.left >= s.right - 0.5 || r.bottom <= s.top + 0.5
      || r.top >= s.bottom - 0.5;
    const inside = r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
    const points = [[0.5, 0.5], [0.05, 0.05], [0.95, 0.05], [0.05, 0.95], [0.95, 0.95]];
    const shown = points.every(([x, y]) =>
      el.contains(document.elementFromPoint(r.left + r.width * x, r.top + r.height * y)));
    if (!(clear && inside && shown)) hidden.push([label(el), ...[r.left, r.top, r.width].map(Math.round)]);
  }
  return hidden;
}"""


@pytest.mark.parametrize("players", [5, 10])
def test_the_moderators_open_drawer_is_a_sheet_beside_every_seat(browser, server, players):
    """The moderator's tablet during play, at 5 and 10 seats, 1024×768 and 1280×800: the drawer opens as a sheet at the
    page's end edge and the board makes room beside it: every seat whole and in sight (none under the sheet), with the
    site's header and the seed hash; the board still fits (no seat over another, the middle whole and uncovered, nothing
    clipped), and the sheet closes with Escape, giving the board back as it was."""
    tablet = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    sit_down(tablet, server.url, "Mia")
    phone = seated_phone(browser, server)
    code = moderated_table(tablet, phone, server, players)
    try:
        for width, height in BOARD_SIZES:
            tablet.set_viewport_size({"width": width, "height": height})
            tablet.wait_for_timeout(100)
            assert tablet.locator('[data-test="controls"][open]').count() == 0
            assert_board_fits(tablet.evaluate(BOARD_MEASURE), players)
            closed = tablet.evaluate(BOXES)
            tablet.click('[data-test="controls"] > summary')
            tablet.wait_for_selector('[data-test="controls"][open]')
            tablet.wait_for_timeout(100)
            assert_board_fits(tablet.evaluate(BOARD_MEASURE), players)
            assert tablet.evaluate(IN_SIGHT) == [], (width, height)
            opened = tablet.evaluate(BOXES)
            sheet = opened["sheet"]
            assert sheet[0] >= 0 and sheet[1] >= 0, sheet
            assert sheet[0] + sheet[2] <= width + 1 and sheet[1] + sheet[3] <= height + 1, sheet
            assert not meets(sheet, opened["centre"]), (sheet, opened["centre"])  # the middle stays whole
            assert not any(meets(sheet, seat) for seat in opened["seats"]), (sheet, opened["seats"])
            assert tablet.locator('[data-test="end-game"]').is_visible()
            if (width, height) == BOARD_SIZES[0] and players == 5:
                tablet.wait_for_timeout(2600)  # the highlight of the latest change has faded
                shot = SCREENS / "inside_job-board-moderated-en.png"
                readme_picture(tablet, shot.name)
                assert shot.stat().st_size < 250_000, shot
            tablet.keyboard.press("Escape")
            tablet.wait_for_selector('[data-test="controls"]:not([open])')
            assert tablet.evaluate(BOXES) == closed
        # The drawer stays as the moderator left it through a reload, but not into the next table's game.
        tablet.click('[data-test="controls"] > summary')
        tablet.reload()
        tablet.wait_for_selector('[data-test="controls"][open]')
        if players == 5:
            next_code = moderated_table(tablet, None, server, 5)
            assert next_code != code
            assert tablet.locator('[data-test="controls"][open]').count() == 0
    except Exception:
        save_screenshots([tablet, phone], f"board-ux-moderator-{players}-failure")
        raise


def test_the_drawer_does_not_reopen_over_the_next_games_reveal(browser, server):
    """The moderator opens the drawer to end a game and again at its end to play again: the next game starts with the
    drawer closed, and its end (ended the same way) shows the reveal whole, the drawer closed, not as it was left at the
    previous game's end."""
    tablet = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    sit_down(tablet, server.url, "Mia")
    moderated_table(tablet, None, server, 5)
    closed = '[data-test="controls"]:not([open])'
    try:
        for game in range(2):
            assert tablet.locator(closed).count() == 1, game  # during play the drawer starts closed
            tablet.click('[data-test="controls"] > summary')
            tablet.click('[data-test="end-game"]')
            tablet.click('[data-test="confirm-end"]')
            tablet.wait_for_selector('#public-view[data-over] [data-test="ended"]', timeout=15000)
            assert tablet.locator(closed).count() == 1, game  # the reveal shows whole
            tablet.click('[data-test="controls"] > summary')
            if game == 0:
                tablet.click('[data-test="start"]')  # Play again
                tablet.wait_for_selector("#public-view[data-playing] .board-seat", timeout=15000)
    except Exception:
        save_screenshots([tablet], "board-ux-drawer-next-end-failure")
        raise


def finished_table(engine_name: str, players: int, *, seed: int = 1, end_early: bool = False,
                   names: list[str] | None = None, until: Callable[[dict], bool] | None = None) -> Table:
    """A table whose game has just finished: guests (test clients) at every seat play random legal moves through the
    services until the game ends (``end_early``: its host ends it after a few moves; ``until``: play stops, the game
    still running, once the board's view passes this test). ``seed`` is both the deal's (not a fresh secret one) and
    the moves' choice: the same game, move for move, on every run."""
    people = [Guest(name) for name in names or [f"Player {i + 1}" for i in range(players)]]
    assert people[0].post("/new/", {"engine": engine_name, "timer": "0"}).status_code == 302
    table = Table.objects.filter(host=people[0].player).latest("pk")
    for person in people[1:]:
        assert person.post(f"/t/{table.code}/join/").status_code == 302
    with mock.patch("gameplay.services.new_seed", return_value=seed):
        assert people[0].post(f"/t/{table.code}/host/start/").status_code == 302
    game = table.games.get(status=Game.RUNNING)
    engine, rng = get_engine(engine_name), random.Random(seed)
    for step in range(5000):
        game.refresh_from_db()
        if game.over:
            return table
        if end_early and step == 12:
            assert people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"}).status_code == 302
            continue
        state = game_state(game)
        if until is not None and until(engine.view(state, None)):
            return table
        movers = [seat for seat in range(players) if engine.legal_actions(state, seat)]
        if not movers:  # a window that only closes by itself (the server's worker may close it first)
            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            game_expire(game_id=game.pk)
            continue
        seat = rng.choice(movers)
        with contextlib.suppress(MoveRefused):  # the worker moved the game on meanwhile: look again
            move_submit(game_id=game.pk, player=people[seat].player, version=game.version, move_id=None,
                        action=rng.choice(engine.legal_actions(state, seat)), window=game.window)
    raise AssertionError("the game did not finish")


# Every seat's card is face up at the end; a game with roles shows each seat's role card on its seat.
ROLE_CARDS = {"inside_job": True, "good_cop_bad_cop_health": True, "coup": False, "good_cop_bad_cop": False}


def assert_the_reveal_is_first(board, players: int, engine: str) -> None:
    """One screen (no scrolling), the seats around the table as during play, who won and every seat's cards in view."""
    assert board.evaluate("() => document.scrollingElement.scrollHeight <= window.innerHeight"), "the end scrolls"
    assert_board_fits(board.evaluate(BOARD_MEASURE), players)
    assert board.locator("#public-view .board-seat .face-down").count() == 0
    if ROLE_CARDS[engine]:
        assert board.locator("#public-view .board-seat .board-role").count() == players
    else:
        assert board.locator("#public-view .board-seat [data-test=revealed]").count() > 0
    head = board.locator("#public-view .outcome h2").bounding_box()
    assert head["y"] >= 0 and head["y"] + head["height"] <= board.viewport_size["height"]
    assert board.evaluate(ROOM_TO_SPARE, ROOM) == {"tight": [], "outside_head": [], "cut": [], "half_lines": []}


# Names as long as the lobby takes them (NICKNAME_MAX), with a space as most names have: the seats' names and the list
# of winners at their longest.
LONG_NAMES = [f"Wilhelmina Montgomery {i + 1:02d}" for i in range(10)]
# Room to spare, in px: every seat and the middle still hold all they show when this much narrower and shorter, so
# the end never fits by a pixel (a font's rounding, a wider digit).
ROOM = 8
ROOM_TO_SPARE = """(room) => {
  const board = document.getElementById('public-view');
  const label = el => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 60);
  const rect = el => el.getBoundingClientRect();
  // Box a inside box b, or wholly out of it (half a pixel either way: layout rounds).
  const inside = (a, b) => a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5 && a.left >= b.left - 0.5
    && a.right <= b.right + 0.5;
  const apart = (a, b) => a.bottom <= b.top + 0.5 || a.top >= b.bottom - 0.5 || a.right <= b.left + 0.5
    || a.left >= b.right - 0.5;
  const tight = [];
  for (const el of [board.querySelector('.board-centre'), ...board.querySelectorAll('.board-seat')]) {
    const r = rect(el);
    el.style.width = `${r.width - room}px`;
    el.style.height = `${r.height - room}px`;
    if (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth) {
      tight.push([label(el), el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight]);
    }
    el.style.width = el.style.height = '';
  }
  // The head row keeps to its own box (the table below starts where it ends): who won, the buttons, the code and QR.
  const head = rect(board.querySelector('.board-over-head'));
  const outside_head = [...board.querySelectorAll('.board-over-head > *, .board-over-head > * > *')]
    .filter(el => el.getClientRects().length && !el.closest('.visually-hidden, .fair-check'))
    .filter(el => !inside(rect(el), head)).map(label);
  // A line cut short shows whole lines only (its box no taller than its clamp of lines).
  const cut = [...board.querySelectorAll('*')].filter(el => el.getClientRects().length).filter(el => {
    const s = getComputedStyle(el);
    return s.webkitLineClamp !== 'none' && el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)
      > parseInt(s.webkitLineClamp) * parseFloat(s.lineHeight) + 1;
  }).map(label);
  // The log's lines in the middle: each whole in sight or wholly out of it, never half a line.
  const events = rect(board.querySelector('.board-events'));
  const half_lines = [...board.querySelectorAll('.board-events .board-log > li')]
    .filter(li => !inside(rect(li), events) && !apart(rect(li), events)).map(label);
  return {tight, outside_head, cut, half_lines};
}"""
# The worst a game can end with, on the page as dealt: a line the board cuts short (a clamp of lines or an ellipsis)
# at its longest, and every card on the seats named as the widest name on the board.
AT_THEIR_LONGEST = """() => {
  const board = document.getElementById('public-view');
  for (const el of board.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    if ((s.webkitLineClamp !== 'none' || s.textOverflow === 'ellipsis') && el.textContent.trim()) {
      el.textContent = Array(6).fill(el.textContent.trim()).join(' ');
    }
  }
  const names = [...board.querySelectorAll('.board-seat .board-card-name')];
  const width = el => el.getBoundingClientRect().width;
  const widest = names.reduce((a, b) => (width(b) > width(a) ? b : a), names[0]);
  for (const el of names) { el.textContent = widest.textContent; }
  return names.length;
}"""


def assert_the_end_fits(board, players: int, engine: str) -> None:
    """The end as dealt at each size, then at its longest at each size."""
    for width, height in BOARD_SIZES:
        board.set_viewport_size({"width": width, "height": height})
        board.wait_for_selector("#public-view[data-over] .board-seat", timeout=15000)
        assert_the_reveal_is_first(board, players, engine)
    assert board.evaluate(AT_THEIR_LONGEST) >= players
    for width, height in BOARD_SIZES:
        board.set_viewport_size({"width": width, "height": height})
        assert_the_reveal_is_first(board, players, engine)


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_game_over_board_is_one_screen_with_the_reveal_first(browser, server, engine):
    """At every player count of each game, on 1024×768 and 1280×800: who won and every seat's role or cards on the
    table, without scrolling, with room to spare; also after the host ended a game early. The same games every run
    (fixed seeds), their names as long as a name may be, and then every cut line at its longest and every card named as
    the widest card: the worst case, every run. docs/screens/<game>-board-over-en.png."""
    assert {len(name) for name in LONG_NAMES} == {NICKNAME_MAX}
    low, high = get_engine(engine).min_players, get_engine(engine).max_players
    board = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    shots = board.context.browser.new_context(viewport={"width": 1024, "height": 768}, device_scale_factor=0.625)
    try:
        for players in range(low, high + 1):
            code = finished_table(engine, players, seed=players, names=LONG_NAMES[:players]).code
            board.goto(f"{server.url}/t/{code}/board/")
            assert_the_end_fits(board, players, engine)
            if players == PLAYERS[engine]:
                shot_code = finished_table(engine, players, seed=players).code
                shot = shots.new_page()
                shot.goto(f"{server.url}/t/{shot_code}/board/")
                shot.wait_for_timeout(2600)  # the highlight of the latest change has faded
                readme_picture(shot, f"{engine}-board-over-en.png", scale="device")
                assert (SCREENS / f"{engine}-board-over-en.png").stat().st_size < 150_000
        ended = finished_table(engine, PLAYERS[engine], end_early=True, names=LONG_NAMES[:PLAYERS[engine]])
        board.goto(f"{server.url}/t/{ended.code}/board/")
        board.wait_for_selector('#public-view[data-over] [data-test="ended"]', timeout=15000)
        assert_the_end_fits(board, PLAYERS[engine], engine)
    except Exception:
        save_screenshots([board], f"board-ux-over-{engine}-failure")
        raise


def test_the_game_logs_numbers_are_persian_digits_on_a_persian_page(browser, server):
    """The game's page keeps its log as a numbered list: in Persian its numbers are Persian digits (۱, ۲, ۳), as every
    other number on a Persian page; in English they stay 1, 2, 3."""
    table = finished_table("coup", 3)
    game = table.games.get()
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    session = SessionStore()  # the browser of a player of the game (its page is theirs to see)
    session[PLAYER_KEY] = table.seats.first().player_id
    session.create()
    page.context.add_cookies([{"name": "sessionid", "value": session.session_key, "url": server.url}])
    for lang, style in [("fa", "persian"), ("en", "decimal")]:
        set_language(page.context, server.url, lang)
        page.goto(f"{server.url}/g/{game.pk}/")
        assert page.evaluate("() => document.documentElement.lang") == lang
        assert page.locator("ol.log > li").count() > 3
        assert page.evaluate("() => getComputedStyle(document.querySelector('ol.log > li')).listStyleType") == style
