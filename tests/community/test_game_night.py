"""Game nights (community.nights): the host opens and closes a series; the board shows its running
scoreboard between games (public results only, never during play); the summary page's figures
equal hand-computed ones and are for the night's players, hosts and group members only."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from community.nights import night_records, scoreboard
from engines.base import seat_team
from gameplay.models import Game, GameNight, GameSeat
from gameplay.selectors import game_state
from lobby.models import Group, Membership, Table
from tests.conftest import start
from tests.gameplay.test_privacy import normalized, play_random_through_services, with_roles
from tests.lobby.test_moderator import moderated_table

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr data-test="night-player"><th scope="row">([^<]*)</th>'
                 r'<td data-test="night-wins">(\d+)</td><td data-test="night-played">(\d+)</td></tr>')


def board_html(client, table: Table) -> str:
    return client.get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content.decode()


def rows_of(html: str) -> dict[str, tuple[int, int]]:
    """The scoreboard's rows: name -> (wins, games)."""
    return {name: (int(wins), int(played)) for name, wins, played in ROW.findall(html)}


def revision(table: Table) -> int:
    table.refresh_from_db(fields=["revision"])
    return table.revision


def play_out(game: Game, people, seed: int = 1) -> Game:
    """Random legal moves through the services until the game finishes."""
    rng = random.Random(seed)
    for _ in range(200):
        play_random_through_services(game, people, 50, rng)
        game.refresh_from_db()
        if game.over:
            return game
    raise AssertionError("the game did not finish")


def switch(table: Table, host, engine: str) -> None:
    """The host picks another game between games (the seats stay)."""
    response = host.post(f"/t/{table.code}/settings/", {"engine": engine, "timer": "0"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.engine == engine


def expected_figures(games: list[Game]) -> tuple[dict[str, tuple[int, int]], Counter]:
    """By hand from the game rows: name -> (wins, games), and (engine, team) -> wins."""
    players: dict[str, list[int]] = {}
    teams: Counter = Counter()
    for game in games:
        winners = {int(w) for w in game.outcome["winners"]}
        for seat in game.seats.all():
            row = players.setdefault(seat.name, [0, 0])
            row[0] += seat.index in winners
            row[1] += 1
        if game.outcome.get("teams"):
            for team in {seat_team(game.outcome, s) for s in winners}:
                teams[(game.engine, team)] += 1
    return {name: (w, p) for name, (w, p) in players.items()}, teams


# --- Starting and ending -------------------------------------------------------------------------


def test_only_the_host_starts_and_ends_a_night_and_a_second_start_is_refused(table_with):
    table, people = table_with(5)
    host, other = people[0], people[1]
    before = revision(table)
    assert other.post(f"/t/{table.code}/host/night/start/").status_code == 403
    assert host.get(f"/t/{table.code}/host/night/start/").status_code == 405
    assert not GameNight.objects.exists() and revision(table) == before

    response = host.post(f"/t/{table.code}/host/night/start/")
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/"
    night = GameNight.objects.get()
    assert night.table == table and night.ended is None and night.created_by == host.player
    started = revision(table)
    assert started > before  # every board and phone refetches

    again = host.post(f"/t/{table.code}/host/night/start/", follow=True)
    assert "A game night is already running at this table." in again.content.decode()
    assert GameNight.objects.count() == 1 and revision(table) == started
    assert GameNight.objects.get().started == night.started

    assert other.post(f"/t/{table.code}/host/night/end/").status_code == 403
    assert GameNight.objects.get().ended is None and revision(table) == started

    response = host.post(f"/t/{table.code}/host/night/end/")
    night.refresh_from_db()
    assert night.ended is not None
    assert response.status_code == 302 and response["Location"] == f"/t/{table.code}/nights/{night.pk}/"
    assert revision(table) > started
    ended = revision(table)
    late = host.post(f"/t/{table.code}/host/night/end/", follow=True)
    assert "No game night is running at this table." in late.content.decode() and revision(table) == ended
    # A new night may start after the last one ended.
    assert host.post(f"/t/{table.code}/host/night/start/").status_code == 302
    assert GameNight.objects.filter(ended__isnull=True).count() == 1


def test_the_phone_host_controls_and_the_moderators_board_offer_the_night(table_with, guests):
    table, people = table_with(5)
    # Between games (the lobby part of the phone) as well as during play.
    assert 'data-test="night-start"' in people[0].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="night-start"' not in people[1].get(f"/t/{table.code}/").content.decode()
    start(table, people[0])
    phone = people[0].get(f"/t/{table.code}/").content.decode()
    assert 'data-test="night-start"' in phone
    assert 'data-test="night-start"' not in people[1].get(f"/t/{table.code}/").content.decode()

    mod_table, tablet, phones = moderated_table(guests, players=5)
    url = f"/t/{mod_table.code}/board/controls/"
    assert 'data-test="night-start"' in tablet.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'night-start' not in phones[0].get(url, HTTP_HX_REQUEST="true").content.decode()
    response = tablet.post(f"/t/{mod_table.code}/host/night/start/", {"back": "board"})
    assert response.status_code == 302 and response["Location"] == f"/t/{mod_table.code}/board/"
    fragment = tablet.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-test="night-end"' in fragment and 'data-test="night-open"' in fragment
    night = GameNight.objects.get(table=mod_table)
    assert night.created_by == tablet.player
    response = tablet.post(f"/t/{mod_table.code}/host/night/end/", {"back": "board"})
    assert response["Location"] == f"/t/{mod_table.code}/nights/{night.pk}/?back=board"
    summary = tablet.get(response["Location"]).content.decode()
    assert f'href="/t/{mod_table.code}/board/" data-test="night-back"' in summary


# --- The board between games ---------------------------------------------------------------------


def test_the_board_shows_the_running_scoreboard_between_games_of_three_systems(table_with, client):
    table, people = table_with(5)
    host = people[0]
    # A game before the night does not count.
    play_out(start(table, host), people, seed=11)
    assert 'data-test="night-scoreboard"' not in board_html(client, table)

    host.post(f"/t/{table.code}/host/night/start/")
    html = board_html(client, table)
    assert 'data-test="night-scoreboard"' in html and "Game night: 0 games so far" in html and not rows_of(html)

    played = []
    for n, engine in enumerate(["inside_job", "coup", "good_cop_bad_cop_health"]):
        if engine != table.engine:
            switch(table, host, engine)
        game = start(table, host)
        during = board_html(client, table)
        assert "data-playing" in during and "night-scoreboard" not in during  # never during play
        played.append(play_out(game, people, seed=n))
        html = board_html(client, table)
        assert 'data-test="night-scoreboard"' in html and 'data-test="winners"' in html  # the game-over board
        expected, teams = expected_figures(played)
        assert rows_of(html) == expected
        assert f"Game night: {len(played)} game" in html
        for (engine_name, team), wins in teams.items():
            part = html[html.index(f'data-test="night-system-{engine_name}"'):]
            part = part[:part.index("</li>")]
            assert f'data-test="team-wins-{team}">{wins}<' in part
    assert sum(w for w, _ in rows_of(html).values()) == sum(len(g.outcome["winners"]) for g in played)
    assert {p for _, p in rows_of(html).values()} == {3}
    night = GameNight.objects.get()
    ended = host.post(f"/t/{table.code}/host/night/end/")
    assert ended["Location"] == f"/t/{table.code}/nights/{night.pk}/"
    final = board_html(client, table)
    assert "Game night over: 3 games" in final and 'data-test="night-summary-link"' in final
    assert f'href="/t/{table.code}/nights/{night.pk}/"' in final
    assert rows_of(final) == expected
    summary = people[2].get(ended["Location"]).content.decode()
    assert rows_of(summary) == expected and summary.count('data-test="night-game"') == 3
    # Each game's link opens its log and replay for a summary reader (the share token, as the game-over screen's).
    links = re.findall(r'href="(/g/\d+/\?k=[^"]+)"', summary)
    assert len(links) == 3
    for link in links:
        assert people[2].get(link).status_code == 200
    # A game after the end does not count, and the final scoreboard goes once the next game is dealt.
    game = start(table, host)
    assert "night-scoreboard" not in board_html(client, table)
    play_out(game, people, seed=7)
    assert "night-scoreboard" not in board_html(client, table)
    night.refresh_from_db()
    assert len(night_records(night)) == 3


def test_the_board_during_play_shows_no_scoreboard_and_nothing_that_depends_on_the_roles(table_with, client):
    """A night with a finished game, then a running one: the board's bytes are the same whatever the
    running game's roles are, and hold no scoreboard, no seed and no role word of the running game."""
    table, people = table_with(7)
    host = people[0]
    host.post(f"/t/{table.code}/host/night/start/")
    play_out(start(table, host), people, seed=3)
    game = start(table, host)
    html = board_html(client, table)
    assert "night-scoreboard" not in html and game.seed not in html
    for word in ("merlin", "assassin", "traitor\"", "data-test=\"role\""):
        assert word not in html
    roles = list(game_state(game)["roles"])
    before = normalized(client.get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content)
    rng = random.Random(5)
    for _ in range(3):
        shuffled = list(roles)
        rng.shuffle(shuffled)
        with_roles(game, shuffled)
        assert normalized(client.get(f"/t/{table.code}/board/", HTTP_HX_REQUEST="true").content) == before
    with_roles(game, roles)


def test_the_scoreboard_between_games_shows_only_what_the_game_over_screen_showed(table_with, client):
    """Between games the scoreboard adds names and counts only: no role of anyone, no seed beyond the
    finished game's own (which its end reveals)."""
    table, people = table_with(5)
    host = people[0]
    host.post(f"/t/{table.code}/host/night/start/")
    game = play_out(start(table, host), people, seed=2)
    html = board_html(client, table)
    part = html[html.index('data-test="night-scoreboard"'):]
    part = part[:part.index("</section>")]
    for role in ("merlin", "assassin", "percival", "morgana", "mordred", "oberon", "agent\"", game.seed):
        assert role not in part
    assert set(rows_of(part)) == {s.name for s in game.seats.all()}


# --- The summary page ----------------------------------------------------------------------------


@pytest.fixture
def recorded_night(guests):
    """A night at a table of five guests with hand-made results: four finished games of the four systems,
    one ended early; one game before the night and one after it (neither counts)."""
    people = guests(5)
    a, b, c, d, e = (p.player for p in people)
    (stranger,) = guests(1, prefix="S")
    table = Table.objects.create(code="NIGHT", host=a, engine="inside_job")
    t0 = timezone.now() - timedelta(hours=5)
    night = GameNight.objects.create(table=table, created_by=a, started=t0, ended=t0 + timedelta(hours=4))

    def game(minutes, engine, seats, outcome, status=Game.FINISHED):
        row = Game.objects.create(table=table, engine=engine, players=len(seats), seed="s3cr3t-seed", seed_hash="x",
                                  status=status, outcome=outcome, finished=t0 + timedelta(minutes=minutes))
        for i, p in enumerate(seats):
            GameSeat.objects.create(game=row, index=i, player=p, name=p.nickname if p else "Robo",
                                    bot="" if p else "random")
        return row

    game(-30, "coup", [a, b], {"winners": [1], "reason": "last_standing"})  # before the night
    game(20, "inside_job", [a, b, c, d, e], {
        "winners": [2, 3], "side": "traitors", "teams": {"agents": [0, 1, 4], "traitors": [2, 3]},
        "reveal": {"roles": ["agent", "merlin", "traitor", "assassin", "agent"]}})
    game(50, "coup", [b, a, c], {"winners": [1], "reason": "last_standing"})
    game(80, "good_cop_bad_cop", [a, b, c, d], {
        "winners": [0, 2], "team": "honest", "teams": {"0": "honest", "1": "crooked", "2": "honest", "3": "crooked"},
        "reveal": {"cards": [["agent", "honest"], ["kingpin", "crooked"], ["honest"], ["crooked"]]}})
    game(110, "good_cop_bad_cop_health", [d, c, b, a, None], {
        "winners": [0, 3, 4], "teams": {"good": [0, 3, 4], "bad": [1, 2]},
        "reveal": {"identities": ["good", "bad", "bad", "good", "good"]}})
    game(130, "inside_job", [a, b, c, d, e], {"winners": [], "reason": "ended_by_host"}, status=Game.ENDED)
    game(300, "coup", [e, a], {"winners": [0], "reason": "last_standing"})  # after the night
    return table, night, people, stranger


def test_the_summary_figures_equal_the_hand_computed_ones(recorded_night):
    table, night, people, _stranger = recorded_night
    board = scoreboard(night_records(night))
    # By hand: P1 won Coup, GCBC and the health edition (3 of 4); P3 won Inside Job and GCBC (2 of 4);
    # P4 won Inside Job and the health edition (2 of 3); P2 0 of 4; P5 0 of 1; the bot Robo 1 of 1.
    assert {(r.name, r.wins, r.played) for r in board.players} == {
        ("P1", 3, 4), ("P3", 2, 4), ("P4", 2, 3), ("P2", 0, 4), ("P5", 0, 1), ("Robo", 1, 1)}
    # Most wins first, then fewer games, then the order they first sat down.
    assert [r.name for r in board.players] == ["P1", "P4", "P3", "Robo", "P5", "P2"]
    assert board.games == 4 and board.leader_names == ["P1"]
    teams = {(s.engine, t.team): (t.wins, t.played) for s in board.systems for t in s.teams}
    assert teams == {("inside_job", "traitors"): (1, 1), ("inside_job", "agents"): (0, 1),
                     ("good_cop_bad_cop", "honest"): (1, 1), ("good_cop_bad_cop", "crooked"): (0, 1),
                     ("good_cop_bad_cop_health", "good"): (1, 1), ("good_cop_bad_cop_health", "bad"): (0, 1)}
    assert {s.engine: s.games for s in board.systems} == {
        "inside_job": 1, "coup": 1, "good_cop_bad_cop": 1, "good_cop_bad_cop_health": 1}

    html = people[1].get(f"/t/{table.code}/nights/{night.pk}/").content.decode()
    assert rows_of(html) == {"P1": (3, 4), "P3": (2, 4), "P4": (2, 3), "P2": (0, 4), "P5": (0, 1), "Robo": (1, 1)}
    assert re.search(r'data-test="night-winners">Winner of the night: <strong>P1</strong>', html)
    assert html.count('data-test="night-game"') == 5  # four finished, one ended early
    assert "ended early" in html
    winners = re.findall(r'data-test="night-game-winners">([^<]*)<', html)
    assert winners == ["P3, P4", "P1", "P1, P3", "P4, P1, Robo"]
    for row in night_records(night):
        share = Game.objects.get(pk=row.id).share_token
        assert f'href="/g/{row.id}/?k={share}"' in html
    assert 'data-test="team-wins-traitors">1 win of 1<' in html
    # Public results only: no seed and no role word beyond the team that won.
    for secret in ("s3cr3t-seed", "merlin", "assassin", "kingpin"):
        assert secret not in html


def test_the_summary_is_for_the_nights_players_hosts_and_group_members_only(recorded_night, guests):
    table, night, people, stranger = recorded_night
    url = f"/t/{table.code}/nights/{night.pk}/"
    assert people[0].get(url).status_code == 200  # the host
    assert people[4].get(url).status_code == 200  # P5 sat at one of its games
    assert stranger.get(url).status_code == 404
    assert Client().get(url).status_code == 404  # no session at all
    assert stranger.get(f"/t/{table.code}/nights/{night.pk + 99}/").status_code == 404
    # A player's history links to the nights they played in (and only those).
    assert f'href="{url}"' in people[4].get("/history/").content.decode()
    assert f'href="{url}"' in people[0].get("/history/").content.decode()
    assert 'data-test="history-nights"' not in stranger.get("/history/").content.decode()
    # Another table's code with this night's id: no such page either.
    other = Table.objects.create(code="OTHER", host=stranger.player, engine="coup")
    assert stranger.get(f"/t/{other.code}/nights/{night.pk}/").status_code == 404
    # A member of the group the table played for may see it.
    group = Group.objects.create(name="Crew", created_by=people[0].player)
    GameNight.objects.filter(pk=night.pk).update(group=group)
    (member,) = guests(1, prefix="M")
    assert member.get(url).status_code == 404
    Membership.objects.create(group=group, player=member.player)
    assert member.get(url).status_code == 200
    assert stranger.get(url).status_code == 404


def _report(html: str) -> str:
    """A night page's part that says what the night was: scoreboard, wins by team, games."""
    return html[html.index("<h2>Scoreboard</h2>"):html.index("</ol>", html.index('data-test="night-games"'))]


def test_the_group_night_page_and_the_hosts_summary_are_one_night(recorded_night):
    """One definition of a night: the group's page for a date lists the games the host's summary lists,
    never the table's games before the night began or after it ended (issue 26, item 9)."""
    table, night, people, _stranger = recorded_night
    group = Group.objects.create(name="Crew", created_by=people[0].player)
    for person in people:
        Membership.objects.create(group=group, player=person.player)
    Game.objects.filter(table=table).update(group=group)  # every game of that day was played for the group
    GameNight.objects.filter(pk=night.pk).update(group=group)
    summary = people[0].get(f"/t/{table.code}/nights/{night.pk}/").content.decode()
    detail = people[0].get(f"/groups/{group.pk}/").content.decode()
    listed = re.findall(r'<a href="/groups/\d+/nights/(\d+)/">[^<]*</a> · (\d+) games?', detail)
    assert listed == [(str(night.pk), "5")]  # one night, with the summary's five games
    page = people[0].get(f"/groups/{group.pk}/nights/{night.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('data-test="night-game"') == summary.count('data-test="night-game"') == 5
    assert _report(html) == _report(summary)
    assert rows_of(html) == rows_of(summary)
    # Another group's member, or another group's id, finds no such night.
    other = Group.objects.create(name="Others", created_by=people[1].player)
    Membership.objects.create(group=other, player=people[1].player)
    assert people[1].get(f"/groups/{other.pk}/nights/{night.pk}/").status_code == 404


def test_a_night_counts_for_a_group_one_of_its_games_was_played_for(recorded_night):
    """A night started before its table played for the group counts for the group through its games."""
    table, night, people, _stranger = recorded_night
    group = Group.objects.create(name="Crew", created_by=people[0].player)
    Membership.objects.create(group=group, player=people[0].player)
    assert people[0].get(f"/groups/{group.pk}/nights/{night.pk}/").status_code == 404
    Game.objects.filter(table=table, engine="coup", finished__gt=night.ended).update(group=group)  # after it
    assert people[0].get(f"/groups/{group.pk}/nights/{night.pk}/").status_code == 404
    Game.objects.filter(table=table, engine="good_cop_bad_cop").update(group=group)  # during it
    assert people[0].get(f"/groups/{group.pk}/nights/{night.pk}/").status_code == 200


def test_the_nights_games_are_those_finished_while_it_was_open(table_with):
    """A game running when the night starts counts once it finishes; one finished after the end does not."""
    table, people = table_with(5)
    host = people[0]
    game = start(table, host)
    host.post(f"/t/{table.code}/host/night/start/")
    play_out(game, people, seed=4)
    night = GameNight.objects.get()
    assert [r.id for r in night_records(night)] == [game.pk]
    late = start(table, host)
    host.post(f"/t/{table.code}/host/night/end/")
    play_out(late, people, seed=5)
    night.refresh_from_db()
    assert [r.id for r in night_records(night)] == [game.pk]


@pytest.mark.django_db(transaction=True)
def test_the_hosts_night_control_keeps_the_hosts_phone_within_the_query_budgets(table_with):
    """The night control in the host's controls costs one read: the host's refresh and answers stay in budget."""
    from tests.gameplay.helpers import awaited_movers, legal, move_data
    from tests.gameplay.test_query_budgets import MOVE_BUDGET, REFRESH_BUDGET, statements

    table, people = table_with(5)
    host = people[0]
    host.post(f"/t/{table.code}/host/night/start/")
    game = start(table, host)
    for person in people:
        person.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true")
    with statements(REFRESH_BUDGET):
        html = host.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-test="night-end"' in html
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    game.refresh_from_db()
    assert 0 in awaited_movers(game)  # every seat votes on the team, the host too
    data = move_data(game, legal(game, 0)[0]) | {"window": game.window}
    with statements(MOVE_BUDGET):
        answer = host.htmx_post(f"/t/{table.code}/move/", data)
    assert answer.status_code == 200 and 'data-test="night-end"' in answer.content.decode()
