"""One contract test over every registered engine: random play, determinism, JSON, refusals."""

from __future__ import annotations

import ast
import json
import pathlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.base import IllegalAction, clone
from engines.registry import ENGINES, get_engine
from tests.engines.contract import assert_view_ok, play_random, replay

ENGINE_NAMES = sorted(ENGINES)


def player_counts(engine):
    return range(engine.min_players, engine.max_players + 1)


def test_all_four_games_are_registered():
    assert ENGINE_NAMES == ["coup", "good_cop_bad_cop", "good_cop_bad_cop_health", "inside_job"]


def test_unknown_engine_is_a_key_error():
    with pytest.raises(KeyError):
        get_engine("chess")


def test_engines_import_no_django():
    root = pathlib.Path(__file__).resolve().parents[2] / "engines"
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith("django"), f"{path} imports {name}"


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_random_games_end_replay_and_round_trip(name):
    engine = get_engine(name)
    for options, players in [(o, p) for o in option_variants(engine) for p in player_counts(engine)]:
        for seed in (1, 2):
            state, moves = play_random(engine, players, options, seed * 1000 + players)
            outcome = engine.outcome(state)
            assert outcome is not None and isinstance(outcome["winners"], list)
            again = replay(engine, players, options, seed * 1000 + players, moves)
            assert engine.encode(again) == engine.encode(state)
            assert json.loads(json.dumps(engine.encode(state))) == engine.encode(state)  # JSON's types alone
            decoded = engine.decode(json.loads(json.dumps(engine.encode(state))))
            assert engine.outcome(decoded) == outcome
            for seat in [None, *range(players)]:
                assert_view_ok(engine, state, seat)


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_views_legal_and_json_round_trip_during_play(name):
    engine = get_engine(name)
    players = engine.min_players + 1
    state = engine.setup(players, engine.default_options(), 77)
    rng = random.Random(77)
    for _ in range(60):
        if engine.outcome(state) is not None:
            break
        encoded = engine.encode(state)
        assert json.loads(json.dumps(encoded)) == encoded, "a state holds more than JSON's own types"
        assert encoded is not state and encoded == state
        decoded = engine.decode(json.loads(json.dumps(encoded)))
        for seat in [None, *range(players)]:
            assert engine.view(decoded, seat) == assert_view_ok(engine, state, seat)
        assert engine.awaiting(state) == set(engine.view(state, None)["awaiting"])
        assert_countdown_ok(engine, state)
        movers = [s for s in range(players) if engine.legal_actions(state, s)]
        if not movers:
            state = engine.on_timeout(state)
            continue
        seat = rng.choice(movers)
        before = engine.encode(state)
        state2 = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        assert engine.encode(state) == before, "apply mutated its input"
        state = state2


def option_variants(engine) -> list[dict]:
    """The default options, plus silent windows where the game makes them a table option."""
    variants = [engine.default_options()]
    if any(spec["key"] == "silent_windows" for spec in engine.option_specs()):
        variants.append(dict(engine.default_options(), silent_windows=True))
    return variants


def assert_countdown_ok(engine, state) -> int | None:
    """``countdown`` is None without a window, else None or a positive int; a silent window awaits nobody."""
    window = engine.window(state)
    seconds = engine.countdown(state)
    if window is None:
        assert seconds is None, f"countdown {seconds!r} without a window"
    else:
        assert seconds is None or (type(seconds) is int and seconds > 0), f"bad countdown {seconds!r}"
    if seconds is not None:
        # A silent window: nobody must answer; it closes by on_timeout when the countdown ends.
        assert engine.awaiting(state) == set() and engine.view(state, None)["awaiting"] == []
    return seconds


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_countdown_is_a_positive_int_or_none_and_only_with_a_window(name):
    engine = get_engine(name)
    for options in option_variants(engine):
        for players in player_counts(engine):
            rng = random.Random(players)
            state = engine.setup(players, options, 300 + players)
            for _ in range(3000):
                assert_countdown_ok(engine, state)
                if engine.outcome(state) is not None:
                    break
                movers = [s for s in range(players) if engine.legal_actions(state, s)]
                # Windows sometimes expire with moves available (a silent window is let pass).
                if engine.window(state) is not None and (not movers or rng.random() < 0.3):
                    state = engine.on_timeout(state)
                    continue
                seat = rng.choice(movers)
                state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
            else:
                raise AssertionError(f"{name}: a random game with {players} players did not end")
            assert engine.countdown(state) is None


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_illegal_and_malformed_actions_are_refused_without_change(name):
    engine = get_engine(name)
    players = engine.min_players
    state = engine.setup(players, engine.default_options(), 5)
    before = engine.encode(state)
    idle = [s for s in range(players) if not engine.legal_actions(state, s)]
    bad = [{"type": "no_such_move"}, {}, {"type": 3}, "tax", None, {"type": "vote"}]
    for seat in range(players):
        for action in bad:
            with pytest.raises(IllegalAction):
                engine.apply(state, seat, action)
    for seat in idle:
        for action in engine.legal_actions(state, next(s for s in range(players) if s not in idle)):
            with pytest.raises(IllegalAction):
                engine.apply(state, seat, action)
    assert engine.encode(state) == before


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_same_seed_same_game_and_other_seed_other_deal(name):
    engine = get_engine(name)
    players = engine.max_players
    a = engine.setup(players, engine.default_options(), 42)
    b = engine.setup(players, engine.default_options(), 42)
    assert engine.encode(a) == engine.encode(b)
    deals = {json.dumps(engine.encode(engine.setup(players, engine.default_options(), s)),
                        sort_keys=True) for s in range(5)}
    assert len(deals) > 1


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_default_options_validate_and_player_counts_are_checked(name):
    from engines.base import OptionError

    engine = get_engine(name)
    assert engine.validate_options({}, None) == engine.default_options()
    with pytest.raises(OptionError):
        engine.setup(engine.max_players + 1, engine.default_options(), 1)
    with pytest.raises(OptionError):
        engine.validate_options({"no_such_option": True}, None)


def _reads(engine, state, players: int) -> None:
    """Everything the web layer asks of a state between moves."""
    engine.outcome(state)
    engine.window(state)
    engine.countdown(state)
    engine.awaiting(state)
    engine.encode(state)
    for seat in [None, *range(players)]:
        view = engine.view(state, seat)
        json.dumps(view)
    for seat in range(players):
        engine.legal_actions(state, seat)


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_fast_replay_equals_apply_and_reads_never_change_a_state(name):
    """``engine.replay`` (the log's fast fold) gives ``apply``'s state after every prefix of a log,
    leaves its input alone; and reading a state never changes it, so a snapshot is decoded
    without a copy (``decode`` shares the stored JSON)."""
    engine = get_engine(name)
    for options in option_variants(engine):
        for players in (engine.min_players, engine.max_players):
            seed = 77 + players
            _, moves = play_random(engine, players, options, seed)
            start = engine.setup(players, options, seed)
            before = json.dumps(start, sort_keys=True)
            state = start
            for n, (seat, action) in enumerate(moves, start=1):
                state = engine.on_timeout(state) if seat is None else engine.apply(state, seat, action)
                if n % 7 == 0 or n == len(moves):
                    text = json.dumps(state, sort_keys=True)
                    _reads(engine, state, players)
                    assert json.dumps(state, sort_keys=True) == text, "a read changed the state"
                    fast = engine.replay(start, moves[:n])
                    assert json.dumps(fast, sort_keys=True) == text
            assert json.dumps(start, sort_keys=True) == before, "replay changed its input"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=30)


def _containers(value) -> list:
    found = [value] if isinstance(value, (dict, list)) else []
    for item in (value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()):
        found += _containers(item)
    return found


@given(_JSON)
def test_clone_copies_every_container_and_keeps_every_value(value):
    """A view's copy of a log entry (``engines.base.clone``): equal, of the same types, and sharing no dict or list
    with what it copied, so a reader of the view never reaches the state."""
    copied = clone(value)
    assert copied == value and repr(copied) == repr(value)
    assert not {id(c) for c in _containers(copied)} & {id(c) for c in _containers(value)}
