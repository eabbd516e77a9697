"""Bot policies. A bot sees exactly its own seat's view and returns one of its legal actions."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable

Policy = Callable[[dict, random.Random], dict]


def random_bot(view: dict, rng: random.Random) -> dict:
    """Any legal move, uniformly."""
    return rng.choice(view["legal"])


def get_policy(engine_name: str, policy: str) -> Policy:
    """The policy ``policy`` ("random" or "heuristic") for the engine ``engine_name``."""
    if policy == "random":
        return random_bot
    module = importlib.import_module(f"engines.{engine_name}")
    return module.BOTS[policy]
