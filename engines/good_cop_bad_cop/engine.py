"""The Good Cop Bad Cop engine: names, options and the contract methods, delegating to the modules."""

from __future__ import annotations

import copy
from typing import Any, cast

from engines.base import N_, BaseEngine, OptionError, State, first_player_spec

from . import legal, presentation, rules, views
from .cards import RULES, RULES_VERSION, RULES_VERSIONS, WINDOW_SECONDS, Action, GameState, Options
from .table import copy_table


def rules_version_of(options: dict[str, Any]) -> int:
    """The rules version a deal from ``options`` plays under: the one they name, else the current one."""
    if RULES not in options:
        return RULES_VERSION
    version = options[RULES]
    if type(version) is not int or version not in RULES_VERSIONS:
        raise OptionError(f"{RULES} must be one of {list(RULES_VERSIONS)}")
    return cast(int, version)


def game(state: State) -> GameState:
    """The contract's plain state dict, as the typed state the modules work on (the same object)."""
    return cast(GameState, state)


class GoodCopBadCopEngine(BaseEngine):
    """Good Cop Bad Cop (published rules, 4-8 players)."""

    name = "good_cop_bad_cop"
    team_key = "team"
    title = N_("Good Cop Bad Cop")
    min_players = 4
    max_players = 8
    # A phone's own part: the step it takes now ("step": None while it waits), its own cards, life and gun ("own"),
    # team, equipment, what it learned and its own private log lines, its moves and what their buttons need
    # ("playable", "picks", "revive"), whether a silent window is open (its play fold) and how the game ended.
    # Whom the table waits for, the Lead Investigator, every seat's cards, guns and wounds and the public log are
    # the phone's public status and part.
    phone_private_keys = frozenset({"step", "silent", "own", "team", "hand", "learned", "log", "playable",
                                    "picks", "revive", "outcome"})

    # What the web layer shows beside the views (presentation.py).
    mark_shapes = presentation.MARK_SHAPES
    minority = presentation.MINORITY
    reference = staticmethod(presentation.reference)
    seat_role = staticmethod(presentation.seat_role)
    is_minority = staticmethod(presentation.is_minority)
    public_parts = staticmethod(presentation.public_parts)

    def option_specs(self) -> list[dict[str, Any]]:
        """First player (random if empty), the seed's optional Bribe card, the silent window's countdown."""
        return [
            first_player_spec(),
            {"key": "bribe", "kind": "bool", "default": False, "label": N_("Add the Bribe card"),
             "help": N_("Investigate a card and you may swap it with one of your own.")},
            {"key": "window_seconds", "kind": "int", "default": WINDOW_SECONDS, "min": 2, "max": 20,
             "label": N_("Silent window countdown (seconds)"),
             "help": N_("After an Investigate, on a Shoot and at the end of each turn every screen shows "
                        "this countdown; whoever holds a playable card may play it before it ends.")},
        ]

    def validate_options(self, options: dict[str, Any], players: int | None) -> dict[str, Any]:
        """The table's settings checked; for a deal (``players`` given) also the rules version it plays under
        (``cards.RULES``): the one the options name, so a stored game replays under its own, else the current.

        A table's settings (``players`` None) hold no version, so every new game gets the rules of its day.
        """
        settings = {key: value for key, value in (options or {}).items() if key != RULES}
        checked = super().validate_options(settings, players)
        if players is not None:
            checked[RULES] = rules_version_of(options or {})
        return checked

    def _setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Deal integrity cards (leaders apart), one equipment card each, guns to the centre.

        A version-1 state names no version, as no state saved before versions did (``table.rules_version``),
        so a game from then replays to its stored snapshot.
        """
        if options.get(RULES) == 1:
            options = {key: value for key, value in options.items() if key != RULES}
        return cast(State, rules.deal(players, cast(Options, options), seed))

    def copy_state(self, state: State) -> State:
        """A copy for ``_apply``: see table.copy_table for what is shared (entries never changed once written)."""
        return cast(State, copy_table(game(state)))

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Every concrete action for ``seat`` now."""
        return legal.legal_actions(game(state), seat)

    def _apply(self, state: State, seat: int, action: dict[str, Any]) -> None:
        """Apply a legal action to the engine's own copy: its handler by type (``rules.MOVES``), then settle."""
        rules.apply(game(state), seat, action)

    # A seat's step and its buttons: another seat's move may give it one to take (engine.undoable).
    prompt_keys = frozenset({"step", "playable", "picks", "revive"})

    def undoable(self, before: State, seat: int, action: dict[str, Any], after: State, *,
                 every_view: bool = True) -> bool:
        """The generic rule (``BaseEngine.undoable``) and this game's own: an arrangement, an Arm, a Shoot, an aim
        or the end of a turn that fired nothing (``legal.undoable``)."""
        # The game's own rule first: it reads the move alone, the generic one (with every_view) every seat's view twice.
        return (legal.undoable(game(before), seat, cast(Action, action), game(after))
                and super().undoable(before, seat, action, after, every_view=every_view))

    def awaiting(self, state: State) -> set[int]:
        """Seats the game waits for."""
        return legal.awaiting(game(state))

    def window(self, state: State) -> str | None:
        """The open timed window (equipment interrupt, pending choice, arrangement)."""
        return rules.window_id(game(state))

    def countdown(self, state: State) -> int | None:
        """An equipment window is silent: its own countdown (``window_seconds``); None otherwise."""
        return rules.countdown(game(state))

    def on_timeout(self, state: State) -> State:
        """Expiry: a silent window closes with no card played; a pending choice takes its first option."""
        new = copy_table(game(state))
        rules.timeout(new)
        return cast(State, new)

    def outcome(self, state: State) -> dict[str, Any] | None:
        """The result once a leader fell or one player holds both leaders."""
        return cast(dict[str, Any] | None, copy.deepcopy(game(state)["result"]))

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The seat's (or the board's) view."""
        return cast(dict[str, Any], views.build_view(game(state), seat))

    def decode(self, data: dict[str, Any]) -> State:
        """The state back from ``encode`` (a snapshot saved before private entries had ``"to"`` gets it)."""
        state = super().decode(data)
        rules.upgrade(game(state))
        return state
