"""The Redis cache keeps one client (and connection pool) per process, across threads and requests."""

from __future__ import annotations

import contextvars
import os
import threading

from django.core.cache import caches
from django.test import override_settings

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
SHARED = {"default": {"BACKEND": "config.cache.SharedRedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "cachetest"}}


@override_settings(CACHES=SHARED)
def test_every_thread_and_request_context_uses_one_redis_client():
    seen = []

    def one_request():
        cache = caches["default"]  # a fresh cache object per thread and context, as in a request
        cache.set("k", 1)
        assert cache.get("k") == 1
        seen.append((id(cache), cache._cache))

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(one_request,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    contextvars.copy_context().run(one_request)
    assert len(seen) == 5
    assert len({id(client) for _, client in seen}) == 1, "each request built its own Redis client"
    caches["default"].delete("k")
