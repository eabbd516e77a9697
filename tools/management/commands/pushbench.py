"""``manage.py pushbench``: what one push to a table's screens costs in this process, no network.

It seats ``--phones`` guests at an Inside Job table through the app's own pages (Django's test
client: guest sign-in, the table, joining, the host's start), then pushes ``--pushes`` times, each
after a real move (``--moves``: "vote" plays the vote window's answers one by one, a new proposal
when it closes; "none" moves only the revision, so every fragment stays as it was): every phone's
socket and the board's get their frame as JSON text from ``gameplay.live.frames.push_frames``, exactly as
the socket hub draws a table's frames. It prints the CPU time of a whole push (best, quartile, median)
and per screen, and the frames' size per screen, then the median and slowest push by the kind of move pushed
("votes", "mission", "game over", "new game", ...: the slowest pushes are a game's end and the next game's start,
when every phone gets its whole panel). Moves are not counted in the push's time.
Nothing stays behind: every row is written in a transaction that is rolled back at the end.
Like the load tool's figures, it compares code at one moment on one machine: run "before" and
"after" alternately (docs/performance.md).

``--deal SEED`` deals the games from SEED, SEED + 1, … (each game its own: a game repeated would find its
screens drawn already), so two source trees play the same games move for move,
and ``--no-push`` plays those moves without pushing: ``tools/pushcount.sh`` runs both under valgrind and
prints the instructions of one push, a figure that the machine's other load does not move.
"""

from __future__ import annotations

import itertools
import json
import time
from contextlib import nullcontext
from unittest import mock

from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import F
from django.test import Client

from engines.registry import get_engine
from gameplay import services
from gameplay.live.frames import Socket, push_frames
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import game_start, move_submit
from infra.warm import as_served, collect_when_due
from lobby.models import Table


class _Rollback(Exception):
    pass


def _socket(client: Client | None, kind: str) -> Socket:
    """A table socket as the browser of ``client`` opens it (None: a board without a session)."""
    cookies = client.cookies if client is not None else {}
    session = cookies.get("sessionid")
    csrf = cookies.get("csrftoken")
    return Socket(kind=kind, session_key=session.value if session else None, language="en",
                          csrf_secret=csrf.value if csrf else "", url="http://testserver")


def seat_table(phones: int) -> tuple[str, list[Client]]:
    """An Inside Job table of ``phones`` guests with its game started; (code, each phone's browser)."""
    browsers = [Client() for _ in range(phones)]
    for i, browser in enumerate(browsers):
        if browser.post("/guest/", {"nickname": f"Bench {i + 1}", "next": "/"}).status_code != 302:
            raise RuntimeError("a guest could not sign in")
    host = browsers[0]
    if host.post("/new/", {"engine": "inside_job", "timer": "0"}).status_code != 302:
        raise RuntimeError("the table could not be made")
    code = Table.objects.filter(host_id=host.session["player_id"]).values_list("code", flat=True).get()
    for browser in browsers[1:]:
        if browser.post(f"/t/{code}/join/").status_code != 302:
            raise RuntimeError("a guest could not join")
    if host.post(f"/t/{code}/host/start/").status_code != 302:
        raise RuntimeError("the game could not start")
    for browser in browsers:  # each phone holds its panel (and its CSRF cookie), as a loaded page does
        browser.get(f"/t/{code}/", HTTP_HX_REQUEST="true")
    return code, browsers


class Command(BaseCommand):
    help = "CPU time of one push to a table's phones and board (gameplay.live.frames.push_frames), in process."

    def add_arguments(self, parser):
        parser.add_argument("--phones", type=int, default=7)
        parser.add_argument("--pushes", type=int, default=200)
        parser.add_argument("--warmup", type=int, default=20)
        parser.add_argument("--moves", choices=["vote", "none"], default="vote")
        parser.add_argument("--deal", type=int,
                            help="deal the games from this seed, then the next ones (the same games on every run)")
        parser.add_argument("--no-push", action="store_true", help="make the moves only (tools/pushcount.sh)")

    def handle(self, *args, phones: int, pushes: int, warmup: int, moves: str, deal: int | None, no_push: bool,
               **options):
        report: dict = {}
        # The one random draw of each deal, fixed for the run when asked: --deal, then one more for each next game.
        dealt = (mock.patch.object(services, "new_seed", side_effect=itertools.count(deal)) if deal is not None
                 else nullcontext())
        try:
            with as_served(), dealt, transaction.atomic():  # collecting as the server does (config/asgi.py)
                report = self._run(phones, pushes, warmup, moves, push=not no_push)
                raise _Rollback
        except _Rollback:
            pass
        if no_push:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(
            f"one push to {phones} phones and a board ({moves}): CPU best {report['best_ms']} ms, "
            f"p25 {report['p25_ms']} ms, median {report['median_ms']} ms ({report['per_screen_ms']} ms a screen at "
            f"the median); {report['frame_bytes']} bytes of frames a push, {report['bytes_per_screen']} a screen"
        )
        self.stdout.write("by the move pushed: " + "; ".join(
            f"{kind} {figures['median_ms']} ms (max {figures['max_ms']}, {figures['pushes']} pushes)"
            for kind, figures in report["by_move"].items()))
        self.stdout.write(json.dumps(report, sort_keys=True))

    def _move(self, code: str) -> str:
        """One move of the running game: the first awaited seat's first legal answer (a vote, a proposal). Returns
        what kind of move it was: "game over" (it ended the game), "new game" (the first of the next game on the
        same seats), else the event of the log line it wrote last ("proposal", "votes", "mission", ...)."""
        table = Table.objects.get(code=code)
        game = Game.objects.filter(table=table, status=Game.RUNNING).first()
        new = game is None
        if game is None:  # the game ended: the next one on the same seats
            game = game_start(table=table)
        engine = get_engine(game.engine)
        state = game_state(game)
        seat = min(engine.awaiting(state))
        action = engine.legal_actions(state, seat)[0]
        seats = {s.index: s.player_id for s in game.seats.all()}
        move_submit(table_id=table.pk, player=seats[seat], version=game.version, move_id=None, action=action,
                    window=game.window, devices={})
        game.refresh_from_db()
        if game.over:
            return "game over"
        return "new game" if new else str((game_state(game).get("log") or [{}])[-1].get("event", "?"))

    def _run(self, phones: int, pushes: int, warmup: int, moves: str, *, push: bool = True) -> dict:
        code, browsers = seat_table(phones)
        sockets = [_socket(b, "phone") for b in browsers] + [_socket(None, "board")]
        table = Table.objects.filter(code=code)
        table_id = table.values_list("pk", flat=True).get()
        times: list[float] = []
        sizes: list[int] = []
        kinds: list[str] = []
        for n in range(warmup + pushes):
            if moves == "vote":
                kind = self._move(code)
            else:
                table.update(revision=F("revision") + 1)
                kind = "none"
            revision = table.values_list("revision", flat=True).get()
            if not push:
                continue
            started = time.process_time()
            texts = [text for _shown, text in push_frames(table_id, code, revision, sockets)]
            spent = time.process_time() - started
            collect_when_due()  # as the socket hub does once a push is out
            frames = [json.loads(text) for text in texts]
            if any("f" not in frame for frame in frames):
                raise RuntimeError(f"a screen got no fragments: {[sorted(f) for f in frames]}")
            if n >= warmup:
                times.append(spent)
                sizes.append(sum(len(text) for text in texts))
                kinds.append(kind)
        if not push:
            return {"phones": phones, "pushes": 0, "moves": moves}
        by_move: dict[str, list[float]] = {}
        for kind, spent in zip(kinds, times, strict=True):
            by_move.setdefault(kind, []).append(spent * 1000)
        times.sort()
        median = times[len(times) // 2] * 1000
        size = sorted(sizes)[len(sizes) // 2]
        return {
            "phones": phones, "pushes": pushes, "moves": moves,
            "best_ms": round(times[0] * 1000, 2), "p25_ms": round(times[len(times) // 4] * 1000, 2),
            "median_ms": round(median, 2), "per_screen_ms": round(median / len(sockets), 2), "frame_bytes": size,
            "bytes_per_screen": size // len(sockets),
            "by_move": {kind: {"pushes": len(spent), "median_ms": round(sorted(spent)[len(spent) // 2], 2),
                               "max_ms": round(max(spent), 2)} for kind, spent in sorted(by_move.items())},
        }
