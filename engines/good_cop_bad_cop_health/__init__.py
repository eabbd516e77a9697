"""Good Cop Bad Cop, health-token edition: identities, health, an equipment market, guns."""

from __future__ import annotations

from engines.base import N_, BaseEngine, OptionError

from . import rules, views
from .bots import heuristic
from .cards import DEFAULT_DECK, GUNS


class HealthEngine(BaseEngine):
    """The engine contract for the health-token edition (rules page: good_cop_bad_cop_health.md)."""

    name = "good_cop_bad_cop_health"
    team_key = "identity"
    title = N_("Good Cop Bad Cop (health edition)")
    min_players = 2
    max_players = 8

    def option_specs(self) -> list[dict]:
        """First player, the deck's counts by kind, and the Flawless Shot rule."""
        return [
            {"key": "first_player", "kind": "seat", "default": None, "label": N_("First player"),
             "help": N_("Empty: chosen at random.")},
            {"key": "deck", "kind": "counts", "default": dict(DEFAULT_DECK), "min": 0, "max": 20,
             "label": N_("Equipment deck"),
             "help": N_("How many cards of each kind (0-20 each, at least one gun).")},
            {"key": "flawless_shot_always", "kind": "bool", "default": False,
             "label": N_("Flawless Shot for every shooter"),
             "help": N_("Killing a Good player always swaps the shooter's identity, no card needed.")},
        ]

    def check_options(self, options: dict, players: int | None) -> None:
        """The deck needs at least one gun, or nobody could ever be eliminated."""
        if sum(options["deck"][kind] for kind in GUNS) < 1:
            raise OptionError("The equipment deck needs at least one gun.")

    def setup(self, players: int, options: dict, seed: int) -> dict:
        """Deal the game (2: duel, 3: Wanted, 4-8: the identity table)."""
        self.check_players(players)
        options = self.validate_options(options, players)
        return rules.setup_state(players, options, seed)

    def legal_actions(self, state: dict, seat: int) -> list[dict]:
        """Every concrete move ``seat`` may make now."""
        if not isinstance(seat, int) or not 0 <= seat < state["n"]:
            return []
        return rules.legal(state, seat)

    def copy_state(self, state):
        """A copy for ``_apply`` that shares what never changes (see rules.copy_state)."""
        return rules.copy_state(state)

    def _apply(self, state: dict, seat: int, action: dict) -> None:
        """Carry out a legal move on the copy."""
        rules.apply_action(state, seat, action)

    def awaiting(self, state: dict) -> set[int]:
        """The seats whose move the game waits for."""
        return views.awaiting_of(state)

    def outcome(self, state: dict) -> dict | None:
        """Winners, reason, teams and the reveal once the game is over."""
        return views.outcome_of(state)

    def view(self, state: dict, seat: int | None) -> dict:
        """The seat's (or the board's) view."""
        legal = [] if seat is None else self.legal_actions(state, seat)
        return views.build_view(state, seat, legal)


ENGINE = HealthEngine()
BOTS = {"heuristic": heuristic}
