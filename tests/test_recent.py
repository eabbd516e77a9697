"""``infra.recent.Recent``: a bounded map keeping the keys used last, one step under one lock."""

from __future__ import annotations

import threading

from infra.recent import Recent


def test_it_keeps_the_keys_used_last():
    kept: Recent[str] = Recent(2)
    kept.put("a", "A")
    kept.put("b", "B")
    assert kept.get("a") == "A"  # now "b" is the one used least lately
    kept.put("c", "C")
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == ("A", None, "C")


def test_put_unless_keeps_what_is_kept_when_asked():
    kept: Recent[int] = Recent(4)
    assert kept.put("t", 5) == 5
    assert kept.put("t", 3, unless=lambda current: current >= 3) == 5  # an older one does not replace it
    assert kept.put("t", 7, unless=lambda current: current >= 7) == 7
    assert kept.get("t") == 7


def test_threads_that_share_it_never_see_more_than_its_size():
    kept: Recent[int] = Recent(8)

    def fill(start: int) -> None:
        for n in range(start, start + 2000):
            kept.put(n % 50, n)
            kept.get((n * 7) % 50)

    threads = [threading.Thread(target=fill, args=(k * 10_000,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(kept._kept) == 8


def test_get_or_make_makes_a_value_only_for_a_key_it_does_not_hold():
    kept: Recent[list] = Recent(2)
    made: list[str] = []

    def make() -> list:
        made.append("made")
        return []

    first = kept.get_or_make("a", make)
    assert kept.get_or_make("a", make) is first and made == ["made"]
    kept.get_or_make("b", make)
    kept.get_or_make("c", make)  # "a" is the one used least lately: it goes
    assert kept.get("a") is None and made == ["made"] * 3
