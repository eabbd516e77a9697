"""The Good Cop Bad Cop engine: setup, options and the contract methods."""

from __future__ import annotations

import copy

from engines.base import N_, BaseEngine, Rng, State

from . import rules, views
from .cards import GUNS, deal_integrity, equipment_deck


def clone(value):
    """A deep copy of plain JSON-like data (much faster than copy.deepcopy)."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


def fast_copy(state: State) -> State:
    """A deep copy, except that log and learned entries (never changed once written) are shared.

    Random games run to thousands of moves; deep-copying the whole log each move made
    them quadratic.
    """
    # Every mutable top-level key of the state must be copied below (see setup for the list).
    new = dict(state)
    for key in ("deck", "burned", "removed", "log"):
        new[key] = list(state[key])
    new["options"] = dict(state["options"])
    new["result"] = clone(state["result"])
    new["stack"] = [clone(frame) for frame in state["stack"]]
    new["players"] = [
        {**p, "cards": list(p["cards"]), "up": list(p["up"]), "hand": list(p["hand"]),
         "learned": list(p["learned"])}
        for p in state["players"]
    ]
    return new


class GoodCopBadCop(BaseEngine):
    """Good Cop Bad Cop (published rules, 4-8 players)."""

    name = "good_cop_bad_cop"
    team_key = "team"
    title = N_("Good Cop Bad Cop")
    min_players = 4
    max_players = 8

    def option_specs(self) -> list[dict]:
        """First player (random if empty), the seed's optional Bribe card, the silent window's countdown."""
        return [
            {"key": "first_player", "kind": "seat", "default": None, "label": N_("First player"),
             "help": N_("Empty: chosen at random.")},
            {"key": "bribe", "kind": "bool", "default": False, "label": N_("Add the Bribe card"),
             "help": N_("Investigate a card and you may swap it with one of your own.")},
            {"key": "window_seconds", "kind": "int", "default": rules.WINDOW_SECONDS, "min": 2, "max": 20,
             "label": N_("Silent window countdown (seconds)"),
             "help": N_("After an Investigate, on a Shoot and at the end of each turn every screen shows "
                        "this countdown; whoever holds a playable card may play it before it ends.")},
        ]

    def setup(self, players: int, options: dict, seed: int) -> State:
        """Deal integrity cards (leaders apart), one equipment card each, guns to the centre."""
        self.check_players(players)
        options = self.validate_options(options, players)
        rng = Rng(seed)
        hands, burned = deal_integrity(rng, players)
        deck = rng.shuffle(equipment_deck(players, options["bribe"]))
        first = options["first_player"]
        if first is None:
            first = rng.randbelow(players)
        state: State = {
            "seed": seed,
            "options": options,
            "players": [
                {"cards": hands[s], "up": [False] * 3, "hand": [deck[s]], "alive": True,
                 "wounded": False, "gun": False, "aim": None, "learned": [], "arranged": False}
                for s in range(players)
            ],
            "deck": deck[players:],
            "burned": burned,
            "removed": [],
            "guns_left": GUNS[players],
            "turn": first,
            "direction": 1,
            "coffee": None,
            "no_arm": None,
            "planted": None,
            "frames": 0,
            "stack": [],
            "log": [{"event": "start", "seat": first}],
            "result": None,
        }
        state["stack"].append({"kind": "arrange", "id": 0})
        state["draws"] = rng.counter
        return state

    def copy_state(self, state):
        """A copy for ``_apply``: see fast_copy for what is shared (entries never changed once written)."""
        return fast_copy(state)

    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every concrete action for ``seat`` now."""
        return rules.legal_actions(state, seat)

    def _apply(self, state: State, seat: int, action: dict) -> None:
        """Apply a legal action to the engine's own copy."""
        rules.apply(state, seat, action)

    def awaiting(self, state: State) -> set[int]:
        """Seats the game waits for."""
        return rules.awaiting(state)

    def window(self, state: State) -> str | None:
        """The open timed window (equipment interrupt, pending choice, arrangement)."""
        return rules.window_id(state)

    def countdown(self, state: State) -> int | None:
        """An equipment window is silent: its own countdown (``window_seconds``); None otherwise."""
        return rules.countdown(state)

    def on_timeout(self, state: State) -> State:
        """Expiry: a silent window closes with no card played; a pending choice takes its first option."""
        new = fast_copy(state)
        rules.timeout(new)
        return new

    def outcome(self, state: State) -> dict | None:
        """The result once a leader fell or one player holds both leaders."""
        return copy.deepcopy(state["result"])

    def view(self, state: State, seat: int | None) -> dict:
        """The seat's (or the board's) view."""
        return views.view(state, seat)
