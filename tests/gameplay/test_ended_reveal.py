"""A game the host ended shows what the End confirmation promises: every seat's role or cards, and the seed.

On the board and on the game's page (its replay's last step), as a finished game's reveal shows them; never while
the game runs.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from tests.conftest import start
from tests.gameplay.helpers import move_data

ROLE_CARD = re.compile(r'class="board-card board-role">\s*<svg class="card-art card-art-([a-z_]+)"')
REVEALED = re.compile(r'data-test="revealed"')


def revealed(html: str, engine: str) -> list[str] | int:
    """The roles the board's seats show (games with roles), or how many cards it shows face up as revealed."""
    if engine in ("inside_job", "good_cop_bad_cop_health"):
        return ROLE_CARD.findall(html)
    return len(REVEALED.findall(html))


def expected(game: Game) -> list[str] | int:
    """What each seat's own view holds: its role or identity, or its cards."""
    engine, state = get_engine(game.engine), game_state(game)
    views = [engine.view(state, seat) for seat in range(game.players)]
    if game.engine == "inside_job":
        return [view["role"] for view in views]
    if game.engine == "good_cop_bad_cop_health":
        return [view["identity"] for view in views]
    if game.engine == "coup":
        return sum(len(view["hand"]) for view in views)
    return sum(len(view["cards"][seat]) for seat, view in enumerate(views))


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_ended_game_shows_every_seats_cards_on_the_board_and_its_page(table_with, engine):
    players = 5 if engine != "good_cop_bad_cop_health" else 4
    table, people = table_with(players, engine=engine)
    game = start(table, people[0])
    if engine == "good_cop_bad_cop_health":  # every seat holds its identity once each has chosen which to keep
        for seat, person in enumerate(people):
            legal = get_engine(engine).legal_actions(game_state(game), seat)
            if legal:
                person.htmx_post(f"/t/{table.code}/move/", move_data(game, legal[0]))
                game.refresh_from_db()
    board = Client()
    running = board.get(f"/t/{table.code}/board/").content.decode()
    assert revealed(running, engine) in ([], 0)  # nothing is revealed while the game runs
    asked = people[0].post(f"/t/{table.code}/host/end/").content.decode()
    assert "the cards and the seed are shown" in asked
    assert people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.ENDED
    want = expected(game)
    assert want not in ([], 0)
    html = board.get(f"/t/{table.code}/board/").content.decode()
    assert revealed(html, engine) == want
    assert 'data-test="ended"' in html and game.seed in html
    page = people[0].get(f"/g/{game.pk}/").content.decode()
    assert revealed(page, engine) == want
    assert game.seed in page


def test_a_seat_holding_both_leaders_is_badged_on_the_board_with_the_team_it_wins_with(table_with):
    """The seed rule's win (one seat holds the Agent and the Kingpin): that seat's badge at the end names the Crooked
    team in a seat's width, not the whole phrase "both leaders (wins with the Crooked team)"."""
    from engines.good_cop_bad_cop import rules
    from lobby.notify import table_notify

    table, people = table_with(4, engine="good_cop_bad_cop")
    game = start(table, people[0])
    engine, state = get_engine("good_cop_bad_cop"), game_state(game)
    hands = [player["cards"] for player in state["players"]]
    for slot, leader in enumerate(("agent", "kingpin")):  # seat 0 swaps a card of its own for each leader
        seat, at = next((s, hand.index(leader)) for s, hand in enumerate(hands) if leader in hand)
        hands[seat][at], hands[0][slot] = hands[0][slot], hands[seat][at]
    rules.check_both_leaders(state)
    assert state["result"]["teams"]["0"] == "both"
    Game.objects.filter(pk=game.pk).update(snapshot=engine.encode(state), status=Game.FINISHED,
                                           outcome=engine.outcome(state))
    table_notify(table_id=table.pk)
    html = Client().get(f"/t/{table.code}/board/").content.decode()
    # Drawn as the Crooked team too (its shape, gameplay/templatetags/marks.py), and named so.
    assert re.search(r'<span class="badge gcbc-team gcbc-team-both"><svg [^>]*data-shape="triangle".*?</svg>'
                     r'\s*Crooked team\s*</span>', html)
    assert "both leaders" not in html
