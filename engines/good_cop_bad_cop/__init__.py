"""Good Cop Bad Cop: hidden teams of three integrity cards, guns, and sixteen equipment cards."""

from .bots import heuristic
from .engine import GoodCopBadCop

ENGINE = GoodCopBadCop()
BOTS = {"heuristic": heuristic}
