"""Builders for scenario positions: a real setup, then cards and identities placed by hand."""

from __future__ import annotations

import random

from engines.good_cop_bad_cop_health import ENGINE


def new_game(players: int = 4, seed: int = 1, **options) -> dict:
    """A fresh game with seat 0 to move (at the act step unless ``draw`` is wanted)."""
    opts = ENGINE.default_options()
    opts["first_player"] = 0
    opts.update(options)
    return ENGINE.setup(players, opts, seed)


def at_act(state: dict) -> dict:
    """Skip the draw of the player on turn by drawing from the deck."""
    return ENGINE.apply(state, state["turn"], {"type": "draw", "from": "deck"})


def take(state: dict, kind: str) -> dict:
    """Pull a card of ``kind`` out of the deck (keeps the cards conserved)."""
    for card in state["deck"]:
        if card["kind"] == kind:
            state["deck"].remove(card)
            return card
    raise AssertionError(f"no {kind} left in the deck")


def give(state: dict, seat: int, kind: str, where: str = "hand") -> dict:
    """Put a card of ``kind`` into ``seat``'s hand or in play."""
    card = take(state, kind)
    state["players"][seat][where].append(card)
    return card


def set_identities(state: dict, identities: list[str]) -> None:
    """Give every seat the listed identity (the pile is left as dealt)."""
    for player, identity in zip(state["players"], identities, strict=True):
        player["identity"] = identity


def total_cards(state: dict) -> int:
    """Every equipment card wherever it is."""
    count = len(state["deck"]) + len(state["discard"]) + sum(c is not None for c in state["market"])
    for player in state["players"]:
        count += len(player["hand"]) + len(player["in_play"])
    return count


def game_states(players: int, seed: int, every: int = 5, *, final: bool = True):
    """States of one random game, every few moves (and the final one unless ``final`` is False)."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, ENGINE.default_options(), seed)
    step = 0
    while ENGINE.outcome(state) is None:
        if step % every == 0:
            yield state
        seat = rng.choice([s for s in range(players) if ENGINE.legal_actions(state, s)])
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        step += 1
    if final:
        yield state
