"""The engine contract shared by every game, and the helpers every engine uses.

See ``engines/README.md`` for the contract in full. An engine is an object with the
methods of :class:`Engine`; its state is a plain JSON-able ``dict`` that ``apply``
never mutates (it works on a deep copy), so ``encode``/``decode`` are trivial and
a state can be cached as JSON.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypedDict, TypeVar, cast

from engines import fair

State = dict[str, Any]
# An action, an option spec, a view, an outcome, a log entry: plain JSON objects.
JSONDict = dict[str, Any]
T = TypeVar("T")
PhaseT = TypeVar("PhaseT", bound=str)
EntryT = TypeVar("EntryT")
ActionT = TypeVar("ActionT")
OutcomeT = TypeVar("OutcomeT")


class BaseView(TypedDict, Generic[PhaseT, EntryT, ActionT, OutcomeT]):
    """The keys every game's view has (engines/README.md), typed by the game's phase, log entry, action and
    outcome; each game's view adds its own keys."""

    seat: int | None
    phase: PhaseT
    turn: int | None
    log: list[EntryT]
    legal: list[ActionT]
    players: int
    awaiting: list[int]
    outcome: OutcomeT | None


class IllegalAction(ValueError):
    """An action the rules do not allow for this seat now (or a malformed one)."""


class OptionError(ValueError):
    """Table options that cannot be played (a clear, user-facing message)."""


def N_(message: str) -> str:
    """Mark a string for translation without translating it (engines import no Django).

    The web layer passes such strings through ``gettext`` when it renders them;
    ``makemessages --keyword=N_`` collects them.
    """
    return message


def new_seed() -> int:
    """A fresh secret seed for a game (128 bits from ``secrets``)."""
    return secrets.randbits(128)


def seed_hash(seed: int) -> str:
    """The public commitment to a seed, shown when the game starts."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def canonical(value: Any) -> str | None:
    """The canonical JSON text of a value (sorted keys, no spaces), or None if it is not plain JSON.

    Two actions are the same move only if their canonical texts are equal, so ``1.0`` and
    ``true`` never pass for ``1`` (Python's ``==`` says they are equal; JSON types differ).
    """
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def find_legal(action: Any, legal: list[JSONDict]) -> JSONDict | None:
    """The listed legal action that ``action`` is exactly (same JSON text), or None."""
    text = canonical(action)
    if text is None:
        return None
    for candidate in legal:
        if canonical(candidate) == text:
            return candidate
    return None


class Rng:
    """A counter-based generator: sha256(seed, counter) blocks, stable across Python versions.

    Keep ``rng.counter`` in the state after drawing (``state["draws"] = rng.counter``)
    so the next move continues the stream and a replay draws the same numbers.
    """

    def __init__(self, seed: int, counter: int = 0) -> None:
        self.seed = seed
        self.counter = counter

    def _block(self) -> int:
        digest = hashlib.sha256(f"{self.seed}:{self.counter}".encode()).digest()
        self.counter += 1
        return int.from_bytes(digest, "big")

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n) (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        bits = 256
        limit = (1 << bits) - ((1 << bits) % n)
        while True:
            value = self._block()
            if value < limit:
                return value % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A new list with the items in Fisher-Yates order."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.randbelow(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        return items[self.randbelow(len(items))]


def first_player_spec(label: str = N_("First player"), help_text: str = N_("Empty: chosen at random.")) -> JSONDict:
    """The shared ``first_player`` option: a seat, or None for one drawn from the seed."""
    return {"key": "first_player", "kind": "seat", "default": None, "label": label, "help": help_text}


def first_player(options: JSONDict, rng: Rng, players: int) -> int:
    """The option's seat, or one drawn now from ``rng`` (call it where the engine always drew it)."""
    first = options.get("first_player")
    return rng.randbelow(players) if first is None else first


def visible_log(log: list[JSONDict], seat: int | None) -> list[JSONDict]:
    """Public entries, plus the private ones addressed to ``seat``.

    A private entry carries ``"private": True`` and its addressee as ``"to"`` (the one key every
    engine uses; see engines/README.md). The board (seat None) sees public entries only.
    """
    # Deep copies: engines may share written entries between states, and a view must never alias them.
    return [clone(e) for e in log if not e.get("private") or (seat is not None and e.get("to") == seat)]


# What a projection (a game's ``presentation.public_parts``) writes for no seat: the ``seat_name`` filter's dash.
NO_SEAT = "—"


def seat_name(seat: Any, names: Sequence[str]) -> str:
    """A seat's name in a projection (a dash for no seat), as the ``seat_name`` filter writes it for a seat of the
    table."""
    return NO_SEAT if seat is None else str(names[int(seat)])


def item_at(items: Any, index: Any) -> Any:
    """``items[index]``, or None where there is none (the templates' ``get`` filter, for a projection)."""
    try:
        return items[index]
    except (KeyError, IndexError, TypeError):
        return None


def clone(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists and scalars): several times faster than ``copy.deepcopy``,
    which a view pays on every entry of a long log on every render."""
    if isinstance(value, dict):
        return {key: item if type(item) in _SCALARS else clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [item if type(item) in _SCALARS else clone(item) for item in value]
    return value


# Values ``clone`` gives back as they are, met without a call (most of a log entry's values): a view of a long
# log made every seat's copy with one call per value, ~5% of a push's CPU.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def next_seat(alive: list[bool], seat: int, step: int = 1) -> int:
    """The next living seat after ``seat`` going ``step`` (+1 clockwise, -1 the other way)."""
    count = len(alive)
    for offset in range(1, count + 1):
        candidate = (seat + step * offset) % count
        if alive[candidate]:
            return candidate
    raise ValueError("no living seat")


# The type of a log's undo entry, ``(None, {"type": UNDO, ...})`` (see ``undo_plan``): the table agreed to take the
# latest move still in force back. Seat None, as for the clock's timeouts ``(None, None)``, since no seat plays it;
# any other key of the entry (who asked, who agreed) is the web layer's record, which the engine ignores.
UNDO = "undo"

Moves = Iterable[tuple[int | None, JSONDict | None]]


def is_undo(seat: int | None, action: Any) -> bool:
    """Whether a logged move is an undo entry (seat None and an action of type ``UNDO``)."""
    return seat is None and isinstance(action, dict) and action.get("type") == UNDO


def undo_plan(moves: Moves) -> tuple[list[tuple[int | None, JSONDict | None]], set[int]]:
    """The moves as a list, and the indexes of those an undo entry takes back.

    An undo takes back the latest move still in force (one not undone already, and not itself an undo), so two undos in
    a row take back the last two moves. Raises IllegalAction for an undo with nothing to take back, or one that would
    take back a timeout (the clock's expiry is never undone).
    """
    listed = list(moves)
    in_force: list[int] = []
    undone: set[int] = set()
    for index, (seat, action) in enumerate(listed):
        if not is_undo(seat, action):
            in_force.append(index)
            continue
        if not in_force:
            raise IllegalAction(f"move {index + 1}: an undo with no move to take back")
        taken = in_force.pop()
        if listed[taken][0] is None:
            raise IllegalAction(f"move {index + 1}: a timeout cannot be undone")
        undone.add(taken)
    return listed, undone


def effective_moves(moves: Moves) -> list[tuple[int | None, JSONDict | None]]:
    """The moves still in force: the log without its undo entries and the moves they took back.

    Replaying them gives the same state as replaying the whole log (``BaseEngine.replay``), so whatever reads a game's
    moves one by one (figures, statistics) reads these.
    """
    listed, undone = undo_plan(moves)
    return [move for index, move in enumerate(listed) if index not in undone and not is_undo(*move)]


def new_entries(before: State, after: State) -> list[JSONDict] | None:
    """The log entries a move wrote (``after``'s log past ``before``'s), or None if it rewrote the log."""
    old, new = before.get("log", []), after.get("log", [])
    if len(new) < len(old) or new[: len(old)] != old:
        return None
    return list(new[len(old):])


def state_rng(state: State) -> Rng:
    """The generator that continues a state's stream (``state["seed"]``, ``state["draws"]``)."""
    return Rng(state["seed"], state.get("draws", 0))


class Engine(Protocol):
    """The contract every game keeps (see engines/README.md)."""

    name: str
    title: str
    min_players: int
    max_players: int

    team_key: str | None
    default_timer: int
    phone_private_keys: frozenset[str] | None
    figures: tuple[str, ...]
    private_figures: frozenset[str]
    minority: tuple[str, str] | None
    template_filters: Mapping[str, Callable[..., Any]]
    template_tags: Mapping[str, Callable[..., Any]]
    mark_shapes: Mapping[str, str]

    def default_options(self) -> JSONDict: ...
    def check_options(self, options: JSONDict, players: int | None) -> None: ...
    def copy_state(self, state: State) -> State: ...
    def seat_count(self, state: State) -> int: ...
    def check_players(self, players: int) -> None: ...
    def option_specs(self) -> list[JSONDict]: ...
    def validate_options(self, options: JSONDict, players: int | None) -> JSONDict: ...
    def setup(self, players: int, options: JSONDict, seed: int) -> State: ...
    def legal_actions(self, state: State, seat: int) -> list[JSONDict]: ...
    def apply(self, state: State, seat: int, action: JSONDict) -> State: ...
    def view(self, state: State, seat: int | None) -> JSONDict: ...
    def awaiting(self, state: State) -> set[int]: ...
    def window(self, state: State) -> str | None: ...
    def countdown(self, state: State) -> int | None: ...
    def on_timeout(self, state: State) -> State: ...
    def undoable(self, before: State, seat: int, action: JSONDict, after: State, *,
                 every_view: bool = True) -> bool: ...
    def replay(self, state: State, moves: Moves) -> State: ...
    def replay_checked(self, state: State, moves: Moves) -> State: ...
    def outcome(self, state: State) -> JSONDict | None: ...
    def encode(self, state: State) -> JSONDict: ...
    def decode(self, data: JSONDict) -> State: ...
    # What the web layer shows beside the views (each game's presentation.py).
    def reference(self, view: JSONDict, players: int, options: JSONDict) -> JSONDict | None: ...
    def log_figures(self, state: State, options: JSONDict, moves: Sequence[tuple[int | None, JSONDict | None]],
                    players: int) -> tuple[dict[str, int], ...]: ...
    def seat_role(self, outcome: JSONDict, seat: int) -> str | None: ...
    def is_minority(self, view: JSONDict, seat: int) -> bool: ...
    def public_parts(self, view: JSONDict, seats: Sequence[JSONDict],
                     ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]: ...


class BaseEngine:
    """Shared behaviour: option checking from ``option_specs``, JSON state, the apply guard.

    Subclasses implement ``setup``, ``legal_actions``, ``_apply`` (may mutate its own
    copy), ``view``, ``awaiting``, ``outcome`` and, where the game has response
    windows, ``window`` and ``on_timeout``.
    """

    name = ""
    title = ""
    min_players = 2
    max_players = 10
    # The key of a seat's own view that names its team (None: every player for themself).
    team_key: str | None = None
    # The response timer a new table of this game starts with (seconds, 0 = off).
    default_timer = 0
    # The view keys a seat's own part of the phone shows, beside "seat" and "legal": the web layer renders
    # that part only from them (again only when they change), and the phone's public parts from the
    # board's view (templates/games/<name>/phone_status.html and phone_public.html). None: the whole
    # phone view is the seat's own part (templates/games/<name>/phone.html alone). "log" among them: the
    # seat's own private lines of the log only.
    phone_private_keys: frozenset[str] | None = None

    # What the web layer shows of the game beside its views, declared by the game's ``presentation.py``
    # (the pages branch on none of it). The figures its log gives each seat (``log_figures``), in the order
    # the pages and downloads list them; () for a game without any.
    figures: tuple[str, ...] = ()
    # Those of ``figures`` only the player themself may see (their own stats page and download).
    private_figures: frozenset[str] = frozenset()
    # The minority role a fair deal evens out (``engines.fair``), as a finished game's reveal names it: a
    # team (``("team", "traitors")``) or a seat's role (``("role", "kingpin")``, ``seat_role``); None: none.
    minority: tuple[str, str] | None = None
    # Pure functions of a view that the game's own templates call, by the names they call them:
    # ``template_filters`` as ``{{ view|name }}``, ``template_tags`` as ``{% name view … as found %}``
    # (gameplay's game_tags registers every game's; no two games may use one name).
    template_filters: ClassVar[Mapping[str, Callable[..., Any]]] = {}
    template_tags: ClassVar[Mapping[str, Callable[..., Any]]] = {}
    # The shape of each mark the game's templates draw with ``mark(kind)`` (gameplay's ``marks``): a side, team,
    # vote or result told apart without colour. Shapes: circle, triangle, square, diamond, star, check, cross.
    mark_shapes: ClassVar[Mapping[str, str]] = {}

    def public_parts(self, view: JSONDict, seats: Sequence[JSONDict],
                     ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
        """The parts of the game's public screens (the board's, and the phone's public part) that a push may send
        alone: element id → a plain dict that is all that element shows, projected from the board's ``view``
        (seat None), the ``seats`` (``index``, ``name``, ``is_bot``) and, for a game the host ended, every seat's own
        last view (``ended_views``, public by then). The element's template reads that dict alone (as ``part``), so
        the element changes exactly when its dict does. {}: the game's board has no such parts."""
        return {}

    def reference(self, view: JSONDict, players: int, options: JSONDict) -> JSONDict | None:
        """The public facts of the phone's reference card (templates/games/<name>/reference.html) for a
        table of ``players`` with these checked options; None: the game has no reference card."""
        return None

    def log_figures(self, state: State, options: JSONDict, moves: Sequence[tuple[int | None, JSONDict | None]],
                    players: int) -> tuple[dict[str, int], ...]:
        """Each seat's ``figures`` from a game's log: the dealt ``state`` folded over ``moves``."""
        return tuple({} for _ in range(players))

    def seat_role(self, outcome: JSONDict, seat: int) -> str | None:
        """A seat's role from the end-of-game reveal, in the game's own words (None where it has none)."""
        return None

    def is_minority(self, view: JSONDict, seat: int) -> bool:
        """Whether this seat's own view shows the ``minority`` role."""
        return False

    def default_options(self) -> JSONDict:
        """Every option key with its default."""
        return {spec["key"]: copy.deepcopy(spec["default"]) for spec in self.option_specs()}

    def option_specs(self) -> list[JSONDict]:
        """The table options, for the create-table form (see engines/README.md)."""
        return []

    def validate_options(self, options: JSONDict, players: int | None) -> JSONDict:
        """Defaults merged with ``options``, each checked; raises OptionError."""
        result = self.default_options()
        specs = {spec["key"]: spec for spec in self.option_specs()}
        for key, value in (options or {}).items():
            if key == fair.KEY:  # set by the table from a group's public history, not a form option
                try:
                    result[key] = fair.check(value, players)
                except ValueError as error:
                    raise OptionError(str(error)) from error
                continue
            spec = specs.get(key)
            if spec is None:
                raise OptionError(f"unknown option {key!r}")
            result[key] = check_option(spec, value, players)
        self.check_options(result, players)
        return result

    def check_options(self, options: JSONDict, players: int | None) -> None:
        """Rules that tie options together or to the player count; raises OptionError."""

    def setup(self, players: int, options: JSONDict, seed: int) -> State:
        """The dealt state: checks the count and the options, then the engine's ``_setup``."""
        self.check_players(players)
        checked = self.validate_options(options, players)
        fair_deal = checked.pop(fair.KEY, None)
        if fair_deal is None:
            return self._setup(players, checked, seed)
        return cast(State, fair.fair_setup(self, players, checked, seed, fair_deal))

    def _setup(self, players: int, options: JSONDict, seed: int) -> State:
        """Deal a new game from checked options (every engine implements it)."""
        raise NotImplementedError

    # ``{action type: method name}``: ``_apply`` calls ``getattr(self, name)(state, seat, action)``.
    handlers: dict[str, str] = {}

    def _apply(self, state: State, seat: int, action: JSONDict) -> None:
        """Dispatch a listed action to its handler (``handlers``); engines may override instead."""
        name = self.handlers.get(action["type"])
        if name is None:
            raise IllegalAction(f"unknown action type {action['type']!r}")
        getattr(self, name)(state, seat, action)

    def check_players(self, players: int) -> None:
        """Raise OptionError unless the count fits the game."""
        if not self.min_players <= players <= self.max_players:
            raise OptionError(
                f"{self.title} needs {self.min_players}-{self.max_players} players, not {players}"
            )

    def apply(self, state: State, seat: int, action: JSONDict) -> State:
        """The state after ``seat`` plays ``action``; the input is never changed."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action is a dict with a 'type'")
        if type(seat) is not int or not 0 <= seat < self.seat_count(state):
            raise IllegalAction(f"there is no seat {seat!r} at this table"[:100])
        if self.outcome(state) is not None:
            raise IllegalAction("the game is over")
        listed = find_legal(action, self.legal_actions(state, seat))
        if listed is None:
            raise IllegalAction(f"not a legal action for seat {seat} now: {canonical(action) or '(not JSON)'}"[:300])
        new = self.copy_state(state)
        # The engine gets its own listed action, never the caller's object (types and all).
        self._apply(new, seat, copy.deepcopy(listed))
        return new

    # View keys that tell a seat what it may do now, not what it knows (its step, its buttons): the generic
    # ``undoable`` lets them change for a seat other than the mover (a declaration gives them a challenge to answer).
    prompt_keys: frozenset[str] = frozenset()

    def undoable(self, before: State, seat: int, action: JSONDict, after: State, *, every_view: bool = True) -> bool:
        """Whether ``seat``'s ``action``, which took ``before`` to ``after`` (``apply``), may be taken back: it revealed
        nothing to anyone, so the table may return to ``before`` and no one has seen what that would hide.

        The caller judges the rest: that no move came after it, and that the table agreed. The generic rule, which a
        game narrows where its rules show something this cannot see (a card turned face up for everyone, a tally):
        the game was not over before and is not over after (the end reveals everything); no randomness was drawn
        (the generator's counter did not move: nothing was shuffled or dealt); the move wrote no private log entry
        (nobody, the mover included, was told a card drawn or shown, a role seen); and no other seat's own part of its
        view (what differs from the board's, but its ``prompt_keys``) gained anything (``gained_nothing``): nobody
        else learned anything for themself. The mover's own choice (a hidden vote, the order of their own cards)
        may stay with them.

        ``every_view=False`` judges all but the last (no view is built): what a table may offer after every move,
        cheaply; the whole rule is judged again when the mover asks (``gameplay.undo.undo_ask``).
        """
        if self.outcome(before) is not None or self.outcome(after) is not None:
            return False
        if after.get("seed") != before.get("seed") or after.get("draws", 0) != before.get("draws", 0):
            return False
        entries = new_entries(before, after)
        if entries is None or any(entry.get("private") for entry in entries):
            return False
        if not every_view:
            return True
        board_before, board_after = self.view(before, None), self.view(after, None)
        ignored = {"seat", "legal", "log", *self.prompt_keys}
        for other in range(self.seat_count(before)):
            if other != seat and not gained_nothing(own_part(self.view(before, other), board_before, ignored),
                                                    own_part(self.view(after, other), board_after, ignored)):
                return False
        return True

    def replay(self, state: State, moves: Moves) -> State:
        """``state`` folded over moves that the log accepted: what ``apply`` and ``on_timeout``
        give one by one, faster (the input is never changed).

        It works on one copy and skips the legality check: every logged move passed ``apply``
        when it was made. ``manage.py verify_game`` replays through ``apply`` to check a log.
        An undo entry (``is_undo``) returns to the state before the move it takes back (``undo_plan``), so the
        result equals the replay of ``effective_moves``, the generator's counter included: an undone move's draws
        are forgotten with it.
        """
        listed, undone = undo_plan(moves)
        state = self.copy_state(state)
        saved: list[State] = []  # the states before the moves an undo will take back, the latest last
        for index, (seat, action) in enumerate(listed):
            if is_undo(seat, action):
                state = saved.pop()
                continue
            if index in undone:
                saved.append(state)
                state = self.copy_state(state)
            if seat is None:
                state = self.on_timeout(state)
            else:
                self._apply(state, seat, copy.deepcopy(action or {}))
        return state

    def replay_checked(self, state: State, moves: Moves) -> State:
        """``state`` folded over ``moves`` judged again one by one: ``apply`` for a seat's move
        (raises IllegalMove on one the rules refuse), ``on_timeout`` for the clock's (seat None).
        What ``manage.py verify_game`` and the contract tests check a log with.

        An undo entry returns to the state before the move it takes back, and raises IllegalAction unless that
        move was ``undoable`` (the caller checked the table's consent; the engine, that the move revealed nothing).
        """
        listed, undone = undo_plan(moves)
        saved: list[State] = []
        for index, (seat, action) in enumerate(listed):
            if is_undo(seat, action):
                state = saved.pop()
                continue
            before = state
            state = self.on_timeout(state) if seat is None else self.apply(state, seat, cast(JSONDict, action))
            if index in undone:
                assert seat is not None  # undo_plan refuses to take back a timeout
                if not self.undoable(before, seat, cast(JSONDict, action), state):
                    raise IllegalAction(f"move {index + 1} revealed something and cannot be undone")
                saved.append(before)
        return state

    def seat_count(self, state: State) -> int:
        """How many seats the game has (``state["players"]``: a count, or a list by seat)."""
        players = state["players"]
        return players if isinstance(players, int) else len(players)

    def copy_state(self, state: State) -> State:
        """A copy of the state that ``_apply`` may change freely (engines may share what never changes)."""
        return copy.deepcopy(state)

    def legal_actions(self, state: State, seat: int) -> list[JSONDict]:
        """Every concrete action ``seat`` may play now ([] when none)."""
        raise NotImplementedError

    def view(self, state: State, seat: int | None) -> JSONDict:
        """What ``seat`` may see (None: the public board); every engine implements it."""
        raise NotImplementedError

    def outcome(self, state: State) -> JSONDict | None:
        """The result once the game is over, else None."""
        raise NotImplementedError

    def window(self, state: State) -> str | None:
        """The id of the open response window the table timer may close, or None."""
        return None

    def countdown(self, state: State) -> int | None:
        """Seconds of the open window's own fixed countdown (a silent window), or None.

        A silent window closes by itself when its countdown ends (``on_timeout``) unless
        someone acts; nobody taps Pass, so its legal actions are only real choices. None:
        the table's response timer (if any) applies to ``window()`` as usual.
        """
        return None

    def on_timeout(self, state: State) -> State:
        """What the expiry of the open window does (default: nothing to expire)."""
        raise IllegalAction("no response window is open")

    def encode(self, state: State) -> JSONDict:
        """A JSON-able snapshot: a copy of the state, which is plain JSON data already (dicts, lists, scalars: the
        contract test checks it), made by :func:`clone` (``copy.deepcopy`` took 2.5 times as long, once a move)."""
        return cast(JSONDict, clone(state))

    def decode(self, data: JSONDict) -> State:
        """The state back from ``encode``: the same object, no copy (a read never changes a state,
        and ``apply`` works on a copy; the contract test checks both), so a page pays no copy."""
        return data


def own_part(view: JSONDict, board: JSONDict, ignored: set[str]) -> JSONDict:
    """What a seat's view shows beside the board's: its keys whose value differs from the board's (but ``ignored``)."""
    return {key: value for key, value in view.items() if key not in ignored and value != board.get(key)}


def gained_nothing(own_before: JSONDict, own_after: JSONDict) -> bool:
    """Whether a seat's own part after a move holds nothing it did not hold before (a fact it lost, say a card it saw
    handed back, is no gain: that key now shows what the board shows)."""
    return all(key in own_before and own_before[key] == value for key, value in own_after.items())


def check_option(spec: JSONDict, value: Any, players: int | None) -> Any:
    """One option value checked against its spec; raises OptionError."""
    kind = spec["kind"]
    key = spec["key"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise OptionError(f"{key} must be true or false")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"{key} must be a whole number")
        if not spec.get("min", value) <= value <= spec.get("max", value):
            raise OptionError(f"{key} must be from {spec.get('min')} to {spec.get('max')}")
        return value
    if kind == "choice":
        if value not in [choice[0] for choice in spec["choices"]]:
            raise OptionError(f"{key} must be one of {[c[0] for c in spec['choices']]}")
        return value
    if kind == "seat":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise OptionError(f"{key} must be a seat number or empty")
        if players is not None and value >= players:
            raise OptionError(f"{key}: there is no seat {value + 1}")
        return value
    if kind == "counts":
        if not isinstance(value, dict) or set(value) != set(spec["default"]):
            raise OptionError(f"{key} must give a count for each of {sorted(spec['default'])}")
        for name, count in value.items():
            if isinstance(count, bool) or not isinstance(count, int):
                raise OptionError(f"{key}: {name} must be a whole number")
            if not spec.get("min", 0) <= count <= spec.get("max", count):
                raise OptionError(f"{key}: {name} must be from {spec.get('min', 0)} to {spec.get('max')}")
        return dict(value)
    raise OptionError(f"{key}: unknown option kind {kind}")


def seat_team(outcome: JSONDict, seat: int) -> str | None:
    """The team a seat ended on, from ``outcome["teams"]`` ({team: [seats]} or {seat: team})."""
    teams = outcome.get("teams") or {}
    for key, value in teams.items():
        if isinstance(value, list) and seat in value:
            return str(key)
        if not isinstance(value, list) and str(key) == str(seat):
            return str(value)
    return None
