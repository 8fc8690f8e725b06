"""The progress line: labelled, on standard error, only when that is a terminal, and cleared when
the step ends, so that neither the results nor a log file ever holds it."""
from __future__ import annotations

import io

import duckdb
import pytest

from conftest import FIXTURES
from sqlrank import progress
from sqlrank.cli.main import main

DEMO = FIXTURES / "demo"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.01)


def test_a_step_shows_its_label_and_how_far_then_clears_it(quick):
    con = duckdb.connect()
    progress.configure(con, True)
    out = Terminal()
    with progress.step(con, "evaluating 3 run rows", stream=out):
        con.execute("SELECT count(*) FROM range(300000000) t(i) WHERE i % 7 = 3").fetchall()
    progress.forget(con)
    text = out.getvalue()
    assert text.startswith("\rsqlrank: evaluating 3 run rows")
    assert "%" in text and text.endswith("\r\x1b[K")


@pytest.mark.parametrize("terminal", [True, False])
def test_the_command_line_shows_it_on_a_terminal_only(quick, monkeypatch, capsys, terminal):
    err = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    assert main(["trec_eval", "-m", "all_trec", str(DEMO / "qrels.test"), str(DEMO / "results.test")]) == 0
    lines = err.getvalue()
    if terminal:
        assert "\rsqlrank: evaluating 1,500 run rows: " in lines and "%" in lines, lines
        assert lines.endswith("\r\x1b[K")
    else:
        assert lines == ""
    assert "sqlrank:" not in capsys.readouterr().out  # the results stay clean
