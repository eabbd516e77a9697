"""Layers point one way (engines and infra under lobby, under gameplay, under community, under tools and config),
and no ring.

Read from the source (ast), so every import counts wherever it sits: at the top, inside a
function, behind ``TYPE_CHECKING``, or spelled ``import_module("...")``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("community", "config", "engines", "gameplay", "infra", "lobby", "tools")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {
    _module_name(path): path
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.py"))
    if "__pycache__" not in path.parts
}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module an ``from … import`` names, relative imports resolved against ``module``."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if _is_package(module) else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str) -> list[tuple[int, str]]:
    """Every module ``module`` imports (line, dotted name), at any depth of its code."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"), filename=str(MODULES[module]))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            for alias in node.names:
                # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module.
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else target))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def _first_party(name: str) -> str | None:
    """The project module ``name`` is, or is inside (None for Django, the standard library, ...)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def test_the_walk_finds_the_apps_and_their_imports():
    assert {"lobby.services", "lobby.views", "gameplay.services", "gameplay.web.views", "config.urls",
            "community.views", "community.nights", "tools.chaos", "tools.management.commands.loadtest",
            "infra.resilience", "engines.base"} <= set(MODULES)
    # The walk sees imports inside functions too (the app configs import there).
    assert any(name == "lobby.signals" for _, name in imports_of("gameplay.apps"))


# What each top-level package may import of the project, besides itself: every arrow points down.
# engines (pure rules) and infra (the shared helpers under the apps) import no project package;
# community (groups, game nights, stats, ratings: after the games) sits on gameplay, and neither gameplay nor
# lobby imports it (the board's night scoreboard comes through a hook it fills: ``CommunityConfig.ready``);
# config (settings, URLs, ASGI) and tools (load, chaos, benches) sit on top and no app imports them.
MAY_IMPORT = {
    "engines": set(),
    "infra": set(),
    "lobby": {"engines", "infra"},
    "gameplay": {"engines", "infra", "lobby"},
    "community": {"engines", "infra", "lobby", "gameplay"},
    "tools": {"engines", "infra", "lobby", "gameplay", "community"},
    "config": {"engines", "infra", "lobby", "gameplay", "community"},
}


def wrong_imports(module: str, imports: list[tuple[int, str]]) -> list[str]:
    """The imports of ``module`` that point up or sideways (or, from engines, outside the standard library)."""
    package = module.split(".")[0]
    wrong = []
    for line, name in imports:
        first_party = _first_party(name)
        if first_party is None:
            if package == "engines" and name.split(".")[0] not in sys.stdlib_module_names:
                wrong.append(f"line {line}: {name} (engines use the standard library alone)")
        elif first_party.split(".")[0] not in MAY_IMPORT[package] | {package}:
            wrong.append(f"line {line}: {name}")
    return wrong


def test_every_package_is_in_the_table():
    assert {module.split(".")[0] for module in MODULES} == set(MAY_IMPORT) == set(PACKAGES)


def test_the_rule_catches_an_arrow_up_and_django_in_the_engines():
    assert wrong_imports("lobby.views", [(3, "gameplay.services")]) == ["line 3: gameplay.services"]
    assert wrong_imports("gameplay.web.views", [(4, "config.settings"), (5, "tools.chaos")]) == [
        "line 4: config.settings", "line 5: tools.chaos"]
    assert wrong_imports("infra.limits", [(6, "lobby.models")]) == ["line 6: lobby.models"]
    assert wrong_imports("engines.base", [(7, "django.conf"), (8, "json")]) == [
        "line 7: django.conf (engines use the standard library alone)"]
    assert wrong_imports("tools.chaos", [(9, "gameplay.selectors"), (10, "django.conf")]) == []
    assert wrong_imports("gameplay.fairness", [(11, "community.stats")]) == ["line 11: community.stats"]
    assert wrong_imports("lobby.account", [(12, "community.views")]) == ["line 12: community.views"]
    assert wrong_imports("community.stats", [(13, "gameplay.records"), (14, "lobby.models")]) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    """lobby tells gameplay things by signals (``lobby.signals``) and table rows, never by import; neither imports
    ``community`` (it reads their rows and fills gameplay's hooks); no app imports ``config`` or ``tools``;
    ``infra`` imports no app; ``engines`` import nothing of Django."""
    assert wrong_imports(module, imports_of(module)) == [], f"{module} imports across the layers"


def test_no_import_cycles_among_the_project_modules():
    graph = {module: sorted({_first_party(name) or module for _, name in imports_of(module)} - {module})
             for module in MODULES}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in graph[module]:
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)
