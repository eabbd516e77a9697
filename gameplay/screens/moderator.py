"""The moderator's tablet: the host's controls on the board, built from public facts only.

The board page is the public board (``templates/gameplay/_board.jinja``, the same bytes for
everyone) plus this fragment (``templates/gameplay/_moderator.jinja``, refreshed on its own on
every table change). Everyone's fragment says who hosts after the role changed hands; the
host's holds the controls, which post to the very views the host's phone uses
(``lobby.views`` seat tools and settings, ``gameplay.web.controls``) with ``back=board``.

Nothing here reads a game's state or an engine view: only the lobby's seats and settings, the
game row's public info (``game_public_info``: never the seed before the end), the seats' names
and which phones are asleep (both shown on the public board already), and, given by the caller
(``TableNow.shared``), whether a seat played on a shared device has a private result waiting: a
count of its private lines, which its own public move made (a check, an investigation), never
what they say; the result itself is fetched by that device on a hold or PIN. So the moderator, who
may be the tablet everyone looks at, can never be shown a secret. The game-night control
(``templates/gameplay/night_controls.jinja``) reads only whether a night is open and since when.
"""

from __future__ import annotations

from gameplay.models import Game
from gameplay.screens.jinja import url_of
from gameplay.selectors import game_public_info, seats_info
from lobby.context import host_seats, host_settings
from lobby.models import Player, Table


def moderator_context(table: Table, player_id: int | None, *, latest: Game | None,
                      asleep: list[int], shared: list[dict] | None = None) -> dict:
    """What the board's controls fragment shows the browser of ``player_id`` (the template's ``mod``).

    ``latest``: the table's latest game (read with the table); ``asleep``: its seats whose phones went
    quiet (shown on the public board already); ``shared``: its seats played on a shared device
    (``TableNow.shared``: names, PINs, whether a private result waits to be shown, never what it says).
    For everyone: the fragment's own URL and, once the
    host role has changed hands, the host's name. For the host also: the seat tools and settings
    between games, the game controls during one, and the seated people the role may pass to.
    """
    mod: dict = {"url": url_of("board_controls", table.code),
                 "is_host": player_id is not None and player_id == table.host_id}
    if table.host_since is not None:
        mod["host_name"] = Player.objects.filter(pk=table.host_id).values_list("nickname", flat=True).first()
    if not mod["is_host"]:
        return mod
    seating = host_seats(table)
    mod.update(seating)
    # The role passes to a person in a seat (a bot cannot host; the host already does).
    mod["people"] = [s for s in seating["seats"] if not s["is_bot"] and not s["is_host"]]
    mod["game"] = game_public_info(latest) if latest is not None else None
    if latest is not None and not latest.over:
        mod["running"] = True
        mod["game_seats"] = seats_info(latest, None)
        mod["asleep"] = asleep
        mod["shared"] = shared or []
    else:
        mod.update(host_settings(table))
    return mod


def game_moderator_follow(*, table_id: int, host_id: int) -> None:
    """The host role changed hands: a new host without a seat in the running game moderates it.

    Sent by the lobby (``lobby.signals.host_changed``) inside the change's transaction, so the
    game shows in the moderator's history (``selectors.player_history``). A moderator who passes
    the role on keeps the games they ran.
    """
    running = Game.objects.filter(table_id=table_id, status=Game.RUNNING, moderator__isnull=True)
    running.exclude(seats__player_id=host_id).update(moderator_id=host_id)
