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

from collections import defaultdict
from collections.abc import Collection
from functools import partial

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.utils import timezone

from infra.resilience import cache_guard

CACHE_SECONDS = 60


class SessionStore(cached_db.SessionStore):
    """``cached_db`` that never lets the cache fail a request."""

    def _cache_seconds(self, expiry=None) -> int:
        return max(1, min(CACHE_SECONDS, self.get_expiry_age(expiry=expiry)))

    def load(self):
        key = self._get_or_create_session_key()
        data = self.load_many([key])[key]
        if data is None:  # no live session by that key: forgotten, as Django's stores forget it
            self._session_key = None
            return {}
        return data

    @classmethod
    def load_many(cls, session_keys: Collection[str]) -> dict[str, dict | None]:
        """Each session's data as :meth:`load` reads it, read together (a push judges every socket of a table
        as its session is now): one cache call for all of them, one query for those the cache does not hold.
        None for a key that names no live session (ended, expired, never valid), where ``load`` forgets its key."""
        store = cls()
        keys = [key for key in session_keys if store._validate_session_key(key)]
        found: dict[str, dict | None] = dict.fromkeys(session_keys)
        asked = [cls.cache_key_prefix + key for key in keys]
        cached: dict[str, dict] = cache_guard(lambda: store._cache.get_many(asked), {}, "session")
        missing = []
        for key in keys:
            data = cached.get(cls.cache_key_prefix + key)
            if data is None:
                missing.append(key)
            else:
                found[key] = data
        if not missing:
            return found
        kept: defaultdict[int, dict[str, dict]] = defaultdict(dict)  # by their lifetime in the cache
        rows = store.model.objects.filter(session_key__in=missing, expire_date__gt=timezone.now())
        for key, text, expires in rows.values_list("session_key", "session_data", "expire_date"):
            found[key] = kept[store._cache_seconds(expires)][cls.cache_key_prefix + key] = store.decode(text)
        for seconds, items in kept.items():
            cache_guard(partial(store._cache.set_many, items, seconds), None, "session")
        return found

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
