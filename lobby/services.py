"""Writes for players, tables and seats: guests, accounts, joining, arranging, seat links."""

from __future__ import annotations

import secrets
import unicodedata
from datetime import timedelta

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Max, QuerySet
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from engines.base import OptionError
from engines.registry import ENGINES
from lobby.models import CODE_ALPHABET, CODE_LENGTH, HOST_LINK_MINUTES, NICKNAME_MAX, Player, Seat, Table
from lobby.notify import table_notify
from lobby.signals import guest_merged, host_changed

SESSION_KEY = "player_id"
HOST_LINK_DEAD = gettext_lazy("This host link is unknown, was already used, or has expired (links last 10 minutes).")
TIMER_CHOICES = [0, 5, 10, 15, 20, 30, 45, 60]


class LobbyError(Exception):
    """A request the lobby cannot take (a clear message, nothing changed)."""


class NotHost(PermissionDenied):
    """Only the table's host may do this (``lobby.middleware`` answers it 403 in one line)."""


# Characters that reorder the text around them: a name with one could show as another name, or
# turn the rest of a line (a log line, the seat list) around.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# The robot emoji, once written after every bot's name: still refused in a nickname, so a person
# never looks like a bot (pages now draw the bot mark from the seat's is_bot, templates/icons/bot_mark.jinja).
BOT_MARK = "\U0001f916"
# Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, ...).
BLANK_LOOKING = frozenset("\u115f\u1160\u2800\u3164\uffa0")


def _visible(ch: str) -> bool:
    """Whether ``ch`` draws something: a letter, digit, punctuation or symbol that is not blank."""
    return unicodedata.category(ch)[0] in "LNPS" and ch not in BLANK_LOOKING


def clean_nickname(raw: str) -> str:
    """A nickname with spaces folded, 1 to NICKNAME_MAX characters; raises LobbyError.

    Refused: control characters, text-direction controls, the bot mark, and names made only of
    invisible characters (zero-width spaces and joiners, marks, blank fillers). Joiners inside a
    name stay allowed: Persian words and emoji sequences need them.
    """
    raw = raw or ""
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in raw):
        raise LobbyError(_("A nickname cannot contain control characters."))
    if any(ch in BIDI_CONTROLS for ch in raw):
        raise LobbyError(_("A nickname cannot contain text-direction control characters."))
    if BOT_MARK in raw:
        message = _("The robot sign %(mark)s marks bots; please leave it out of your name.")
        raise LobbyError(message % {"mark": BOT_MARK})
    nickname = " ".join(raw.split())
    if not nickname:
        raise LobbyError(_("A nickname is needed."))
    if not any(_visible(ch) for ch in nickname):
        raise LobbyError(_("A nickname needs at least one visible letter, digit or sign."))
    if len(nickname) > NICKNAME_MAX:
        raise LobbyError(_("A nickname has at most %(n)s characters.") % {"n": NICKNAME_MAX})
    return nickname


def player_current(*, request) -> Player | None:
    """The Player of this browser: the account's, else the guest bound to the session.

    Views read ``request.player`` (``lobby.middleware``, lazy); this is its lookup, cached on
    the request, for callers without the middleware.
    """
    cached = getattr(request, "_player", None)
    if cached is not None:
        return cached
    player = None
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        player = Player.objects.filter(user=user).first()
    if player is None and hasattr(request, "session"):
        player_id = request.session.get(SESSION_KEY)
        if player_id:
            # Logging out flushes the session, so a session-bound player is this browser's
            # (a guest, or a seat handed over by a one-time seat link).
            player = Player.objects.filter(pk=player_id).first()
    request._player = player
    return player


def session_player_id(session) -> int | None:
    """The player id a session (a mapping) keeps under ``SESSION_KEY``, or None (none, or not an int)."""
    player_id = session.get(SESSION_KEY) if session is not None else None
    return player_id if isinstance(player_id, int) and not isinstance(player_id, bool) else None


def player_id_of(*, request) -> int | None:
    """This browser's player id, from the session where it is kept (no query), else looked up.

    Guests and accounts both keep their player's id in the session (``SESSION_KEY``: set when a
    guest sits down and when an account logs in), so a page that only needs to know *which*
    player this is reads no row.
    """
    cached = getattr(request, "_player", None)
    if cached is not None:
        return cached.pk
    player_id = session_player_id(getattr(request, "session", None))
    if player_id is not None:
        return player_id
    player = player_current(request=request)
    return player.pk if player else None


def player_guest_create(*, request, nickname: str) -> Player:
    """Sit down as a guest: a Player bound to this browser's session (a second time renames it).

    Either way the session gets a new key: a key handed out before (perhaps planted in this
    browser by someone else, whose own browser still sends it) is worth nothing afterwards.
    """
    nickname = clean_nickname(nickname)
    current = player_current(request=request)
    request.session.cycle_key()
    if current is not None:
        # This browser already has a player: keep its seats, just take the new name.
        current.nickname = nickname
        current.save(update_fields=["nickname"])
        return current
    player = Player.objects.create(nickname=nickname)
    request.session[SESSION_KEY] = player.pk
    _remember(request, player)
    return player


def _remember(request, player: Player) -> None:
    """This request's player from now on (``player_current``'s cache and ``request.player``)."""
    request._player = player
    if hasattr(request, "player"):
        request.player = player


def player_attach_user(*, request, user) -> Player:
    """After sign-up or log-in: the account keeps the guest's seats and history."""
    player = Player.objects.filter(user=user).first()
    guest_id = request.session.get(SESSION_KEY)
    guest = Player.objects.filter(pk=guest_id, user__isnull=True).first() if guest_id else None
    if player is None:
        if guest is not None:
            guest.user = user
            guest.save(update_fields=["user"])
            player = guest
        else:
            player = Player.objects.create(user=user, nickname=clean_nickname(user.username[:NICKNAME_MAX]))
    elif guest is not None and guest.pk != player.pk:
        _merge_guest(guest=guest, into=player)
    request.session[SESSION_KEY] = player.pk
    _remember(request, player)
    return player


def _merge_guest(*, guest: Player, into: Player) -> None:
    """Logging in after playing as a guest: the account takes over the guest's seats and games.

    The games are gameplay's: it moves them on ``lobby.signals.guest_merged``, in this transaction.
    """
    with transaction.atomic():
        taken = set(Seat.objects.filter(player=into).values_list("table_id", flat=True))
        Seat.objects.filter(player=guest).exclude(table_id__in=taken).update(player=into)
        Table.objects.filter(host=guest).update(host=into)  # a moderator who logs in still hosts
        guest_merged.send(sender=Player, guest=guest, into=into)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str:
    """What a person typed as a table code: letters and digits only, upper-cased, trimmed."""
    return "".join(ch for ch in (raw or "").upper() if ch.isascii() and ch.isalnum())[:CODE_LENGTH * 2]


def clean_token(raw: str, limit: int = 64) -> str:
    """A client-chosen id (move id, seat link token): URL-safe characters only, or ''."""
    text = (raw or "")[:limit]
    return text if text and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in text) else ""


def _checked_settings(*, engine: str, options: dict, timer_seconds: int) -> dict:
    """A table's game, options and timer checked; the options with their defaults filled in."""
    if engine not in ENGINES:
        raise LobbyError(_("Unknown game."))
    if timer_seconds not in TIMER_CHOICES:
        raise LobbyError(_("The timer is off or 5 to 60 seconds."))
    try:
        return ENGINES[engine].validate_options(options, None)
    except OptionError as error:
        raise LobbyError(gettext(str(error))) from error


def table_create(*, host: Player, engine: str, options: dict, timer_seconds: int, seated: bool = True) -> Table:
    """A new table with the host in the first seat; checks the game, options and timer.

    ``seated=False``: a moderated table; the host runs it from the board and takes no seat.
    """
    options = _checked_settings(engine=engine, options=options, timer_seconds=timer_seconds)
    for _attempt in range(20):
        try:
            with transaction.atomic():
                table = Table.objects.create(
                    code=_new_code(), host=host, engine=engine, options=options, timer_seconds=timer_seconds
                )
                if seated:
                    Seat.objects.create(table=table, position=0, player=host)
                return table
        except IntegrityError:
            continue
    raise LobbyError(_("Could not find a free table code; try again."))


def _next_position(table: Table) -> int:
    top = table.seats.aggregate(top=Max("position"))["top"]
    return 0 if top is None else top + 1


def table_join(*, table: Table, player: Player) -> Seat:
    """Take a free seat at the end of the table (idempotent for a seated player)."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        existing = table.seats.filter(player=player).first()
        if existing is not None:
            return existing
        if table.in_game:
            raise LobbyError(_("A game is in progress at this table; join before the next one."))
        if table.seats.count() >= ENGINES[table.engine].max_players:
            raise LobbyError(_("This table is full."))
        seat = Seat.objects.create(table=table, position=_next_position(table), player=player)
        table_notify(table_id=table.pk)
        return seat


def seat_add_bot(*, table: Table, policy: str = "heuristic") -> Seat:
    """The host fills an empty seat with a bot."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.in_game:
            raise LobbyError(_("Seats change between games."))
        count = table.seats.count()
        if count >= ENGINES[table.engine].max_players:
            raise LobbyError(_("This table is full."))
        names = set(table.seats.exclude(bot="").values_list("bot_name", flat=True))
        number = next(n for n in range(1, 100) if f"Bot {n}" not in names)
        seat = Seat.objects.create(
            table=table, position=_next_position(table), bot=policy, bot_name=f"Bot {number}"
        )
        table_notify(table_id=table.pk)
        return seat


def seat_remove(*, table: Table, seat_id: int) -> None:
    """The host removes a seat before the start (or a player leaves their own)."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.in_game:
            raise LobbyError(_("Seats change between games."))
        seat = table.seats.filter(pk=seat_id).first()
        if seat is None:
            raise LobbyError(_("No such seat."))
        if seat.player_id == table.host_id:
            raise LobbyError(_("The host keeps their seat."))
        seat.delete()
        seats_renumber(table)
        table_notify(table_id=table.pk)


def seats_renumber(table: Table) -> None:
    """The table's seats numbered 0, 1, … again in their order (after one left)."""
    seats = list(table.seats.order_by("position"))
    # Two passes so the positions never collide on the way.
    for i, seat in enumerate(seats):
        seat.position = 1000 + i
        seat.save(update_fields=["position"])
    for i, seat in enumerate(seats):
        seat.position = i
        seat.save(update_fields=["position"])


def seat_move(*, table: Table, seat_id: int, delta: int) -> None:
    """The host moves a seat one place earlier (-1) or later (+1) in clockwise order."""
    if delta not in (-1, 1):
        raise LobbyError(_("A seat moves one place at a time."))
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.in_game:
            raise LobbyError(_("Seats change between games."))
        seats = list(table.seats.order_by("position"))
        index = next((i for i, s in enumerate(seats) if s.pk == seat_id), None)
        if index is None:
            raise LobbyError(_("No such seat."))
        other = index + delta
        if not 0 <= other < len(seats):
            return
        seats[index], seats[other] = seats[other], seats[index]
        for i, seat in enumerate(seats):
            seat.position = 1000 + i
            seat.save(update_fields=["position"])
        seats_renumber(table)
        table_notify(table_id=table.pk)


def table_settings_update(*, table: Table, engine: str, options: dict, timer_seconds: int) -> None:
    """The host changes the game, its options or the timer between games."""
    options = _checked_settings(engine=engine, options=options, timer_seconds=timer_seconds)
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.in_game:
            raise LobbyError(_("Settings change between games."))
        table.engine, table.options, table.timer_seconds = engine, options, timer_seconds
        table.save(update_fields=["engine", "options", "timer_seconds"])
        table_notify(table_id=table.pk)


def _host_set(table: Table, player: Player) -> None:
    """``player`` hosts the locked ``table`` from now on; the board says so (a public change).

    Should be called while holding the table row's lock. Any live host link is void: one host,
    one way to pass it on at a time.
    """
    table.host, table.host_link, table.host_link_made = player, "", None
    table.host_since = timezone.now()
    table.save(update_fields=["host", "host_link", "host_link_made", "host_since"])
    table_notify(table_id=table.pk)
    host_changed.send(sender=Table, table_id=table.pk, host_id=player.pk)


def host_link_create(*, table: Table) -> str:
    """The host's one-time link token that hands the host role to another browser (a tablet).

    It lives HOST_LINK_MINUTES and works once; a new one replaces the older one.
    """
    token = secrets.token_urlsafe(24)
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        table.host_link, table.host_link_made = token, timezone.now()
        table.save(update_fields=["host_link", "host_link_made"])
    return token


def _host_links_live(tables: QuerySet[Table], token: str) -> QuerySet[Table]:
    """The tables of ``tables`` whose live host link is ``token`` (none for an empty token)."""
    since = timezone.now() - timedelta(minutes=HOST_LINK_MINUTES)
    return tables.filter(host_link=token, host_link_made__gt=since) if token else tables.none()


def host_link_live(*, token: str) -> bool:
    """Whether ``token`` is a host link that may still be opened."""
    return _host_links_live(Table.objects.all(), token).exists()


def host_link_claim(*, token: str, player: Player) -> Table:
    """Open a host link: ``player`` (this browser's) hosts the table; the old host keeps their seat.

    Raises LobbyError for an unknown, used, replaced or expired link.
    """
    with transaction.atomic():
        table = _host_links_live(Table.objects.select_for_update(), token).first()
        if table is None:
            raise LobbyError(str(HOST_LINK_DEAD))
        _host_set(table, player)
        return table


def host_pass(*, table: Table, seat_id: int) -> Player:
    """The host hands the host role to the player in seat ``seat_id`` (a person, not a bot).

    Raises LobbyError for a seat that is not a person's at this table.
    """
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        seat = table.seats.select_related("player").filter(pk=seat_id, player__isnull=False).first()
        if seat is None or seat.player is None:
            raise LobbyError(_("Only a person in a seat at this table can become the host."))
        if seat.player_id != table.host_id:
            _host_set(table, seat.player)
        return seat.player
