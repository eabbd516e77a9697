"""A push of a table's screens to its sockets in this process, at one revision.

A :class:`TableRound` holds the rows of one revision read once (``screens.TableNow``) and draws each socket's
frame from them: the fragments of its screen whose tags moved since it was last sent them. The latest round
of each table is kept (:data:`ROUNDS_OF_THIS_PROCESS`), so a move's answer and every socket of the table share
one. The socket hub (``gameplay.live.consumers.Hub``) calls :func:`push_frames` once per push for all of a table's
sockets here, and :func:`heartbeat_look` at each heartbeat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import translation

from gameplay import presence
from gameplay.models import Game
from gameplay.screens import pieces
from gameplay.screens.table import (
    BOARD_ROOT,
    PHONE_ROOT,
    Screen,
    TableNow,
    Viewer,
    moderator_part,
    panel_html,
    phone_parts,
    phone_screen,
    shell_tag,
    speaking,
    viewers_of_sessions,
)
from gameplay.selectors import handover_notes
from infra import jsontext
from infra.recent import Recent
from lobby.models import Table
from lobby.notify import table_notify_at


@dataclass
class Socket:
    """What a table socket's page holds: its kind ("phone" or "board"), who it is, and the tags it was sent."""

    kind: str
    session_key: str | None
    language: str
    csrf_secret: str
    url: str
    sent: dict[str, str] = field(default_factory=dict)
    framed: int = 0  # the newest revision a frame was drawn at for this socket (pushes and move answers alike)


class TableRound:
    """One push of a table at one revision, for the sockets of this process: the rows read once (``now``, which
    makes each public fragment once per language, whichever socket asks first)."""

    def __init__(self, now: TableNow) -> None:
        self.now = now
        self.revision = now.revision

    def frame(self, socket: Socket, viewer: Viewer | None) -> dict:
        """The frame for ``socket``: ``{"v": revision, "f": {id: html}, "t": {id: tag}}``.

        ``f``: the fragments whose tag moved since this socket was last sent them (or the whole panel, under
        its root id, when its shape changed: a game starts or ends, the lobby); ``t``: the tags of all the
        screen's fragments, so its page can tell whether it holds the rest (else it refetches). The number
        alone when the page must ask for itself: its session is gone, or a phone without a CSRF cookie; or when a
        frame of this revision or a newer one was drawn for this socket already (the page holds that one).
        ``viewer``: the socket's viewer, just read from its session (``viewers_of_sessions``; None: the session is
        gone).
        """
        if viewer is None or (socket.kind == "phone" and not viewer.can_post):
            socket.sent = {}
            return {"v": self.revision}
        if self.revision <= socket.framed:
            # Its page holds a frame of this revision or a newer one (a move's answer drawn while a push was waiting
            # for the database thread): it would drop this frame, so ``sent`` must not count it. The number alone.
            return {"v": self.revision}
        socket.framed = self.revision
        with speaking(viewer.language):
            if socket.kind == "board":
                return self._changed(socket, [self.now.board_fragment(viewer), moderator_part(self.now, viewer)])
            shell, parts = phone_parts(self.now, viewer)
            shape = shell_tag(shell, parts, viewer) if parts else ""
            if not shape or socket.sent.get(PHONE_ROOT) != shape:
                html = panel_html(self.now, viewer, shell, parts)
                held = {key: piece[0] for part in parts for key, piece in part.pieces.items()}
                socket.sent = {PHONE_ROOT: shape, **held} if shape else {}
                return {"v": self.revision, "f": {PHONE_ROOT: html}}
            return self._changed(socket, parts)

    def _changed(self, socket: Socket, parts: list) -> dict:
        """The frame of the screen's ``parts`` that moved since ``socket`` was last sent them: a public fragment whose
        own shell did not move sends only the pieces inside it that moved."""
        frame: dict = {"v": self.revision, "f": {}, "t": {}}
        for part in parts:
            sendable = part.pieces
            own = sendable[part.id][0]
            inner = {key: value for key, value in sendable.items() if key != part.id}
            if inner and own and socket.sent.get(part.id) == own:  # the same shell: the pieces that moved
                frame["f"].update({key: pieces.stamp(html, self.revision) for key, (tag, html) in inner.items()
                                   if socket.sent.get(key) != tag})
                frame["t"].update({key: tag for key, (tag, _html) in sendable.items()})
            else:
                if not own or socket.sent.get(part.id) != own:
                    frame["f"][part.id] = part.render()
                frame["t"][part.id] = own  # its pieces come inside it
            socket.sent.update({key: tag for key, (tag, _html) in sendable.items()})
            if part.id == BOARD_ROOT and part.tag:
                frame["tag"] = f'"{part.tag}"'  # the board's entity tag, as its GET has it (board.js)
        return frame


ROUNDS = 512  # tables whose latest push this process keeps


class _Rounds:
    """The latest :class:`TableRound` of each table with sockets in this process (at most ``ROUNDS``)."""

    def __init__(self) -> None:
        self._rounds: Recent[TableRound] = Recent(ROUNDS)

    def at(self, table_id: int, code: str, revision: int) -> TableRound | None:
        """The push of the table at ``revision`` or newer: read once, then shared by its sockets. Keyed by the
        code too: a database made anew (tests) gives old ids to new tables, never an old code."""
        found = self._rounds.get((table_id, code))
        if found is not None and found.revision >= revision:
            return found
        now = TableNow.read(table_id)
        if now is None or now.table.code != code:
            return None
        return self.offer(TableRound(now))

    def offer(self, made: TableRound) -> TableRound:
        """``made``, kept as its table's push unless one as new is kept already (then that one)."""
        return self._rounds.put((made.now.table.pk, made.now.table.code), made,
                                unless=lambda current: current.revision >= made.revision)


ROUNDS_OF_THIS_PROCESS = _Rounds()


def push_frame(table_id: int, code: str, revision: int, socket: Socket) -> dict:
    """The frame of a push of ``revision`` for ``socket`` (the number alone if the table is gone)."""
    return push_frames_of(table_id, code, revision, [socket])[0]


def heartbeat_look(marks: dict[str, float], tables: list[tuple[int, str]]) -> dict[int, int]:
    """At a heartbeat: mark the sockets' phones present (``marks``, ``presence.marks``), move the revision of the
    tables whose screens would show presence otherwise (:func:`presence_moved`), and read each table's revision as
    it stands (one query), so the hub can tell which of its sockets missed a push, whatever lost it."""
    presence.seen_all(marks)
    presence_moved(tables)
    return dict(Table.objects.filter(pk__in=[table_id for table_id, _code in tables]).values_list("pk", "revision"))


def presence_moved(tables: list[tuple[int, str]]) -> list[int]:
    """Of these tables (id, code), those whose running game's asleep seats or seat-link notes (which expire) are no
    longer what their latest push in this process showed: each gets a new revision (once, whichever process sees
    it first), pushed as any change is, so a screen's revision orders everything it shows, presence included."""
    moved = []
    for table_id, code in tables:
        found = ROUNDS_OF_THIS_PROCESS.at(table_id, code, 0)
        running = found.now.running if found is not None else None
        if found is None or running is None:
            continue
        if (presence.asleep_seats(running, table_id), handover_notes(running)) != (
                found.now.asleep, found.now.handovers):
            with transaction.atomic():
                if table_notify_at(table_id=table_id, at=found.revision) is not None:
                    moved.append(table_id)
    return moved


def push_frames(table_id: int, code: str, revision: int, sockets: list[Socket]) -> list[tuple[int, str]]:
    """A push of ``revision`` for each of a table's ``sockets`` in this process: (the revision it shows, its
    frame as JSON text), drawn from one round (the rows read once; see :class:`TableRound`)."""
    return [(frame["v"], jsontext.text(frame)) for frame in push_frames_of(table_id, code, revision, sockets)]


def push_frames_of(table_id: int, code: str, revision: int, sockets: list[Socket]) -> list[dict]:
    """:func:`push_frames` as frames (the number alone where the table is gone), every socket's session read
    together."""
    found = ROUNDS_OF_THIS_PROCESS.at(table_id, code, revision)
    if found is None:
        return [{"v": revision} for _socket in sockets]
    viewers = viewers_of_sessions(sockets)
    frames: dict[int, dict] = {}
    for language in sorted({socket.language for socket in sockets}):  # each language's screens together
        with translation.override(language):
            frames.update((n, found.frame(socket, viewers[n])) for n, socket in enumerate(sockets)
                          if socket.language == language)
    return [frames[n] for n in range(len(sockets))]


def move_answer(table: Table, game: Game, viewer: Viewer, *, note: str = "") -> Screen:
    """The panel that answers a move, drawn from the push of the revision it made: the rows the move left
    (``table`` with that revision, ``game`` as the move saved it), read no more for the answer and every
    socket of this process, and its public fragments rendered once for both."""
    found = ROUNDS_OF_THIS_PROCESS.offer(TableRound(TableNow(table, game)))
    return phone_screen(found.now, viewer, note=note)
