"""Name -> engine, for the web layer, the bots and the tests."""

from __future__ import annotations

import importlib

from engines.base import Engine

_MODULES = {
    "inside_job": "engines.inside_job",
    "coup": "engines.coup",
    "good_cop_bad_cop": "engines.good_cop_bad_cop",
    "good_cop_bad_cop_health": "engines.good_cop_bad_cop_health",
}


def _load() -> dict[str, Engine]:
    return {name: importlib.import_module(module).ENGINE for name, module in _MODULES.items()}


ENGINES: dict[str, Engine] = _load()


def get_engine(name: str) -> Engine:
    """The engine called ``name``; KeyError for an unknown name."""
    return ENGINES[name]
