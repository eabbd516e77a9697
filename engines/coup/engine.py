"""The Coup engine object: options, and the contract methods over rules and views."""

from __future__ import annotations

import json

from engines.base import N_, BaseEngine, IllegalAction, OptionError

from . import legal, rules, table
from .cards import WINDOW_PHASES, WINDOW_SECONDS
from .views import build_view


def copy_state(state: dict) -> dict:
    """A deep copy, except the append-only log whose entries are shared (they never change)."""
    rest = {key: value for key, value in state.items() if key != "log"}
    new = json.loads(json.dumps(rest))
    new["log"] = list(state["log"])
    return new


class CoupEngine(BaseEngine):
    """Coup: bluff your way to be the last player with influence."""

    name = "coup"
    title = N_("Coup")
    default_timer = 10  # the rules page: the challenge/block timer defaults to 10 s
    min_players = 2
    max_players = 10

    def option_specs(self) -> list[dict]:
        """First player, the Inquisitor and Factions variants, the 2-player start, rounds to win, silent windows."""
        return [
            {"key": "first_player", "kind": "seat", "default": None, "label": N_("First player"),
             "help": N_("Empty: a random player starts.")},
            {"key": "inquisitor", "kind": "bool", "default": False,
             "label": N_("Inquisitor replaces the Ambassador")},
            {"key": "factions", "kind": "bool", "default": False,
             "label": N_("Factions (Convert, Embezzle, almshouse)")},
            {"key": "two_player_start", "kind": "choice", "default": "seed",
             "label": N_("Two-player starting coins"),
             "choices": [["seed", N_("1 coin each")],
                         ["published", N_("Starter 1 coin, the other 2")]]},
            {"key": "rounds_to_win", "kind": "int", "default": 1, "min": 1, "max": 9,
             "label": N_("Rounds to win the match")},
            {"key": "silent_windows", "kind": "bool", "default": False,
             "label": N_("Silent challenge and block windows"),
             "help": N_("Nobody taps Allow: every screen shows the same countdown, and not answering "
                        "before it ends allows.")},
            {"key": "window_seconds", "kind": "int", "default": WINDOW_SECONDS, "min": 2, "max": 20,
             "label": N_("Silent window countdown (seconds)")},
        ]

    def check_options(self, options: dict, players: int | None) -> None:
        """Every combination of these options can be played."""
        if options.get("rounds_to_win", 1) < 1:
            raise OptionError("rounds_to_win must be at least 1")

    def setup(self, players: int, options: dict, seed: int) -> dict:
        """Deal the first round of the match."""
        self.check_players(players)
        checked = self.validate_options(options, players)
        return table.new_state(players, checked, seed)

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        """Every concrete action the seat may play now."""
        return legal.legal_actions(state, seat)

    def copy_state(self, state):
        """A copy for ``_apply``: see copy_state for what is shared (entries never changed once written)."""
        return copy_state(state)

    def _apply(self, state: dict, seat: int, action: dict) -> None:
        """Play an already-checked action on the copy."""
        rules.apply_action(state, seat, action)

    def awaiting(self, state: dict) -> set[int]:
        """Seats whose answer the game waits for."""
        return legal.awaiting(state)

    def window(self, state: dict) -> str | None:
        """The open challenge/block window's id; None on turns, losses, reveals and exchanges."""
        if state["phase"] in WINDOW_PHASES:
            return state["window"]["id"]
        return None

    def countdown(self, state: dict) -> int | None:
        """With ``silent_windows`` on, a challenge/block window's own countdown; None otherwise."""
        if self.window(state) is None or not table.silent(state):
            return None
        return state["options"].get("window_seconds", WINDOW_SECONDS)

    def on_timeout(self, state: dict) -> dict:
        """The timer's expiry counts as "allow" for everyone who has not answered."""
        if self.window(state) is None:
            raise IllegalAction("no response window is open")
        new = copy_state(state)
        rules.close_window(new, timeout=True)
        return new

    def outcome(self, state: dict) -> dict | None:
        """The match result once a player reaches the rounds to win; None before."""
        return self.decode(state["result"]) if state["result"] else None

    def view(self, state: dict, seat: int | None) -> dict:
        """What the seat (or the board, None) may see."""
        return build_view(state, seat)
