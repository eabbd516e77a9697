"""Bot policies. A bot sees exactly its own seat's view and returns one of its legal actions."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, cast

from engines.base import JSONDict

# A policy returns one of ``view["legal"]``, or None to let a silent window pass.
Policy = Callable[[JSONDict, random.Random], JSONDict | None]


def random_bot(view: JSONDict, rng: random.Random) -> JSONDict:
    """Any legal move, uniformly."""
    legal: list[JSONDict] = view["legal"]
    return rng.choice(legal)


def get_policy(engine_name: str, policy: str) -> Policy:
    """The policy ``policy`` ("random" or "heuristic") for the engine ``engine_name``."""
    if policy == "random":
        return random_bot
    module: Any = importlib.import_module(f"engines.{engine_name}")
    return cast(Policy, module.BOTS[policy])
