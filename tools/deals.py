"""The same games in every run: deals drawn from a seeded sequence instead of the system's randomness.

A game's deal makes one random draw (``gameplay.services.new_seed``); here it comes from ``random.Random(name)``.
The tests use it (``tests.conftest.seeded_deals``) where they deal until some position comes up, and the measured
server (``tools.measured_server --deals NAME``) so that two load runs play the same games.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from unittest import mock


@contextlib.contextmanager
def seeded_deals(name: str) -> Iterator[None]:
    """Games dealt from a sequence seeded with ``name``, in this thread or a server's of this process."""
    from gameplay import services

    deals = random.Random(name)
    with mock.patch.object(services, "new_seed", lambda: deals.getrandbits(128)):
        yield
