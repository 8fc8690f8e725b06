"""The interfaces users already have: -o FILE's name chooses the format wherever the command has it, and a -f that
says otherwise is an error that names both."""
from __future__ import annotations

import pytest

from conftest import FIXTURES
from support.cli import cli, refused

DEMO = [str(FIXTURES / "demo" / "qrels.test"), str(FIXTURES / "demo" / "results.test")]
COMPARE = [str(FIXTURES / "compare" / name) for name in ("qrels.txt", "baseline.run", "rerank.run")]


@pytest.mark.parametrize("command, name, fmt", [
    (["eval", *DEMO, "-m", "AP P@10"], "e.csv", "csv"),
    (["eval", *DEMO, "-m", "AP P@10"], "e.json", "json"),
    (["eval", *DEMO, "-m", "AP P@10"], "e.tsv", "tsv"),
    (["compare", *COMPARE, "-m", "AP"], "t.csv", "csv"),
    (["compare", *COMPARE, "-m", "AP"], "t.tex", "latex"),
    (["compare", *COMPARE, "-m", "AP"], "t.md", "markdown"),
    (["report", *COMPARE, "-m", "AP"], "r.tex", "latex"),
    (["report", *COMPARE, "-m", "AP"], "r.md", "markdown"),
])
def test_the_file_name_chooses_the_format(tmp_path, capsys, command, name, fmt):
    named, chosen = tmp_path / name, tmp_path / f"chosen.{name.split('.')[1]}"
    assert cli(capsys, *command, "-o", str(named))[0] == 0
    assert cli(capsys, *command, "-f", fmt, "-o", str(chosen))[0] == 0  # the same as asking for it
    assert named.read_text() == chosen.read_text() and named.read_text()


def test_a_format_the_command_lacks_leaves_its_own(tmp_path, capsys):
    """eval has no Parquet output: -o e.parquet writes its table, as before."""
    out = tmp_path / "e.parquet"
    assert cli(capsys, "eval", *DEMO, "-m", "AP", "-o", str(out))[0] == 0
    assert out.read_text().startswith("measure")


def test_a_format_and_a_file_name_that_disagree(tmp_path, capsys):
    out = tmp_path / "e.csv"
    refused(*cli(capsys, "eval", *DEMO, "-m", "AP", "-f", "json", "-o", str(out)), "-f json and -o",
            "the file's name says csv")
    assert not out.exists()
