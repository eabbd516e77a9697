"""The code-guess limit slows guessing, never play: tables a browser already knows stay open to it.

``infra.limits`` counts unknown table codes per address and, once an address is over the limit,
refuses its code lookups (a right guess too, or the answers would still tell which codes exist).
Phones behind one public address (a café's or a home's NAT) share that count, so a lookup is
refused only for a browser that does not know the table already:

- it opened the table before: every lookup that finds a table remembers the code in the browser's
  session (``KNOWN_KEY``, the latest ``KNOWN_MAX``); a seat link's new phone is told it there too;
- or its player sits at the table or hosts it (a session that lost its list, an account's other phone).

Such a lookup costs no limit read at all, and a known code whose table has gone is not counted as
a guess. Everyone else from that address, a guesser's fresh browser included, waits the minute out.
Pages (``lobby.views.table_or_404``) and the socket (``gameplay.live.consumers``) follow the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q

from infra import limits
from lobby.models import Table

KNOWN_KEY = "known_tables"
KNOWN_MAX = 20


def known_codes(session: Any) -> list[str]:
    """The table codes this browser opened (latest last); [] for no session or a bad value."""
    codes = session.get(KNOWN_KEY) if session is not None else None
    return [c for c in codes if isinstance(c, str)] if isinstance(codes, list) else []


def knows(session: Any, code: str) -> bool:
    """Whether this browser opened the table at ``code`` before."""
    return bool(code) and code in known_codes(session)


def remember(session: Any, code: str) -> None:
    """This browser knows the table at ``code`` from now on (written only when it is new to the list)."""
    if session is None or not code or knows(session, code):
        return
    session[KNOWN_KEY] = [*known_codes(session), code][-KNOWN_MAX:]


def holds_place(player_id: int | None, code: str) -> bool:
    """Whether the player sits at the table at ``code`` or hosts it (one query)."""
    if player_id is None:
        return False
    return Table.objects.filter(code=code).filter(Q(host_id=player_id) | Q(seats__player_id=player_id)).exists()


def guess_blocked(guesser: Any, session: Any, code: str, player_id: Callable[[], int | None]) -> bool:
    """Whether a lookup of ``code`` is refused as a guess: ``guesser``'s address (a request, or
    anything with its ``META``) is over the code-guess limit and this browser does not know the
    table (``player_id`` is asked only then). Counts nothing."""
    if knows(session, code) or not limits.code_guesses_blocked(guesser):
        return False
    return not holds_place(player_id(), code)


def count_miss(guesser: Any, session: Any, code: str) -> bool:
    """An unknown code looked up: counted as a guess, unless this browser knew it (its table has gone).
    Whether that went over the limit."""
    return not knows(session, code) and limits.code_missed(guesser)
