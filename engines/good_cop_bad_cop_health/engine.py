"""The health-edition engine: its names and options, and the contract methods delegating to the modules."""

from __future__ import annotations

from typing import Any, cast

from engines.base import N_, BaseEngine, OptionError, State, first_player_spec

from . import legal, presentation, rules, views
from .cards import (
    DEFAULT_DECK,
    DRAW,
    END_TURN,
    EQUIP,
    GUNS,
    INSPECT,
    KEEP_IDENTITY,
    SHOOT,
    Action,
    HealthState,
    Options,
)


def _typed(state: State) -> HealthState:
    """The contract's plain dict seen as this game's state (the same object)."""
    return cast(HealthState, state)


class GoodCopBadCopHealthEngine(BaseEngine):
    """The engine contract for the health-token edition (rules page: good_cop_bad_cop_health.md)."""

    name = "good_cop_bad_cop_health"
    team_key = "identity"
    title = N_("Good Cop Bad Cop (health edition)")
    min_players = 2
    max_players = 8
    # A phone's own part: the step it takes now ("step": None while it waits), its identity as it knows it, its
    # hand, whom it inspected and what it saw, its own private log lines, its moves with what their buttons show,
    # whether it is still in, the variant (its goal) and how the game ended. Whose turn it is, whom the table waits
    # for, every seat's health and equipment, the market and the public log are the phone's public status and part.
    phone_private_keys = frozenset({"step", "identity", "identity_was", "identity_choices", "hand", "inspected",
                                    "log", "moves", "own", "variant", "outcome", "reveal"})

    # What the web layer shows beside the views (presentation.py).
    mark_shapes = presentation.MARK_SHAPES
    minority = presentation.MINORITY
    reference = staticmethod(presentation.reference)
    public_parts = staticmethod(presentation.public_parts)
    seat_role = staticmethod(presentation.seat_role)
    is_minority = staticmethod(presentation.is_minority)

    handlers = {
        KEEP_IDENTITY: "_keep_identity",
        DRAW: "_draw",
        EQUIP: "_equip",
        INSPECT: "_inspect",
        SHOOT: "_shoot",
        END_TURN: "_end_turn",
    }

    # ----- options and setup -----------------------------------------------------------
    def option_specs(self) -> list[dict[str, Any]]:
        """First player, the deck's counts by kind, and the Flawless Shot rule."""
        return [
            first_player_spec(N_("First player"), N_("Empty: chosen at random.")),
            {"key": "deck", "kind": "counts", "default": dict(DEFAULT_DECK), "min": 0, "max": 20,
             "label": N_("Equipment deck"),
             "help": N_("How many cards of each kind (0-20 each, at least one gun).")},
            {"key": "flawless_shot_always", "kind": "bool", "default": False,
             "label": N_("Flawless Shot for every shooter"),
             "help": N_("Killing a Good player always swaps the shooter's identity, no card needed.")},
        ]

    def check_options(self, options: dict[str, Any], players: int | None) -> None:
        """The deck needs at least one gun, or nobody could ever be eliminated."""
        if sum(options["deck"][kind] for kind in GUNS) < 1:
            raise OptionError("The equipment deck needs at least one gun.")

    def _setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Deal the game (2: duel, 3: Wanted, 4-8: the identity table)."""
        return cast(State, rules.setup_state(players, cast(Options, options), seed))

    # ----- queries -------------------------------------------------------------------
    # A seat's step and its moves' buttons: another seat's move may give it its turn (engine.undoable).
    prompt_keys = frozenset({"step", "moves"})

    def undoable(self, before: State, seat: int, action: dict[str, Any], after: State, *,
                 every_view: bool = True) -> bool:
        """The generic rule (``BaseEngine.undoable``) and this game's own: keeping an identity, a Shoot that
        eliminates nobody, the end of a turn (``legal.undoable``)."""
        # The game's own rule first: it reads the move alone, the generic one (with every_view) every seat's view twice.
        return (legal.undoable(_typed(before), seat, cast(Action, action), _typed(after))
                and super().undoable(before, seat, action, after, every_view=every_view))

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every concrete move ``seat`` may make now."""
        return legal.legal_actions(_typed(state), seat)

    def awaiting(self, state: State) -> set[int]:
        """The seats whose move the game waits for."""
        return legal.awaiting(_typed(state))

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Winners, reason, teams and the reveal once the game is over."""
        return cast("dict[str, Any] | None", views.outcome_of(_typed(state)))

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The seat's (or the board's) view."""
        return cast("dict[str, Any]", views.build_view(_typed(state), seat))

    # ----- transitions ---------------------------------------------------------------
    def copy_state(self, state: State) -> State:
        """A copy for ``_apply`` that shares what never changes (see rules.copy_state)."""
        return cast(State, rules.copy_state(_typed(state)))

    def _keep_identity(self, state: State, seat: int, action: Action) -> None:
        """A duellist keeps one of two identities."""
        rules.keep_identity(_typed(state), seat, action)

    def _draw(self, state: State, seat: int, action: Action) -> None:
        """The player on turn draws from the deck or the market."""
        rules.draw(_typed(state), seat, action)

    def _equip(self, state: State, seat: int, action: Action) -> None:
        """The player on turn puts a card into play."""
        rules.equip(_typed(state), seat, action)

    def _inspect(self, state: State, seat: int, action: Action) -> None:
        """The player on turn inspects a seat (the turn's act)."""
        rules.inspect(_typed(state), seat, action)

    def _shoot(self, state: State, seat: int, action: Action) -> None:
        """The player on turn shoots a seat (the turn's act)."""
        rules.shoot(_typed(state), seat, action)

    def _end_turn(self, state: State, seat: int, action: Action) -> None:
        """The player on turn ends it."""
        rules.end_turn(_typed(state), seat, action)
