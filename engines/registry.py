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
    engines: dict[str, Engine] = {}
    for name, module_name in _MODULES.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            # An engine still being written is simply not offered yet.
            if error.name and module_name.startswith(error.name):
                continue
            raise
        engines[name] = module.ENGINE
    return engines


ENGINES: dict[str, Engine] = _load()


def get_engine(name: str) -> Engine:
    """The engine called ``name``; KeyError for an unknown name."""
    return ENGINES[name]
