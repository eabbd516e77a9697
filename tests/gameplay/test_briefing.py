"""A late joiner's briefing: the person who takes a seat over by a link gets, once, on that phone, what the seat knows.

The expected facts are what the seat's own view showed over time, watched here while the game is played (the seat's
view read after every move, as its phone would have shown it), never from another seat's view. The board, the other
phones, the new phone's refetch (what a push sends) and the new phone's second page show nothing of it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from django.test import Client

from engines.registry import get_engine
from gameplay.briefing import BRIEFING_KEY, seat_briefing
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.test_privacy import play_random_through_services

pytestmark = pytest.mark.django_db

BRIEFING = 'data-test="briefing"'


def _private(view: dict) -> list[dict]:
    return [line for line in view["log"] if line.get("private")]


def watched(game: Game, people, rng: random.Random, done: Callable[[dict[int, list]], bool],
            limit: int = 400) -> dict[int, list[dict]]:
    """Play random moves, reading every seat's own view after each, until ``done(facts)``; each seat's facts: the
    private lines its view showed, each with the game's version when it first showed it (0: the deal)."""
    engine = get_engine(game.engine)
    seen: dict[int, list] = {seat: [] for seat in range(game.players)}
    facts: dict[int, list] = {seat: [] for seat in range(game.players)}
    for _ in range(limit):
        game.refresh_from_db()
        assert not game.over, "the game ended before the seat learned anything"
        for seat in range(game.players):
            lines = _private(engine.view(game_state(game), seat))
            facts[seat] += [{"seq": game.version, "line": line} for line in lines[len(seen[seat]):]]
            seen[seat] = lines
        if done(facts):
            return facts
        play_random_through_services(game, people, 1, rng)
    raise AssertionError("nothing learned within the limit")


def _link_path(response) -> str:
    url = re.search(r'data-test="seat-link">(http[^<]+)<', response.content.decode()).group(1)
    return "/" + url.split("/", 3)[3]


def _seat_person(game: Game, people, seat: int):
    return next(p for p in people if game.seats.get(index=seat).player_id == p.player.pk)


def _take_over(table, game: Game, people, seat: int) -> Client:
    """The seat's own phone makes a link; a new phone opens it."""
    asked = _seat_person(game, people, seat).post(f"/t/{table.code}/move-me/")
    assert asked.status_code == 200
    new_phone = Client()
    assert new_phone.get(_link_path(asked)).status_code == 302
    return new_phone


def _check_briefing(table, game: Game, people, seat: int, expected: list[dict]) -> str:
    """The seat moves to a new phone: its page shows the briefing once, its facts those ``expected``; nobody else's
    screen shows any of it. Returns the briefing page."""
    game.refresh_from_db()
    assert seat_briefing(game, seat)["facts"] == expected
    assert all(fact["line"]["to"] == seat for fact in expected)  # nothing of another seat
    new_phone = _take_over(table, game, people, seat)
    page = new_phone.get(f"/t/{table.code}/").content.decode()
    assert page.count(BRIEFING) == 1
    assert page.count('data-test="briefing-fact"') == len(expected)
    # Once: not on the next load, nor in the refetch a push equals.
    assert BRIEFING not in new_phone.get(f"/t/{table.code}/").content.decode()
    assert BRIEFING not in new_phone.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode()
    # The board and every other phone: nothing of it.
    assert BRIEFING not in people[0].get(f"/t/{table.code}/board/").content.decode()
    for person in people:
        assert BRIEFING not in person.get(f"/t/{table.code}/").content.decode()
    return page


def test_an_inside_job_seat_taken_over_is_briefed_on_its_role_and_its_lady_of_the_lake_looks(table_with):
    table, people = table_with(7, options={"lady_of_the_lake": True})
    game = start(table, people[0])
    facts = watched(game, people, random.Random(7), lambda facts: any(facts.values()))
    seat = next(seat for seat, learned in facts.items() if learned)
    assert {fact["line"]["event"] for fact in facts[seat]} == {"lady_result"}
    page = _check_briefing(table, game, people, seat, facts[seat])
    role = get_engine(game.engine).view(game_state(game), seat)["role"]
    assert f'data-test="briefing-role" data-role="{role}"' in page


def test_a_traitor_taken_over_at_the_start_is_told_whom_it_knows_and_that_nothing_was_shown_yet(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    traitor = next(seat for seat in range(5)
                   if get_engine(game.engine).view(game_state(game), seat)["known_as"] == "traitors")
    known = get_engine(game.engine).view(game_state(game), traitor)["known"]
    page = _check_briefing(table, game, people, traitor, [])
    assert 'data-test="briefing-nothing"' in page
    briefing = page.split(BRIEFING, 1)[1].split("</dialog>", 1)[0]
    for seat in known:
        assert game.seats.get(index=seat).name in briefing


def test_a_coup_seat_taken_over_is_briefed_on_its_cards_and_what_it_drew_or_was_shown(table_with):
    table, people = table_with(4, engine="coup", options={"inquisitor": True})
    game = start(table, people[0])
    facts = watched(game, people, random.Random(11), lambda facts: any(len(learned) >= 2 for learned in facts.values()))
    seat = next(seat for seat, learned in facts.items() if len(learned) >= 2)
    page = _check_briefing(table, game, people, seat, facts[seat])
    hand = get_engine(game.engine).view(game_state(game), seat)["hand"]
    assert page.count('data-test="briefing-card"') == len(hand)


def test_a_briefing_owed_for_a_seat_that_moved_on_or_a_garbled_session_shows_nothing(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    first = _take_over(table, game, people, 2)
    # Before this phone looked, the seat moved on again, to a third phone: the briefing is that one's alone.
    moved = first.post(f"/t/{table.code}/move-me/")
    assert moved.status_code == 200
    second = Client()
    assert second.get(_link_path(moved)).status_code == 302
    assert BRIEFING not in first.get(f"/t/{table.code}/").content.decode()
    assert BRIEFING in second.get(f"/t/{table.code}/").content.decode()
    session = second.session
    session[BRIEFING_KEY] = "garbled"
    session.save()
    page = second.get(f"/t/{table.code}/")
    assert page.status_code == 200 and BRIEFING not in page.content.decode()


# ---- A person takes over a bot's seat ----------------------------------------------------------------------------

def _unescaped(html: str) -> str:
    return html.replace("&#x27;", "'").replace("&#39;", "'")


def test_the_host_hands_a_bots_seat_to_a_person_who_is_briefed_and_the_bot_stops(table_with):
    from gameplay.worker import tick
    from lobby.services import seat_add_bot

    table, people = table_with(4)
    seat_add_bot(table=table)
    table.options = {**table.options, "first_player": 4}  # the bot leads: the game waits for it
    table.save(update_fields=["options"])
    game = start(table, people[0])
    bot = game.seats.exclude(bot="").get()
    assert game.awaiting == [bot.index] and game.bot_due
    # Nobody but the host makes it; the host's controls offer it.
    assert people[1].post(f"/t/{table.code}/seat-link/", {"seat": bot.index}).status_code == 403
    assert 'data-test="bot-seat-link"' in people[0].get(f"/t/{table.code}/").content.decode()
    made = people[0].post(f"/t/{table.code}/seat-link/", {"seat": bot.index})
    assert made.status_code == 200
    board = _unescaped(people[0].get(f"/t/{table.code}/board/").content.decode())
    assert f"The host made a link for a person to take over {bot.name}'s seat from the bot." in board
    new_phone = Client()
    assert new_phone.get(_link_path(made)).status_code == 302
    bot.refresh_from_db()
    assert bot.bot == "" and bot.device
    board = _unescaped(people[0].get(f"/t/{table.code}/board/").content.decode())
    assert f"A person took over {bot.name}'s seat from the bot." in board
    page = new_phone.get(f"/t/{table.code}/").content.decode()
    role = get_engine(game.engine).view(game_state(game), bot.index)["role"]
    assert page.count(BRIEFING) == 1 and f'data-role="{role}"' in page
    # The bot plays no more for it: the worker leaves the seat's moves to its new phone.
    game.refresh_from_db()
    assert not game.bot_due
    tick()
    assert not game.moves.exists()


def test_a_bots_seat_is_the_hosts_to_hand_over_and_bad_seats_change_nothing(table_with):
    from gameplay.models import SeatHandover
    from gameplay.services import GameError, seat_handover_create
    from lobby.services import seat_add_bot

    table, people = table_with(4)
    seat_add_bot(table=table)
    game = start(table, people[0])
    bot = game.seats.exclude(bot="").get()
    with pytest.raises(GameError):
        seat_handover_create(game=game, index=bot.index, by_host=False)
    assert people[0].post(f"/t/{table.code}/seat-link/", {"seat": "x"}).status_code == 400
    refused = people[0].post(f"/t/{table.code}/seat-link/", {"seat": "99"}, follow=True)
    assert refused.status_code == 200 and "cannot move to a new phone" in refused.content.decode()
    assert not SeatHandover.objects.exists()
    game.refresh_from_db()
    assert game.seat_moves == []
