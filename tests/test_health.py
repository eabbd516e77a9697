"""``/health/`` (infra/health.py): 200 while the process reaches its database and Redis, 503 naming what it lost."""

from __future__ import annotations

import os

import pytest
from django.db.utils import ConnectionHandler
from django.test import override_settings

from infra.health import database_answers, failures, redis_answers

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
NOBODY = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def _unreachable_database():
    """A real PostgreSQL connection to a port nothing listens on."""
    handler = ConnectionHandler({"default": {"ENGINE": "django.db.backends.postgresql", "HOST": "127.0.0.1",
                                             "PORT": "1", "NAME": "none", "USER": "postgres",
                                             "OPTIONS": {"connect_timeout": 1}}})
    return handler["default"]


@pytest.mark.django_db
@override_settings(REDIS_URL=REDIS_URL)
def test_a_process_that_reaches_its_database_and_redis_is_healthy(client):
    response = client.get("/health/")
    assert response.status_code == 200 and response.json() == {"ok": True, "failed": []}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
@override_settings(REDIS_URL=NOBODY)
def test_a_process_that_lost_redis_answers_503_naming_it(client):
    response = client.get("/health/")
    assert response.status_code == 503 and response.json() == {"ok": False, "failed": ["redis"]}


@pytest.mark.django_db
@override_settings(REDIS_URL="")
def test_without_redis_only_the_database_is_checked(client):
    assert client.get("/health/").json() == {"ok": True, "failed": []}
    assert client.post("/health/").status_code == 405


@pytest.mark.django_db
def test_a_lost_database_or_redis_is_a_failure_not_an_error():
    broken = _unreachable_database()
    try:
        assert failures({"database": lambda: database_answers(broken), "redis": lambda: redis_answers(NOBODY),
                         "fine": lambda: None}) == ["database", "redis"]
    finally:
        broken.close()


@override_settings(SECURE_SSL_REDIRECT=True, SECURE_REDIRECT_EXEMPT=[r"^health/$"])
@pytest.mark.django_db
def test_the_health_check_is_not_redirected_to_https(client, settings):
    settings.REDIS_URL = ""
    assert client.get("/health/").status_code == 200
    assert client.get("/rules/").status_code == 301
