"""Information-set checks: scrambling what a seat cannot know leaves its view unchanged."""

from __future__ import annotations

import copy
import random

import pytest

from engines.good_cop_bad_cop_health import ENGINE

from .helpers import game_states


def scramble(state, seat, rng):
    """A copy where every secret hidden from ``seat`` (None: the board) is shuffled."""
    new = copy.deepcopy(state)
    others = [s for s, p in enumerate(new["players"]) if s != seat]
    living = [s for s in others if new["players"][s]["alive"]]
    pool = [new["players"][s]["identity"] for s in living] + new["identity_pile"]
    pool = rng.sample(pool, len(pool))
    for s in living:
        new["players"][s]["identity"] = pool.pop()
    new["identity_pile"] = pool
    cards = [c for s in others for c in new["players"][s]["hand"]]
    rng.shuffle(cards)
    for s in others:
        player = new["players"][s]
        player["hand"] = []
        player["previous"] = rng.choice([None, "good", "bad"])
        player["learned"] = [rng.choice([None, "good", "bad"]) for _ in player["learned"]]
        if player["choices"] is not None:
            player["choices"] = [rng.choice(["good", "bad"]), rng.choice(["good", "bad"])]
    for card in cards:
        new["players"][rng.choice(others)]["hand"].append(card)
    rng.shuffle(new["deck"])
    rng.shuffle(new["discard"])
    for entry in new["log"]:
        if entry.get("private") and entry.get("to") != seat:
            for key in ("kind", "identity", "old"):
                if key in entry:
                    entry[key] = "scrambled"
    new["seed"] += 1
    return new


@pytest.mark.parametrize("players", [2, 3, 4, 6, 8])
def test_seat_views_ignore_what_the_seat_cannot_know(players):
    rng = random.Random(players)
    for seed in range(3):
        for state in game_states(players, seed, every=7, final=False):
            for seat in range(players):
                for _ in range(2):
                    assert ENGINE.view(scramble(state, seat, rng), seat) == ENGINE.view(state, seat)


@pytest.mark.parametrize("players", [2, 3, 4, 6, 8])
def test_board_view_ignores_every_secret(players):
    rng = random.Random(players)
    for seed in range(3):
        for state in game_states(players, seed, every=7, final=False):
            for _ in range(3):
                assert ENGINE.view(scramble(state, None, rng), None) == ENGINE.view(state, None)


def test_scramble_does_change_what_it_should():
    state = next(s for i, s in enumerate(game_states(6, 1, every=7, final=False)) if i == 3)
    rng = random.Random(0)
    views = {str(ENGINE.view(scramble(state, 0, rng), 1)) for _ in range(10)}
    assert len(views) > 1, "the check would catch a leak of another seat's secrets"
