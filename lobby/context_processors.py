"""The current player (account or guest) for every template."""

from __future__ import annotations


def player(request):
    """``current_player``: the Player of this browser, or None."""
    from lobby.services import player_current

    return {"current_player": player_current(request=request)}
