"""The heuristic bot: always legal, reads only its view, and beats random play."""

from __future__ import annotations

import random

from engines.bots import random_bot
from engines.inside_job import BOTS, ENGINE
from engines.inside_job.cards import side_of

heuristic = BOTS["heuristic"]
ALL_ROLES = {"merlin": True, "percival": True, "morgana": True, "mordred": True, "oberon": True,
             "lady_of_the_lake": True}


def play(players: int, options: dict, seed: int, agents_bot, traitors_bot) -> str:
    """One whole game with one policy per side; returns the winning side."""
    state = ENGINE.setup(players, options, seed)
    rng = random.Random(seed)
    while ENGINE.outcome(state) is None:
        seat = rng.choice(sorted(ENGINE.awaiting(state)))
        view = ENGINE.view(state, seat)
        bot = agents_bot if side_of(state["roles"][seat]) == "agents" else traitors_bot
        action = bot(view, rng)
        assert action in view["legal"], (action, view["phase"])
        state = ENGINE.apply(state, seat, action)
    return ENGINE.outcome(state)["side"]


def test_heuristic_bots_only_make_legal_moves_with_every_option():
    for seed in range(80):
        players = 5 + seed % 6
        options = ALL_ROLES if players == 10 else ({"merlin": True} if seed % 2 else {})
        if players >= 7 and seed % 3 == 0:
            options = {**options, "lady_of_the_lake": True}
        play(players, options, seed, heuristic, heuristic)


def test_heuristic_reads_only_the_view_it_is_given():
    state = ENGINE.setup(7, {"merlin": True}, 11)
    view = ENGINE.view(state, state["leader"])
    before = repr(view)
    heuristic(view, random.Random(1))
    assert repr(view) == before


def win_rate(side: str, agents_bot, traitors_bot, games: int, options: dict) -> float:
    """How often ``side`` wins over seeded games at 5-10 players."""
    wins = sum(play(5 + s % 6, options, s, agents_bot, traitors_bot) == side for s in range(games))
    return wins / games


def test_heuristic_agents_beat_random_agents_against_random_traitors():
    games = 80
    heuristic_rate = win_rate("agents", heuristic, random_bot, games, {})
    random_rate = win_rate("agents", random_bot, random_bot, games, {})
    print(f"agents win: heuristic {heuristic_rate:.2f}, random {random_rate:.2f}")
    assert heuristic_rate > random_rate + 0.1


def test_heuristic_traitors_beat_random_traitors_against_random_agents():
    games = 80
    heuristic_rate = win_rate("traitors", random_bot, heuristic, games, {"merlin": True})
    random_rate = win_rate("traitors", random_bot, random_bot, games, {"merlin": True})
    print(f"traitors win: heuristic {heuristic_rate:.2f}, random {random_rate:.2f}")
    assert heuristic_rate > random_rate + 0.2
