"""The secret stays secret at the HTML level: permuting what a seat cannot know leaves its page as it was.

Each check swaps hidden facts in the stored snapshot (the page renders from it) and compares
the page before and after, with the per-render tokens (CSRF, move id, clock) removed.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from engines.inside_job.cards import side_of
from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data, submit_status

pytestmark = pytest.mark.django_db

TOKENS = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), "CSRF"),
    (re.compile(r'name="move_id" value="[^"]*"'), "MOVEID"),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), "CSRF"),
    (re.compile(r'data-server-now="\d+"'), "NOW"),
]


def normalized(html: bytes) -> str:
    text = html.decode()
    for pattern, placeholder in TOKENS:
        text = pattern.sub(placeholder, text)
    return text


def with_roles(game: Game, roles: list[str]) -> None:
    state = game_state(game)
    state["roles"] = roles
    Game.objects.filter(pk=game.pk).update(snapshot=get_engine(game.engine).encode(state))


def started_inside_job(table_with, players=7, **options):
    table, people = table_with(players, options=options)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    game.refresh_from_db()
    return table, people, game


def test_agent_phone_is_the_same_whatever_the_others_roles(table_with):
    table, people, game = started_inside_job(table_with)
    roles = list(game_state(game)["roles"])
    agent = roles.index("agent")
    before = normalized(people[agent].get(f"/t/{table.code}/").content)
    assert 'data-test="role"' in before
    others = [s for s in range(len(roles)) if s != agent]
    rng = random.Random(3)
    for _ in range(4):
        shuffled = [roles[s] for s in others]
        rng.shuffle(shuffled)
        new = list(roles)
        for seat, role in zip(others, shuffled, strict=True):
            new[seat] = role
        with_roles(game, new)
        assert normalized(people[agent].get(f"/t/{table.code}/").content) == before


def test_traitor_phone_names_fellow_traitors_and_nothing_about_agents(table_with):
    table, people, game = started_inside_job(table_with)
    roles = list(game_state(game)["roles"])
    traitors = [s for s, r in enumerate(roles) if side_of(r) == "traitors"]
    agents = [s for s, r in enumerate(roles) if side_of(r) == "agents"]
    me = traitors[0]
    before = normalized(people[me].get(f"/t/{table.code}/").content)
    for other in traitors[1:]:
        assert people[other].player.nickname in before
    for perm in itertools.islice(itertools.permutations(agents), 1, 5):
        new = list(roles)
        for seat, source in zip(agents, perm, strict=True):
            new[seat] = roles[source]
        with_roles(game, new)
        assert normalized(people[me].get(f"/t/{table.code}/").content) == before


def test_board_is_the_same_under_any_role_permutation_and_shows_no_role(table_with):
    table, people, game = started_inside_job(table_with, merlin=True)
    roles = list(game_state(game)["roles"])
    board = normalized(people[0].get(f"/t/{table.code}/board/").content)
    assert 'data-test="role"' not in board
    rng = random.Random(5)
    for _ in range(5):
        new = list(roles)
        rng.shuffle(new)
        with_roles(game, new)
        assert normalized(people[0].get(f"/t/{table.code}/board/").content) == board
        assert normalized(people[0].get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content) in board


def test_a_spectator_without_a_seat_sees_only_the_board(table_with, guests):
    table, people, game = started_inside_job(table_with)
    (watcher,) = guests(1, prefix="W")
    html = watcher.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="role"' not in html
    assert "You are watching" in html


def play_random_through_services(game: Game, people, steps: int, rng: random.Random) -> None:
    engine = get_engine(game.engine)
    for _ in range(steps):
        game.refresh_from_db()
        if game.over:
            return
        state = game_state(game)
        movers = [s for s in range(game.players) if engine.legal_actions(state, s)]
        if not movers:
            from datetime import timedelta

            from django.utils import timezone

            from gameplay.services import game_expire

            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            assert game_expire(game_id=game.pk)
            continue
        seat = rng.choice(movers)
        action = rng.choice(engine.legal_actions(state, seat))
        assert submit_status(game_id=game.pk, player=people[seat].player, version=game.version,
                             move_id=None, action=action) == 200


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_every_game_renders_pages_without_the_seed_until_the_end(table_with, engine_name):
    engine = ENGINES[engine_name]
    players = max(engine.min_players, 4)
    table, people = table_with(players, engine=engine_name, timer=10)
    game = start(table, people[0])
    rng = random.Random(11)
    pages = []
    for _ in range(30):
        play_random_through_services(game, people, 7, rng)
        game.refresh_from_db()
        if game.over:
            break
        pages = [people[s].get(f"/t/{table.code}/") for s in range(players)]
        pages.append(people[0].get(f"/t/{table.code}/board/"))
        pages.append(people[0].get(f"/t/{table.code}/rev/"))
        for page in pages:
            assert page.status_code == 200
            assert game.seed.encode() not in page.content
    play_random_through_services(game, people, 3000, rng)
    game.refresh_from_db()
    assert game.over
    assert game.seed.encode() in people[0].get(f"/t/{table.code}/").content
    assert people[0].get(f"/g/{game.pk}/").status_code == 200
    assert people[0].get(f"/g/{game.pk}/?step=1", HTTP_HX_REQUEST="true").status_code == 200
    assert people[1].get("/history/").status_code == 200


def test_revision_endpoint_says_only_the_number(table_with):
    table, people, game = started_inside_job(table_with)
    data = people[1].get(f"/t/{table.code}/rev/").json()
    assert set(data) == {"v"} and isinstance(data["v"], int)


def test_bots_are_marked_on_the_board(table_with):
    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/")
    start(table, people[0])
    board = people[0].get(f"/t/{table.code}/board/").content.decode()
    # The name stays plain; the mark is a drawing and a word (templates/icons/bot_mark.jinja), one per bot seat.
    assert '<span class="board-name-text">Bot 1</span><span class="bot-mark">' in board
    assert board.count('class="bot-mark"') == 1 and "🤖" not in board


def test_an_undo_request_shows_the_other_phones_and_the_board_nothing_of_the_hidden_vote(table_with):
    """Undo by consent (issue 45): a hidden vote may be taken back, and asking shows only that the voter asks."""
    from gameplay.services import _undo_point

    table, people, game = started_inside_job(table_with, players=5)
    voter = next(seat for seat in range(5) if legal(game, seat))
    before = game_state(game)
    people[voter].htmx_post(f"/t/{table.code}/move/", {**move_data(game, {"type": "vote", "approve": True}),
                                                       "version": "", "window": game.window_token})
    assert people[voter].htmx_post(f"/t/{table.code}/undo/", {"seq": "2"}).status_code == 200
    game.refresh_from_db()
    other = (voter + 1) % 5
    pages = [people[other].get(f"/t/{table.code}/").content, people[0].get(f"/t/{table.code}/board/").content]
    assert 'data-test="undo-ask"' in pages[0].decode()
    state = game_state(game)
    state["votes"][voter] = False  # the vote the others cannot know, the other way
    Game.objects.filter(pk=game.pk).update(snapshot=get_engine(game.engine).encode(state))
    assert normalized(people[other].get(f"/t/{table.code}/").content) == normalized(pages[0])
    assert normalized(people[0].get(f"/t/{table.code}/board/").content) == normalized(pages[1])
    # What the request and the log's undone line show of the move (its public lines) is the same either way.
    engine = get_engine(game.engine)
    shown = [_undo_point(engine, game, voter, {"type": "vote", "approve": approve}, before,
                         engine.apply(before, voter, {"type": "vote", "approve": approve}))
             for approve in (True, False)]
    assert shown[0] is not None and shown[0] == shown[1]
