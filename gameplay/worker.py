"""The server's clock: expires response windows and lets bots move, twice a second.

Each daphne process runs one worker thread; several processes are safe together because
every write locks the game row and re-checks (a window expires once, a bot moves once).
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
from datetime import datetime, timedelta

from django.db import InterfaceError, OperationalError, close_old_connections
from django.db.models import Q
from django.utils import timezone

from engines.base import find_legal
from engines.bots import get_policy
from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import MoveRefused, game_expire, move_submit
from gameplay.undo import undo_answer, undo_expire
from infra.prepared import Prepared

logger = logging.getLogger(__name__)
TICK_SECONDS = 0.5
# A bot waits a moment on its own turn, like a person would; in a window it answers at once.
BOT_PAUSE = timedelta(seconds=1.2)
MAX_BOT_MOVES_PER_TICK = 12


def bot_step(game: Game, now) -> bool:
    """Let one bot that may move now do so (or answer an undo request first); True if a move was made."""
    if bot_answer(game):
        return True
    engine = get_engine(game.engine)
    state = game_state(game)
    in_window = engine.window(state) is not None
    # In a silent window a bot may let the window pass (its policy returns None).
    silent = in_window and engine.countdown(state) is not None
    last = game.moves.order_by("-seq").values_list("created", flat=True).first() or game.created
    if not in_window and now - last < BOT_PAUSE:
        return False
    for gseat in game.seats.exclude(bot=""):
        view = engine.view(state, gseat.index)
        if not view["legal"]:
            continue
        rng = random.Random(f"{game.pk}:{game.version}:{gseat.index}")
        try:
            action = get_policy(game.engine, gseat.bot)(view, rng)
        except Exception:
            logger.exception("bot policy failed in game %s seat %s", game.pk, gseat.index)
            action = None
        if action is None and silent:
            continue
        if find_legal(action, view["legal"]) is None:
            # A policy that errs must never stall the table: play any legal move instead.
            logger.warning("bot in game %s seat %s chose no legal move; playing a random one", game.pk, gseat.index)
            action = rng.choice(view["legal"])
        try:
            result = move_submit(
                game_id=game.pk,
                player=None,
                bot_seat=gseat.index,
                version=game.version,
                window=game.window_token,
                move_id=bot_move_id(game, gseat.index),
                action=action,
            )
        except MoveRefused:
            return False  # the table moved on meanwhile: the next pass looks again
        # A repeated id is never the bot's progress: only a move made now counts.
        return not result.duplicate
    return False


def bot_answer(game: Game) -> bool:
    """A bot asked by an open undo request agrees, as a reasonable player would: the move revealed nothing, so
    taking it back costs the bot nothing it knew. True if one answered."""
    request = game.undo_request
    if request is None or request.get("status") != "open":
        return False
    waiting = set(request["asked"]) - set(request["agreed"])
    for gseat in game.seats.exclude(bot="").filter(index__in=sorted(waiting)):
        try:
            undo_answer(game_id=game.pk, player=None, bot_seat=gseat.index, request_id=request["id"], agree=True)
        except MoveRefused:
            return False  # the request closed meanwhile: the next pass looks again
        return True
    return False


def bot_move_id(game: Game, seat: int) -> str:
    """The bot's move id at this version: the same for every worker, unguessable by the players.

    Two workers deciding for one bot at once make one move (the later one is a duplicate of
    the first); the secret seed in it keeps a seat's former human from having used the id first.
    """
    secret = hashlib.sha256(f"{game.seed}:bot:{seat}".encode()).hexdigest()[:20]
    return f"bot-{game.version}-{secret}"


def bots_due() -> list[int]:
    """Running games where a bot has something to do: one is awaited, or a silent window is open.

    One indexed query over the games flagged due (``Game.bot_due``); a game waiting on people
    costs the worker nothing.
    """
    return [game.pk for game in BOTS_DUE()]


# The two reads of every tick, their SQL made once (twice a second in every process, with or without games).
BOTS_DUE: Prepared[Game] = Prepared(lambda: Game.objects.filter(status=Game.RUNNING, bot_due=True).only("pk"))
# A due window, or a due undo request (``gameplay.undo``): one read, each expiry judged again under the game's lock.
WINDOWS_DUE: Prepared[Game] = Prepared(
    lambda now, also_now: Game.objects.filter(Q(paused=False, deadline__lte=now) | Q(undo_deadline__lte=also_now),
                                              status=Game.RUNNING).only("pk", "undo_deadline"), datetime, datetime)


def tick(now=None) -> int:
    """One pass over running games: expire due windows, make due bot moves. Returns the work done."""
    now = now or timezone.now()
    done = 0
    for due in WINDOWS_DUE(now, now):  # (a prepared read takes each parameter once)
        game_id = due.pk
        # Each game alone: one game's failure never skips another game's timer or bots.
        if due.undo_deadline is not None and due.undo_deadline <= now:
            done += _alone("undo expiry", game_id, lambda game_id=game_id: undo_expire(game_id=game_id, now=now)) or 0
        done += _alone("expiry", game_id, lambda game_id=game_id: game_expire(game_id=game_id, now=now)) or 0
    for game_id in bots_due():
        # Several bots in one window all answer in this pass; on a turn one bot moves per pause.
        for _ in range(MAX_BOT_MOVES_PER_TICK):
            if not _alone("bot step", game_id, lambda game_id=game_id: _bot_moved(game_id, now)):
                break
            done += 1
    return done


def _bot_moved(game_id: int, now) -> bool:
    game = Game.objects.get(pk=game_id)
    return not game.over and bot_step(game, now)


def _alone(what: str, game_id: int, call):
    """``call()`` for one game, whose failure is logged and touches no other game (None then). A database that
    restarts is a warning, not a traceback: the next tick does the same work again."""
    try:
        return call()
    except (OperationalError, InterfaceError) as error:
        logger.warning("%s in game %s: database unavailable: %r", what, game_id, error)
    except Exception:
        logger.exception("%s failed in game %s", what, game_id)
    return None


def run_forever() -> None:
    """Tick until the process ends (the worker thread's body, and ``manage.py gameworker``)."""
    while True:
        try:
            close_old_connections()
            tick()
        except (OperationalError, InterfaceError) as error:  # the database restarts: try again next tick
            logger.warning("worker tick: database unavailable: %r", error)
        except Exception:
            logger.exception("worker tick failed")
        time.sleep(TICK_SECONDS)


_started = False


def start_worker_thread() -> None:
    """Start this process's worker (once)."""
    global _started
    if _started:
        return
    _started = True
    threading.Thread(target=run_forever, name="game-worker", daemon=True).start()
