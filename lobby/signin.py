"""Whose account a browser is signed in to: named and confirmed before it sits down or hosts, and the
admin's log-in held to the players' log-in limits.

A session cookie can be planted in someone else's browser (a shared tablet, a cookie set through a
sibling host). A planted *guest* is worth nothing to its planter once the browser becomes a player
(the session gets a new key, ``tests/lobby/test_session_fixation.py``), but a planted *account* is
not: its planter still has the password, so whatever the victim does under it (a seat, the host
role) the planter does too. Nothing in the session tells the two apart (the planter's own log-in
wrote it, and a mark set at log-in would be planted with it), so the person is asked, every time: a
page that would sit down or host under an account names it ("You are logged in as …",
``templates/lobby/_signed_in.jinja``), its button says "Sit down as …" or "Host as …", and only that
POST, naming the player it showed (field ``as``), acts. A form drawn for someone else (the name form
of a browser without a player, a guest's "Take a seat") never acts for an account. "Not you?" logs
out, which ends the planted session for its planter too, and comes back as a guest.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from infra import limits
from lobby.models import Player

# The form field that names the player a sit-down or host form was drawn for.
CONFIRM_FIELD = "as"


def signed_in_account(player: Player | None) -> dict | None:
    """The account ``player`` is (its user's name and the player's id, as the confirming form names
    them), or None for a guest or nobody."""
    if not player or player.user_id is None:
        return None
    return {"name": player.user.get_username(), "player": player.pk}


def confirmed(request: HttpRequest, player: Player) -> bool:
    """Whether this request may act for ``player``: its POST names this player (``CONFIRM_FIELD``).

    An account needs it, so a GET never acts for one. A guest's request without it still acts (a
    host link opened on a tablet, a page drawn before the field existed), but one naming another
    player never does: the browser changed hands since its page was drawn.
    """
    named = request.POST.get(CONFIRM_FIELD)
    if named is None:
        return player.user_id is None
    return named == str(player.pk)


@limits.limit_log_ins
def admin_login(request: HttpRequest) -> HttpResponse:
    """``/admin/login/``: the admin site's log-in, its attempts counted with the players' log-ins (the
    same counters) and refused before the password is checked."""
    return admin.site.login(request)
