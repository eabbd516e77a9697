"""Hardening: crafted moves, failing engines, double starts, forged bot ids, malformed forms, share links."""

from __future__ import annotations

import json
import logging
import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from engines.registry import get_engine
from gameplay import services
from gameplay.models import Game, Move
from gameplay.selectors import game_state
from gameplay.services import GameError, game_expire, game_start, move_submit
from gameplay.worker import bot_step, tick
from lobby.models import Table
from tests.conftest import start
from tests.gameplay.helpers import awaited_movers, legal, move_data

pytestmark = pytest.mark.django_db


def snapshot_of(game: Game) -> tuple:
    """Everything a refused move must leave as it was."""
    game.refresh_from_db()
    return game.version, json.dumps(game.snapshot, sort_keys=True), game.moves.count(), game.window, game.deadline


def coup_steal_targets(game: Game) -> tuple[int, dict]:
    """The Coup seat on turn and one of its steal actions (target is an int seat)."""
    (turn,) = awaited_movers(game)
    steal = next(a for a in legal(game, turn) if a["type"] == "steal")
    return turn, steal


LOOK_ALIKES = [
    lambda t: float(t),  # 1.0 == 1 in Python, but not the same JSON
    lambda t: t == 1,  # True == 1 (or False == 0)
    lambda t: str(t),
    lambda t: [t],
    lambda t: {"seat": t},
    lambda t: t + 2**70,
    lambda t: None,
]


@pytest.mark.parametrize("look_alike", LOOK_ALIKES)
def test_a_look_alike_action_is_refused_and_changes_nothing(table_with, look_alike):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    turn, steal = coup_steal_targets(game)
    crafted = {**steal, "target": look_alike(steal["target"])}
    before = snapshot_of(game)
    response = people[turn].htmx_post(f"/t/{table.code}/move/", move_data(game, crafted))
    assert response.status_code == 400
    assert snapshot_of(game) == before
    # The worker and the pages go on as before: nothing was stored that could fail later.
    tick()
    assert people[1].get(f"/t/{table.code}/").status_code == 200
    assert people[0].get(f"/t/{table.code}/board/").status_code == 200


def test_the_log_stores_the_engines_own_action(table_with):
    table, people = table_with(3, engine="coup")
    game = start(table, people[0])
    turn, steal = coup_steal_targets(game)
    # Same keys in another order, as a hand-written client might send them: still exactly legal.
    reordered = dict(reversed(list(steal.items())))
    assert people[turn].htmx_post(f"/t/{table.code}/move/", move_data(game, reordered)).status_code == 200
    stored = Move.objects.get(game=game, seq=1).action
    assert json.dumps(stored, sort_keys=True) == json.dumps(steal, sort_keys=True)
    assert type(stored["target"]) is int


def test_any_engine_error_on_a_move_is_a_refused_move(table_with, monkeypatch, caplog):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    action = legal(game, leader)[0]
    engine = get_engine(game.engine)

    def broken(state, seat, action):
        raise TypeError("'<' not supported between instances of 'float' and 'int'")

    monkeypatch.setattr(engine, "_apply", broken)
    before = snapshot_of(game)
    with caplog.at_level(logging.ERROR, logger="gameplay.services"):
        response = people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, action))
    assert response.status_code == 400
    assert snapshot_of(game) == before
    assert any("failed on a move" in r.message for r in caplog.records)


def _due_vote(table, people) -> Game:
    """An Inside Job game whose vote window's deadline has passed."""
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    game.refresh_from_db()
    assert game.window
    return game


def test_a_failing_expiry_never_stops_other_tables_and_never_runs_twice(table_with, monkeypatch, guests):
    table_a, people_a = table_with(5, timer=5)
    broken_game = _due_vote(table_a, people_a)
    # A second table of another game, also due, must still expire in the same tick.
    table_b, people_b = table_with(5, timer=5, engine="inside_job")
    healthy = _due_vote(table_b, people_b)
    engine = get_engine("inside_job")
    original = engine.on_timeout
    calls = []

    def on_timeout(state):
        calls.append(state.get("seed"))
        if state.get("seed") == broken_game_seed:
            raise TypeError("crafted state")
        return original(state)

    broken_game_seed = game_state(broken_game)["seed"]
    monkeypatch.setattr(engine, "on_timeout", on_timeout)
    before = snapshot_of(broken_game)[:3]
    tick()
    healthy.refresh_from_db()
    assert healthy.moves.filter(seat=None).count() == 1  # the other table's timer ran
    broken_game.refresh_from_db()
    assert snapshot_of(broken_game)[:3] == before  # nothing recorded
    assert broken_game.deadline is None  # so nobody runs the failing expiry again
    failures = calls.count(broken_game_seed)
    for person in people_a[:3]:
        assert person.get(f"/t/{table_a.code}/").status_code == 200
    assert people_a[0].get(f"/t/{table_a.code}/board/").status_code == 200
    assert people_a[0].get(f"/t/{table_a.code}/rev/").status_code == 200
    tick()
    assert calls.count(broken_game_seed) == failures == 1
    # The window stays open for the seats' own answers.
    voter = awaited_movers(broken_game)[0]
    vote = legal(broken_game, voter)[0]
    assert people_a[voter].htmx_post(f"/t/{table_a.code}/move/", move_data(broken_game, vote)).status_code == 200


def test_game_expire_leaves_a_game_without_a_window_alone(table_with):
    table, people = table_with(5, timer=5)
    game = start(table, people[0])
    assert not game_expire(game_id=game.pk, now=timezone.now() + timedelta(hours=1))


@pytest.mark.django_db(transaction=True)
def test_ten_starts_at_once_deal_one_game(table_with):
    table, people = table_with(5)
    barrier = threading.Barrier(10)
    results: list[str] = []

    def start_once():
        barrier.wait()
        try:
            game_start(table=Table.objects.get(pk=table.pk))
            results.append("started")
        except GameError:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=start_once) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["refused"] * 9 + ["started"]
    assert table.games.filter(status=Game.RUNNING).count() == 1


def test_the_database_allows_one_running_game_per_table(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(table=table, engine=game.engine, players=5, seed="1", seed_hash="x")
    services.game_end_early(game=game)
    assert start(table, people[0]).status == Game.RUNNING  # ended games don't count


def test_a_double_tap_on_start_answers_with_a_message(table_with):
    table, people = table_with(5)
    start(table, people[0])
    response = people[0].post(f"/t/{table.code}/host/start/", follow=True)
    assert response.status_code == 200
    assert "already running" in response.content.decode()
    assert table.games.count() == 1


def test_a_forged_bot_move_id_does_not_freeze_the_bot(table_with):
    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/")
    game = start(table, people[0])
    bot = game.seats.exclude(bot="").get().index
    humans = {gseat.index: person for gseat in game.seats.filter(bot="") for person in people
              if person.player.pk == gseat.player_id}
    (leader,) = awaited_movers(game)
    if leader == bot:
        assert bot_step(game, timezone.now() + timedelta(seconds=5))
    else:
        humans[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    game.refresh_from_db()
    assert legal(game, bot), "the bot must vote now"
    # The attack: a human votes with the id the bot would use next (the old ids were bot-<version>-<seat>).
    voter = next(seat for seat in humans if legal(game, seat))
    forged = f"bot-{game.version + 1}-{bot}"
    assert humans[voter].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, voter)[0],
                                                                         move_id=forged)).status_code == 200
    game.refresh_from_db()
    version = game.version
    assert bot_step(game, timezone.now() + timedelta(seconds=5))
    game.refresh_from_db()
    assert game.version == version + 1
    assert game.moves.get(seq=version + 1).seat == bot
    assert not game.moves.get(seq=version + 1).client_move_id.endswith(f"-{version}-{bot}")


def test_two_workers_move_a_bot_once(table_with):
    """Two processes' workers deciding for one bot at the same version make one move, not two."""
    table, people = table_with(4)
    people[0].post(f"/t/{table.code}/seat/add-bot/")
    game = start(table, people[0])
    bot = game.seats.exclude(bot="").get().index
    for _ in range(40):  # on until the bot is awaited
        game.refresh_from_db()
        if bot in game.awaiting:
            break
        seat = next(s for s in awaited_movers(game) if s != bot)
        people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, seat)[0]))
    assert bot in game.awaiting
    first, second = type(game).objects.get(pk=game.pk), type(game).objects.get(pk=game.pk)
    later = timezone.now() + timedelta(seconds=5)
    assert bot_step(first, later)
    assert not bot_step(second, later)  # read before the first move landed: refused or its duplicate
    assert game.moves.filter(seat=bot, seq__gt=game.version).count() == 1


def test_a_repeated_id_is_not_progress(table_with, monkeypatch):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    action = legal(game, leader)[0]
    first = move_submit(game_id=game.pk, player=people[leader].player, version=0, move_id="same", action=action)
    again = move_submit(game_id=game.pk, player=people[leader].player, version=1, move_id="same", action=action)
    # (A refused move raises: both were taken, the second as the first's answer.)
    assert not first.duplicate
    assert again.duplicate and again.seq == first.seq
    # The same id from another seat is that seat's own move id, judged on its own.
    voter = next(s for s in awaited_movers(game) if s != leader)
    other = move_submit(game_id=game.pk, player=people[voter].player, version=1, move_id="same",
                        action=legal(game, voter)[0])
    assert not other.duplicate


@pytest.mark.parametrize(
    "fields",
    [
        {"a.target": "²"},
        {"a.target": "--1"},
        {"a.target": "１"},
        {"a.team[]": ["²", "--1"]},
        {"action": "[" * 3000 + "]" * 3000},
        {"action": "{\"type\": " + "[" * 3000},
        {"action": json.dumps({"type": "propose", "team": [[[[[[[[[[[[1]]]]]]]]]]]]})},
        {"action": "NaN"},
        {"version": "²"},
        {"version": "-1"},
        {"version": "9" * 5000},
    ],
)
def test_malformed_move_forms_answer_400(table_with, fields):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    data = {**move_data(game, {"type": "propose"}), **fields}
    before = snapshot_of(game)
    response = people[leader].htmx_post(f"/t/{table.code}/move/", data)
    assert response.status_code == 400
    assert snapshot_of(game) == before


def _finished(table_with) -> tuple[Game, list]:
    table, people = table_with(5)
    game = start(table, people[0])
    services.game_end_early(game=game)
    game.refresh_from_db()
    return game, people


def test_a_finished_game_is_for_its_players_and_its_share_link(table_with, guests):
    game, people = _finished(table_with)
    (stranger,) = guests(1, prefix="S")
    assert people[2].get(f"/g/{game.pk}/").status_code == 200
    assert stranger.get(f"/g/{game.pk}/").status_code == 404
    assert stranger.get(f"/g/{game.pk}/?k=wrong").status_code == 404
    shared = stranger.get(f"/g/{game.pk}/?k={game.share_token}")
    assert shared.status_code == 200
    # Stepping through the replay keeps the link's token.
    assert f"?k={game.share_token}&amp;step=" in shared.content.decode()
    step = stranger.get(f"/g/{game.pk}/?k={game.share_token}&step=0", HTTP_HX_REQUEST="true")
    assert step.status_code == 200
    # Whoever saw the end (phones, board, history) got the share link.
    board = people[0].get(f"/t/{game.table.code}/board/").content.decode()
    assert f"/g/{game.pk}/?k={game.share_token}" in board


def test_verify_game_checks_games_the_host_ended(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    services.game_end_early(game=game)
    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert "verified" in out.getvalue() and "ended" in out.getvalue()
    Move.objects.filter(game=game, seq=1).update(action={"type": "propose", "team": [9, 9]})
    with pytest.raises(CommandError, match="replay"):
        call_command("verify_game", str(game.pk))
