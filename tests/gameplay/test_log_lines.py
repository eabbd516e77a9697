"""Log lines are drawn once per entry, names and language (``{% log_line %}``): the same bytes as the
template itself gives, for every line of whole bot games, on every seat's view and the board's, in
every language the app ships."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import translation

from engines.registry import ENGINES, get_engine
from engines.simulate import play_bots

LANGUAGES = ["en", "fa", "ja"]
TAG = Template("{% log_line template line names %}")


def tag(template: str, line: dict, names: list[str]) -> str:
    return TAG.render(Context({"template": template, "line": line, "names": names}))


def include(template: str, line: dict, names: list[str]) -> str:
    return render_to_string(template, {"line": line, "names": names})


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_line_of_whole_games_is_the_templates_own_bytes(name):
    engine = get_engine(name)
    template = f"games/{name}/log_line.html"
    players = engine.min_players + 1
    names = [f"P{i} <b>" for i in range(players)]  # markup in a name stays escaped
    for seed in range(3):
        state, _ = play_bots(engine, players, {}, seed, ["random"] * players)
        lines = [line for seat in [None, *range(players)] for line in engine.view(state, seat)["log"]]
        assert lines
        for language in LANGUAGES:
            with translation.override(language):
                for line in lines:
                    assert tag(template, line, names) == include(template, line, names), (language, line)
                    assert "<b>" not in tag(template, line, names)


def test_a_line_is_drawn_anew_for_other_names_another_language_or_another_entry():
    template = "games/inside_job/log_line.html"
    line = {"event": "proposal", "leader": 0, "team": [0, 1], "mission": 1, "attempt": 1}
    with translation.override("en"):
        first = tag(template, line, ["Ann", "Bo"])
        assert "Ann" in first and "Bo" in first
        assert "Cy" in tag(template, line, ["Cy", "Bo"])
        assert "mission 2" in tag(template, {**line, "mission": 2}, ["Ann", "Bo"])
        assert tag(template, line, ["Ann", "Bo"]) == first
    with translation.override("ja"):
        assert tag(template, line, ["Ann", "Bo"]) != first
    private = {"event": "lady_result", "private": True, "to": 0, "target": 1, "side": "traitors"}
    with translation.override("en"):
        assert "Traitor" in tag(template, private, ["Ann", "Bo"])
        assert "Agent" in tag(template, {**private, "side": "agents"}, ["Ann", "Bo"])
