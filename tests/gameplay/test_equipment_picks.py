"""Good Cop Bad Cop equipment played on picked cards (Blackmail, Wiretap, Metal Detector).

The play button starts disabled (phone.js enables it once one card of each of two players, or of
each gun holder, is ticked), and a pick that reaches the server incomplete anyway is refused with
a note that says what is missing, not "That move is not allowed now."
"""

from __future__ import annotations

import re

import pytest

from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_state
from gameplay.services import incomplete_pick
from tests.conftest import start
from tests.gameplay.helpers import move_data, submit_status

pytestmark = pytest.mark.django_db

INCOMPLETE = "Nothing was played: too few were ticked."


def _on_turn_with(table_with, hand: list[str]):
    """A 4-seat game past the arrangement, the seat on turn holding ``hand``; (table, people, game, seat)."""
    table, people = table_with(4, engine="good_cop_bad_cop")
    game = start(table, people[0])
    by_player = {person.player.pk: person for person in people}
    seats = {s.index: by_player[s.player_id] for s in game.seats.all()}
    for person in seats.values():
        game.refresh_from_db()
        assert submit_status(game_id=game.pk, player=person.player, version=game.version, move_id=None,
                             action={"type": "arrange", "order": [0, 1, 2]}, window=game.window) == 200
    game.refresh_from_db()
    engine = get_engine(game.engine)
    state = game_state(game)
    turn = state["turn"]
    state["players"][turn]["hand"] = list(hand)
    Game.objects.filter(pk=game.pk).update(snapshot=engine.encode(state))
    game.refresh_from_db()
    return table, seats[turn], game, turn


def _pick_form(page: str, card: str) -> str:
    """The move form that plays ``card`` on picked cards."""
    button = page.index(f'data-test="play-{card}"')
    return page[page.rindex("<form", 0, button):page.index("</form>", button)]


@pytest.mark.parametrize("card", ["blackmail", "wiretap"])
def test_the_play_button_waits_for_a_complete_pick(table_with, card):
    table, person, game, seat = _on_turn_with(table_with, [card])
    page = person.get(f"/t/{table.code}/").content.decode()
    form = _pick_form(page, card)
    assert 'data-picks="2"' in form and form.count("data-pick-group") == 3  # the three other players
    (button,) = re.findall(r"<button[^>]*>", form)
    assert "disabled" in button and "data-picks-submit" in button


def test_metal_detector_asks_one_card_of_each_gun_holder(table_with):
    table, person, game, seat = _on_turn_with(table_with, ["metal_detector"])
    engine = get_engine(game.engine)
    state = game_state(game)
    armed = (seat + 1) % 4
    state["players"][armed]["gun"], state["players"][armed]["aim"] = True, (seat + 2) % 4
    Game.objects.filter(pk=game.pk).update(snapshot=engine.encode(state))
    form = _pick_form(person.get(f"/t/{table.code}/").content.decode(), "metal_detector")
    assert 'data-picks="each"' in form and form.count("data-pick-group") == 1
    assert "disabled" in re.findall(r"<button[^>]*>", form)[0]


@pytest.mark.parametrize("ticked", [[], [0]])
@pytest.mark.parametrize("card", ["blackmail", "wiretap"])
def test_an_incomplete_pick_is_refused_saying_what_is_missing(table_with, card, ticked):
    table, person, game, seat = _on_turn_with(table_with, [card])
    others = [s for s in range(4) if s != seat]
    data = move_data(game, {"type": "play", "card": card})
    if ticked:
        data["a.cards[]"] = [str(3 * others[0])]
    response = person.htmx_post(f"/t/{table.code}/move/", data)
    assert response.status_code == 400
    page = response.content.decode()
    assert INCOMPLETE in page and "That move is not allowed now." not in page
    game.refresh_from_db()
    assert not Move.objects.filter(game=game, seat=seat).exclude(action__type="arrange").exists()


def test_a_complete_pick_plays_and_a_wrong_one_is_not_called_incomplete(table_with):
    table, person, game, seat = _on_turn_with(table_with, ["blackmail"])
    others = [s for s in range(4) if s != seat]
    wrong = move_data(game, {"type": "play", "card": "blackmail"})
    wrong["a.cards[]"] = [str(3 * others[0]), str(3 * others[0] + 1)]  # two cards of one player
    response = person.htmx_post(f"/t/{table.code}/move/", wrong)
    assert response.status_code == 400 and "That move is not allowed now." in response.content.decode()
    data = move_data(game, {"type": "play", "card": "blackmail"})
    data["a.cards[]"] = [str(3 * others[0]), str(3 * others[1])]
    assert person.htmx_post(f"/t/{table.code}/move/", data).status_code == 200
    assert Move.objects.filter(game=game, seat=seat).last().action == {
        "type": "play", "card": "blackmail", "cards": [3 * others[0], 3 * others[1]]}


def test_incomplete_pick_compares_every_other_field():
    legal = [{"type": "play", "card": "wiretap", "cards": [0, 3]}, {"type": "equip"}]
    assert incomplete_pick(legal, {"type": "play", "card": "wiretap"})
    assert incomplete_pick(legal, {"type": "play", "card": "wiretap", "cards": [3]})
    assert not incomplete_pick(legal, {"type": "play", "card": "wiretap", "cards": [0, 3]})  # complete
    assert not incomplete_pick(legal, {"type": "play", "card": "blackmail"})  # not this card
    assert not incomplete_pick(legal, {"type": "play", "card": "wiretap", "cards": 3})  # not a list
    assert not incomplete_pick(legal, {"type": "play", "card": "wiretap", "target": 1})  # a field not listed
    assert not incomplete_pick(legal, {"type": "equip"})
