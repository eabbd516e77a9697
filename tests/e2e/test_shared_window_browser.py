"""Four phones tap into one window together, on two server processes, and every tap lands.

An Inside Job table: four people with phones (two on each daphne process), one bot and a
board. In every vote window the four phones tap Approve or Reject at the same moment (the
clicks fired back-to-back, nobody waiting for an answer) while the bot answers at once
too; in every mission window the people on the team play their cards together the same way.
Each phone's answer was made on a screen older than the table by the time it lands (the
others' answers came first), and it must land all the same: the window is still open
(``move_submit`` judges it by the window id the form sends). No phone is ever told that its
window closed or that the table moved on, the log holds exactly one answer per seat per
window, and every screen shows the table moving on. (A screen left on a window that has closed
is news its page lost: the failure message gives the pushes it heard and the requests it made.)
"""

from __future__ import annotations

import json
import time

import pytest

from engines.registry import get_engine
from gameplay.models import Game, GameSeat, Move
from gameplay.selectors import game_state
from lobby.models import Table
from tests.e2e.conftest import PHONE, TABLET, save_screenshots, tap_and_settle
from tests.e2e.test_inside_job_browser import sit_down

pytestmark = pytest.mark.e2e
NAMES = ["Ana", "Bo", "Cy", "Di"]
REFUSALS = ("window has closed", "table moved on")

# Every page keeps a record of each note it ever showed (htmx swaps panels; the page stays),
# and can say what its screen shows: the phase, the missions done, the rejections.
# (Functions, never expression strings, go to wait_for_function: the app's CSP forbids eval.)
WATCH = """
window.__notes = [];
new MutationObserver(() => {
  document.querySelectorAll('[data-test=note]').forEach((note) => {
    if (!note.dataset.counted) { note.dataset.counted = '1'; window.__notes.push(note.textContent.trim()); }
  });
}).observe(document, {childList: true, subtree: true});
// What the page heard and asked, for the failure message: a push ("changed") that no GET follows is lost news.
window.__trace = [];
const mark = (what) => {
  window.__trace.push(what + '@' + (Date.now() % 100000));
  window.__trace = window.__trace.slice(-16);
};
document.addEventListener('table-changed', () => mark('changed'));
// A move sent over the socket is answered with the fragments that changed: the answer clears the stale mark.
document.addEventListener('table:answered', (e) => {
  mark('answered-' + e.detail.status);
  const panel = document.getElementById('private-view');
  if (panel) { delete panel.dataset.stale; }
});
document.addEventListener('htmx:beforeRequest', (e) => mark(e.detail.requestConfig.verb));
document.addEventListener('htmx:afterRequest', (e) => {
  mark(e.detail.requestConfig.verb + '-done-' + e.detail.xhr.status);
});
window.__screen = () => {
  const shown = document.querySelector('[data-phase]');  // the phase, where the screen shows one (not at the end)
  const track = document.querySelector('.ij-track');
  const rejections = document.querySelector('[data-test=rejections]');
  if (!track || !rejections) { return null; }
  return {
    phase: shown ? shown.dataset.phase : '',
    results: track.querySelectorAll('.ij-success, .ij-fail').length,
    rejections: parseInt((rejections.textContent.match(/\\d+/) || ['-1'])[0], 10),
    outcome: !!document.querySelector('[data-test=outcome]'),
  };
};
"""

# Tap one button of this phone's panel now, without waiting for anything; returns the version
# and window the form carries (what the screen showed), or null when the button is not there.
FIRE = """
(selector) => {
  const button = document.querySelector(selector);
  if (!button) { return null; }
  const form = button.closest('form');
  document.getElementById('private-view').dataset.stale = '1';
  button.click();
  return {version: parseInt(form.querySelector('[name=version]').value, 10),
          window: form.querySelector('[name=window]').value};
}
"""

SHOWS = """
([results, rejections, phaseIs, phaseNot]) => {
  const s = window.__screen && window.__screen();
  if (!s || s.results !== results || s.rejections !== rejections) { return false; }
  if (s.outcome) { return true; }
  return (phaseIs === null || s.phase === phaseIs) && (phaseNot === null || s.phase !== phaseNot);
}
"""


def socket_answer(statuses: list[int], payload: str | bytes) -> None:
    """A frame of a phone's socket: the status of the move it answers, if it answers one (and not by asking
    the page to post it: that POST's answer is counted)."""
    try:
        frame = json.loads(payload)
    except ValueError:
        return
    if isinstance(frame, dict) and "answer" in frame and not frame.get("post"):
        statuses.append(frame["status"])


def _wait(condition, what: str, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _state(game: Game) -> dict:
    """The table as the board sees it now (the engine's public view: the contract, not its state)."""
    game.refresh_from_db()
    return get_engine(game.engine).view(game_state(game), None)


def test_four_phones_answer_one_window_together_and_every_answer_lands(browser, servers):
    started = time.monotonic()
    first, second = servers
    contexts = [browser.new_context(**PHONE) for _ in NAMES]
    for context in contexts:
        context.add_init_script(WATCH)
    phones = [context.new_page() for context in contexts]
    # The status of every move each phone sent: over its table socket (the answer names the move), or posted
    # (a socket answered {"post": true}, or none was open).
    answers: dict[str, list[int]] = {name: [] for name in NAMES}
    for page, name in zip(phones, NAMES, strict=True):
        page.on("response", lambda r, name=name: answers[name].append(r.status)
                if r.request.method == "POST" and r.url.endswith("/move/") else None)
        page.on("websocket", lambda ws, name=name: ws.on(
            "framereceived", lambda payload, name=name: socket_answer(answers[name], payload)))
    # Bo and Di talk to the second process: their answers and pushes cross Redis.
    bases = [first.url, second.url, first.url, second.url]
    for page, base, name in zip(phones, bases, NAMES, strict=True):
        sit_down(page, base, name)
    host = phones[0]
    host.click('[data-test="new-table"]')
    host.click('[data-test="create"]')
    code = host.inner_text('[data-test="table-code"]').strip()
    for page, base in zip(phones[1:], bases[1:], strict=True):
        page.goto(f"{base}/t/{code}/")
        page.click('[data-test="join"]')
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 4", timeout=15000)
    host.click('[data-test="add-bot"]')  # the lobby's own control: a heuristic bot takes the fifth seat
    host.wait_for_function("() => document.querySelectorAll('[data-test=seats] li').length === 5", timeout=15000)
    board_context = browser.new_context(**TABLET)
    board_context.add_init_script(WATCH)
    board = board_context.new_page()
    board.goto(f"{first.url}/t/{code}/board/")
    host.click('[data-test="start"]')
    for page in phones:
        page.wait_for_selector('[data-test="role"]', timeout=15000)
    board.wait_for_selector('[data-test="seed-hash"]', timeout=15000)

    game = Game.objects.get(table__code=code, status=Game.RUNNING)
    assert game.timer_seconds == 0  # no window closes by the clock: only the answers close it
    gseats = list(GameSeat.objects.filter(game=game).order_by("index"))
    (bot,) = [g.index for g in gseats if g.bot]
    phone_of = {g.index: phones[NAMES.index(g.name)] for g in gseats if not g.bot}
    humans = sorted(phone_of)
    screens = [*phones, board]

    def screens_show(results: int, rejections: int, *, phase_is=None, phase_not=None) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        for i, page in enumerate(screens):
            try:
                page.wait_for_function(SHOWS, arg=[results, rejections, phase_is, phase_not], timeout=15000)
            except PlaywrightTimeout:
                shows = page.evaluate("() => window.__screen && window.__screen()")
                revision = page.evaluate("() => document.querySelector('#private-view, #public-view').dataset.revision")
                trace = page.evaluate("() => window.__trace")
                raise AssertionError(
                    f"screen {i} ({(NAMES + ['board'])[i]}) shows {shows}, not {results} missions done, "
                    f"{rejections} rejections, phase {phase_is or 'not ' + str(phase_not)}: its panel was "
                    f"rendered at revision {revision}, the table is at {Table.objects.get(code=code).revision}; "
                    f"what the page heard and asked last: {trace}") from None

    def answer_together(taps: dict[int, str], kind: str) -> dict:
        """Fire every tap at once, wait for each panel to settle; check the log of that window."""
        window = game.window
        answer_type = "vote" if kind == "vote" else "play"
        # The move that opened this window (a proposal, or the vote that sent the team): the
        # bot may have answered already, before any phone taps.
        opened = Move.objects.filter(game=game).exclude(action__type=answer_type).order_by("-seq").first().seq
        for seat in taps:
            phone_of[seat].wait_for_selector(taps[seat], timeout=15000)
        shown = {seat: phone_of[seat].evaluate(FIRE, taps[seat]) for seat in taps}  # back-to-back
        for seat, form in shown.items():
            assert form is not None, f"seat {seat} had no {taps[seat]} to tap"
            assert form["window"] == window, (seat, form, window)
        for seat in taps:
            page = phone_of[seat]
            page.wait_for_selector("#private-view:not([data-stale])", timeout=15000)
            notes = page.evaluate("() => window.__notes")
            assert not notes, f"seat {seat} was told {notes} after tapping {taps[seat]} in window {window}"
        try:
            _wait(lambda: _state(game) and game.window != window, f"the {kind} window {window} to close")
        except AssertionError:
            landed = set(Move.objects.filter(game=game, seq__gt=opened).values_list("seat", flat=True))
            lost = {seat: phone_of[seat].evaluate("() => window.__trace") for seat in taps if seat not in landed}
            raise AssertionError(f"the {kind} window {window} stayed open: the taps of {sorted(lost)} never "
                                 f"landed (no error shown); what those pages heard and asked last: {lost}") from None
        state = _state(game)
        by_seat = {}
        for move in Move.objects.filter(game=game, seq__gt=opened).order_by("seq"):
            if move.action["type"] != answer_type:
                break  # the window closed: what follows is the next one
            assert move.seat not in by_seat, f"seat {move.seat} answered twice in window {window}"
            by_seat[move.seat] = move
        if kind == "vote":  # one vote from every seat, the bot's too
            assert set(by_seat) == set(range(game.players)), (window, sorted(by_seat))
        for seat in taps:  # every human answer landed, as tapped
            assert seat in by_seat, f"seat {seat}'s tap in window {window} did not land"
        late = sum(by_seat[seat].seq - 1 > shown[seat]["version"] for seat in taps)
        return {"state": state, "late": late, "moves": by_seat}

    votes = missions = late = taps_total = proposals = 0
    try:
        for _step in range(40):
            state = _state(game)
            if state["outcome"] is not None:
                break
            if state["phase"] == "propose":
                leader = state["leader"]
                size = state["team_size"]
                if leader == bot:
                    _wait(lambda: _state(game)["phase"] != "propose", "the bot's proposal")
                    continue
                # People on the team, the bot too where there is room: so the mission is a shared window.
                team = [leader, *[s for s in humans if s != leader]][:2] + ([bot] if size == 3 else [])
                page = phone_of[leader]
                for seat in team:
                    page.click(f'[data-test="pick-{seat}"]', timeout=5000)
                tap_and_settle(page, page.locator('[data-test="propose"]').first)
                proposals += 1
                _wait(lambda: _state(game)["phase"] == "vote", "the vote to open")
                continue
            if state["phase"] == "vote":
                rejections, results = state["rejections"], len(state["missions"])
                # The second vote is split; the rest approve (the bot decides a split one).
                approve = {seat: not (votes == 1 and i % 2) for i, seat in enumerate(humans)}
                taps = {seat: '[data-test="vote-approve"]' if approve[seat] else '[data-test="vote-reject"]'
                        for seat in humans}
                done = answer_together(taps, "vote")
                votes += 1
                late += done["late"]
                taps_total += len(taps)
                after = done["state"]
                if after["phase"] == "mission":
                    screens_show(results, after["rejections"], phase_is="mission")
                else:
                    assert after["rejections"] == rejections + 1
                    screens_show(results, after["rejections"], phase_not="mission")
                continue
            if state["phase"] == "mission":
                team = state["team"]
                taps = {seat: '[data-test="play-success"]' for seat in team if seat in phone_of}
                results = len(state["missions"])
                done = answer_together(taps, "mission")
                missions += 1
                late += done["late"]
                taps_total += len(taps)
                after = done["state"]
                assert set(done["moves"]) == set(team), (team, sorted(done["moves"]))
                assert len(after["missions"]) == results + 1
                screens_show(results + 1, after["rejections"], phase_not="mission")
                continue
            raise AssertionError(f"unexpected phase {state['phase']}")
        else:
            raise AssertionError("the game did not end")
        game.refresh_from_db()
        assert game.status == Game.FINISHED
        for page in screens:
            page.wait_for_selector('[data-test="outcome"]', timeout=15000)
        assert votes >= 2 and missions >= 2
        # No tap was refused, on any phone, in the whole game. (A 302 is a tap that landed through the
        # plain form post, the page reloading: a button tapped just as htmx swapped it in.)
        for name, statuses in answers.items():
            assert statuses and all(status in (200, 302) for status in statuses), (name, statuses)
        plain_posts = sum(statuses.count(302) for statuses in answers.values())
        for page in screens:
            notes = page.evaluate("() => window.__notes")
            assert not [n for n in notes if any(r in n for r in REFUSALS)], notes
            assert notes == [], notes
        assert taps_total + proposals == sum(len(s) for s in answers.values())
    except Exception:
        save_screenshots(screens, "shared-window-failure")
        raise
    print(f"\n{votes} vote windows and {missions} mission windows answered together: {taps_total} human taps, "
          f"all landed ({late} from a screen older than the table, {plain_posts} through a plain form post); "
          f"{game.version} moves; "
          f"{time.monotonic() - started:.1f} s")
