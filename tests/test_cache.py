"""The Redis cache keeps one client (and connection pool) per process, across threads and requests."""

from __future__ import annotations

import contextvars
import os
import threading

import pytest
from django.core.cache import caches
from django.test import override_settings

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
SHARED = {"default": {"BACKEND": "infra.cache.SharedRedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "cachetest"}}


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


SESSIONS_ON_REDIS = {"SESSION_ENGINE": "infra.sessions", "CACHES": SHARED}


def _session_reads(client, path="/"):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return [q["sql"] for q in captured.captured_queries if "django_session" in q["sql"]]


@pytest.mark.django_db
def test_sessions_come_from_the_shared_cache_and_survive_it_failing(client, settings):
    """With Redis, a page reads its session from the cache (no session query); with the cache
    gone, sessions still work from the database, and a guest keeps their seat at the table."""
    import infra.resilience as resilience

    settings.SESSION_ENGINE = SESSIONS_ON_REDIS["SESSION_ENGINE"]
    settings.CACHES = SHARED
    caches["default"].clear()
    try:
        assert client.post("/guest/", {"nickname": "Cached", "next": "/"}).status_code == 302
        assert _session_reads(client) == []  # the session came from Redis
        assert "Cached" in client.get("/").content.decode()
        # Redis goes away (nothing listens on port 1): the session comes from the database.
        settings.CACHES = {"default": dict(SHARED["default"], LOCATION="redis://127.0.0.1:1/0",
                                           OPTIONS={"socket_timeout": 0.2, "socket_connect_timeout": 0.2})}
        assert _session_reads(client), "the session was read from the database"
        assert "Cached" in client.get("/").content.decode()
    finally:
        resilience._skip_until = 0.0
        settings.CACHES = SHARED
        caches["default"].clear()


def test_the_in_process_cache_holds_a_whole_cafe_of_phones():
    """Without Redis, sessions, presence marks and board partials share this process's cache: 200
    tables (1,400 phones, boards in three languages) fit, so no phone loses its session copy or reads as asleep."""
    from django.conf import settings

    if "LocMemCache" not in settings.CACHES["default"]["BACKEND"]:
        pytest.fail("the tests run without REDIS_URL: the in-process cache is the one under test")
    cache = caches["default"]
    cache.clear()
    keys = [f"session:{n}" for n in range(1400)] + [f"presence:{n}" for n in range(1400)]
    keys += [f"board:{table}:{language}" for table in range(200) for language in ("en", "fa", "ja")]
    for key in keys:
        cache.set(key, key)
    found = cache.get_many(keys)
    cache.clear()
    assert len(found) == len(keys), f"{len(keys) - len(found)} of {len(keys)} entries were evicted"


@override_settings(CACHES=SHARED)
def test_every_command_goes_through_one_redis_object_per_pool():
    cache = caches["default"]
    cache.set("k", 1)
    client = cache._cache
    first = client.get_client("k")
    assert cache.get("k") == 1 and cache.get_many(["k"]) == {"k": 1}
    assert client.get_client("k") is first and client.get_client("k", write=True) is first
    cache.delete("k")
