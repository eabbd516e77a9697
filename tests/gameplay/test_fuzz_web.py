"""Fuzzing the move endpoint and ``move_submit`` with hostile input: no 5xx, and a refusal changes nothing.

A phone's move is a form: ``version``, ``move_id``, ``window``, a JSON ``action`` and
``a.<key>`` / ``a.<key>[]`` fields merged into it (ASCII digits with one optional leading
minus become ints, anything else stays text). Whatever arrives, the answer is never a 5xx,
and the move is either refused with the game row (version, snapshot) and its Move log
unchanged, or it was exactly a listed legal action: then the version goes up by one and the
stored Move holds a listed action. Every choice comes from a seeded ``random.Random``.

Failures are collected and reported together (input, status, the server's traceback).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import traceback
import uuid
from datetime import timedelta

import pytest
from django.core.signals import got_request_exception
from django.utils import timezone

from engines.base import IllegalAction, canonical
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_replay, game_state
from gameplay.services import game_expire
from tests.conftest import Guest, seeded_deals, start
from tests.fuzzing import (
    DEEP,
    FIELD_JUNK,
    MOVE_ID_JUNK,
    VERSION_JUNK,
    action_mutants,
    form_value_readings,
    json_text_mutants,
    nest_dict,
    nest_list,
    short,
    very_deep,
)
from tests.gameplay.helpers import submit_status

pytestmark = pytest.mark.django_db

GAMES = [("coup", 3), ("inside_job", 5), ("good_cop_bad_cop", 4), ("good_cop_bad_cop_health", 3)]
POSTS_PER_GAME = 640
POSTS_PER_STATE = 16
MAX_REPORTED = 25
LONG_TEXT = 4000  # gameplay.web.forms.MAX_ACTION_CHARS: a longer action text may be refused unread
HTMX_STATUSES = {200, 400, 403, 409}
PLAIN_STATUSES = {302, 400, 403, 409}  # a non-htmx answer redirects to the table page


@pytest.fixture(autouse=True)
def fixed_seeds():
    """Games dealt from a seeded sequence, so every run fuzzes the same deals."""
    with seeded_deals("fuzz-web"):
        yield


@pytest.fixture
def server_errors():
    """Tracebacks of exceptions raised inside views (the test client is told not to re-raise them)."""
    seen: list[str] = []

    def record(sender, **kwargs):
        seen.append("".join(traceback.format_exc(limit=-4)))

    got_request_exception.connect(record)
    yield seen
    got_request_exception.disconnect(record)


class TableUnderFuzz:
    """The game under fuzz, its seats' browsers and what the engine lists now."""

    def __init__(self, table, people: list[Guest], spectator: Guest) -> None:
        self.table, self.people, self.spectator = table, people, spectator
        self.url = f"/t/{table.code}/move/"
        for person in [*people, spectator]:
            person.client.raise_request_exception = False  # a 500 is an answer to record, not a crash
        self.game = start(table, people[0])
        self.by_seat: dict[int, Guest] = {}
        self.read()

    def read(self) -> None:
        """Refresh the game row, the state and every seat's legal actions."""
        self.game.refresh_from_db()
        for gseat in self.game.seats.all():
            self.by_seat[gseat.index] = next(p for p in self.people if p.player.pk == gseat.player_id)
        self.engine = get_engine(self.game.engine)
        self.state = game_state(self.game)
        self.legal = {s: self.engine.legal_actions(self.state, s) for s in range(self.game.players)}

    def fingerprint(self) -> tuple:
        """What a refused move must leave alone: version, snapshot, status, the Move log."""
        game = Game.objects.get(pk=self.game.pk)
        return game.version, canonical(game.snapshot), game.status, game.moves.count()

    def texts(self, seat: int) -> set[str]:
        return {canonical(action) for action in self.legal.get(seat, [])}


def parsed_readings(data: dict) -> list | None:
    """Every action the server may build from ``data`` (None when the ``action`` text is no JSON object)."""
    raw = data.get("action", "")
    try:
        base = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(base, dict):
        return None
    fields = []
    for key, value in data.items():
        if not key.startswith("a.") or len(key) > 40:
            continue
        values = value if isinstance(value, list) else [value]
        if not values:
            continue  # an empty list sends no field at all
        options = [form_value_readings(v) for v in values]
        if key.endswith("[]"):
            fields.append((key[2:-2], [list(combo) for combo in itertools.product(*options)][:64]))
        else:
            fields.append((key[2:], options[-1]))
    readings = []
    for choice in itertools.islice(itertools.product(*(vals for _, vals in fields)), 256):
        action = dict(base)
        for (name, _), value in zip(fields, choice, strict=True):
            action[name] = value
        readings.append(action)
    return readings


def legality(data: dict, texts: set[str]) -> str:
    """"legal" when every reading of the post is a listed action, "illegal" when none is, else "unsure".

    An ``action`` text over ``LONG_TEXT`` characters may be refused as malformed before
    it is read (padding around a legal action): such a post is never "legal".
    """
    readings = parsed_readings(data)
    if readings is None:
        return "illegal"
    verdicts = {canonical(action) in texts for action in readings}
    if len(data.get("action", "")) > LONG_TEXT:
        verdicts.add(False)
    return "legal" if verdicts == {True} else "illegal" if verdicts == {False} else "unsure"


def version_reading(text: str) -> int | None:
    """The version the server reads from the field (Python's ``int``), or None for garbage."""
    try:
        return int(text)
    except ValueError:
        return None


def hostile_post(rng: random.Random, t: TableUnderFuzz, seat: int, serial: int) -> tuple[str, dict]:
    """One mutated move form from ``seat``: a label saying what was mutated, and the form fields."""
    own = t.legal[seat]
    pool = own or [a for actions in t.legal.values() for a in actions] or [{"type": "pass"}]
    base = rng.choice(pool)
    data = {"version": str(t.game.version), "move_id": f"fz{serial}x{rng.getrandbits(32):08x}"}
    kind = rng.choices(["json_mutant", "json_text", "field", "list_field", "stray_field"], [5, 3, 4, 2, 1])[0]
    if kind == "json_mutant":
        label, mutant = rng.choice(action_mutants(base, pool))
        try:
            data["action"] = json.dumps(mutant)  # NaN and Infinity as the JS-ish literals json.loads reads back
        except (TypeError, ValueError, RecursionError):  # bytes, sets, objects, 10**5000, the very deep chain
            data["action"] = json.dumps({**base, "junk": short(mutant)})
            label += "(as text)"
    elif kind == "json_text":
        label, data["action"] = rng.choice(json_text_mutants(base, rng))
    elif kind in ("field", "list_field"):
        key = rng.choice(sorted(base))
        value = base[key]
        rest = {k: v for k, v in base.items() if k != key or rng.random() < 0.3}
        data["action"] = json.dumps(rest)
        if kind == "field" and not isinstance(value, list):
            sent = rng.choice([*FIELD_JUNK, str(value), f" {value} ", str(value).upper()])
            data[f"a.{key}"] = sent
            label = f"a.{key}={short(sent)}"
        else:
            items = value if isinstance(value, list) else [value]
            junk = [rng.choice([*FIELD_JUNK, str(x)]) for x in items]
            sent = rng.choice([junk, [str(x) for x in items], [str(x) for x in items] + ["١"], [], ["x"] * 200])
            data[f"a.{key}[]"] = sent
            label = f"a.{key}[]={short(sent)}"
    else:
        data["action"] = json.dumps(base)
        name, value = rng.choice([("a.type", rng.choice(FIELD_JUNK)), ("a.", "1"), ("a.[]", ["1", "²"]),
                                  ("a." + "x" * 45, "ignored"), ("a.extra", "1"), ("a.\x00", "1"),
                                  ("a.type", base["type"].upper()), ("b.type", "ignored")])
        data[name] = value
        label = f"{short(name)}={short(value)}"
    # The other fields: mostly right, sometimes hostile.
    roll = rng.random()
    if roll < 0.12:
        data["version"] = rng.choice([*VERSION_JUNK, str(t.game.version + 1), str(t.game.version - 1),
                                      f" {t.game.version} ", f"+{t.game.version}", str(2**31), str(-(2**63))])
        label += f" version={short(data['version'])}"
    elif roll < 0.16:
        del data["version"]
        label += " no-version"
    roll = rng.random()
    if roll < 0.08:
        data["move_id"] = rng.choice([*MOVE_ID_JUNK, f"fz{serial}" + "z" * 10000, f"fz{serial}\x00"])
        label += f" move_id={short(data['move_id'])}"
    elif roll < 0.12:
        del data["move_id"]
        label += " no-move_id"
    roll = rng.random()
    if roll < 0.3:
        data["window"] = t.game.window
    elif roll < 0.38:
        data["window"] = rng.choice(["x" * 200, "\x00", "0:vote", t.game.window + "x", "９"])
        label += f" window={short(data['window'])}"
    return kind + ":" + label, data


def must_refuse(data: dict, t: TableUnderFuzz, verdict: str) -> bool:
    """True when no reading of the post may be accepted (not legal, or its version can never pass)."""
    if verdict == "illegal":
        return True
    version = version_reading(data.get("version", ""))
    window_ok = bool(data.get("window")) and data.get("window") == t.game.window
    return version is None or (version != t.game.version and not window_ok)


def must_accept(data: dict, t: TableUnderFuzz, verdict: str) -> bool:
    """True when the post is exactly a listed action on the current version with a fresh move id."""
    return verdict == "legal" and version_reading(data.get("version", "")) == t.game.version


def advance(t: TableUnderFuzz, rng: random.Random, failures: list[str]) -> None:
    """Play one random legal move (or expire the open window); start a new game after the end."""
    movers = [s for s, actions in t.legal.items() if actions]
    if movers:
        seat = rng.choice(movers)
        action = rng.choice(t.legal[seat])
        data = {"version": str(t.game.version), "move_id": uuid.UUID(int=rng.getrandbits(128)).hex,
                "action": json.dumps(action)}
        response = t.by_seat[seat].client.post(t.url, data, HTTP_HX_REQUEST="true")
        if response.status_code != 200:
            failures.append(f"{t.game.engine}: the plain legal move {action} from seat {seat} got "
                            f"{response.status_code}")
    elif t.game.window:
        Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert game_expire(game_id=t.game.pk)
    t.read()
    if t.game.over:
        check_replay(t, failures)
        assert t.people[0].post(f"/t/{t.table.code}/host/again/").status_code == 302
        t.game = t.table.games.get(status="running")
        t.read()


def check_replay(t: TableUnderFuzz, failures: list[str]) -> None:
    """The stored moves replay to the snapshot (no crafted move was stored that bricks the table)."""
    game = Game.objects.get(pk=t.game.pk)
    try:
        replayed = canonical(t.engine.encode(game_replay(game)))
    except Exception as error:
        failures.append(f"{game.engine}: replaying the stored moves raised {type(error).__name__}: {error}")
        return
    if replayed != canonical(game.snapshot):
        failures.append(f"{game.engine}: the stored moves do not replay to the snapshot")


def post_and_check(t: TableUnderFuzz, person: Guest, seat: int | None, label: str, data: dict, htmx: bool,
                   failures: list[str], server_errors: list[str]) -> bool:
    """Post one form and check the answer; True if it was accepted (the table moved on)."""
    texts = t.texts(seat) if seat is not None else set()
    verdict = legality(data, texts)
    before = t.fingerprint()
    errors_before = len(server_errors)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = person.client.post(t.url, data, **headers)
    after = t.fingerprint()
    status = response.status_code
    where = f"{t.game.engine} v{before[0]} seat={seat} htmx={htmx} [{label}] data={short(data)}"
    if status >= 500 or status not in (HTMX_STATUSES if htmx else PLAIN_STATUSES):
        tail = server_errors[errors_before:] or [""]
        failures.append(f"{where}: status {status}\n    {tail[-1].strip().splitlines()[-1:] }")
    if after == before:
        if must_accept(data, t, verdict) and seat is not None:
            failures.append(f"{where}: an exactly legal move was refused with {status}")
        if htmx and status == 200:
            failures.append(f"{where}: answered 200 but nothing was played")
        return False
    # Something changed: it must be exactly one listed move by this seat.
    move = Move.objects.filter(game=t.game).order_by("-seq").first()
    if seat is None or must_refuse(data, t, verdict):
        failures.append(f"{where}: a move that must be refused changed the game ({status})")
    if after[0] != before[0] + 1 or after[3] != before[3] + 1:
        failures.append(f"{where}: version {before[0]}->{after[0]}, moves {before[3]}->{after[3]}")
    if move is None or move.seat != seat or canonical(move.action) not in texts:
        failures.append(f"{where}: stored {short(move and move.action)} is not one of seat {seat}'s listed actions")
    if htmx and status != 200:
        failures.append(f"{where}: the move was played but the answer was {status}")
    return True


@pytest.mark.parametrize("engine_name,players", GAMES)
def test_hostile_move_forms_never_crash_and_refusals_change_nothing(engine_name, players, table_with, guests,
                                                                     server_errors):
    """~640 mutated posts per game, from the awaited seat, other seats and a spectator.

    Mutated ``action`` JSON (wrong types, floats for ints, bools, huge ints, NaN, nesting,
    missing and extra keys, broken, truncated, oversized and 3,000-bracket texts), ``a.<key>``
    fields (``²``, ``--1``, ``1.0``, ``0x1``, `` 1 ``, ``１``, 5,000 digits, lists of junk),
    and garbage ``version``, ``move_id`` and ``window`` fields. Half the posts are htmx.
    """
    table, people = table_with(players, engine=engine_name)
    (spectator,) = guests(1, prefix="Spectator")
    t = TableUnderFuzz(table, people, spectator)
    rng = random.Random(f"web-fuzz/{engine_name}")
    failures: list[str] = []
    posted = accepted = 0
    while posted < POSTS_PER_GAME:
        awaited = sorted(s for s, actions in t.legal.items() if actions)
        for _ in range(POSTS_PER_STATE):
            roll = rng.random()
            if roll < 0.05:
                seat, person = None, spectator
            else:
                seat = rng.choice(awaited) if awaited and roll < 0.7 else rng.randrange(players)
                person = t.by_seat[seat]
            label, data = hostile_post(rng, t, seat if seat is not None else 0, posted)
            posted += 1
            if post_and_check(t, person, seat, label, data, rng.random() < 0.5, failures, server_errors):
                accepted += 1
                break  # the table moved on: read it again before the next post
        t.read()
        advance(t, rng, failures)
    check_replay(t, failures)
    assert not failures, f"{len(failures)} failures in {posted} posts; first {MAX_REPORTED}:\n" + "\n".join(
        failures[:MAX_REPORTED])


def test_raw_bodies_and_too_many_fields_are_4xx(table_with, server_errors):
    """Bodies no form makes (bad UTF-8, broken percent escapes, 2,000 fields): a 4xx, the game unchanged."""
    table, people = table_with(3, engine="coup")
    t = TableUnderFuzz(table, people, people[0])
    (seat,) = [s for s, actions in t.legal.items() if actions]
    person = t.by_seat[seat]
    good = f"version={t.game.version}&move_id=raw1&action="
    bodies = [
        good.encode() + b"%7B%22type%22%3A%22inc\xff\xfeome%22%7D",
        good.encode() + b"%ZZ%7B%22type",
        good.encode() + b"%7B%22type%22%3A%22income%22%7D&" + b"&".join(b"a.f%d=1" % i for i in range(2000)),
        b"\x00\x00\x00",
        b"=&=&&&==",
    ]
    failures = []
    for body in bodies:
        before = t.fingerprint()
        for htmx in (True, False):
            headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
            response = person.client.post(t.url, body, content_type="application/x-www-form-urlencoded", **headers)
            if response.status_code not in (HTMX_STATUSES if htmx else PLAIN_STATUSES) - {200}:
                failures.append(f"{short(body)} htmx={htmx}: {response.status_code} {server_errors[-1:]}")
        if t.fingerprint() != before:
            failures.append(f"{short(body)} changed the game")
    assert not failures, "\n".join(failures)


CRAFTED_VALUES = [1.0, 0.0, True, False, math.nan, math.inf, -math.inf, 2**100, -(2**100), 10**5000, "1", "",
                  None, [], {}, nest_list(1, DEEP), nest_dict(1, DEEP), very_deep(1), b"1", (1,), {1, 2}, object()]
CRAFTED_ACTIONS = ["tax", None, 1, 1.0, True, b"{}", [{"type": "income"}], ({"type": "income"},), very_deep(1),
                   {"type": None}, {"type": 1}, {"type": ["income"]}, {"type": "income", 1: 2}, {}]


@pytest.mark.parametrize("engine_name,players", GAMES)
def test_move_submit_with_crafted_python_values_never_raises_or_changes_the_game(engine_name, players, table_with):
    """``move_submit`` called directly with values no JSON form can carry (floats, bools, NaN, 2**100, nesting).

    Each value replaces each key of each awaited seat's first legal actions; plus non-dict
    actions. Every call is refused (a MoveRefused the move view answers 400/409), none raises anything
    else, and the game is untouched.
    """
    table, people = table_with(players, engine=engine_name)
    t = TableUnderFuzz(table, people, people[0])
    before = t.fingerprint()
    failures, calls = [], 0
    for seat in sorted(s for s, actions in t.legal.items() if actions):
        texts = t.texts(seat)
        actions = [{**action, key: value} for action in t.legal[seat][:3] for key in action
                   for value in CRAFTED_VALUES]
        for action in [*actions, *CRAFTED_ACTIONS]:
            if canonical(action) in texts:  # e.g. a tuple for a list: exactly legal, not crafted
                continue
            # A short move id, and one far longer than the column (the web layer cleans ids first).
            for version, move_id in ((t.game.version, f"c{calls}"), (t.game.version, f"c{calls}" + "z" * 10000)):
                calls += 1
                try:
                    status = submit_status(game_id=t.game.pk, player=t.by_seat[seat].player, version=version,
                                           move_id=move_id, action=action)
                except Exception as error:
                    failures.append(f"seat {seat} {short(action)}: raised {type(error).__name__}: {short(str(error))}")
                    continue
                if status not in (400, 409):
                    failures.append(f"seat {seat} {short(action)}: status {status}")
                if t.fingerprint() != before:
                    failures.append(f"seat {seat} {short(action)}: changed the game")
                    pytest.fail("\n".join(failures[:MAX_REPORTED]))
    assert calls > 100
    assert not failures, f"{len(failures)} failures in {calls} calls:\n" + "\n".join(failures[:MAX_REPORTED])


@pytest.mark.parametrize("error", [TypeError("boom"), KeyError("k"), IndexError("i"), RecursionError("deep"),
                                   ZeroDivisionError("z"), IllegalAction("no")])
def test_any_engine_exception_is_a_refused_move_and_a_harmless_expiry(error, table_with, monkeypatch):
    """An engine that raises anything on ``apply`` gives a 400 that changes nothing (web and service);
    one that raises on ``on_timeout`` leaves the game as it was (no Move, same version and snapshot)."""
    table, people = table_with(5, engine="inside_job", timer=30)
    t = TableUnderFuzz(table, people, people[0])
    (leader,) = [s for s, actions in t.legal.items() if actions]
    proposal = t.legal[leader][0]
    engine = get_engine("inside_job")

    def boom(*args, **kwargs):
        raise error

    with monkeypatch.context() as patch:
        patch.setattr(engine, "apply", boom)
        before = t.fingerprint()
        data = {"version": str(t.game.version), "move_id": "boom1", "action": json.dumps(proposal)}
        response = t.by_seat[leader].client.post(t.url, data, HTTP_HX_REQUEST="true")
        assert response.status_code == 400
        assert submit_status(game_id=t.game.pk, player=t.by_seat[leader].player, version=t.game.version,
                             move_id="boom2", action=proposal) == 400
        assert t.fingerprint() == before
    # The proposal opens the vote window; its expiry now meets a failing engine.
    response = t.by_seat[leader].client.post(t.url, {**data, "move_id": "real"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    t.read()
    assert t.game.window
    with monkeypatch.context() as patch:
        patch.setattr(engine, "on_timeout", boom)
        Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        before = t.fingerprint()
        assert game_expire(game_id=t.game.pk) is False
        assert t.fingerprint() == before
        # A page that sees the passed deadline tries the expiry too: still harmless.
        Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert t.by_seat[0].client.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").status_code == 200
        assert t.fingerprint() == before
