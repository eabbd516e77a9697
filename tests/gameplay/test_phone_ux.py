"""The phone as a hand that can lie on the table: face-down secrets, the awaited cue, installability,
words (plurals, Persian digits, replay steps) and the reference card.

The secrets render inside hold-to-peek boxes (``static/js/phone.js`` shows them while held); what the
HTML says outside those boxes, and the boxes' own shape, is the same for every role, so a phone lying
on the table tells nothing. The browser half is ``tests/e2e/test_phone_ux_browser.py``.
"""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.template import Context, Template
from django.utils import translation

from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.templatetags.game_tags import native_digits
from tests.conftest import seeded_deals, start
from tests.engines.peek import VOID, normalized
from tests.gameplay.helpers import submit_status

pytestmark = pytest.mark.django_db

PLAYERS = {"coup": 4, "good_cop_bad_cop": 5, "good_cop_bad_cop_health": 4, "inside_job": 6}
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class PeekParser(HTMLParser):
    """Splits a page into the peek boxes (their attributes, their secret text) and everything else."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, opens a secret)
        self.boxes: list[dict] = []
        self.covers: list[dict] = []
        self.secret_depth = 0
        self.outside: list[str] = []
        self.secret_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-peek" in a:
            self.boxes.append({"id": a.get("id"), "class": a.get("class")})
        if "data-peek-button" in a:
            self.covers.append(a)
        if tag in VOID:
            return
        # The seat's secret in words (data-secret-summary) is never seen either: a screen reader's, on this phone alone.
        secret = "peek-secret" in (a.get("class") or "").split() or "data-secret-summary" in a
        self.stack.append((tag, secret))
        if secret:
            self.secret_depth += 1

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, secret = self.stack.pop()
            if secret:
                self.secret_depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        (self.secret_text if self.secret_depth else self.outside).append(data)


def parse(html: str) -> PeekParser:
    parser = PeekParser()
    parser.feed(html)
    parser.close()
    return parser


# How many games a test deals, at most, looking for a situation a random deal may not bring.
DEALS = 8


def playing(table_with, engine: str, options: dict | None = None):
    table, people = table_with(PLAYERS[engine], engine=engine, options=options)
    game = start(table, people[0])
    return table, people, game


def seat_of(game: Game, person) -> int:
    return game.seats.get(player=person.player).index


def in_seat_order(game: Game, people: list) -> list:
    """The guests of ``game`` by seat index (the deal may seat them in another order than they joined)."""
    by_seat = {seat_of(game, p): p for p in people}
    return [by_seat[i] for i in range(len(people))]


def play(game: Game, seat: int, action: dict) -> int:
    """The seat's player plays ``action`` as its phone would (no version: an answer in a window)."""
    player = game.seats.get(index=seat).player
    return submit_status(game_id=game.pk, player=player, version=game.version, move_id=None, action=action)


def phone(person, table) -> str:
    return person.get(f"/t/{table.code}/").content.decode()


# ------------------------------------------------------------------ hold to peek


SECRET_MARKS = {
    "inside_job": ['data-test="role"'],
    "coup": ['class="card secret coup-card'],
    "good_cop_bad_cop": ['data-test="my-card-0"', 'data-test="equipment-'],
    "good_cop_bad_cop_health": ['class="card face-up gh-card', 'class="gh-identity"'],
}


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_every_seats_secrets_sit_face_down_inside_peek_boxes_of_one_shape_for_every_role(table_with, engine):
    table, people, game = playing(table_with, engine)
    shapes = set()
    for person in people:
        page = phone(person, table)
        parsed = parse(page)
        assert parsed.boxes, f"{engine}: no peek box"
        # Each cover is a real button that names what it shows and which element it opens.
        for cover in parsed.covers:
            assert cover.get("type") == "button" and cover.get("aria-expanded") == "false"
            assert f'id="{cover["aria-controls"]}"' in page
        # The same boxes, the same classes, for every seat: no layout tells the role.
        shapes.add(tuple((b["id"], b["class"]) for b in parsed.boxes))
        assert 'class="peek-secret' in page and 'aria-hidden="true"' in page
    assert len(shapes) == 1, f"{engine}: the peek boxes differ between seats: {shapes}"


def test_the_role_name_is_only_inside_the_peek_box(table_with):
    table, people, game = playing(table_with, "inside_job")
    view = get_engine("inside_job").view(game_state(game), 0)
    for person in people:
        seat = seat_of(game, person)
        role = get_engine("inside_job").view(game_state(game), seat)["role"]
        parsed = parse(phone(person, table))
        outside = " ".join(parsed.outside)
        inside = " ".join(parsed.secret_text)
        assert "Your role" in outside and "Hold to see your role" in outside
        label = {"agent": "Agent", "traitor": "Traitor", "merlin": "Merlin", "assassin": "Assassin"}.get(role)
        if label:
            assert label in inside
            assert "side: make three missions" not in outside
    assert view["role"] is not None


def test_the_page_outside_the_peek_boxes_is_the_same_for_agents_and_traitors(table_with):
    """Swap two seats' roles in the snapshot: outside the peek boxes their pages stay as they were."""
    table, people, game = playing(table_with, "inside_job")
    state = game_state(game)
    roles = state["roles"]
    agent = next(i for i, r in enumerate(roles) if r == "agent")
    traitor = next(i for i, r in enumerate(roles) if r == "traitor")
    person = next(p for p in people if seat_of(game, p) == agent)

    def outside() -> str:
        parsed = parse(normalized(phone(person, table)))
        # The data attributes carry the role for the tests (never styled); the text outside must not.
        return re.sub(r"\s+", " ", " ".join(parsed.outside))

    before = outside()
    encoded = get_engine("inside_job").encode(state)
    encoded["roles"][agent], encoded["roles"][traitor] = encoded["roles"][traitor], encoded["roles"][agent]
    Game.objects.filter(pk=game.pk).update(snapshot=encoded)
    after = outside()
    assert before == after


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_board_and_a_spectator_have_no_peek_box_and_no_secret(table_with, guests, engine):
    table, people, game = playing(table_with, engine)
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    watcher = guests(1, prefix="W")[0]
    spectator = phone(watcher, table)
    for page in (board, spectator):
        assert "data-peek" not in page
        assert 'data-test="role"' not in page and 'data-test="identity"' not in page
        assert "peek-hint" not in page


def test_the_peek_hint_is_in_every_running_phone_and_hidden_until_the_script_shows_it(table_with):
    table, people, game = playing(table_with, "coup")
    for person in people:
        page = phone(person, table)
        assert re.search(r'<p class="notice peek-hint" data-peek-hint hidden>', page)


def test_phone_pages_load_their_script_from_a_static_file_and_no_template_has_inline_script_or_handlers():
    for path in [*TEMPLATES.rglob("*.html"), *TEMPLATES.rglob("*.jinja")]:
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), f"{path}: inline script"
        assert not re.search(r"\son[a-z]+\s*=", text), f"{path}: inline handler"
    assert finders.find("js/phone.js")
    assert "js/phone.js" in (TEMPLATES / "gameplay" / "table.html").read_text()


# ------------------------------------------------------------------ awake and noticed


def test_only_the_awaited_seats_panel_carries_data_awaited_and_the_your_move_cue(table_with):
    table, people, game = playing(table_with, "inside_job")
    awaited = get_engine("inside_job").awaiting(game_state(game))
    assert awaited
    for person in people:
        page = phone(person, table)
        seat = seat_of(game, person)
        head = re.search(r'<div id="private-view"[^>]*>', page).group(0)
        assert " data-running" in head
        # The cue is the seat's own part's (#pv-seat, gameplay/_phone_seat.jinja): only it changes with it.
        own = re.search(r'<div id="pv-seat"[^>]*>', page).group(0)
        assert (" data-awaited" in own) == (seat in awaited)
        assert page.count("data-awaited") == (seat in awaited)
        assert ('data-test="your-move"' in page) == (seat in awaited)


def test_a_finished_game_neither_keeps_the_screen_awake_nor_awaits_anyone(table_with):
    table, people, game = playing(table_with, "coup")
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    for person in people:
        head = re.search(r'<div id="private-view"[^>]*>', phone(person, table)).group(0)
        assert "data-running" not in head and "data-awaited" not in head


def test_a_silent_window_awaits_nobody_visibly(table_with):
    """Good Cop Bad Cop's silent windows must look alike on every phone, card or no card."""
    engine = get_engine("good_cop_bad_cop")
    # A deal (the seed is random) may end before a silent window: then another game is dealt.
    for _deal in range(DEALS):
        table, people, game = playing(table_with, "good_cop_bad_cop", options={"silent_windows": True})
        for _ in range(200):
            game.refresh_from_db()
            if game.countdown is not None or game.over:
                break
            state = game_state(game)
            seat = sorted(engine.awaiting(state))[0]
            action = engine.legal_actions(state, seat)[0]
            assert play(game, seat, action) == 200
        if game.countdown is not None:
            break
    assert game.countdown is not None, f"no silent window came up in {DEALS} deals"
    for person in people:
        page = phone(person, table)
        assert "data-awaited" not in page
        assert 'data-test="your-move"' not in page


def test_the_sound_toggle_is_outside_the_panel_and_hidden_without_the_script(table_with):
    table, people, game = playing(table_with, "coup")
    page = phone(people[0], table)
    toggle = re.search(r"<button[^>]*data-sound-toggle[^>]*>", page).group(0)
    assert "hidden" in toggle and 'aria-pressed="false"' in toggle
    # Outside the panel: htmx's swaps never reset it, and the panel's entity tag does not depend on it.
    assert page.index("data-sound-toggle") > page.index("</div>", page.index('id="private-view"'))


# ------------------------------------------------------------------ installable


def test_the_manifest_is_served_as_a_web_app_manifest_with_icons_that_exist(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/manifest+json")
    data = json.loads(response.content)
    assert data["display"] == "standalone" and data["theme_color"] and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512", "any"} <= sizes
    for icon in data["icons"]:
        name = icon["src"].split("/static/", 1)[1]
        found = finders.find(name)
        assert found, icon
        if icon["type"] == "image/png":
            head = Path(found).read_bytes()[:24]
            assert head[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]


def test_the_manifest_speaks_the_pages_language(client):
    client.post("/i18n/setlang/", {"language": "fa", "next": "/"})
    data = json.loads(client.get("/manifest.webmanifest").content)
    assert data["lang"] == "fa" and data["dir"] == "rtl"
    assert data["name"] != "Table games"


def test_the_favicon_is_there_at_the_sites_root(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)
    assert body[:4] == b"\x00\x00\x01\x00"  # an icon directory


def test_every_page_links_the_manifest_the_icons_and_the_theme_colour(client):
    page = client.get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'rel="icon"' in page and 'rel="apple-touch-icon"' in page and 'name="theme-color"' in page


# ------------------------------------------------------------------ readable


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_every_phone_page_has_exactly_one_h1(table_with, engine):
    table, people, game = playing(table_with, engine)
    assert phone(people[0], table).count("<h1") == 1
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    assert phone(people[0], table).count("<h1") == 1


def test_the_lobby_page_has_one_h1(table_with):
    table, people = table_with(3)
    assert phone(people[1], table).count("<h1") == 1


def test_lost_cards_and_out_seats_are_not_faded_with_opacity():
    css = finders.find("css/app.css")
    text = Path(css).read_text()
    rule = re.findall(r"\.card\.lost\s*\{([^}]*)\}", text)
    assert rule and not any(re.search(r"opacity:\s*0?\.\d", r) for r in rule)
    assert "prefers-color-scheme: dark" in text


# ------------------------------------------------------------------ words


def render(source: str, **context) -> str:
    return Template("{% load i18n %}" + source).render(Context(context))


@pytest.mark.parametrize(("amount", "words"), [(1, "P1 takes 1 coin."), (2, "P1 takes 2 coins.")])
def test_coup_log_lines_count_coins_in_the_singular_and_the_plural(amount, words):
    html = render('{% jinja "games/coup/log_line.jinja" line=line names=names %}',
                  line={"event": "gained", "seat": 0, "amount": amount}, names=["P1", "P2"])
    assert words in re.sub(r"\s+", " ", html)


def test_no_space_before_punctuation_after_an_included_name():
    html = render('({% jinja "games/good_cop_bad_cop/equipment_name.jinja" card="taser" %})')
    assert html == "(Taser)"


def test_native_digits_turn_text_persian_but_keep_codes_links_tags_and_references():
    html = '<p class="x" data-n="12">Ana 12 &#39;</p><span class="code">AB12</span><p class="mono">99</p>7'
    persian = '<p class="x" data-n="12">Ana ۱۲ &#39;</p><span class="code">AB12</span><p class="mono">99</p>۷'
    assert native_digits(html, "fa") == persian
    assert native_digits(html, "en") == html and native_digits(html, "ja") == html


def test_a_persian_phone_writes_every_number_of_its_text_in_persian_digits(table_with):
    table, people, game = playing(table_with, "coup")
    people[1].post("/i18n/setlang/", {"language": "fa", "next": "/"})
    for page in (phone(people[1], table),
                 people[1].client.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode()):
        # The code to type and the page's <title> (which names it) keep ASCII digits.
        parsed = parse(re.sub(r'<span class="code">[^<]*</span>|<title>[^<]*</title>', "", page))
        text = " ".join(parsed.outside + parsed.secret_text)
        assert not re.search(r"[0-9]", text), re.findall(r".{20}[0-9].{20}", text)[:5]
        assert re.search("[۰-۹]", text)
    assert table.code in phone(people[1], table)  # the code to type stays in ASCII


def test_a_replay_step_says_what_happened_not_just_who_moved(table_with):
    table, people, game = playing(table_with, "inside_job")
    engine = get_engine("inside_job")
    state = game_state(game)
    leader = sorted(engine.awaiting(state))[0]
    action = engine.legal_actions(state, leader)[0]
    assert action["type"] == "propose"
    assert play(game, leader, action) == 200
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    game.refresh_from_db()
    step = people[0].get(f"/g/{game.pk}/?step=1", HTTP_HX_REQUEST="true").content.decode()
    what = re.search(r'data-test="replay-what">(.*?)</div>', step, re.S).group(1)
    names = [s.name for s in game.seats.order_by("index")]
    assert f"{names[leader]} proposes" in what
    assert "moved." not in step


# ------------------------------------------------------------------ the reference card


def test_the_coup_reference_lists_every_action_with_cost_claims_blocks_and_the_court(table_with):
    table, people, game = playing(table_with, "coup")
    page = phone(people[0], table)
    ref = re.search(r'data-test="reference">(.*?)</details>', page, re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", ref))
    for action in ("income", "foreign_aid", "coup", "tax", "steal", "exchange", "assassinate"):
        assert f'data-test="ref-{action}"' in ref
    assert 'data-test="ref-examine"' not in ref  # no Inquisitor at this table
    assert "costs 7 coins" in text and "costs 3 coins" in text and "gains 1 coin " in text
    assert "Its target may block it as Captain or Ambassador." in text
    assert "Anyone may block it as Duke." in text
    assert "Duke: 3" in text


def test_the_coup_reference_follows_the_tables_options(table_with):
    table, people, game = playing(table_with, "coup", options={"inquisitor": True})
    ref = re.search(r'data-test="reference">(.*?)</details>', phone(people[0], table), re.S).group(1)
    assert 'data-test="ref-examine"' in ref and "Ambassador" not in ref


def test_the_good_cop_bad_cop_reference_counts_cards_for_this_many_players_and_explains_equipment(table_with):
    table, people, game = playing(table_with, "good_cop_bad_cop")
    ref = re.search(r'data-test="reference">(.*?)</details>', phone(people[0], table), re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", ref))
    assert "Honest : 7" in text or "Honest: 7" in text
    assert "Guns: 3" in text
    assert 'data-test="ref-taser"' in ref and 'data-test="ref-report_audit"' not in ref  # report audit: 6+


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_reference_card_is_the_same_on_every_phone(table_with, engine):
    table, people, game = playing(table_with, engine)
    refs = {re.search(r'data-test="reference">(.*?)</details>', phone(p, table), re.S).group(1) for p in people}
    assert len(refs) == 1


def test_the_reference_card_is_translated(table_with):
    table, people, game = playing(table_with, "coup")
    people[1].post("/i18n/setlang/", {"language": "ja", "next": "/"})
    ref = re.search(r'data-test="reference">(.*?)</details>', phone(people[1], table), re.S).group(1)
    with translation.override("ja"):
        assert "Anyone may challenge it." not in ref
        assert "Cannot be blocked." not in ref


BAD_WORDS = [
    (re.compile(r"\b1 (coins|cards|players|minutes|seconds)\b"), "a plural after 1"),
    # (".357 Magnum" is a card's name, not a full stop.)
    (re.compile(r"[^\s(—·–-] +(?:[,:;!?)]|\.(?!\d))"), "a space before punctuation"),
    (re.compile(r"\( "), "a space after a bracket"),
]


def visible_text(html: str) -> str:
    parsed = parse(html)
    # Text nodes joined as the browser lays them out: "<strong>Taser</strong>." reads "Taser.".
    return re.sub(r"\s+", " ", "".join(parsed.outside) + " " + "".join(parsed.secret_text))


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_random_games_phones_and_logs_have_no_plural_slips_and_no_space_before_punctuation(table_with, engine):
    import random

    from tests.gameplay.test_phone_layout import advance

    table, people, game = playing(table_with, engine)
    rng = random.Random(f"words-{engine}")
    ordered = in_seat_order(game, people)
    for _ in range(12):
        for _ in range(rng.randrange(2, 8)):
            game.refresh_from_db()
            if game.over:
                break
            advance(game, ordered, rng)
        for person in people:
            text = visible_text(phone(person, table))
            for pattern, what in BAD_WORDS:
                found = pattern.search(text)
                assert not found, f"{engine}: {what}: …{text[max(0, found.start() - 40):found.end() + 20]}…"
        game.refresh_from_db()
        if game.over:
            break


def test_what_an_inspection_showed_lies_face_down_in_the_health_edition(table_with):
    table, inspector, action = inspecting(table_with, jammed=False)
    assert play(table.games.get(status="running"), *action) == 200
    parsed = parse(phone(inspector, table))
    assert "You inspected:" not in " ".join(parsed.outside)
    assert "You inspected:" in " ".join(parsed.secret_text)
    assert f'id="peek-learned-{action[1]["target"]}"' in phone(inspector, table)


def test_a_jammed_inspection_shows_nothing_learned_and_says_why(table_with):
    table, inspector, action = inspecting(table_with, jammed=True)
    before = phone(inspector, table)
    assert play(table.games.get(status="running"), *action) == 200
    page = phone(inspector, table)  # nothing learned but what it had learned before
    assert page.count("You inspected:") == before.count("You inspected:")
    assert "but a jammer blocks it" in " ".join(parse(page).outside)


def inspecting(table_with, *, jammed: bool, deals: int = 3 * DEALS):
    """A health-edition table where a seat may inspect a seat with (``jammed``) or without a jammer in play: the
    table, the inspecting guest and its move (seat, action). Deals come from a seeded sequence; a game that ends
    first is dealt again."""
    from tests.gameplay.test_phone_layout import advance

    engine = get_engine("good_cop_bad_cop_health")
    rng = random.Random(f"inspect-{jammed}")
    with seeded_deals(f"inspect-deals-{jammed}"):
        for _deal in range(deals):
            table, people, game = playing(table_with, "good_cop_bad_cop_health")
            ordered = in_seat_order(game, people)
            for _ in range(400):
                game.refresh_from_db()
                if game.over:
                    break
                state = game_state(game)
                found = next(((s, a) for s in range(len(people)) for a in engine.legal_actions(state, s)
                              if a["type"] == "inspect" and jammer_in_front_of(state, a["target"]) == jammed), None)
                if found is not None:
                    return table, ordered[found[0]], found
                advance(game, ordered, rng)
    raise AssertionError(f"no inspection (jammed: {jammed}) came up in {deals} deals")


def jammer_in_front_of(state: dict, seat: int) -> bool:
    return any(card["kind"] == "jammer" for card in state["players"][seat]["in_play"])


# ------------------------------------------------------------------ issue 14's leftovers


def playing_with_bots(table_with, engine: str, humans: int, bots: int, options: dict | None = None):
    from lobby.services import seat_add_bot

    table, people = table_with(humans, engine=engine, options=options)
    for _ in range(bots):
        seat_add_bot(table=table)
    game = start(table, people[0])
    return table, people, game


@pytest.mark.parametrize("engine", ["coup", "good_cop_bad_cop", "good_cop_bad_cop_health"])
def test_phones_mark_bot_seats_with_the_boards_drawn_bot_mark(table_with, engine):
    """The same drawing as the board (templates/icons/bot_mark.jinja), with its word for screen readers."""
    table, people, game = playing_with_bots(table_with, engine, 2, PLAYERS[engine] - 2)
    bots = game.seats.filter(bot__isnull=False).exclude(bot="").count()
    assert bots == PLAYERS[engine] - 2
    for person in people:
        page = phone(person, table)
        marks = re.findall(r'<span class="bot-mark"><svg class="icon icon-bot"[^>]*aria-hidden="true"[^>]*>.*?</svg>'
                           r'\s*<span class="visually-hidden">bot</span></span>', page, re.S)
        assert len(marks) >= bots, f"{engine}: {len(marks)} bot marks for {bots} bots"
        assert "🤖" not in page


def test_the_inside_job_leader_picks_bots_marked_as_bots(table_with):
    table, people, game = playing_with_bots(table_with, "inside_job", 1, 4, options={"first_player": 1})
    page = phone(people[0], table)
    picks = re.findall(r'<label class="pick" data-test="pick-\d+">.*?</label>', page, re.S)
    assert len(picks) == 5
    assert sum('class="bot-mark"' in pick for pick in picks) == 4


def test_the_inside_job_track_is_drawn_on_phone_and_board_with_its_words(table_with):
    from engines.inside_job.cards import MISSION_SIZES

    table, people, game = playing(table_with, "inside_job")
    for page in (phone(people[0], table), people[0].get(f"/t/{table.code}/board/").content.decode()):
        svg = re.search(r'<svg class="ij-track".*?</svg>', page, re.S).group(0)
        sizes = [int(n) for n in re.findall(r'data-size="(\d+)"', svg)]
        assert sizes == MISSION_SIZES[PLAYERS["inside_job"]]
        assert svg.count('class="ij-mission ij-current"') == 1 and "ij-success" not in svg
        words = re.search(r'<ol class="visually-hidden" aria-label="Missions">(.*?)</ol>', page, re.S).group(1)
        assert words.count("<li>") == 5 and "being played" in words
        assert re.search(r'data-test="rejections">.*?Rejected proposals this mission: 0 of 5', page, re.S)


def test_the_health_reference_counts_the_deck_as_this_table_deals_it(table_with):
    from engines.good_cop_bad_cop_health import cards

    table, people = table_with(PLAYERS["good_cop_bad_cop_health"], engine="good_cop_bad_cop_health")
    deck = dict(cards.DEFAULT_DECK, vest=2, inspection=12, jammer=0)
    options = dict(table.options, deck=deck)
    type(table).objects.filter(pk=table.pk).update(options=options)
    start(table, people[0])
    ref = re.search(r'data-test="reference">(.*?)</details>', phone(people[1], table), re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", ref))
    for kind, n in deck.items():
        item = re.search(rf'data-test="ref-{kind}">(.*?)</li>', ref, re.S).group(1)
        assert f"×{n}" in re.sub(r"<[^>]+>", "", item), kind
    assert f"The deck at this table: {sum(deck.values())} cards." in text
    assert "8 Good Cop, 8 Bad Cop" in text  # the identity cards, from the engine's data


def test_the_inside_job_reference_explains_each_special_role_in_play(table_with):
    options = {"merlin": True, "percival": True, "morgana": True, "lady_of_the_lake": True}
    table, people = table_with(7, engine="inside_job", options=options)
    start(table, people[0])
    ref = re.search(r'data-test="reference">(.*?)</details>', phone(people[2], table), re.S).group(1)
    for role in ("merlin", "assassin", "percival", "morgana"):
        assert f'data-test="ref-role-{role}"' in ref, role
    assert 'data-test="ref-role-mordred"' not in ref and 'data-test="ref-role-oberon"' not in ref
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", ref))
    assert "appears to Percival as a Merlin candidate" in text
    assert "after missions 2, 3, 4 its holder privately learns one player's side" in text
    # A plain table has no special role to explain.
    table2, people2 = table_with(5, engine="inside_job")
    start(table2, people2[0])
    plain = re.search(r'data-test="reference">(.*?)</details>', phone(people2[0], table2), re.S).group(1)
    assert "ref-role-" not in plain and "Special roles" not in plain


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_open_log_on_a_phone_is_the_boards(table_with, engine):
    """A seat's private lines (a card drawn, a vote, a side learned) never sit in the open log."""
    import random

    from tests.gameplay.test_phone_layout import advance

    rng = random.Random(f"log-{engine}")
    # A deal (the seed is random) may end within 30 moves: then another game is dealt.
    for _deal in range(DEALS):
        table, people, game = playing(table_with, engine)
        ordered = in_seat_order(game, people)
        for _ in range(30):
            game.refresh_from_db()
            if game.over:
                break
            advance(game, ordered, rng)
        if not game.over:
            break
    assert not game.over, f"every one of {DEALS} deals ended before its log grew"
    state = game_state(game)
    public = get_engine(engine).view(state, None)["log"]
    for person in people:
        page = phone(person, table)
        log = re.findall(r'<(?:ol|ul) class="log"[^>]*>(.*?)</(?:ol|ul)>', page, re.S)[-1]
        assert log.count("<li>") == min(len(public), 10 if engine == "good_cop_bad_cop_health" else 8)
        assert "Only you:" not in log and "You drew" not in log and "You got" not in log
