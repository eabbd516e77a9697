"""Groups of friends: creating one, inviting by link, joining, and the group a table plays for.

Writes here raise ``LobbyError`` with a message for the person (nothing changed); reads return
querysets. A group's figures (stats, ratings) are gameplay's: it reads the games that recorded
the group when they started (``Game.group``). The lobby never imports gameplay.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from lobby.models import GROUP_NAME_MAX, Group, Membership, Player, Table, new_invite_token
from lobby.notify import table_notify
from lobby.services import LobbyError, clean_nickname, clean_token

# What a form sends for "this table plays for no group".
NO_GROUP = ""


def group_create(*, player: Player, name: str) -> Group:
    """A new group made by an account (not a guest), with its maker as the first member."""
    if not player or player.user_id is None:
        raise LobbyError(_("Sign up or log in to create a group."))
    folded = " ".join((name or "").split())
    if not folded:
        raise LobbyError(_("Give the group a name."))
    if len(folded) > GROUP_NAME_MAX:
        raise LobbyError(_("A group's name has at most %(n)s characters.") % {"n": GROUP_NAME_MAX})
    clean = clean_nickname(folded)  # the same characters refused as in a nickname
    with transaction.atomic():
        group = Group.objects.create(name=clean, created_by=player)
        Membership.objects.create(group=group, player=player)
    return group


def group_by_token(token: str) -> Group | None:
    """The group whose invite link carries ``token`` (None for an unknown or malformed one)."""
    token = clean_token(token, 32)
    return Group.objects.filter(invite_token=token).first() if token else None


def group_join(*, group: Group, player: Player) -> Membership:
    """``player`` joins ``group`` (idempotent). A guest may join: their games count once they sign up."""
    if not player:
        raise LobbyError(_("Choose a name, sign up or log in first."))
    try:
        with transaction.atomic():
            membership, _created = Membership.objects.get_or_create(group=group, player=player)
    except IntegrityError:  # two taps at once: the other one made it
        membership = Membership.objects.get(group=group, player=player)
    return membership


def group_leave(*, group: Group, player: Player) -> None:
    """``player`` leaves ``group``; its games stay in the group's history (the maker cannot leave)."""
    if group.created_by_id == player.pk:
        raise LobbyError(_("The group's maker stays in the group."))
    Membership.objects.filter(group=group, player=player).delete()


def group_invite_renew(*, group: Group, player: Player) -> str:
    """A new invite link for ``group`` (the maker only): the old link stops working."""
    if group.created_by_id != player.pk:
        raise LobbyError(_("Only the group's maker can change its invite link."))
    group.invite_token = new_invite_token()
    group.save(update_fields=["invite_token"])
    return group.invite_token


def group_fair_deals_set(*, group: Group, player: Player, on: bool) -> None:
    """The maker turns fair deals on or off for the group's next games."""
    if group.created_by_id != player.pk:
        raise LobbyError(_("Only the group's maker can change this setting."))
    group.fair_deals = on
    group.save(update_fields=["fair_deals"])


def player_groups(player: Player | None) -> QuerySet[Group]:
    """The groups ``player`` belongs to, by name (none for no player)."""
    if not player:
        return Group.objects.none()
    return Group.objects.filter(memberships__player=player).order_by("name", "pk")


def group_of_member(*, group_id: int, player: Player | None) -> Group | None:
    """The group if ``player`` is a member, else None (pages answer 404: a group's existence is private)."""
    if not player:
        return None
    return Group.objects.filter(pk=group_id, memberships__player=player).first()


def group_choices(player: Player | None) -> list[tuple[str, str]]:
    """The groups a host may play a table for: their own groups, as an account (a guest has none to offer)."""
    if not player or player.user_id is None:
        return []
    return [(str(g.pk), g.name) for g in player_groups(player)]


def group_choices_of(host_id: int) -> list[tuple[str, str]]:
    """``group_choices`` of the player with id ``host_id``, in one query (the host's settings form)."""
    rows = Group.objects.filter(memberships__player_id=host_id, memberships__player__user__isnull=False)
    return [(str(pk), name) for pk, name in rows.order_by("name", "pk").values_list("pk", "name")]


class Unchanged:
    """A form that did not send the group field: leave the table's group as it is."""


UNCHANGED = Unchanged()


def group_from_post(*, host: Player, data) -> Group | None | Unchanged:
    """The group a posted table form chose (field ``group``): a Group, None (no group) or UNCHANGED.

    Raises LobbyError for a group the host is not in (or no account), so nothing changes.
    """
    if "group" not in data:
        return UNCHANGED
    raw = (data.get("group") or "").strip()
    if raw == NO_GROUP:
        return None
    if raw not in dict(group_choices(host)):
        raise LobbyError(_("Choose one of your groups, or none."))
    return Group.objects.get(pk=int(raw))


def table_group_set(*, table: Table, group: Group | None | Unchanged) -> None:
    """The table plays for ``group`` from its next game on (between games only; UNCHANGED does nothing)."""
    if isinstance(group, Unchanged):
        return
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.in_game:
            raise LobbyError(_("Settings change between games."))
        table.group = group
        table.save(update_fields=["group"])
        table_notify(table_id=table.pk)


def memberships_merge(sender, *, guest: Player, into: Player, **kwargs) -> None:
    """``lobby.signals.guest_merged``: the account takes over the guest's groups (inside the merge's transaction)."""
    already = set(Membership.objects.filter(player=into).values_list("group_id", flat=True))
    Membership.objects.filter(player=guest).exclude(group_id__in=already).update(player=into)
    Membership.objects.filter(player=guest).delete()  # groups the account was in already: one membership
