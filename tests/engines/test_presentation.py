"""What each engine declares for the web layer (its presentation.py): the reference card's facts, the
figures from a log, a seat's role from the reveal, the minority role; and the views' common keys."""

from __future__ import annotations

import json

import pytest

from engines.base import BaseView
from engines.registry import ENGINES, get_engine
from tests.engines.contract import play_random


def test_base_view_holds_the_contracts_common_keys():
    assert set(BaseView.__required_keys__) == {"seat", "phase", "turn", "log", "legal", "players", "awaiting",
                                               "outcome"}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_declares_a_json_reference_card_for_every_table_size(name):
    engine = get_engine(name)
    options = engine.default_options()
    for players in range(engine.min_players, engine.max_players + 1):
        state = engine.setup(players, options, 5)
        facts = engine.reference(engine.view(state, 0), players, engine.validate_options(options, players))
        assert isinstance(facts, dict) and facts
        assert json.loads(json.dumps(facts)) is not None


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_log_figures_give_each_seat_exactly_the_declared_figures(name):
    engine = get_engine(name)
    players = engine.min_players + 1
    options = engine.default_options()
    _, moves = play_random(engine, players, options, 11)
    figures = engine.log_figures(engine.setup(players, options, 11), options, moves, players)
    assert len(figures) == players
    assert all(set(seat) == set(engine.figures) for seat in figures)
    assert all(isinstance(v, int) and v >= 0 for seat in figures for v in seat.values())


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_minority_named_is_what_the_reveal_and_the_views_show(name):
    """A game's ``minority`` is a team of its outcome or a role of ``seat_role``, and the seats whose own
    view shows it (``is_minority``) are the seats the end's reveal names so."""
    engine = get_engine(name)
    players = engine.max_players
    options = engine.default_options()
    for seed in range(3):
        final, _ = play_random(engine, players, options, seed)
        dealt = engine.setup(players, options, seed)
        shown = {s for s in range(players) if engine.is_minority(engine.view(dealt, s), s)}
        outcome = engine.outcome(final)
        roles = [engine.seat_role(outcome, s) for s in range(players)]
        if engine.minority is None:
            assert shown == set()
            continue
        kind, label = engine.minority
        assert shown, "some seat is dealt the minority role"
        if kind == "team":
            assert shown == set(outcome["teams"][label])
        else:
            assert kind == "role"
            revealed = {s for s in range(players) if roles[s] == label}
            if name == "good_cop_bad_cop_health":
                # Identities change hands in play; the reveal names the final ones.
                assert all(role in ("good", "bad", "wanted") for role in roles)
            else:
                # Leader cards may change hands in play (Blackmail, Bribe): the views at the end show what the
                # end's reveal names.
                assert {s for s in range(players) if engine.is_minority(engine.view(final, s), s)} == revealed
