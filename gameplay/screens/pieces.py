"""Public pieces of a table's screens, rendered again only when what they read has changed.

A public fragment of a screen (``gameplay.screens.table``) is the same for every screen of a table in a language,
and a template is a pure function of what it reads from its context. So a render records what it reads:
every name of its context and every key of a dict inside (``view.phase``, ``game.deadline_ms``, a seat's
vote), each as a path with the value it held. The next time, the piece is rendered again only if one of
those paths now holds another value; otherwise its bytes from last time are its bytes now. Lists are read
whole, and so is a dict that is iterated, measured or copied.

A fragment is a piece, and so is each element marked ``{% piece "id" %}…{% endpiece %}`` in its template:
a push sends a piece alone when only it changed (``Fragment.pieces``). What a piece shows must depend on
its context alone: never on the clock, the database or a request. The revision and the server's clock are
placeholders in the bytes (:data:`REVISION`, :data:`SERVER_NOW`), stamped as the bytes leave (:func:`stamp`).

With ``settings.SCREEN_PIECES_VERIFY`` (the tests) every reused piece is rendered again and compared, so a
piece that read something unrecorded fails loudly instead of going stale.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson
from django import template
from django.conf import settings
from django.template.context import Context
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

REVISION = "@@revision@@"
SERVER_NOW = "@@server-now@@"
TAG = "@@tag@@"
TAG_ATTR = f'data-tag="{TAG}"'
_STAMPS = re.compile(f"{REVISION}|{SERVER_NOW}")
_MISSING = "\x00missing"
# A path's last key when a dict or list was only asked whether it holds anything, how long it is, or whether
# it holds a value (("\x00in", value)): a seat's piece that asks "is seat 3 awaited?" changes only with that.
NONEMPTY = "\x00nonempty"
LENGTH = "\x00length"
HOLDS = "\x00in"


def stamp(html: str, revision: int) -> SafeString:
    """``html`` with the revision and the server's clock (ms) written in place of their placeholders."""
    if "@@" not in html:
        return mark_safe(html)  # noqa: S308 (rendered by our templates, autoescaped)
    now = str(int(time.time() * 1000))
    return mark_safe(_STAMPS.sub(lambda found: str(revision) if found.group(0) == REVISION else now, html))  # noqa: S308


def bytes_tag(html: str) -> str:
    return hashlib.blake2b(html.encode(), digest_size=12).hexdigest()


class Reads:
    """The paths a render read, each with the (plain) value it held."""

    __slots__ = ("paths", "_dicts")

    def __init__(self) -> None:
        self.paths: dict[tuple, Any] = {}
        self._dicts: dict[tuple, Tracked | TrackedList] = {}

    def forget_dicts(self) -> None:
        self._dicts.clear()

    def wrap(self, path: tuple, value: Any) -> Any:
        """``value`` as the template gets it: a dict or list tracked below ``path`` (one per path and render);
        anything else recorded whole."""
        kind = type(value)
        if kind in _LEAVES:
            self.paths[path] = value
            return value
        if kind is dict or kind is list or kind is Tracked or kind is TrackedList:
            value = _plain(value)
            made = self._dicts.get(path)
            if made is None or made.base is not value:
                made = self._dicts[path] = (Tracked if type(value) is dict else TrackedList)(value, path, self)
            return made
        self.paths[path] = value
        return value


_LEAVES = frozenset({str, int, bool, type(None), float})


def _plain(value: Any) -> Any:
    return value.base if isinstance(value, (Tracked, TrackedList)) else value


class TrackedList(list):
    """A list of a piece's context that records how the render reads it: an item, its length, whether it
    holds a value, or (iterated, sliced, compared) whole. A shallow copy, as :class:`Tracked`."""

    __slots__ = ("base", "path", "reads")

    def __init__(self, base: list, path: tuple, reads: Reads) -> None:
        super().__init__(base)
        self.base = base
        self.path = path
        self.reads = reads

    def _whole(self) -> None:
        self.reads.paths[self.path] = self.base

    def __getitem__(self, index):
        if not isinstance(index, int):
            self._whole()
            return self.base[index]
        try:
            value = self.base[index]
        except IndexError:
            self.reads.paths[(*self.path, index)] = _MISSING
            raise
        return self.reads.wrap((*self.path, index), value)

    def __contains__(self, value) -> bool:
        value = _plain(value)
        try:
            hash(value)
        except TypeError:
            self._whole()
            return value in self.base
        held = value in self.base
        self.reads.paths[(*self.path, (HOLDS, value))] = held
        return held

    def __len__(self) -> int:
        self.reads.paths[(*self.path, LENGTH)] = len(self.base)
        return len(self.base)

    def __bool__(self) -> bool:
        self.reads.paths[(*self.path, NONEMPTY)] = bool(self.base)
        return bool(self.base)

    def __iter__(self) -> Iterator:
        self._whole()
        return iter(self.base)

    def __reversed__(self) -> Iterator:
        self._whole()
        return reversed(self.base)

    def __eq__(self, other) -> bool:
        self._whole()
        return self.base == _plain(other)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> list:
        self._whole()
        return list(self.base)

    def index(self, *args):  # type: ignore[override]
        self._whole()
        return self.base.index(*args)

    def count(self, value) -> int:
        self._whole()
        return self.base.count(value)

    def __reduce__(self):
        self._whole()
        return list, (list(self.base),)


class Tracked(dict):
    """A dict of a piece's context that records which of its keys the render reads (a shallow copy, so code
    that reads it below Python's methods still gets its values; only then would a read go unrecorded)."""

    __slots__ = ("base", "path", "reads")

    def __init__(self, base: dict, path: tuple, reads: Reads) -> None:
        super().__init__(base)
        self.base = base
        self.path = path
        self.reads = reads

    def _whole(self) -> None:
        self.reads.paths[self.path] = self.base

    def __getitem__(self, key):
        try:
            value = self.base[key]
        except KeyError:
            self.reads.paths[(*self.path, key)] = _MISSING
            raise
        return self.reads.wrap((*self.path, key), value)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator:
        self._whole()
        return super().__iter__()

    def keys(self):
        self._whole()
        return super().keys()

    def values(self):
        self._whole()
        return super().values()

    def items(self):
        self._whole()
        return super().items()

    def __len__(self) -> int:
        self._whole()
        return super().__len__()

    def __bool__(self) -> bool:
        self.reads.paths[(*self.path, NONEMPTY)] = bool(self.base)
        return bool(self.base)

    def __eq__(self, other) -> bool:
        self._whole()
        return self.base == _plain(other)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> dict:
        self._whole()
        return dict(self.base)

    def __reduce__(self):
        self._whole()
        return dict, (dict(self.base),)


class TrackingContext(Context):
    """A template context whose names, as they stood when the piece began (its outer names), are recorded
    when read; the names the piece sets itself ({% with %}, loops, includes) are made from what it read."""

    reads: Reads
    outer: int
    language: str  # the language it is rendered in (its pieces' key in the store)
    store: Store | None
    entry: dict  # the piece's context as plain data (what its outer names hold)
    inner: list[tuple[Inner, Made]]

    @classmethod
    def around(cls, entry: dict, reads: Reads, store: Store | None, template: Any = None,
               language: str = "") -> TrackingContext:
        # Numbers as they are: Django's localizing of each number asks for the language and three formats, and gives
        # the same text for ours (whole numbers, no thousands separator in any of our languages; no piece shows a
        # bare date); the language's own digits are written afterwards ({% nativedigits %}).
        made = cls(entry, use_l10n=False)
        made.language = language
        made.template = template
        made.reads = reads
        made.outer = len(made.dicts)
        made.store = store
        made.entry = entry
        made.inner = []  # the inner pieces its render meets, in order
        return made

    def __getitem__(self, key):
        dicts = self.dicts
        for level in range(len(dicts) - 1, self.outer - 1, -1):
            if key in dicts[level]:
                return dicts[level][key]
        if key in self.entry:
            return self.reads.wrap((key,), self.entry[key])
        if key in dicts[0]:
            return dicts[0][key]  # True, False, None
        self.reads.paths[(key,)] = _MISSING
        raise KeyError(key)

    def get(self, key, otherwise=None):
        try:
            return self[key]
        except KeyError:
            return otherwise

    def __contains__(self, key) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def flatten(self) -> dict:
        flat = super().flatten()
        for key in flat:
            self.get(key)  # recorded where it is an outer name
        return flat

    def names(self) -> tuple[tuple[str, bool, Any], ...]:
        """What an inner piece beginning here sees: each name with where it comes from, (name, True, path of
        this piece's entry) for what this piece reads from outside, else (name, False, value), a value the
        piece made from what it read ({% with %}, a loop's item)."""
        seen: dict[str, tuple[str, bool, Any]] = {}
        for level in range(1, len(self.dicts)):
            for name, value in self.dicts[level].items():
                if level < self.outer:
                    seen[name] = (name, True, (name,))
                else:
                    seen[name] = _seen_as(self.reads, name, value)
        return tuple(seen.values())


def _walk(value: Any, keys: tuple) -> Any:
    for key in keys:
        try:
            if key == NONEMPTY:
                value = bool(value)
            elif key == LENGTH:
                value = len(value)
            elif type(key) is tuple:  # (HOLDS, item)
                value = key[1] in value
            else:
                value = value[key]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"a piece read a value that is not plain data: {type(value).__name__}")


def _seen(values: list) -> str | None:
    """What a render read, as text to compare the next time with (``repr``: for plain data, a different value
    gives a different text, ``1``, ``1.0`` and ``True`` included), or None when it read what is not plain data
    (then the piece is rendered every time)."""
    try:
        orjson.dumps(values, default=_json_default, option=_PLAIN_ONLY)
    except TypeError:  # orjson's refusal (JSONEncodeError) is one
        return None
    return repr(values)


# What the check of plain data lets through as JSON does (text keys or not), and asks ``_json_default`` about the rest.
_PLAIN_ONLY = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


@dataclass(frozen=True)
class Inner:
    """Where an inner piece stands in its outer piece: its id, what it sees there (``TrackingContext.names``),
    and how to render it (its template's nodes, in its template, with the digits of the language around it)."""

    id: str
    names: tuple[tuple[str, bool, Any], ...]
    render: Callable[[Context], str]
    template: Any

    def entry(self, outer: dict) -> dict:
        """The inner piece's context, as plain data, from its outer piece's."""
        return {name: _walk(outer, payload) if outer_name else payload
                for name, outer_name, payload in self.names}


@dataclass(frozen=True)
class Made:
    """A piece as last rendered: what it read itself (paths and what they held, :func:`_seen`), its bytes with a
    marker for each inner piece (``shell``), and its inner pieces as they were made. ``whole``: a piece inside a
    fragment, which a push sends whole (its tag the digest of all its bytes); a fragment's own tag is its shell's,
    as a push sends the pieces inside it apart."""

    paths: tuple[tuple, ...]
    seen: str | None
    shell: str
    inner: tuple[tuple[Inner, Made], ...] = ()
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
        """Its bytes, every inner piece in place."""
        return self._filled(self.tag)

    @property
    def pieces(self) -> dict[str, tuple[str, str]]:
        """Its inner pieces, {id: (tag, bytes)}, in order."""
        return {place.id: (made.tag, made.html) for place, made in self.inner}


class Store:
    """The pieces of a table's public fragments as last rendered, per element id and language."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], Made] = {}

    def get(self, key: tuple[str, str]) -> Made | None:
        return self._made.get(key)

    def put(self, key: tuple[str, str], made: Made) -> None:
        self._made[key] = made


PIECE_TABLES = 512  # tables whose pieces this process keeps


class _Stores:
    """Each table's :class:`Store` in this process (the ``PIECE_TABLES`` used last)."""

    def __init__(self) -> None:
        self._stores: OrderedDict[tuple[int, str], Store] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, table_id: int, code: str) -> Store:
        key = (table_id, code)  # a database made anew (tests) gives old ids to new tables, never an old code
        with self._lock:
            store = self._stores.get(key)
            if store is None:
                store = self._stores[key] = Store()
                while len(self._stores) > PIECE_TABLES:
                    self._stores.popitem(last=False)
            else:
                self._stores.move_to_end(key)
            return store


STORES = _Stores()


def made_piece(piece_id: str, store: Store | None, entry: dict, render: Callable[[Context], str],
               template: Any = None, *, whole: bool = False, language: str | None = None) -> Made:
    """The piece ``piece_id`` for its context ``entry`` (plain data), from ``store`` when nothing it read has
    changed since its last render (its inner pieces checked, and made again, alone), else rendered by ``render``
    (given a context that records reads) and kept. Without a store it is simply rendered."""
    language = (translation.get_language() or "") if language is None else language
    key = (piece_id, language)
    known = store.get(key) if store is not None else None
    if known is None or known.seen is None or repr([_walk(entry, path) for path in known.paths]) != known.seen:
        made = _render(entry, store, render, template, whole, language)
    else:
        inner = tuple((place, made_piece(place.id, store, place.entry(entry), place.render, place.template,
                                         whole=True, language=language)) for place, _made in known.inner)
        if all(now is then for (_place, now), (_place2, then) in zip(inner, known.inner, strict=True)):
            return known
        made = Made(known.paths, known.seen, known.shell, inner, known.whole)  # the same shell, new pieces in it
    if store is not None:
        store.put(key, made)
    return made


def _render(entry: dict, store: Store | None, render: Callable[[Context], str], template: Any, whole: bool,
            language: str) -> Made:
    reads = Reads()
    tracking = TrackingContext.around(entry, reads, store, template, language)
    try:
        with tracking.push(tag=TAG, revision=REVISION, server_now=SERVER_NOW):  # what leaves as placeholders
            shell = render(tracking)
    finally:
        # Its tracked dicts and lists point back at ``reads``: let go of them, so they are freed now rather than
        # left to the garbage collector as cycles (hundreds a push, each collection the more frequent for them).
        reads.forget_dicts()
    paths = tuple(reads.paths)
    return Made(paths, _seen([reads.paths[path] for path in paths]), shell, tuple(tracking.inner), whole)


def _marker(number: int) -> str:
    """Where an inner piece goes in its outer piece's bytes: no digits, which a language's own would replace."""
    return "\x00" + "".join(chr(ord("a") + int(digit)) for digit in str(number)) + "\x00"


def render_fragment(fragment_id: str, store: Store | None, context: dict, render: Callable[[Context], str],
                    language: str | None = None) -> Made:
    """A public fragment (itself a piece) with its inner pieces, from ``store`` where nothing they read changed.
    ``render`` renders the fragment's template with the Context it is given (one that records reads)."""
    language = language or translation.get_language() or ""
    known = store.get((fragment_id, language)) if store is not None else None
    made = made_piece(fragment_id, store, context, render, language=language)
    reused = known is not None and (made is known or made.shell == known.shell)  # some of it not rendered now
    if reused and getattr(settings, "SCREEN_PIECES_VERIFY", False):
        fresh = made_piece(fragment_id, None, context, render, language=language)
        if fresh.html != made.html:
            raise AssertionError(f"piece {fragment_id} was reused but reads something it did not record:\n"
                                 f"kept:  {made.html[:3000]}\nfresh: {fresh.html[:3000]}")
    return made


# Set in the render context by {% nativedigits %} (game_tags): the function that writes a piece's digits in the
# page language's own, as the tag around the piece would have.
DIGITS_KEY = "pieces.native_digits"


def _digits_around(context: Context) -> Callable[[str], str] | None:
    """The {% nativedigits %} around a piece: in its own template, or in one that includes it (each included
    template renders with render state of its own, pushed above its includer's)."""
    for state in reversed(context.render_context.dicts):
        if DIGITS_KEY in state:
            return state[DIGITS_KEY]
    return None


def _seen_as(reads: Reads, name: str, value: Any) -> tuple[str, bool, Any]:
    """How an inner piece sees ``name`` (``TrackingContext.names``): where in the outer piece's entry it was read,
    or the value the outer piece made."""
    if isinstance(value, (Tracked, TrackedList)) and value.reads is reads:
        return (name, True, value.path)
    return (name, False, _plain(value))


def place_piece(context: Context, piece_id: str, body: Callable[[Context], str], made_here: dict | None = None) -> str:
    """The piece ``piece_id``, its bytes rendered by ``body`` from a context. Inside a public fragment (a
    :class:`TrackingContext`) it is made or reused (:func:`made_piece`) and stands in its outer piece's bytes as a
    marker; elsewhere it is an element like any other. It sees the names of ``context``, and ``made_here``: names a
    Jinja template made itself (a loop's item), which Django's context does not hold."""
    made_here = made_here or {}
    native = _digits_around(context)
    if not isinstance(context, TrackingContext):  # not inside a public fragment: an element like any other
        with context.push(tag=TAG, **made_here):
            html = body(context)
        html = native(html) if native is not None else html
        return html.replace(TAG_ATTR, f'data-tag="{bytes_tag(html)}"', 1)

    def render(tracking: Context) -> str:
        if native is not None:  # for the pieces inside it, rendered in contexts of their own
            tracking.render_context[DIGITS_KEY] = native
        html = body(tracking)
        return native(html) if native is not None else html  # as the {% nativedigits %} around it would

    names = context.names() + tuple(_seen_as(context.reads, name, value) for name, value in made_here.items())
    place = Inner(piece_id, names, render, context.template)
    made = made_piece(piece_id, context.store, place.entry(context.entry), render, context.template, whole=True,
                      language=context.language)
    context.inner.append((place, made))
    return _marker(len(context.inner) - 1)


class PieceNode(template.Node):
    def __init__(self, nodelist: template.NodeList, piece_id: list[template.base.FilterExpression]) -> None:
        self.nodelist = nodelist
        self.piece_id = piece_id

    def render(self, context: Context) -> str:
        piece_id = "".join(str(part.resolve(context)) for part in self.piece_id)
        return place_piece(context, piece_id, self.nodelist.render)


register = template.Library()


@register.tag
def piece(parser, token):
    """``{% piece "bv-seat-" s.index %}<li id="bv-seat-{{ s.index }}" data-tag="{{ tag }}">…</li>{% endpiece %}``:
    an element of a public fragment that a push may send alone, rendered again only when what it reads has
    changed (see the module). Its one element carries the id (its parts joined) and ``data-tag="{{ tag }}"``."""
    bits = token.split_contents()
    if len(bits) < 2:
        raise template.TemplateSyntaxError("piece takes the element's id")
    nodelist = parser.parse(("endpiece",))
    parser.delete_first_token()
    return PieceNode(nodelist, [parser.compile_filter(bit) for bit in bits[1:]])
