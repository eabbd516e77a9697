"""Build Good Cop Bad Cop positions for scenario tests."""

from __future__ import annotations

from engines.good_cop_bad_cop import ENGINE, rules, table
from engines.good_cop_bad_cop.cards import RULES_VERSION

H, C, A, K = "honest", "crooked", "agent", "kingpin"


def make(n=5, cards=None, hands=None, deck=None, turn=0, guns=None, seed=1, bribe=False, version=RULES_VERSION):
    """A state at the start of ``turn``'s action phase with the given cards, hands, guns (seat -> aim), under
    rules ``version`` (cards.RULES_VERSIONS)."""
    state = ENGINE.setup(n, {"first_player": turn, "bribe": bribe, "rules_version": version}, seed)
    for seat, player in enumerate(state["players"]):
        player["arranged"] = True
        if cards is not None:
            player["cards"] = list(cards[seat])
            player["up"] = [False] * len(cards[seat])
        if hands is not None:
            player["hand"] = list(hands[seat])
    if deck is not None:
        state["deck"] = list(deck)
    for seat, aim in (guns or {}).items():
        state["players"][seat]["gun"] = True
        state["players"][seat]["aim"] = aim
        state["guns_left"] -= 1
    state["stack"] = []
    rules.start_turn(state, turn)
    return state


def five(hands=None, **kw):
    """Five players: 0 Agent, 1 Kingpin, 2 honest, 3 crooked, 4 honest."""
    cards = [[A, H, C], [K, C, H], [H, H, C], [C, C, H], [H, C, H]]
    return make(5, cards=cards, hands=hands or [[] for _ in range(5)], **kw)


def play(state, seat, action):
    """Apply through the engine (legality checked)."""
    return ENGINE.apply(state, seat, action)


def expire(state):
    """The open silent window's countdown ends with no card played (nobody taps Pass)."""
    frame = table.top(state)
    assert frame["kind"] == "window", frame
    assert ENGINE.awaiting(state) == set() and ENGINE.countdown(state) == state["options"]["window_seconds"]
    return ENGINE.on_timeout(state)


def phase(state):
    """The board's phase name."""
    return ENGINE.view(state, None)["phase"]
