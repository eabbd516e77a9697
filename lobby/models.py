"""Players (accounts or guests), tables, seats and one-time seat links."""

from __future__ import annotations

from django.conf import settings
from django.db import models

NICKNAME_MAX = 24
# Table codes avoid characters that read alike: no 0/O, 1/I/L.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
BOT_POLICIES = [("random", "random"), ("heuristic", "heuristic")]
# How long the host's link that hands the host role to a tablet may be opened.
HOST_LINK_MINUTES = 10


class Player(models.Model):
    """Someone at a table: a guest bound to a browser session, or an account."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    nickname = models.CharField(max_length=NICKNAME_MAX)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.nickname


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
