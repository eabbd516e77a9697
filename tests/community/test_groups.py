"""Groups: an account creates one, invites by link, members join; only members see it; tables play for it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from lobby.models import Group, Membership, Player, Table
from tests.conftest import Guest, start

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-Passw0rd!"


def account(person: Guest, username: str) -> Guest:
    """The guest signs up (keeping their player, seats and history)."""
    response = person.post("/signup/", {"username": username, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    person.player.refresh_from_db()
    assert person.player.user is not None
    return person


def make_group(person: Guest, name: str = "Thursday crew") -> Group:
    response = person.post("/groups/", {"name": name})
    assert response.status_code == 302, response.content[:300]
    group = Group.objects.get(name=name)
    assert response["Location"] == f"/groups/{group.pk}/"
    return group


def test_an_account_creates_a_group_and_is_its_first_member(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    assert list(group.memberships.values_list("player", flat=True)) == [amy.player.pk]
    html = amy.get(f"/groups/{group.pk}/").content.decode()
    assert "Thursday crew" in html and f"/j/{group.invite_token}/" in html
    assert "Thursday crew" in amy.get("/groups/").content.decode()


def test_a_guest_cannot_create_a_group_and_nothing_is_made(db):
    guest = Guest("Gus")
    response = guest.post("/groups/", {"name": "Mine"})
    assert response.status_code == 400
    assert "Sign up or log in to create a group." in response.content.decode()
    assert not Group.objects.exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "bad\x00name", "\u202eevil"])
def test_a_bad_group_name_is_refused_and_nothing_is_made(db, name):
    amy = account(Guest("Amy"), "amy")
    response = amy.post("/groups/", {"name": name})
    assert response.status_code == 400
    assert not Group.objects.exists()


def test_the_invite_link_lets_an_account_join(db):
    amy = account(Guest("Amy"), "amy")
    bob = account(Guest("Bob"), "bob")
    group = make_group(amy)
    page = bob.get(f"/j/{group.invite_token}/")
    assert page.status_code == 200 and "Thursday crew" in page.content.decode()
    assert not Membership.objects.filter(group=group, player=bob.player).exists()  # opening it asks first
    response = bob.post(f"/j/{group.invite_token}/")
    assert response.status_code == 302 and response["Location"] == f"/groups/{group.pk}/"
    assert Membership.objects.filter(group=group, player=bob.player).count() == 1
    bob.post(f"/j/{group.invite_token}/")  # a second tap changes nothing
    assert Membership.objects.filter(group=group, player=bob.player).count() == 1
    assert bob.get(f"/groups/{group.pk}/").status_code == 200


def test_only_members_see_a_groups_pages(db):
    amy = account(Guest("Amy"), "amy")
    eve = account(Guest("Eve"), "eve")
    group = make_group(amy)
    for path in (f"/groups/{group.pk}/", f"/groups/{group.pk}/players/{amy.player.pk}/"):
        assert amy.get(path).status_code == 200
        assert eve.get(path).status_code == 404
        assert Guest("Stranger").get(path).status_code == 404
    assert eve.get(f"/groups/{group.pk + 100}/").status_code == 404
    assert eve.post(f"/groups/{group.pk}/invite/").status_code == 404
    assert eve.post(f"/groups/{group.pk}/leave/").status_code == 404
    assert "Thursday crew" not in eve.get("/groups/").content.decode()
    # A member's page is for counted members only: an outsider's id is no page either.
    assert amy.get(f"/groups/{group.pk}/players/{eve.player.pk}/").status_code == 404


@pytest.mark.parametrize("token", ["nope", "x" * 200, "../../etc", "%00"])
def test_an_unknown_invite_token_is_a_404_that_changes_nothing(db, token):
    bob = account(Guest("Bob"), "bob")
    assert bob.get(f"/j/{token}/").status_code == 404
    assert bob.post(f"/j/{token}/").status_code == 404
    assert not Membership.objects.exists()


def test_a_new_invite_link_retires_the_old_one_and_only_the_maker_makes_it(db):
    amy = account(Guest("Amy"), "amy")
    bob = account(Guest("Bob"), "bob")
    group = make_group(amy)
    old = group.invite_token
    bob.post(f"/j/{old}/")
    bob.post(f"/groups/{group.pk}/invite/")
    group.refresh_from_db()
    assert group.invite_token == old  # a member who is not the maker cannot change it
    amy.post(f"/groups/{group.pk}/invite/")
    group.refresh_from_db()
    assert group.invite_token != old
    carl = account(Guest("Carl"), "carl")
    assert carl.get(f"/j/{old}/").status_code == 404
    assert carl.post(f"/j/{group.invite_token}/").status_code == 302


def test_a_member_leaves_but_the_maker_stays(db):
    amy = account(Guest("Amy"), "amy")
    bob = account(Guest("Bob"), "bob")
    group = make_group(amy)
    bob.post(f"/j/{group.invite_token}/")
    assert bob.post(f"/groups/{group.pk}/leave/").status_code == 302
    assert bob.get(f"/groups/{group.pk}/").status_code == 404
    amy.post(f"/groups/{group.pk}/leave/")
    assert amy.get(f"/groups/{group.pk}/").status_code == 200


def test_a_browser_without_a_player_is_offered_log_in_sign_up_or_a_guest_name(db, client):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    html = client.get(f"/j/{group.invite_token}/").content.decode()
    assert "/login/?next=" in html and "/signup/" in html and 'name="nickname"' in html
    response = client.post(f"/j/{group.invite_token}/")
    assert response.status_code == 302 and not Membership.objects.exclude(player=amy.player).exists()


def test_a_guest_member_counts_once_they_sign_up(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    gus = Guest("Gus")
    assert "join as a guest" in gus.get(f"/j/{group.invite_token}/").content.decode().lower()
    gus.post(f"/j/{group.invite_token}/")
    assert Membership.objects.filter(group=group, player=gus.player).exists()
    html = amy.get(f"/groups/{group.pk}/").content.decode()
    assert "guest: counts after signing up" in html
    assert amy.get(f"/groups/{group.pk}/players/{gus.player.pk}/").status_code == 404
    account(gus, "gus")
    assert amy.get(f"/groups/{group.pk}/players/{gus.player.pk}/").status_code == 200


def test_a_guest_member_who_logs_in_to_an_account_brings_the_membership(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    user = User.objects.create_user("eve", password=PASSWORD)
    eve_account = Player.objects.create(nickname="Eve", user=user)
    gus = Guest("Gus")
    gus.post(f"/j/{group.invite_token}/")
    gus.post("/login/", {"username": "eve", "password": PASSWORD})
    assert Membership.objects.filter(group=group, player=eve_account).exists()
    assert not Membership.objects.filter(group=group, player=gus.player).exists()
    assert gus.get(f"/groups/{group.pk}/").status_code == 200


def test_a_guest_who_logs_in_to_an_account_already_in_the_group_keeps_one_membership(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    gus = Guest("Gus")
    gus.post(f"/j/{group.invite_token}/")
    amy.post("/logout/")
    gus.post("/login/", {"username": "amy", "password": PASSWORD})
    assert Membership.objects.filter(group=group).count() == 1
    assert Membership.objects.get(group=group).player == amy.player


def _seated_table(host: Guest, others: list[Guest], data: dict) -> Table:
    response = host.post("/new/", {"engine": "inside_job", "timer": "0", **data})
    assert response.status_code == 302, response.content[:400]
    table = Table.objects.get(host=host.player)
    for person in others:
        assert person.post(f"/t/{table.code}/join/").status_code == 302
    return table


def test_a_table_created_for_a_group_records_the_group_on_its_games(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    assert amy.get("/new/").context["groups"] == [(str(group.pk), "Thursday crew")]  # what the form offers
    others = [Guest(f"P{i}") for i in range(4)]
    table = _seated_table(amy, others, {"group": str(group.pk)})
    assert table.group == group
    game = start(table, amy)
    assert game.group == group
    # Changing the table's group later does not rewrite the game's.
    table.refresh_from_db()
    game.status = "ended"
    game.save()
    Table.objects.filter(pk=table.pk).update(in_game=False)
    amy.post(f"/t/{table.code}/settings/", {"engine": "inside_job", "timer": "0", "group": ""})
    table.refresh_from_db()
    game.refresh_from_db()
    assert table.group is None and game.group == group


def test_a_table_cannot_play_for_someone_elses_group(db):
    amy = account(Guest("Amy"), "amy")
    eve = account(Guest("Eve"), "eve")
    group = make_group(amy)
    response = eve.post("/new/", {"engine": "inside_job", "timer": "0", "group": str(group.pk)})
    assert response.status_code == 400
    assert "Choose one of your groups, or none." in response.content.decode()
    assert not Table.objects.filter(host=eve.player).exists()
    for bad in ("x", "-1", str(group.pk + 50), " "):
        assert eve.post("/new/", {"engine": "inside_job", "timer": "0", "group": bad}).status_code in (302, 400)
    assert not Table.objects.filter(host=eve.player, group__isnull=False).exists()


def test_a_guest_host_has_no_groups_to_play_for(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    gus = Guest("Gus")
    gus.post(f"/j/{group.invite_token}/")  # a guest member: the games count once they sign up
    response = gus.post("/new/", {"engine": "inside_job", "timer": "0", "group": str(group.pk)})
    assert response.status_code == 400 and not Table.objects.filter(host=gus.player).exists()


def test_the_hosts_settings_set_the_group_between_games_and_a_bad_one_changes_nothing(db):
    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    other = Group.objects.create(name="Not mine", created_by=Player.objects.create(nickname="Zed"))
    table = _seated_table(amy, [Guest(f"P{i}") for i in range(4)], {})
    assert table.group is None
    settings = {"engine": "coup", "timer": "0"}
    amy.post(f"/t/{table.code}/settings/", {**settings, "group": str(other.pk)})
    table.refresh_from_db()
    assert table.group is None and table.engine == "inside_job"  # refused as a whole: the game did not change either
    amy.post(f"/t/{table.code}/settings/", {**settings, "group": str(group.pk)})
    table.refresh_from_db()
    assert table.group == group and table.engine == "coup"
    amy.post(f"/t/{table.code}/settings/", {"engine": "coup", "timer": "0"})  # a form without the field
    table.refresh_from_db()
    assert table.group == group
    start(table, amy)
    amy.post(f"/t/{table.code}/settings/", {**settings, "group": ""})  # during a game: refused
    table.refresh_from_db()
    assert table.group == group


def test_the_hosts_settings_context_offers_only_the_hosts_groups(db):
    from lobby.context import host_settings

    amy = account(Guest("Amy"), "amy")
    group = make_group(amy)
    Group.objects.create(name="Not mine", created_by=Player.objects.create(nickname="Zed"))
    table = _seated_table(amy, [], {"group": str(group.pk)})
    context = host_settings(table)
    assert context["settings_groups"] == [(str(group.pk), "Thursday crew")]
    assert context["settings_group"] == str(group.pk)
