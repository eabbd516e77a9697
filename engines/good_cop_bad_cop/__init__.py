"""Good Cop Bad Cop: hidden teams of three integrity cards, guns, and sixteen equipment cards."""

from .bots import heuristic
from .engine import GoodCopBadCopEngine

ENGINE = GoodCopBadCopEngine()
BOTS = {"heuristic": heuristic}

__all__ = ["BOTS", "ENGINE"]
