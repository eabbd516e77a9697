"""Coup: claim characters, challenge bluffs, block, and be the last player with influence."""

from .bots import heuristic
from .engine import CoupEngine

__all__ = ["BOTS", "ENGINE"]

ENGINE = CoupEngine()
BOTS = {"heuristic": heuristic}
