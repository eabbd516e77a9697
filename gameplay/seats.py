"""Which seat of a game a browser holds: its player's, or one handed to it by a seat link.

A browser's session keeps ``DEVICES_KEY``: {game id: device token} for the seats moved to it.
A seat that moved (``GameSeat.device`` set) is played only by the browser with that token; the
player's other phones no longer hold it (they are told so), and the game stays in the
player's history. Bots' seats are nobody's.

A game's seats are read once per Game instance (:func:`game_seats`), so a page or a move that
asks several questions of them (whose seat, names, presence) costs one query.
"""

from __future__ import annotations

from gameplay.models import Game, GameSeat
from infra.prepared import Prepared

DEVICES_KEY = "seat_devices"
SEATS_OF_GAME: Prepared[GameSeat] = Prepared(lambda game_id: GameSeat.objects.filter(game_id=game_id), int)


def session_devices(session) -> dict[str, str]:
    """The device tokens a browser's session holds, by game id (as text)."""
    devices = session.get(DEVICES_KEY) if session is not None else None
    return devices if isinstance(devices, dict) else {}


def game_seats(game: Game) -> list[GameSeat]:
    """The game's seats in order, read once per Game instance (a change to them needs a new instance)."""
    cached = getattr(game, "_seat_rows", None)
    if cached is None:
        cached = SEATS_OF_GAME(game.pk)
        game._seat_rows = cached  # type: ignore[attr-defined]
    return cached


def _player_id(player) -> int | None:
    """A Player's id (``player`` may be a Player, ``request.player``'s lazy stand-in, an id, or None)."""
    if isinstance(player, int) and not isinstance(player, bool):
        return player
    return player.pk if player else None  # truthiness: request.player is a lazy stand-in


def seat_index(game: Game, player, devices: dict[str, str] | None) -> int | None:
    """The seat index this browser plays in ``game``, or None (a spectator, a moved-away phone)."""
    seats = game_seats(game)
    token = (devices or {}).get(str(game.pk))
    if token:
        index = next((s.index for s in seats if s.device == token and not s.bot), None)
        if index is not None:
            return index
    player_id = _player_id(player)
    if player_id is None:
        return None
    return next((s.index for s in seats if s.player_id == player_id and not s.bot and not s.device), None)


def moved_away(game: Game, player, devices: dict[str, str] | None) -> bool:
    """Whether this browser's player had a seat here that moved to another phone."""
    player_id = _player_id(player)
    if player_id is None or seat_index(game, player_id, devices) is not None:
        return False
    return any(s.player_id == player_id and not s.bot and s.device for s in game_seats(game))


# ---- A seat played on a shared device (pass-and-play) ----------------------------------------------------------------
# The host's device keeps ``SHARED_KEY``: {game id: {seat index: device token}} for seats it plays for players
# without a phone, apart from its own seat. A request acts as one of them only when it says so (``SHARED_HEADER``:
# "<game>-<seat>", sent by the shared seat's page alone) and the session holds that seat's current token; else it
# acts as itself.

SHARED_KEY = "shared_seats"
SHARED_HEADER = "X-Shared-Seat"


class NotShared(Exception):
    """The request names a shared seat this browser does not hold."""


def session_shared(session) -> dict[str, dict[str, str]]:
    """The shared seats' tokens a browser's session holds: {game id: {seat index: token}} (as text)."""
    shared = session.get(SHARED_KEY) if session is not None else None
    return shared if isinstance(shared, dict) else {}


def shared_token(session, game_id: int, index: int) -> str | None:
    """The token this session holds for seat ``index`` of game ``game_id``, if any."""
    seats = session_shared(session).get(str(game_id))
    token = seats.get(str(index)) if isinstance(seats, dict) else None
    return token if isinstance(token, str) and token else None


def shared_acting(session, header: str | None) -> dict[str, str] | None:
    """The devices a request acts with when it names a shared seat (``header``), None when it names none.

    Raises NotShared for a malformed header or a seat this session does not hold."""
    if not header:
        return None
    game_id, _, index = header.partition("-")
    if not (game_id.isdigit() and index.isdigit()):
        raise NotShared(header)
    token = shared_token(session, int(game_id), int(index))
    if token is None:
        raise NotShared(header)
    return {game_id: token}


# ---- A shared seat shown to its player (an unlock) -------------------------------------------------------------------
# While a shared seat's screen is shown on the device, its session keeps an unlock: {"<game>-<seat>": last use (epoch
# seconds)}. The PIN's POST grants it for a seat with a PIN (its screen's requests are refused without one); for a seat
# without, the hold's fetch of its screen does. It ends when the screen blacks out (the page says so), and on its own
# ``UNLOCK_SECONDS`` after its last use. Setting a PIN needs one: only the seat's player, shown her screen, sets it.

UNLOCKS_KEY = "shared_unlocks"
UNLOCK_SECONDS = 120


class Locked(NotShared):
    """The request names a shared seat with a PIN that this device has not been unlocked for (or no longer is)."""


def shared_key(game_id: int, index: int) -> str:
    """A shared seat as its header names it: "<game>-<seat>"."""
    return f"{game_id}-{index}"


def _unlocks(session) -> dict[str, float]:
    unlocks = session.get(UNLOCKS_KEY)
    return unlocks if isinstance(unlocks, dict) else {}


def unlock_grant(session, key: str, now: float) -> None:
    """The seat ``key`` is shown on this device from ``now`` (its PIN was entered, or it is held)."""
    session[UNLOCKS_KEY] = {**{k: t for k, t in _unlocks(session).items() if now - t < UNLOCK_SECONDS}, key: now}


def unlock_live(session, key: str, now: float) -> bool:
    """Whether the seat ``key`` is shown on this device now; a live unlock's clock starts again (used now)."""
    used = _unlocks(session).get(key)
    if not isinstance(used, (int, float)) or not 0 <= now - used < UNLOCK_SECONDS:
        return False
    unlock_grant(session, key, now)
    return True


def unlock_end(session, key: str) -> None:
    """The seat ``key`` blacked out on this device: its screen needs its PIN (or a hold) again."""
    unlocks = _unlocks(session)
    if key in unlocks:
        session[UNLOCKS_KEY] = {k: t for k, t in unlocks.items() if k != key}


def shared_screen(session, header: str | None, now: float) -> dict[str, str] | None:
    """:func:`shared_acting`, and the seat shown: a seat with a PIN needs a live unlock (Locked otherwise), one
    without is unlocked by this request (its hold)."""
    acting = shared_acting(session, header)
    if acting is None:
        return None
    ((game_id, token),) = acting.items()
    index = (header or "").partition("-")[2]
    pin = GameSeat.objects.filter(game_id=int(game_id), index=int(index), device=token).values_list("pin", flat=True)
    if pin.first():
        if not unlock_live(session, shared_key(int(game_id), int(index)), now):
            raise Locked(header)
    else:
        unlock_grant(session, shared_key(int(game_id), int(index)), now)
    return acting
