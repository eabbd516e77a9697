"""``GET /health/``: whether this process can serve a table now, for a load balancer's health check.

It answers 200 when its database answers a query and, where ``REDIS_URL`` is set, Redis answers a PING (the
channel layer that carries pushes between processes, the shared sessions and abuse counters); else 503, naming
what failed. Behind a balancer (docs/deploy.md), a process that lost either is taken out of rotation within a
couple of checks, with its sockets, and the phones reconnect to a process that has both.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)
REDIS_TIMEOUT_SECONDS = 0.5  # a check is given about a second (HAProxy's ``inter``)
_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()


def database_answers(database=connection) -> None:
    """Raises unless ``database`` answers ``SELECT 1``."""
    with database.cursor() as cursor:
        cursor.execute("SELECT 1")


def redis_answers(url: str) -> None:
    """Raises unless the Redis at ``url`` answers a PING in time (one client, and its pool, per URL)."""
    with _lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT_SECONDS,
                                                          socket_connect_timeout=REDIS_TIMEOUT_SECONDS)
    client.ping()


def failures(checks: dict[str, Callable[[], None]]) -> list[str]:
    """The names of the checks that raised (each logged)."""
    failed = []
    for name, check in checks.items():
        try:
            check()
        except (DatabaseError, redis.RedisError, OSError) as error:
            logger.warning("health check: %s failed: %r", name, error)
            failed.append(name)
    return failed


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    checks: dict[str, Callable[[], None]] = {"database": database_answers}
    if settings.REDIS_URL:
        checks["redis"] = lambda: redis_answers(settings.REDIS_URL)
    failed = failures(checks)
    return JsonResponse({"ok": not failed, "failed": failed}, status=503 if failed else 200)
