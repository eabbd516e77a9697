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
from gameplay.selectors import game_part

LANGUAGES = ["en", "fa", "ja"]
TAG = Template("{% log_line template line names %}")


def tag(template: str, line: dict, names: list[str]) -> str:
    return TAG.render(Context({"template": template, "line": line, "names": names}))


def include(template: str, line: dict, names: list[str]) -> str:
    return render_to_string(template, {"line": line, "names": names})


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_line_of_whole_games_is_the_templates_own_bytes(name):
    engine = get_engine(name)
    template = game_part(name, "log_line")
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
    template = "games/inside_job/log_line.jinja"
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


RECENT = Template("{% recent_log template log names count %}")
# What the phones' logs were before the tag: every public line walked, the newest ``count`` drawn.
WALKED = Template("{% load hand_tags %}{% for line in log|public_lines reversed %}{% if forloop.counter <= count %}"
                  "<li>{% jinja template line=line names=names %}</li>{% endif %}{% endfor %}")


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_phones_recent_log_is_the_newest_public_lines_in_the_templates_own_bytes(name):
    engine = get_engine(name)
    template = game_part(name, "log_line")
    players = engine.min_players + 1
    names = [f"P{i} <b>" for i in range(players)]
    state, _ = play_bots(engine, players, {}, 1, ["random"] * players)
    for seat in range(players):
        log = engine.view(state, seat)["log"]
        for upto in range(0, len(log) + 1, max(1, len(log) // 12)):
            for language in LANGUAGES:
                with translation.override(language):
                    context = {"template": template, "log": log[:upto], "names": names, "count": 8}
                    shown = RECENT.render(Context(context))
                    assert shown == WALKED.render(Context(context)), (language, seat, upto)
                    assert shown.count("<li>") == min(8, len([line for line in log[:upto] if not line.get("private")]))
                    assert "<b>" not in shown
