"""Writes to the event log: start a game, submit a move, expire a window, host controls, seat links.

Every write to a game locks its row (:func:`_locked_game`), checks, changes it in that one
transaction, and pushes the table's new revision after commit (:func:`_changed`, through
``lobby.notify``). Refusals are raised as domain errors (:class:`MoveRefused` and its kinds,
:class:`GameError` with a message for people); the views decide what to answer. Reads (the
state a move is judged on) come from ``gameplay.selectors``. Nothing here trusts the phone
beyond its seat.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.hashers import check_password, make_password
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from engines.base import IllegalAction, OptionError, canonical, new_entries, new_seed, seed_hash
from engines.registry import get_engine
from gameplay import presence
from gameplay.briefing import seat_private_lines
from gameplay.fairness import fair_deal_options
from gameplay.models import PIN_TRIES, Game, GameSeat, Move, SeatHandover
from gameplay.seats import game_seats, seat_index
from gameplay.selectors import game_state, handovers_live
from infra.prepared import Prepared, insert, save_fields
from lobby.models import Player, Seat, Table
from lobby.notify import table_notify

logger = logging.getLogger(__name__)


class GameError(Exception):
    """A request the table cannot take (a clear message for people, nothing changed)."""


class MoveRefused(GameError):
    """A move (or a wait) the table does not take; nothing changed. The kinds below say why."""


class NoGame(MoveRefused):
    """No game is running at the table."""


class NotYourSeat(MoveRefused):
    """The request holds no seat of this game (a spectator, a moved-away phone, a forged bot seat)."""


class GameOver(MoveRefused):
    """The game has ended."""


class Stale(MoveRefused):
    """A turn action from a screen older than the table (or a race lost to another move)."""


class WindowClosed(MoveRefused):
    """An answer to a response window that has closed (or, for a wait, no silent window is open)."""


class AlreadyWaited(MoveRefused):
    """This seat asked the open silent window to wait already."""


class Malformed(MoveRefused):
    """The action is not a plain JSON object."""


class IllegalMove(MoveRefused):
    """The engine does not take this action from this seat now (or failed on it)."""


class IncompletePick(IllegalMove):
    """A move the engine lists, sent with too few of the things it picks (no card ticked, one of two)."""


def incomplete_pick(legal: list[dict], action: dict) -> bool:
    """Whether ``action`` is one of the ``legal`` actions but for its picks: a list field missing or short.

    A listed action with list fields (Blackmail's and Wiretap's ``cards``, a team) matches when
    every other field is the same and each of its lists is missing from ``action`` or shorter.
    """
    for listed in legal:
        lists = [key for key, value in listed.items() if isinstance(value, list)]
        if not lists or any(key not in lists and action.get(key) != value for key, value in listed.items()):
            continue
        if set(action) - set(listed):
            continue
        picks = [action.get(key) for key in lists]
        if all(pick is None or isinstance(pick, list) for pick in picks) and any(
                pick is None or len(pick) < len(listed[key]) for key, pick in zip(lists, picks, strict=True)):
            return True
    return False


@dataclass(frozen=True)
class MoveResult:
    """A move that was taken: its place in the log.

    ``duplicate``: a repeated move id answered with the first result; nothing was played now
    (a double tap is not an error, and it is never a bot's progress).
    """

    seq: int
    duplicate: bool = False
    # The game row as the move left it (its seats read), and the table revision that labels it:
    # the view answers with the fresh panel from these, without reading them again.
    game: Game | None = None
    revision: int | None = None


@contextmanager
def _locked_game(game_id: int | None = None, *, table_id: int | None = None) -> Iterator[Game]:
    """A new transaction holding the game row's SELECT FOR UPDATE lock; yields the fresh row.

    Every check-change-save of a game runs inside it, so concurrent requests and workers
    see and change one game one at a time (answers racing into one window are serialized here).
    By ``table_id``: the table's running game (one read, no lookup before it); raises NoGame.
    """
    with transaction.atomic():
        if game_id is not None:
            game = GAME_LOCKED.first(game_id)
            if game is None:
                raise Game.DoesNotExist("no game with this id")
            yield game
            return
        game = RUNNING_GAME_LOCKED.first(table_id)
        if game is None:
            raise NoGame("no game is running at this table")
        yield game


GAME_LOCKED: Prepared[Game] = Prepared(lambda game_id: Game.objects.select_for_update().filter(pk=game_id), int)
RUNNING_GAME_LOCKED: Prepared[Game] = Prepared(
    lambda table_id: Game.objects.select_for_update().filter(table_id=table_id, status=Game.RUNNING).order_by("pk")[:1],
    int)


def _changed(game: Game, fields: list[str] | None = None) -> int:
    """Save the changed game row (only ``fields`` if given) and bump its table's revision (pushed after commit).

    Should be called while holding the game row's lock (inside :func:`_locked_game`). Returns
    the table's new revision.
    """
    save_fields(game, fields)
    return table_notify(table_id=game.table_id)


def _free_table(game: Game) -> None:
    """The game ended: its table takes seat and settings changes again (``Table.in_game``).

    Should be called inside the transaction that ends the game.
    """
    Table.objects.filter(pk=game.table_id).update(in_game=False)


@dataclass(frozen=True)
class _Step:
    """What the engine says of a new state, asked before anything is written."""

    snapshot: dict
    outcome: dict | None
    window: str
    countdown: int | None  # a silent window's own seconds
    awaiting: list[int]  # whom the game waits for (public): the worker skips games awaiting no bot


def _step(engine, state) -> _Step:
    """Snapshot, outcome, window and its countdown of ``state``: every engine call a move needs (may raise)."""
    outcome = engine.outcome(state)
    window = "" if outcome is not None else (engine.window(state) or "")
    awaiting = [] if outcome is not None else sorted(engine.awaiting(state))
    return _Step(engine.encode(state), outcome, window, engine.countdown(state) if window else None, awaiting)


def _open_window(game: Game, step: _Step, now: datetime) -> None:
    """A new response window gets a fresh countdown (its own if silent, else the table's timer)."""
    game.window, game.countdown, game.waits = step.window, step.countdown, []
    seconds = step.countdown if step.countdown is not None else game.timer_seconds
    timed = bool(step.window and seconds)
    if game.paused:
        game.deadline = None
        game.paused_remaining = float(seconds) if timed else None
    else:
        game.deadline = now + timedelta(seconds=seconds) if timed else None


_WINDOW_FIELDS = ["window", "countdown", "waits", "deadline", "paused_remaining"]


def _advance(game: Game, step: _Step, now: datetime) -> list[str]:
    """Record a new state on the game row: snapshot, version, outcome, the window's deadline.

    Should be called while holding the game row's lock; the caller saves (:func:`_changed`)
    the fields this returns, the only ones it changed.
    """
    game.version += 1
    game.snapshot = step.snapshot
    game.awaiting = step.awaiting
    if step.outcome is not None:
        game.status = Game.FINISHED
        game.outcome = step.outcome
        game.finished = now
        game.window, game.deadline, game.paused_remaining, game.countdown = "", None, None, None
        game.bot_due = False
        _free_table(game)
        return ["version", "snapshot", "awaiting", "bot_due", "status", "outcome", "finished", *_WINDOW_FIELDS]
    fields = ["version", "snapshot", "awaiting", "bot_due"]
    if step.window != game.window:
        _open_window(game, step, now)  # the same window keeps its deadline
        fields += _WINDOW_FIELDS
    game.bot_due = bot_due(game.awaiting, game.countdown, {s.index for s in game_seats(game) if s.bot})
    return fields


def bot_due(awaiting: list[int], countdown: int | None, bots: set[int]) -> bool:
    """Whether a bot has something to do: one is awaited, or a silent window is open (bots may play).

    Kept on the game row (``Game.bot_due``, indexed), so the worker reads only the games that are due.
    """
    return bool(bots) and (countdown is not None or not bots.isdisjoint(awaiting))


def game_start(*, table: Table) -> Game:
    """Deal a new game on the table's current seats (checks the count and the options).

    Serialised on the table row (and by the database's one-running-game constraint), so a
    double tap on Start, or two hosts' devices at once, deal exactly one game.
    """
    engine = get_engine(table.engine)
    try:
        with transaction.atomic():
            table = Table.objects.select_for_update().get(pk=table.pk)
            if table.games.filter(status=Game.RUNNING).exists():
                raise GameError(_("A game is already running at this table."))
            seats = list(table.seats.select_related("player").order_by("position"))
            players = len(seats)
            try:
                engine.check_players(players)
                options = engine.validate_options(table.options, players)
                options = fair_deal_options(table=table, options=options, seats=seats)  # a group's fair deals
            except OptionError as error:
                raise GameError(gettext(str(error))) from error
            seed = new_seed()
            step = _step(engine, engine.setup(players, options, seed))
            game = Game(
                table=table,
                engine=table.engine,
                options=options,
                players=players,
                seed=str(seed),
                seed_hash=seed_hash(seed),
                timer_seconds=table.timer_seconds,
                group_id=table.group_id,  # the game counts for the group the table played for at its start
                # A host without a seat runs the game from the board: it is in their history as moderator.
                moderator_id=None if any(seat.player_id == table.host_id for seat in seats) else table.host_id,
                snapshot=step.snapshot,
                awaiting=step.awaiting,
            )
            _open_window(game, step, timezone.now())
            game.bot_due = bot_due(step.awaiting, game.countdown, {i for i, seat in enumerate(seats) if seat.bot})
            game.save()
            GameSeat.objects.bulk_create(
                GameSeat(game=game, index=i, player=seat.player, name=seat.name, bot=seat.bot)
                for i, seat in enumerate(seats)
            )
            table.in_game = True
            table.save(update_fields=["in_game"])
            table_notify(table_id=table.pk)
    except IntegrityError as error:
        raise GameError(_("A game is already running at this table.")) from error
    return game


def _seat_of(game: Game, player: Player | int | None, bot_seat: int | None, devices: dict | None = None) -> int:
    """The seat this request plays in ``game``; raises NotYourSeat."""
    if bot_seat is not None:
        if any(s.index == bot_seat and s.bot for s in game_seats(game)):
            return bot_seat
        raise NotYourSeat("not a bot seat")
    # A seat handed to a bot, or moved to another phone, no longer takes moves from its former phone.
    seat = seat_index(game, player, devices)
    if seat is None:
        raise NotYourSeat("you have no seat in this game")
    return seat


def move_submit(
    *,
    game_id: int | None = None,
    table_id: int | None = None,
    player: Player | int | None,
    version: int | None,
    move_id: str | None,
    action: object,
    bot_seat: int | None = None,
    window: str = "",
    devices: dict | None = None,
) -> MoveResult:
    """Check and append one move: lock, seat, dedupe, version or window, legality, append, push.

    A move is judged against the table as it is now. A turn action needs the screen's
    ``version``; an answer in a response window needs only that window (``window``, the id
    the screen showed) to be still open: other seats' answers meanwhile don't bounce it,
    because an engine's window id changes whenever what an awaited seat decides upon changes.

    An action is legal only if it is exactly one the engine lists (``engines.base.find_legal``:
    same JSON, types included). Any error inside the engine is a refused move (logged) that
    changes nothing, so one crafted move can never brick a table.

    Raises NotYourSeat, GameOver, Stale, WindowClosed, Malformed or IllegalMove (IncompletePick
    for a listed move sent with too few picks; all MoveRefused); a repeated move id of the seat
    returns the first result (``duplicate``).
    """
    seat: int | None = None
    try:
        with _locked_game(game_id, table_id=table_id) as game:
            game_id = game.pk
            seat = _seat_of(game, player, bot_seat, devices)
            try:
                return _move(game, seat, version, move_id, action, window, by_bot=bot_seat is not None)
            except MoveRefused:
                # A double tap repeats the first answer, never the move: asked only when refused.
                first = _already_played(game_id, seat, move_id)
                if first is None:
                    raise
                return first
    except IntegrityError as error:
        # The same move id raced in, or another request took this seq first: the first wins.
        first = _already_played(game_id, seat, move_id) if game_id is not None else None
        if first is not None:
            return first
        raise Stale("the table moved on") from error


def _already_played(game_id: int, seat: int | None, move_id: str | None) -> MoveResult | None:
    """The first result of this seat's move id, if it was played (move ids are per seat)."""
    if not move_id or seat is None:
        return None
    first = Move.objects.filter(game_id=game_id, seat=seat, client_move_id=move_id).values_list("seq", flat=True)
    seq = first.first()
    return None if seq is None else MoveResult(seq, duplicate=True)


def _move(game: Game, seat: int, version: int | None, move_id: str | None, action: object, window: str,
          by_bot: bool = False) -> MoveResult:
    """Judge and record one move on the locked game row (see :func:`move_submit`)."""
    if game.over:
        raise GameOver("the game is over")
    if version != game.version and not (window and window == game.window_token):
        if window:
            raise WindowClosed("the window closed")
        raise Stale("the table moved on")
    if not isinstance(action, dict) or canonical(action) is None:
        raise Malformed("malformed move")
    engine = get_engine(game.engine)
    before = game_state(game)
    try:
        state = engine.apply(before, seat, action)
        step = _step(engine, state)
    except IllegalAction as error:
        if incomplete_pick(engine.legal_actions(before, seat), action):
            raise IncompletePick(f"an incomplete pick: {error}") from error
        raise IllegalMove(f"not allowed now: {error}") from error
    except Exception as error:
        logger.exception("engine %s failed on a move in game %s (refused)", game.engine, game.pk)
        raise IllegalMove("not allowed now: the game could not take this move") from error
    # ``action`` equals a listed action exactly, so the log holds the engine's own JSON. A
    # repeated move id of this seat fails the unique constraint: see move_submit.
    seq = game.version + 1
    insert(Move(game=game, seq=seq, seat=seat, action=action, client_move_id=move_id or None))
    # A bot never asks to take its move back: its move is not judged for it (a view of every seat, twice).
    point = None if by_bot else _undo_point(engine, game, seat, action, before, state)
    undo_fields = _undo_after(game, point)
    revision = _changed(game, [*_advance(game, step, timezone.now()), *undo_fields])
    return MoveResult(seq, game=game, revision=revision)


def _undo_point(engine, game: Game, seat: int, action: dict, before, after) -> dict | None:
    """The move about to be logged as the table may take it back (``Game.undo_point``), or None where the engine
    says it revealed something (``Engine.undoable`` without building every seat's view, twice: that last part is
    judged when the mover asks, ``gameplay.undo.undo_ask``); an engine failing on the question answers None (logged)."""
    try:
        if not engine.undoable(before, seat, action, after, every_view=False):
            return None
    except Exception:
        logger.exception("engine %s failed judging an undo in game %s (not undoable)", game.engine, game.pk)
        return None
    lines = [entry for entry in new_entries(before, after) or [] if not entry.get("private")]
    return {"seq": game.version + 1, "seat": seat, "lines": lines}


def _undo_after(game: Game, point: dict | None) -> list[str]:
    """A move (or a timeout) is about to be logged: it alone may be taken back (``point``), and an open undo
    request is void (it named the move before). Returns the fields changed."""
    game.undo_point = point
    request = game.undo_request
    if request is None or request.get("status") != "open":
        return ["undo_point"]
    game.undo_request, game.undo_deadline = {**request, "status": "void"}, None
    return ["undo_point", "undo_request", "undo_deadline"]


def game_expire(*, game_id: int, now: datetime | None = None) -> bool:
    """If the open window's deadline has passed, record its expiry as a system move.

    An engine that fails on the expiry changes nothing but the deadline, which is cleared
    (logged), so no page and no worker runs a failing expiry twice; the window stays open
    for the seats' own answers.
    """
    now = now or timezone.now()
    with _locked_game(game_id) as game:
        if game.over or game.paused or not game.window or game.deadline is None or game.deadline > now:
            return False
        engine = get_engine(game.engine)
        try:
            step = _step(engine, engine.on_timeout(game_state(game)))
        except Exception:
            logger.exception("engine %s failed expiring window %r in game %s", game.engine, game.window, game.pk)
            game.deadline = None
            _changed(game, ["deadline"])
            return False
        Move.objects.create(game=game, seq=game.version + 1, seat=None, action={"type": "timeout"})
        undo_fields = _undo_after(game, None)  # the clock's expiry is never undone
        _changed(game, [*_advance(game, step, now), *undo_fields])
        return True


WAIT_SECONDS = 15


def window_wait(*, game_id: int | None = None, table_id: int | None = None, player: Player | int | None,
                devices: dict | None = None) -> None:
    """A seat asks a silent window to wait: its countdown runs at least ``WAIT_SECONDS`` more.

    Every seated phone may ask once per window, holder of a card or not, so asking reveals
    nothing; no screen shows who asked (only that someone did). Raises NoGame (by
    ``table_id``), NotYourSeat, WindowClosed (no silent window is open) or AlreadyWaited.
    """
    with _locked_game(game_id, table_id=table_id) as game:
        seat = _seat_of(game, player, None, devices)
        if game.over or not game.window or game.countdown is None:
            raise WindowClosed("no silent window is open")
        if seat in game.waits:
            raise AlreadyWaited("this seat asked already")
        game.waits = [*game.waits, seat]
        if game.paused:
            game.paused_remaining = max(game.paused_remaining or 0.0, float(WAIT_SECONDS))
        else:
            later = timezone.now() + timedelta(seconds=WAIT_SECONDS)
            game.deadline = max(game.deadline, later) if game.deadline else later
        _changed(game, ["waits", "deadline", "paused_remaining"])


def timer_pause(*, game: Game) -> None:
    """Stop the countdown, keeping the time that was left."""
    with _locked_game(game.pk) as game:
        if game.over or game.paused:
            return
        game.paused = True
        if game.deadline is not None:
            game.paused_remaining = max(0.0, (game.deadline - timezone.now()).total_seconds())
            game.deadline = None
        _changed(game)


def timer_resume(*, game: Game) -> None:
    """Restart the countdown with the time that was left when it was paused."""
    with _locked_game(game.pk) as game:
        if game.over or not game.paused:
            return
        game.paused = False
        if game.window and game.paused_remaining is not None:
            game.deadline = timezone.now() + timedelta(seconds=game.paused_remaining)
        game.paused_remaining = None
        _changed(game)


def game_end_early(*, game: Game, by: Player | None = None) -> None:
    """The host (``by``) stops the game: recorded as ended, nobody wins, the seed is revealed.

    The outcome names the host as the end screen says it (``by``) and keeps their player id
    (``by_player``), so a deleted account's name can be taken out again (``forget_ender``).
    """
    with _locked_game(game.pk) as game:
        if game.over:
            return
        game.status = Game.ENDED
        ender = {"by": by.nickname, "by_player": by.pk} if by is not None else {}
        game.outcome = {"winners": [], "reason": "ended_by_host", **ender}
        game.finished = timezone.now()
        game.window, game.deadline, game.countdown = "", None, None
        _free_table(game)
        _changed(game)


def forget_ender(*, player: Player) -> None:
    """Take a deleted account's name out of the games it ended early (the end screen then says "the host")."""
    for game in Game.objects.filter(outcome__by_player=player.pk):
        game.outcome = {k: v for k, v in game.outcome.items() if k not in ("by", "by_player")}
        game.save(update_fields=["outcome"])


def seat_to_bot(*, game: Game, index: int, policy: str = "heuristic") -> None:
    """A player left mid-game: a bot takes the seat (and the table seat) from now on.

    Raises GameSeat.DoesNotExist for an index the game does not have.
    """
    with _locked_game(game.pk) as game:
        gseat = GameSeat.objects.select_for_update().get(game=game, index=index)
        if gseat.bot:
            return
        gseat.bot = policy
        # The name stays the player's: pages draw the bot mark from ``bot`` (seats_info's is_bot),
        # in each reader's language, never a word stored in the name.
        gseat.save(update_fields=["bot"])  # the player stays on the game seat, so the game stays in their history
        bots = {s.index for s in game.seats.exclude(bot="")}
        game.bot_due = bot_due(game.awaiting, game.countdown, bots)
        Game.objects.filter(pk=game.pk).update(bot_due=game.bot_due)
        if gseat.player is not None:
            Seat.objects.filter(table_id=game.table_id, player=gseat.player).update(
                player=None, bot=policy, bot_name=gseat.name[:24]
            )
        table_notify(table_id=game.table_id)


def player_games_merge(*, guest: Player, into: Player) -> None:
    """An account took over a guest (``lobby.signals.guest_merged``): the guest's game seats are the account's.

    Should be called inside the lobby's merge transaction.
    """
    GameSeat.objects.filter(player=guest).update(player=into)
    Game.objects.filter(moderator=guest).update(moderator=into)


def seat_handover_create(*, game: Game, index: int, by_host: bool) -> SeatHandover:
    """A one-time link (valid ``HANDOVER_MINUTES``) that moves seat ``index`` to a new phone.

    Asked by the seat's own phone, or by the host only for a seat whose phone has been gone
    ``presence.GONE_SECONDS`` or a bot's seat, for a person to take over (then announced on the board, so
    nobody is handed a seat to peek at unseen). A new link replaces the seat's older ones: one live link per seat.
    """
    with _locked_game(game.pk) as game:
        gseat = game.seats.filter(index=index).first()
        if game.over or gseat is None or (gseat.bot and not by_host):
            raise GameError(_("That seat cannot move to a new phone now."))
        if by_host and not gseat.bot:
            _check_phone_gone(game, gseat)
        game.handovers.filter(index=index, used=None).update(revoked=True)
        link = SeatHandover.objects.create(token=secrets.token_urlsafe(24), game=game, index=index, by_host=by_host)
        _note_seat_move(game, index, by_host=by_host, moved=False, **({"bot": True} if gseat.bot else {}))
        if by_host:
            _changed(game, ["seat_moves"])  # the board announces the rescue link
        else:
            game.save(update_fields=["seat_moves"])
        return link


def _check_phone_gone(game: Game, gseat: GameSeat) -> None:
    """The host's rescue link is only for a seat whose phone has been gone a while; raises GameError otherwise."""
    quiet = presence.quiet_for(game, game.table_id)
    if quiet is None:
        raise GameError(_("The table cannot tell right now whether that phone is gone; try again in a moment."))
    if quiet.get(gseat.index, float("inf")) < presence.GONE_SECONDS:
        raise GameError(
            _("%(name)s's phone was at the table a moment ago: they can move their seat from their own phone.")
            % {"name": gseat.name}
        )


def _note_seat_move(game: Game, index: int, *, by_host: bool, moved: bool, **flags: bool) -> None:
    """Keep on the game row what the table is told of seats moving (``selectors.handover_notes``); ``flags``: ``bot``
    (a person takes over a bot's seat), ``shared`` (the seat is played on the host's device, or back)."""
    game.seat_moves = [*game.seat_moves, {"index": index, "by_host": by_host, "moved": moved,
                                          "at": timezone.now().isoformat(), **flags}]


def seat_handover_claim(*, token: str) -> tuple[Game, str]:
    """Open a seat link: the seat moves to this phone (a new device token), the old one is revoked.

    Returns the game and the token the claiming browser must keep. Raises GameError for an
    unknown, used, replaced or expired link, or a game that is over. Nobody's account moves.
    """
    now = timezone.now()
    with transaction.atomic():
        link = SeatHandover.objects.select_for_update().filter(token=token).first() if token else None
        if link is None or link not in handovers_live(link.game, now):
            raise GameError(_("This seat link is unknown, was already used, or has expired (links last 10 minutes)."))
        game = Game.objects.select_for_update().get(pk=link.game_id)
        if game.over:
            raise GameError(_("That game is over."))
        device = secrets.token_urlsafe(24)
        # The phone opening the link is at the table now. Marked before the push that tells the table of the
        # move renders, or every phone (which refetches nothing until the next move) would keep calling the
        # seat's new phone asleep.
        presence.seen(game.table_id, None, [device])
        from_bot = GameSeat.objects.filter(game=game, index=link.index).exclude(bot="").exists()
        # A bot's seat becomes a person's: the bot stops playing it (the worker plays only bot seats).
        GameSeat.objects.filter(game=game, index=link.index).update(device=device, bot="")
        link.used = now
        link.save(update_fields=["used"])
        _note_seat_move(game, link.index, by_host=link.by_host, moved=True, **({"bot": True} if from_bot else {}))
        bots = set(game.seats.exclude(bot="").values_list("index", flat=True))
        game.bot_due = bot_due(game.awaiting, game.countdown, bots)
        _changed(game, ["seat_moves", "bot_due"])
        return game, device


def seat_share(*, game: Game, index: int) -> str:
    """The host plays seat ``index`` on their own device for a player without a phone (pass-and-play).

    The seat gets a new device token (its phone, if any, stops showing it at once, as after a seat link) that the
    host's device keeps apart from its own seat; the whole table is told. Returns the token. Raises GameError for a
    game that is over, an unknown seat or a bot's seat."""
    with _locked_game(game.pk) as game:
        gseat = game.seats.filter(index=index).first()
        if game.over or gseat is None or gseat.bot:
            raise GameError(_("That seat cannot be played on this device now."))
        device = secrets.token_urlsafe(24)
        # A fresh start on this device: no PIN yet, and what the seat was shown before is not a new result here.
        shown = len(seat_private_lines(game, index))
        GameSeat.objects.filter(pk=gseat.pk).update(device=device, pin="", pin_tries=0, results_shown=shown)
        game.handovers.filter(index=index, used=None).update(revoked=True)
        _note_seat_move(game, index, by_host=True, moved=True, shared=True)
        _changed(game, ["seat_moves"])
        return device


def seat_unshare(*, game: Game, index: int, device: str) -> None:
    """The host stops playing seat ``index`` on their device (``device``: the token it holds): the seat goes back to
    its player's own phone; the whole table is told. Raises GameError when the seat is not played there."""
    with _locked_game(game.pk) as game:
        gseat = game.seats.filter(index=index).first()
        if game.over or gseat is None or not device or gseat.device != device:
            raise GameError(_("That seat is not played on this device."))
        GameSeat.objects.filter(pk=gseat.pk).update(device="", pin="", pin_tries=0)  # her own phone needs no PIN
        _note_seat_move(game, index, by_host=True, moved=True, shared=False)
        _changed(game, ["seat_moves"])



# ---- A shared seat's PIN, and its private results shown to it (pass-and-play) ----------------------------------------

def pin_digits(pin: str) -> str:
    """``pin`` as ASCII digits (a phone's keypad may type Persian or Arabic-Indic ones); GameError unless it is 4 to 6
    digits."""
    pin = pin.strip()
    if not 4 <= len(pin) <= 6 or not all(char.isdecimal() for char in pin):
        raise GameError(_("A PIN is 4 to 6 digits."))
    return "".join(str(int(char)) for char in pin)


def _held_seat(game: Game, index: int, device: str) -> GameSeat:
    """Seat ``index`` of ``game`` as played on the device holding ``device``, its row locked; GameError otherwise."""
    gseat = GameSeat.objects.select_for_update().filter(game_id=game.pk, index=index).first()
    if game.over or gseat is None or not device or gseat.device != device:
        raise GameError(_("That seat is not played on this device."))
    return gseat


def seat_pin_set(*, game: Game, index: int, device: str, pin: str) -> None:
    """The player of a seat played on this device (``device``: its token) chooses a PIN, once: only its hash is kept.
    Raises GameError for a bad PIN, a seat not played there, or one that has a PIN already (the host clears it)."""
    digits = pin_digits(pin)
    with transaction.atomic():
        gseat = _held_seat(game, index, device)
        if gseat.pin:
            raise GameError(_("This seat has a PIN already: the host can clear it."))
        GameSeat.objects.filter(pk=gseat.pk).update(pin=make_password(digits), pin_tries=0)
    table_notify(table_id=game.table_id)  # the host's controls offer to clear it


def seat_pin_check(*, game: Game, index: int, device: str, pin: str) -> None:
    """Whether ``pin`` opens the seat played on this device: returns when it does (its wrong tries start again).
    Raises GameError for a wrong PIN (counted), a seat locked by ``PIN_TRIES`` wrong ones, one without a PIN, a PIN
    that is not 4 to 6 digits (not counted), or a seat not played there."""
    digits = pin_digits(pin)
    with transaction.atomic():
        gseat = _held_seat(game, index, device)
        if not gseat.pin:
            raise GameError(_("This seat has no PIN."))
        if gseat.pin_tries >= PIN_TRIES:
            raise GameError(_("Too many wrong PINs: the host must clear this seat's PIN."))
        right = check_password(digits, gseat.pin)
        tries = 0 if right else gseat.pin_tries + 1
        GameSeat.objects.filter(pk=gseat.pk).update(pin_tries=tries)
    if not right:
        if tries >= PIN_TRIES:
            raise GameError(_("Too many wrong PINs: the host must clear this seat's PIN."))
        raise GameError(_("Wrong PIN. Tries left: %(n)s.") % {"n": PIN_TRIES - tries})


def seat_pin_clear(*, game: Game, index: int) -> None:
    """The host clears the PIN of a seat (after wrong tries locked it, or a forgotten PIN); the table is told.
    Raises GameError when the seat has no PIN."""
    with _locked_game(game.pk) as game:
        gseat = game.seats.filter(index=index).first()
        if game.over or gseat is None or not gseat.pin:
            raise GameError(_("That seat has no PIN to clear."))
        GameSeat.objects.filter(pk=gseat.pk).update(pin="", pin_tries=0)
        _note_seat_move(game, index, by_host=True, moved=False, pin=True)
        _changed(game, ["seat_moves"])


def seat_results_shown(*, game: Game, index: int, device: str, shown: int) -> None:
    """The device playing a seat showed it its private lines up to ``shown`` (its count of them): none is new now.
    Raises GameError for a seat not played there."""
    with transaction.atomic():
        gseat = _held_seat(game, index, device)
        if gseat.results_shown != shown:
            GameSeat.objects.filter(pk=gseat.pk).update(results_shown=shown)
            table_notify(table_id=game.table_id)  # the prompt beside the seat goes
