"""``request.player``: the Player of this browser (an account's, else the session's guest), looked up lazily."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _

from lobby.services import NotHost, player_current


class PlayerMiddleware:
    """Sets ``request.player`` lazily, like ``request.user``: no query until something reads it.

    It is a lazy stand-in: for a browser without a player it behaves as None (falsy, equal to
    None) but is not None itself, so test it with ``if request.player``, never ``is None``.
    Needs the session and auth middlewares above it. Code without a request (the socket, the
    worker) uses ``lobby.services.player_current`` or the session directly.

    What this player may not do is answered here too: a host control asked by anyone but the
    host (``NotHost``, raised by ``lobby.views.host_table``) is a one-line 403.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        request.player = SimpleLazyObject(lambda: player_current(request=request))
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, NotHost):
            return HttpResponse(_("Only the host can do that."), status=403)
        return None
