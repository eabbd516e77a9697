"""Who an HTTP request acts as (the web layer's half of ``gameplay.screens.table.Viewer``): its browser's player and
seat links, or a seat played on a shared device that the request names (pass-and-play, ``gameplay.seats``)."""

from __future__ import annotations

import time

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils import translation
from django.utils.translation import gettext

from gameplay.screens.table import Viewer
from gameplay.seats import SHARED_HEADER, Locked, NotShared, session_devices, shared_screen
from lobby.network import lan_base_url
from lobby.services import player_id_of


def request_acting(request: HttpRequest) -> tuple[int | None, dict[str, str], bool]:
    """Who a request acts as: (player id, devices, shared). A shared seat's page names its seat (``SHARED_HEADER``)
    and acts as that seat alone, nobody's player; any other request acts as its browser. PermissionDenied (403)
    for a named seat this browser does not hold, or one with a PIN it was not unlocked for (``shared_screen``)."""
    try:
        shared = shared_screen(request.session, request.headers.get(SHARED_HEADER), time.time())
    except Locked as error:
        raise PermissionDenied(gettext("Enter this seat's PIN on the device first.")) from error
    except NotShared as error:
        raise PermissionDenied("not a seat of this device") from error
    if shared is not None:
        return None, shared, True
    return player_id_of(request=request), session_devices(request.session), False


def viewer_of_request(request: HttpRequest) -> Viewer:
    """The viewer of a page or htmx request (its CSRF cookie set for the page's header, as Django does)."""
    player_id, devices, shared = request_acting(request)
    return Viewer(player_id=player_id, devices=devices, language=translation.get_language(),
                  base_url=lan_base_url(request), can_post=bool(get_token(request)), shared=shared)
