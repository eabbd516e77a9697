"""A table of friends plays a whole published Good Cop Bad Cop game tapping only real decisions,
and no answer is ever bounced while its window is open; a game recorded before rules versions
(when a seat with no gun tapped End turn) still replays, verifies and plays on as it began.

Every round each phone fetches its panel first (as the phones around a table all show the
same moment), then the phones that decide something post, one after another, the form their
page showed: its version, its window and its move id. So the later posts of a round carry an
older version than the table's; an answer whose window is still open (the same window id, the
answer still legal for that seat) must land all the same. A turn action carries the version
of a page made at the table's current version, so it lands too.

In a silent window (an equipment interrupt: nobody is awaited, nobody taps Pass) a holder of
a playable card plays it only sometimes; when nobody does, the test lets the clock run out
(``gameplay.worker.tick`` past the deadline) and the window closes by itself.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import time
import uuid
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.core.management import CommandError, call_command

from engines.base import seed_hash
from engines.good_cop_bad_cop.cards import RULES_VERSION
from engines.registry import get_engine
from gameplay.models import Game, Move
from gameplay.selectors import game_replay, game_state
from gameplay.worker import tick
from tests.conftest import start
from tests.gameplay.helpers import legal

pytestmark = pytest.mark.django_db

SEED = 6  # the deal (the product draws it with ``secrets``; fixed here so the game replays alike)
PLAY_IN_SILENCE = 0.3  # how often a holder of a playable card plays it in a silent window
MAX_ROUNDS = 2500


class MoveForms(HTMLParser):
    """The move forms of a panel: their hidden fields and the ``a.*`` fields they let a phone fill."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._form: dict | None = None
        self.buttons: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and "move-form" in (attrs.get("class") or ""):
            self._form = {"hidden": {}, "fields": set(), "frozen": "frozen" in attrs.get("class", "")}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            name = attrs.get("name") or ""
            if attrs.get("type") == "hidden":
                self._form["hidden"][name] = attrs.get("value") or ""
            elif name.startswith("a."):
                self._form["fields"].add(name)
        elif tag == "button" and attrs.get("data-test"):
            self.buttons.append(attrs["data-test"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def _forms(html: str) -> MoveForms:
    parser = MoveForms()
    parser.feed(html)
    return parser


def _form_for(forms: MoveForms, action: dict) -> dict | None:
    """The POST data of the page's form that plays ``action`` (its ``a.*`` fields filled in), or None."""
    for form in forms.forms:
        if form["frozen"] or "action" not in form["hidden"]:
            continue
        base = json.loads(form["hidden"]["action"])
        extra = {key: value for key, value in action.items() if key not in base}
        if any(action.get(key) != value for key, value in base.items()):
            continue
        names = {f"a.{key}[]" if isinstance(value, list) else f"a.{key}": value for key, value in extra.items()}
        if not set(names) <= form["fields"]:
            continue
        # The form as drawn holds no token (it rides in the page's header) and an empty move id, which the phone
        # fills as the move leaves (table.js): a fresh one per tap.
        assert form["hidden"]["move_id"] == "" and "csrfmiddlewaretoken" not in form["hidden"]
        data = {key: form["hidden"][key] for key in ("version", "window", "action")}
        data["move_id"] = uuid.uuid4().hex
        for name, value in names.items():
            data[name] = [str(v) for v in value] if isinstance(value, list) else str(value)
        return data
    return None


def _seats(game: Game, people) -> dict:
    by_player = {person.player.pk: person for person in people}
    return {s.index: by_player[s.player_id] for s in game.seats.all()}


def _decision(rng: random.Random, actions: list[dict]) -> dict:
    """A real decision at random: first what to do (investigate, arm, aim, play…), then which one."""
    kind = rng.choice(sorted({a["type"] for a in actions}))
    return rng.choice([a for a in actions if a["type"] == kind])


def test_friends_play_a_whole_good_cop_bad_cop_game_and_no_open_answer_bounces(table_with, monkeypatch):
    started = time.monotonic()
    monkeypatch.setattr("gameplay.services.new_seed", lambda: SEED)
    rng = random.Random(11)
    # Five friends; the table timer off; the silent windows keep their countdown (long, so the
    # real clock never closes one while the test thinks: the test moves the clock itself).
    table, people = table_with(5, engine="good_cop_bad_cop", timer=0, options={"window_seconds": 20})
    game = start(table, people[0])
    assert game.timer_seconds == 0
    assert game.options["rules_version"] == RULES_VERSION  # a new game plays the current rules
    seats = _seats(game, people)
    engine = get_engine(game.engine)
    url = f"/t/{table.code}/"
    taps = landed_late = refused_after_close = silent_closed = silent_plays = shared_answers = end_turns = 0

    for _round in range(MAX_ROUNDS):
        game.refresh_from_db()
        if game.over:
            break
        # Every phone fetches its panel first: all show this moment of the table.
        now = game_state(game)
        shown: dict[int, tuple[list[dict], MoveForms]] = {}
        for seat, person in seats.items():
            response = person.get(url, HTTP_HX_REQUEST="true")
            assert response.status_code == 200
            html = response.content.decode()
            actions = engine.view(now, seat)["legal"]  # what this phone's page offers
            forms = _forms(html)
            assert all(a["type"] != "pass" for a in actions), f"a Pass is offered to seat {seat}: {actions}"
            # Nothing to decide is never a tap: End turn alone is never offered.
            assert actions != [{"type": "end_turn"}], f"seat {seat} may only end its turn"
            assert "pass" not in forms.buttons, f"a Pass button on seat {seat}'s phone"
            for action in actions:  # every legal decision has its form on the phone
                assert _form_for(forms, action) is not None, f"seat {seat} has no form for {action}"
            shown[seat] = (actions, forms)
        silent = game.countdown is not None
        shown_version = game.version  # every phone fetched its panel at this version (a window's form carries none)
        movers = [seat for seat, (actions, _forms_) in shown.items() if actions]
        if silent:
            # Silent: nobody is awaited, and the countdown runs though the table timer is off.
            assert game.deadline is not None and not engine.awaiting(now)
            tappers = [seat for seat in movers if rng.random() < PLAY_IN_SILENCE]
        else:
            assert movers, f"nobody can move outside a silent window (window {game.window!r})"
            tappers = movers
        if len(tappers) > 1:
            shared_answers += 1
        if not tappers:
            # Nobody plays a card: the countdown ends and the window closes by itself.
            assert silent
            version = game.version
            assert tick(now=game.deadline + timedelta(seconds=1)) >= 1
            game.refresh_from_db()
            assert game.version == version + 1 and game.moves.last().seat is None
            silent_closed += 1
            continue
        rng.shuffle(tappers)
        for seat in tappers:
            actions, forms = shown[seat]
            action = _decision(rng, actions)
            if action["type"] == "end_turn":  # keeping one's aim: a choice only a gun holder has
                assert engine.view(now, seat)["own"]["armed"]
                end_turns += 1
            data = _form_for(forms, action)
            game.refresh_from_db()
            same_window = data["window"] != "" and data["window"] == game.window
            still_open = (same_window or data["version"] == str(game.version)) and action in legal(game, seat)
            before = game.version
            response = seats[seat].client.post(f"{url}move/", data, HTTP_HX_REQUEST="true")
            taps += 1
            game.refresh_from_db()
            body = response.content.decode()
            if still_open:
                assert response.status_code == 200, (
                    f"seat {seat}'s {action} bounced while its window {data['window']!r} was open "
                    f"(page version {data['version']}, table {before}): {response.status_code}"
                )
                assert 'data-test="note"' not in body
                assert game.version == before + 1
                last = game.moves.last()
                assert (last.seat, last.action, last.client_move_id) == (seat, action, data["move_id"])
                landed_late += shown_version != before
                silent_plays += int(silent)
            else:
                # The window this page showed is gone (another card was played into it first).
                if data["window"] and not same_window:
                    assert response.status_code == 409 and "window has closed" in body, (seat, action)
                else:
                    assert response.status_code in (400, 409), (seat, action, response.status_code)
                assert 'data-test="note"' in body
                assert game.version == before
                refused_after_close += 1
            if game.over:
                break
    else:
        raise AssertionError(f"the game did not end in {MAX_ROUNDS} rounds")

    game.refresh_from_db()
    assert game.status == Game.FINISHED and game.outcome["winners"]
    seat_moves = game.moves.exclude(seat=None).count()
    timeouts = game.moves.filter(seat=None).count()
    assert seat_moves == taps - refused_after_close
    assert timeouts == silent_closed  # the table timer is off: only silent windows closed by themselves
    assert landed_late > 0, "no answer ever came from an older screen: the concurrency was not exercised"
    print(
        f"\n{taps} decisions tapped ({landed_late} from an older screen, landed; {silent_plays} cards played "
        f"in silent windows; {refused_after_close} refused after their window closed; {end_turns} End turn "
        f"taps, each keeping a gun's aim), "
        f"{silent_closed} silent windows closed by themselves, {shared_answers} rounds with several phones "
        f"answering; {game.version} moves; winners {game.outcome['winners']} ({game.outcome['reason']}); "
        f"{time.monotonic() - started:.1f} s"
    )
    call_command("verify_game", str(game.pk))


# A game the engine recorded before rules versions (tests/engines/good_cop_bad_cop/old_flow_game.json), and the
# data migration that names their version in the options of the games stored then.
OLD_GAME = json.loads((Path(__file__).parents[1] / "engines" / "good_cop_bad_cop" / "old_flow_game.json").read_text())
MIGRATION = importlib.import_module("gameplay.migrations.0011_good_cop_bad_cop_rules_version")


def _store_old_game(game: Game, upto: int) -> None:
    """Make ``game`` the recorded old game after its first ``upto`` moves, stored as it was then (options
    without a version, seed, log, snapshot), then migrated."""
    engine = get_engine(game.engine)
    moves = [(seat, action) for seat, action in OLD_GAME["moves"][:upto]]
    game.options, game.seed = OLD_GAME["options"], str(OLD_GAME["seed"])
    game.seed_hash = seed_hash(OLD_GAME["seed"])
    Move.objects.bulk_create(Move(game=game, seq=n, seat=seat, action=action)
                             for n, (seat, action) in enumerate(moves, start=1))
    # What the old engine stored: the snapshot of its state (version 1, naming none).
    state = engine.replay(engine.setup(game.players, {**OLD_GAME["options"], "rules_version": 1}, OLD_GAME["seed"]),
                          moves)
    assert "rules_version" not in state["options"]
    game.version, game.snapshot = len(moves), engine.encode(state)
    game.awaiting = sorted(engine.awaiting(state))
    game.window = engine.window(state) or ""
    game.countdown, game.deadline = engine.countdown(state) if game.window else None, None
    game.save()
    MIGRATION.name_version_1(django_apps, None)
    game.refresh_from_db()
    assert game.options == {**OLD_GAME["options"], "rules_version": 1}


def test_a_game_recorded_before_rules_versions_replays_and_verifies_once_migrated(table_with):
    table, people = table_with(OLD_GAME["players"], engine="good_cop_bad_cop")
    new = start(table, people[0])  # a game dealt now, running while the migration runs
    table, people = table_with(OLD_GAME["players"], engine="good_cop_bad_cop")
    game = start(table, people[0])
    engine = get_engine(game.engine)
    _store_old_game(game, len(OLD_GAME["moves"]))
    new.refresh_from_db()
    assert new.options["rules_version"] == RULES_VERSION  # the migration leaves a new game alone
    state = game_replay(game, checked=True)
    text = json.dumps(engine.encode(state), sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == OLD_GAME["state_sha256"]  # the state the old engine reached
    game.outcome, game.status = engine.outcome(state), Game.FINISHED
    game.save()
    assert json.loads(json.dumps(game.outcome)) == OLD_GAME["outcome"]
    call_command("verify_game", str(game.pk))
    # Undone, the game would replay as a new deal (the current rules), which its log breaks.
    MIGRATION.unname_version_1(django_apps, None)
    game.refresh_from_db()
    assert game.options == OLD_GAME["options"]
    with pytest.raises(CommandError, match="replay fails"):
        call_command("verify_game", str(game.pk))


def _first_end_turn_with_no_gun() -> tuple[int, int]:
    """The first End turn a seat holding no gun tapped in the recorded game: (moves before it, that seat)."""
    engine = get_engine("good_cop_bad_cop")
    options = {**OLD_GAME["options"], "rules_version": 1}
    state = engine.setup(OLD_GAME["players"], options, OLD_GAME["seed"])
    for before, (seat, action) in enumerate(OLD_GAME["moves"]):
        if action == {"type": "end_turn"} and not state["players"][seat]["gun"]:
            return before, seat
        state = engine.replay(state, [(seat, action)])
    raise AssertionError("the recorded game has no End turn by a seat with no gun")


def test_a_game_started_before_rules_versions_still_asks_a_seat_with_no_gun_to_end_its_turn(table_with):
    engine = get_engine("good_cop_bad_cop")
    upto, seat = _first_end_turn_with_no_gun()
    table, people = table_with(OLD_GAME["players"], engine="good_cop_bad_cop", timer=0)
    game = start(table, people[0])
    _store_old_game(game, upto)
    person = _seats(game, people)[seat]
    html = person.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-test="end-turn"' in html
    data = _form_for(_forms(html), {"type": "end_turn"})
    assert person.client.post(f"/t/{table.code}/move/", data, HTTP_HX_REQUEST="true").status_code == 200
    game.refresh_from_db()
    assert game.version == upto + 1 and "rules_version" not in game.snapshot["options"]
    assert engine.view(game_state(game), None)["pending"]["when"] == "end"
    assert engine.encode(game_replay(game, checked=True)) == game.snapshot
