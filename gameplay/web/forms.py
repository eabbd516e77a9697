"""The move form a phone posts: version, window, move id and the action (base JSON plus picked fields).

Reading it is the web layer's job (a malformed form is a 400 before any service sees it);
judging the move is ``gameplay.services.move_submit``'s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lobby.services import clean_token

MAX_ACTION_CHARS = 4000
MAX_ACTION_DEPTH = 8
_INT_FIELD = re.compile(r"-?[0-9]{1,11}")


def _coerce(value: str):
    """A form field's value: ASCII digits (one optional leading minus) are an int, anything else text."""
    text = value.strip()
    return int(text) if _INT_FIELD.fullmatch(text) else text


def _depth(value, limit: int) -> int:
    """How deeply lists and dicts nest in ``value`` (stops counting past ``limit``)."""
    if limit < 0 or not isinstance(value, list | dict):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(item, limit - 1) for item in items), default=0)


def parse_action(post) -> dict | None:
    """The action a move form sends: base JSON in ``action`` plus ``a.<key>``/``a.<key>[]`` fields.

    None (a 400) for anything malformed: too long, not JSON, not an object, nested deeper than
    any game's action (the JSON parser itself never sees thousands of brackets).
    """
    raw = post.get("action", "")
    if len(raw) > MAX_ACTION_CHARS or raw.count("[") + raw.count("{") > 4 * MAX_ACTION_DEPTH:
        return None
    try:
        action = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(action, dict) or _depth(action, MAX_ACTION_DEPTH) > MAX_ACTION_DEPTH:
        return None
    for key in post:
        if not key.startswith("a.") or len(key) > 40:
            continue
        name = key[2:]
        if name.endswith("[]"):
            action[name[:-2]] = [_coerce(v) for v in post.getlist(key)]
        else:
            action[name] = _coerce(post.get(key, ""))
    return action


class BadMoveForm(ValueError):
    """The posted move form is malformed (answered 400 "That move was malformed.")."""


@dataclass(frozen=True)
class MoveForm:
    """A move form as read: the screen's version (None: an answer in a window) and window, the move id, the action."""

    version: int | None
    window: str
    move_id: str | None
    action: dict


def read_move_form(post) -> MoveForm:
    """The fields of a posted move form; raises BadMoveForm for a version or action that cannot be read.

    A form with a window may leave the version empty: it answers that window, judged by the window alone.
    """
    window = post.get("window", "")[:80]
    raw = post.get("version", "")
    version: int | None = None
    if raw != "" or not window:
        try:
            version = int(raw)
        except ValueError as error:
            raise BadMoveForm("version") from error
        if version < 0 or version >= 2**31:
            raise BadMoveForm("version")
    action = parse_action(post)
    if action is None:
        raise BadMoveForm("action")
    # The response window the screen showed (compared with the open one, never stored).
    return MoveForm(version=version, window=window,
                    move_id=clean_token(post.get("move_id", "")) or None, action=action)
