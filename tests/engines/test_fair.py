"""Fair deals (engines.fair): over thousands of deals nobody drifts far from chance, and each deal
stays a function of the seed and the public history, neither predictable nor certain."""

from __future__ import annotations

import pytest

from engines import fair
from engines.base import OptionError
from engines.registry import get_engine

GAMES = [("inside_job", 5), ("good_cop_bad_cop", 5), ("good_cop_bad_cop_health", 6)]


def _drift(name: str, players: int, games: int, fair_on: bool) -> float:
    """The largest |dealt - expected| of any player over ``games`` deals, seats rotating between games."""
    engine = get_engine(name)
    dealt, expected, worst = [0] * players, [0.0] * players, 0.0
    for g in range(games):
        order = [(i + g) % players for i in range(players)]
        options = {}
        if fair_on:
            options[fair.KEY] = {"excess": [dealt[p] - expected[p] for p in order]}
        minority = fair.minority_seats(engine, engine.setup(players, options, 10_000 + g))
        for seat, p in enumerate(order):
            dealt[p] += seat in minority
            expected[p] += len(minority) / players
        worst = max(worst, *(abs(dealt[p] - expected[p]) for p in range(players)))
    return worst


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_over_thousands_of_deals_nobody_drifts_far_from_chance(name, players):
    with_fair = _drift(name, players, 1500, True)
    by_chance = _drift(name, players, 1500, False)
    assert with_fair <= 5  # never more than five deals away from chance's expectation
    assert by_chance > 3 * with_fair  # plain chance wanders as a random walk does


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_the_overdue_are_likelier_not_certain_and_the_ahead_are_never_excluded(name, players):
    engine = get_engine(name)
    excess = [fair.LIMIT, -fair.LIMIT] + [0] * (players - 2)
    counts = [0] * players
    plain = [0] * players
    deals = 1200
    for seed in range(deals):
        for seat in fair.minority_seats(engine, engine.setup(players, {fair.KEY: {"excess": excess}}, seed)):
            counts[seat] += 1
        for seat in fair.minority_seats(engine, engine.setup(players, {}, seed)):
            plain[seat] += 1
    rate = [c / deals for c in counts]
    chance = sum(plain) / deals / players
    assert rate[1] > chance + 0.1 and rate[0] < chance - 0.05  # the lean goes the right way
    assert rate[0] > 0.02 and rate[1] < 0.9  # yet nobody is certain to get it or to miss it
    assert all(abs(r - chance) < 0.08 for r in rate[2:])  # the even stay near chance


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_fair_deal_is_a_function_of_the_seed_and_the_history(name, players):
    engine = get_engine(name)
    options = {fair.KEY: {"excess": [1.5, -2, 0.25] + [0] * (players - 3)}}
    first = engine.encode(engine.setup(players, options, 42))
    assert engine.encode(engine.setup(players, options, 42)) == first
    # The deal is one of the candidates: a plain deal from the seed's derived seeds, which anyone can re-run.
    plain = engine.validate_options({}, players)
    candidates = [engine.encode(engine._setup(players, plain, fair._derived(42, k))) for k in range(fair.CANDIDATES)]
    assert first in candidates
    others = {repr(engine.encode(engine.setup(players, options, seed))) for seed in range(43, 60)}
    assert len(others) > 10  # other seeds, other deals


def test_the_history_with_no_excess_still_deals_every_seat_alike():
    engine = get_engine("inside_job")
    counts = [0] * 5
    for seed in range(1000):
        for seat in fair.minority_seats(engine, engine.setup(5, {fair.KEY: {"excess": [0] * 5}}, seed)):
            counts[seat] += 1
    assert all(abs(c / 1000 - 0.4) < 0.06 for c in counts)


@pytest.mark.parametrize("bad", [[1, 2], "x", {"excess": "x"}, {"excess": [1, 2, 3, 4, "a"]},
                                 {"excess": [float("nan")] * 5}, {"excess": [True] * 5},
                                 {"excess": [0] * 5, "more": 1}])
def test_a_malformed_fair_deal_option_is_refused(bad):
    with pytest.raises(OptionError):
        get_engine("inside_job").setup(5, {fair.KEY: bad}, 1)


def test_coup_has_no_minority_role_and_deals_normally_with_the_option():
    engine = get_engine("coup")
    state = engine.setup(3, {fair.KEY: {"excess": [3, -3, 0]}}, 5)
    assert fair.minority_seats(engine, state) == set()
    assert engine.outcome(state) is None
