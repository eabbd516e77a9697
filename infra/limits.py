"""Abuse limits (django-ratelimit) by client address; the rates are ``settings.RATELIMITS``.

Counters live in the default cache (Redis when REDIS_URL is set, so every process counts
together). A limited request is answered by ``too_many`` before it changes anything.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import _get_ip, get_usage, is_ratelimited
from django_ratelimit.exceptions import Ratelimited

from infra.resilience import cache_guard


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


def login_name(raw: object) -> str:
    """A username as the log-in limits count it: as authentication reads it, then case folded.

    Django's log-in form strips the name and normalises it to NFKC (``UsernameField``, as
    ``AbstractBaseUser.normalize_username`` does when an account is made), so "ｂｏｂ" (full width)
    logs in as "bob": the limits must count both as one. Case is folded as well (the log-in itself
    is case-sensitive, so this only counts "Bob" and "bob" together), and NFKC taken again after
    folding, so that every spelling that folds to one name is one name.
    """
    name = AbstractBaseUser.normalize_username(str(raw or "").strip())
    return unicodedata.normalize("NFKC", name.casefold())[:150]


def _usage(request: HttpRequest, group: str, key) -> tuple[int, bool]:
    """Count this request in ``group`` under ``key``: (the count so far, this one included; whether
    that is over the rate). A cache that is down limits nobody (logged), as in :func:`limited`."""
    usage = cache_guard(
        lambda: get_usage(request, group=group, key=key, rate=settings.RATELIMITS[group], increment=True),
        None, f"limit {group}",
    )
    return (0, False) if usage is None else (int(usage["count"]), bool(usage["should_limit"]))


def login_limited(request: HttpRequest, username: object) -> bool:
    """Whether this password attempt (a log-in, or the password that deletes an account) at
    ``username`` is over a limit; counts it first in each of the three.

    - ``login_ip``: one address, whatever the usernames (one phone trying many accounts).
    - ``login_pair``: one address at one (normalised) username. Wrong passwords from one address
      hold back that address only: nobody locks an account for everyone else by failing at it.
    - ``login_user``: every address at one username, a slower global brake against guessing one
      account from many addresses. Once over it, an address that already tried this username in
      its current ``login_pair`` window is held back; an address that has not (the owner's phone)
      still gets its attempt. So a guesser with many addresses gets one try a window from each,
      not five, and the owner is never locked out by them.

    Only while ``settings.RATELIMIT_ENABLE``; a cache that is down limits nobody (logged).
    """
    if not getattr(settings, "RATELIMIT_ENABLE", True):
        return False
    name = login_name(username)
    by_ip = limited(request, "login_ip")
    tried_here, pair_over = _usage(request, "login_pair", lambda group, req: f"{_get_ip(req)}\n{name}")
    _, brake = _usage(request, "login_user", lambda group, req: name)
    return by_ip or pair_over or (brake and tried_here > 1)


def limit_log_ins(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A log-in view whose posted attempts are counted by :func:`login_limited` (at the posted
    ``username``) and, over a limit, answered 429 before the password is checked. The players' log-in
    and the admin site's both wear it, so their attempts count together."""

    @functools.wraps(view)
    def limited_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method == "POST" and login_limited(request, request.POST.get("username", "")):
            return too_many(request, _("Too many log-in attempts. Wait a minute, then try again."))
        return view(request, *args, **kwargs)

    return limited_view


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
