"""The current player (account or guest) for every template."""

from __future__ import annotations

from lobby.services import player_current


def player(request):
    """``current_player``: the Player of this browser, or None (``request.player`` when the middleware ran)."""
    current = getattr(request, "player", None)
    return {"current_player": current if current is not None else player_current(request=request)}
