"""The board on a 10-inch tablet, read from across the table, and the phone at 360×640.

One human phone (it plays first, so the game waits on it) and bots at each table; the board is an
anonymous tablet. During play the board is one screen at 1024×768 and 1280×800 (no scrolling), the
seats sit around the table in seating order without covering the middle, names and key figures are
at least 24 px, nothing is under 18 px, words are never broken inside, and every tap target is at
least 44 px. Screenshots of each game's board and phone in English, Persian and Japanese go to
docs/screens/ (shown in the README).
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ROOT, save_screenshots
from tests.e2e.test_inside_job_browser import sit_down

pytestmark = pytest.mark.e2e

SCREENS = ROOT / "docs" / "screens"
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
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && shown(el)) texts.push(el);
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
        board.screenshot(path=str(SCREENS / shots[0]), scale="device")
        phone.reload()
        phone.wait_for_selector('[data-test="my-move"]', timeout=15000)
        phone.screenshot(path=str(SCREENS / shots[1]), scale="css")
        cover = phone.locator("[data-peek-button]").first
        if cover.count():
            # Hold to peek: the finger stays down while the picture is taken.
            cover.scroll_into_view_if_needed()
            box = cover.bounding_box()
            phone.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            phone.mouse.down()
            phone.wait_for_timeout(200)
            shots.append(f"{engine}-phone-held-{lang}.png")
            phone.screenshot(path=str(SCREENS / shots[-1]), scale="css")
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
    """templates/cards/<game>.html draws each card of the game (not the back), hidden from screen readers."""
    from django.template.loader import render_to_string

    svg = render_to_string(f"cards/{game}.html", {"card": card})
    assert f'class="card-art card-art-{card}"' in svg and 'aria-hidden="true"' in svg
    assert "card-art-back" in render_to_string(f"cards/{game}.html", {"card": None})
    # Original drawings: shapes only, no pictures pulled in from elsewhere.
    assert "<image" not in svg and "href" not in svg


def test_the_moderators_board_is_one_screen_with_the_drawer_closed_and_beside_it_open(browser, server):
    """The moderator's tablet during play: the same one screen with the closed drawer in the bottom bar;
    opened, the drawer takes a column of its own beside the board and covers nothing."""
    tablet = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    sit_down(tablet, server.url, "Mia")
    tablet.click('[data-test="new-table"]')
    tablet.check('[data-test="role-moderate"]')
    tablet.click('[data-test="create"]')
    code = tablet.inner_text('[data-test="table-code"]').strip()
    phone = seated_phone(browser, server)
    phone.fill('[data-test="code"]', code.lower())
    phone.click('[data-test="find"]')
    phone.click('[data-test="join"]')
    tablet.wait_for_function("() => document.querySelectorAll('[data-test=mod-seats] li').length === 1", timeout=15000)
    for _ in range(4):
        tablet.click('[data-test="add-bot"]')
    tablet.click('[data-test="start"]')
    tablet.wait_for_selector("#public-view[data-playing] .board-seat", timeout=15000)
    try:
        assert tablet.locator('[data-test="controls"][open]').count() == 0
        assert_board_fits(tablet.evaluate(BOARD_MEASURE), 5)
        tablet.click('[data-test="controls"] > summary')
        tablet.wait_for_selector('[data-test="controls"][open]')
        drawer = tablet.locator("#moderator-view").bounding_box()
        board = tablet.locator("#public-view").bounding_box()
        assert drawer["x"] >= board["x"] + board["width"] - 1  # beside the board, not over it
        assert tablet.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert tablet.locator('[data-test="end-game"]').is_visible()
    except Exception:
        save_screenshots([tablet, phone], "board-ux-moderator-failure")
        raise
