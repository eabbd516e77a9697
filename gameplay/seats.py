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
