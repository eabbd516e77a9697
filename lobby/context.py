"""What the lobby part of a table's pages shows: seats, settings, timers, the join link and its QR.

The phone page (``gameplay.web.views``) shows ``templates/lobby/_table.jinja`` before and between
games with :func:`table_lobby`; the board shows the join link and seats with :func:`join_link_for`
and :func:`seat_names`; the moderator's controls on the board (``gameplay.screens.moderator``) use
:func:`host_seats` and :func:`host_settings`. Everything here is read from lobby rows; nothing knows about games.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext

from engines.registry import ENGINES, get_engine
from lobby.forms import NicknameForm, option_fields, timer_choices
from lobby.groups import group_choices_of
from lobby.models import Player, Table
from lobby.network import qr_svg
from lobby.signin import signed_in_account


def is_host(player: Player | None, table: Table) -> bool:
    """Whether ``player`` (a Player, None, or ``request.player``) hosts ``table``."""
    # Truthiness, not ``is None``: request.player is a lazy stand-in (see lobby.middleware).
    return player.pk == table.host_id if player else False


def table_info(table: Table) -> dict:
    """The table as every page names it: code, game, its title, timer and the revision shown."""
    return {"code": table.code, "engine": table.engine, "title": gettext(get_engine(table.engine).title),
            "timer_seconds": table.timer_seconds, "revision": table.revision}


def join_link_for(base_url: str, table: Table) -> dict:
    """The table's join link for phones on this Wi-Fi, as text and as a QR code, from the server's address
    for them (``lobby.network.lan_base_url``)."""
    url = base_url + reverse("table", args=[table.code])
    return {"join_url": url, "join_qr": qr_svg(url)}


def seat_names(table: Table) -> list[dict]:
    """The seats in clockwise order as the board names them."""
    return [{"name": s.name, "is_bot": bool(s.bot)} for s in table.seats.select_related("player")]


def table_lobby(table: Table, *, player: Player | None, join: dict, seats: list) -> dict:
    """The lobby of ``templates/lobby/_table.jinja`` for this browser: ``seats`` (the table's seats with their players,
    read once for every phone of a push), joining (``join``: the join link, :func:`join_link_for`), the host's
    settings."""
    me = player.pk if player else None
    engine = get_engine(table.engine)
    seated = me is not None and any(s.player_id == me for s in seats)
    context: dict = {
        "table_seats": [{"id": s.pk, "name": s.name, "is_bot": bool(s.bot),
                         "is_me": me is not None and s.player_id == me, "is_host": s.player_id == table.host_id}
                        for s in seats],
        "seated": seated,
        # Whose account would sit down here, named and asked (``lobby.signin``); None for a guest or once seated.
        "account": None if seated else signed_in_account(player),
        "nickname_form": NicknameForm(),
        "engine_info": {"min": engine.min_players, "max": engine.max_players},
        **join,
    }
    if is_host(player, table):
        context.update(host_settings(table))
    return context


def host_settings(table: Table) -> dict:
    """What the host's settings form (``templates/lobby/_settings.jinja``) offers: games, their options, timers."""
    return {
        "settings_games": [(n, gettext(e.title)) for n, e in sorted(ENGINES.items())],
        "settings_options": {n: option_fields(n, table.options if n == table.engine else {}) for n in ENGINES},
        "timers": timer_choices(),
        # The host's groups the table may play for (field ``group``; "" for none): ``lobby.groups``.
        "settings_groups": group_choices_of(table.host_id),
        "settings_group": str(table.group_id or ""),
    }


def host_seats(table: Table) -> dict:
    """The seats as the host's seat tools on the board show them (ids, names, bots), and the game's seat range."""
    engine = get_engine(table.engine)
    seats = [{"id": s.pk, "name": s.name, "is_bot": bool(s.bot), "is_host": s.player_id == table.host_id}
             for s in table.seats.select_related("player")]
    return {"seats": seats, "engine_info": {"min": engine.min_players, "max": engine.max_players},
            "host_seated": any(s["is_host"] for s in seats)}
