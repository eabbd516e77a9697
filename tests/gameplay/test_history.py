"""History, the game page with its reveal and replay, rules pages, and the deploy check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.registry import ENGINES
from tests.conftest import start
from tests.gameplay.test_moves import play_to_end

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_history_lists_each_players_games_with_team_and_result(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    game.refresh_from_db()
    for seat, person in enumerate(people):
        html = person.get("/history/").content.decode()
        assert "Inside Job" in html and all(p.player.nickname in html for p in people)
        assert f"/g/{game.pk}/" in html
        assert ("won" if seat in game.outcome["winners"] else "lost") in html
        assert "Agents" in html or "Traitors" in html
        role = {"agent": "Agent", "traitor": "Traitor"}[game.outcome["reveal"]["roles"][seat]]
        assert f"Role: {role}" in html


def test_game_page_shows_log_reveal_seed_and_steps_through_the_board(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    play_to_end(game, people, table)
    game.refresh_from_db()
    html = people[0].get(f"/g/{game.pk}/").content.decode()
    assert game.seed in html and game.seed_hash in html
    assert f"Move {game.version} of {game.version}" in html
    step1 = people[0].get(f"/g/{game.pk}/?step=1", HTTP_HX_REQUEST="true").content.decode()
    assert f"Move 1 of {game.version}" in step1
    assert people[0].get(f"/g/{game.pk}/?step=-5").status_code == 200
    assert people[0].get(f"/g/{game.pk}/?step=x").status_code == 200


def test_a_running_game_has_no_public_game_page(table_with):
    table, people = table_with(5)
    game = start(table, people[0])
    assert people[0].get(f"/g/{game.pk}/").status_code == 404


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_rules_page_of_every_game_marks_rulings(client, name):
    html = client.get(f"/rules/{name}/").content.decode()
    assert 'class="ruling"' in html
    assert client.get("/rules/").status_code == 200
    assert client.get("/rules/chess/").status_code == 404


def test_deploy_check_is_clean_with_https_and_a_long_key():
    env = {**os.environ, "DJANGO_HTTPS": "1", "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "k" * 20 + os.urandom(32).hex()}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_bench_prints_figures_and_leaves_nothing_behind():
    import json
    from io import StringIO

    from django.core.management import call_command

    from gameplay.models import Game
    from lobby.models import Table

    out = StringIO()
    call_command("bench", "inside_job", "--players", "5", "--games", "1", stdout=out)
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert report["moves"] > 10 and report["moves_per_second"] > 0 and report["renders_per_second"] > 0
    assert not Table.objects.exists() and not Game.objects.exists()
