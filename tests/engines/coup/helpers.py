"""Builders for Coup scenario tests: a table with chosen hands, coins and turn."""

from __future__ import annotations

from engines.coup import ENGINE
from engines.coup.cards import build_court


def table(hands, coins=None, turn=0, lost=None, allegiance=None, seed=1, **options):
    """A fresh state whose hands, lost cards, coins and factions are as given; the rest is the court."""
    opts = dict(ENGINE.default_options(), first_player=turn, **options)
    state = ENGINE.setup(len(hands), opts, seed)
    court = build_court(len(hands), opts["inquisitor"])
    for seat, hand in enumerate(hands):
        player = state["players"][seat]
        player["hand"] = list(hand)
        player["lost"] = list((lost or {}).get(seat, []))
        for card in player["hand"] + player["lost"]:
            court.remove(card)
        player["coins"] = 2 if coins is None else coins[seat]
        if allegiance is not None:
            player["faction"] = allegiance[seat]
    state["deck"] = court
    return state


def play(state, *moves):
    """Apply (seat, action) pairs in order."""
    for seat, action in moves:
        state = ENGINE.apply(state, seat, action)
    return state


def allow_all(state):
    """Every awaited seat of the open window answers allow."""
    assert ENGINE.window(state) is not None
    for seat in sorted(ENGINE.awaiting(state)):
        state = ENGINE.apply(state, seat, {"type": "allow"})
    return state


def coins(state):
    """Coins by seat."""
    return [p["coins"] for p in state["players"]]


def hand(state, seat):
    """A seat's face-down cards, sorted."""
    return sorted(state["players"][seat]["hand"])


def lost(state, seat):
    """A seat's face-up cards."""
    return list(state["players"][seat]["lost"])


def events(state):
    """The event names of the log, in order."""
    return [entry["event"] for entry in state["log"]]


def card_total(state):
    """Every card: hands, exchange draws, lost cards and the court."""
    cards = list(state["deck"])
    for player in state["players"]:
        cards += player["hand"] + player["lost"] + player["drawn"]
    return sorted(cards)
