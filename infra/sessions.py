"""Sessions read from the cache (Redis, or this process's memory) first, kept in the database: one query fewer per page.

Django's ``cached_db`` store, with every cache call behind :func:`infra.resilience.cache_guard`
(a frozen or lost Redis costs a page at most one short timeout per back-off, then sessions come
from the database alone) and a short cache lifetime (``CACHE_SECONDS``): a write that could not
reach the cache leaves a stale copy there for a minute at most. The cache is shared by every
process (``REDIS_URL``), or it is this process's memory, and then this process is the only one
that serves (as with the in-memory channel layer: ``config/settings.py``). A per-process cache
beside other processes would let one keep an old copy of a session another one changed.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.db import SessionStore as DBStore

from infra.resilience import cache_guard

CACHE_SECONDS = 60


class SessionStore(cached_db.SessionStore):
    """``cached_db`` that never lets the cache fail a request."""

    def _cache_seconds(self, expiry=None) -> int:
        return max(1, min(CACHE_SECONDS, self.get_expiry_age(expiry=expiry)))

    def load(self):
        key = self.cache_key
        data = cache_guard(lambda: self._cache.get(key), None, "session")
        if data is not None:
            return data
        row = self._get_session_from_db()
        if row is None:
            return {}
        data = self.decode(row.session_data)
        cache_guard(lambda: self._cache.set(key, data, self._cache_seconds(row.expire_date)), None, "session")
        return data

    async def aload(self):
        return await sync_to_async(self.load)()

    def exists(self, session_key):
        key = self.cache_key_prefix + session_key if session_key else ""
        return bool(session_key) and (
            cache_guard(lambda: key in self._cache, False, "session") or DBStore.exists(self, session_key)
        )

    def save(self, must_create=False):
        DBStore.save(self, must_create)  # the database first: it is the record
        key, data = self.cache_key, self._session
        cache_guard(lambda: self._cache.set(key, data, self._cache_seconds()), None, "session")

    def delete(self, session_key=None):
        DBStore.delete(self, session_key)
        session_key = session_key or self.session_key
        if session_key:
            cache_guard(lambda: self._cache.delete(self.cache_key_prefix + session_key), None, "session")
