"""Players (accounts or guests), groups of friends, tables, seats and one-time seat links."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

NICKNAME_MAX = 24
# Table codes avoid characters that read alike: no 0/O, 1/I/L.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
BOT_POLICIES = [("random", "random"), ("heuristic", "heuristic")]
# How long the host's link that hands the host role to a tablet may be opened.
HOST_LINK_MINUTES = 10
GROUP_NAME_MAX = NICKNAME_MAX  # a group name is checked like a nickname (lobby.groups.group_create)


def new_invite_token() -> str:
    """A group's invite link's secret (unguessable: whoever has it may join)."""
    return secrets.token_urlsafe(16)


class Player(models.Model):
    """Someone at a table: a guest bound to a browser session, or an account."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    nickname = models.CharField(max_length=NICKNAME_MAX)
    # The account was deleted (``lobby.account``): no user, no nickname; pages show a neutral name,
    # and the games it played stay in the others' history.
    deleted = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.nickname


class Group(models.Model):
    """Friends who play together: tables played for the group count in its stats and ratings."""

    name = models.CharField(max_length=GROUP_NAME_MAX)
    # An account, never a guest (``lobby.groups.group_create``).
    created_by = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="created_groups")
    # The invite link's token; a new one (``group_invite_renew``) makes the old link stop working.
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    # Deal the minority role fairly over the group's history (``engines.fair``), where the game has one.
    fair_deals = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A player in a group. A guest may join; their games count once they have an account."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined"]
        constraints = [models.UniqueConstraint(fields=["group", "player"], name="one_membership_per_player")]


class Table(models.Model):
    """A group sitting together: a code, a game with its options, seats, a timer."""

    code = models.CharField(max_length=CODE_LENGTH, unique=True)
    host = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hosted_tables")
    engine = models.CharField(max_length=40)
    options = models.JSONField(default=dict)
    timer_seconds = models.PositiveSmallIntegerField(default=0)
    # Bumped on every change a page must show (a join, a move, a pause): the number pushed.
    revision = models.PositiveIntegerField(default=0)
    # A game is running here: seats and settings wait for the next one. Kept by gameplay's
    # services inside the transactions that start and finish games, so the lobby reads it
    # under the table's row lock without knowing what a game is.
    in_game = models.BooleanField(default=False)
    # The host's one-time link that hands the host role to another browser (a moderator's tablet):
    # one live link at a time, used once, for HOST_LINK_MINUTES (``lobby.services.host_link_create``).
    host_link = models.CharField(max_length=64, blank=True, default="")
    host_link_made = models.DateTimeField(null=True, blank=True)
    # When the host role last changed hands (None: the creator still hosts); the board says who hosts now.
    host_since = models.DateTimeField(null=True, blank=True)
    # The group this table plays for (one of the host's groups): each game records it when it starts.
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="tables")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.code


class Seat(models.Model):
    """A place at a table before and between games; ``position`` is clockwise order."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="seats")
    bot = models.CharField(max_length=20, blank=True, default="", choices=BOT_POLICIES)
    bot_name = models.CharField(max_length=NICKNAME_MAX, blank=True, default="")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="one_seat_per_player"),
        ]

    @property
    def name(self) -> str:
        return self.player.nickname if self.player else self.bot_name
