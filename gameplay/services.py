"""Writes to the event log: start a game, submit a move, expire a window, host controls.

Every write locks the game row, changes it in one transaction, and pushes the table's new
revision after commit (``table_notify``). Nothing here trusts the phone beyond its seat.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from engines.base import IllegalAction, OptionError, canonical, new_seed, seed_hash
from engines.registry import get_engine
from gameplay import presence
from gameplay.models import Game, GameSeat, Move, SeatHandover
from gameplay.push import group_name, push_revision
from gameplay.seats import seat_index
from lobby.models import Player, Seat, Table

logger = logging.getLogger(__name__)
__all__ = ["group_name"]  # the consumer's import of the group name stays where it was


class GameError(Exception):
    """A request the table cannot take (a clear message, nothing changed)."""


@dataclass(frozen=True)
class MoveResult:
    """What became of a submitted move; ``status`` is the HTTP status to answer with."""

    status: int
    message: str = ""
    seq: int | None = None
    # A repeated move id answered with the first result: nothing was played now.
    duplicate: bool = False
    # Why a 409 was given: "moved_on" (a turn action on an old screen) or "window_closed".
    reason: str = "moved_on"

    @property
    def ok(self) -> bool:
        return self.status == 200


def table_notify(*, table_id: int) -> None:
    """Bump the table's revision and, after commit, queue the push of the number (and nothing else).

    The push is sent by ``gameplay.push``'s own thread, so a stalled channel layer never holds
    up the move or the worker that made the change.
    """
    Table.objects.filter(pk=table_id).update(revision=F("revision") + 1)
    revision = Table.objects.values_list("revision", flat=True).get(pk=table_id)
    transaction.on_commit(lambda: push_revision(table_id, revision))


def game_replay(game: Game, *, upto: int | None = None):
    """The state from setup(seed) folded over the log (the first ``upto`` moves if given)."""
    engine = get_engine(game.engine)
    state = engine.setup(game.players, game.options, int(game.seed))
    moves = game.moves.all() if upto is None else game.moves.filter(seq__lte=upto)
    for move in moves:
        state = engine.on_timeout(state) if move.seat is None else engine.apply(state, move.seat, move.action)
    return state


def game_state(game: Game):
    """The current state: the snapshot cache, or a replay when there is none."""
    engine = get_engine(game.engine)
    if game.snapshot:
        return engine.decode(game.snapshot)
    return game_replay(game)


@dataclass(frozen=True)
class _Step:
    """What the engine says of a new state, asked before anything is written."""

    snapshot: dict
    outcome: dict | None
    window: str
    countdown: int | None  # a silent window's own seconds


def _step(engine, state) -> _Step:
    """Snapshot, outcome, window and its countdown of ``state``: every engine call a move needs (may raise)."""
    outcome = engine.outcome(state)
    window = "" if outcome is not None else (engine.window(state) or "")
    return _Step(engine.encode(state), outcome, window, engine.countdown(state) if window else None)


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


def _advance(game: Game, step: _Step, now: datetime) -> None:
    """Record a new state on the game row: snapshot, version, outcome, the window's deadline."""
    game.version += 1
    game.snapshot = step.snapshot
    if step.outcome is not None:
        game.status = Game.FINISHED
        game.outcome = step.outcome
        game.finished = now
        game.window, game.deadline, game.paused_remaining, game.countdown = "", None, None, None
    elif step.window != game.window:
        _open_window(game, step, now)  # the same window keeps its deadline
    game.save()


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
                snapshot=step.snapshot,
            )
            _open_window(game, step, timezone.now())
            game.save()
            GameSeat.objects.bulk_create(
                GameSeat(game=game, index=i, player=seat.player, name=seat.name, bot=seat.bot)
                for i, seat in enumerate(seats)
            )
            table_notify(table_id=table.pk)
    except IntegrityError as error:
        raise GameError(_("A game is already running at this table.")) from error
    return game


def _seat_of(game: Game, player: Player | None, bot_seat: int | None, devices: dict | None = None) -> int | None:
    if bot_seat is not None:
        if game.seats.filter(index=bot_seat).exclude(bot="").exists():
            return bot_seat
        return None
    # A seat handed to a bot, or moved to another phone, no longer takes moves from its former phone.
    return seat_index(game, player, devices)


def move_submit(
    *,
    game_id: int,
    player: Player | None,
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
    same JSON, types included). Any error inside the engine is a refused move (400, logged)
    that changes nothing, so one crafted move can never brick a table.
    """
    try:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            seat = _seat_of(game, player, bot_seat, devices)
            if seat is None:
                return MoveResult(403, "you have no seat in this game")
            if move_id:
                # Move ids are per seat: a double tap repeats the first answer, never the move.
                first = game.moves.filter(seat=seat, client_move_id=move_id).first()
                if first is not None:
                    return MoveResult(200, "already played", first.seq, duplicate=True)
            if game.over:
                return MoveResult(409, "the game is over")
            if version != game.version and not (window and window == game.window):
                if window:
                    return MoveResult(409, "the window closed", reason="window_closed")
                return MoveResult(409, "the table moved on")
            if not isinstance(action, dict) or canonical(action) is None:
                return MoveResult(400, "malformed move")
            engine = get_engine(game.engine)
            try:
                state = engine.apply(game_state(game), seat, action)
                step = _step(engine, state)
            except IllegalAction as error:
                return MoveResult(400, f"not allowed now: {error}")
            except Exception:
                logger.exception("engine %s failed on a move in game %s (refused)", game.engine, game.pk)
                return MoveResult(400, "not allowed now: the game could not take this move")
            # ``action`` equals a listed action exactly, so the log holds the engine's own JSON.
            move = Move.objects.create(
                game=game, seq=game.version + 1, seat=seat, action=action, client_move_id=move_id or None
            )
            _advance(game, step, timezone.now())
            table_notify(table_id=game.table_id)
            return MoveResult(200, "", move.seq)
    except IntegrityError:
        # Another request took this seq or move id first: the first wins, this one changes nothing.
        return MoveResult(409, "the table moved on")


def game_expire(*, game_id: int, now: datetime | None = None) -> bool:
    """If the open window's deadline has passed, record its expiry as a system move.

    An engine that fails on the expiry changes nothing but the deadline, which is cleared
    (logged), so no page and no worker runs a failing expiry twice; the window stays open
    for the seats' own answers.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.over or game.paused or not game.window or game.deadline is None or game.deadline > now:
            return False
        engine = get_engine(game.engine)
        try:
            step = _step(engine, engine.on_timeout(game_state(game)))
        except Exception:
            logger.exception("engine %s failed expiring window %r in game %s", game.engine, game.window, game.pk)
            game.deadline = None
            game.save(update_fields=["deadline"])
            table_notify(table_id=game.table_id)
            return False
        Move.objects.create(game=game, seq=game.version + 1, seat=None, action={"type": "timeout"})
        _advance(game, step, now)
        table_notify(table_id=game.table_id)
        return True


WAIT_SECONDS = 15


def window_wait(*, game_id: int, player: Player | None, devices: dict | None = None) -> MoveResult:
    """A seat asks a silent window to wait: its countdown runs at least ``WAIT_SECONDS`` more.

    Every seated phone may ask once per window, holder of a card or not, so asking reveals
    nothing; the board shows who asked.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        seat = _seat_of(game, player, None, devices)
        if seat is None:
            return MoveResult(403, "you have no seat in this game")
        if game.over or not game.window or game.countdown is None:
            return MoveResult(409, "no silent window is open", reason="window_closed")
        if seat in game.waits:
            return MoveResult(409, "this seat asked already", reason="waited")
        game.waits = [*game.waits, seat]
        if game.paused:
            game.paused_remaining = max(game.paused_remaining or 0.0, float(WAIT_SECONDS))
        else:
            later = timezone.now() + timedelta(seconds=WAIT_SECONDS)
            game.deadline = max(game.deadline, later) if game.deadline else later
        game.save(update_fields=["waits", "deadline", "paused_remaining"])
        table_notify(table_id=game.table_id)
        return MoveResult(200)


def timer_pause(*, game: Game) -> None:
    """Stop the countdown, keeping the time that was left."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.over or game.paused:
            return
        game.paused = True
        if game.deadline is not None:
            game.paused_remaining = max(0.0, (game.deadline - timezone.now()).total_seconds())
            game.deadline = None
        game.save()
        table_notify(table_id=game.table_id)


def timer_resume(*, game: Game) -> None:
    """Restart the countdown with the time that was left when it was paused."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.over or not game.paused:
            return
        game.paused = False
        if game.window and game.paused_remaining is not None:
            game.deadline = timezone.now() + timedelta(seconds=game.paused_remaining)
        game.paused_remaining = None
        game.save()
        table_notify(table_id=game.table_id)


def game_end_early(*, game: Game, by: str = "") -> None:
    """The host (named ``by``) stops the game: recorded as ended, nobody wins, the seed is revealed."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.over:
            return
        game.status = Game.ENDED
        game.outcome = {"winners": [], "reason": "ended_by_host", **({"by": by} if by else {})}
        game.finished = timezone.now()
        game.window, game.deadline, game.countdown = "", None, None
        game.save()
        table_notify(table_id=game.table_id)


def seat_to_bot(*, game: Game, index: int, policy: str = "heuristic") -> None:
    """A player left mid-game: a bot takes the seat (and the table seat) from now on."""
    with transaction.atomic():
        gseat = GameSeat.objects.select_for_update().get(game=game, index=index)
        if gseat.bot:
            return
        gseat.bot = policy
        gseat.name = f"{gseat.name} (bot)"[:40]
        gseat.save()  # the player stays on the game seat, so the game stays in their history
        if gseat.player is not None:
            Seat.objects.filter(table_id=game.table_id, player=gseat.player).update(
                player=None, bot=policy, bot_name=gseat.name[:24]
            )
        table_notify(table_id=game.table_id)


HANDOVER_MINUTES = 10


def _live_handovers(game: Game, now: datetime):
    return game.handovers.filter(used=None, revoked=False, created__gt=now - timedelta(minutes=HANDOVER_MINUTES))


def seat_handover_create(*, game: Game, index: int, by_host: bool) -> SeatHandover:
    """A one-time link (valid ``HANDOVER_MINUTES``) that moves seat ``index`` to a new phone.

    Asked by the seat's own phone, or by the host only for a seat whose phone has been gone
    ``presence.GONE_SECONDS`` (then announced on the board, so nobody is handed a seat to peek
    at unseen). A new link replaces the seat's older ones: one live link per seat.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        gseat = game.seats.filter(index=index, bot="").first()
        if game.over or gseat is None:
            raise GameError(_("That seat cannot move to a new phone now."))
        quiet = presence.quiet_for(game, game.table_id) if by_host else {}
        if quiet is None:
            raise GameError(_("The table cannot tell right now whether that phone is gone; try again in a moment."))
        if by_host and quiet.get(index, float("inf")) < presence.GONE_SECONDS:
            raise GameError(
                _("%(name)s's phone was at the table a moment ago: they can move their seat from their own phone.")
                % {"name": gseat.name}
            )
        game.handovers.filter(index=index, used=None).update(revoked=True)
        link = SeatHandover.objects.create(token=secrets.token_urlsafe(24), game=game, index=index, by_host=by_host)
        if by_host:
            table_notify(table_id=game.table_id)  # the board announces the rescue link
        return link


def seat_handover_claim(*, token: str) -> tuple[Game, str]:
    """Open a seat link: the seat moves to this phone (a new device token), the old one is revoked.

    Returns the game and the token the claiming browser must keep. Raises GameError for an
    unknown, used, replaced or expired link, or a game that is over. Nobody's account moves.
    """
    now = timezone.now()
    with transaction.atomic():
        link = SeatHandover.objects.select_for_update().filter(token=token).first() if token else None
        if link is None or link not in _live_handovers(link.game, now):
            raise GameError(_("This seat link is unknown, was already used, or has expired (links last 10 minutes)."))
        game = Game.objects.select_for_update().get(pk=link.game_id)
        if game.over:
            raise GameError(_("That game is over."))
        device = secrets.token_urlsafe(24)
        GameSeat.objects.filter(game=game, index=link.index).update(device=device)
        link.used = now
        link.save(update_fields=["used"])
        table_notify(table_id=game.table_id)
        return game, device


def handover_notes(game: Game, last: int | None = 3) -> list[dict]:
    """What the table is told about seats moving: used links, and the host's live rescue links.

    The board and phones show the ``last`` few; a finished game's page shows every seat move.
    """
    now = timezone.now()
    live = set(_live_handovers(game, now).values_list("pk", flat=True))
    notes = [
        {"index": h.index, "by_host": h.by_host, "moved": h.used is not None}
        for h in game.handovers.all()
        if h.used is not None or (h.by_host and h.pk in live)
    ]
    return notes[-last:] if last else notes
