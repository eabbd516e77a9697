"""Undo by the table's consent (issue 45): which moves each engine lets the table take back, what taking one back
restores, and how replay reads an undo entry.

A move may be taken back only if it revealed nothing to anyone (``Engine.undoable``); an undo entry
``(None, {"type": "undo"})`` in a log returns to the state before the move it takes back, so a log with undos
replays to the same state as the log without the undone moves.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import UNDO, IllegalAction, effective_moves, own_part, undo_plan
from engines.coup import ENGINE as COUP
from engines.good_cop_bad_cop import ENGINE as GCBC
from engines.good_cop_bad_cop_health import ENGINE as HEALTH
from engines.inside_job import ENGINE as INSIDE_JOB
from engines.registry import ENGINES
from tests.engines.contract import random_step

from .coup import helpers as coup_helpers
from .coup.test_properties import permute_hidden as coup_permute
from .good_cop_bad_cop import helpers as gcbc_helpers
from .good_cop_bad_cop.test_properties import permute_hidden as gcbc_permute
from .good_cop_bad_cop_health import helpers as health_helpers
from .good_cop_bad_cop_health.test_information_sets import scramble as health_scramble
from .inside_job import helpers as ij_helpers
from .inside_job.test_information_sets import scramble as ij_scramble

UNDO_ENTRY = (None, {"type": UNDO})


def judged(engine, state, seat, action):
    """Play the move; whether the engine lets it be undone. Where it does, check that the undo (by replay, checked
    and not) gives back exactly the state before, the generator's counter included."""
    after = engine.apply(state, seat, action)
    undoable = engine.undoable(state, seat, action, after)
    if undoable:
        for replay in (engine.replay, engine.replay_checked):
            assert engine.encode(replay(state, [(seat, action), UNDO_ENTRY])) == engine.encode(state)
    else:
        with pytest.raises(IllegalAction, match="cannot be undone"):
            engine.replay_checked(state, [(seat, action), UNDO_ENTRY])
    return undoable


# ---------------------------------------------------------------- Coup

def coup_table(hands, **kw):
    """A Coup position with these hands, seat 0 to act."""
    return coup_helpers.table(hands, **kw)


THREE = [["duke", "captain"], ["contessa", "assassin"], ["ambassador", "duke"]]


def test_coup_income_may_be_undone_since_nothing_hidden_moves():
    assert judged(COUP, coup_table(THREE), 0, {"type": "income"})


def test_coup_a_claim_may_be_undone_since_a_claim_is_a_word_not_a_card():
    assert judged(COUP, coup_table(THREE), 0, {"type": "tax"})


def test_coup_an_allow_that_leaves_the_window_open_may_be_undone():
    state = COUP.apply(coup_table(THREE), 0, {"type": "tax"})
    assert judged(COUP, state, 1, {"type": "allow"})


def test_coup_a_block_may_be_undone_since_it_is_a_claim_too():
    state = COUP.apply(coup_table(THREE), 0, {"type": "foreign_aid"})
    assert judged(COUP, state, 1, {"type": "block", "as": "duke"})


def test_coup_a_challenge_may_be_undone_while_the_challenged_player_has_not_shown_a_card():
    state = COUP.apply(coup_table(THREE), 0, {"type": "tax"})
    assert judged(COUP, state, 1, {"type": "challenge"})


def test_coup_a_coup_may_be_undone_while_the_target_still_chooses_the_card_to_lose():
    state = coup_table(THREE, coins=[7, 2, 2])
    assert judged(COUP, state, 0, {"type": "coup", "target": 1})


def test_coup_a_reveal_may_not_be_undone_since_it_turns_a_card_face_up():
    state = COUP.apply(coup_table(THREE), 0, {"type": "tax"})
    state = COUP.apply(state, 1, {"type": "challenge"})
    assert not judged(COUP, state, 0, {"type": "reveal", "card": "duke"})


def test_coup_a_lost_influence_may_not_be_undone_since_the_card_is_face_up():
    state = COUP.apply(coup_table(THREE, coins=[7, 2, 2]), 0, {"type": "coup", "target": 1})
    assert not judged(COUP, state, 1, {"type": "lose", "card": "assassin"})


def test_coup_a_challenge_of_a_one_card_player_may_not_be_undone_since_it_shows_that_card():
    hands = [["duke"], ["contessa", "assassin"], ["ambassador", "duke"]]
    state = COUP.apply(coup_table(hands, lost={0: ["captain"]}), 0, {"type": "tax"})
    assert not judged(COUP, state, 1, {"type": "challenge"})


def test_coup_a_coup_on_a_last_card_may_not_be_undone_since_that_card_is_shown_and_the_game_ends():
    state = coup_table([["duke", "captain"], ["contessa"]], coins=[7, 2], lost={1: ["assassin"]})
    assert not judged(COUP, state, 0, {"type": "coup", "target": 1})


def test_coup_the_allow_that_lets_an_exchange_draw_may_not_be_undone_since_cards_were_drawn():
    state = COUP.apply(coup_table(THREE), 0, {"type": "exchange"})
    state = COUP.apply(state, 1, {"type": "allow"})
    assert not judged(COUP, state, 2, {"type": "allow"})


def test_coup_the_end_of_an_exchange_may_not_be_undone_since_the_court_was_shuffled():
    state = coup_helpers.allow_all(COUP.apply(coup_table(THREE), 0, {"type": "exchange"}))
    action = COUP.legal_actions(state, 0)[0]
    assert not judged(COUP, state, 0, action)


def test_coup_a_card_shown_to_an_examiner_may_not_be_undone_but_handing_it_back_may():
    hands = [["duke", "captain"], ["contessa", "assassin"], ["inquisitor", "duke"]]
    state = COUP.apply(coup_table(hands, inquisitor=True), 0, {"type": "examine", "target": 1})
    state = coup_helpers.allow_all(state)
    assert not judged(COUP, state, 1, {"type": "show", "card": "contessa"})
    state = COUP.apply(state, 1, {"type": "show", "card": "contessa"})
    assert judged(COUP, state, 0, {"type": "examine_decide", "swap": False})
    # A forced swap shuffles the card into the court and draws a new one.
    assert not judged(COUP, state, 0, {"type": "examine_decide", "swap": True})


# ---------------------------------------------------------------- Inside Job

def ij_table():
    """Five players, seats 1 and 3 Traitors, seat 0 leads mission 1 (a team of two)."""
    return ij_helpers.table(5, ij_helpers.plain_roles(5, [1, 3]))


def test_inside_job_a_proposal_may_be_undone_since_it_is_the_leaders_public_choice():
    assert judged(INSIDE_JOB, ij_table(), 0, {"type": "propose", "team": [0, 1]})


def test_inside_job_a_vote_may_be_undone_while_others_still_vote_since_it_stays_hidden():
    state = ij_helpers.propose(ij_table(), [0, 1])
    assert judged(INSIDE_JOB, state, 2, {"type": "vote", "approve": False})


def test_inside_job_a_mission_card_may_be_undone_while_others_still_play_since_it_stays_face_down():
    state = ij_helpers.approve_all(ij_helpers.propose(ij_table(), [0, 1]))
    assert judged(INSIDE_JOB, state, 1, {"type": "play", "card": "sabotage"})


def test_inside_job_the_vote_that_completes_the_round_may_not_be_undone_since_it_shows_the_tally():
    state = ij_helpers.propose(ij_table(), [0, 1])
    for seat in range(4):
        state = INSIDE_JOB.apply(state, seat, {"type": "vote", "approve": True})
    assert not judged(INSIDE_JOB, state, 4, {"type": "vote", "approve": True})


def test_inside_job_the_last_mission_card_may_not_be_undone_since_it_shows_the_sabotage_count():
    state = ij_helpers.approve_all(ij_helpers.propose(ij_table(), [0, 1]))
    state = INSIDE_JOB.apply(state, 1, {"type": "play", "card": "sabotage"})
    assert not judged(INSIDE_JOB, state, 0, {"type": "play", "card": "success"})


def test_inside_job_the_ladys_examination_may_not_be_undone_since_a_side_was_seen():
    state = ij_helpers.table(7, ij_helpers.plain_roles(7, [1, 3, 5]), lady_of_the_lake=True)
    state["phase"] = "lady"
    holder = state["lady"]
    target = INSIDE_JOB.legal_actions(state, holder)[0]
    assert not judged(INSIDE_JOB, state, holder, target)


def test_inside_job_the_assassins_guess_may_not_be_undone_since_it_ends_the_game():
    roles = ["merlin", "assassin", "agent", "traitor", "agent"]
    state = ij_helpers.table(5, roles, merlin=True)
    state["phase"] = "assassinate"
    assert not judged(INSIDE_JOB, state, 1, {"type": "assassinate", "target": 2})


# ---------------------------------------------------------------- Good Cop Bad Cop

def test_gcbc_arranging_ones_cards_may_be_undone_since_the_order_is_ones_own_secret():
    state = GCBC.setup(5, {"first_player": 0}, 3)
    assert judged(GCBC, state, 0, GCBC.legal_actions(state, 0)[-1])


def test_gcbc_arming_may_be_undone_before_its_reveal():
    assert judged(GCBC, gcbc_helpers.five(), 0, {"type": "arm"})


def test_gcbc_a_shoot_may_be_undone_while_its_window_is_open_since_nothing_fired():
    assert judged(GCBC, gcbc_helpers.five(guns={0: 1}), 0, {"type": "shoot"})


def test_gcbc_an_aim_and_the_end_of_a_turn_may_be_undone_since_aims_are_public_choices():
    state = gcbc_helpers.play(gcbc_helpers.five(guns={0: 1}), 0, {"type": "investigate", "target": 2, "card": 0})
    state = gcbc_helpers.expire(state)
    assert judged(GCBC, state, 0, {"type": "aim", "target": 3})
    assert judged(GCBC, state, 0, {"type": "end_turn"})


def test_gcbc_an_investigation_may_not_be_undone_since_a_card_was_seen():
    assert not judged(GCBC, gcbc_helpers.five(), 0, {"type": "investigate", "target": 2, "card": 0})


def test_gcbc_equip_may_not_be_undone_since_a_card_was_drawn():
    assert not judged(GCBC, gcbc_helpers.five(), 0, {"type": "equip"})


def test_gcbc_a_reveal_may_not_be_undone_since_the_card_is_face_up():
    state = gcbc_helpers.play(gcbc_helpers.five(), 0, {"type": "arm"})
    assert not judged(GCBC, state, 0, {"type": "reveal", "card": 1})


def test_gcbc_keeping_an_equipment_card_may_not_be_undone_since_the_other_went_under_the_deck():
    state = gcbc_helpers.play(gcbc_helpers.five(hands=[["coffee"], [], [], [], []]), 0, {"type": "equip"})
    keep = next(a for a in GCBC.legal_actions(state, 0) if a["type"] == "keep")
    assert not judged(GCBC, state, 0, keep)


# ---------------------------------------------------------------- Good Cop Bad Cop, health edition

def health_at_act(players=4):
    """Seat 0 at its act step, Good, Bad, Good, Bad."""
    state = health_helpers.at_act(health_helpers.new_game(players))
    health_helpers.set_identities(state, ["good", "bad", "good", "bad"][:players])
    return state


def test_health_keeping_a_dealt_identity_may_be_undone_since_the_other_goes_face_down():
    state = health_helpers.new_game(2)
    assert judged(HEALTH, state, 0, {"type": "keep_identity", "index": 1})


def test_health_ending_the_turn_may_be_undone():
    assert judged(HEALTH, health_at_act(), 0, {"type": "end_turn"})


def test_health_a_shot_that_eliminates_nobody_may_be_undone_since_health_is_public():
    state = health_at_act()
    gun = health_helpers.give(state, 0, "revolver_38", "in_play")
    assert judged(HEALTH, state, 0, {"type": "shoot", "gun": gun["id"], "target": 1})


def test_health_a_deck_draw_may_not_be_undone_since_a_card_was_drawn():
    state = health_helpers.new_game(4)
    assert not judged(HEALTH, state, 0, {"type": "draw", "from": "deck"})


def test_health_a_market_draw_may_not_be_undone_since_the_refill_shows_the_decks_top():
    state = health_helpers.new_game(4)
    assert not judged(HEALTH, state, 0, {"type": "draw", "from": "market", "index": 0})


def test_health_equip_may_not_be_undone_since_a_hidden_card_is_now_face_up():
    state = health_at_act()
    card = health_helpers.give(state, 0, "vest")
    assert not judged(HEALTH, state, 0, {"type": "equip", "card": card["id"]})


def test_health_an_inspection_may_not_be_undone_since_an_identity_was_seen():
    state = health_at_act()
    card = health_helpers.give(state, 0, "inspection")
    assert not judged(HEALTH, state, 0, {"type": "inspect", "card": card["id"], "target": 1})


def test_health_a_shot_that_eliminates_may_not_be_undone_since_the_identity_is_shown():
    state = health_at_act()
    state["players"][1]["health"] = 1
    gun = health_helpers.give(state, 0, "magnum_44", "in_play")
    assert not judged(HEALTH, state, 0, {"type": "shoot", "gun": gun["id"], "target": 1})


# ---------------------------------------------------------------- the undo entry in a log

def test_an_undo_takes_back_the_latest_move_in_force_and_two_undos_the_last_two():
    state = coup_table(THREE)
    moves = [(0, {"type": "tax"}), (1, {"type": "allow"}), UNDO_ENTRY, UNDO_ENTRY, (0, {"type": "income"})]
    assert undo_plan(moves)[1] == {0, 1}
    assert effective_moves(moves) == [(0, {"type": "income"})]
    expected = COUP.apply(state, 0, {"type": "income"})
    for replay in (COUP.replay, COUP.replay_checked):
        assert COUP.encode(replay(state, moves)) == COUP.encode(expected)


def test_an_undo_with_no_move_to_take_back_is_refused():
    with pytest.raises(IllegalAction, match="no move to take back"):
        COUP.replay(coup_table(THREE), [(0, {"type": "income"}), UNDO_ENTRY, UNDO_ENTRY])


def test_a_timeout_is_never_undone():
    state = COUP.apply(coup_table(THREE), 0, {"type": "tax"})
    with pytest.raises(IllegalAction, match="timeout"):
        COUP.replay(state, [(None, None), UNDO_ENTRY])


def test_an_undo_entry_may_carry_the_web_layers_record_and_a_timeout_stays_none_none():
    state = COUP.apply(coup_table(THREE), 0, {"type": "tax"})
    entry = (None, {"type": UNDO, "asked": 1, "agreed": [0, 2]})
    assert COUP.encode(COUP.replay_checked(state, [(1, {"type": "allow"}), entry])) == COUP.encode(state)
    assert effective_moves([(None, None)]) == [(None, None)]


def test_figures_from_a_log_with_undos_count_only_the_moves_in_force():
    state = ij_helpers.approve_all(ij_helpers.propose(ij_table(), [0, 1]))
    moves = [(1, {"type": "play", "card": "sabotage"}), UNDO_ENTRY, (1, {"type": "play", "card": "success"})]
    opts = INSIDE_JOB.default_options()
    with_undo = INSIDE_JOB.log_figures(state, opts, moves, 5)
    assert with_undo == INSIDE_JOB.log_figures(state, opts, effective_moves(moves), 5)
    assert with_undo[1]["sabotage_cards"] == 0


# ---------------------------------------------------------------- random play mixing undos

def hidden_variant(name, state, observer, rng):
    """A state that differs from ``state`` only in what ``observer`` (None: the board) cannot know."""
    if name == "coup":
        return coup_permute(state, observer, rng.randrange(10**6))
    if name == "inside_job":
        return ij_scramble(state, observer, rng)
    if name == "good_cop_bad_cop":
        return gcbc_permute(state, observer, rng)
    return health_scramble(state, observer, rng)


def check_reveals_nothing(engine, before, seat, action, after, rng):
    """An undoable move added nothing to any other seat's own part of its view, and taught no observer (the board,
    the mover, anyone) anything hidden: from any position that observer could not tell from ``before``, the same
    move leaves the observer's view as ``after`` does."""
    ignored = {"seat", "legal", "log", *engine.prompt_keys}
    board_before, board_after = engine.view(before, None), engine.view(after, None)
    for other in range(engine.seat_count(before)):
        if other != seat:
            own_before = own_part(engine.view(before, other), board_before, ignored)
            own_after = own_part(engine.view(after, other), board_after, ignored)
            assert all(own_before.get(key, object()) == value for key, value in own_after.items())
    for observer in [None, *range(engine.seat_count(before))]:
        variant = hidden_variant(engine.name, before, observer, rng)
        if engine.view(variant, observer) != engine.view(before, observer):
            continue  # the helper's permutation touched something public: no evidence either way
        if action not in engine.legal_actions(variant, seat):
            continue  # the mover's own secrets differ there (a Traitor's Sabotage)
        moved = engine.apply(variant, seat, action)
        if engine.outcome(moved) is not None:
            continue  # an impossible deal the permutation made (both leaders in one hand) ends at once
        assert engine.view(moved, observer) == engine.view(after, observer), (observer, seat, action)


def revealing_moves():
    """One move per game that shows something (a card face up, the tally, a card seen, an identity seen)."""
    coup = COUP.apply(COUP.apply(coup_table(THREE), 0, {"type": "tax"}), 1, {"type": "challenge"})
    vote = ij_helpers.propose(ij_table(), [0, 1])
    for seat in range(4):
        vote = INSIDE_JOB.apply(vote, seat, {"type": "vote", "approve": seat % 2 == 0})
    inspect = health_at_act()
    card = health_helpers.give(inspect, 0, "inspection")
    return [(COUP, coup, 0, {"type": "reveal", "card": "duke"}),
            (INSIDE_JOB, vote, 4, {"type": "vote", "approve": True}),
            (GCBC, gcbc_helpers.five(), 0, {"type": "investigate", "target": 2, "card": 0}),
            (HEALTH, inspect, 0, {"type": "inspect", "card": card["id"], "target": 1})]


@pytest.mark.parametrize(("engine", "state", "seat", "action"), revealing_moves(),
                         ids=lambda value: getattr(value, "name", None))
def test_the_reveals_nothing_check_catches_a_move_that_shows_something(engine, state, seat, action):
    # Guard against a vacuous property below: the same check fails on a move the engine rightly refuses.
    after = engine.apply(state, seat, action)
    assert not engine.undoable(state, seat, action, after)
    with pytest.raises(AssertionError):
        for salt in range(5):
            check_reveals_nothing(engine, state, seat, action, after, random.Random(salt))


def play_with_undos(engine, players, options, seed, steps=600):
    """Random legal play where, now and then, the table takes back the latest move in force if the engine allows it
    (several in a row at times). Returns (deal, final state, the log with its undo entries, undos made)."""
    rng = random.Random(seed)
    start = engine.setup(players, options, seed)
    state = start
    log: list = []
    in_force: list = []  # (state before, undoable) of each move still in force
    undos = 0
    for _ in range(steps):
        if engine.outcome(state) is not None:
            break
        if in_force and in_force[-1][1] and rng.random() < 0.35:
            state = in_force.pop()[0]
            log.append(UNDO_ENTRY)
            undos += 1
            continue
        after, seat, action = random_step(engine, state, players, rng)
        undoable = seat is not None and engine.undoable(state, seat, action, after)
        # What a table offers after each move (no view built) is what the whole rule allows: an offer is never
        # taken back when the mover asks (gameplay.undo.undo_ask judges the views then).
        assert undoable == (seat is not None and engine.undoable(state, seat, action, after, every_view=False))
        if undoable:
            assert after["draws"] == state["draws"]
            if rng.random() < 0.3:
                check_reveals_nothing(engine, state, seat, action, after, rng)
        in_force.append((state, undoable))
        log.append((seat, action))
        state = after
    return start, state, log, undos


def check_undos(engine, players, options, seed):
    """The final state of a game with undos is its log replayed (checked or not), and the replay of the log without
    the undone moves."""
    start, state, log, _ = play_with_undos(engine, players, options, seed)
    expected = engine.encode(state)
    assert engine.encode(engine.replay(start, log)) == expected
    assert engine.encode(engine.replay_checked(start, log)) == expected
    assert engine.encode(engine.replay_checked(start, effective_moves(log))) == expected


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 6), inquisitor=st.booleans(), factions=st.booleans())
def test_coup_random_play_with_undos_replays_to_the_same_state(seed, players, inquisitor, factions):
    check_undos(COUP, players, dict(COUP.default_options(), inquisitor=inquisitor, factions=factions), seed)


IJ_CASES = [(5, {}), (7, {"merlin": True, "percival": True, "morgana": True, "lady_of_the_lake": True}),
            (8, {"merlin": True, "mordred": True, "oberon": True})]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**9), case=st.sampled_from(IJ_CASES))
def test_inside_job_random_play_with_undos_replays_to_the_same_state(seed, case):
    players, options = case
    check_undos(INSIDE_JOB, players, dict(INSIDE_JOB.default_options(), **options), seed)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(4, 8), bribe=st.booleans())
def test_gcbc_random_play_with_undos_replays_to_the_same_state(seed, players, bribe):
    check_undos(GCBC, players, dict(GCBC.default_options(), bribe=bribe), seed)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 8))
def test_health_random_play_with_undos_replays_to_the_same_state(seed, players):
    check_undos(HEALTH, players, HEALTH.default_options(), seed)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_random_play_takes_moves_back_in_every_game(name):
    engine = ENGINES[name]
    total = 0
    for seed in range(3):
        _, _, _, undos = play_with_undos(engine, engine.min_players + 1, engine.default_options(), seed)
        total += undos
    assert total > 5
