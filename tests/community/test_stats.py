"""Stats, ratings and charts from finished games: hand-computed figures, the right direction after
a win and a loss, members-only pages, and a rebuild from the log that gives the same numbers."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone
from openskill.models import PlackettLuce

from community.charts import bar_chart, line_chart
from community.ratings import MIN_GAMES, leaderboard, rate_games
from community.stats import (
    group_records,
    head_to_head,
    player_records,
    player_stats,
    stats_context,
)
from gameplay.models import Game, GameSeat
from gameplay.records import seat_role
from lobby.models import Group, Membership, Player, Table
from tests.conftest import start
from tests.gameplay.test_moves import play_to_end

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Passw0rd!"


def _account(name: str) -> Player:
    return Player.objects.create(nickname=name, user=User.objects.create_user(name.lower(), password=PASSWORD))


@pytest.fixture
def recorded(db):
    """Four accounts in a group and four finished games (one per game system), plus a running and an ended one."""
    a, b, c, d = (_account(n) for n in ("Ann", "Ben", "Cat", "Dan"))
    group = Group.objects.create(name="Crew", created_by=a)
    for p in (a, b, c, d):
        Membership.objects.create(group=group, player=p)
    table = Table.objects.create(code="ABCDE", host=a, engine="inside_job")
    start_time = timezone.now() - timedelta(days=1)

    def game(n, engine, seats, outcome, status=Game.FINISHED):
        row = Game.objects.create(table=table, engine=engine, players=len(seats), seed="1", seed_hash="x",
                                  status=status, outcome=outcome, group=group,
                                  finished=start_time + timedelta(hours=n) if status != Game.RUNNING else None)
        for i, p in enumerate(seats):
            GameSeat.objects.create(game=row, index=i, player=p, name=p.nickname if p else "Bot",
                                    bot="" if p else "random")
        return row

    game(1, "inside_job", [a, b, c, d, None], {
        "winners": [2, 3], "side": "traitors", "reason": "missions_failed",
        "teams": {"agents": [0, 1, 4], "traitors": [2, 3]},
        "reveal": {"roles": ["agent", "merlin", "traitor", "assassin", "agent"], "assassin_target": None}})
    game(2, "coup", [b, a, c], {"winners": [1], "reason": "last_standing", "wins": [0, 1, 0],
                                "reveal": {"hands": [[], ["duke"], []], "lost": [[], [], []]}})
    game(3, "good_cop_bad_cop", [a, b, c, d], {
        "winners": [0, 2], "reason": "kingpin_eliminated", "team": "honest", "seat": 1,
        "teams": {"0": "honest", "1": "crooked", "2": "honest", "3": "crooked"},
        "reveal": {"cards": [["agent", "honest", "honest"], ["kingpin", "crooked"], ["honest"], ["crooked"]],
                   "hands": [[], [], [], []], "burned": []}})
    game(4, "good_cop_bad_cop_health", [d, c, b, a], {
        "winners": [0, 1, 3], "reason": "good_wins", "teams": {"good": [0, 1, 3], "bad": [2]},
        "reveal": {"identities": ["good", "good", "bad", "good"], "hands": [[], [], [], []]}})
    # Neither counts: a running game (its state is secret) and one the host ended early.
    game(5, "inside_job", [a, b, c, d, None], None, status=Game.RUNNING)
    game(6, "inside_job", [a, b, c, d, None], {"winners": [], "reason": "ended_by_host"}, status=Game.ENDED)
    return group, (a, b, c, d)


def test_stats_from_recorded_games_equal_the_hand_computed_figures(recorded):
    group, (a, b, c, d) = recorded
    records = group_records(group)
    assert [r.engine for r in records] == ["inside_job", "coup", "good_cop_bad_cop", "good_cop_bad_cop_health"]
    ann = player_stats(records, a.pk)
    assert (ann.total.played, ann.total.wins, ann.total.percent) == (4, 3, 75)
    assert {k: (t.played, t.wins) for k, t in ann.by_game.items()} == {
        "inside_job": (1, 0), "coup": (1, 1), "good_cop_bad_cop": (1, 1), "good_cop_bad_cop_health": (1, 1)}
    assert {k: (t.played, t.wins) for k, t in ann.by_role.items()} == {
        ("inside_job", "agent"): (1, 0), ("good_cop_bad_cop", "agent"): (1, 1),
        ("good_cop_bad_cop_health", "good"): (1, 1)}
    assert {k: (t.played, t.wins) for k, t in ann.by_team.items()} == {
        ("inside_job", "agents"): (1, 0), ("good_cop_bad_cop", "honest"): (1, 1),
        ("good_cop_bad_cop_health", "good"): (1, 1)}
    assert {k: (t.played, t.wins) for k, t in ann.by_seat.items()} == {1: (2, 1), 2: (1, 1), 4: (1, 1)}
    assert {k: (t.played, t.wins) for k, t in ann.by_count.items()} == {5: (1, 0), 3: (1, 1), 4: (2, 2)}
    assert ann.results == [False, True, True, True]
    assert ann.current_streak == (True, 3) and ann.longest_win_streak == 3 and ann.longest_losing_streak == 1
    ben = player_stats(records, b.pk)
    assert (ben.total.played, ben.total.wins) == (4, 0) and ben.current_streak == (False, 4)
    assert ben.by_role[("good_cop_bad_cop", "kingpin")].played == 1
    assert ben.by_role[("inside_job", "merlin")].played == 1


def test_head_to_head_counts_games_together_wins_each_and_same_team(recorded):
    group, (a, b, c, d) = recorded
    records = group_records(group)
    ab = head_to_head(records, a.pk, b.pk)
    assert (ab.games, ab.wins_a, ab.wins_b, ab.same_team) == (4, 3, 0, 1)
    cd = head_to_head(records, c.pk, d.pk)
    assert (cd.games, cd.wins_a, cd.wins_b, cd.same_team) == (3, 3, 2, 2)
    assert head_to_head(records, a.pk, a.pk).games == 0


def test_only_finished_games_count_never_a_running_or_ended_one(recorded):
    group, (a, *_) = recorded
    assert len(group_records(group)) == 4
    assert len(player_records(a)) == 4
    assert Game.objects.filter(group=group).count() == 6


def test_seat_role_reads_each_games_reveal():
    assert seat_role("inside_job", {"reveal": {"roles": ["merlin", "traitor"]}}, 0) == "merlin"
    gcbc = {"teams": {"0": "crooked", "1": "honest", "2": "crooked"},
            "reveal": {"cards": [["kingpin", "crooked"], ["honest", "agent"], ["crooked"]]}}
    assert [seat_role("good_cop_bad_cop", gcbc, s) for s in range(3)] == ["kingpin", "agent", "crooked"]
    assert seat_role("good_cop_bad_cop_health", {"reveal": {"identities": ["bad", "wanted"]}}, 1) == "wanted"
    assert seat_role("coup", {"reveal": {"hands": [["duke"]]}}, 0) is None
    assert seat_role("inside_job", {}, 3) is None


def test_ratings_equal_openskill_by_hand_and_move_the_right_way(recorded):
    group, (a, b, c, d) = recorded
    records = group_records(group)
    counted = {a.pk, b.pk, c.pk, d.pk}
    tables = rate_games(records, counted)
    model = PlackettLuce()
    # Inside Job by hand: the traitors (Cat, Dan) beat the agents (Ann, Ben and a bot at a fresh rating).
    (ann, ben, bot), (cat, dan) = model.rate(
        [[model.rating(), model.rating(), model.rating()], [model.rating(), model.rating()]], ranks=[2, 1])
    ij = tables["inside_job"]
    assert set(ij) == counted  # the bot is never rated
    assert ij[a.pk].mu == pytest.approx(ann.mu) and ij[c.pk].mu == pytest.approx(cat.mu)
    assert ij[c.pk].mu > 25 > ij[a.pk].mu and ij[c.pk].ordinal > ij[a.pk].ordinal
    # Coup: every player for themself; the winner goes up, the others down alike.
    coup = tables["coup"]
    assert coup[a.pk].mu > 25 > coup[b.pk].mu
    assert coup[b.pk].mu == pytest.approx(coup[c.pk].mu)
    assert d.pk not in coup
    # After a win the same player's rating rises, after a loss it falls.
    assert [p.games for p in coup.values()] == [1, 1, 1]
    assert ij[a.pk].history[-1][2] == pytest.approx(ij[a.pk].ordinal)


def test_ratings_of_a_player_follow_wins_and_losses_in_order(recorded):
    group, (a, b, c, d) = recorded
    base = group_records(group)[1]  # the Coup game: Ann (seat 1) won
    lost = base.__class__(**{**base.__dict__, "winners": frozenset({0})})
    ann = rate_games([base], {a.pk, b.pk, c.pk})["coup"][a.pk]
    after_win = ann.mu
    ann = rate_games([base, lost], {a.pk, b.pk, c.pk})["coup"][a.pk]
    assert after_win > 25 and ann.mu < after_win
    assert ann.history[1][2] < ann.history[0][2]  # the shown rating (mu - 3 sigma) fell after the loss


def test_a_player_is_ranked_from_the_minimum_number_of_games(recorded):
    group, (a, b, c, d) = recorded
    coup = group_records(group)[1]
    few = rate_games([coup] * (MIN_GAMES - 1), {a.pk, b.pk, c.pk})["coup"]
    ranked, unranked = leaderboard(few)
    assert ranked == [] and {p.player_id for p in unranked} == {a.pk, b.pk, c.pk}
    enough = rate_games([coup] * MIN_GAMES, {a.pk, b.pk, c.pk})["coup"]
    ranked, unranked = leaderboard(enough)
    assert [p.player_id for p in ranked][0] == a.pk and unranked == []
    assert ranked[0].ordinal > ranked[1].ordinal


def test_a_game_without_winners_or_without_losers_is_not_rated(recorded):
    group, (a, b, c, d) = recorded
    coup = group_records(group)[1]
    nobody = coup.__class__(**{**coup.__dict__, "winners": frozenset()})
    everyone = coup.__class__(**{**coup.__dict__, "winners": frozenset({0, 1, 2})})
    assert rate_games([nobody, everyone], {a.pk, b.pk, c.pk}) == {}


def test_charts_scale_values_into_the_box():
    chart = line_chart([0.0, 5.0, 2.5])
    assert chart is not None
    xs = [float(p.split(",")[0]) for p in chart["points"].split()]
    ys = [float(p.split(",")[1]) for p in chart["points"].split()]
    assert xs[0] == chart["left"] and xs[-1] == chart["right"]
    assert ys[1] == chart["top"] and ys[0] == chart["bottom"]  # the highest at the top, the lowest at the bottom
    assert line_chart([1.0]) is None
    bars = bar_chart([{"percent": 100}, {"percent": 50}, {"percent": 0}])
    assert bars is not None and [r["bar_w"] for r in bars["rows"]] == [bars["full"], bars["full"] / 2, 0]
    assert bar_chart([]) is None


def test_stats_context_gives_rows_for_templates(recorded):
    group, (a, *_) = recorded
    context = stats_context(player_stats(group_records(group), a.pk))
    assert context["streak"] == 3 and context["streak_won"] is True
    assert {"seat": 1, "played": 2, "wins": 1, "percent": 50} in context["by_seat"]


def test_group_pages_show_figures_only_to_members(recorded, client):
    group, (a, b, c, d) = recorded
    client.login(username="ann", password=PASSWORD)
    html = client.get(f"/groups/{group.pk}/").content.decode()
    assert 'data-test="leaderboard-coup"' in html and "Not ranked yet" in html
    page = client.get(f"/groups/{group.pk}/players/{a.pk}/").content.decode()
    assert "3 won of 4 games (75%)" in page
    assert 'data-test="role-chart"' in page and 'data-test="rating-chart"' in page
    assert "<script>" not in page and " onclick=" not in page  # charts are drawn on the server: no inline script
    assert "Merlin" not in page  # Ann never was Merlin
    assert 'data-test="head-to-head"' in page
    outsider = _account("Olga")
    client.logout()
    client.login(username="olga", password=PASSWORD)
    assert client.get(f"/groups/{group.pk}/").status_code == 404
    assert client.get(f"/groups/{group.pk}/players/{a.pk}/").status_code == 404
    assert outsider.pk


def test_my_stats_and_about_pages(recorded, client):
    group, (a, *_) = recorded
    assert client.get("/stats/").status_code == 302  # no player: log in first
    client.login(username="ann", password=PASSWORD)
    html = client.get("/stats/").content.decode()
    assert "3 won of 4 games (75%)" in html and 'data-test="role-chart"' in html
    about = client.get("/ratings/about/").content.decode()
    assert "Weng-Lin" in about and str(MIN_GAMES) in about
    assert "/stats/" in client.get("/history/").content.decode()


def _signed_up(person, username):
    person.post("/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    person.player.refresh_from_db()
    return person


def test_games_played_through_the_web_for_a_group_count_and_rebuild_from_the_log(table_with):
    table, people = table_with(5)
    for i, person in enumerate(people):
        _signed_up(person, f"user{i}")
    group = Group.objects.create(name="Web crew", created_by=people[0].player)
    for person in people:
        Membership.objects.create(group=group, player=person.player)
    response = people[0].post(f"/t/{table.code}/settings/", {"engine": "inside_job", "timer": "0",
                                                             "group": str(group.pk)})
    assert response.status_code == 302
    for _ in range(2):
        game = start(table, people[0])
        assert game.group_id == group.pk
        play_to_end(game, people, table)
    # A third game is running: it counts nowhere until it ends.
    start(table, people[0])
    records = group_records(group)
    assert len(records) == 2
    before = {p.player.pk: player_stats(records, p.player.pk).results for p in people}
    ratings_before = {pid: r.mu for pid, r in rate_games(records, set(before))["inside_job"].items()}
    assert sum(len(r) for r in before.values()) == 10
    # Tamper with the cached outcome: the figures follow it, until a rebuild from the log.
    first = Game.objects.filter(group=group, status=Game.FINISHED).order_by("pk").first()
    true_outcome = first.outcome
    losers = [s for s in range(5) if s not in true_outcome["winners"]]
    Game.objects.filter(pk=first.pk).update(outcome={**true_outcome, "winners": losers})
    assert {p.player.pk: player_stats(group_records(group), p.player.pk).results for p in people} != before
    with pytest.raises(CommandError):
        call_command("stats_rebuild", "--check", stdout=StringIO())
    out = StringIO()
    call_command("stats_rebuild", "--group", str(group.pk), stdout=out)
    assert "1 outcomes differed" in out.getvalue()
    records = group_records(group)
    assert {p.player.pk: player_stats(records, p.player.pk).results for p in people} == before
    after = {pid: r.mu for pid, r in rate_games(records, set(before))["inside_job"].items()}
    assert after == ratings_before
    out = StringIO()
    call_command("stats_rebuild", "--check", stdout=out)
    assert "0 outcomes differed" in out.getvalue()
    html = people[1].get(f"/groups/{group.pk}/").content.decode()
    assert 'data-test="leaderboard-inside_job"' in html
    with pytest.raises(CommandError):
        call_command("stats_rebuild", "--group", "99999", stdout=StringIO())


def test_fair_deals_pass_the_groups_public_history_to_the_deal_and_replay_alike(table_with):
    from engines import fair
    from engines.registry import get_engine
    from gameplay.fairness import minority_excess
    from gameplay.selectors import game_replay

    table, people = table_with(5)
    for i, person in enumerate(people):
        _signed_up(person, f"fair{i}")
    group = Group.objects.create(name="Fair crew", created_by=people[0].player)
    for person in people:
        Membership.objects.create(group=group, player=person.player)
    people[0].post(f"/t/{table.code}/settings/", {"engine": "inside_job", "timer": "0", "group": str(group.pk)})
    first = start(table, people[0])
    assert fair.KEY not in first.options  # off by default: a plain deal
    play_to_end(first, people, table)
    # Only the maker turns it on; a bad value changes nothing.
    assert people[1].post(f"/groups/{group.pk}/fair/", {"on": "1"}).status_code == 302
    people[0].post(f"/groups/{group.pk}/fair/", {"on": "maybe"})
    group.refresh_from_db()
    assert not group.fair_deals
    people[0].post(f"/groups/{group.pk}/fair/", {"on": "1"})
    group.refresh_from_db()
    assert group.fair_deals
    second = start(table, people[0])
    first.refresh_from_db()
    traitors = set(first.outcome["teams"]["traitors"])
    seats = list(first.seats.order_by("index").values_list("player_id", flat=True))
    expected = [round((i in traitors) - len(traitors) / 5, 3) for i in range(5)]
    assert second.options[fair.KEY] == {"excess": expected}
    assert minority_excess(group_records(group), seats) == expected
    engine = get_engine("inside_job")
    assert engine.encode(game_replay(second)) == second.snapshot  # the recorded options deal alike on replay
    html = people[0].get(f"/groups/{group.pk}/").content.decode()
    assert 'data-test="fair-toggle"' in html and "Turn fair deals off" in html
    assert 'data-test="fair-toggle"' not in people[1].get(f"/groups/{group.pk}/").content.decode()


def test_a_player_downloads_their_finished_games_as_json_and_csv(recorded, client):
    import csv
    import json

    group, (a, *_) = recorded
    assert client.get("/stats/my-games.json").status_code == 302  # no player: log in first
    client.login(username="ann", password=PASSWORD)
    response = client.get("/stats/my-games.json")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    rows = json.loads(response.content)
    assert [(r["engine"], r["seat"], r["won"], r["role"]) for r in rows] == [
        ("inside_job", 1, False, "agent"), ("coup", 2, True, None), ("good_cop_bad_cop", 1, True, "agent"),
        ("good_cop_bad_cop_health", 4, True, "good")]
    table = list(csv.DictReader(client.get("/stats/my-games.csv").content.decode().splitlines()))
    assert [r["won"] for r in table] == ["False", "True", "True", "True"]
    assert table[1]["names"] == "Ben; Ann; Cat"
    assert client.get("/stats/my-games.xml").status_code == 404
    assert 'data-test="export"' in client.get("/stats/").content.decode()


def test_a_groups_game_nights_are_its_hosts_nights(recorded, client):
    """The group lists the nights the host started for it (community.nights), with their games only."""
    from gameplay.models import GameNight

    group, (a, b, c, d) = recorded
    client.login(username="ann", password=PASSWORD)
    assert 'data-test="nights"' not in client.get(f"/groups/{group.pk}/").content.decode()  # no night started
    table = Table.objects.get(code="ABCDE")
    first = Game.objects.filter(group=group).order_by("finished").first()
    # A night around the first two games (Inside Job, Coup): the later ones are not its games.
    night = GameNight.objects.create(table=table, created_by=a, group=group,
                                     started=first.finished - timedelta(minutes=30),
                                     ended=first.finished + timedelta(minutes=90))
    html = client.get(f"/groups/{group.pk}/").content.decode()
    assert f'href="/groups/{group.pk}/nights/{night.pk}/"' in html and "2 games" in html
    page = client.get(f"/groups/{group.pk}/nights/{night.pk}/").content.decode()
    assert page.count('data-test="night-game"') == 2 and "Traitors" in page
    assert 'data-test="night-players"' in page
    assert client.get(f"/groups/{group.pk}/nights/{night.pk + 1}/").status_code == 404
    client.logout()
    _account("Olga")
    client.login(username="olga", password=PASSWORD)
    assert client.get(f"/groups/{group.pk}/nights/{night.pk}/").status_code == 404


@pytest.mark.parametrize("language", ["en", "fa", "ja"])
def test_group_and_stats_pages_render_in_every_language(recorded, client, settings, language):
    group, (a, *_) = recorded
    client.login(username="ann", password=PASSWORD)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    for path in (f"/groups/{group.pk}/", f"/groups/{group.pk}/players/{a.pk}/", "/stats/", "/groups/",
                 "/ratings/about/", f"/j/{group.invite_token}/"):
        response = client.get(path)
        assert response.status_code in (200, 302), path
        if response.status_code == 200:
            assert f'lang="{language}"' in response.content.decode()
