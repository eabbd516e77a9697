"""Reads: a game's state from its log, a table's games, and what a seat or the board may see.

Pages get only engine views from here, never the state. Services use these reads (the state
a move is judged on, the live seat links); nothing here writes or imports the services.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from engines.base import seat_team, visible_log
from engines.registry import get_engine
from gameplay.models import HANDOVER_MINUTES, Game, GameSeat, Move, SeatHandover
from gameplay.seats import game_seats, seat_index
from infra.resilience import cache_guard
from lobby.account import shown_seat_name
from lobby.models import Player, Table


def game_replay(game: Game, *, upto: int | None = None, checked: bool = False):
    """The state from setup(seed) folded over the log (the first ``upto`` moves if given).

    ``checked``: judge every move again through ``apply`` (``manage.py verify_game``); else the
    engine's fast fold of accepted moves (``replay``), which gives the same state.
    """
    engine = get_engine(game.engine)
    state = engine.setup(game.players, game.options, int(game.seed))
    moves = game.moves.all() if upto is None else game.moves.filter(seq__lte=upto)
    pairs = moves.values_list("seat", "action")
    return engine.replay_checked(state, pairs) if checked else engine.replay(state, pairs)


def game_state(game: Game):
    """The current state: the snapshot cache, or a replay when there is none."""
    engine = get_engine(game.engine)
    if game.snapshot:
        return engine.decode(game.snapshot)
    return game_replay(game)


def table_running_game(table: Table) -> Game | None:
    """The table's running game, or None."""
    return table.games.filter(status=Game.RUNNING).first()


def table_latest_game(table: Table) -> Game | None:
    """The table's most recent game, running or not."""
    return table.games.order_by("-created").first()


def game_seat_of(*, game: Game, player: Player | int | None, devices: dict | None = None) -> int | None:
    """The seat index this browser plays in ``game`` (None for a spectator or a seat that moved away)."""
    return seat_index(game, player, devices)


def game_public_info(game: Game) -> dict:
    """What anyone may know about a game row: never the seed before the end."""
    deadline_ms = int(game.deadline.timestamp() * 1000) if game.deadline and not game.over else None
    return {
        "id": game.pk,
        "engine": game.engine,
        "title": gettext(get_engine(game.engine).title),
        "status": game.status,
        "over": game.over,
        "version": game.version,
        "seed_hash": game.seed_hash,
        "seed": game.seed if game.over else None,
        "outcome": game.outcome,
        # The table's settings the game was dealt with: public (the lobby shows them before the start).
        "options": game.options,
        "timer_seconds": game.timer_seconds,
        "deadline_ms": deadline_ms,
        "paused": game.paused,
        # A silent window: its own countdown, closing by itself.
        "silent": game.countdown is not None and not game.over,
        # Whether more time was asked (never by whom: that would hint at who holds a card to play).
        "waits": bool(game.waits),
        "paused_remaining": round(game.paused_remaining) if game.paused_remaining is not None else None,
        "created": game.created,
        "finished": game.finished,
        # The finished game's page with its share token: shown to whoever saw the game's end.
        "share_url": f"{reverse('game_detail', args=[game.pk])}?k={game.share_token}" if game.over else None,
    }


def seats_info(game: Game, me: int | None) -> list[dict]:
    """The seats in order, with names and whether each is a bot."""
    # Names stay plain data; templates draw the bot mark from is_bot (templates/icons/bot_mark.jinja),
    # a drawing and a word rather than an emoji a font may lack.
    return [
        # A deleted account's seat (its stored name erased) reads as the neutral name.
        {"index": s.index, "name": shown_seat_name(s.name), "is_bot": bool(s.bot), "is_me": s.index == me}
        for s in game_seats(game)
    ]


def game_context(*, game: Game, seat: int | None, state=None) -> dict:
    """The context of a phone panel (seat) or the board (None): a view, never the state."""
    engine = get_engine(game.engine)
    if state is None:
        state = game_state(game)
        view = engine.view(state, seat)
        view["log"] = log_with_undos(view.get("log", []), state.get("log", []), game.undos, seat)
    else:  # a replay's step: its log as it stood, without the lines of undos made later
        view = engine.view(state, seat)
    seats = seats_info(game, seat)
    return {
        "info": game_public_info(game),
        "parts": public_parts(game.engine, view, seats) if seat is None else {},
        "view": view,
        "seats": seats,
        "names": [s["name"] for s in seats],
        "me": seat,
        "version": game.version,
        # The open response window: an answer in it lands while it stays open (see move_submit).
        "window": game.window_token,
        **game_templates(game.engine),
    }


# The event of the log line an undo writes (``gameplay.undo``), the same in every game: the web layer's own line, drawn
# by ``gameplay/_undone_line.jinja`` (not the game's ``log_line.jinja``), never one of an engine's.
UNDONE = "undone"


def log_with_undos(log: list[dict], state_log: list[dict], undos: list[dict], seat: int | None) -> list[dict]:
    """A view's ``log`` with a line for each undo (``Game.undos``) where it was made: "<seat>'s <move> was undone
    (agreed: …)", from public facts alone (the move's public lines, who agreed). ``state_log``: the state's whole log,
    whose first ``at`` entries stood when that undo was made (the view shows those ``seat`` may see)."""
    if not undos:
        return log
    marks = sorted((len(visible_log(state_log[:note["at"]], seat)), order) for order, note in enumerate(undos))
    lines: list[dict] = []
    start = 0
    for position, order in marks:
        note = undos[order]
        lines += log[start:position]
        lines.append({"event": UNDONE, "seat": note["seat"], "lines": note["lines"], "agreed": note["agreed"],
                      "moderated": note["moderated"]})
        start = max(start, position)
    return lines + log[start:]


def phone_undo(game: Game, seat: int | None) -> dict:
    """What a seat's phone shows of undo by consent (``gameplay/_undo.jinja``), public facts only: its own last move
    to take back ("offer"), a request to answer ("ask"), its own request waiting ("waiting"), answered ("agreed"), or
    closed unanswered or refused ("expired", "refused"); {} for nothing."""
    if seat is None or game.over:
        return {}
    request = game.undo_request or {}
    status, asker = request.get("status"), request.get("seat")
    if status == "open":
        shown = {"id": request["id"], "seat": asker, "lines": request["lines"], "moderated": request["moderated"],
                 "waiting": sorted(set(request["asked"]) - set(request["agreed"]))}
        if seat == asker:
            return {"mode": "waiting", **shown}
        if seat in request["agreed"]:
            return {"mode": "agreed", **shown}
        return {"mode": "ask", **shown} if seat in request["asked"] else {}
    if seat == asker and status in ("refused", "expired") and request["version"] == game.version:
        return {"mode": status, "by": request["by"], "lines": request["lines"]}
    point = game.undo_point  # a move is asked for once
    if point is not None and point["seat"] == seat and point["seq"] == game.version != request.get("seq"):
        return {"mode": "offer", "seq": point["seq"], "lines": point["lines"]}
    return {}


def moderator_undo(game: Game | None) -> dict | None:
    """The open request a moderated table's moderator decides (public facts: who asks, the move's public lines)."""
    request = game.undo_request if game is not None and not game.over else None
    if request is None or request.get("status") != "open" or not request["moderated"]:
        return None
    return {"id": request["id"], "seat": request["seat"], "lines": request["lines"]}


def game_templates(engine_name: str) -> dict[str, str]:
    """The templates a game's screens are drawn with (``templates/games/<engine>/``). A game whose engine names
    a seat's own keys (``phone_private_keys``) draws its phone in three parts: a public status line, the
    seat's own part (``phone.html``) and a public part; any other game's phone is ``phone.html`` alone."""
    split = get_engine(engine_name).phone_private_keys is not None
    return {"phone_template": game_part(engine_name, "phone"),
            "status_template": game_part(engine_name, "phone_status") if split else "",
            "public_template": game_part(engine_name, "phone_public") if split else "",
            "board_template": game_part(engine_name, "board"),
            "summary_template": game_part(engine_name, "secret_summary"),
            "log_template": game_part(engine_name, "log_line")}


def public_parts(engine_name: str, view: dict, seats: list[dict], ended_views: list[dict] | None = None) -> dict:
    """The public parts of a game's screens (``Engine.public_parts``, and the board's log every game shares): element
    id → the plain dict that is all it shows."""
    names = [seat["name"] for seat in seats]
    engine = get_engine(engine_name)
    parts = {**engine.public_parts(view, seats, ended_views),
             "bv-log": {"lines": (view.get("log") or [])[-BOARD_LOG_LINES:], "names": names,
                        "log_template": game_part(engine_name, "log_line")}}
    if engine.phone_private_keys is not None:  # the phone's status line: the game's template, from its "status"
        parts["pv-status"] = {"template": game_part(engine_name, "phone_status"), "status": parts.get("status", {})}
    return parts


BOARD_LOG_LINES = 4  # the board's latest event and the three before it


def game_part(engine_name: str, part: str) -> str:
    """The template of a game's ``part`` (a game's templates are Jinja's: ``gameplay.screens.jinja``)."""
    return f"games/{engine_name}/{part}.jinja"


REPLAY_CHECKPOINT = 10
REPLAY_CACHE_SECONDS = 3600


def replay_state(game: Game, step: int):
    """A finished game's state after ``step`` moves, from the nearest checkpoint: O(1) moves a step.

    The first look at a game replays it once and keeps every ``REPLAY_CHECKPOINT``-th state in
    the cache (a finished game's log never changes); each later step starts from the
    checkpoint at or before it and applies fewer than ``REPLAY_CHECKPOINT`` moves.
    """
    engine = get_engine(game.engine)
    if game.undos:  # an undo takes back a move of an earlier stretch: such a game is replayed from its start
        return game_replay(game, upto=step)
    base = step - step % REPLAY_CHECKPOINT
    key = f"replay:{game.pk}:{game.version}:{base}"
    cached = cache_guard(lambda: cache.get(key), None, "replay checkpoint")
    if cached is not None:
        later = game.moves.filter(seq__gt=base, seq__lte=step).values_list("seat", "action")
        return engine.replay(engine.decode(cached), later)
    state = engine.setup(game.players, game.options, int(game.seed))
    checkpoints = {f"replay:{game.pk}:{game.version}:0": engine.encode(state)}
    wanted = state
    moves = list(game.moves.values_list("seat", "action"))
    for base in range(0, len(moves), REPLAY_CHECKPOINT):
        chunk = moves[base:base + REPLAY_CHECKPOINT]
        if base < step <= base + len(chunk):
            wanted = engine.replay(state, chunk[:step - base])
        state = engine.replay(state, chunk)
        if len(chunk) == REPLAY_CHECKPOINT:
            checkpoints[f"replay:{game.pk}:{game.version}:{base + REPLAY_CHECKPOINT}"] = engine.encode(state)
    cache_guard(lambda: cache.set_many(checkpoints, timeout=REPLAY_CACHE_SECONDS), None, "replay checkpoints")
    return wanted


def game_replay_context(*, game: Game, step: int) -> dict:
    """The public board as it stood after ``step`` moves (finished games only)."""
    step = max(0, min(step, game.version))
    state = replay_state(game, step)
    context = game_context(game=game, seat=None, state=state)
    move = Move.objects.filter(game=game, seq=step).first() if step else None
    context.update({"step": step, "steps": game.version, "move": move})
    return context


def player_history(*, player: Player) -> list[dict]:
    """The player's games, newest first: game, date, players, own seat, result.

    Games the player ran from the board without a seat (``Game.moderator``) are rows too,
    marked ``as_moderator``, with no seat and no result of their own.
    """
    rows = []
    game_seats = (
        GameSeat.objects.filter(player=player).select_related("game").order_by("-game__created")[:200]
    )
    for gseat in game_seats:
        game = gseat.game
        outcome = game.outcome or {}
        winners = outcome.get("winners", [])
        rows.append(
            {
                "game": game_public_info(game),
                "seat": gseat.index,
                "names": [shown_seat_name(name) for name in game.seats.values_list("name", flat=True)],
                "won": gseat.index in winners,
                "team": seat_team(outcome, gseat.index) if outcome else None,
                "role": _revealed_role(outcome, gseat.index),
                "bot": gseat.bot,
                "as_moderator": False,
            }
        )
    seated = {row["game"]["id"] for row in rows}
    for game in Game.objects.filter(moderator=player).exclude(pk__in=seated).order_by("-created")[:200]:
        names = [shown_seat_name(name) for name in game.seats.values_list("name", flat=True)]
        rows.append({"game": game_public_info(game), "seat": None, "names": names, "won": False, "team": None,
                     "role": None, "bot": "", "as_moderator": True})
    rows.sort(key=lambda row: row["game"]["created"], reverse=True)
    return rows[:200]


def _revealed_role(outcome: dict, seat: int) -> str | None:
    """A seat's role from the end-of-game reveal, where the game has roles."""
    roles = ((outcome or {}).get("reveal") or {}).get("roles")
    return roles[seat] if isinstance(roles, list) and seat < len(roles) else None


def handovers_live(game: Game, now: datetime) -> QuerySet[SeatHandover]:
    """The game's seat links that may still be opened: unused, not replaced, younger than HANDOVER_MINUTES."""
    return game.handovers.filter(used=None, revoked=False, created__gt=now - timedelta(minutes=HANDOVER_MINUTES))


def shared_seats(game: Game) -> list[int]:
    """The seats of ``game`` played on a shared device now (the table was told: ``Game.seat_moves``), in order."""
    shared: dict[int, bool] = {}
    for entry in game.seat_moves or []:
        if entry["moved"]:
            shared[entry["index"]] = bool(entry.get("shared"))
    return sorted(index for index, on in shared.items() if on)


def handover_notes(game: Game, last: int | None = 3) -> list[dict]:
    """What the table is told about seats moving: seats moved, and the host's live rescue links.

    Read from the game row (``Game.seat_moves``). A rescue link is shown while it may still be
    opened: younger than HANDOVER_MINUTES and not followed by a newer link or a move of that seat.
    The board and phones show the ``last`` few; a finished game's page shows every seat move.
    """
    since = timezone.now() - timedelta(minutes=HANDOVER_MINUTES)
    moves = list(game.seat_moves or [])
    notes = []
    for i, entry in enumerate(moves):
        # A PIN the host cleared (``pin``) is told like a move; it replaces no rescue link.
        replaced = any(later["index"] == entry["index"] and not later.get("pin") for later in moves[i + 1:])
        if entry["moved"] or entry.get("pin") or (
                entry["by_host"] and not replaced and datetime.fromisoformat(entry["at"]) > since):
            notes.append({"index": entry["index"], "by_host": entry["by_host"], "moved": entry["moved"],
                          "bot": entry.get("bot", False), "shared": entry.get("shared"),
                          "pin": entry.get("pin", False)})
    return notes[-last:] if last else notes
