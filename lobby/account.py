"""Your account: the page with your downloads, and the lobby's part of deleting an account.

Deleting an account removes the auth user and what the lobby keeps about the person: the
nickname (cleared, and ``Player.deleted`` set), group memberships, seats at idle tables and every
browser session signed in to it. The ``Player`` row stays, so the games it played stay in the
other players' history, stats and replays; wherever a name is shown, a deleted player's reads as
the translated neutral name (:func:`shown_player_name`, :func:`shown_seat_name`), rendered from
that flag, never a stored sentence. The games' own rows are gameplay's: its deletion view
(``community.views.account_delete``) erases the stored seat names in the same transaction
as :func:`account_erase` (the lobby never imports gameplay).

While the person plays a running game (a seat at a table whose game runs) or hosts one, deletion
is refused with a message saying why: finish the game or leave it (the host can hand the seat to
a bot) first. So a running game never loses a player mid-turn.
"""

from __future__ import annotations

from importlib import import_module

from django import forms
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from lobby import services
from lobby.models import Group, Membership, Player, Table
from lobby.notify import table_notify


def deleted_player_name() -> str:
    """The neutral name a deleted account's player is shown by, in the page's language."""
    return gettext("Deleted player")


def shown_player_name(player: Player) -> str:
    """A player's name as pages show it: the neutral name for a deleted account."""
    return deleted_player_name() if player.deleted else player.nickname


def shown_seat_name(name: str) -> str:
    """A game seat's stored name as pages show it: a deleted account's seats have theirs erased ("")."""
    return name or deleted_player_name()


def _account_player(request: HttpRequest) -> Player | None:
    """The signed-in account's player (None for a guest or nobody)."""
    user = request.user
    if not user.is_authenticated:
        return None
    return Player.objects.filter(user=user, deleted=False).first()


@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in person's account: name, downloads of their games, and the way to delete it."""
    player = _account_player(request)
    if player is None:
        return redirect(f"{reverse('login')}?next={reverse('account')}")
    return render(request, "lobby/account.html", {
        "account_user": request.user, "player": player, "refusal": deletion_refusal(player),
    })


class DeleteAccountForm(forms.Form):
    """The account's password again: deleting cannot be undone."""

    password = forms.CharField(label=_("Your password"), strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))

    def __init__(self, user: AbstractBaseUser, *args, **kwargs) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password. Nothing was deleted."), code="password")
        return password


def deletion_refusal(player: Player) -> str | None:
    """Why this player's account cannot be deleted now (a message), or None.

    Refused while they sit at a table whose game is running or host one: the game would lose a
    player or its host mid-turn. Finishing the game, or leaving it (the host hands the seat to a
    bot), makes deletion possible.
    """
    tables = Table.objects.filter(in_game=True).filter(Q(seats__player=player) | Q(host=player))
    table = tables.order_by("code").first()
    if table is None:
        return None
    if table.host_id == player.pk:
        return gettext("You host table %(code)s, whose game is running. Finish or end the game, or pass "
                       "the host role on, then delete your account.") % {"code": table.code}
    return gettext("You are playing a game at table %(code)s. Finish it, or ask the host to hand your "
                   "seat to a bot, then delete your account.") % {"code": table.code}


def _tables_of(player: Player) -> list[Table]:
    """The tables the player sits at or hosts, locked (in id order: two deletions never deadlock)."""
    ids = set(Table.objects.filter(Q(seats__player=player) | Q(host=player)).values_list("pk", flat=True))
    return list(Table.objects.select_for_update().filter(pk__in=ids).order_by("pk"))


def _leave_tables(player: Player) -> None:
    """The player leaves every idle table; a table they host passes to its first seated person, if any.

    A table nobody else sits at keeps the deleted player as its host: nobody can open its host
    controls, and its games stay in everyone's history (a table's games go if the table goes).
    """
    for table in _tables_of(player):
        if table.host_id == player.pk:
            heir = table.seats.filter(player__isnull=False, player__deleted=False).exclude(player=player)
            seat = heir.order_by("position").first()
            if seat is not None:
                services.host_pass(table=table, seat_id=seat.pk)
        if table.seats.filter(player=player).delete()[0]:
            services.seats_renumber(table)
        table_notify(table_id=table.pk)


def _leave_groups(player: Player) -> None:
    """The player's memberships go; a group they made passes to its longest-standing member (an account first).

    A group with no member left goes too (nobody could open it); its games stay, in no group.
    """
    for group in Group.objects.select_for_update().filter(created_by=player).order_by("pk"):
        others = Membership.objects.filter(group=group, player__deleted=False).exclude(player=player)
        # An account first (only an account may make a group), else a guest member.
        heir = (others.filter(player__user__isnull=False).order_by("joined", "pk").first()
                or others.order_by("joined", "pk").first())
        if heir is None:
            group.delete()
        else:
            group.created_by_id = heir.player_id
            group.save(update_fields=["created_by"])
    Membership.objects.filter(player=player).delete()


def _end_sessions(*, user_id: int, player_id: int) -> None:
    """Every stored session signed in to the account, or bound to its player, ends (their other phones).

    Otherwise a phone still holding the player's id would go on as that (now nameless) player.
    Sessions kept in a signed cookie cannot be reached; their sign-in dies with the user anyway.
    """
    engine = import_module(settings.SESSION_ENGINE)
    store = engine.SessionStore
    if not hasattr(store, "get_model_class"):
        return
    rows = store.get_model_class().objects.filter(expire_date__gt=timezone.now())
    for key, data in rows.values_list("session_key", "session_data").iterator():
        decoded = store().decode(data)
        if decoded.get("_auth_user_id") == str(user_id) or decoded.get(services.SESSION_KEY) == player_id:
            store(session_key=key).delete()


def account_erase(*, player: Player, user: AbstractBaseUser) -> None:
    """The lobby's part of deleting an account (see the module's doc).

    Raises LobbyError (nothing changed) when ``deletion_refusal`` says no, checked while holding
    the player's tables' locks, so no game starts there meanwhile. Call it inside the caller's
    transaction with gameplay's part. Afterwards the user does not exist (nobody can log in with
    it) and the player is nameless, in no group and at no table.
    """
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        _tables_of(player)
        refusal = deletion_refusal(player)
        if refusal is not None:
            raise services.LobbyError(refusal)
        _leave_tables(player)
        _leave_groups(player)
        user_id = user.pk
        player.nickname, player.deleted, player.user = "", True, None
        player.save(update_fields=["nickname", "deleted", "user"])
        _end_sessions(user_id=user_id, player_id=player.pk)
        user.delete()
