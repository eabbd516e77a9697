"""Silent windows on the web: one countdown on every screen, "Wait" for every seat alike, no tells.

Good Cop Bad Cop's equipment windows are always silent: nobody taps Pass, the window closes
by itself when its countdown ends, and no screen may show who holds a card.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import WAIT_SECONDS
from gameplay.worker import tick
from lobby.models import Table
from tests.conftest import start
from tests.gameplay.helpers import legal, submit_status
from tests.gameplay.test_privacy import normalized

pytestmark = pytest.mark.django_db
CARDS = ["coffee", "smoke_grenade", "wiretap", "truth_serum", "polygraph", "evidence_bag", "blackmail"]


def _players(game, people) -> dict:
    by_player = {person.player.pk: person for person in people}
    return {s.index: by_player[s.player_id] for s in game.seats.all()}


def _silent_window(table_with, rng_seed: int = 1):
    """A started 4-seat Good Cop Bad Cop game played at random until a silent window is open."""
    table, people = table_with(4, engine="good_cop_bad_cop")
    game = start(table, people[0])
    seats = _players(game, people)
    rng = random.Random(rng_seed)
    for _ in range(300):
        game.refresh_from_db()
        if game.countdown is not None:
            return table, people, game, seats
        assert not game.over, "the game ended before a silent window opened: deal another game"
        movers = [s for s in seats if legal(game, s)]
        assert movers, "no one can move outside a silent window"
        seat = rng.choice(movers)
        assert submit_status(game_id=game.pk, player=seats[seat].player, version=game.version, move_id=None,
                             action=rng.choice(legal(game, seat)), window=game.window) == 200
    raise AssertionError("no silent window opened")


def test_a_silent_window_counts_down_alike_everywhere_and_closes_by_itself(table_with):
    table, people, game, seats = _silent_window(table_with)
    assert game.countdown == 4 and game.deadline is not None  # even with the table timer off
    assert game.timer_seconds == 0
    pages = [person.get(f"/t/{table.code}/").content.decode() for person in people]
    pages.append(people[0].get(f"/t/{table.code}/board/").content.decode())
    for page in pages:
        assert 'data-test="countdown"' in page and f'data-deadline="{int(game.deadline.timestamp() * 1000)}"' in page
        assert '"type": "pass"' not in page and "Pass" not in page
    assert all('data-test="wait"' in page for page in pages[:-1]) and 'data-test="wait"' not in pages[-1]
    version = game.version
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert tick() >= 1
    game.refresh_from_db()
    assert game.version == version + 1 and game.moves.last().seat is None


def test_wait_gives_time_once_per_seat_and_window(table_with, guests):
    table, people, game, seats = _silent_window(table_with)
    first = people[1].htmx_post(f"/t/{table.code}/wait/", {})
    assert first.status_code == 200
    game.refresh_from_db()
    assert game.waits == [game.seats.get(player=people[1].player).index]
    assert (game.deadline - timezone.now()).total_seconds() > WAIT_SECONDS - 2
    again = people[1].htmx_post(f"/t/{table.code}/wait/", {})
    # Refused with a note; the button stays (every seated phone shows it alike, asked or not).
    assert again.status_code == 409 and "You asked for time in this window already." in again.content.decode()
    assert people[2].htmx_post(f"/t/{table.code}/wait/", {}).status_code == 200
    (stranger,) = guests(1, prefix="S")
    assert stranger.htmx_post(f"/t/{table.code}/wait/", {}).status_code == 403
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="waits"' in board and "More time was asked." in board


def test_every_screen_is_the_same_bytes_whoever_asked_for_time(table_with):
    """Seat A asks, or seat B asks instead, from the same table: every phone and the board alike."""
    table, people, game, seats = _silent_window(table_with)
    revision = Table.objects.get(pk=table.pk).revision
    deadline = game.deadline
    later = timezone.now() + timedelta(seconds=WAIT_SECONDS + 5)  # the deadline either ask leaves
    for person in people:  # every phone at the table (presence is part of every page)
        person.get(f"/t/{table.code}/")

    def screens(asker) -> list[str]:
        Game.objects.filter(pk=game.pk).update(waits=[], deadline=deadline)
        Table.objects.filter(pk=table.pk).update(revision=revision)
        assert asker.htmx_post(f"/t/{table.code}/wait/", {}).status_code == 200
        Game.objects.filter(pk=game.pk).update(deadline=later)
        pages = [person.get(f"/t/{table.code}/") for person in people]
        pages += [person.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true") for person in people]
        pages += [people[0].get(f"/t/{table.code}/board/"),
                  people[0].get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true")]
        assert all(page.status_code == 200 for page in pages)
        return [normalized(page.content) for page in pages]

    first, second = people[1], people[2]
    by_first = screens(first)
    game.refresh_from_db()
    assert game.waits == [game.seats.get(player=first.player).index]
    by_second = screens(second)
    game.refresh_from_db()
    assert game.waits == [game.seats.get(player=second.player).index]
    for seen_first, seen_second in zip(by_first, by_second, strict=True):
        assert seen_first == seen_second
    board = by_second[-2]
    assert 'data-test="waits"' in board and 'data-test="countdown"' in board
    assert all('data-test="wait"' in page for page in by_second[:len(people)])  # the askers' phones too


def _closed(block: str) -> str:
    """A phone's decision block as it looks with the play fold closed."""
    return re.sub(r"(<summary[^>]*>.*?</summary>).*?</details>", r"\1</details>", block, flags=re.S)


def _my_move(html: str) -> str:
    start_at = html.index('data-test="my-move"')
    return html[start_at:html.index("</section>", start_at)]


def test_no_screen_tells_who_holds_a_card_in_a_silent_window(table_with):
    table, people, game, seats = _silent_window(table_with, rng_seed=2)
    engine = get_engine(game.engine)
    state = game_state(game)
    living = [s for s in seats if state["players"][s]["alive"]]
    holder, empty, watcher = living[0], living[1], living[2]

    def holdings(with_card: int, without: int) -> tuple:
        variant = game_state(game)
        for card in CARDS:
            variant["players"][with_card]["hand"], variant["players"][without]["hand"] = [card], []
            if engine.legal_actions(variant, with_card):
                Game.objects.filter(pk=game.pk).update(snapshot=engine.encode(variant))
                return card
        raise AssertionError("no card is playable in this window")

    holdings(holder, empty)
    for person in people:  # every phone at the table (presence is part of every page)
        person.get(f"/t/{table.code}/")
    board_a = normalized(people[0].get(f"/t/{table.code}/board/").content)
    watcher_a = normalized(seats[watcher].get(f"/t/{table.code}/").content)
    holder_page = seats[holder].get(f"/t/{table.code}/").content.decode()
    empty_page = seats[empty].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="play-' in holder_page or "gcbc-moves" in holder_page
    # Closed, the holder's decision block and the empty-handed one's are the same bytes.
    assert _closed(_my_move(holder_page)) == _closed(_my_move(empty_page))
    holdings(empty, holder)  # now the other one holds the card
    assert normalized(people[0].get(f"/t/{table.code}/board/").content) == board_a
    assert normalized(seats[watcher].get(f"/t/{table.code}/").content) == watcher_a
