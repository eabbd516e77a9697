"""The moderator's tablet during play: the game run from the board, and a board that is the public one plus controls.

The privacy check is byte-level: at every step of a random game of each engine, the public
partial inside the moderator's board page is byte-identical to an anonymous browser's board
(and to the board's htmx partial), and the controls fragment is the same whatever the
hidden facts are (roles shuffled), so it cannot depend on a secret.
"""

from __future__ import annotations

import random

import pytest
from django.test import Client

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from lobby.models import Table
from tests.gameplay.test_privacy import normalized, play_random_through_services
from tests.lobby.test_moderator import moderated_table

pytestmark = pytest.mark.django_db


def public_part(html: bytes) -> str:
    """The public partial of a board page: from #public-view up to the controls fragment."""
    text = normalized(html)
    start = text.index('<div id="public-view"')
    return text[start:text.index('<div id="moderator-view"', start)].rstrip()


def controls_part(html: bytes) -> str:
    text = normalized(html)
    start = text.index('<div id="moderator-view"')
    return text[start:text.index('<p class="read-aloud"', start)]


def start_from_board(table: Table, tablet) -> Game:
    response = tablet.post(f"/t/{table.code}/host/start/", {"back": "board"})
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/board/"
    return table.games.get(status="running")


def test_five_phones_play_a_game_started_paused_resumed_and_ended_from_the_board(guests):
    table, tablet, phones = moderated_table(guests, players=5, timer=30)
    game = start_from_board(table, tablet)
    assert game.players == 5 and game.moderator == tablet.player
    assert list(game.seats.values_list("player", flat=True)) == [p.player.pk for p in phones]
    for phone in phones:
        assert 'data-test="role"' in phone.get(f"/t/{table.code}/").content.decode()
    board = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="controls"' in board and 'data-test="end-game"' in board
    assert 'data-test="controls" open' not in board  # during play the drawer starts closed
    assert 'class="qr"' not in board  # no join QR during play (the board's cards are drawings too)
    # The leader proposes; the vote window's countdown runs; the moderator pauses and resumes it.
    from tests.gameplay.test_timers_and_host import propose

    propose(game, phones, table)
    assert game.deadline is not None
    assert tablet.post(f"/t/{table.code}/host/pause/", {"back": "board"})["Location"] == f"/t/{table.code}/board/"
    game.refresh_from_db()
    assert game.paused and game.deadline is None
    assert 'data-test="resume"' in tablet.get(f"/t/{table.code}/board/controls/").content.decode()
    tablet.post(f"/t/{table.code}/host/resume/", {"back": "board"})
    game.refresh_from_db()
    assert not game.paused and game.deadline is not None
    # Ending asks first, and the question leads back to the board.
    asked = tablet.post(f"/t/{table.code}/host/end/", {"back": "board"}).content.decode()
    assert 'data-test="confirm-end"' in asked and 'name="back" value="board"' in asked
    assert f'href="/t/{table.code}/board/" data-test="keep-playing"' in asked
    game.refresh_from_db()
    assert game.status == Game.RUNNING
    response = tablet.post(f"/t/{table.code}/host/end/", {"confirm": "yes", "back": "board"})
    assert response["Location"] == f"/t/{table.code}/board/"
    game.refresh_from_db()
    assert game.status == Game.ENDED and game.outcome["by"] == "Mod1"
    # Between games the drawer offers Play again on the same seats.
    board = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert "Mod1 ended this game early." in board and "Play again" in board
    tablet.post(f"/t/{table.code}/host/again/", {"back": "board"})
    again = table.games.get(status="running")
    assert again.pk != game.pk and again.moderator == tablet.player


def test_the_moderator_hands_a_departed_seat_to_a_bot_from_the_board(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    game = start_from_board(table, tablet)
    response = tablet.post(f"/t/{table.code}/host/bot/", {"seat": "2", "back": "board"})
    assert response["Location"] == f"/t/{table.code}/board/"
    assert game.seats.get(index=2).bot == "heuristic"
    assert tablet.post(f"/t/{table.code}/host/bot/", {"seat": "9", "back": "board"}).status_code == 400
    # A rescue link for a phone that is still at the table is refused with a message, on the board.
    phones[3].get(f"/t/{table.code}/")
    response = tablet.post(f"/t/{table.code}/seat-link/", {"seat": "3", "back": "board"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/t/{table.code}/board/"
    assert "a moment ago" in response.content.decode()


def test_a_non_host_board_during_play_has_no_controls_and_the_controls_403(guests):
    table, tablet, phones = moderated_table(guests, players=5, timer=10)
    start_from_board(table, tablet)
    for other in (phones[0], Client()):
        html = other.get(f"/t/{table.code}/board/").content.decode()
        assert 'data-test="controls"' not in html and "host/end" not in html
        for path in ("host/pause/", "host/resume/", "host/end/", "host/bot/", "seat-link/", "host/pass/"):
            assert other.post(f"/t/{table.code}/{path}", {"seat": "0", "confirm": "yes", "back": "board"}
                              ).status_code == 403
    assert table.games.get().status == Game.RUNNING


def with_hidden_facts_shuffled(game: Game, rng: random.Random) -> bool:
    """Permute what the board may not know in the stored snapshot: the roles (Inside Job), else the deck."""
    engine = get_engine(game.engine)
    data = engine.encode(game_state(game))
    key = "roles" if game.engine == "inside_job" else "deck"
    if not isinstance(data.get(key), list) or len(set(map(repr, data[key]))) < 2:
        return False
    data[key] = rng.sample(data[key], len(data[key]))
    Game.objects.filter(pk=game.pk).update(snapshot=data)
    return True


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_the_moderators_board_is_the_public_board_byte_for_byte_plus_controls_without_secrets(guests, engine_name):
    engine = ENGINES[engine_name]
    table, tablet, phones = moderated_table(guests, players=max(engine.min_players, 5 if engine_name == "inside_job"
                                                                    else 4), engine=engine_name, timer=10)
    game = start_from_board(table, tablet)
    anonymous = Client()
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        game.refresh_from_db()
        if game.over:
            if checked >= 3:
                break
            game = start_from_board(table, tablet)  # a short game (its seed is random): deal another
        mine = tablet.get(f"/t/{table.code}/board/").content
        theirs = anonymous.get(f"/t/{table.code}/board/").content
        partial = anonymous.get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content
        assert public_part(mine) == public_part(theirs) == normalized(partial).strip()
        assert b'data-test="controls"' in mine and b'data-test="controls"' not in theirs
        controls = controls_part(mine)
        assert game.seed not in controls and "data-role" not in controls and "/move/" not in controls
        fragment = normalized(tablet.get(f"/t/{table.code}/board/controls/", HTTP_HX_REQUEST="true").content)
        assert fragment.strip() == controls.strip()
        # The controls cannot depend on a hidden fact: shuffled, they are the same bytes.
        snapshot = Game.objects.values_list("snapshot", flat=True).get(pk=game.pk)
        if with_hidden_facts_shuffled(game, rng):
            shuffled = normalized(tablet.get(f"/t/{table.code}/board/controls/").content)
            assert shuffled.strip() == fragment.strip()
            Game.objects.filter(pk=game.pk).update(snapshot=snapshot)
        checked += 1
        play_random_through_services(game, phones, 5, rng)
    assert checked >= 3


def test_a_moderated_game_is_in_the_moderators_history_as_moderator_and_in_each_players_as_usual(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    game = start_from_board(table, tablet)
    tablet.post(f"/t/{table.code}/host/end/", {"confirm": "yes", "back": "board"})
    history = tablet.get("/history/").content.decode()
    assert 'data-test="as-moderator"' in history and "as moderator" in history
    assert f"/g/{game.pk}/?k=" in history and "P1, P2" in history.replace("\u2068", "").replace("\u2069", "")
    for phone in phones:
        mine = phone.get("/history/").content.decode()
        assert f"/g/{game.pk}/?k=" in mine and 'data-test="as-moderator"' not in mine


def test_a_tablet_that_takes_the_host_role_mid_game_moderates_that_game(guests):
    host, *others = guests(5)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    for other in others:
        other.post(f"/t/{table.code}/join/")
    host.post(f"/t/{table.code}/host/start/")
    game = table.games.get()
    assert game.moderator is None  # the host plays
    host.post(f"/t/{table.code}/host/link/")
    table.refresh_from_db()
    tablet = Client()
    tablet.get(f"/h/{table.host_link}/")
    game.refresh_from_db()
    assert game.moderator_id == tablet.session["player_id"]
    board = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert 'data-test="controls"' in board and "Moderator is now the host." in board
    # The old host still plays their seat and sees their role; the controls left their phone.
    phone = host.get(f"/t/{table.code}/").content.decode()
    assert 'data-test="role"' in phone and 'data-test="end-game"' not in phone
    # The moderator hands the role to a seated player during the game: they get the controls.
    seat = table.seats.get(player=others[0].player)
    tablet.post(f"/t/{table.code}/host/pass/", {"seat": seat.pk, "back": "board"})
    table.refresh_from_db()
    assert table.host == others[0].player
    assert 'data-test="end-game"' in others[0].get(f"/t/{table.code}/").content.decode()
    game.refresh_from_db()
    assert game.moderator_id == tablet.session["player_id"]  # the games they ran stay theirs


def test_a_playing_hosts_game_is_not_marked_as_moderated(guests):
    host, *others = guests(5)
    host.post("/new/", {"engine": "inside_job", "timer": "0"})
    table = Table.objects.get(host=host.player)
    for other in others:
        other.post(f"/t/{table.code}/join/")
    host.post(f"/t/{table.code}/host/start/")
    assert table.games.get().moderator is None
    assert 'data-test="as-moderator"' not in host.get("/history/").content.decode()


def test_a_persian_tablet_gets_the_controls_and_the_read_aloud_toggle_in_persian(guests):
    table, tablet, phones = moderated_table(guests, players=5)
    tablet.post("/i18n/setlang/", {"language": "fa", "next": "/"})
    html = tablet.get(f"/t/{table.code}/board/").content.decode()
    assert 'lang="fa"' in html and "کنترل‌های گرداننده" in html and "خواندن با صدای بلند" in html
    assert "Moderator's controls" not in html and "Read aloud" not in html


@pytest.mark.django_db(transaction=True)
def test_the_controls_fragment_refresh_is_cheap_for_everyone_and_the_host(guests):
    from tests.gameplay.test_query_budgets import statements

    table, tablet, phones = moderated_table(guests, players=5)
    start_from_board(table, tablet)
    with statements(2):
        phones[0].get(f"/t/{table.code}/board/controls/", HTTP_HX_REQUEST="true")
    with statements(6):
        response = tablet.get(f"/t/{table.code}/board/controls/", HTTP_HX_REQUEST="true")
    assert 'data-test="controls"' in response.content.decode()
