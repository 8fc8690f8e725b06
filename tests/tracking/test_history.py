"""--record and sqlrank history: the round trip (values, manifest: rows and SHA-256 of the inputs), appends by
two writers at once that lose nothing, and a file that is no history refused and left byte for byte."""
from __future__ import annotations

import hashlib
import io
import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from conftest import ROOT
from sqlrank.cli.main import main

C = ROOT / "fixtures" / "compare"


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", [".parquet", ".duckdb"])
def test_round_trip(tmp_path, capsys, suffix):
    path = tmp_path / f"history{suffix}"
    first = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "nDCG@10 AP", record=str(path), tag="v1")
    assert main(["eval", str(C / "qrels.txt"), str(C / "baseline.run"), str(C / "rerank.run"), "-m", "AP",
                 "--record", str(path), "--tag", "v2"]) == 0
    assert main(["compare", str(C / "qrels.txt"), str(C / "baseline.run"), str(C / "rerank.run"), "-m", "AP",
                 "--record", str(path)]) == 0
    capsys.readouterr()
    history = sqlrank.history(str(path))
    assert list(history.tag.fillna("")) == ["v1", "v1", "v2", "v2", "", ""]
    assert list(history.command) == ["eval"] * 4 + ["compare"] * 2
    v1 = history[history.tag == "v1"]
    assert list(v1.measure) == ["nDCG@10", "AP"] and list(v1.value) == list(first.value)
    assert set(v1.run) == {"rerank"} and (v1.queries == 60).all() and (v1.run_rows == 6000).all()
    assert (v1.qrels_rows == 2400).all() and (history.qrels_sha256 == sha256(C / "qrels.txt")).all()
    assert set(history[history.run == "rerank"].run_sha256) == {sha256(C / "rerank.run")}
    assert history.conventions.str.startswith("tie_break=trec_eval").all()
    assert history.sqlrank_version.eq(sqlrank.__version__).all()
    assert main(["history", str(path), "-m", "AP"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("AP\nrecorded (UTC)") and "v2   baseline" in text and "nDCG@10" not in text
    assert main(["history", str(path), "-o", str(tmp_path / "trend.html")]) == 0
    page = (tmp_path / "trend.html").read_text()
    assert page.count("<svg") == 2 and "<script" not in page


def _append_many(path, tag: str, times: int) -> subprocess.Popen:
    code = (f"import sqlrank\nfor i in range({times}):\n"
            f"    sqlrank.evaluate({str(C / 'qrels.txt')!r}, {str(C / 'rerank.run')!r}, 'AP', record={str(path)!r}, "
            f"tag='{tag}' + str(i))\n")
    return subprocess.Popen([sys.executable, "-c", code])


@pytest.mark.parametrize("suffix", [".parquet", ".duckdb"])
def test_two_writers_at_once_lose_nothing(tmp_path, suffix):
    path = tmp_path / f"shared{suffix}"
    writers = [_append_many(path, tag, 12) for tag in ("a", "b")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    history = sqlrank.history(str(path))
    assert len(history) == 24 and history.evaluation.nunique() == 24
    assert sorted(history.tag) == sorted(f"{t}{i}" for t in "ab" for i in range(12))


@pytest.mark.parametrize("name, content", [
    ("other.parquet", "parquet"), ("other.duckdb", "duckdb"), ("garbage.parquet", b"not parquet at all"),
    ("garbage.duckdb", b"not a database"),
])
def test_a_file_that_is_no_history_is_refused_and_left_as_it_is(tmp_path, capsys, name, content):
    path = tmp_path / name
    if content == "parquet":
        pd.DataFrame({"a": [1, 2]}).to_parquet(path)
    elif content == "duckdb":
        import duckdb
        with duckdb.connect(str(path)) as con:
            con.execute("CREATE TABLE mine AS SELECT 42 AS answer")
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--record", str(path)]) == 1
    err = capsys.readouterr().err
    assert "history" in err and "Traceback" not in err, err
    assert path.read_bytes() == before
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--record",
                 str(C / "qrels.txt")]) == 1
    assert "is the input" in capsys.readouterr().err


def test_a_history_holds_the_names_asked_and_history_m_takes_either_name(tmp_path, capsys):
    """Recorded under the names asked (HR@10, MAP); history -m finds them by those or by their canonical names
    (Success@10, AP), and says what it holds when a name is none of them."""
    path = tmp_path / "h.parquet"
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "HR@10 MAP", "--record", str(path)]) == 0
    capsys.readouterr()
    assert list(pd.read_parquet(path).measure) == ["HR@10", "MAP"]
    for asked, shown in (("HR@10", "HR@10"), ("Success@10", "HR@10"), ("AP", "MAP"), ("map", "MAP")):
        assert main(["history", str(path), "-m", asked, "-f", "csv"]) == 0
        rows = pd.read_csv(io.StringIO(capsys.readouterr().out))
        assert list(rows.measure) == [shown], asked
    assert main(["history", str(path), "-m", "nDCG@10"]) == 1
    assert "no nDCG@10 recorded; the history holds HR@10, MAP" in capsys.readouterr().err


def test_a_duckdb_history_waits_for_the_writer_that_holds_it(tmp_path, monkeypatch):
    """Ten writers at once (a CI matrix) lost one evaluation's rows about one round in eight, each exiting 0: a writer
    that removed the empty log its commit left removed another writer's log, and its rows. A DuckDB history is
    appended to under the history's lock, as a Parquet one is; a writer that cannot take it in time says so."""
    fcntl = pytest.importorskip("fcntl")
    from sqlrank.tracking import history_file

    path = tmp_path / "h.duckdb"
    sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", record=str(path), tag="first")
    monkeypatch.setattr(history_file, "WAIT_SECONDS", 0.3)
    with open(str(path) + ".lock", "w") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(sqlrank.SqlrankError, match="another writer holds"):
            sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", record=str(path), tag="second")
    sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", record=str(path), tag="third")
    assert list(sqlrank.history(str(path)).tag) == ["first", "third"]


@pytest.mark.slow
def test_ten_duckdb_writers_at_once_lose_nothing(tmp_path):
    path = tmp_path / "shared.duckdb"
    writers = [_append_many(path, f"w{k}-", 4) for k in range(10)]
    assert [w.wait(timeout=600) for w in writers] == [0] * 10
    assert sqlrank.history(str(path)).evaluation.nunique() == 40


def test_a_measure_recorded_under_two_names_is_one_series(tmp_path, capsys):
    """Recorded once as map and once as AP: one series with its change, not two of one row each."""
    path = tmp_path / "h.parquet"
    for name in ("map", "AP"):
        assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", name, "--record", str(path)]) == 0
    capsys.readouterr()
    assert main(["history", str(path), "-m", "AP"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("map (also recorded as AP)\nrecorded (UTC)") and text.count("recorded (UTC)") == 1, text
    assert text.rstrip().splitlines()[-1].endswith("+0.0000"), text  # the change from the value recorded as map
    assert main(["history", str(path), "-o", str(tmp_path / "trend.html")]) == 0
    assert (tmp_path / "trend.html").read_text().count("<svg") == 1


@pytest.mark.parametrize("suffix", [".parquet", ".duckdb"])
def test_a_fifo_named_as_the_history_is_refused_not_waited_on(tmp_path, suffix):
    """--record naming a FIFO blocked for ever on its first read."""
    import os

    path = tmp_path / f"h{suffix}"
    os.mkfifo(path)
    for args in (["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--record", str(path)],
                 ["history", str(path)]):
        done = subprocess.run([sys.executable, "-m", "sqlrank", *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "is a FIFO; a history is a regular .parquet or .duckdb file" in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
