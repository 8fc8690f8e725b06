"""The shape of the package: folders are layers, and imports point down them, as LAYERS allows.

Every import of a sqlrank module counts, also those inside functions (imported late for
start-up time) and under TYPE_CHECKING: a wrong-way import there is still one. docs/development.md
draws the same table.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "sqlrank"
LEAVES = {"errors", "version", "progress"}
# What each part of the package may import besides itself, lowest first (docs/development.md).
EVALUATED = LEAVES | {"measures", "rendering", "inputs", "plan", "engines", "diagnostics", "results", "evaluation"}
TOOLS = {"statistics", "comparing", "judging", "tracking", "trec", "diagnosing", "fusing", "logs"}
LAYERS = {
    "errors": set(), "version": set(), "progress": set(),
    "measures": LEAVES,                                   # the vocabulary: no SQL, no DuckDB
    "rendering": LEAVES | {"measures"},                   # values in, SQL text out; no connection
    "inputs": LEAVES | {"rendering"},                     # read and check what the user gives
    "plan": LEAVES | {"measures", "rendering", "inputs"},  # inputs + measures -> statement
    "engines": LEAVES | {"rendering", "inputs", "plan"},  # run a plan; never read measures
    "results": LEAVES | {"measures", "engines"},
    "diagnostics": LEAVES | {"measures", "rendering", "inputs", "plan", "engines"},
    "evaluation": LEAVES | {"measures", "rendering", "inputs", "plan", "engines", "diagnostics", "results"},
    # the tools on top of evaluation, by concept: statistics first, then what compares runs, then what judges
    "statistics": EVALUATED,                               # tests, intervals, summaries of per-query values
    "tracking": EVALUATED | {"statistics"},                # the run history
    "comparing": EVALUATED | {"statistics", "tracking"},   # runs against each other, reports
    "judging": EVALUATED | {"statistics", "tracking", "comparing"},  # agreement, pools, meta-evaluation
    "trec": EVALUATED,                                     # trec_eval's command
    "diagnosing": EVALUATED,                               # explain, check
    "fusing": EVALUATED,                                   # rank fusion: runs in, one run out
    "logs": EVALUATED | {"statistics"},                    # logs: click models, off-policy estimates and their intervals
    "export": EVALUATED,
    "evaluating": EVALUATED | {"statistics", "tracking"},  # sqlrank.evaluate: an evaluation and its summaries
    "cli": EVALUATED | TOOLS | {"export", "evaluating"},
    "__init__": LEAVES | {"measures", "evaluation", "results", "export", "evaluating"} | TOOLS,
    "__main__": {"cli"},
}
# Inside inputs/, the order of a load (load locates, reads files, maps columns, validates, keeps
# copies, describes): a module imports only those after it, so no step calls back up.
INPUTS_ORDER = ("reading", "extra", "merge", "keyed", "load", "locate", "files", "columns", "validate", "ids", "store", "source")
# Third-party packages a part may not import.
FORBIDDEN = {"measures": {"jinja2", "duckdb"}, "rendering": {"duckdb"}}
# The package's top holds its layers and the tools' concepts (a folder or module each); a folder of it at most 12
# modules besides its __init__.
MAX_ENTRIES, MAX_FOLDER_MODULES, MAX_MODULE_LINES, MAX_FUNCTION_LINES = 24, 12, 450, 60


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def is_package(module: str) -> bool:
    return (PACKAGE / module.replace(".", "/") / "__init__.py").exists()


def imports_of(module: str, text: str) -> tuple[set[tuple[str, str]], set[str]]:
    """{(imported sqlrank module, imported name or '')} and the third-party top-level packages."""
    inside, outside = set(), set()
    package = module.split(".") if is_package(module) or module == "__init__" else module.split(".")[:-1]
    package = [] if module == "__init__" else package
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)]
            target = ".".join(base + (node.module.split(".") if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                if (PACKAGE / (sub.replace(".", "/") + ".py")).exists() or is_package(sub):
                    inside.add((sub, ""))
                else:
                    inside.add((target or "__init__", alias.name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlrank":
            target = node.module.partition(".")[2] or "__init__"
            inside.update((target, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            outside.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sqlrank":
                    inside.add((alias.name.partition(".")[2] or "__init__", ""))
                else:
                    outside.add(alias.name.split(".")[0])
    return inside, outside


def modules() -> dict[str, str]:
    return {module_name(path): path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}


def graph() -> dict[str, set[str]]:
    """module -> the sqlrank modules it imports (dotted, relative to the package)."""
    return {module: {target for target, _ in imports_of(module, text)[0] if target != module}
            for module, text in modules().items()}


def part(module: str) -> str:
    return module.split(".")[0]


def wrong_way(found: dict[str, set[str]]) -> list[str]:
    """Imports that LAYERS does not allow: 'inputs.load -> measures.registry'."""
    return sorted(f"{module} -> {target}" for module, targets in found.items() for target in targets
                  if part(target) != part(module) and part(target) not in LAYERS[part(module)])


def test_the_graph_is_read_from_every_module():
    found = graph()
    assert {"cli.main", "engines.duckdb", "plan", "rendering.statement", "measures.registry", "engines.spark",
            "diagnosing.check", "inputs.load"} <= set(found)
    assert "plan" in found["engines.duckdb"] and "measures.family" in found["measures.registry"]
    assert "statistics.student" in found["comparing.paired_t"]  # from ..statistics import student: a module


def test_every_part_of_the_package_is_a_layer():
    assert {part(module) for module in modules()} == set(LAYERS)


def test_imports_point_down_the_layers():
    assert wrong_way(graph()) == []


@pytest.mark.parametrize("module, line", [
    ("inputs.load", "from ..measures.registry import FAMILIES"),  # inputs never read the measures
    ("engines.postgres", "from ..measures.conventions import DEFAULTS"),  # nor do engines
    ("rendering.statement", "from ..plan import plan"),  # a layer above
    ("diagnosing.check", "from ..export.dbt import write_package"),  # tools and export are side by side
    ("statistics.significance", "from ..comparing.compare import Comparison"),  # statistics below comparing
    ("comparing.overlap", "from ..judging.pool import pool"),  # comparing below judging
    ("measures.registry", "    from sqlrank.evaluation import run_plan"),  # late and absolute: still counted
])
def test_a_wrong_way_import_is_found(module, line):
    text = modules()[module] + "\n\ndef late():\n" + (line if line.startswith(" ") else "    " + line) + "\n"
    found = graph()
    found[module] = {target for target, _ in imports_of(module, text)[0] if target != module}
    assert wrong_way(found), line


def test_inside_inputs_a_load_goes_one_way():
    found = graph()
    modules = {m for m in found if part(m) == "inputs" and "." in m}
    assert modules == {f"inputs.{name}" for name in INPUTS_ORDER}
    for at, name in enumerate(INPUTS_ORDER):
        upward = {t for t in found[f"inputs.{name}"] if t.startswith("inputs.") and t.split(".")[1] in INPUTS_ORDER[:at]}
        assert upward == set(), f"inputs.{name} imports {sorted(upward)}, above it in a load"


def test_the_picture_of_the_layers_is_drawn_from_the_code():
    from support.layers import ORDER, PICTURE, picture

    assert set(ORDER) == set(LAYERS)
    for at, part_ in enumerate(ORDER):  # the picture's order is one the table allows: nothing imports up
        assert not LAYERS[part_] & set(ORDER[:at]), part_
    assert PICTURE.read_text(encoding="utf-8") == picture(graph(), LAYERS), "python tests/support/layers.py draws it anew"


def test_no_part_imports_what_it_must_not():
    for module, text in modules().items():
        assert not imports_of(module, text)[1] & FORBIDDEN.get(part(module), set()), module
    for module, text in modules().items():
        if part(module) == "rendering":
            assert ".connect(" not in text and ".execute(" not in text, module  # no connection


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
    private = sorted((module, target, name) for module, text in modules().items()
                     for target, name in imports_of(module, text)[0]
                     if name.startswith("_") and not name.startswith("__"))
    assert private == [], private


def test_the_package_is_not_imported_by_its_modules():
    """The package's __init__ is the public face; modules import each other, never it (that would be a
    cycle through everything __init__ imports)."""
    assert [module for module, targets in graph().items() if "__init__" in targets and module != "__init__"] == []


def test_cli_concerns_stay_in_cli():
    """Only the command line reads standard output's terminal state or builds argument parsers."""
    for module, text in modules().items():
        if part(module) != "cli":
            assert "argparse" not in text and "isatty" not in text, module


def test_the_package_is_small_at_its_top_and_in_its_parts():
    entries = [p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()]
    assert len(entries) <= MAX_ENTRIES, sorted(entries)
    crowded = {folder.name: count for folder in PACKAGE.iterdir() if (folder / "__init__.py").exists()
               for count in [len([p for p in folder.glob("*.py") if p.name != "__init__.py"])]
               if count > MAX_FOLDER_MODULES}
    assert crowded == {}
    long_modules = {module: len(text.splitlines()) for module, text in modules().items()
                    if len(text.splitlines()) > MAX_MODULE_LINES}
    assert long_modules == {}
    long_functions = sorted(f"{module}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
                            for module, text in modules().items() for node in ast.walk(ast.parse(text))
                            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES)
    assert long_functions == []


def test_the_version_is_the_packages():
    from sqlrank.version import __version__

    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert declared == __version__


def test_the_front_module_only_presents():
    """sqlrank/__init__.py re-exports the public API from the modules that own it: imports, __all__ and the lazy
    lookup of a name's module, nothing else, in at most 80 lines; the public names and their signatures are those of
    tests/snapshots/api/public.txt (the layout before the public functions moved to their concepts)."""
    from support.public_api import SNAPSHOT, public_lines

    text = (PACKAGE / "__init__.py").read_text()
    assert len(text.splitlines()) <= 80
    functions = [node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)]
    assert functions == ["__getattr__", "__dir__"]
    expected = [line for line in SNAPSHOT.read_text().splitlines() if not line.startswith("#")]
    assert public_lines() == expected


def test_the_judgments_go_down_the_layers_once():
    """Followed as an argument from sqlrank.evaluate to the Source that describes it (every call of a sqlrank function
    that receives the very object), the judgments never go from a module into one of a higher layer, and each module
    is entered once, on the way down (nine modules; none entered again but evaluate's own, once the result is back)."""
    import sys

    import sqlrank
    from support.layers import ORDER

    qrels = str(ROOT / "fixtures" / "demo" / "qrels.test")
    calls = []

    def seen(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if event == "call" and module.startswith("sqlrank") and any(v is qrels for v in frame.f_locals.values()):
            calls.append((frame.f_back.f_globals.get("__name__", "") if frame.f_back else "", module))

    sys.setprofile(seen)
    try:
        sqlrank.evaluate(qrels, str(ROOT / "fixtures" / "demo" / "results.test"), "nDCG@10")
    finally:
        sys.setprofile(None)
    layer = {name: at for at, name in enumerate(ORDER)}

    def part_of(module: str) -> str:
        return part(module.partition(".")[2] or "__init__")

    assert len({module for _, module in calls}) >= 6  # evaluating, evaluation, plan, inputs.reading, .load, ...
    upward = [(caller, module) for caller, module in calls if caller.startswith("sqlrank.")
              and layer[part_of(module)] < layer[part_of(caller)]]
    assert upward == []
    path = [module for at, (_, module) in enumerate(calls) if at == 0 or calls[at - 1][1] != module]
    assert path == ["sqlrank.evaluating", "sqlrank.results.kinds", "sqlrank.evaluation", "sqlrank.plan",
                    "sqlrank.inputs.reading", "sqlrank.inputs.load", "sqlrank.inputs.locate", "sqlrank.inputs.files",
                    "sqlrank.inputs.source", "sqlrank.evaluating"], path  # docs/development.md draws it; the last:
    # evaluate itself, after the result came back, handing the judgments to the history record (record=None here)
