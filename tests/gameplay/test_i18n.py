"""Each browser gets its own language: Persian (right to left), Japanese, or English.

The language belongs to the browser, not to the table: phones at one table may each use a
different language, and the board follows the language of the browser showing it. The
catalogs in locale/ are complete: every entry is translated and keeps its placeholders.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale"
PLURAL_FORMS = {"fa": "nplurals=2; plural=(n > 1);", "ja": "nplurals=1; plural=0;"}


def html_tag(html: str) -> str:
    match = re.search(r"<html[^>]*>", html)
    assert match, html[:300]
    return match.group(0)


def started_inside_job(table_with, players=5):
    """An Inside Job game in its voting phase: the first leader has proposed a team."""
    table, people = table_with(players)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    game.refresh_from_db()
    assert game.status == "running"
    return table, people, game


def choose_language(person, code: str) -> None:
    """What the language menu in the page footer does."""
    response = person.post("/i18n/setlang/", {"language": code, "next": "/"})
    assert response.status_code == 302
    assert person.client.cookies[settings.LANGUAGE_COOKIE_NAME].value == code


# (a) Persian


def test_a_persian_phone_gets_right_to_left_persian_pages(table_with):
    table, people, game = started_inside_job(table_with)
    phone = people[1]
    choose_language(phone, "fa")

    home = phone.get("/").content.decode()
    tag = html_tag(home)
    assert 'lang="fa"' in tag and 'dir="rtl"' in tag
    assert "دور یک میز واقعی بازی کنید" in home  # "Play around a real table"
    assert "Play around a real table" not in home

    page = phone.get(f"/t/{table.code}/").content.decode()
    tag = html_tag(page)
    assert 'lang="fa"' in tag and 'dir="rtl"' in tag
    assert "نقش شما" in page  # "Your role"
    assert "Your role" not in page
    assert "مأموریت ۱" in page or "مأموریت 1" in page  # "Mission 1: a team of 2"
    assert "Mission 1" not in page


def test_an_accept_language_header_alone_picks_persian(guests):
    client = Client(HTTP_ACCEPT_LANGUAGE="fa-IR,fa;q=0.9,en;q=0.5")
    tag = html_tag(client.get("/").content.decode())
    assert 'lang="fa"' in tag and 'dir="rtl"' in tag


# (b) Japanese


def test_a_japanese_phone_gets_left_to_right_japanese_pages(table_with):
    table, people, game = started_inside_job(table_with)
    phone = people[2]
    choose_language(phone, "ja")

    home = phone.get("/").content.decode()
    tag = html_tag(home)
    assert 'lang="ja"' in tag and 'dir="ltr"' in tag
    assert "本物のテーブルを囲んで遊ぼう" in home
    assert "Play around a real table" not in home

    page = phone.get(f"/t/{table.code}/").content.decode()
    tag = html_tag(page)
    assert 'lang="ja"' in tag and 'dir="ltr"' in tag
    assert "あなたの役職" in page  # "Your role"
    assert "Your role" not in page
    assert "ミッション1" in page
    assert "Mission 1" not in page


def test_english_stays_the_default(guests):
    tag_and_page = Client().get("/").content.decode()
    tag = html_tag(tag_and_page)
    assert 'lang="en"' in tag and 'dir="ltr"' in tag
    assert "Play around a real table" in tag_and_page


# (c) one table, several languages


def test_one_table_mixes_languages_each_browser_sees_its_own(table_with):
    table, people, game = started_inside_job(table_with)
    persian, japanese, english = people[1], people[2], people[3]
    persian.client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    choose_language(japanese, "ja")

    fa_page = persian.get(f"/t/{table.code}/").content.decode()
    ja_page = japanese.get(f"/t/{table.code}/").content.decode()
    en_page = english.get(f"/t/{table.code}/").content.decode()
    assert 'dir="rtl"' in html_tag(fa_page) and "نقش شما" in fa_page and "あなたの役職" not in fa_page
    assert 'dir="ltr"' in html_tag(ja_page) and "あなたの役職" in ja_page and "نقش شما" not in ja_page
    assert 'lang="en"' in html_tag(en_page) and "Your role" in en_page

    # The board is its own browser (a tablet in the middle of the table) with its own language.
    ja_board = Client(HTTP_ACCEPT_LANGUAGE="ja").get(f"/t/{table.code}/board/")
    assert ja_board.status_code == 200
    ja_board_html = ja_board.content.decode()
    assert 'lang="ja"' in html_tag(ja_board_html)
    assert "リーダー" in ja_board_html  # "Leader"
    fa_board = persian.get(f"/t/{table.code}/board/").content.decode()
    assert 'dir="rtl"' in html_tag(fa_board) and "رهبر" in fa_board
    en_board = english.get(f"/t/{table.code}/board/").content.decode()
    assert 'lang="en"' in html_tag(en_board) and "Leader" in en_board

    # One phone switching language changes nothing for the others.
    assert "نقش شما" in persian.get(f"/t/{table.code}/").content.decode()
    assert "Your role" in english.get(f"/t/{table.code}/").content.decode()


# (d) complete catalogs


def parse_po(path: Path) -> list[dict]:
    """A tiny .po reader: entries with msgid, msgid_plural, msgstr/msgstr[n], flags."""
    entries, entry, key = [], None, None

    def unquote(text: str) -> str:
        return text.strip()[1:-1].encode("raw_unicode_escape").decode("unicode_escape")

    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line or line.startswith("#~"):
            if entry is not None:
                entries.append(entry)
                entry, key = None, None
            continue
        if entry is None:
            entry = {"flags": set(), "strings": {}}
        if line.startswith("#,"):
            entry["flags"].update(flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry["strings"][key] += unquote(line)
        else:
            key, _, rest = line.partition(" ")
            entry["strings"][key] = unquote(rest)
    return entries


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]", text))


@pytest.mark.parametrize("lang", ["fa", "ja"])
def test_every_catalog_entry_is_translated_and_keeps_its_placeholders(lang):
    entries = parse_po(LOCALE / lang / "LC_MESSAGES" / "django.po")
    header = next(e for e in entries if e["strings"].get("msgid") == "")
    assert "fuzzy" not in header["flags"]
    assert f"Language: {lang}\\n" in header["strings"]["msgstr"] or f"Language: {lang}\n" in header["strings"]["msgstr"]
    assert f"Plural-Forms: {PLURAL_FORMS[lang]}" in header["strings"]["msgstr"]
    assert "charset=UTF-8" in header["strings"]["msgstr"]

    messages = [e for e in entries if e["strings"].get("msgid")]
    assert len(messages) > 500
    nplurals = 2 if lang == "fa" else 1
    problems = []
    for e in messages:
        s = e["strings"]
        if "fuzzy" in e["flags"]:
            problems.append(("fuzzy", s["msgid"]))
        if "msgid_plural" in s:
            forms = [s.get(f"msgstr[{n}]", "") for n in range(nplurals)]
            if not all(forms) or f"msgstr[{nplurals}]" in s:
                problems.append(("plural forms", s["msgid"]))
            if any(placeholders(f) != placeholders(s["msgid_plural"]) for f in forms):
                problems.append(("placeholders", s["msgid"]))
        else:
            if not s.get("msgstr"):
                problems.append(("untranslated", s["msgid"]))
            elif placeholders(s["msgstr"]) != placeholders(s["msgid"]):
                problems.append(("placeholders", s["msgid"]))
    assert problems == []


# A few strings from every game and from the shared pages, read through the compiled catalogs.
SAMPLES = [
    "Table games",
    "Start the game",
    "Seat %(n)s",
    "Game over",
    # Inside Job
    "Your role",
    "Lady of the Lake",
    "You are on the Agents' side: make three missions succeed.",
    "Each player gets a secret role on their phone: Agent or Traitor.",
    # Good Cop Bad Cop
    "Lead Investigator",
    "Your integrity cards",
    "Equip: draw equipment, turn a card face-up",
    (
        "Hand limit 1: whoever holds two equipment cards keeps one at once and puts the other at the bottom "
        "of the deck; nobody may play equipment meanwhile."
    ),
    # Good Cop Bad Cop, health edition
    "Good Cop",
    "Flawless Shot",
    "Your hand (secret)",
    "Health: every player starts with 4.",
    # Coup
    "Duke",
    "Contessa",
    "Foreign Aid",
    "Nobody challenges.",
]


@pytest.mark.parametrize("lang", ["fa", "ja"])
def test_compiled_catalogs_translate_every_game(lang):
    assert (LOCALE / lang / "LC_MESSAGES" / "django.mo").exists()
    with translation.override(lang):
        untranslated = [msgid for msgid in SAMPLES if translation.gettext(msgid) == msgid]
        assert untranslated == []
        assert translation.ngettext("%(n)s player", "%(n)s players", 3) % {"n": 3} != "3 players"
        assert translation.get_language_bidi() == (lang == "fa")


def test_names_are_joined_with_each_languages_own_separator():
    from django.utils import translation

    from gameplay.templatetags.game_tags import join_names, seat_names

    names = ["Ana", "Bo", "Cy"]
    expected = {"en": "Ana, Bo, Cy", "fa": "Ana، Bo، Cy", "ja": "Ana、Bo、Cy"}
    for language, text in expected.items():
        with translation.override(language):
            assert join_names(names) == text
            assert seat_names([0, 1, 2], names) == text


def test_a_card_name_sits_inside_one_translated_sentence():
    from django.template import Context, Template
    from django.utils import translation

    source = (
        '{% load i18n %}{% capture card %}{% jinja "games/coup/card_name.jinja" card="duke" %}'
        "{% endcapture %}{% blocktranslate %}Block as {{ card }}{% endblocktranslate %}"
    )
    with translation.override("en"):
        assert Template(source).render(Context({})) == "Block as Duke"
    with translation.override("ja"):
        text = Template(source).render(Context({}))
        assert text.endswith("としてブロック") and "Duke" not in text


@pytest.mark.parametrize(("engine", "players"), [("inside_job", 5), ("coup", 3), ("good_cop_bad_cop", 4),
                                                  ("good_cop_bad_cop_health", 4)])
def test_a_persian_screen_writes_every_number_in_persian_digits_its_kept_pieces_too(table_with, engine, players):
    """One digit style a page: the log lines, seats and tracks (pieces kept between pushes, inside templates the
    panel includes) and the host's drawer beside the board (pushed alone) as much as the rest. Writing the digits
    again then changes nothing."""
    from gameplay.templatetags.game_tags import native_digits

    table, people = table_with(players, engine=engine)
    game = start(table, people[0])
    for _ in range(6):
        movers = awaited_movers(game)
        if game.over or not movers:
            break
        people[movers[0]].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, movers[0])[0]))
        game.refresh_from_db()
    for person in people:
        choose_language(person, "fa")
    screens = [person.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode() for person in people]
    screens.append(people[0].get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content.decode())
    # The host's drawer beside the board, as a refetch (and each push: the same function) gives it.
    drawer = people[0].get(f"/t/{table.code}/board/controls/").content.decode()
    assert 'id="moderator-view"' in drawer and re.search(r"[0-9۰-۹]", drawer)
    screens.append(drawer)
    assert any(re.search(r'class="log[ "]', screen) for screen in screens)
    for screen in screens:
        assert native_digits(screen, "fa") == screen
