"""Hostile versions of legal actions, shared by the engine and the web fuzz tests.

Each function returns a list of ``(label, value)`` pairs: the label names the mutation (so a
failure report says what kind of input broke), the value is the mutated action or form.
Nothing here draws on the clock or the global RNG: callers pass a seeded ``random.Random``
or sample the lists themselves, so a failure found once is found again.

Many mutants are *not* illegal: a reordered dict, a tuple for a list or a swapped value may
be exactly a listed action. The tests decide with ``engines.base.canonical``, never here.
"""

from __future__ import annotations

import json
import math
import random
import re
import reprlib
from collections import OrderedDict
from typing import Any

DEEP = 50  # nested mutants that are still plain JSON
VERY_DEEP = 3000  # beyond the recursion limit: canonical() says "not JSON", nothing may crash
HUGE_INTS = [2**64, -(2**63), 2**63 - 1, 2**100, 10**5000]  # 10**5000 is too long for json.dumps
JUNK_STRINGS = ["", " ", "\x00", "ʇɐɹƃǝʇ 🃏", "\u202e1", "null", "true", "NaN", "[]", "{}", "-", "x" * 3000]

_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxstring, _repr.maxother, _repr.maxlist, _repr.maxdict = 4, 60, 60, 6, 6


def short(value: Any) -> str:
    """A bounded, never-raising repr for failure reports (deep, huge and odd values included)."""
    try:
        text = _repr.repr(value)
    except Exception:  # e.g. an int too long to print
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 300 else text[:300] + "…"


def very_deep(value: Any) -> list:
    """``value`` beside a chain of ``VERY_DEEP`` lists (the chain is built once and shared)."""
    return [value, _VERY_DEEP_CHAIN]


def nest_list(value: Any, depth: int) -> Any:
    """``value`` inside ``depth`` lists (built without recursion)."""
    for _ in range(depth):
        value = [value]
    return value


def nest_dict(value: Any, depth: int, key: str = "k") -> Any:
    """``value`` inside ``depth`` one-key dicts."""
    for _ in range(depth):
        value = {key: value}
    return value


_VERY_DEEP_CHAIN = nest_list(None, VERY_DEEP)
_CHAIN_SHAPE: list = []


def chain_intact() -> bool:
    """True while nobody has changed the shared very deep chain."""
    return _chain_shape() == _CHAIN_SHAPE


def _chain_shape() -> list:
    out, item = [], _VERY_DEEP_CHAIN
    while isinstance(item, list):
        out.append((id(item), len(item)))
        item = item[0] if item else None
    return out


def fingerprint(value: Any) -> list:
    """The identity and shape of every container under ``value`` (iterative: any depth).

    Two fingerprints differ if any list or dict was changed in place (an item replaced,
    added or removed), so comparing before and after a call proves the call left the
    caller's object alone. Scalars are immutable, so their identity is enough. The shared
    very deep chain counts as one item (``chain_intact`` checks it once, it is long to walk).
    """
    out: list = []
    stack = [value]
    while stack:
        item = stack.pop()
        if item is _VERY_DEEP_CHAIN:
            out.append(("chain", id(item)))
        elif isinstance(item, dict):
            out.append(("dict", id(item), len(item), tuple(id(k) for k in item), tuple(id(v) for v in item.values())))
            stack.extend(item.values())
        elif isinstance(item, list):
            out.append(("list", id(item), len(item), tuple(id(v) for v in item)))
            stack.extend(item)
        else:
            out.append(("atom", id(item)))
    return out


_CHAIN_SHAPE.extend(_chain_shape())


def value_mutants(value: Any) -> list[tuple[str, Any]]:
    """Replacements for one key's value: wrong JSON types, edge numbers, odd strings, nesting."""
    out: list[tuple[str, Any]] = []
    if isinstance(value, bool):
        out += [("bool_as_int", int(value)), ("bool_flipped", not value), ("bool_as_str", str(value).lower()),
                ("bool_as_float", float(value))]
    elif isinstance(value, int):
        out += [("int_as_float", float(value)), ("int_plus_half", value + 0.5), ("int_as_true", True),
                ("int_as_false", False), ("int_as_str", str(value)), ("int_padded_str", f" {value} "),
                ("int_negative", -value - 1), ("int_next", value + 1), ("negative_zero", -0.0),
                ("fullwidth_digit", chr(0xFF10 + value % 10)), ("superscript_two", "²"),
                ("int_as_float_str", f"{value}.0")]
        out += [(f"huge_int_{i}", huge) for i, huge in enumerate(HUGE_INTS)]
    elif isinstance(value, str):
        out += [("str_upper", value.upper()), ("str_trailing_space", value + " "), ("str_nul", value + "\x00"),
                ("str_empty", ""), ("str_homoglyph", value.replace("a", "\u0430").replace("e", "\u0435")),
                ("str_long", value * 1000), ("str_as_int", 0), ("str_as_bytes", value.encode()),
                ("str_as_list", list(value))]
    elif isinstance(value, list):
        out += [("list_empty", []), ("list_as_tuple", tuple(value)), ("list_reversed", value[::-1]),
                ("list_dup_first", value + value[:1]), ("list_drop_last", value[:-1]),
                ("list_items_float", [float(x) if _plain_int(x) else x for x in value]),
                ("list_items_bool", [bool(x) if _plain_int(x) else x for x in value]),
                ("list_items_str", [str(x) for x in value]), ("list_in_list", [value]),
                ("list_plus_huge", value + [2**64]), ("list_of_none", [None] * max(1, len(value))),
                ("list_as_index_dict", dict(enumerate(value)))]
        if value and _plain_int(value[0]):
            out.append(("list_first_as_true", [True, *value[1:]]))
    out += [("none", None), ("wrapped_in_list", [value]), ("wrapped_in_dict", {"value": value}),
            ("deep_list", nest_list(value, DEEP)), ("deep_dict", nest_dict(value, DEEP)),
            ("nan", math.nan), ("inf", math.inf), ("minus_inf", -math.inf), ("unicode", "ʇɐɹƃǝʇ 🃏"),
            ("very_deep_list", very_deep(value)), ("object", object()), ("set", {1, 2})]
    return out


def _plain_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def action_mutants(action: dict, others: list[dict] = ()) -> list[tuple[str, Any]]:
    """Mutated versions of one legal action (``others``: more legal actions to borrow values from)."""
    out: list[tuple[str, Any]] = []
    for key, value in action.items():
        for label, mutant in value_mutants(value):
            out.append((f"{key}:{label}", {**action, key: mutant}))
        rest = {k: v for k, v in action.items() if k != key}
        out.append((f"missing:{key}", rest))
        out.append((f"renamed:{key}", {**rest, key.upper(): value}))
        out.append((f"key_space:{key}", {**rest, key + " ": value}))
    types = sorted({other["type"] for other in others if isinstance(other.get("type"), str)} - {action["type"]})
    out += [(f"type_of:{t}", {**action, "type": t}) for t in types[:4]]
    for other in others[:4]:
        for key in other.keys() - {"type"}:
            out.append((f"borrowed:{key}", {**action, key: other[key]}))
    out += [
        ("extra_key", {**action, "extra": 1}),
        ("extra_empty_key", {**action, "": None}),
        ("extra_int_key", {**action, 1: "x"}),
        ("extra_bool_key", {**action, True: 1}),
        ("extra_nested", {**action, "meta": nest_dict([1], DEEP)}),
        ("keys_reversed", dict(reversed(list(action.items())))),
        ("ordered_dict", OrderedDict(action)),
        ("in_list", [action]),
        ("in_tuple", (action,)),
        ("in_dict", {"action": action}),
        ("as_json_text", json.dumps(action)),
        ("as_items", list(action.items())),
        ("deep_wrapped", nest_dict(action, DEEP, "action")),
        ("very_deep_wrapped", {**action, "deep": very_deep(None)}),
        ("none", None), ("zero", 0), ("float", 1.5), ("true", True), ("empty_str", ""), ("type_str", action["type"]),
        ("empty_list", []), ("empty_dict", {}), ("bytes", b"{}"), ("nan", math.nan),
    ]
    return out


def bad_seats(players: int) -> list[tuple[str, Any]]:
    """Seat values that name no seat (the engine must refuse them, never index with them)."""
    return [("minus_one", -1), ("minus_players", -players), ("players", players), ("players_plus_one", players + 1),
            ("true", True), ("false", False), ("none", None), ("float_zero", 0.0), ("float_one", 1.0),
            ("str_zero", "0"), ("huge", 2**64), ("huge_negative", -(2**63))]


# ---------------------------------------------------------------------------------------------
# Web forms: what a hostile phone can POST to /t/<code>/move/.

ASCII_INT = re.compile(r"-?[0-9]+")
FIELD_JUNK = ["²", "--1", "1.0", "true", "0x1", " 1 ", "１", "٣", "9" * 5000, "", "-", "+1", "1_0", "00", "-0",
              "1e3", "NaN", "null", "[1]", "\x00", "1\x00", "0\n", "ß", "ʇɐɹƃǝʇ 🃏", "x" * 3000, "-" * 20 + "1"]
VERSION_JUNK = ["", "abc", "1.0", "0x0", "-1", "9" * 10000, "0\x00", "\x00", "１", "²", "NaN", " ", "None", "[0]"]
MOVE_ID_JUNK = ["", "\x00" * 5, "../../etc", "ʇɐɹƃǝʇ", "a b", "<script>", "%00", "\n"]


def form_value_readings(text: str) -> list:
    """What the server may make of one ``a.<key>`` value: a string, or an int for ASCII digits.

    The contract: ASCII digits with at most one leading minus become an int, anything else
    stays a string. Whether surrounding spaces are stripped first is left open, so a padded
    value has several readings; a test only calls a post's legality sure when every reading agrees.
    """
    readings: list = [text]
    for candidate in {text, text.strip()}:
        if candidate != text:
            readings.append(candidate)
        if ASCII_INT.fullmatch(candidate) and len(candidate) < 12:
            readings.append(int(candidate))
    return readings


def json_text_mutants(action: dict, rng: random.Random) -> list[tuple[str, str]]:
    """Raw ``action`` field texts: broken, truncated, oversized, deep, duplicate keys, escapes."""
    text = json.dumps(action)
    key = next((k for k in action if k != "type"), "type")
    value = json.dumps(action[key])
    cut = rng.randrange(1, len(text)) if len(text) > 1 else 0
    return [
        ("not_json", action["type"]), ("js_object", "{type: " + action["type"] + "}"), ("truncated", text[:cut]),
        ("empty", ""), ("whitespace", "   "), ("bom", "\ufeff" + text), ("nul_inside", text[:-1] + "\x00}"),
        ("brackets_3000", "[" * 3000), ("brackets_closed_1500", "[" * 1500 + "]" * 1500),
        ("braces_1000", '{"a":' * 1000), ("deep_ok_40", "[" * 40 + text + "]" * 40),
        ("oversized", text + " " * 5000), ("long_string", json.dumps({**action, "pad": "x" * 3900})),
        ("huge_number", '{"type": ' + json.dumps(action["type"]) + ', "n": 1' + "0" * 3000 + "}"),
        ("big_exponent", text[:-1] + ', "n": 1e400}'), ("nan_literal", text[:-1] + ', "n": NaN}'),
        ("dup_key_bad_last", text[:-1] + f', "{key}": [{value}]}}'),
        ("dup_key_good_last", "{" + f'"{key}": 1.0, ' + text[1:]),
        ("escaped_keys", text.replace('"type"', '"\\u0074ype"')),
        ("list_of_action", f"[{text}]"), ("number", "1"), ("string", '"' + action["type"] + '"'), ("null", "null"),
        ("trailing_garbage", text + "x"), ("two_objects", text + text),
        ("lone_surrogate", text[:-1] + ', "s": "\\ud800"}'),
    ]
