"""Fuzzing every engine's ``apply`` with mutated actions and mutated seats.

The hardening rule (engines/README.md): an action is legal only if it is *exactly* one of
``legal_actions(state, seat)`` (equal canonical JSON: ``1.0`` or ``true`` never pass for
``1``; a missing or extra key is another action). Everything else raises ``IllegalAction``
(never another exception) and changes nothing: not the input state, not the caller's action.

Random games (seeded ``random.Random``, never the clock) reach many states, timer expiries
included; at each sampled state the awaited seats and a few idle ones are handed thousands
of mutants from ``tests.fuzzing`` in total. Failures are collected and reported together,
each with the engine, player count, seed, step, seat, mutation label and the input.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.base import IllegalAction, canonical, find_legal
from engines.registry import ENGINES, get_engine
from tests.fuzzing import action_mutants, bad_seats, chain_intact, fingerprint, short

ENGINE_NAMES = sorted(ENGINES)
SEEDS = (101, 202, 303)
STATES_PER_GAME = 14  # sampled states per random game (the final state included)
MUTANTS_PER_SEAT = 12  # mutants tried per seat at each sampled state
MAX_REPORTED = 25


def player_counts(engine) -> list[int]:
    """The smallest, the largest and one table size between."""
    return sorted({engine.min_players, (engine.min_players + engine.max_players) // 2, engine.max_players})


def walk(engine, players: int, seed: int, *, timeouts: float = 0.2):
    """Yield ``(step, state)`` along one random game: random legal moves, and expiries of open windows."""
    rng = random.Random(seed)
    state = engine.setup(players, engine.default_options(), seed)
    for step in range(5000):
        yield step, state
        if engine.outcome(state) is not None:
            return
        movers = [s for s in range(players) if engine.legal_actions(state, s)]
        if engine.window(state) is not None and (not movers or rng.random() < timeouts):
            state = engine.on_timeout(state)
        else:
            seat = rng.choice(movers)
            state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    raise AssertionError(f"{engine.name}: random game {seed} did not end")


def sampled_states(engine, players: int, seed: int) -> list[tuple[int, dict]]:
    """About ``STATES_PER_GAME`` states spread over one random game, always including the end."""
    states = list(walk(engine, players, seed))
    stride = max(1, len(states) // STATES_PER_GAME)
    picked = states[::stride][:STATES_PER_GAME - 1]
    return [*picked, states[-1]]


def snapshot(engine, state) -> str:
    """The canonical text of a state's encoding (what "unchanged" is compared on)."""
    return canonical(engine.encode(state))


class Checker:
    """Applies one input, checks the property, and keeps count and a list of failures."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.tried = 0
        self.accepted = 0
        self.failures: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.failures.append(f"{where}: {message}")

    def check(self, where: str, state, before: str, seat, action, legal_texts: set[str]) -> None:
        """``action`` from ``seat``: accepted iff exactly listed; otherwise IllegalAction; nothing changed.

        ``before`` is ``canonical(state)`` taken before the first input at this state (the
        state's own JSON: cheaper than ``encode`` per input; ``fuzz_state`` also compares
        ``encode`` once per state).
        """
        engine = self.engine
        self.tried += 1
        shape = fingerprint(action)
        text = canonical(action)
        expected_legal = text is not None and text in legal_texts
        try:
            result = engine.apply(state, seat, action)
        except IllegalAction:
            if expected_legal:
                self.fail(where, f"exactly legal {short(action)} was refused")
        except Exception as error:  # the property under test: no other exception, ever
            self.fail(where, f"{type(error).__name__}: {short(str(error))} for {short(action)}")
        else:
            if not expected_legal:
                self.fail(where, f"accepted an action that is not exactly listed: {short(action)}")
            else:
                self.accepted += 1
                self.check_accepted(where, state, seat, action, result)
        if fingerprint(action) != shape:
            self.fail(where, f"apply mutated the caller's action {short(action)}")
        if canonical(state) != before:
            self.fail(where, f"apply changed its input state (action {short(action)})")

    def check_accepted(self, where: str, state, seat, action, result) -> None:
        """An accepted mutant plays exactly the listed action and keeps no reference to the caller's object."""
        engine = self.engine
        listed = find_legal(action, engine.legal_actions(state, seat))
        expected = snapshot(engine, engine.apply(state, seat, copy.deepcopy(listed)))
        got = snapshot(engine, result)
        if got != expected:
            self.fail(where, f"{short(action)} did not play the same move as the listed {listed}")
        caller = {entry[1] for entry in fingerprint(action) if entry[0] != "atom"}
        shared = caller & {entry[1] for entry in fingerprint(result) if entry[0] != "atom"}
        if shared:
            self.fail(where, f"the new state holds the caller's own list or dict from {short(action)}")

    def report(self) -> str:
        head = f"{len(self.failures)} failures in {self.tried} inputs; first {MAX_REPORTED}:\n"
        return head + "\n".join(self.failures[:MAX_REPORTED])


def fuzz_state(checker: Checker, rng: random.Random, where: str, state, players: int) -> None:
    """Mutants at one state, from every awaited seat and up to two idle seats."""
    engine = checker.engine
    encoded, before = snapshot(engine, state), canonical(state)
    legal = {seat: engine.legal_actions(state, seat) for seat in range(players)}
    any_legal = [action for actions in legal.values() for action in actions]
    awaited = sorted(engine.awaiting(state))
    idle = [seat for seat in range(players) if seat not in awaited]
    for seat in awaited + rng.sample(idle, min(2, len(idle))):
        texts = {canonical(action) for action in legal[seat]}
        # Mutate this seat's own legal actions, else (an idle seat forging) someone else's.
        pool = legal[seat] or any_legal or [{"type": "pass"}]
        mutants = []
        for base in rng.sample(pool, min(3, len(pool))):
            mutants += [(label, base, m) for label, m in action_mutants(base, pool)]
        chosen = rng.sample(mutants, min(MUTANTS_PER_SEAT, len(mutants)))
        if legal[seat]:
            chosen.append(("unmutated", None, copy.deepcopy(rng.choice(legal[seat]))))  # the control: must be accepted
        for label, base, mutant in chosen:
            checker.check(f"{where} seat {seat} [{label}] from {base}", state, before, seat, mutant, texts)
    if snapshot(engine, state) != encoded:
        checker.fail(where, "the state's encoding changed while it was fuzzed")


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_mutated_actions_are_refused_or_exactly_legal(name):
    """Thousands of mutants per engine: IllegalAction or the exact listed move; input state and action untouched."""
    engine = get_engine(name)
    checker = Checker(engine)
    for players in player_counts(engine):
        for seed in SEEDS:
            rng = random.Random(f"{name}/{players}/{seed}")
            for step, state in sampled_states(engine, players, seed):
                fuzz_state(checker, rng, f"{name} players={players} seed={seed} step={step}", state, players)
    assert not checker.failures, checker.report()
    assert chain_intact(), "an engine changed the very deep list it was given"
    assert checker.tried >= 2000, f"only {checker.tried} mutants tried"
    assert checker.accepted > 0, "no control move was accepted: the test exercises nothing"


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_on_timeout_refuses_when_no_window_and_never_mutates(name):
    """``on_timeout`` without an open window raises IllegalAction; with one it returns a new state; input untouched."""
    engine = get_engine(name)
    failures = []
    for players in player_counts(engine):
        for step, state in sampled_states(engine, players, SEEDS[0]):
            before = snapshot(engine, state)
            where = f"{name} players={players} step={step} window={engine.window(state)!r}"
            try:
                engine.on_timeout(state)
            except IllegalAction:
                if engine.window(state) is not None and engine.outcome(state) is None:
                    failures.append(f"{where}: an open window refused to expire")
            except Exception as error:
                failures.append(f"{where}: {type(error).__name__}: {error}")
            else:
                if engine.window(state) is None:
                    failures.append(f"{where}: expired a window that is not open")
            if snapshot(engine, state) != before:
                failures.append(f"{where}: on_timeout changed its input")
    assert not failures, "\n".join(failures[:MAX_REPORTED])


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_seats_that_name_no_seat_are_refused(name):
    """Seat -1, n, n+1, True/False, None, floats, strings and huge ints: IllegalAction and nothing changed.

    The web layer only passes seat indexes from the database, so this guards the engine
    contract itself (bots, simulations and any future caller): a bad seat must never act as
    another seat (``-1`` as the last one, ``True`` as seat 1) nor crash with IndexError/TypeError.
    """
    engine = get_engine(name)
    checker = Checker(engine)
    for players in player_counts(engine):
        rng = random.Random(f"seats/{name}/{players}")
        for step, state in sampled_states(engine, players, SEEDS[1]):
            before = canonical(state)
            actions = [a for s in range(players) for a in engine.legal_actions(state, s)]
            for action in rng.sample(actions, min(4, len(actions))):
                for label, seat in bad_seats(players):
                    checker.check(f"{name} players={players} step={step} seat={label}", state, before, seat, action,
                                  set())
    assert not checker.failures, checker.report()


# -- hypothesis: arbitrary JSON values as actions --------------------------------------------------

JSON_SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(-3, 12)
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def probe_states(engine) -> list[tuple[dict, int]]:
    """A handful of states of a mid-sized game, each with its number of seats."""
    players = player_counts(engine)[1]
    return [(state, players) for _, state in sampled_states(engine, players, SEEDS[2])]


PROBES = {name: probe_states(get_engine(name)) for name in ENGINE_NAMES}


@st.composite
def near_actions(draw, legal: list[dict]):
    """JSON that looks like this state's actions: a listed action with keys replaced, dropped or added."""
    if not legal:
        return draw(JSON_VALUES)
    action = dict(draw(st.sampled_from(legal)))
    for key in draw(st.lists(st.sampled_from(sorted(action)), max_size=2, unique=True)):
        if draw(st.booleans()):
            action[key] = draw(JSON_VALUES)
        else:
            del action[key]
    if draw(st.booleans()):
        action[draw(st.text(max_size=6))] = draw(JSON_VALUES)
    return action


@pytest.mark.parametrize("name", ENGINE_NAMES)
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_arbitrary_json_is_illegal_or_exactly_listed(name, data):
    """Any JSON value (or a near miss of a listed action) from any seat: IllegalAction or the exact listed move."""
    engine = get_engine(name)
    state, players = data.draw(st.sampled_from(PROBES[name]), label="state")
    seat = data.draw(st.integers(0, players - 1), label="seat")
    legal = engine.legal_actions(state, seat)
    action = data.draw(JSON_VALUES | near_actions(legal), label="action")
    checker = Checker(engine)
    checker.check(f"{name} seat {seat}", state, canonical(state), seat, action,
                  {canonical(a) for a in legal})
    assert not checker.failures, checker.report()


def test_mutation_catalogue_covers_the_issue():
    """The mutants include every kind the hardening issue names (so a trimmed catalogue fails loudly)."""
    labels = {label.split(":")[-1] for label, _ in action_mutants({"type": "steal", "target": 1, "team": [0, 2],
                                                                   "approve": True, "card": "duke"})}
    for needed in ("int_as_float", "int_as_true", "bool_as_int", "int_as_str", "none", "huge_int_0", "huge_int_1",
                   "int_negative", "wrapped_in_list", "deep_list", "deep_dict", "nan", "inf", "unicode", "extra_key",
                   "in_list", "zero", "list_items_float", "very_deep_list"):
        assert needed in labels, needed
    assert any(label.startswith("missing:") for label, _ in action_mutants({"type": "tax"}))
    assert json.loads(canonical({"b": 1, "a": [1.5]})) == {"a": [1.5], "b": 1}
