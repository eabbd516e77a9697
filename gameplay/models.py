"""The event log: a Game is setup(seed) folded over its Moves; the snapshot is only a cache."""

from __future__ import annotations

import secrets

from django.db import models

from lobby.models import Group, Player, Table


def new_share_token() -> str:
    """The secret part of a finished game's share link (unguessable; ids are sequential)."""
    return secrets.token_urlsafe(16)


class Game(models.Model):
    """One game at a table. The seed is secret until the end: never rendered, never sent."""

    RUNNING = "running"
    FINISHED = "finished"
    ENDED = "ended"  # stopped early by the host
    STATUSES = [(RUNNING, RUNNING), (FINISHED, FINISHED), (ENDED, ENDED)]

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    engine = models.CharField(max_length=40)
    options = models.JSONField(default=dict)
    players = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64)
    seed_hash = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=STATUSES, default=RUNNING)
    version = models.PositiveIntegerField(default=0)
    snapshot = models.JSONField(default=dict)
    outcome = models.JSONField(null=True, blank=True)
    timer_seconds = models.PositiveSmallIntegerField(default=0)
    window = models.CharField(max_length=80, blank=True, default="")
    deadline = models.DateTimeField(null=True, blank=True)
    paused = models.BooleanField(default=False)
    paused_remaining = models.FloatField(null=True, blank=True)
    # A silent window's own countdown (seconds; None: the table timer applies to the window),
    # and the seats that asked it to wait (once each per window).
    countdown = models.PositiveSmallIntegerField(null=True, blank=True)
    waits = models.JSONField(default=list, blank=True)
    # What the table was told of seats moving to new phones: {"index", "by_host", "moved", "at"}
    # for every seat link made or opened (kept here, so no page needs another query for it).
    seat_moves = models.JSONField(default=list, blank=True)
    # The seats the game waits for now (public, as the board shows them): the worker lets bots
    # think only where a bot is awaited or a silent window is open.
    awaiting = models.JSONField(default=list, blank=True)
    # A bot is awaited or a silent window is open (``gameplay.services.bot_due``): the worker
    # reads only these games, so its cost follows the games that are due, not all running games.
    bot_due = models.BooleanField(default=False)
    # Undo by the table's consent (``gameplay.undo``). ``undo_point``: the latest move in force while the engine says
    # it may be taken back ({"seq", "seat", "lines": the public log entries it wrote}), else None; any other move
    # clears it. ``undo_request``: the latest request, open or closed ({"id", "seq", "seat", "lines", "asked",
    # "agreed", "moderated", "version", "status", "by"}), ``undo_deadline`` its open window's end (the worker
    # expires it). ``undos``: every undo made, as the log shows it ({"seat", "lines", "agreed", "moderated",
    # "at": the length of the state's log it returned to}); its length marks the screens older than the latest
    # undo (``window_token``).
    undo_point = models.JSONField(null=True, blank=True)
    undo_request = models.JSONField(null=True, blank=True)
    undo_deadline = models.DateTimeField(null=True, blank=True)
    undos = models.JSONField(default=list, blank=True)
    # The host who ran this game from the board without a seat (a moderator), for their history.
    moderator = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="moderated_games")
    # The group the table played for when this game started (kept here: changing the table later
    # does not rewrite history). Its stats and ratings read finished games with this group.
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="games")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Who may open the finished game's page: its players, and whoever has the link with this token.
    share_token = models.CharField(max_length=32, default=new_share_token)

    class Meta:
        ordering = ["-created"]
        constraints = [
            # A double tap on Start never deals twice: at most one running game per table.
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(status="running"), name="one_running_game_per_table"
            ),
        ]
        indexes = [
            # The worker's two questions each tick: which windows are due, which games await a bot.
            models.Index(fields=["deadline"], condition=models.Q(status="running"), name="game_running_deadline"),
            models.Index(fields=["id"], condition=models.Q(status="running", bot_due=True), name="game_bot_due"),
            models.Index(fields=["undo_deadline"], condition=models.Q(status="running"),
                         name="game_running_undo_deadline"),
        ]

    @property
    def over(self) -> bool:
        return self.status != self.RUNNING

    @property
    def window_token(self) -> str:
        """The open window as a screen names it: the engine's id, and after an undo the number of undos made.

        An undo restores the engine's window counters, so a window id may come back; a screen drawn before the
        latest undo names the window with fewer undos, and its answer is refused (``services.move_submit``).
        """
        return f"{self.window}~{len(self.undos)}" if self.window and self.undos else self.window


class GameSeat(models.Model):
    """Who sat where in one game (kept for history even if the table changes)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="game_seats")
    name = models.CharField(max_length=40)
    bot = models.CharField(max_length=20, blank=True, default="")
    # Set once the seat moved to a new phone by a seat link: only the browser holding this
    # token plays it from then on (the player keeps the game in their history all the same).
    device = models.CharField(max_length=64, blank=True, default="")
    # A seat played on a shared device (pass-and-play) whose player chose a short PIN: its hash alone
    # (``make_password``), the wrong tries since the last right one (``PIN_TRIES`` lock it until the host clears
    # it), and how many of its private lines the device has shown it as a result ("show to one player").
    pin = models.CharField(max_length=128, blank=True, default="")
    pin_tries = models.PositiveSmallIntegerField(default=0)
    results_shown = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["game", "index"], name="one_gameseat_per_index")]


class Move(models.Model):
    """One entry of the log: a seat's action, or a system move (seat None: a timer expiry)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    action = models.JSONField(null=True, blank=True)
    client_move_id = models.CharField(max_length=64, null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq"),
            # Move ids are a seat's own: another seat reusing one (say a bot's) is a different move.
            models.UniqueConstraint(fields=["game", "seat", "client_move_id"], name="unique_seat_move_id"),
        ]


# How long a seat link may be opened.
HANDOVER_MINUTES = 10
PIN_TRIES = 5  # wrong PINs in a row before a shared seat locks until the host clears its PIN


class SeatHandover(models.Model):
    """A one-time link that moves one seat of a running game to a new phone.

    Asked by the seat's own phone, or made by the host for a seat whose phone has been gone
    a while (announced on the board). It lives ``HANDOVER_MINUTES``; a new one replaces the
    seat's older ones; claiming it revokes the old phone at once.
    """

    token = models.CharField(max_length=64, unique=True)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="handovers")
    index = models.PositiveSmallIntegerField()
    by_host = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    used = models.DateTimeField(null=True, blank=True)
    revoked = models.BooleanField(default=False)

    class Meta:
        ordering = ["created"]


class GameNight(models.Model):
    """An evening's series at one table, started and ended by the host (``community.nights``).

    Its games are the table's games that finished while it was open (``started`` <= finished
    <= ``ended``, or still open): no field on Game, the finish times say it. At most one open
    night per table.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="nights")
    # The host who started it (they may see its summary even after the host role changed hands).
    created_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="started_nights")
    # The group the table played for when the night started (its members may see the summary).
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="nights")
    started = models.DateTimeField()
    ended = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started", "-pk"]
        constraints = [
            # A double tap on "Start a game night" never opens two.
            models.UniqueConstraint(fields=["table"], condition=models.Q(ended__isnull=True),
                                    name="one_open_night_per_table"),
        ]

    @property
    def is_open(self) -> bool:
        return self.ended is None
