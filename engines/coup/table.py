"""The table: setup of a match, dealing a round, who is alive, the Factions restriction, round ends."""

from __future__ import annotations

from engines.base import state_rng

from .cards import MONARCHIST, POPULIST, WINDOW_PHASES, build_court


def new_state(players: int, options: dict, seed: int) -> dict:
    """A fresh match: the first round dealt, the match standings at zero."""
    state = {
        "seed": seed,
        "draws": 0,
        "options": dict(options),
        "n": players,
        "players": [],
        "deck": [],
        "almshouse": 0,
        "turn": 0,
        "phase": "action",
        "pending": None,
        "window": None,
        "window_count": 0,
        "losers": [],
        "after": None,
        "log": [],
        "match": {"target": options.get("rounds_to_win", 1), "wins": [0] * players, "round": 1},
        "result": None,
    }
    first = options.get("first_player")
    if first is None:
        rng = state_rng(state)
        first = rng.randbelow(players)
        state["draws"] = rng.counter
    deal_round(state, first)
    return state


def deal_round(state: dict, first: int) -> None:
    """Shuffle a full court, deal two cards and the starting coins, assign factions."""
    opts = state["options"]
    n = state["n"]
    rng = state_rng(state)
    deck = rng.shuffle(build_court(n, opts["inquisitor"]))
    state["draws"] = rng.counter
    players = []
    for seat in range(n):
        coins = 2
        if n == 2:
            # The seed gives each player 1 coin; the published head-to-head rule 1 and 2.
            coins = 1 if opts["two_player_start"] == "seed" or seat == first else 2
        players.append({"hand": [deck.pop(), deck.pop()], "lost": [], "coins": coins,
                        "faction": None, "drawn": []})
    if opts["factions"]:
        # Decision: allegiances alternate around the table from the first player.
        for i in range(n):
            players[(first + i) % n]["faction"] = MONARCHIST if i % 2 == 0 else POPULIST
    state.update(players=players, deck=deck, almshouse=0, turn=first, phase="action",
                 pending=None, window=None, losers=[], after=None)
    state["log"].append({"event": "round_start", "round": state["match"]["round"], "first": first})


def silent(state: dict) -> bool:
    """A silent challenge or block window is open (table option ``silent_windows``): nobody taps Allow."""
    return bool(state["options"].get("silent_windows")) and state["phase"] in WINDOW_PHASES


def living(state: dict) -> list[int]:
    """Seats that still hold influence, in table order."""
    return [s for s, p in enumerate(state["players"]) if p["hand"]]


def restricted(state: dict) -> bool:
    """The Factions rule is in force: both factions are present among living players."""
    if not state["options"]["factions"]:
        return False
    return len({state["players"][s]["faction"] for s in living(state)}) > 1


def may_target(state: dict, actor: int, target: int) -> bool:
    """Another living player, not of the actor's faction while the restriction holds."""
    if target == actor or not state["players"][target]["hand"]:
        return False
    players = state["players"]
    return not (restricted(state) and players[actor]["faction"] == players[target]["faction"])


def round_over(state: dict) -> bool:
    """End the round if one player is left (dealing the next round of a match); True if ended."""
    alive = living(state)
    if len(alive) > 1:
        return False
    winner = alive[0]
    match = state["match"]
    match["wins"][winner] += 1
    state["log"].append({"event": "round_won", "seat": winner, "round": match["round"],
                         "wins": list(match["wins"])})
    if match["wins"][winner] >= match["target"]:
        state["result"] = {
            "winners": [winner],
            "reason": "last_standing",
            "wins": list(match["wins"]),
            "reveal": {"hands": [list(p["hand"]) for p in state["players"]],
                       "lost": [list(p["lost"]) for p in state["players"]]},
        }
        if match["target"] > 1:
            state["log"].append({"event": "match_won", "seat": winner, "wins": list(match["wins"])})
        state.update(phase="over", pending=None, window=None, losers=[], after=None)
        return True
    # Decision: the winner of a game starts the next one.
    match["round"] += 1
    deal_round(state, winner)
    return True
