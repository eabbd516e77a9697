"""A move sent over the table socket the phone's page holds, instead of a POST.

The page sends the move form's fields (``{"move": {name: value or [values]}, "id": n}``); they are
judged exactly as the POST's (``gameplay.web.views.move``): the form's CSRF token against the socket's
CSRF cookie, the form read by ``forms.read_move_form``, the move by ``services.move_submit`` against
the table as it is now, for the player the socket's session is now. The answer is this socket's
frame of the push the move made (``{"answer": n, "v", "f", "t"}``), or, for a refused move, the
refusal's note (``"note"``: the markup the POST's panel shows above it) beside the frame of the table
as it stands. Whatever the socket cannot judge (a session
gone, a form without a valid token) is answered ``{"answer": n, "post": true}``: the page posts the
same form (the same move id, so it is never played twice) and the HTTP path answers it.
"""

from __future__ import annotations

from django.http import QueryDict
from django.middleware.csrf import CSRF_SECRET_LENGTH, CSRF_TOKEN_LENGTH, _does_token_match
from django.utils import translation

from gameplay import services
from gameplay.live.frames import ROUNDS_OF_THIS_PROCESS, Socket, TableRound
from gameplay.screens.table import TABLE, TableNow, Viewer, note_html, viewers_of_sessions
from gameplay.services import MoveRefused
from gameplay.web.forms import BadMoveForm, read_move_form
from gameplay.web.views import refusal_answer
from lobby.models import Table

MAX_FIELDS = 64  # a move form has a handful; a pick of every card of ten players stays far below


def _token_matches(token: object, secret: str) -> bool:
    """Whether a form's CSRF token is one for this socket's CSRF cookie (as CsrfViewMiddleware checks)."""
    if not isinstance(token, str) or len(token) not in (CSRF_SECRET_LENGTH, CSRF_TOKEN_LENGTH):
        return False
    if not token.isalnum() or not token.isascii() or len(secret) != CSRF_SECRET_LENGTH:
        return False
    return _does_token_match(token, secret)


def _form(fields: dict) -> QueryDict | None:
    """The fields as Django reads a posted form, or None unless every name is text and every value text
    (or a list of texts, a field sent several times)."""
    if len(fields) > MAX_FIELDS:
        return None
    form = QueryDict(mutable=True)
    for name, value in fields.items():
        values = value if isinstance(value, list) else [value]
        if not isinstance(name, str) or len(values) > MAX_FIELDS or not all(isinstance(v, str) for v in values):
            return None
        form.setlist(name, values)
    return form


def _answering(message: dict) -> dict:
    """What every answer to ``message`` starts with: the number the page gave its move (None: none usable)."""
    ask = message.get("id")
    return {"answer": ask if isinstance(ask, int) and not isinstance(ask, bool) else None}


def unjudged(socket: Socket, message: dict) -> dict | None:
    """The answer to a move this socket cannot judge whoever sends it (not a phone's, no session, no valid CSRF
    token), without a look at the database: ``{"answer": n, "post": true}``; None for a move worth judging."""
    answer = _answering(message)
    fields = message.get("move")
    if (socket.kind != "phone" or not socket.session_key or not isinstance(fields, dict)
            or not _token_matches(fields.get("csrfmiddlewaretoken"), socket.csrf_secret)):
        return {**answer, "post": True}
    return None


def _submit(table: Table, viewer: Viewer, fields: dict) -> services.MoveResult:
    """The move form's ``fields``, read as the POST's are and played for ``viewer`` at ``table`` as it is now."""
    form = _form(fields)
    if form is None:
        raise BadMoveForm("fields")
    move = read_move_form(form)
    return services.move_submit(table_id=table.pk, player=viewer.player_id, version=move.version,
                                move_id=move.move_id, action=move.action, window=move.window, devices=viewer.devices)


def play(table_id: int, code: str, socket: Socket, message: dict) -> dict:
    """Judge a move sent over ``socket`` and answer it with this socket's frame (see the module)."""
    unjudgeable = unjudged(socket, message)
    if unjudgeable is not None:
        return unjudgeable
    answer = _answering(message)
    fields = message["move"]
    viewer = viewers_of_sessions([socket])[0]
    if viewer is None:
        return {**answer, "post": True}
    table = TABLE.first(table_id)
    if table is None or table.code != code:
        return {**answer, "post": True}
    with translation.override(viewer.language):
        try:
            result = _submit(table, viewer, fields)
        except (MoveRefused, BadMoveForm) as refusal:
            status, note = refusal_answer(refusal)
            now = TableNow.read(table_id)
            if now is None:
                return {**answer, "post": True}
            # The note alone, beside this socket's frame of the table as it stands (nothing moved, most likely): the
            # page shows the note whatever revision it shows, and takes the frame only if it is newer.
            return {**answer, "status": status, "note": note_html(note, viewer.language),
                    **TableRound(now).frame(socket, viewer)}
    found: TableRound | None
    if result.game is not None and result.revision is not None:
        # The push this move made, from the rows it left (as the POST's answer): this socket's frame of it.
        table.revision = result.revision
        found = ROUNDS_OF_THIS_PROCESS.offer(TableRound(TableNow(table, result.game)))
    else:  # a repeated move id: the table as it stands now
        found = ROUNDS_OF_THIS_PROCESS.at(table_id, code, table.revision)
    if found is None:
        return {**answer, "post": True}
    return {**answer, "status": 200, **found.frame(socket, viewer)}
