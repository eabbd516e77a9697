"""Sessions read together (``infra.sessions.SessionStore.load_many``): a push judges every socket of a table as
its session is now, in one cache call and at most one query, with what ``load`` would read for each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from infra.sessions import SessionStore
from tests.test_cache import SHARED


def _session(**data) -> str:
    store = SessionStore()
    store.update(data)
    store.save(must_create=True)
    return store.session_key


def _forget_in_cache(key: str) -> None:
    caches["default"].delete(SessionStore.cache_key_prefix + key)


@pytest.mark.django_db
@pytest.mark.parametrize("shared", [False, True], ids=["this process's cache", "redis"])
def test_sessions_are_read_together_as_each_would_be_alone(settings, shared):
    if shared:
        settings.CACHES = SHARED
    caches["default"].clear()
    cached, stored, expired = _session(player_id=1), _session(player_id=2), _session(player_id=3)
    _forget_in_cache(stored)
    _forget_in_cache(expired)
    Session.objects.filter(session_key=expired).update(expire_date=timezone.now() - timedelta(seconds=1))
    keys = [cached, stored, expired, "unknown-session-key-0123456789", "short"]

    with CaptureQueriesContext(connection) as captured:
        found = SessionStore.load_many(keys)
    assert len(captured.captured_queries) == 1  # the one not in the cache (and the expired one), together
    assert found == {cached: {"player_id": 1}, stored: {"player_id": 2}, expired: None,
                     "unknown-session-key-0123456789": None, "short": None}
    for key in keys:  # what each would read alone: its data, or nothing and its key forgotten
        alone = SessionStore(key)
        assert (alone.load() or None, alone.session_key is not None) == (found[key], found[key] is not None)

    with CaptureQueriesContext(connection) as captured:  # the one read from the database is in the cache now
        again = SessionStore.load_many([cached, stored])
    assert captured.captured_queries == [] and again == {cached: {"player_id": 1}, stored: {"player_id": 2}}
    caches["default"].clear()


@pytest.mark.django_db
def test_a_session_ended_meanwhile_is_read_as_gone():
    caches["default"].clear()
    key = _session(player_id=7)
    assert SessionStore.load_many([key]) == {key: {"player_id": 7}}
    SessionStore(key).delete()  # logged out: gone from the database and the cache
    assert SessionStore.load_many([key]) == {key: None}
