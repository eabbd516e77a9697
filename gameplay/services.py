"""Writes to the event log: start a game, submit a move, expire a window, host controls.

Every write locks the game row, changes it in one transaction, and pushes the table's new
revision after commit (``table_notify``). Nothing here trusts the phone beyond its seat.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from engines.base import IllegalAction, OptionError, new_seed, seed_hash
from engines.registry import get_engine
from gameplay.models import Game, GameSeat, Move
from lobby.models import Player, Seat, Table

logger = logging.getLogger(__name__)
PUSH_TIMEOUT_SECONDS = 5


class GameError(Exception):
    """A request the table cannot take (a clear message, nothing changed)."""


@dataclass(frozen=True)
class MoveResult:
    """What became of a submitted move; ``status`` is the HTTP status to answer with."""

    status: int
    message: str = ""
    seq: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200


def group_name(table_id: int) -> str:
    """The Channels group of a table."""
    return f"table-{table_id}"


def table_notify(*, table_id: int) -> None:
    """Bump the table's revision and, after commit, push the number (and nothing else)."""
    Table.objects.filter(pk=table_id).update(revision=F("revision") + 1)
    revision = Table.objects.values_list("revision", flat=True).get(pk=table_id)

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(_group_send)(layer, group_name(table_id), {"type": "table.revision", "v": revision})
        except Exception:  # a push lost is healed by the pages' polling; never fail the move
            logger.exception("push to table %s failed", table_id)

    transaction.on_commit(send)


async def _group_send(layer, group: str, message: dict) -> None:
    # Bounded, so a stalled channel layer can never hold up a move or the worker's clock.
    await asyncio.wait_for(layer.group_send(group, message), timeout=PUSH_TIMEOUT_SECONDS)


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


def _advance(game: Game, state, now: datetime) -> None:
    """Record a new state on the game row: snapshot, version, outcome, the window's deadline."""
    engine = get_engine(game.engine)
    game.version += 1
    game.snapshot = engine.encode(state)
    outcome = engine.outcome(state)
    if outcome is not None:
        game.status = Game.FINISHED
        game.outcome = outcome
        game.finished = now
        game.window, game.deadline, game.paused_remaining = "", None, None
    else:
        window = engine.window(state) or ""
        if window != game.window:
            # A new response window gets a fresh countdown; the same window keeps its deadline.
            game.window = window
            timed = bool(window and game.timer_seconds)
            if game.paused:
                game.deadline = None
                game.paused_remaining = float(game.timer_seconds) if timed else None
            else:
                game.deadline = now + timedelta(seconds=game.timer_seconds) if timed else None
    game.save()


def game_start(*, table: Table) -> Game:
    """Deal a new game on the table's current seats (checks the count and the options)."""
    engine = get_engine(table.engine)
    seats = list(table.seats.select_related("player").order_by("position"))
    players = len(seats)
    if any(game.status == Game.RUNNING for game in table.games.all()):
        raise GameError(_("A game is already running at this table."))
    try:
        engine.check_players(players)
        options = engine.validate_options(table.options, players)
    except OptionError as error:
        raise GameError(gettext(str(error))) from error
    seed = new_seed()
    with transaction.atomic():
        state = engine.setup(players, options, seed)
        game = Game.objects.create(
            table=table,
            engine=table.engine,
            options=options,
            players=players,
            seed=str(seed),
            seed_hash=seed_hash(seed),
            timer_seconds=table.timer_seconds,
            snapshot=engine.encode(state),
        )
        GameSeat.objects.bulk_create(
            GameSeat(game=game, index=i, player=seat.player, name=seat.name, bot=seat.bot)
            for i, seat in enumerate(seats)
        )
        window = engine.window(state) or ""
        if window:
            game.window = window
            if game.timer_seconds:
                game.deadline = timezone.now() + timedelta(seconds=game.timer_seconds)
            game.save()
        table_notify(table_id=table.pk)
    return game


def _seat_of(game: Game, player: Player | None, bot_seat: int | None) -> int | None:
    if bot_seat is not None:
        if game.seats.filter(index=bot_seat).exclude(bot="").exists():
            return bot_seat
        return None
    if player is None:
        return None
    # A seat handed to a bot no longer takes moves from its former player.
    return game.seats.filter(player=player, bot="").values_list("index", flat=True).first()


def move_submit(
    *,
    game_id: int,
    player: Player | None,
    version: int | None,
    move_id: str | None,
    action: object,
    bot_seat: int | None = None,
) -> MoveResult:
    """Check and append one move: lock, dedupe, seat, version, legality, append, push."""
    try:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            if move_id:
                first = game.moves.filter(client_move_id=move_id).first()
                if first is not None:
                    return MoveResult(200, "already played", first.seq)
            seat = _seat_of(game, player, bot_seat)
            if seat is None:
                return MoveResult(403, "you have no seat in this game")
            if game.over:
                return MoveResult(409, "the game is over")
            if version != game.version:
                return MoveResult(409, "the table moved on")
            if not isinstance(action, dict):
                return MoveResult(400, "malformed move")
            engine = get_engine(game.engine)
            try:
                state = engine.apply(game_state(game), seat, action)
            except IllegalAction as error:
                return MoveResult(400, f"not allowed now: {error}")
            move = Move.objects.create(
                game=game, seq=game.version + 1, seat=seat, action=action, client_move_id=move_id or None
            )
            _advance(game, state, timezone.now())
            table_notify(table_id=game.table_id)
            return MoveResult(200, "", move.seq)
    except IntegrityError:
        # Another request took this seq or move id first: the first wins, this one changes nothing.
        return MoveResult(409, "the table moved on")


def game_expire(*, game_id: int, now: datetime | None = None) -> bool:
    """If the open window's deadline has passed, record its expiry as a system move."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.over or game.paused or not game.window or game.deadline is None or game.deadline > now:
            return False
        engine = get_engine(game.engine)
        state = engine.on_timeout(game_state(game))
        Move.objects.create(game=game, seq=game.version + 1, seat=None, action={"type": "timeout"})
        _advance(game, state, now)
        table_notify(table_id=game.table_id)
        return True


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


def game_end_early(*, game: Game) -> None:
    """The host stops the game: recorded as ended, nobody wins, the seed is revealed."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.over:
            return
        game.status = Game.ENDED
        game.outcome = {"winners": [], "reason": "ended_by_host"}
        game.finished = timezone.now()
        game.window, game.deadline = "", None
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
