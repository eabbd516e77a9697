"""A seat's secret in words for a screen reader on its own phone, and nowhere else (issue 45, item 4).

Each seat's own part (``pv-seat``) holds one polite live region (``data-secret-summary``) saying the seat's secret:
its role, cards, team or identity. The board, a spectator's phone and every other seat's phone hold none of it: not
the region, not its words.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from engines.registry import ENGINES
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.helpers import legal, move_data
from tests.gameplay.test_privacy import started_inside_job

pytestmark = pytest.mark.django_db

REGION = re.compile(r'<p class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"'
                    r' data-secret-summary data-test="secret-summary">([^<]*)</p>')


class _Ancestors(HTMLParser):
    """The ids of the elements around each secret-summary region of a page."""

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "area", "base", "col", "embed", "track"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.found: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if "data-secret-summary" in named:
            self.found.append([i for i in self.stack if i])
        if tag not in self.VOID:
            self.stack.append(named.get("id"))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()


def regions(html: str) -> list[list[str]]:
    """For each secret-summary region of ``html``, the ids of the elements it lies in."""
    parser = _Ancestors()
    parser.feed(html)
    return parser.found


def summaries(html: str) -> list[str]:
    return REGION.findall(html)


def pages(table, people) -> tuple[list[str], list[str]]:
    """Every seat's phone page, and the board's pages (the page and its htmx fragment)."""
    phones = [person.get(f"/t/{table.code}/").content.decode() for person in people]
    board = [people[0].get(f"/t/{table.code}/board/", **headers).content.decode()
             for headers in ({}, {"HTTP_HX_REQUEST": "true"})]
    return phones, board


def assert_each_summary_on_its_own_phone_only(phones: list[str], others: list[str]) -> list[str]:
    """Each phone holds one region, in its own part, with words; no other screen holds its words but as its own."""
    said = []
    for html in phones:
        assert [ids[-2:] for ids in regions(html)] == [["private-view", "pv-seat"]]
        (text,) = summaries(html)
        assert text.strip()
        said.append(text)
    rests = [REGION.sub("", html) for html in phones] + others  # each screen but its own region
    for seat, text in enumerate(said):
        assert [n for n, rest in enumerate(rests) if text in rest] == [], seat
    for html in others:
        assert "data-secret-summary" not in html and 'aria-live="polite" aria-atomic' not in html
    return said


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_every_seats_phone_says_its_secret_and_no_other_screen_does(table_with, guests, engine_name):
    players = max(ENGINES[engine_name].min_players, 5)
    table, people = table_with(players, engine=engine_name)
    game = start(table, people[0])
    (watcher,) = guests(1, prefix="W")
    phones, board = pages(table, people)
    spectator = watcher.get(f"/t/{table.code}/").content.decode()
    said = assert_each_summary_on_its_own_phone_only(phones, [*board, spectator])
    state = game_state(game)
    if engine_name == "coup":  # the words are the seat's own cards, named
        for seat, text in enumerate(said):
            assert all(card.capitalize() in text for card in state["players"][seat]["hand"]), text


def test_an_inside_job_phone_says_its_role_and_hidden_vote_and_no_other_screen_does(table_with):
    table, people, game = started_inside_job(table_with, players=5)
    roles = game_state(game)["roles"]
    phones, board = pages(table, people)
    said = assert_each_summary_on_its_own_phone_only(phones, board)
    for seat, text in enumerate(said):
        assert text.startswith(f"Your role: {roles[seat].capitalize()} ("), text
    voter = next(seat for seat in range(5) if legal(game, seat))
    people[voter].htmx_post(f"/t/{table.code}/move/", {**move_data(game, {"type": "vote", "approve": False}),
                                                       "version": "", "window": game.window_token})
    phones, board = pages(table, people)
    said = assert_each_summary_on_its_own_phone_only(phones, board)
    assert said[voter].endswith("You voted Reject."), said[voter]
    assert [seat for seat, text in enumerate(said) if "You voted" in text] == [voter]
