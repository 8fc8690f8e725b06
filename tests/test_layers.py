"""The shape of the package: imports point one way, and no module reads another's private names.

Every import of a sqlrank module counts, also those inside functions (imported late for
start-up time) and under TYPE_CHECKING: a cycle through any of them is a cycle.
"""
from __future__ import annotations

import ast
import re

from conftest import ROOT

PACKAGE = ROOT / "sqlrank"


def imports() -> dict[str, set[tuple[str, str]]]:
    """module -> {(imported module, imported name or '')} for imports within the package."""
    found: dict[str, set[tuple[str, str]]] = {}
    for path in sorted(PACKAGE.glob("*.py")):
        module = path.stem
        edges = found.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:  # from .templates import x
                    edges.update((node.module.split(".")[0], alias.name) for alias in node.names)
                else:  # from . import trec_eval (a module), or from . import render (a name of __init__)
                    edges.update((alias.name, "") if (PACKAGE / f"{alias.name}.py").exists() else ("__init__", alias.name)
                                 for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlrank"):
                target = node.module.split(".")[1] if "." in node.module else "__init__"
                edges.update((target, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                edges.update((alias.name.split(".")[1], "") for alias in node.names
                             if alias.name.startswith("sqlrank."))
    return found


def graph() -> dict[str, set[str]]:
    return {module: {target for target, _ in edges if target != module} for module, edges in imports().items()}


def test_the_graph_is_read_from_every_module():
    found = graph()
    assert {"cli", "engine", "planner", "templates", "registry", "measures", "spark", "checks"} <= set(found)
    assert "planner" in found["engine"] and "registry" in found["measures"]  # the reader sees real imports


def test_no_import_cycle():
    found, path, done = graph(), [], set()

    def visit(module: str) -> None:
        if module in done:
            return
        assert module not in path, "import cycle: " + " -> ".join(path[path.index(module):] + [module])
        path.append(module)
        for target in sorted(found.get(module, ())):
            visit(target)
        path.pop()
        done.add(module)

    for module in sorted(found):
        visit(module)


def test_no_module_imports_another_modules_private_names():
    private = sorted((module, target, name) for module, edges in imports().items() for target, name in edges
                     if name.startswith("_") and not name.startswith("__"))
    assert private == [], private


def test_the_package_is_not_imported_by_its_modules():
    """The package's __init__ is the public face; modules import each other, never it (that would be a
    cycle through everything __init__ imports)."""
    assert [module for module, targets in graph().items() if "__init__" in targets and module != "__init__"] == []


def test_cli_concerns_stay_in_cli():
    """Only the command line reads standard output's terminal state or builds argument parsers."""
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.stem != "cli":
            assert "argparse" not in text and "isatty" not in text, path.name


def test_the_version_is_the_packages():
    from sqlrank.version import __version__

    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert declared == __version__
