"""The Redis cache with one client per process.

Django keeps a cache object per thread *and* per request context (``django.core.cache.caches``
is an asgiref ``Local``), and its Redis client, with its connection pool, lives on that object.
Pages run on a fixed pool of threads (``config/asgi.py``), but each request runs in a fresh
context, so the stock backend built a client and opened a new Redis connection for every
request (about a tenth of a page's CPU under load, docs/performance.md). redis-py's clients and
pools are thread-safe, so one per process serves every thread.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache
from django.utils.functional import cached_property

_clients: dict[tuple, Any] = {}
_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    """Django's ``RedisCache`` whose client is shared by every thread and request of the process."""

    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
