"""A map that keeps the keys used last: what a process keeps of its tables (their latest push, their screens' parts)
and of the screens it drew, bounded, and shared by the threads that draw them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Recent(Generic[V]):
    """At most ``size`` keys, those used last; every call is one step under one lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value of ``key`` (now used last), or None."""
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value of ``key`` (now used last), else ``make()``, kept under it (made once, under the lock)."""
        with self._lock:
            value = self._kept.get(key)
            if value is None:
                value = self._kept[key] = make()
                self._trim()
            else:
                self._kept.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V, *, unless: Callable[[V], bool] | None = None) -> V:
        """``value`` kept under ``key`` and returned, unless ``key`` holds a value for which ``unless`` is true: then
        that one (nothing changes)."""
        with self._lock:
            current = self._kept.get(key)
            if current is not None and unless is not None and unless(current):
                self._kept.move_to_end(key)
                return current
            self._kept[key] = value
            self._kept.move_to_end(key)
            self._trim()
            return value

    def _trim(self) -> None:
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
