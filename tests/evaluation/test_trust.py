"""Inputs that once gave a traceback, a damaged file, runaway resources or a silent wrong number:
each now gives the right number or a one-line error that says what to do."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pytest

import sqlrank
from sqlrank.cli.main import main

QRELS = "q1 0 d1 1\nq1 0 d3 1\n"
RUN = "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\n"


def run_cli(tmp_path, monkeypatch, capsys, args, files=None):
    for name, content in (files or {"qrels": QRELS, "run": RUN}).items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    monkeypatch.chdir(tmp_path)
    status = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


@pytest.mark.parametrize("args, fragment", [
    (["eval", "qrels", "run", "-m", "P.1e400"], "too large for a number"),
    (["trec_eval", "-m", "P.1e400", "qrels", "run"], "too large for a number"),
    (["trec_eval", "-m", "ndcg.1=1e400", "qrels", "run"], "too large for a number"),
    (["eval", "qrels", "run", "-m", "AP", "--threads", "100000"], "threads 100000 must be a whole number from 1 to"),
    (["eval", "qrels", "run", "-m", "AP", "--slices", "100000000"], "slices 100000000 must be a whole number from 1 to"),
    (["eval", "qrels", "run", "-m", "AP", "-o", "no-such-folder/out.txt"], "no-such-folder/out.txt: cannot write"),
])
def test_bad_numbers_and_bounds_are_one_line_errors(tmp_path, monkeypatch, capsys, args, fragment):
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, args)
    assert status == 1 and out == "" and err.count("\n") == 1 and fragment in err, err


@pytest.mark.parametrize("command", [["eval", "qrels", "RUN", "-m", "AP"], ["check", "qrels", "RUN"],
                                     ["sql", "qrels", "RUN", "-m", "AP"], ["trec_eval", "qrels", "RUN"]])
def test_a_file_name_that_is_not_utf8_is_named_not_a_crash(tmp_path, monkeypatch, capsys, command):
    name = os.fsdecode(b"r\xe9.txt")
    (tmp_path / name).write_text(RUN)
    args = [name if a == "RUN" else a for a in command]
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, args)
    assert status == 1 and "not valid UTF-8" in err and "rename" in err


def test_output_into_a_device_or_fifo_writes_into_it(tmp_path, monkeypatch, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-f", "csv", "-o", "fifo"])
    reader.join(10)
    assert status == 0 and received == ["measure,value\nAP,0.5\n"]
    assert fifo.is_fifo()  # still a FIFO, not replaced by a regular file
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-o", os.devnull])
    assert status == 0 and not os.path.isfile(os.devnull)


@pytest.mark.parametrize("name, content", [("data.csv", "a,b\n1,2\n"), ("data.parquet", None)])
def test_install_refuses_a_data_file(tmp_path, monkeypatch, capsys, name, content):
    if content is None:
        duckdb.sql(f"COPY (SELECT 1 AS a) TO '{tmp_path / name}' (FORMAT parquet)")
    before = (tmp_path / name).read_bytes() if content is None else content.encode()
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["install", name], {name: before})
    assert status == 1 and "is not a DuckDB database file" in err
    assert (tmp_path / name).read_bytes() == before


def test_float32_scores_overflow_to_infinity_as_in_c(tmp_path):
    # pytrec_eval compares (float) scores: 1e308 and 1e39 both become +inf and tie, broken by doc id
    # (expected 0.5833 = (1/2 + 2/3) / 2, what pytrec_eval-terrier gives for these dicts).
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text("q1 Q0 d1 1 1e308 t\nq1 Q0 d2 2 1e39 t\nq1 Q0 d3 3 1 t\n")
    got = sqlrank.evaluate(tmp_path / "q", tmp_path / "r", "AP", preset="pytrec_eval")
    assert got.value.iloc[0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-12)


@pytest.mark.parametrize("qrels, measure", [
    ("q1 0 d1 1024\nq1 0 d2 3\n", "nDCG(gain=exponential)@10"),
    ("q1 0 d1 1\nq1 0 d2 2\n", "nDCG(gain={1: 1.7e308, 2: 1.7e308})"),
])
def test_gains_beyond_a_double_are_an_error_not_an_empty_value(tmp_path, qrels, measure):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    with pytest.raises(sqlrank.SqlrankError, match="gains overflow a double"):
        sqlrank.evaluate(tmp_path / "q", tmp_path / "r", measure)


def test_exponential_gain_of_label_1023_is_exact(tmp_path):
    (tmp_path / "q").write_text("q1 0 d1 1023\nq1 0 d2 3\n")
    (tmp_path / "r").write_text("q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\n")
    got = sqlrank.evaluate(tmp_path / "q", tmp_path / "r", "nDCG(gain=exponential)")
    dcg, ideal = 7 + (2.0 ** 1023 - 1) / 1.584962500721156, (2.0 ** 1023 - 1) + 7 / 1.584962500721156
    assert got.value.iloc[0] == pytest.approx(dcg / ideal, rel=1e-12)


@pytest.fixture(scope="module")
def large_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("large")
    duckdb.sql(f"COPY (SELECT 'q' || (i % 5000) AS query_id, 'd' || i AS doc_id, hash(i) % 1000 / 7.0 AS score "
               f"FROM range(4000000) t(i)) TO '{folder / 'run.parquet'}' (FORMAT parquet)")
    duckdb.sql(f"COPY (SELECT 'q' || (i % 5000) AS query_id, 'd' || i AS doc_id, (i % 3)::INTEGER AS relevance "
               f"FROM range(0, 4000000, 9) t(i)) TO '{folder / 'qrels.parquet'}' (FORMAT parquet)")
    return folder


@pytest.mark.parametrize("sig, status, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_during_a_query_stops_cleanly_and_removes_spill_files(large_run, tmp_path, sig, status, word):
    spill = tmp_path / "spill"
    proc = subprocess.Popen([sys.executable, "-m", "sqlrank", "eval", str(large_run / "qrels.parquet"),
                             str(large_run / "run.parquet"), "-m", "AP nDCG@10 IPrec@0.5", "--threads", "1",
                             "--memory-limit", "40MB", "--temp-directory", str(spill)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None and not any(spill.rglob("*")):
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.fail(f"the evaluation ended before it spilled: {proc.communicate()[1].decode()[-300:]}")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status and err.decode() == f"sqlrank: {word}\n"
    assert not [p for p in spill.rglob("*") if p.is_file()]


def test_copies_of_text_inputs_live_in_a_temporary_folder_removed_at_the_end(tmp_path, monkeypatch):
    # TREC text is read once into a Parquet file in a folder of sqlrank's own (in --temp-directory when
    # given), never beside the inputs; the folder goes on close, or when an unclosed registry is collected.
    # A file of a few megabytes is read into a temporary table of the connection instead: no folder at all
    import gc

    from sqlrank.inputs import store
    from sqlrank.inputs.load import load
    from sqlrank.inputs.store import Registry

    (tmp_path / "run.txt").write_text(RUN)
    spill = tmp_path / "spill"
    spill.mkdir()
    con = duckdb.connect()
    small = Registry(con, str(spill))
    source = load(str(tmp_path / "run.txt"), "run", con, small)
    assert con.execute(f"SELECT count(*) FROM ({source.sql()}) AS run").fetchall() == [(2,)]
    assert not list(spill.iterdir()) and source.table in small.tables
    small.close()
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()[0][0]
    monkeypatch.setattr(store, "SMALL_INPUT", 0)  # as a file of more than a few megabytes is read
    for close in (True, False):
        registry = Registry(con, str(spill))
        source = load(str(tmp_path / "run.txt"), "run", con, registry)
        (folder,) = spill.iterdir()
        assert [p.suffix for p in folder.iterdir() if p.name != ".owner"] == [".parquet"]
        assert con.execute(f"SELECT count(*) FROM ({source.sql()}) AS run").fetchall() == [(2,)]
        if close:
            registry.close()
        else:
            del registry, source
            gc.collect()
        assert not list(spill.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt", "spill"]
    (tmp_path / "qrels.txt").write_text(QRELS)
    got = sqlrank.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "P@2", temp_directory=spill)
    assert list(got.value) == [0.5] and not list(spill.iterdir())
    # a child forked off the process leaves its folder alone when it exits
    script = ("import os, sys, duckdb\nfrom sqlrank.inputs.load import load\nfrom sqlrank.inputs.store import Registry\n"
              "import sqlrank.inputs.store\nsqlrank.inputs.store.SMALL_INPUT = 0\n"
              "con = duckdb.connect()\nregistry = Registry(con, sys.argv[2])\nload(sys.argv[1], 'run', con, registry)\n"
              "child = os.fork()\nif child == 0:\n    sys.exit(0)\nos.waitpid(child, 0)\n"
              "print(len(os.listdir(sys.argv[2])))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "run.txt"), str(spill)], capture_output=True,
                          text=True, check=True)
    assert done.stdout == "1\n" and not list(spill.iterdir())  # there in the parent after the child, gone at its exit


def test_the_copies_of_a_killed_process_are_removed_by_the_next(tmp_path, monkeypatch):
    """A TREC evaluation killed with SIGKILL left its copies in the temporary folder for ever; the next sqlrank that
    makes its own folder there removes them, and never those of a process that is alive."""
    from sqlrank.inputs import store

    monkeypatch.setattr(store, "SMALL_INPUT", 0)  # the files here are small: read as files of more than 8 MB are
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "qrels.txt").write_text(QRELS)
    spill = tmp_path / "spill"
    spill.mkdir()
    script = ("import os, sys, duckdb\nfrom sqlrank.inputs.load import load\nfrom sqlrank.inputs.store import Registry\n"
              "import sqlrank.inputs.store\nsqlrank.inputs.store.SMALL_INPUT = 0\n"
              "con = duckdb.connect()\nregistry = Registry(con, sys.argv[2])\nload(sys.argv[1], 'run', con, registry)\n"
              "print('ready', flush=True)\n"
              "os.kill(os.getpid(), 9) if sys.argv[3] == 'kill' else sys.stdin.read()\n")
    killed = subprocess.run([sys.executable, "-c", script, str(tmp_path / "run.txt"), str(spill), "kill"],
                            capture_output=True, text=True)
    assert killed.returncode == -9 and len(list(spill.iterdir())) == 1  # left behind
    (orphan,) = spill.iterdir()
    alive = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "run.txt"), str(spill), "wait"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert alive.stdout.readline() == "ready\n"
        (living,) = set(spill.iterdir()) - {orphan}  # made after the orphan was, which it removed already
        got = sqlrank.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "P@2", temp_directory=spill)
        assert list(got.value) == [0.5]
        assert len(list(spill.iterdir())) == 1 and living.exists()  # the killed one's gone, the living one's kept
    finally:
        alive.communicate("", timeout=60)
    assert not list(spill.iterdir())


def test_a_spill_folder_that_cannot_be_made_is_not_blamed_on_the_input(large_run):
    # a working folder where nothing can be made (a read-only folder, as any user): DuckDB spills into .tmp
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(large_run / "qrels.parquet"),
                           str(large_run / "run.parquet"), "-m", "AP nDCG@10", "--threads", "1", "--memory-limit",
                           "40MB"], cwd="/proc/self", capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith("sqlrank: error: DuckDB could not make its spill folder")
    assert "--temp-directory" in done.stderr and "run.parquet" not in done.stderr


def test_a_path_that_exists_is_that_file_whatever_its_characters(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "run[1].txt").write_text("q1 Q0 d1 1 1 t\nq1 Q0 d3 2 0.5 t\n")
    (tmp_path / "run1.txt").write_text("q1 Q0 d2 1 1 t\n")  # what the pattern run[1].txt would match
    (tmp_path / "what?.csv").write_text("query_id,doc_id,score\nq1,d1,1\nq1,d3,0.5\n")
    (tmp_path / "whatX.csv").write_text("query_id,doc_id,score\nq1,d2,1\n")
    for name in ("run[1].txt", "what?.csv"):
        got = sqlrank.evaluate(tmp_path / "q", tmp_path / name, "AP")
        assert got.value.iloc[0] == 1.0, name
    (tmp_path / "what?.csv").unlink()  # now a pattern: it matches whatX.csv
    assert sqlrank.evaluate(tmp_path / "q", str(tmp_path / "what?.csv"), "AP").value.iloc[0] == 0.0

    # DuckDB expands no glob in a path holding a backslash: it reads such a file as written
    folder = tmp_path / "a \\ b"
    folder.mkdir()
    (folder / "q*.csv").write_text("query_id,doc_id,score\nq1,d1,1\nq1,d3,0.5\n")
    (folder / "qZ.csv").write_text("query_id,doc_id,score\nq1,d2,1\n")
    assert sqlrank.evaluate(tmp_path / "q", folder / "q*.csv", "AP").value.iloc[0] == 1.0


@pytest.mark.parametrize("files, fragments", [
    ({"run.csv": "query_id,doc_id,score,score\nq1,d1,1,2\n"}, ["run.csv:1:", "'score' twice", "columns 3 and 4"]),
    ({"run.csv": "query_id,doc_id,score\nq1,d1,\n"}, ["run.csv:2:", "empty score", "'d1'"]),
    ({"run.csv": b"query_id,doc_id,score\nq1,d1,1\nq1,d\xe92,1\n"}, ["run.csv:", "line 3 is not UTF-8", "iconv"]),
    ({"run.csv": b"q1 Q0 d\xe91 1 1 t\n"}, ["line 1 is not UTF-8"]),
])
def test_unclear_input_errors_say_where_and_what_to_do(tmp_path, monkeypatch, capsys, files, fragments):
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run.csv", "-m", "AP"],
                             {"qrels": QRELS, **files})
    assert status == 1 and err.count("\n") == 1
    for fragment in fragments:
        assert fragment in err, err


def test_the_format_sniffing_reads_a_bounded_head_of_the_file(tmp_path):
    import gzip

    from sqlrank.inputs import store as inputs
    with gzip.open(tmp_path / "blank.gz", "wb") as f:
        f.write(b"\n" * 50_000_000 + b"q1 Q0 d1 1 1 t\n")
    start = time.perf_counter()
    assert inputs.guess_split(str(tmp_path / "blank.gz"), "run") == "regex"
    assert time.perf_counter() - start < 1.0  # reads one MiB, not 50 million blank lines
    (tmp_path / "long").write_bytes(b"q1 Q0 " + b"d" * (8 << 20) + b" 1 1 t\n")
    assert inputs.guess_split(str(tmp_path / "long"), "run") == "regex"  # a cut line is not looked at


# A recommender's top-k output: ranks, no score. Expected by hand: user u1 ranks i1 (relevant), i9, i2
# (relevant): P@1 = 1, AP = (1/1 + 2/3) / 2; u2 ranks i4, i3 (relevant): P@1 = 0, AP = 1/2.
RANKED = "user_id,item_id,rank\nu1,i1,1\nu1,i9,2\nu1,i2,3\nu2,i4,1\nu2,i3,2\n"
RANKED_QRELS = "u1 0 i1 1\nu1 0 i2 1\nu2 0 i3 1\n"
RANKED_EXPECTED = {"P@1": 0.5, "AP": ((1 + 2 / 3) / 2 + 1 / 2) / 2}


@pytest.mark.parametrize("layout", ["csv", "parquet", "dataframe"])
def test_a_rank_only_run_ranks_by_its_rank(tmp_path, layout):
    import pandas as pd
    (tmp_path / "q").write_text(RANKED_QRELS)
    (tmp_path / "r.csv").write_text(RANKED)
    run = {"csv": tmp_path / "r.csv", "parquet": tmp_path / "r.parquet",
           "dataframe": pd.read_csv(tmp_path / "r.csv")}[layout]
    if layout == "parquet":
        pd.read_csv(tmp_path / "r.csv").to_parquet(run)
    got = sqlrank.evaluate(tmp_path / "q", run, "P@1 AP", run_columns={"query_id": "user_id", "doc_id": "item_id"})
    assert dict(zip(got.measure, got.value)) == pytest.approx(RANKED_EXPECTED, abs=1e-12)


def test_a_score_mapped_to_a_rank_column_is_warned_about(tmp_path, monkeypatch, capsys):
    args = ["eval", "q", "r.csv", "-m", "P@1", "--run-columns", "query_id=user_id,doc_id=item_id,score=rank"]
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, args, {"q": RANKED_QRELS, "r.csv": RANKED})
    assert status == 0 and "named like a rank" in err and "rank=rank" in err
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, args + ["--strict"], {"q": RANKED_QRELS, "r.csv": RANKED})
    assert status == 1 and out == "" and "named like a rank" in err


@pytest.mark.parametrize("fmt, text", [("csv-noheader", "u1,i1,0.5\nu1,i2,0.4\nu2,i3,0.9\n"),
                                       ("tsv-noheader", "u1\ti1\t0.5\nu1\ti2\t0.4\nu2\ti3\t0.9\n")])
def test_a_headerless_file_is_named_and_read_by_position(tmp_path, monkeypatch, capsys, fmt, text):
    suffix = fmt[:3]
    files = {"q": "u1 0 i2 1\nu2 0 i3 1\n", f"r.{suffix}": text}
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "q", f"r.{suffix}", "-m", "AP"], files)
    assert status == 1 and "looks like data, not a header" in err and f"--run-format {fmt}" in err
    # u1: i1, then i2 (relevant): AP 1/2; u2: i3 (relevant): AP 1; no row is lost to a header
    got = sqlrank.evaluate(tmp_path / "q", tmp_path / f"r.{suffix}", "AP NumRet", run_format=fmt, per_query=True)
    assert dict(zip(zip(got.query_id, got.measure), got.value)) == {
        ("u1", "AP"): 0.5, ("u1", "NumRet"): 2, ("u2", "AP"): 1.0, ("u2", "NumRet"): 1}


def test_a_carriage_return_inside_a_trec_line_is_white_space(tmp_path):
    # trec_eval splits lines at line feeds and fields at any white space, \r included
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "cr").write_bytes(b"q1 Q0 d1 1\r1 t\nq1 Q0 d2 2 0.5 t\r\nq1\rQ0\rd3 3 0.25 t\n")
    (tmp_path / "plain").write_text("q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\nq1 Q0 d3 3 0.25 t\n")
    measures = "AP NumRet P@2"
    got = sqlrank.evaluate(tmp_path / "q", tmp_path / "cr", measures)
    assert got.equals(sqlrank.evaluate(tmp_path / "q", tmp_path / "plain", measures))
    (tmp_path / "bad").write_bytes(b"q1 Q0 d1 1\r1 t\nq1 Q0 d2 2 0.5\n")
    with pytest.raises(sqlrank.SqlrankError, match=r"bad:2: malformed run line"):
        sqlrank.evaluate(tmp_path / "q", tmp_path / "bad", "AP")


@pytest.mark.parametrize("text, fragment", [
    ("q1 Q0 d1 1 1 t\nq1 Q0 " + "x" * 3_000_000 + " 2 0.5 t\nq1 Q0 d3 3 0.25 t\n", "line 2 is longer than DuckDB's limit"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 " + "x" * 33_000_000 + " 2 0.5 t\nq1 Q0 d3 3 0.25 t\n", "a line is too long"),
    # DuckDB drops a last line longer than its 32 MB buffer without a word (NumRet 10 instead of 11)
    ("".join(f"q1 Q0 d{i} {i} 1 t\n" for i in range(10)) + "q1 Q0 " + "x" * 33_000_000 + " 2 0.5 t\n",
     "its last line is longer"),
    ("q1 Q0 " + "x" * 33_000_000 + " 1 1 t\n", "its last line is longer"),
])
def test_a_line_longer_than_duckdbs_limit_is_named_never_dropped(tmp_path, monkeypatch, capsys, text, fragment):
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "NumRet"],
                             {"qrels": QRELS, "run": text})
    assert status == 1 and fragment in err, err


# A caller's connection may have settings that change what a statement computes. The ranking below, worked
# by hand: d1 (unjudged; D1 is another document), D1 (relevant), d2 (judged nonrelevant).
CASE_QRELS = "q1 0 D1 1\nq1 0 d2 0\n"
CASE_RUN = "q1 Q0 d1 1 3 t\nq1 Q0 D1 2 2 t\nq1 Q0 d2 3 1 t\n"
BY_HAND = {"AP": 0.5, "RR": 0.5, "P@1": 0.0, "nDCG": 1 / 1.5849625007211563, "Bpref": 1.0}


@pytest.mark.parametrize("setting", ["default_order = 'desc'", "default_collation = 'nocase'",
                                     "default_null_order = 'nulls_first'", "integer_division = true",
                                     "preserve_insertion_order = false"])
def test_a_callers_connection_settings_change_no_number_and_are_put_back(tmp_path, setting):
    (tmp_path / "qrels.txt").write_text(CASE_QRELS)
    (tmp_path / "run.txt").write_text(CASE_RUN)
    con = duckdb.connect()
    con.execute(f"SET {setting}")
    before = con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall()
    got = sqlrank.evaluate(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), list(BY_HAND), connection=con)
    assert dict(zip(got["measure"], got["value"])) == pytest.approx(BY_HAND, abs=1e-12)
    assert list(got["measure"]) == list(BY_HAND)
    assert con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall() == before


def test_a_locked_connection_that_would_change_the_numbers_is_refused(tmp_path):
    (tmp_path / "qrels.txt").write_text(CASE_QRELS)
    (tmp_path / "run.txt").write_text(CASE_RUN)
    con = duckdb.connect()
    con.execute("SET default_order = 'desc'")
    con.execute("SET lock_configuration = true")
    with pytest.raises(sqlrank.OptionError, match="your connection sets default_order = 'DESC'.*leave out connection="):
        sqlrank.evaluate(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "AP", connection=con)
