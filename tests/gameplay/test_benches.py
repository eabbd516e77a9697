"""The in-process benchmarks of the push path print their figures and leave nothing behind."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from gameplay.models import Game
from lobby.models import Player, Table


def _report(command: str, *args: str) -> dict | list:
    out = StringIO()
    call_command(command, *args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.mark.django_db
def test_pushbench_pushes_a_partial_to_every_screen_and_leaves_nothing_behind():
    report = _report("pushbench", "--phones", "5", "--pushes", "3", "--warmup", "1")
    assert report["phones"] == 5 and report["pushes"] == 3
    assert 0 < report["best_ms"] <= report["p25_ms"] <= report["median_ms"]
    # Five phones' panels and a board: each frame holds a whole partial.
    assert report["frame_bytes"] > 6 * 1000
    assert not Table.objects.exists() and not Game.objects.exists() and not Player.objects.exists()


@pytest.mark.django_db
def test_pushbench_with_one_deal_plays_the_same_games_and_can_leave_the_pushes_out():
    # tools/pushcount.sh counts a push as a run with pushes less the same run without: both must play the same moves.
    args = ("--phones", "5", "--pushes", "40", "--warmup", "1", "--deal", "7")
    first, again = _report("pushbench", *args), _report("pushbench", *args)
    assert first["frame_bytes"] == again["frame_bytes"] and first["pushes"] == 40
    assert _report("pushbench", *args, "--no-push") == {"moves": "vote", "phones": 5, "pushes": 0}
    assert not Table.objects.exists() and not Game.objects.exists() and not Player.objects.exists()


@pytest.mark.django_db
def test_pushbench_tells_each_kind_of_move_s_pushes_apart_a_game_s_end_and_the_next_start_among_them():
    report = _report("pushbench", "--phones", "5", "--pushes", "80", "--warmup", "0", "--deal", "7")
    kinds = report["by_move"]
    assert sum(figures["pushes"] for figures in kinds.values()) == 80
    assert {"proposal", "votes", "mission", "game over", "new game"} <= set(kinds)
    assert all(0 < figures["median_ms"] <= figures["max_ms"] for figures in kinds.values())


def test_layerbench_prints_both_layers_for_each_count_of_sockets():
    rows = _report("layerbench", "--sockets", "16", "--sockets", "40", "--pushes", "20")
    assert [row["sockets"] for row in rows] == [16, 40]
    assert all(row["channels_us"] > 0 and row["ours_us"] > 0 for row in rows)


@pytest.mark.django_db
def test_piece_renders_counts_the_pieces_a_vote_makes_again_and_leaves_the_pieces_as_they_were():
    from gameplay.screens import pieces
    from tools.piece_renders import watch

    render, made_part = pieces._render, pieces.made_part
    rows = watch(pushes=12, deal=7, stdout=StringIO())
    # A vote marks the voter's seat on the board: its piece is made again, with new bytes.
    assert rows["bv-seat-"]["again"] >= 12 and rows["bv-seat-"]["same"] < rows["bv-seat-"]["again"]
    assert all(0 <= row["same"] <= row["again"] and row["seconds"] > 0 for row in rows.values())
    assert (pieces._render, pieces.made_part) == (render, made_part)
    assert not Table.objects.exists() and not Game.objects.exists()
