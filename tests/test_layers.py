"""Layers point one way: gameplay uses lobby, never the reverse, and no modules import each other in a ring.

Read from the source (ast), so every import counts wherever it sits: at the top, inside a
function, behind ``TYPE_CHECKING``, or spelled ``import_module("...")``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "engines", "gameplay", "lobby", "tools")


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
    assert {"lobby.services", "lobby.views", "gameplay.services", "gameplay.views", "config.urls",
            "tools.chaos", "tools.management.commands.loadtest"} <= set(MODULES)
    # The walk sees imports inside functions too (the app configs import there).
    assert any(name == "lobby.signals" for _, name in imports_of("gameplay.apps"))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] == "lobby"))
def test_no_lobby_module_imports_gameplay(module):
    """The lobby tells gameplay things by signals (``lobby.signals``) and table rows, never by import."""
    wrong = [f"line {line}: {name}" for line, name in imports_of(module) if name.split(".")[0] == "gameplay"]
    assert wrong == [], f"{module} imports gameplay"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] not in ("tools", "config")))
def test_no_app_imports_the_tools(module):
    """The load, chaos and bench tools (``tools``) may use the apps; nothing a table runs on uses them."""
    wrong = [f"line {line}: {name}" for line, name in imports_of(module) if name.split(".")[0] == "tools"]
    assert wrong == [], f"{module} imports tools"


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
