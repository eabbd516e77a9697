"""The ``silent_windows`` table option: challenge and block windows nobody has to answer.

With it on, nobody taps Allow: the legal actions in a window are only the challenge or the
block choices of the eligible seats, nobody is awaited, and the window closes when its own
countdown (``window_seconds``) ends, which counts as everyone allowing. With it off (the
default) everything is as before and ``countdown`` is None.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import IllegalAction, OptionError
from engines.coup import BOTS, ENGINE
from engines.simulate import play_bots

from .helpers import coins, events, play, table
from .test_properties import check_invariants, permute_hidden

TAX = {"type": "tax"}
ALLOW = {"type": "allow"}
CHALLENGE = {"type": "challenge"}
SILENT = {"silent_windows": True}
heuristic = BOTS["heuristic"]


def block(card):
    return {"type": "block", "as": card}


def three(**options):
    """Three players; seat 0 starts."""
    return table([["duke", "captain"], ["contessa", "assassin"], ["captain", "ambassador"]], **options)


def assert_silent(state, seconds=5):
    """A silent window is open: nobody awaited, no Allow anywhere, its own countdown."""
    assert ENGINE.window(state) is not None
    assert ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == seconds
    assert ENGINE.view(state, None)["silent"] is True
    assert all(ALLOW not in ENGINE.legal_actions(state, s) for s in range(state["n"]))


def test_options_default_off_with_a_five_second_countdown():
    defaults = ENGINE.default_options()
    assert defaults["silent_windows"] is False and defaults["window_seconds"] == 5
    specs = {spec["key"]: spec for spec in ENGINE.option_specs()}
    assert specs["silent_windows"]["kind"] == "bool"
    assert (specs["window_seconds"]["kind"], specs["window_seconds"]["min"], specs["window_seconds"]["max"]) == (
        "int", 2, 20)
    for bad in ({"window_seconds": 1}, {"window_seconds": 21}, {"window_seconds": True},
                {"silent_windows": 1}):
        with pytest.raises(OptionError):
            ENGINE.validate_options(bad, 3)


def test_off_windows_keep_allow_and_the_table_timer():
    state = play(three(), (0, TAX))
    assert ENGINE.awaiting(state) == {1, 2} and ENGINE.countdown(state) is None
    assert ENGINE.legal_actions(state, 1) == [CHALLENGE, ALLOW]
    assert ENGINE.view(state, 1)["silent"] is False
    state = play(state, (1, ALLOW), (2, ALLOW))
    assert coins(state)[0] == 5 and ENGINE.window(state) is None


def test_silent_challenge_window_has_no_allow_and_expiry_lets_the_claim_stand():
    state = play(three(**SILENT), (0, TAX))
    assert_silent(state)
    assert ENGINE.legal_actions(state, 1) == ENGINE.legal_actions(state, 2) == [CHALLENGE]
    assert ENGINE.legal_actions(state, 0) == []
    for seat in (0, 1, 2):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, seat, ALLOW)
    state = ENGINE.on_timeout(state)
    assert coins(state)[0] == 5 and ENGINE.window(state) is None and ENGINE.countdown(state) is None
    assert [e for e in state["log"] if e["event"] == "window_closed"][-1]["timeout"] is True
    assert ENGINE.view(state, None)["silent"] is False


def test_a_challenge_in_a_silent_window_wins_the_race_as_before():
    state = play(three(**SILENT), (0, TAX), (2, CHALLENGE))
    assert state["phase"] == "reveal" and ENGINE.window(state) is None and ENGINE.countdown(state) is None
    assert ENGINE.awaiting(state) == {0}
    state = play(state, (0, {"type": "reveal", "card": "duke"}))
    assert state["phase"] == "lose" and ENGINE.awaiting(state) == {2}


def test_silent_block_window_offers_only_the_blocks_to_the_eligible():
    state = play(three(**SILENT), (0, {"type": "foreign_aid"}))
    assert state["phase"] == "block"
    assert_silent(state)
    assert ENGINE.legal_actions(state, 1) == ENGINE.legal_actions(state, 2) == [block("duke")]
    assert ENGINE.on_timeout(state)["players"][0]["coins"] == 4


def test_steal_challenge_then_target_only_block_then_the_blocks_challenge_window():
    state = play(three(**SILENT), (0, {"type": "steal", "target": 1}))
    first = ENGINE.window(state)
    assert_silent(state)
    state = ENGINE.on_timeout(state)
    assert state["phase"] == "block" and ENGINE.window(state) != first
    assert_silent(state)
    assert ENGINE.legal_actions(state, 1) == [block("captain"), block("ambassador")]
    assert ENGINE.legal_actions(state, 2) == [] and ENGINE.legal_actions(state, 0) == []
    block_window = ENGINE.window(state)
    state = play(state, (1, block("captain")))
    assert state["phase"] == "block_challenge" and ENGINE.window(state) not in (first, block_window)
    assert_silent(state)
    assert ENGINE.legal_actions(state, 0) == ENGINE.legal_actions(state, 2) == [CHALLENGE]
    state = ENGINE.on_timeout(state)
    assert "blocked" in events(state) and coins(state) == [2, 2, 2] and state["turn"] == 1


def test_window_seconds_sets_the_countdown():
    state = play(three(silent_windows=True, window_seconds=12), (0, TAX))
    assert_silent(state, seconds=12)
    # The option alone does nothing while windows are not silent.
    state = play(three(window_seconds=12), (0, TAX))
    assert ENGINE.countdown(state) is None and ENGINE.awaiting(state) == {1, 2}


def test_no_countdown_outside_windows():
    state = three(**SILENT)
    assert ENGINE.window(state) is None and ENGINE.countdown(state) is None
    state = play(state, (0, TAX), (1, CHALLENGE))
    assert ENGINE.countdown(state) is None  # the reveal is one seat's choice


def silent_walk(players, opts, seed, let_pass=0.6):
    """Every state of one random game in silent mode: windows pass by expiry or get a random answer."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, opts, seed)
    yield state
    for _ in range(5000):
        if ENGINE.outcome(state) is not None:
            return
        movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
        if ENGINE.window(state) is not None and (not movers or rng.random() < let_pass):
            state = ENGINE.on_timeout(state)
        else:
            seat = rng.choice(movers)
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        yield state
    raise AssertionError("game did not end")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 10), inquisitor=st.booleans(),
       factions=st.booleans(), seconds=st.integers(2, 20))
def test_silent_mode_invariants_at_every_step(seed, players, inquisitor, factions, seconds):
    opts = dict(ENGINE.default_options(), inquisitor=inquisitor, factions=factions, silent_windows=True,
                window_seconds=seconds)
    for state in silent_walk(players, opts, seed):
        check_invariants(state)
        view = ENGINE.view(state, None)
        assert set(view["awaiting"]) == ENGINE.awaiting(state)
        if ENGINE.window(state) is not None:
            assert_silent(state, seconds)
            # Every eligible seat has a real choice (so the window means something for it).
            for seat in state["window"]["eligible"]:
                assert ENGINE.legal_actions(state, seat)
        else:
            assert ENGINE.countdown(state) is None and not view["silent"]
            if ENGINE.outcome(state) is None:
                assert len(ENGINE.awaiting(state)) == 1


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 6))
def test_silent_views_do_not_depend_on_what_the_seat_cannot_know(seed, players):
    opts = dict(ENGINE.default_options(), silent_windows=True, inquisitor=seed % 2 == 0)
    for index, state in enumerate(silent_walk(players, opts, seed)):
        if index % 3:
            continue
        for seat in [None, *range(players)]:
            assert ENGINE.view(permute_hidden(state, seat, seed + index), seat) == ENGINE.view(state, seat)


def test_heuristic_in_a_silent_window_challenges_blocks_or_lets_it_pass():
    # A Tax claim with all three Dukes in sight is a sure bluff: challenge.
    state = table([["captain", "captain"], ["duke", "duke"], ["duke", "assassin"]], silent_windows=True)
    state = play(state, (0, TAX))
    assert heuristic(ENGINE.view(state, 1), random.Random(1)) == CHALLENGE
    # Holding the Duke against Foreign Aid: block with it; not holding it: let it pass.
    state = table([["captain", "assassin"], ["duke", "contessa"], ["captain", "ambassador"]], **SILENT)
    state = play(state, (0, {"type": "foreign_aid"}))
    assert ENGINE.view(state, 1)["legal"] == [block("duke")]
    assert heuristic(ENGINE.view(state, 1), random.Random(1)) == block("duke")
    assert heuristic(ENGINE.view(state, 2), random.Random(1)) is None
    # Nothing worth answering: None (allow by not answering), never the unlisted "allow".
    state = play(three(**SILENT), (0, {"type": "exchange"}))
    for seat in (1, 2):
        answers = {str(heuristic(ENGINE.view(state, seat), random.Random(r))) for r in range(40)}
        assert answers <= {"None", str(CHALLENGE)} and "None" in answers


def test_heuristic_answers_are_always_listed_or_none_in_silent_games():
    for seed in range(30):
        players = 2 + seed % 9
        opts = dict(ENGINE.default_options(), silent_windows=True, inquisitor=seed % 2 == 0,
                    factions=seed % 3 == 0)
        bots = ["heuristic" if (seat + seed) % 2 else "random" for seat in range(players)]
        state, _ = play_bots(ENGINE, players, opts, seed, bots)
        assert ENGINE.outcome(state) is not None


def test_heuristic_still_beats_random_seats_with_silent_windows():
    wins = 0
    games = 120
    opts = dict(ENGINE.default_options(), silent_windows=True)
    for seed in range(games):
        hero = seed % 4
        bots = ["heuristic" if seat == hero else "random" for seat in range(4)]
        state, _ = play_bots(ENGINE, 4, opts, seed, bots)
        wins += ENGINE.outcome(state)["winners"] == [hero]
    assert wins / games > 0.4
