"""The end of a turn: no End turn tap when there is nothing to decide (rules version 2), the rules version
a game is dealt under, and games recorded before versions existed replaying as they were played."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from engines.base import IllegalAction, OptionError
from engines.good_cop_bad_cop import ENGINE, table
from engines.good_cop_bad_cop.cards import RULES_VERSION
from tests.engines.good_cop_bad_cop.helpers import expire, five, phase, play

OLD_GAME = json.loads((Path(__file__).parent / "old_flow_game.json").read_text())


def test_a_seat_with_no_gun_ends_its_turn_with_its_action_and_no_end_turn_tap():
    state = five()
    state = play(state, 0, {"type": "investigate", "target": 2, "card": 1})
    state = expire(state)
    # Straight to the end window: nobody is awaited, seat 0 has nothing to tap.
    assert ENGINE.view(state, None)["pending"] == {"kind": "window", "seat": 0, "when": "end"}
    assert ENGINE.awaiting(state) == set() and ENGINE.legal_actions(state, 0) == []
    state = expire(state)
    assert state["turn"] == 1 and phase(state) == "action"


def test_a_seat_with_no_gun_that_equips_is_asked_only_what_to_keep_and_reveal():
    state = five(deck=["coffee"])
    state = play(state, 0, {"type": "equip"})
    state = play(state, 0, {"type": "keep", "card": "coffee"})
    state = play(state, 0, {"type": "reveal", "card": 1})
    # The reveal was its last decision: the end window opens, its Coffee playable there.
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and ENGINE.awaiting(state) == set()
    assert ENGINE.legal_actions(state, 0) == [{"type": "play", "card": "coffee"}]


def test_a_shot_that_spends_the_gun_ends_the_turn_when_its_window_closes():
    state = five(guns={0: 3})
    state = expire(play(state, 0, {"type": "shoot"}))
    assert not state["players"][3]["alive"] and not state["players"][0]["gun"]
    assert ENGINE.view(state, None)["pending"]["when"] == "end"
    assert {"type": "end_turn"} not in ENGINE.legal_actions(state, 0)


def test_a_seat_that_must_aim_gets_its_aim_choice():
    state = play(five(), 0, {"type": "arm"})
    state = play(state, 0, {"type": "reveal", "card": 2})
    assert phase(state) == "aim" and ENGINE.awaiting(state) == {0}
    assert [a for a in ENGINE.legal_actions(state, 0) if a["type"] in ("aim", "end_turn")] == [
        {"type": "aim", "target": t} for t in (1, 2, 3, 4)]
    state = play(state, 0, {"type": "aim", "target": 3})
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and state["players"][0]["aim"] == 3


def test_a_gun_holder_may_still_keep_its_aim_or_change_it():
    state = expire(play(five(guns={0: 1}), 0, {"type": "investigate", "target": 2, "card": 0}))
    assert phase(state) == "aim"
    moves = ENGINE.legal_actions(state, 0)
    assert {"type": "end_turn"} in moves and {"type": "aim", "target": 4} in moves


def test_a_gun_with_one_player_left_to_aim_at_points_at_them_without_an_aim_step():
    state = five(guns={0: 2})  # aimed at a player about to be gone
    for seat in (2, 3, 4):
        state["players"][seat]["alive"] = False
    state = expire(play(state, 0, {"type": "investigate", "target": 1, "card": 1}))
    assert ENGINE.view(state, None)["pending"]["when"] == "end" and state["players"][0]["aim"] == 1
    assert ENGINE.view(state, None)["log"][-1] == {"event": "aim", "seat": 0, "target": 1}
    # Already aimed at the one left: no step, and no new aim in the log.
    state = five(guns={0: 1})
    for seat in (2, 3, 4):
        state["players"][seat]["alive"] = False
    state = expire(play(state, 0, {"type": "investigate", "target": 1, "card": 1}))
    assert ENGINE.view(state, None)["pending"]["when"] == "end"
    assert not [e for e in state["log"] if e["event"] == "aim"]


def test_rules_version_1_keeps_the_end_turn_tap():
    state = five(version=1)
    state = expire(play(state, 0, {"type": "investigate", "target": 2, "card": 1}))
    assert phase(state) == "aim" and ENGINE.legal_actions(state, 0) == [{"type": "end_turn"}]
    state = play(state, 0, {"type": "end_turn"})
    assert ENGINE.view(state, None)["pending"]["when"] == "end"


def test_whether_the_aim_step_comes_depends_on_public_facts_only():
    # Two tables alike but for what seat 0 holds: the same step follows the same action.
    for guns in ({}, {0: 1}):
        steps = set()
        for hand in ([], ["coffee"], ["report_audit"], ["truth_serum"]):
            state = five(hands=[hand, [], [], [], []], guns=guns)
            state = expire(play(state, 0, {"type": "investigate", "target": 2, "card": 1}))
            steps.add(json.dumps([ENGINE.view(state, None), ENGINE.view(state, 3)], sort_keys=True))
        assert len(steps) == 1


def test_a_new_deal_plays_the_current_rules_version_and_a_table_holds_none():
    assert RULES_VERSION == 3
    assert not any(spec["key"] == "rules_version" for spec in ENGINE.option_specs())  # not a host's setting
    assert ENGINE.validate_options({}, 5)["rules_version"] == RULES_VERSION
    assert ENGINE.setup(5, {}, 3)["options"]["rules_version"] == RULES_VERSION
    assert ENGINE.setup(5, ENGINE.default_options(), 3)["options"]["rules_version"] == RULES_VERSION
    # A table's settings (no player count yet) hold no version: a saved table never keeps a game to old rules.
    assert ENGINE.validate_options({"rules_version": 1, "bribe": True}, None) == {
        "first_player": None, "bribe": True, "window_seconds": 4}


def test_a_deal_plays_the_version_its_options_name_and_refuses_an_unknown_one():
    assert ENGINE.validate_options({"rules_version": 1}, 5)["rules_version"] == 1
    state = ENGINE.setup(5, {"rules_version": 1}, 3)
    # A version-1 state names no version, as the states saved before versions (their snapshots) do.
    assert "rules_version" not in state["options"] and table.rules_version(state) == 1
    for bad in (0, 4, "2", True, 2.0, None):
        with pytest.raises(OptionError):
            ENGINE.setup(5, {"rules_version": bad}, 3)


def test_a_state_naming_no_version_keeps_the_aim_step():
    # A running game's snapshot from before versions: its next turns keep the End turn tap.
    state = five()
    del state["options"]["rules_version"]
    state = expire(play(state, 0, {"type": "investigate", "target": 2, "card": 1}))
    assert phase(state) == "aim" and ENGINE.legal_actions(state, 0) == [{"type": "end_turn"}]


def test_a_game_recorded_before_versions_replays_to_the_same_state_and_outcome():
    players, seed, moves = OLD_GAME["players"], OLD_GAME["seed"], OLD_GAME["moves"]
    # Stored without a version; the data migration names version 1 (gameplay/migrations/0011).
    assert "rules_version" not in OLD_GAME["options"]
    options = {**OLD_GAME["options"], "rules_version": 1}
    moves = [(seat, action) for seat, action in moves]
    # The recording holds the old flow: End turn tapped by seats holding no gun.
    state = ENGINE.setup(players, options, seed)
    gunless_end_turns = 0
    for seat, action in moves:
        if action is not None and action["type"] == "end_turn" and not state["players"][seat]["gun"]:
            gunless_end_turns += 1
        state = ENGINE.on_timeout(state) if seat is None else ENGINE.apply(state, seat, action)
    assert gunless_end_turns > 0
    for replayed in (ENGINE.replay(ENGINE.setup(players, options, seed), moves),
                     ENGINE.replay_checked(ENGINE.setup(players, options, seed), moves)):
        text = json.dumps(ENGINE.encode(replayed), sort_keys=True, separators=(",", ":"))
        assert hashlib.sha256(text.encode()).hexdigest() == OLD_GAME["state_sha256"]
        assert json.loads(json.dumps(ENGINE.outcome(replayed))) == OLD_GAME["outcome"]


def test_the_old_recording_does_not_replay_under_the_current_rules():
    # So naming version 1 is what keeps it replaying (options naming none are a new deal's).
    state = ENGINE.setup(OLD_GAME["players"], OLD_GAME["options"], OLD_GAME["seed"])
    with pytest.raises(IllegalAction, match="end_turn"):
        ENGINE.replay_checked(state, [(seat, action) for seat, action in OLD_GAME["moves"]])
