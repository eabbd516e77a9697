"""JSON text made fast (orjson): a push's frames, and the digests that tag what a screen shows.

A push encodes a frame for every socket of a table and digests each phone's own context (its tag), so the
standard library's encoder was about a twentieth of a move's CPU on a busy server (docs/performance.md).
orjson gives the same JSON for plain data, several times faster.
"""

from __future__ import annotations

import json
from datetime import date, time
from typing import Any

import orjson

_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def text(value: Any) -> str:
    """``value`` (plain data: dicts, lists, strings, numbers, booleans, None) as compact JSON text."""
    return orjson.dumps(value).decode()


def sorted_bytes(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON with every dict's keys as text and in order, so equal data gives equal
    bytes whatever order its dicts were filled in; a date by its ISO 8601 text, any other value JSON has no type
    for by its ``str``. What orjson refuses (an integer past 64 bits) the standard library writes instead, in
    the same form."""
    try:
        return orjson.dumps(value, default=str, option=_SORTED)
    except TypeError:
        return json.dumps(_text_keys(value), sort_keys=True, default=_iso_or_str, separators=(",", ":"),
                          ensure_ascii=False).encode()


def _iso_or_str(value: Any) -> str:
    return value.isoformat() if isinstance(value, (date, time)) else str(value)


def _text_keys(value: Any) -> Any:
    """``value`` with every dict's keys as text (as orjson writes them, so the two sort alike)."""
    if isinstance(value, dict):
        return {key if isinstance(key, str) else json.dumps(key).strip('"'): _text_keys(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_text_keys(item) for item in value]
    return value
