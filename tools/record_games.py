"""Record seeded games through the whole web stack, so a refactor can be shown to change nothing.

    DJANGO_SETTINGS_MODULE=config.settings DATABASE_URL=postgres://... \\
        .venv/bin/python -m tools.record_games OUT.json [--moves 40]

On a scratch database of its own (``<name>_record``, created, migrated and dropped), it plays a few
games of every engine with fixed seeds: guests join over HTTP (Django's test client), the host
starts, and each step a seat chosen by a seeded generator posts one of its legal actions (a
window that waits for its clock alone is expired). After every step it records the engine state,
every seat's view and legal actions, the public facts (public view, awaiting seats, window,
countdown, outcome), and the push frame of every phone's socket, the public board's and the
host's board with its drawer (``gameplay.live.frames.push_frame``); at the end, each seat's page, the
board and the game's page; last, the pages no table holds (the rules, how ratings work) and every
static file's digest by its URL path. Per-render tokens are taken out (CSRF masks, move ids, the
server clock, deadlines, a game's date, replay links' keys and QR codes, the fragments' tags, which
digest them), and so is the random table code. Two recordings of the same code are byte-identical;
compare two commits' recordings with ``cmp`` or ``diff``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
from datetime import timedelta
from typing import Any
from unittest import mock

# (engine, players, game seed, move seed)
GAMES = [
    ("inside_job", 5, 11, 1),
    ("inside_job", 7, 12, 2),
    ("coup", 3, 21, 3),
    ("coup", 5, 22, 4),
    ("good_cop_bad_cop", 4, 31, 5),
    ("good_cop_bad_cop", 6, 32, 6),
    ("good_cop_bad_cop_health", 4, 41, 7),
    ("good_cop_bad_cop_health", 2, 42, 8),
]
BOARD_LANGUAGES = ("en", "fa", "ja")
TOKENS = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), 'name="csrfmiddlewaretoken" value="CSRF"'),
    (re.compile(r'name="move_id" value="[^"]*"'), 'name="move_id" value="MOVEID"'),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), '"X-CSRFToken": "CSRF"'),
    (re.compile(r'data-server-now="\d+"'), 'data-server-now="NOW"'),
    (re.compile(r'data-deadline="\d+"'), 'data-deadline="DEADLINE"'),  # the wall clock plus the window's time
    (re.compile(r'\?k=[A-Za-z0-9_-]+'), '?k=KEY'),  # a finished game's replay link carries a random key
    (re.compile(r'class="qrline" stroke="#111" d="[^"]*"'), 'class="qrline" stroke="#111" d="QR"'),  # and its QR code
    # When a finished game was played (its page's head line), in the English date format.
    (re.compile(r"\b\d\d/\d\d/\d{4} (?:\d{1,2}(?::\d\d)? [ap]\.m\.|noon|midnight)"), "WHEN"),
    # A fragment's tag is a digest of its bytes, per-render tokens and table code included.
    (re.compile(r'data-tag="[0-9a-f]+"'), 'data-tag="TAG"'),
]


def normalized(text: str, code: str = "") -> str:
    for pattern, placeholder in TOKENS:
        text = pattern.sub(placeholder, text)
    return text.replace(code, "CODE") if code else text


def _frame(frame: dict, code: str) -> dict:
    """A push frame without its tags' values (digests of bytes that hold per-render tokens)."""
    return {"v": frame.get("v"), "f": {key: normalized(html, code) for key, html in sorted(frame.get("f", {}).items())},
            "t": sorted(frame.get("t", {}))}


def record_game(engine_name: str, players: int, game_seed: int, move_seed: int, max_moves: int) -> dict:
    from django.test import Client
    from django.utils import timezone

    from engines.registry import get_engine
    from gameplay import services
    from gameplay.live import frames as pushes
    from gameplay.models import Game
    from gameplay.selectors import game_state
    from lobby.models import Player, Table

    def guest(nickname: str) -> Client:
        client = Client()
        assert client.post("/guest/", {"nickname": nickname, "next": "/"}).status_code == 302
        return client

    people = [guest(f"{engine_name[:4]}{game_seed}P{i + 1}") for i in range(players)]
    host_player = Player.objects.get(pk=people[0].session["player_id"])
    answer = people[0].post("/new/", {"engine": engine_name, "timer": "0"})
    assert answer.status_code == 302, answer.content[:300]
    table = Table.objects.filter(host=host_player).latest("pk")
    for person in people[1:]:
        assert person.post(f"/t/{table.code}/join/").status_code == 302
    with mock.patch.object(services, "new_seed", return_value=game_seed):  # the one random draw of a deal: fixed here
        assert people[0].post(f"/t/{table.code}/host/start/").status_code == 302
    game = table.games.get(status="running")
    code = table.code
    engine = get_engine(engine_name)

    def socket(client: Client | None, kind: str, language: str) -> pushes.Socket:
        session = client.cookies.get("sessionid") if client else None
        csrf = client.cookies.get("csrftoken") if client else None
        return pushes.Socket(kind=kind, session_key=session.value if session else None, language=language,
                              csrf_secret=csrf.value if csrf else "", url="http://testserver")

    pages = {f"phone{seat}": normalized(person.get(f"/t/{code}/").content.decode(), code)
             for seat, person in enumerate(people)}
    # Each phone in one of the languages in turn (a table may mix them): its frames are rendered in it.
    sockets = {f"phone{seat}": socket(person, "phone", BOARD_LANGUAGES[seat % len(BOARD_LANGUAGES)])
               for seat, person in enumerate(people)}
    sockets |= {f"board_{language}": socket(None, "board", language) for language in BOARD_LANGUAGES}
    sockets["board_host"] = socket(people[0], "board", "en")

    rng = random.Random(move_seed)
    steps: list[dict[str, Any]] = []
    move: dict[str, Any] | None = None
    for _ in range(max_moves + 1):
        game.refresh_from_db()
        table.refresh_from_db()
        state = game_state(game)
        views = [engine.view(state, seat) for seat in range(players)]
        steps.append({
            "move": move,
            "version": game.version,
            "status": game.status,
            "state": engine.encode(state),
            "views": views,
            "legal": [engine.legal_actions(state, seat) for seat in range(players)],
            "public": {"view": engine.view(state, None), "awaiting": sorted(engine.awaiting(state)),
                       "window": engine.window(state), "countdown": engine.countdown(state),
                       "outcome": engine.outcome(state)},
            "frames": {name: _frame(pushes.push_frame(table.pk, code, table.revision, one), code)
                       for name, one in sockets.items()},
        })
        if game.status != Game.RUNNING or len(steps) > max_moves:
            break
        movers = [seat for seat in range(players) if views[seat]["legal"]]
        if not movers:  # a window that waits for its clock alone
            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            move = {"expired": services.game_expire(game_id=game.pk)}
            continue
        seat = rng.choice(movers)
        action = rng.choice(views[seat]["legal"])
        data = {"version": str(game.version), "action": json.dumps(action), "move_id": f"m{len(steps)}"}
        answer = people[seat].post(f"/t/{code}/move/", data, HTTP_HX_REQUEST="true")
        move = {"seat": seat, "action": action, "answer": answer.status_code}
    pages |= {f"end_phone{seat}": normalized(person.get(f"/t/{code}/").content.decode(), code)
              for seat, person in enumerate(people)}
    pages["end_board"] = normalized(Client().get(f"/t/{code}/board/").content.decode(), code)
    pages["end_detail"] = normalized(people[0].get(f"/g/{game.pk}/").content.decode(), code)
    return {"engine": engine_name, "players": players, "seed": game_seed, "move_seed": move_seed,
            "pages": pages, "steps": steps}


def record_site() -> dict:
    """The pages no table holds (each game's rules, how ratings work) and every static file by its URL path and
    digest: a file moved between the apps' and the games' folders keeps its URL and bytes."""
    from django.contrib.staticfiles import finders
    from django.test import Client

    from engines.registry import ENGINES

    client = Client()
    pages = {path: normalized(client.get(path).content.decode())
             for path in ["/rules/", *(f"/rules/{name}/" for name in ENGINES), "/ratings/about/"]}
    static: dict[str, str] = {}
    for finder in finders.get_finders():
        for path, storage in finder.list([]):
            url_path = os.path.join(getattr(storage, "prefix", None) or "", path).replace(os.sep, "/")
            with storage.open(path) as found:
                static.setdefault(url_path, hashlib.sha256(found.read()).hexdigest())  # the first found is served
    return {"pages": pages, "static": dict(sorted(static.items()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the JSON file to write")
    parser.add_argument("--moves", type=int, default=40, help="moves per game at most")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_RATELIMIT"] = "0"  # dozens of guests from one address
    os.environ["DJANGO_PLAIN_STATIC"] = "1"  # pages render without collectstatic
    os.environ["GAME_WORKER"] = "0"  # the recording drives the clock
    os.environ.pop("REDIS_URL", None)  # the in-process cache and channel layer: nothing shared
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = f"{database['NAME']}_record" if "sqlite" not in database[
        "ENGINE"] else None
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        cache.clear()
        games = [record_game(*game, max_moves=args.moves) for game in GAMES]
        site = record_site()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"games": games, "site": site}, out, sort_keys=True, indent=1, ensure_ascii=False)
        out.write("\n")
    steps = sum(len(game["steps"]) for game in games)
    print(f"{len(games)} games, {steps} steps -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
