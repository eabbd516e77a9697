"""Abuse limits (django-ratelimit) by client address; the rates are ``settings.RATELIMITS``.

Counters live in the default cache (Redis when REDIS_URL is set, so every process counts
together). A limited request is answered by ``too_many`` before it changes anything.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import is_ratelimited
from django_ratelimit.exceptions import Ratelimited

from config.resilience import cache_guard


class TooManyCodes(Ratelimited):
    """Raised by a table lookup once this address tried too many unknown codes (answered 429)."""


def limited(request: HttpRequest, group: str, *, key="ip", count: bool = True) -> bool:
    """Whether ``request`` is over the limit ``group``; counts this request first if ``count``.

    ``key`` is django-ratelimit's: "ip" (REMOTE_ADDR) or a callable ``(group, request) -> str``.
    """
    # A cache that is down limits nobody (logged), rather than holding up every page.
    return cache_guard(
        lambda: is_ratelimited(request, group=group, key=key, rate=settings.RATELIMITS[group], increment=count),
        False, f"limit {group}",
    )


def code_guesses_blocked(request: HttpRequest) -> bool:
    """Whether this address already tried too many unknown table codes (counts nothing).

    Checked before every code lookup, so that once over the limit even a right guess is refused:
    otherwise the answers would still tell a guesser which codes exist.
    """
    return limited(request, "code_miss", count=False)


def code_missed(request: HttpRequest) -> bool:
    """Count one unknown table code tried from this address; whether that went over the limit."""
    return limited(request, "code_miss")


def too_many(request: HttpRequest, message: str | None = None) -> HttpResponse:
    """The answer to a limited request: 429 and a plain message page."""
    message = message or _("Too many tries from this device. Wait a minute, then try again.")
    return render(request, "lobby/message.html", {"message": message}, status=429)


def too_many_codes(request: HttpRequest) -> HttpResponse:
    """The answer once too many unknown table codes came from this address."""
    return too_many(request, _("Too many unknown table codes from this device. Wait a minute, then try again."))


def ratelimited_view(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``RATELIMIT_VIEW``: what django-ratelimit's middleware answers for a raised limit."""
    if isinstance(exception, TooManyCodes):
        return too_many_codes(request)
    return too_many(request)
