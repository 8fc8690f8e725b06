"""What sqlrank writes is what it says it wrote: a write that fails part way (a full disk) is an error, an output's
name says its format (or the output is refused before anything is read), and a Markdown table keeps its columns
whatever the ids hold."""
from __future__ import annotations

import errno
import io

import pytest

from conftest import FIXTURES
from support.cli import cli

DEMO = FIXTURES / "demo"
COMPARE = FIXTURES / "compare"


class _FullDisk(io.RawIOBase):
    """A file on a disk with ROOM bytes left: a write takes what fits (a short write), the next fails (ENOSPC),
    as a real full disk does."""

    def __init__(self, room: int):
        self.room, self.data = room, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if not self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = bytes(data[:self.room])
        self.data += taken
        self.room -= len(taken)
        return len(taken)


@pytest.mark.parametrize("args", [
    ["trec_eval", "-q", str(DEMO / "qrels.test"), str(DEMO / "results.test")],
    ["pool", str(DEMO / "results.test"), "--depth", "1000", "-f", "csv"],
    ["eval", "-q", str(COMPARE / "qrels.txt"), str(COMPARE / "rerank.run"), "-m", "P@5 P@10 AP nDCG@10 RR bpref"],
])
@pytest.mark.parametrize("unbuffered", [True, False])
def test_a_full_disk_on_standard_output_is_an_error(monkeypatch, capsys, args, unbuffered):
    """Unbuffered (PYTHONUNBUFFERED, python -u), Python's standard output drops what a short write left over: its
    text layer does not look at the count the file took, and 4,719 of 9,001 lines were written, exit 0."""
    disk = _FullDisk(room=100)
    stdout = io.TextIOWrapper(disk if unbuffered else io.BufferedWriter(disk), encoding="utf-8", write_through=True)
    monkeypatch.setattr("sys.stdout", stdout)
    from sqlrank.cli.main import main

    assert main(args) == 1
    err = capsys.readouterr().err
    assert "standard output: cannot write the output: No space left on device" in err, err
    assert len(disk.data) == 100


def _markdown_cells(line: str) -> list[str]:
    """A Markdown table row's cells, as a renderer splits them: at every | that no backslash escapes."""
    import re

    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_a_markdown_table_keeps_its_columns_when_an_id_holds_a_bar(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a|b.run"
    qrels.write_text("q|1 0 d1 1\nq|1 0 d2 0\nq2 0 d1 1\n")
    run.write_text("q|1 Q0 d1 1 2 r\nq|1 Q0 d|2 2 1 r\nq2 Q0 d1 1 1 r\n")
    other = tmp_path / "plain.run"
    other.write_text("q|1 Q0 d|2 1 2 r\nq|1 Q0 d1 2 1 r\nq2 Q0 d1 1 1 r\n")
    tables = []
    for args in (["eval", "-q", str(qrels), str(run), "-m", "P@1 AP"], ["pool", str(run), "--depth", "2"],
                 ["compare", str(qrels), str(other), str(run), "-m", "P@1"],
                 ["compare", str(qrels), str(other), str(run), "-m", "P@1", "--all-pairs"]):
        status, out, err = cli(capsys, *args, "-f", "markdown")
        assert status == 0, err
        for block in out.split("\n\n"):  # all pairs print two tables
            rows = [_markdown_cells(line) for line in block.splitlines() if line.startswith("|")]
            assert len({len(row) for row in rows}) <= 1, rows  # every row as wide as its header
        tables.append([_markdown_cells(line) for line in out.splitlines() if line.startswith("|")])
    assert ["q|1", "P@1", "1.0000"] in tables[0] and ["q|1", "d|2", "2"] in tables[1]
    assert any("a|b" in row for row in tables[2]) and any("a|b" in row for row in tables[3])


def test_an_output_named_gz_is_gzip_and_reads_back(tmp_path, capsys):
    """pool -o pool.csv.gz wrote plain TREC text under a name that says gzipped CSV: sqlrank could not read its
    own pool back."""
    import gzip

    import pandas as pd

    out = tmp_path / "pool.csv.gz"
    status, _, err = cli(capsys, "pool", str(DEMO / "results.test"), "--depth", "5", "-o", str(out))
    assert status == 0, err
    pooled = pd.read_csv(out)  # gzip by its name, CSV within
    assert list(pooled.columns[:2]) == ["query_id", "doc_id"] and len(pooled) == 15
    qrels = tmp_path / "pool.txt.gz"
    assert cli(capsys, "pool", str(DEMO / "results.test"), "--depth", "5", "-o", str(qrels))[0] == 0
    assert gzip.decompress(qrels.read_bytes()).decode().startswith("301 0 ")
    status, out_text, err = cli(capsys, "check", str(qrels), str(DEMO / "results.test"))
    assert "15" in out_text + err  # sqlrank reads the gzipped qrels it wrote
    table = tmp_path / "e.csv.gz"
    assert cli(capsys, "eval", str(DEMO / "qrels.test"), str(DEMO / "results.test"), "-m", "AP", "-o", str(table))[0] == 0
    assert gzip.decompress(table.read_bytes()).decode() == "measure,value\nAP,0.17854506039656948\n"


@pytest.mark.parametrize("args, name, says", [
    (["eval", "missing-qrels", "missing-run", "-m", "AP"], "e.parquet", "the name says parquet, which sqlrank eval "
                                                                       "does not write"),
    (["compare", "missing-qrels", "a", "b", "-m", "AP"], "c.html", "the name says html, which sqlrank compare"),
    (["pool", "missing-run", "--depth", "5"], "p.parquet.gz", "Parquet compresses itself"),
    (["pool", "missing-run", "--depth", "5"], "p.txt.bz2", "sqlrank writes gzip (.gz), not bz2"),
    (["sql", "missing-qrels", "missing-run", "-m", "AP"], "q.parquet", "the name says parquet, which sqlrank sql"),
])
def test_an_output_name_that_says_another_format_is_refused_before_reading(tmp_path, capsys, args, name, says):
    """Refused before anything is read (the inputs here do not exist), and nothing written."""
    out = tmp_path / name
    status, stdout, err = cli(capsys, *args, "-o", str(out))
    assert status == 1 and says in err and "missing" not in err, err
    assert not out.exists()
