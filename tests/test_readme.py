"""The README (and CONTRIBUTING.md) show real output: every `$ sqlrank ...` example that runs on
shipped files is run here, and what it prints must be what they show."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def examples():
    """(command, shown output) of each console block whose command reads fixtures/."""
    found = []
    text = (ROOT / "README.md").read_text() + (ROOT / "CONTRIBUTING.md").read_text()
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        lines = block.splitlines()
        command = lines[0].removeprefix("$ ").split(" && ")[-1]
        if command.startswith("sqlrank ") and "fixtures/" in command:
            found.append((command, "\n".join(lines[1:]).rstrip()))
    return found


@pytest.mark.parametrize("command, shown", examples(), ids=[c[:60] for c, _ in examples()])
def test_readme_example_prints_what_it_shows(command, shown):
    if "--engine spark" in command:
        import importlib.util
        import shutil
        import os
        if importlib.util.find_spec("pyspark") is None or shutil.which("java") is None:
            if os.environ.get("SQLRANK_REQUIRE_PEERS"):
                pytest.fail("pyspark and Java are required here (SQLRANK_REQUIRE_PEERS)")
            pytest.skip("pyspark or Java is not installed")
    command, _, pipe = command.partition(" | ")
    proc = subprocess.run([sys.executable, "-m", "sqlrank", *shlex.split(command)[1:]], cwd=ROOT,
                          capture_output=True, text=True)
    out = proc.stdout if proc.returncode == 0 else proc.stderr
    if pipe:  # only "head -N"
        out = "\n".join(out.splitlines()[:int(pipe.split("-")[1])])
    assert out.rstrip() == shown


def test_the_readme_has_examples_to_check():
    assert len(examples()) >= 7
