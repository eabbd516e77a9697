"""Good Cop Bad Cop, health-token edition: identities, health, an equipment market, guns."""

from .bots import heuristic
from .engine import GoodCopBadCopHealthEngine

ENGINE = GoodCopBadCopHealthEngine()
BOTS = {"heuristic": heuristic}

__all__ = ["BOTS", "ENGINE"]
