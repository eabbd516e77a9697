"""Which seat of a game a browser holds: its player's, or one handed to it by a seat link.

A browser's session keeps ``DEVICES_KEY``: {game id: device token} for the seats moved to it.
A seat that moved (``GameSeat.device`` set) is played only by the browser with that token; the
player's other phones no longer hold it (they are told so), and the game stays in the
player's history. Bots' seats are nobody's.
"""

from __future__ import annotations

from gameplay.models import Game

DEVICES_KEY = "seat_devices"


def session_devices(session) -> dict[str, str]:
    """The device tokens a browser's session holds, by game id (as text)."""
    devices = session.get(DEVICES_KEY) if session is not None else None
    return devices if isinstance(devices, dict) else {}


def seat_index(game: Game, player, devices: dict[str, str] | None) -> int | None:
    """The seat index this browser plays in ``game``, or None (a spectator, a moved-away phone)."""
    token = (devices or {}).get(str(game.pk))
    if token:
        index = game.seats.filter(device=token, bot="").values_list("index", flat=True).first()
        if index is not None:
            return index
    if not player:  # not ``is None``: request.player is a lazy stand-in (lobby.middleware)
        return None
    return game.seats.filter(player=player, bot="", device="").values_list("index", flat=True).first()


def moved_away(game: Game, player, devices: dict[str, str] | None) -> bool:
    """Whether this browser's player had a seat here that moved to another phone."""
    if not player or seat_index(game, player, devices) is not None:
        return False
    return game.seats.filter(player=player, bot="").exclude(device="").exists()
