"""Public parts of a table's screens, each rendered from the plain data it is given, and again only when that
data changed.

A public fragment of a screen (``screens.table.Fragment``: the board, the phone's head and public part) is the
same for every screen of a table in a language, and so is each element its templates mark as a piece,
``piece("bv-seat-3", "games/<game>/board_seat.jinja", part=parts["bv-seat-3"])``. Each is rendered from a plain
dict and nothing else: a piece from its ``part`` (a game's ``presentation.public_parts``, the board's head and
log), a fragment from its context of projections. Its tag is the digest of that dict (with its template and
language), so whether it is rendered again is decided by the code that built its dict, never by what a
template happened to read. A fragment's pieces come from the table's map of parts (element id → dict): a
fragment whose own dict did not change keeps its bytes, and each piece it placed is made again from its entry
in that map, alone, only if that entry changed. A push sends a piece alone when only it changed
(``Fragment.pieces``).

What a part shows must depend on its dict alone: never on the clock, the database or a request. The revision and
the server's clock are placeholders in the bytes (:data:`REVISION`, :data:`SERVER_NOW`), stamped as the bytes
leave (:func:`stamp`). With ``settings.SCREEN_PIECES_VERIFY`` (the tests) every fragment made with a reused
part is rendered afresh and compared, so a template that reads what its dict does not hold fails loudly.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from infra import jsontext
from infra.recent import Recent

REVISION = "@@revision@@"
SERVER_NOW = "@@server-now@@"
TAG = "@@tag@@"
TAG_ATTR = f'data-tag="{TAG}"'
_STAMPS = re.compile(f"{REVISION}|{SERVER_NOW}")
# What a part's template is given beside its dict: placeholders, filled as the bytes leave.
PLACEHOLDERS = {"tag": TAG, "revision": REVISION, "server_now": SERVER_NOW}


def stamp(html: str, revision: int) -> SafeString:
    """``html`` with the revision and the server's clock (ms) written in place of their placeholders."""
    if "@@" not in html:
        return mark_safe(html)  # noqa: S308 (rendered by our templates, autoescaped)
    now = str(int(time.time() * 1000))
    return mark_safe(_STAMPS.sub(lambda found: str(revision) if found.group(0) == REVISION else now, html))  # noqa: S308


def bytes_tag(html: str) -> str:
    return hashlib.blake2b(html.encode(), digest_size=12).hexdigest()


def data_tag(*data: Any) -> str:
    """The digest of a part's input (its template, language and dict: plain data)."""
    return hashlib.blake2b(jsontext.sorted_bytes(list(data)), digest_size=12).hexdigest()


Render = Callable[[dict], str]  # a part's template rendered from a context dict


@dataclass(frozen=True)
class Place:
    """Where a piece stands in its fragment: its id, its template and how to render it (digits of its language)."""

    id: str
    template: str
    render: Render


@dataclass(frozen=True)
class Made:
    """A part as last rendered: the digest of what it was made from (``own``), its bytes with a marker for each piece
    inside it (``shell``), and those pieces as they were made. ``whole``: a piece, which a push sends whole (its tag
    the digest of all its bytes); a fragment's own tag is its shell's, as a push sends the pieces inside it apart."""

    own: str
    shell: str
    inner: tuple[tuple[Place, Made], ...] = ()
    whole: bool = False

    def _filled(self, tag: str) -> str:
        html = self.shell.replace(TAG_ATTR, f'data-tag="{tag}"', 1)
        for number, (_place, made) in enumerate(self.inner):
            html = html.replace(_marker(number), made.html, 1)
        return html

    @cached_property
    def tag(self) -> str:
        return bytes_tag(self._filled(TAG) if self.whole and self.inner else self.shell)

    @cached_property
    def html(self) -> str:
        """Its bytes, every piece in place."""
        return self._filled(self.tag)

    @property
    def pieces(self) -> dict[str, tuple[str, str]]:
        """Its pieces, {id: (tag, bytes)}, in order."""
        return {place.id: (made.tag, made.html) for place, made in self.inner}


class Store:
    """The parts of a table's public fragments as last rendered, per element id and language."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], Made] = {}

    def get(self, key: tuple[str, str]) -> Made | None:
        return self._made.get(key)

    def put(self, key: tuple[str, str], made: Made) -> None:
        self._made[key] = made


PIECE_TABLES = 512  # tables whose parts this process keeps


class _Stores:
    """Each table's :class:`Store` in this process (the ``PIECE_TABLES`` used last)."""

    def __init__(self) -> None:
        self._stores: Recent[Store] = Recent(PIECE_TABLES)

    def of(self, table_id: int, code: str) -> Store:
        key = (table_id, code)  # a database made anew (tests) gives old ids to new tables, never an old code
        return self._stores.get_or_make(key, Store)


STORES = _Stores()


@dataclass
class _Making:
    """A part being rendered: where its pieces are kept, the map they are made from, and the pieces it placed."""

    store: Store | None
    parts: dict
    language: str
    inner: list[tuple[Place, Made]] = field(default_factory=list)


_MAKING: contextvars.ContextVar[_Making | None] = contextvars.ContextVar("screens_part_making", default=None)


def made_part(part_id: str, template: str, data: dict, render: Render, *, store: Store | None, parts: dict,
              language: str, whole: bool = False) -> Made:
    """The part ``part_id`` (``template`` rendered from ``data``): from ``store`` when its data is what it was made
    from last (its pieces made again, alone, where their entries in ``parts`` changed), else rendered and kept."""
    own = data_tag(template, language, data)
    known = store.get((part_id, language)) if store is not None else None
    if known is None or known.own != own:
        made = _render(own, data, render, store, parts, language, whole)
    else:
        inner = tuple((place, made_part(place.id, place.template, {"part": parts.get(place.id)}, place.render,
                                        store=store, parts=parts, language=language, whole=True))
                      for place, _made in known.inner)
        if all(now is then for (_place, now), (_place2, then) in zip(inner, known.inner, strict=True)):
            return known
        made = Made(known.own, known.shell, inner, known.whole)  # the same shell, new pieces in it
    if store is not None:
        store.put((part_id, language), made)
    return made


def _render(own: str, data: dict, render: Render, store: Store | None, parts: dict, language: str,
            whole: bool) -> Made:
    making = _Making(store, parts, language)
    token = _MAKING.set(making)
    try:
        # A fragment's template places its pieces from the table's parts, which are no part of its own data.
        shell = render({**data, **PLACEHOLDERS} if whole else {**data, "parts": parts, **PLACEHOLDERS})
    finally:
        _MAKING.reset(token)
    return Made(own, shell, tuple(making.inner), whole)


def _marker(number: int) -> str:
    """Where a piece goes in its fragment's bytes: no digits, which a language's own would replace."""
    return "\x00" + "".join(chr(ord("a") + int(digit)) for digit in str(number)) + "\x00"


def render_fragment(fragment_id: str, template: str, data: dict, render: Render, *, store: Store | None,
                    parts: dict, language: str) -> Made:
    """A public fragment with its pieces, from ``store`` where what each is made from did not change. ``data``: all
    the fragment shows but its pieces; ``parts``: the table's map its pieces are made from (its template gets them
    as ``parts``, to place them: ``piece(id, template, part=parts[id])``)."""
    known = store.get((fragment_id, language)) if store is not None else None
    made = made_part(fragment_id, template, data, render, store=store, parts=parts, language=language)
    reused = known is not None and (made is known or made.shell == known.shell)  # some of it not rendered now
    if reused and getattr(settings, "SCREEN_PIECES_VERIFY", False):
        fresh = made_part(fragment_id, template, data, render, store=None, parts=parts, language=language)
        if fresh.html != made.html:
            raise AssertionError(f"part {fragment_id} was reused but shows what its data does not hold:\n"
                                 f"kept:  {made.html[:3000]}\nfresh: {fresh.html[:3000]}")
    return made


# The nativedigits around the piece being rendered (``game_tags.in_native_digits``), for the pieces inside it: each
# is rendered apart, and a push may send it alone, so it writes its digits itself.
_DIGITS: contextvars.ContextVar[Callable[[str], str] | None] = contextvars.ContextVar("piece_digits", default=None)


def digits_now() -> Callable[[str], str] | None:
    """The function that writes digits as the ``nativedigits`` around what is being rendered now (None: none)."""
    return _DIGITS.get()


@contextlib.contextmanager
def digits_written(digits: Callable[[str], str] | None) -> Iterator[None]:
    """While it lasts, pieces rendered write their digits with ``digits``."""
    token = _DIGITS.set(digits)
    try:
        yield
    finally:
        _DIGITS.reset(token)


def place_piece(piece_id: str, template: str, data: dict, render: Render,
                digits: Callable[[str], str] | None) -> str:
    """The piece ``piece_id``: ``template`` rendered from its ``data`` (its ``part``) alone, its digits written by
    ``digits`` (the ``nativedigits`` around it). Inside a public fragment being made it is made or reused and stands
    in the fragment's bytes as a marker; elsewhere it is an element like any other."""

    def rendered(context: dict) -> str:
        with digits_written(digits):
            html = render(context)
        return digits(html) if digits is not None else html

    making = _MAKING.get()
    if making is None:  # not inside a public fragment: an element like any other
        html = rendered({"part": data, **PLACEHOLDERS})
        return html.replace(TAG_ATTR, f'data-tag="{bytes_tag(html)}"', 1)
    if making.parts.get(piece_id) != data:
        raise ValueError(f"the piece {piece_id} is given a part that is not the table's parts[{piece_id!r}]: it could "
                         "not be made again from them alone")
    place = Place(piece_id, template, rendered)
    made = made_part(piece_id, template, {"part": data}, rendered, store=making.store, parts=making.parts,
                     language=making.language, whole=True)
    making.inner.append((place, made))
    return _marker(len(making.inner) - 1)
