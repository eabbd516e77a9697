"""The Redis cache with one client per process.

Django keeps a cache object per thread *and* per request context (``django.core.cache.caches``
is an asgiref ``Local``), and its Redis client, with its connection pool, lives on that object.
Pages run on a fixed pool of threads (``config/asgi.py``), but each request runs in a fresh
context, so the stock backend builds a client and opens a new Redis connection for every
request. redis-py's clients and pools are thread-safe, so one per process serves every thread.
Django's client also builds a ``redis.Redis`` object around its pool for every single command;
:class:`SharedClient` builds one per pool and keeps it. (What both cost under load:
docs/performance.md.)
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[tuple, Any] = {}
_lock = threading.Lock()


class SharedClient(RedisCacheClient):
    """Django's Redis cache client, with one ``redis.Redis`` per connection pool for all its commands."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._redis: dict[int, Any] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._redis.get(id(pool))
        if client is None:
            client = self._redis.setdefault(id(pool), self._client(connection_pool=pool))
        return client


class SharedRedisCache(RedisCache):
    """Django's ``RedisCache`` whose client is shared by every thread and request of the process."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = SharedClient

    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
