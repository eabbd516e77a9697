"""Each game's own template helpers (its presentation.py's ``TEMPLATE_FILTERS`` and ``TEMPLATE_TAGS``) are
registered under their names in the builtin ``game_tags``, so the game's templates call them without a load."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django import template
from django.core.exceptions import ImproperlyConfigured
from django.template import engines as template_engines

from engines.registry import ENGINES
from gameplay.templatetags import game_tags


def test_every_games_helpers_are_in_the_builtin_library():
    for engine in ENGINES.values():
        for name, function in engine.template_filters.items():
            assert game_tags.register.filters[name] is function
        for name in engine.template_tags:
            assert name in game_tags.register.tags
    render = template_engines["django"].from_string("{{ view|mission_cards|join:',' }}").render
    assert render({"view": {"legal": [{"type": "play", "card": "success"}]}}) == "success,success"


def _facts(view: dict) -> dict:
    return view


def test_a_name_two_games_use_is_refused():
    first = SimpleNamespace(name="one", template_filters={"facts": _facts}, template_tags={})
    second = SimpleNamespace(name="two", template_filters={}, template_tags={"facts": _facts})
    library = template.Library()
    game_tags.register_games_helpers(library, [first])
    with pytest.raises(ImproperlyConfigured, match="two: the template helper 'facts' is taken"):
        game_tags.register_games_helpers(library, [second])
