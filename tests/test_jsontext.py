"""JSON text for frames and digests (infra/jsontext.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from infra import jsontext


def test_equal_data_gives_equal_bytes_whatever_order_its_dicts_were_filled_in():
    one = {"b": 1, "a": {"y": [1, 2], "x": None}, 3: "three", 1: "one"}
    other = {1: "one", 3: "three", "a": {"x": None, "y": [1, 2]}, "b": 1}
    assert jsontext.sorted_bytes(one) == jsontext.sorted_bytes(other)
    assert json.loads(jsontext.sorted_bytes(one)) == {"1": "one", "3": "three", "a": {"x": None, "y": [1, 2]}, "b": 1}
    assert jsontext.sorted_bytes({"a": 1}) != jsontext.sorted_bytes({"a": 1.0}) != jsontext.sorted_bytes({"a": True})


def test_what_orjson_refuses_is_written_the_same_way_by_the_standard_library():
    big = 2**100
    assert jsontext.sorted_bytes({"seed": big, 2: "x", "b": [1]}) == b'{"2":"x","b":[1],"seed":%d}' % big
    assert jsontext.sorted_bytes({"seed": big, "b": 1}) == jsontext.sorted_bytes({"b": 1, "seed": big})
    when = datetime(2026, 12, 4, 1, 2, 3, 456, tzinfo=UTC)
    assert jsontext.sorted_bytes([when]) != jsontext.sorted_bytes([when.replace(second=4)])
    # Either way, the same form: keys as orjson writes them, dates in ISO 8601, text as itself.
    plain = {"d": when, True: 1, None: 2, 1.5: "«日»"}
    assert jsontext.sorted_bytes(plain) == (
        '{"1.5":"«日»","d":"2026-12-04T01:02:03.000456+00:00","null":2,"true":1}').encode()
    assert jsontext.sorted_bytes({**plain, "n": big}) == (
        f'{{"1.5":"«日»","d":"2026-12-04T01:02:03.000456+00:00","n":{big},"null":2,"true":1}}').encode()


def test_frames_are_json_text_the_page_reads_back():
    frame = {"v": 7, "f": {"pv-head": '<p class="x">«Ja» 日本 \u200f</p>'}, "t": {"pv-head": "abc"}}
    assert json.loads(jsontext.text(frame)) == frame
