"""One engine shape: every game package has the same modules and entry points (engines/README.md)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from engines.base import BaseEngine
from engines.registry import ENGINES

STANDARD = {"__init__.py", "engine.py", "cards.py", "rules.py", "legal.py", "views.py", "bots.py", "presentation.py"}
# Modules a game may add for its own data, named in engines/README.md.
EXTRA = {"good_cop_bad_cop": {"equipment.py", "table.py"}}
CLASSES = {"coup": "CoupEngine", "inside_job": "InsideJobEngine", "good_cop_bad_cop": "GoodCopBadCopEngine",
           "good_cop_bad_cop_health": "GoodCopBadCopHealthEngine"}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_package_has_the_same_files_and_entry_points(name):
    package = Path(importlib.import_module(f"engines.{name}").__file__).parent
    files = {p.name for p in package.glob("*.py")}
    assert files == STANDARD | EXTRA.get(name, set())
    module = importlib.import_module(f"engines.{name}")
    assert set(module.__all__) == {"ENGINE", "BOTS"} and "heuristic" in module.BOTS
    engine_class = getattr(importlib.import_module(f"engines.{name}.engine"), CLASSES[name])
    assert type(module.ENGINE) is engine_class and issubclass(engine_class, BaseEngine)
    assert "setup" not in vars(engine_class), "setup is BaseEngine's template; engines write _setup"
    views = importlib.import_module(f"engines.{name}.views")
    assert list(views.build_view.__code__.co_varnames[: views.build_view.__code__.co_argcount]) == ["state", "seat"]
    legal = importlib.import_module(f"engines.{name}.legal")
    assert callable(legal.legal_actions) and callable(legal.awaiting)
