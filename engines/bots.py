"""Bot policies. A bot sees exactly its own seat's view and returns one of its legal actions."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, cast

from engines.base import JSONDict

# A policy returns one of ``view["legal"]``, or None to let a silent window pass.
Policy = Callable[[JSONDict, random.Random], JSONDict | None]


# How often a random bot plays a card in a silent window it could play in: people let most pass.
SILENT_PLAY = 0.1


def random_bot(view: JSONDict, rng: random.Random) -> JSONDict | None:
    """Any legal move, uniformly; in a silent window (``view["silent"]``) mostly None, letting it pass.

    Only ``rng`` decides (the worker seeds it per game, version and seat), so a bot asked again in
    the same window answers the same.
    """
    legal: list[JSONDict] = view["legal"]
    if view.get("silent") and rng.random() >= SILENT_PLAY:
        return None
    return rng.choice(legal)


def get_policy(engine_name: str, policy: str) -> Policy:
    """The policy ``policy`` ("random" or "heuristic") for the engine ``engine_name``."""
    if policy == "random":
        return random_bot
    module: Any = importlib.import_module(f"engines.{engine_name}")
    return cast(Policy, module.BOTS[policy])
