"""Inside Job: hidden Traitors among Agents, five missions, public votes, anonymous Sabotage."""

from engines.inside_job.bots import heuristic
from engines.inside_job.engine import InsideJobEngine

ENGINE = InsideJobEngine()
BOTS = {"heuristic": heuristic}

__all__ = ["BOTS", "ENGINE"]
