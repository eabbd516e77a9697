"""The Coup engine object: names, options, the first deal, and the contract methods over the modules."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from engines.base import (
    N_,
    BaseEngine,
    IllegalAction,
    JSONDict,
    OptionError,
    Rng,
    State,
    first_player,
    first_player_spec,
)

from . import legal, presentation, rules
from .cards import TURN_ACTIONS, WINDOW_PHASES, WINDOW_SECONDS, Action, CoupState, Options, Phase
from .views import build_view


def coup(state: State) -> CoupState:
    """The contract's plain state dict, seen as the Coup state it is."""
    return cast(CoupState, state)


def copy_state(state: State) -> State:
    """A deep copy, except the append-only log whose entries are shared (they never change)."""
    rest = {key: value for key, value in state.items() if key != "log"}
    new: State = json.loads(json.dumps(rest))
    new["log"] = list(state["log"])
    return new


class CoupEngine(BaseEngine):
    """Coup: bluff your way to be the last player with influence."""

    name = "coup"
    title = N_("Coup")
    default_timer = 10  # the rules page: the challenge/block timer defaults to 10 s
    min_players = 2
    max_players = 10
    # A phone's own part: its cards (and those it drew or was shown) face-down, its private log lines, its moves and
    # what their prompts and buttons need. The phase there is "my_phase" (None while the seat waits) and the
    # almshouse "embezzle_gain" (only while it may Embezzle), so that another seat's move or answer leaves the part
    # as it was. Everyone's coins, cards and factions, the declared action, whom the table waits for and the log
    # are the phone's public status and part (phone_status.html, phone_public.html: the same on every phone).
    phone_private_keys = frozenset({"hand", "drawn", "examined", "log", "my_phase", "must_coup", "embezzle_gain",
                                    "variants"})

    # What the web layer shows beside the views (presentation.py).
    mark_shapes = presentation.MARK_SHAPES
    figures = presentation.FIGURES
    reference = staticmethod(presentation.reference)
    public_parts = staticmethod(presentation.public_parts)
    template_tags = presentation.TEMPLATE_TAGS

    def log_figures(self, state: State, options: JSONDict, moves: Sequence[tuple[int | None, JSONDict | None]],
                    players: int) -> tuple[dict[str, int], ...]:
        """Claims, bluffs and challenges by seat (presentation.log_figures)."""
        return presentation.log_figures(self, state, options, moves, players)

    # Every turn action is a declaration; the answers each have their own move.
    handlers = {
        **dict.fromkeys(TURN_ACTIONS, "declare"),
        "allow": "allow",
        "challenge": "challenge",
        "block": "block",
        "reveal": "reveal",
        "lose": "lose",
        "return": "return_cards",
        "show": "show",
        "examine_decide": "examine_decide",
    }

    def option_specs(self) -> list[dict[str, Any]]:
        """First player, the Inquisitor and Factions variants, the 2-player start, rounds to win, silent windows."""
        return [
            first_player_spec(N_("First player"), N_("Empty: a random player starts.")),
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

    def check_options(self, options: dict[str, Any], players: int | None) -> None:
        """Every combination of these options can be played."""
        if options.get("rounds_to_win", 1) < 1:
            raise OptionError("rounds_to_win must be at least 1")

    def _setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """A fresh match: the first round dealt, the match standings at zero."""
        opts = cast(Options, dict(options))
        state: CoupState = {
            "seed": seed,
            "draws": 0,
            "options": opts,
            "n": players,
            "players": [],
            "deck": [],
            "almshouse": 0,
            "turn": 0,
            "phase": Phase.ACTION,
            "pending": None,
            "window": None,
            "window_count": 0,
            "losers": [],
            "after": None,
            "log": [],
            "match": {"target": opts.get("rounds_to_win", 1), "wins": [0] * players, "round": 1},
            "result": None,
        }
        rng = Rng(seed)
        first = first_player(options, rng, players)
        state["draws"] = rng.counter
        rules.deal_round(state, first)
        return cast(State, state)

    # ------------------------------------------------------------------ the moves (``handlers``)

    def declare(self, state: State, seat: int, action: Action) -> None:
        """A turn action: its claim, its cost, and the window or the effect it opens."""
        rules.declare(coup(state), seat, action["type"], action.get("target"))

    def allow(self, state: State, seat: int, action: Action) -> None:
        """Let the claim or the action pass."""
        rules.allow(coup(state), seat)

    def challenge(self, state: State, seat: int, action: Action) -> None:
        """Challenge the claim or the block."""
        rules.challenge(coup(state), seat)

    def block(self, state: State, seat: int, action: Action) -> None:
        """Block, claiming a character."""
        rules.block(coup(state), seat, action["as"])

    def reveal(self, state: State, seat: int, action: Action) -> None:
        """Show a card to answer a challenge."""
        rules.reveal(coup(state), seat, action["card"])

    def lose(self, state: State, seat: int, action: Action) -> None:
        """Give up the chosen influence."""
        rules.lose(coup(state), seat, action["card"])

    def return_cards(self, state: State, seat: int, action: Action) -> None:
        """End an Exchange: the cards sent back to the court."""
        rules.finish_exchange(coup(state), seat, action["cards"])

    def show(self, state: State, seat: int, action: Action) -> None:
        """Show the examiner a card."""
        rules.show(coup(state), action["card"])

    def examine_decide(self, state: State, seat: int, action: Action) -> None:
        """Hand the examined card back, or force a swap."""
        rules.examine_decide(coup(state), action["swap"])

    # ------------------------------------------------------------------ the contract

    # A seat's step and its buttons' figures: another seat's move may give it an answer to make (engine.undoable).
    prompt_keys = frozenset({"my_phase", "must_coup", "embezzle_gain"})

    def undoable(self, before: State, seat: int, action: JSONDict, after: State, *, every_view: bool = True) -> bool:
        """The generic rule (``BaseEngine.undoable``) and Coup's own: only a claim, an answer, a block, a challenge
        or an examiner's decision that turned no card face up and drew none (``legal.undoable``)."""
        # The game's own rule first: it reads the move alone, the generic one (with every_view) every seat's view twice.
        return (legal.undoable(coup(before), seat, cast(Action, action), coup(after))
                and super().undoable(before, seat, action, after, every_view=every_view))

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every concrete action the seat may play now."""
        return legal.legal_actions(coup(state), seat)

    def copy_state(self, state: State) -> State:
        """A copy for ``_apply``: see copy_state for what is shared (entries never changed once written)."""
        return copy_state(state)

    def awaiting(self, state: State) -> set[int]:
        """Seats whose answer the game waits for."""
        return legal.awaiting(coup(state))

    def window(self, state: State) -> str | None:
        """The open challenge/block window's id; None on turns, losses, reveals and exchanges."""
        if state["phase"] in WINDOW_PHASES:
            return legal.current_window(coup(state))["id"]
        return None

    def countdown(self, state: State) -> int | None:
        """With ``silent_windows`` on, a challenge/block window's own countdown; None otherwise."""
        if self.window(state) is None or not legal.silent(coup(state)):
            return None
        return coup(state)["options"].get("window_seconds", WINDOW_SECONDS)

    def on_timeout(self, state: State) -> State:
        """The timer's expiry counts as "allow" for everyone who has not answered."""
        if self.window(state) is None:
            raise IllegalAction("no response window is open")
        new = copy_state(state)
        rules.close_window(coup(new), timeout=True)
        return new

    def outcome(self, state: State) -> dict[str, Any] | None:
        """The match result once a player reaches the rounds to win; None before."""
        return self.decode(state["result"]) if state["result"] else None

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What the seat (or the board, None) may see."""
        return cast(dict[str, Any], build_view(coup(state), seat))
