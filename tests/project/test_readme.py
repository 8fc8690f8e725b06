"""The README, docs/ and CONTRIBUTING.md show real output: every `$ sqlrank ...` console example that
runs on shipped files, and every `>>>` Python example, is run here, and what it prints must be what
they show."""
from __future__ import annotations

import doctest
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs every command the README and docs show

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# what an example needs beyond the test install: (flag in the command, module, and a program)
NEEDS = {"--engine spark": ("pyspark", "java"), "--engine clickhouse": ("chdb", None),
         "--engine datafusion": ("datafusion", None)}


def examples():
    """(page, command, shown output) of each console block whose command reads fixtures/."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```console\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            lines = block.splitlines()
            command = lines[0].removeprefix("$ ").split(" && ")[-1]
            if command.startswith("sqlrank ") and "fixtures/" in command:
                found.append((page.relative_to(ROOT).as_posix(), command, "\n".join(lines[1:]).rstrip()))
    return found


def python_examples():
    """(page, block) of each ```pycon block: Python sessions, run as doctests from the repository."""
    return [(page.relative_to(ROOT).as_posix(), block) for page in PAGES
            for block in re.findall(r"```pycon\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]


def require(command: str) -> None:
    for flag, (module, program) in NEEDS.items():
        if flag in command and (importlib.util.find_spec(module) is None or (program and not shutil.which(program))):
            if os.environ.get("SQLRANK_REQUIRE_PEERS"):
                pytest.fail(f"{module} is required here (SQLRANK_REQUIRE_PEERS)")
            pytest.skip(f"{module} is not installed")


@pytest.fixture(scope="session")
def clean_python(tmp_path_factory) -> str:
    """The Python of a new virtual environment holding sqlrank's wheel and only its declared dependencies (what
    `pip install .` gives a user), outside the checkout."""
    folder = tmp_path_factory.mktemp("clean")
    build = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(folder / "dist"),
                            str(ROOT)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    venv.create(folder / "venv", with_pip=True)
    python = str(folder / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python")
    wheel = next((folder / "dist").glob("sqlrank-*.whl"))
    install = subprocess.run([python, "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True)
    if install.returncode != 0:
        if os.environ.get("SQLRANK_REQUIRE_PEERS"):
            pytest.fail(f"the wheel's dependencies did not install: {install.stderr[-1000:]}")
        pytest.skip(f"the wheel's dependencies did not install (no package registry?): {install.stderr[-300:]}")
    return python


INSTALLS = ["checkout", "clean"]  # the test install (pip install -e '.[test]'), and the wheel with its dependencies only


@pytest.mark.parametrize("install", INSTALLS)
@pytest.mark.parametrize("page, command, shown", examples(), ids=[f"{p} {c[8:60]}" for p, c, _ in examples()])
def test_example_prints_what_it_shows(page, command, shown, install, request):
    """The command prints what the page shows: its warnings and notes (stderr) too, above the output; and so it
    does after the README's install alone (an example needing an extra, `pip install '.[spark]'`, aside)."""
    require(command)
    python = sys.executable
    if install == "clean":
        if any(flag in command for flag in NEEDS) or " | duckdb" in command:
            pytest.skip("needs an extra of its own (the page says which), not the README's install")
        python = request.getfixturevalue("clean_python")
    command, _, pipe = command.partition(" | ")
    proc = subprocess.run([python, "-m", "sqlrank", *shlex.split(command)[1:]], cwd=ROOT,
                          capture_output=True, text=True)
    out = proc.stdout if proc.returncode == 0 else proc.stderr
    if pipe.startswith("head -"):
        out = "\n".join(out.splitlines()[:int(pipe.split("-")[1])])
    elif pipe == "duckdb":  # the printed statement, run by DuckDB's own shell
        duckdb = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
        if not os.path.exists(duckdb):
            pytest.skip("the duckdb shell (pip install duckdb-cli) is not installed")
        shell = subprocess.run([duckdb], input=out, cwd=ROOT, capture_output=True, text=True)
        assert shell.returncode == 0, shell.stderr
        out = shell.stdout
    else:
        assert not pipe, f"{page}: unknown pipe {pipe!r}"
    if proc.returncode == 0:  # what a terminal shows: sqlrank's notes on stderr (never piped), then the output
        out = proc.stderr + out
    assert out.rstrip() == shown


@pytest.mark.parametrize("page, block", [(p, b) for p, b in python_examples() if "ir_measures" not in b],
                         ids=[p for p, b in python_examples() if "ir_measures" not in b])
def test_python_example_runs_after_the_readme_s_install(page, block, clean_python):
    """The Python sessions (those of sqlrank alone) in the wheel's environment: what they print is the same."""
    script = ("import doctest, sys\nblock = sys.stdin.read()\n"
              "test = doctest.DocTestParser().get_doctest(block, {}, 'page', 'page', 0)\n"
              "runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
              "runner.run(test)\nsys.exit(1 if runner.failures else 0)\n")
    proc = subprocess.run([clean_python, "-c", script], input=block, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("page, block", python_examples(), ids=[p for p, _ in python_examples()])
def test_python_example_prints_what_it_shows(page, block, monkeypatch):
    monkeypatch.chdir(ROOT)
    restore = None
    if "ir_measures" in block:  # an example that registers sqlrank with ir_measures: leave it as it was
        ir_measures = pytest.importorskip("ir_measures")
        pipeline, registry = ir_measures.DefaultPipeline.providers, ir_measures.providers.registry
        saved = (list(pipeline), dict(registry))

        def restore_providers():
            pipeline[:] = saved[0]
            registry.clear()
            registry.update(saved[1])
        restore = restore_providers
    test = doctest.DocTestParser().get_doctest(block, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    try:
        runner.run(test, out=failures.append)
    finally:
        if restore:
            restore()
    assert runner.failures == 0, "".join(failures)


def test_the_pages_have_examples_to_check():
    assert len(examples()) >= 20
    assert {page for page, _, _ in examples()} >= {"README.md", "docs/inputs.md", "docs/recommenders.md",
                                                    "docs/comparing.md", "docs/trec_eval.md"}
    assert python_examples()


def test_the_readme_is_a_front_door():
    """Under 300 lines; what it leaves out is in docs/, every page linked from it; nothing that only
    the project's authors have (no sibling folders, no planning documents)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 300
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, f"docs/{page.name} is not linked from the README"
    for link in re.findall(r"\]\(([^)#]+\.md)", readme):
        assert (ROOT / link).exists(), link
    for page in PAGES:
        text = page.read_text(encoding="utf-8").lower()
        for word in ("../shared", "seed 0", "design card", "issue "):
            assert word not in text, f"{page.name} mentions {word!r}"


def test_a_history_is_recorded_and_read_after_the_readme_s_install(clean_python, tmp_path):
    """--record and sqlrank history with the declared dependencies alone (the history once needed pyarrow)."""
    demo = ROOT / "fixtures" / "demo"
    for _ in range(2):
        proc = subprocess.run([clean_python, "-m", "sqlrank", "eval", str(demo / "qrels.test"), str(demo / "results.test"),
                               "-m", "AP", "--record", "h.parquet"], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([clean_python, "-m", "sqlrank", "history", "h.parquet"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"results +0\.1785 +\+0\.0000\n", proc.stdout), proc.stdout
    assert sorted(os.listdir(tmp_path)) == ["h.parquet"]
