"""Faults that must stay graceful: a frozen cache never holds up a page, a database outage is a 503.

The cache (Redis when REDIS_URL is set) only serves conveniences on the request path: abuse
counters and presence marks. ``cache_guard`` runs such a call with the cache's short socket
timeouts; after a failure it skips the cache for ``CACHE_BACKOFF_SECONDS`` and answers the
given default ("not limited", "presence unknown"), so a paused Redis costs one slow request
per process, not every request.

``DatabaseUnavailableMiddleware`` turns a lost database connection into a 503 with
``Retry-After`` and the styled error page; the phones show "Reconnecting…" and catch up.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)
T = TypeVar("T")
CACHE_BACKOFF_SECONDS = 5.0
_lock = threading.Lock()
_skip_until = 0.0


def cache_guard(call: Callable[[], T], default: T, what: str) -> T:
    """``call()``, or ``default`` while the cache is failing (logged once per back-off)."""
    global _skip_until
    if time.monotonic() < _skip_until:
        return default
    try:
        return call()
    except Exception as error:
        with _lock:
            _skip_until = time.monotonic() + CACHE_BACKOFF_SECONDS
        logger.warning("cache unavailable (%s): %r; skipping it for %.0f s", what, error, CACHE_BACKOFF_SECONDS)
        return default


class DatabaseUnavailableMiddleware:
    """A request that lost the database answers 503 (styled, translated, Retry-After), never a traceback."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.warning("database unavailable for %s: %r", request.path, exception)
        from django.http import HttpResponse

        response = HttpResponse(render_to_string("500.html"), status=503)
        response["Retry-After"] = "2"
        return response
