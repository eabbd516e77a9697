"""Every game's board marks the line that says whom the game waits for (``data-say="status"``): the board's
read-aloud (board.js) speaks that line, whichever game the board shows."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from engines.registry import ENGINES
from tests.conftest import start
from tests.gameplay.test_screens import one_move

STATUS = re.compile(r'<(\w+)[^>]*\sdata-say="status"[^>]*>(.*?)</\1>', re.S)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_games_board_marks_one_status_line_while_it_runs(table_with, engine):
    table, people = table_with(ENGINES[engine].min_players, engine)
    game = start(table, people[0])
    for _ in range(4):
        html = Client().get(f"/t/{table.code}/board/").content.decode()
        lines = STATUS.findall(html)
        assert len(lines) == 1, lines
        assert re.sub(r"<[^>]+>|\s+", "", lines[0][1])  # it says something
        one_move(game, people, table)
