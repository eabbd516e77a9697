"""Figures from the event log, by replaying it through the engine: Coup's bluffs and challenges, Inside
Job's sabotaged missions and Merlin found; equal to hand-computed figures from a small fixture of
recorded games, on the pages and in the downloads, and again after ``stats_rebuild``. And the
SVG charts write their numbers in Persian digits on a Persian page.

The fixture's games are real logs: each is a seed and scripted moves the engine accepts (checked
through ``apply`` while the fixture is built), played to the end; the figures below were worked
out by hand from the scripts and the dealt hands and roles, which are printed next to each script.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone

from community.stats import (
    FIGURES_VERSION,
    figures_key,
    group_records,
    log_figures,
    player_records,
    player_stats,
)
from engines.base import seed_hash
from engines.registry import get_engine
from gameplay.models import Game, GameSeat, Move
from lobby.models import Group, Membership, Player, Table

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Passw0rd!"
NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve")


def _coup_finish(engine, state):
    """After the script: allow every window, lose the first card, take Income, Coup when one can."""
    for seat in sorted(engine.awaiting(state)):
        legal = engine.legal_actions(state, seat)
        for wanted in ("allow", "lose", "coup", "income"):
            found = [a for a in legal if a["type"] == wanted]
            if found:
                return seat, found[0]
    raise AssertionError(f"nothing to play in {state['phase']}")


def play(name: str, players: int, options: dict, seed: int, script: list, finish=None):
    """The moves of a whole game: ``script`` (each checked by ``apply``), then ``finish`` to the end."""
    engine = get_engine(name)
    options = {**engine.default_options(), **options}
    state = engine.setup(players, options, seed)
    moves = []
    for seat, action in script:
        state = engine.apply(state, seat, action)
        moves.append((seat, action))
    while engine.outcome(state) is None:
        assert finish is not None, "the script does not end the game"
        seat, action = finish(engine, state)
        state = engine.apply(state, seat, action)
        moves.append((seat, action))
        assert len(moves) < 500
    return options, moves, json.loads(json.dumps(engine.outcome(state)))


def mission(leader: int, team: list[int], sabotage: set[int] = frozenset(), players: int = 5) -> list:
    """An Inside Job mission: the leader proposes ``team``, everyone approves, ``sabotage`` seats sabotage."""
    moves = [(leader, {"type": "propose", "team": list(team)})]
    moves += [(s, {"type": "vote", "approve": True}) for s in range(players)]
    moves += [(s, {"type": "play", "card": "sabotage" if s in sabotage else "success"}) for s in team]
    return moves


# Coup, seed 1, 3 players, seat 0 first. Dealt: 0 assassin+ambassador, 1 assassin+contessa, 2 duke+ambassador.
COUP_BLUFFS = [
    (0, {"type": "tax"}),  # 0 claims Duke: a bluff ...
    (1, {"type": "challenge"}),  # ... 1 challenges: caught (1 catches it)
    (0, {"type": "reveal", "card": "assassin"}),
    (1, {"type": "tax"}),  # 1 claims Duke: a bluff nobody challenges
    (0, {"type": "allow"}), (2, {"type": "allow"}),
    (2, {"type": "tax"}),  # 2 claims Duke, honestly ...
    (0, {"type": "challenge"}),  # ... 0 challenges and loses (0 is out)
    (2, {"type": "reveal", "card": "duke"}),
    (1, {"type": "steal", "target": 2}),  # 1 claims Captain: a second bluff, not challenged
    (2, {"type": "allow"}),
    (2, {"type": "block", "as": "ambassador"}),  # 2 blocks as Ambassador, honestly ...
    (1, {"type": "challenge"}),  # ... 1 challenges the block and loses
    (2, {"type": "reveal", "card": "ambassador"}),
]
# Coup with Factions, seed 5, 3 players. Dealt: 0 contessa+duke, 1 ambassador+contessa, 2 captain+ambassador.
COUP_EMBEZZLE = [
    (0, {"type": "embezzle"}),  # Embezzle claims *no* Duke: 0 holds one, a bluff ...
    (1, {"type": "challenge"}),  # ... 1 challenges: the whole hand shows, caught
    (1, {"type": "embezzle"}),  # 1 holds no Duke: an honest claim, not challenged
    (0, {"type": "allow"}), (2, {"type": "allow"}),
]
# Inside Job with Merlin, seed 1: roles agent, agent, merlin, assassin, traitor.
IJ_MERLIN_FOUND = (
    mission(0, [0, 4], {4})  # fails: 4 (Traitor) on the team
    + mission(1, [0, 1, 2]) + mission(2, [1, 2])
    + mission(3, [2, 3, 4], {3})  # fails by one card: both Traitors on the team count it; 3 played it
    + mission(4, [0, 1, 2])
    + [(3, {"type": "assassinate", "target": 2})]  # the Assassin names Merlin: found
)
# Inside Job with Merlin, seed 3: roles assassin, agent, merlin, agent, traitor.
IJ_MERLIN_SURVIVES = (
    mission(0, [0, 1])  # the Assassin plays Success: no sabotage
    + mission(1, [1, 2, 3])
    + mission(2, [2, 4], {4})  # fails: 4 sabotaged
    + mission(3, [1, 2, 3])
    + [(0, {"type": "assassinate", "target": 1})]  # the Assassin misses
)


def _account(name: str) -> Player:
    return Player.objects.create(nickname=name, user=User.objects.create_user(name.lower(), password=PASSWORD))


def record_game(table, group, name, players, seed, options, moves, outcome, when):
    """A finished Game row with its Move log and seats, as the app stores one."""
    game = Game.objects.create(table=table, engine=name, players=len(players), options=options, seed=str(seed),
                               seed_hash=seed_hash(seed), status=Game.FINISHED, outcome=outcome, group=group,
                               version=len(moves), finished=when)
    Move.objects.bulk_create(Move(game=game, seq=i, seat=seat, action=action)
                             for i, (seat, action) in enumerate(moves, start=1))
    for i, p in enumerate(players):
        GameSeat.objects.create(game=game, index=i, player=p, name=p.nickname)
    return game


def build_figured():
    """Five accounts in a group and four finished games with real logs (two Coup, two Inside Job)."""
    people = [_account(n) for n in NAMES]
    ann, ben, cat, dan, eve = people
    group = Group.objects.create(name="Bluffers", created_by=ann)
    for p in people:
        Membership.objects.create(group=group, player=p)
    table = Table.objects.create(code="FIGRS", host=ann, engine="coup")
    start = timezone.now() - timedelta(days=2)
    games = []
    for n, (name, seats, seed, options, script, finish) in enumerate([
        ("coup", [ann, ben, cat], 1, {"first_player": 0}, COUP_BLUFFS, _coup_finish),
        ("coup", [cat, ann, ben], 5, {"first_player": 0, "factions": True}, COUP_EMBEZZLE, _coup_finish),
        ("inside_job", [ann, ben, cat, dan, eve], 1, {"first_player": 0, "merlin": True}, IJ_MERLIN_FOUND, None),
        ("inside_job", [ben, cat, dan, eve, ann], 3, {"first_player": 0, "merlin": True}, IJ_MERLIN_SURVIVES, None),
    ]):
        options, moves, outcome = play(name, len(seats), options, seed, script, finish)
        games.append(record_game(table, group, name, seats, seed, options, moves, outcome,
                                 start + timedelta(hours=n)))
    return group, people, games


@pytest.fixture
def figured(db):
    return build_figured()


def _coup(claims: int, bluffs: int, caught_bluffing: int, bluffs_caught: int, challenges_lost: int) -> dict:
    return {"claims": claims, "bluffs": bluffs, "caught_bluffing": caught_bluffing, "bluffs_caught": bluffs_caught,
            "challenges_lost": challenges_lost}


# By hand, per game and seat (seat order as in build_figured). Coup: claims, bluffs, caught bluffing,
# bluffs caught, challenges lost.
COUP_1 = [_coup(1, 1, 1, 0, 1),
          _coup(2, 2, 0, 1, 1),
          _coup(2, 0, 0, 0, 0)]
COUP_2 = [_coup(1, 1, 1, 0, 0),
          _coup(1, 0, 0, 1, 0),
          _coup(0, 0, 0, 0, 0)]
_IJ0 = {"sabotaged_missions": 0, "sabotage_cards": 0, "assassin_guesses": 0, "merlin_found": 0, "found_as_merlin": 0}
IJ_1 = [_IJ0, _IJ0, {**_IJ0, "found_as_merlin": 1},
        {**_IJ0, "sabotaged_missions": 1, "sabotage_cards": 1, "assassin_guesses": 1, "merlin_found": 1},
        {**_IJ0, "sabotaged_missions": 2, "sabotage_cards": 1}]
IJ_2 = [{**_IJ0, "assassin_guesses": 1}, _IJ0, _IJ0, _IJ0, {**_IJ0, "sabotaged_missions": 1, "sabotage_cards": 1}]
# Totals per player over the four games.
COUP_TOTALS = {
    "Ann": _coup(2, 1, 1, 1, 1),
    "Ben": _coup(2, 2, 0, 1, 1),
    "Cat": _coup(3, 1, 1, 0, 0),
}
IJ_TOTALS = {
    "Ann": {**_IJ0, "sabotaged_missions": 1, "sabotage_cards": 1},
    "Ben": {**_IJ0, "assassin_guesses": 1},
    "Cat": {**_IJ0, "found_as_merlin": 1},
    "Dan": {**_IJ0, "sabotaged_missions": 1, "sabotage_cards": 1, "assassin_guesses": 1, "merlin_found": 1},
    "Eve": {**_IJ0, "sabotaged_missions": 2, "sabotage_cards": 1},
}


def _totals(records, people):
    return {p.nickname: player_stats(records, p.pk).figures for p in people}


def _expected():
    return {name: {k: v for k, v in (("coup", COUP_TOTALS.get(name)), ("inside_job", IJ_TOTALS[name])) if v}
            for name in NAMES}


def test_each_games_figures_from_its_log_equal_the_hand_computed_ones(figured):
    _group, _people, games = figured
    for game, expected in zip(games, (COUP_1, COUP_2, IJ_1, IJ_2), strict=True):
        moves = list(game.moves.values_list("seat", "action"))
        assert list(log_figures(game.engine, game.players, game.options, int(game.seed), moves)) == expected
    # A game without such figures has none; a log cut short still counts what it shows.
    assert log_figures("good_cop_bad_cop", 4, {}, 1, []) == ({}, {}, {}, {})
    first = games[0]
    moves = list(first.moves.values_list("seat", "action"))[:3]  # the caught bluff only
    assert log_figures("coup", 3, first.options, 1, moves)[0] == dict(COUP_1[0], challenges_lost=0)
    # Roles are public only at the end: a running Inside Job credits no sabotage to anyone.
    ij = games[2]
    half = list(ij.moves.values_list("seat", "action"))[:10]
    assert [f["sabotaged_missions"] for f in log_figures("inside_job", 5, ij.options, 1, half)] == [0] * 5
    assert log_figures("inside_job", 5, ij.options, 1, half)[4]["sabotage_cards"] == 1


def test_each_players_totals_equal_the_hand_computed_ones(figured):
    group, people, _games = figured
    assert _totals(group_records(group, figures=True), people) == _expected()
    assert _totals(player_records(people[0], figures=True), people[:1]) == {"Ann": _expected()["Ann"]}
    # Without figures asked for, records carry none (the board's night scoreboard reads no log).
    assert all(r.figures == () for r in group_records(group))


def test_figures_come_from_the_cache_once_computed(figured, django_assert_max_num_queries):
    group, people, games = figured
    cache.clear()
    group_records(group, figures=True)
    assert cache.get(figures_key(games[0])) == COUP_1
    assert figures_key(games[0]) == f"stats:figures:{FIGURES_VERSION}:{games[0].pk}:{games[0].version}"
    with django_assert_max_num_queries(2):  # the games and their seats: no moves read again
        records = group_records(group, figures=True)
    assert _totals(records, people) == _expected()


def test_the_pages_show_the_figures_and_only_the_owner_sees_their_sabotage_cards(figured, client):
    group, (ann, ben, cat, dan, eve), _games = figured
    client.login(username="dan", password=PASSWORD)
    own = client.get("/stats/").content.decode()
    assert 'data-test="coup-figures"' not in own  # Dan never played Coup
    assert re.search(r'data-test="fig-sabotaged">1<', own) and re.search(r'data-test="fig-sabotage-cards">1<', own)
    assert re.search(r'data-test="fig-merlin-found">1 of 1<', own)
    client.logout()
    client.login(username="ann", password=PASSWORD)
    page = client.get(f"/groups/{group.pk}/players/{dan.pk}/").content.decode()
    assert re.search(r'data-test="fig-sabotaged">1<', page) and re.search(r'data-test="fig-merlin-found">1 of 1<', page)
    assert 'fig-sabotage-cards' not in page  # who played a Sabotage card is Dan's secret
    ben_page = client.get(f"/groups/{group.pk}/players/{ben.pk}/").content.decode()
    for test_id, value in (("claims", 2), ("bluffs", 2), ("caught-bluffing", 0), ("bluffs-caught", 1),
                           ("challenges-lost", 1)):
        assert re.search(rf'data-test="fig-{test_id}">{value}<', ben_page), test_id
    assert re.search(r'data-test="fig-merlin-found">0 of 1<', ben_page)
    detail = client.get(f"/groups/{group.pk}/").content.decode()
    assert 'data-test="group-figures"' in detail
    row = re.search(rf'<tr data-test="figures-{cat.pk}">(.*?)</tr>', detail).group(1)
    # Cat: 1 bluff, caught once, caught nobody; no mission sabotaged, no Merlin found.
    assert re.findall(r"<td>(\d+)</td>", row) == ["1", "1", "0", "0", "0"]
    row = re.search(rf'<tr data-test="figures-{eve.pk}">(.*?)</tr>', detail).group(1)
    assert re.findall(r"<td>(\d+)</td>", row) == ["0", "0", "0", "2", "0"]


def test_the_downloads_carry_the_players_own_figures(figured, client):
    _group, _people, games = figured
    client.login(username="ann", password=PASSWORD)
    rows = json.loads(client.get("/stats/my-games.json").content)
    assert [(r["engine"], r["figures"]) for r in rows] == [
        ("coup", COUP_1[0]), ("coup", COUP_2[1]), ("inside_job", IJ_1[0]), ("inside_job", IJ_2[4])]
    table = list(csv.DictReader(client.get("/stats/my-games.csv").content.decode().splitlines()))
    assert [r["bluffs"] for r in table] == ["1", "0", "", ""]
    assert [r["sabotage_cards"] for r in table] == ["", "", "0", "1"]


def test_the_downloads_name_the_figures_as_the_page_labels_them(figured, client):
    """The page's "Caught bluffing" is the download's ``caught_bluffing``, its "Bluffs caught" ``bluffs_caught``."""
    client.login(username="ben", password=PASSWORD)
    page = client.get("/stats/").content.decode()
    item = re.compile(r"<li>([^<(:]+?)(?: \([^)]*\))?: <strong data-test=\"fig-[a-z-]+\">(\d+)</strong>")
    shown = {label.lower().replace(" ", "_"): int(value) for label, value in item.findall(page)}
    assert shown["caught_bluffing"] == 0 and shown["bluffs_caught"] == 1  # Ben: never caught, caught Ann once
    table = list(csv.DictReader(client.get("/stats/my-games.csv").content.decode().splitlines()))
    assert "catches" not in table[0]
    for name in ("caught_bluffing", "bluffs_caught", "bluffs"):
        assert sum(int(row[name] or 0) for row in table) == shown[name], name
    rows = json.loads(client.get("/stats/my-games.json").content)
    for name in ("caught_bluffing", "bluffs_caught"):
        assert sum(r["figures"].get(name, 0) for r in rows) == shown[name], name


def test_stats_rebuild_computes_the_same_figures_again_from_the_log(figured):
    group, people, games = figured
    before = _totals(group_records(group, figures=True), people)
    assert before == _expected()
    # A wrong cached figure is what the pages would show, until a rebuild from the log.
    cache.set(figures_key(games[0]), [dict(f, bluffs=9) for f in COUP_1])
    assert _totals(group_records(group, figures=True), people) != before
    with pytest.raises(CommandError):
        call_command("stats_rebuild", "--check", stdout=StringIO())
    out = StringIO()
    call_command("stats_rebuild", "--group", str(group.pk), stdout=out)
    text = out.getvalue()
    assert "4 finished games replayed, 0 outcomes differed, 1 cached figures differed" in text
    assert "Ben coup: claims=2 bluffs=2 caught_bluffing=0 bluffs_caught=1 challenges_lost=1" in text
    assert "Dan inside_job: sabotaged_missions=1 assassin_guesses=1 merlin_found=1 found_as_merlin=0" in text
    assert "sabotage_cards" not in text  # the command prints public figures only
    assert _totals(group_records(group, figures=True), people) == before
    cache.clear()  # a lost cache: the figures come again from the log, the same
    assert _totals(group_records(group, figures=True), people) == before
    out = StringIO()
    call_command("stats_rebuild", "--check", stdout=out)
    assert "0 outcomes differed, 0 cached figures differed" in out.getvalue()


PERSIAN = "۰۱۲۳۴۵۶۷۸۹"


def _svgs(html: str, test_id: str) -> list[str]:
    return re.findall(rf'<svg[^>]*data-test="{test_id}".*?</svg>', html, flags=re.S)


def test_charts_write_their_numbers_in_persian_digits_on_a_persian_page(figured, client, settings):
    group, (ann, *_), _games = figured
    client.login(username="ann", password=PASSWORD)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    html = client.get(f"/groups/{group.pk}/players/{ann.pk}/").content.decode()
    assert 'lang="fa"' in html
    (rating, *_more) = _svgs(html, "rating-chart")
    (roles,) = _svgs(html, "role-chart")
    for svg in (rating, roles):
        texts = re.findall(r">([^<]+)<", svg)
        shown = "".join(texts)
        assert any(ch in PERSIAN for ch in shown), shown
        assert not re.search(r"[0-9]", shown), shown  # no ASCII digit in any text of the chart
        # The geometry stays in ASCII digits: SVG needs them.
        assert re.search(r'viewBox="0 0 \d+ \d+"', svg)
    label = re.search(r'aria-label="([^"]*)"', rating).group(1)
    assert any(ch in PERSIAN for ch in label) and not re.search(r"[0-9]", label)
    # The same charts in English keep ASCII digits.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = client.get(f"/groups/{group.pk}/players/{ann.pk}/").content.decode()
    (rating,) = _svgs(english, "rating-chart")[:1]
    assert re.search(r'aria-label="Rating from 0.0 to -?\d', rating)
    assert not any(ch in PERSIAN for ch in rating)
