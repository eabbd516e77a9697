"""The Inside Job engine: its names and options, and the contract methods delegating to the modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engines.base import N_, BaseEngine, IllegalAction, JSONDict, OptionError, State, first_player_spec
from engines.inside_job import legal, presentation, rules, views
from engines.inside_job.cards import LADY_MIN_PLAYERS, SIDES, TRAITOR_SPECIALS, Action, InsideJobState


def _typed(state: State) -> InsideJobState:
    """The contract's plain dict seen as this game's state (the same object)."""
    return cast(InsideJobState, state)


class InsideJobEngine(BaseEngine):
    """Five missions, hidden Traitors, public votes and anonymous Sabotage counts."""

    name = "inside_job"
    team_key = "side"
    title = N_("Inside Job")
    min_players = 5
    max_players = 10
    # A phone's own part: its role and what it knows, its vote or card face-down, its moves. Who is awaited,
    # the proposal, the track and the log are the phone's public part (the same on every phone).
    phone_private_keys = frozenset({"phase", "role", "side", "known", "known_as", "examined", "my_vote", "my_card",
                                    "team_size", "outcome"})

    # What the web layer shows beside the views (presentation.py).
    mark_shapes = presentation.MARK_SHAPES
    figures = presentation.FIGURES
    private_figures = presentation.PRIVATE_FIGURES
    minority = presentation.MINORITY
    reference = staticmethod(presentation.reference)
    public_parts = staticmethod(presentation.public_parts)

    def log_figures(self, state: State, options: JSONDict, moves: Sequence[tuple[int | None, JSONDict | None]],
                    players: int) -> tuple[dict[str, int], ...]:
        """Sabotage and the Assassin's guess by seat (presentation.log_figures)."""
        return presentation.log_figures(self, state, moves, players)

    seat_role = staticmethod(presentation.seat_role)
    is_minority = staticmethod(presentation.is_minority)
    template_filters = presentation.TEMPLATE_FILTERS
    template_tags = presentation.TEMPLATE_TAGS

    handlers = {
        "propose": "_propose",
        "vote": "_vote",
        "play": "_play",
        "examine": "_examine",
        "assassinate": "_assassinate",
    }

    # ----- options and setup -----------------------------------------------------------
    def option_specs(self) -> list[dict[str, Any]]:
        """First leader, Merlin with the Assassin, and the optional Avalon roles."""
        return [
            first_player_spec(N_("First leader"), N_("Empty: the first leader is drawn at random.")),
            {"key": "merlin", "kind": "bool", "default": False, "label": N_("Merlin and the Assassin"),
             "help": N_("Merlin (an Agent) sees the Traitors; the Assassin may still win by naming Merlin.")},
            {"key": "percival", "kind": "bool", "default": False, "label": N_("Percival"),
             "help": N_("An Agent who sees Merlin (and Morgana) as Merlin candidates. Needs Merlin.")},
            {"key": "morgana", "kind": "bool", "default": False, "label": N_("Morgana"),
             "help": N_("A Traitor who looks like Merlin to Percival. Needs Percival.")},
            {"key": "mordred", "kind": "bool", "default": False, "label": N_("Mordred"),
             "help": N_("A Traitor hidden from Merlin.")},
            {"key": "oberon", "kind": "bool", "default": False, "label": N_("Oberon"),
             "help": N_("A Traitor unknown to the other Traitors, and blind to them.")},
            {"key": "lady_of_the_lake", "kind": "bool", "default": False, "label": N_("Lady of the Lake"),
             "help": N_("7+ players: after missions 2, 3 and 4 the holder learns one player's side.")},
        ]

    def check_options(self, options: dict[str, Any], players: int | None) -> None:
        """Percival needs Merlin, Morgana needs Percival; specials must fit the Traitor count."""
        if options["percival"] and not options["merlin"]:
            raise OptionError("Percival needs Merlin: turn Merlin on or Percival off.")
        if options["morgana"] and not options["percival"]:
            raise OptionError("Morgana needs Percival: turn Percival on or Morgana off.")
        if players is None or players not in SIDES:
            return
        specials = sum(1 for key in TRAITOR_SPECIALS if options[key])
        traitors = SIDES[players][1]
        if specials > traitors:
            raise OptionError(
                f"{players} players have only {traitors} Traitors, too few for {specials} special "
                "Traitor roles (the Assassin comes with Merlin)."
            )
        if options["lady_of_the_lake"] and players < LADY_MIN_PLAYERS:
            raise OptionError("The Lady of the Lake needs at least 7 players.")

    def _setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """Deal the roles and pick the first leader (and the Lady's first holder)."""
        return cast(State, rules.deal(players, options, seed))

    # ----- queries -------------------------------------------------------------------
    def undoable(self, before: State, seat: int, action: JSONDict, after: State, *, every_view: bool = True) -> bool:
        """The generic rule (``BaseEngine.undoable``) and Inside Job's own: a proposal, or a vote or a mission card
        that did not complete its round (``legal.undoable``)."""
        # The game's own rule first: it reads the move alone, the generic one (with every_view) every seat's view twice.
        return (legal.undoable(_typed(before), seat, cast(Action, action), _typed(after))
                and super().undoable(before, seat, action, after, every_view=every_view))

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every concrete action this seat may take now ([] when it has nothing to do)."""
        return legal.legal_actions(_typed(state), seat)

    def awaiting(self, state: State) -> set[int]:
        """The seats whose answer the game waits for."""
        return legal.awaiting(_typed(state))

    def window(self, state: State) -> str | None:
        """The timed window: the vote and the mission play; None otherwise."""
        return legal.window(_typed(state))

    def outcome(self, state: State) -> dict[str, Any] | None:
        """Winners, reason, both teams and every role once the game is over."""
        return cast("dict[str, Any] | None", rules.outcome(_typed(state)))

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What this seat (or the board, None) may see."""
        return cast("dict[str, Any]", views.build_view(_typed(state), seat))

    # ----- transitions ---------------------------------------------------------------
    def copy_state(self, state: State) -> State:
        """A copy for ``_apply``: see rules.copy_state for what is shared (entries never changed once written)."""
        return rules.copy_state(state)

    def on_timeout(self, state: State) -> State:
        """Unvoted seats approve; unplayed cards are Success (the app never sabotages for anyone)."""
        if self.window(state) is None or self.outcome(state) is not None:
            raise IllegalAction("no response window is open")
        new = rules.copy_state(state)
        rules.time_out(_typed(new), sorted(self.awaiting(new)))
        return new

    def _propose(self, state: State, seat: int, action: Action) -> None:
        """The leader proposes a team."""
        rules.propose(_typed(state), seat, action)

    def _vote(self, state: State, seat: int, action: Action) -> None:
        """A seat votes on the proposed team."""
        rules.vote(_typed(state), seat, action)

    def _play(self, state: State, seat: int, action: Action) -> None:
        """A team member plays a mission card."""
        rules.play(_typed(state), seat, action)

    def _examine(self, state: State, seat: int, action: Action) -> None:
        """The Lady's holder examines a seat."""
        rules.examine(_typed(state), seat, action)

    def _assassinate(self, state: State, seat: int, action: Action) -> None:
        """The Assassin names a seat."""
        rules.assassinate(_typed(state), seat, action)
