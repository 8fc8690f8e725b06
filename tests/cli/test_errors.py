"""Bad input gets a one-line error on stderr that names the place and the fix, a non-zero
exit, nothing on stdout and no traceback."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sqlrank.cli.main import main
from sqlrank.errors import InputError

GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"
GOOD_RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 0.5 t\n"

# name, files {name: content}, arguments after "eval", fragments the error must contain
CASES = [
    ("missing file", {"run.txt": GOOD_RUN}, ["nope.txt", "run.txt", "-m", "AP"],
     ["nope.txt", "no such qrels file"]),
    ("unknown format", {"qrels.json": "{}", "run.txt": GOOD_RUN}, ["qrels.json", "run.txt", "-m", "AP"],
     ["qrels.json", "unknown format '.json'", "--qrels-format"]),
    ("missing column", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,weight\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"], ["run.csv", "no column 'score'", "--run-columns score=NAME"]),
    ("missing column with a usual name", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,pred\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"], ["run.csv", "no column 'score'", "--run-columns score=pred "]),
    ("columns named in another case", {"qrels.txt": GOOD_QRELS, "run.csv": "Query_ID,Doc-Id,SCORE\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"],
     ["column names are case-sensitive: map them with --run-columns query_id=Query_ID,doc_id=Doc-Id,score=SCORE "]),
    ("a rank column that holds scores", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,rank\nq1,d1,0.93\n"},
     ["qrels.txt", "run.csv", "-m", "AP"],
     ["run.csv:2: rank '0.93' (column 'rank')", "is no whole number >= 0", "ranked by its rank (1 = best)",
      "--run-columns score=rank"]),
    ("a negative rank", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,rank\nq1,d1,1\nq1,d2,-1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"], ["run.csv:3: rank '-1'", "no whole number >= 0"]),
    ("CSV separated by semicolons", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id;doc_id;score\nq1;d1;1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"],
     ["run.csv: no columns", "the file looks separated by ';'", "save it with commas, or as Parquet"]),
    ("CSV separated by tabs", {"qrels.csv": "query_id\tdoc_id\trelevance\nq1\td1\t1\n", "run.txt": GOOD_RUN},
     ["qrels.csv", "run.txt", "-m", "AP"], ["qrels.csv: no columns", "separated by tabs", "--qrels-format tsv"]),
    ("misnamed mapping", {"qrels.txt": GOOD_QRELS, "run.csv": "user,item,pred\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP", "--run-columns", "query_id=user,doc_id=item,score=Pred"],
     ["no column 'Pred'", "did you mean 'pred'"]),
    ("mapping a column that does not exist", {"qrels.txt": GOOD_QRELS, "run.csv": "a,b,c\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP", "--run-columns", "label=a"], ["cannot map run column 'label'"]),
    ("malformed run line", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN + "q2 Q0 d7\n"},
     ["qrels.txt", "run.txt", "-m", "AP"], ["run.txt:4:", "malformed run line", "found 3", "q2 Q0 d7"]),
    ("malformed qrels line after comments", {"qrels.txt": "# c\n\n" + GOOD_QRELS + "q3 d9 1\n", "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP"], ["qrels.txt:6:", "expected 4 fields"]),
    ("null query id", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,score\nq1,d1,1\n,d2,3\n"},
     ["qrels.txt", "run.csv", "-m", "AP"], ["run.csv:3:", "empty query_id"]),
    ("null doc id", {"qrels.csv": "query_id,doc_id,relevance\nq1,,1\n", "run.txt": GOOD_RUN},
     ["qrels.csv", "run.txt", "-m", "AP"], ["qrels.csv:2:", "empty doc_id"]),
    ("nan score", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN + "q2 Q0 d8 2 nan t\n"},
     ["qrels.txt", "run.txt", "-m", "AP"], ["run.txt:4:", "NaN", "d8"]),
    ("non-numeric score", {"qrels.txt": GOOD_QRELS, "run.txt": "q1 Q0 d1 1 high t\n"},
     ["qrels.txt", "run.txt", "-m", "AP"], ["run.txt:1:", "'high'", "not a number"]),
    ("relevance that is no number", {"qrels.txt": "q1 0 d1 1.5.1\n", "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP"], ["qrels.txt:1:", "'1.5.1'", "not a label", "finite numbers such as"]),
    ("non-numeric relevance in csv", {"qrels.csv": "query_id,doc_id,relevance\nq1,d1,2\nq1,d2,high\n",
                                      "run.txt": GOOD_RUN},
     ["qrels.csv", "run.txt", "-m", "AP"], ["qrels.csv:3:", "'high'"]),
    ("duplicate in run", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN + "q1 Q0 d1 3 0.1 t\n"},
     ["qrels.txt", "run.txt", "-m", "AP"], ["run.txt:1:", "'d1'", "2 times", "'q1'", "run.txt:4"]),
    ("duplicate in qrels", {"qrels.txt": GOOD_QRELS + "q2 0 d1 0\n", "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP"], ["qrels.txt:3:", "judged 2 times", "qrels.txt:4"]),
    ("empty file", {"qrels.txt": GOOD_QRELS, "run.txt": ""}, ["qrels.txt", "run.txt", "-m", "AP"],
     ["run.txt", "no data rows", "missing_queries=zero"]),
    ("only comments", {"qrels.txt": "# nothing\n\n", "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "AP"],
     ["qrels.txt", "no data rows"]),
    ("empty csv", {"qrels.txt": GOOD_QRELS, "run.csv": "query_id,doc_id,score\n"},
     ["qrels.txt", "run.csv", "-m", "AP"], ["run.csv", "no data rows"]),
    ("no common query", {"qrels.txt": "1 0 d1 1\n", "run.txt": "01 Q0 d1 1 1 t\n"},
     ["qrels.txt", "run.txt", "-m", "AP"], ["no query is in both", "'01' is not '1'"]),
    ("unknown measure", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "nDGC@10"],
     ["unknown measure 'nDGC'", "did you mean", "nDCG"]),
    ("unknown trec measure", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "ndcg_cutt.10"],
     ["unknown trec_eval measure 'ndcg_cutt'", "ndcg_cut"]),
    ("cutoff zero", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "P@0"],
     ["bad cutoff", "positive integer"]),
    ("cutoff not a number", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "P@x"],
     ["bad cutoff in 'P@x'"]),
    ("trec cutoff zero", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "P.0"],
     ["bad cutoff '0'"]),
    ("cutoff on a measure without one", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "Rprec@10"], ["Rprec takes no cutoff"]),
    ("rel on nDCG", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "nDCG(rel=2)@10"],
     ["nDCG takes no 'rel'"]),
    ("bad depth", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "AP", "-M", "0"],
     ["depth must be a positive integer"]),
    ("folder", {"qrels.txt": GOOD_QRELS, "runs/x": ""}, ["qrels.txt", "runs", "-m", "AP"], ["runs", "is a folder"]),
    ("corrupt parquet", {"qrels.txt": GOOD_QRELS, "run.parquet": "not parquet"}, ["qrels.txt", "run.parquet", "-m", "AP"],
     ["run.parquet", "cannot read it as parquet"]),
    ("gzip parquet", {"qrels.txt": GOOD_QRELS, "run.parquet.gz": "x"}, ["qrels.txt", "run.parquet.gz", "-m", "AP"],
     ["gzip-compressed Parquet"]),
    ("float ids", {"qrels.txt": GOOD_QRELS, "run.parquet": None}, ["qrels.txt", "run.parquet", "-m", "AP"],
     ["query_id", "DOUBLE", "store them as strings"]),
    ("decimal ids", {"qrels.txt": GOOD_QRELS, "run.parquet": "decimal"}, ["qrels.txt", "run.parquet", "-m", "AP"],
     ["query_id", "DECIMAL", "store them as strings"]),
    ("memory limit not a size", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP", "--memory-limit", "lots"], ["memory_limit 'lots' is not a size", "4GB"]),
    ("memory limit too small", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP", "--memory-limit", "100KB"], ["Out of Memory", "raise the limit",
                                                                      "--memory-limit", "--slices N"]),
    ("no slices", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP", "--slices", "0"], ["slices 0", "from 1 to 1000 "]),
    ("no threads", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP", "--threads", "0"], ["threads 0", "must be a whole number from 1 to"]),
    ("temp directory is a file", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "AP", "--temp-directory", "run.txt"], ["temp_directory 'run.txt' is a file"]),
    ("negative cutoff", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN}, ["qrels.txt", "run.txt", "-m", "P@-3"],
     ["'P@-3'", "must be positive, not -3"]),
    ("measures separated by a comma", {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN},
     ["qrels.txt", "run.txt", "-m", "nDCG@10,AP"], ["separated by spaces, not commas", "-m 'nDCG@10 AP'"]),
    ("every missing column named", {"qrels.txt": GOOD_QRELS, "run.csv": "qid,docno,sim\nq1,d1,1\n"},
     ["qrels.txt", "run.csv", "-m", "AP"],
     ["no columns 'query_id', 'doc_id', 'score'", "(columns: qid, docno, sim)",
      "--run-columns query_id=qid,doc_id=docno,score=sim "]),
]

# messages that once read badly: (arguments after "eval", the message exactly)
EXACT = [
    (["-m", "nDCG(gain=exp)@10"], "gain must be one of linear, exponential, signed, not 'exp' (in 'nDCG(gain=exp)@10')"),
]


def write_files(tmp_path, files):
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content in (None, "decimal"):  # a Parquet file whose query ids are floats or decimals
            import duckdb
            qid = "1.5::DOUBLE" if content is None else "1.5"
            duckdb.sql(f"COPY (SELECT {qid} AS query_id, 'd1' AS doc_id, 1.0 AS score) TO '{path}' (FORMAT parquet)")
        else:
            path.write_text(content)


@pytest.mark.parametrize("name, files, args, fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input(tmp_path, monkeypatch, capsys, name, files, args, fragments):
    write_files(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    assert code != 0
    assert out == ""
    assert err.startswith("sqlrank: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in {err!r}"


def test_real_process_exit_status_and_no_traceback(tmp_path):
    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN + "q1 Q0 d1 3 0.1 t\n"})
    proc = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "qrels.txt", "run.txt", "-m", "AP"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_engine_options_are_not_forced_on_the_callers_connection():
    import duckdb

    import sqlrank

    con = duckdb.connect()
    with pytest.raises(sqlrank.OptionError, match="memory_limit cannot be changed on your connection"):
        sqlrank.evaluate(pd_frame(GOOD_QRELS, 4), pd_frame(GOOD_RUN, 6), "AP", connection=con, memory_limit="1GB")
    assert con.execute("SELECT current_setting('threads')").fetchall()[0][0] >= 1  # still usable


def pd_frame(text, width):
    import pandas as pd

    rows = [line.split() for line in text.splitlines()]
    if width == 4:
        return pd.DataFrame([(q, d, int(r)) for q, _, d, r in rows], columns=["query_id", "doc_id", "relevance"])
    return pd.DataFrame([(q, d, float(s)) for q, _, d, _, s, _ in rows], columns=["query_id", "doc_id", "score"])


def test_usage_errors_exit_2_without_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "q", "r", "-m", "AP", "--format", "xml"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_output_file_written_only_on_success(tmp_path, monkeypatch, capsys):
    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN, "bad.txt": "q1 Q0 d1\n"})
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out.csv").write_text("previous results\n")
    assert main(["eval", "qrels.txt", "bad.txt", "-m", "AP", "-f", "csv", "-o", "out.csv"]) == 1
    assert (tmp_path / "out.csv").read_text() == "previous results\n"
    assert main(["eval", "qrels.txt", "run.txt", "-m", "AP", "-f", "csv", "-o", "out.csv"]) == 0
    assert (tmp_path / "out.csv").read_text() == "measure,value\nAP,1.0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "out.csv", "qrels.txt", "run.txt"]
    # inputs are never modified
    assert (tmp_path / "run.txt").read_text() == GOOD_RUN


@pytest.fixture
def registry():
    """A registry of sqlrank's copies over a fresh DuckDB connection (registry.con), closed after the test."""
    import duckdb

    from sqlrank.inputs.store import Registry

    made = Registry(duckdb.connect())
    yield made
    made.close()


def test_a_hash_collision_alone_is_not_reported_as_a_duplicate(tmp_path, registry):
    """validate() sorts a 64-bit hash of each (query, document); two equal neighbours mean a
    duplicate or a collision, and the exact check that follows must tell them apart."""
    from sqlrank.inputs import load as inputs, validate as validation

    write_files(tmp_path, {"run.txt": GOOD_RUN, "dup.txt": GOOD_RUN + "q2 Q0 d1 2 0.1 t\n"})
    con = registry.con
    clean = inputs.load(str(tmp_path / "run.txt"), "run", con, registry)
    assert validation.report_duplicates(clean, con, clean.sql("raw")) is None  # what a collision leads to
    with pytest.raises(InputError, match=r"dup.txt:3: document 'd1' is ranked 2 times"):
        inputs.load(str(tmp_path / "dup.txt"), "run", con, registry)


def test_copies_of_a_pair_that_differ_in_what_validation_counts_are_still_duplicates(tmp_path, registry):
    """What validation counts on its way (a label with a fraction, an id not in normal form) rides in the
    lowest bits of each pair's hash; two copies of a pair are neighbours whatever those bits say."""
    from sqlrank.inputs.load import load

    write_files(tmp_path, {"qrels.csv": "query_id,doc_id,relevance\nq1,d1,1\nq1,d2,0\nq1,d1,0.5\n"})
    with pytest.raises(InputError, match=r"qrels.csv:2: .*'d1'.* judged 2 times"):
        load(str(tmp_path / "qrels.csv"), "qrels", registry.con, registry)


@pytest.mark.parametrize("kind, text, odd", [
    ("qrels", "q1 0 d1 1\nq1 0 07 1\nq1 0 d2 0\n", 1),  # a leading zero: the judged side's every odd id
    ("qrels", "q1 0 d1 1\nq1 0 caf\u00e9 1\n", 1),
    ("qrels", "q1 0 d1 1\nq1 0 d2 0\n", 0),
    ("run", "q1 Q0 caf\u00e9 1 2 t\nq1 Q0 d1 2 1 t\nq2 Q0 cafe\u0301 1 1 t\n", 2),  # beyond ASCII
    ("run", "q1 Q0 07 1 2 t\nq1 Q0 d1 2 1 t\n", 0),  # the run's leading zeros are not looked for in an evaluation
])
def test_validation_counts_the_document_ids_not_in_normal_form(tmp_path, registry, kind, text, odd):
    from sqlrank.inputs.load import load

    (tmp_path / kind).write_text(text, encoding="utf-8")
    assert load(str(tmp_path / kind), kind, registry.con, registry).odd_ids == odd


def test_an_evaluation_looks_for_near_document_ids_only_where_validation_counted_odd_ones(tmp_path, monkeypatch):
    import sqlrank
    from sqlrank import diagnostics

    looked = []
    monkeypatch.setattr(diagnostics, "near_documents", lambda *args, **kwargs: looked.append(args) or (0, []))
    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN, "odd.txt": GOOD_QRELS + "q1 0 07 0\n"})
    sqlrank.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "AP")
    assert looked == []
    sqlrank.evaluate(tmp_path / "odd.txt", tmp_path / "run.txt", "AP")
    assert len(looked) == 1


def test_output_file_gets_ordinary_permissions(tmp_path, monkeypatch):
    import os
    import stat

    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN})
    monkeypatch.chdir(tmp_path)
    umask = os.umask(0o022)
    try:
        assert main(["eval", "qrels.txt", "run.txt", "-m", "AP", "-o", "new.txt"]) == 0
        assert stat.S_IMODE(os.stat("new.txt").st_mode) == 0o644
        (tmp_path / "kept.txt").write_text("old")
        os.chmod("kept.txt", 0o640)
        assert main(["eval", "qrels.txt", "run.txt", "-m", "AP", "-o", "kept.txt"]) == 0
        assert stat.S_IMODE(os.stat("kept.txt").st_mode) == 0o640
    finally:
        os.umask(umask)


@pytest.mark.parametrize("args, message", EXACT)
def test_message_reads_once(tmp_path, monkeypatch, capsys, args, message):
    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN})
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "qrels.txt", "run.txt", *args]) == 1
    assert capsys.readouterr().err == f"sqlrank: error: {message}\n"


def test_a_python_option_typo_names_the_option(tmp_path):
    import sqlrank

    write_files(tmp_path, {"qrels.txt": GOOD_QRELS, "run.txt": GOOD_RUN})
    with pytest.raises(sqlrank.OptionError, match="unknown option 'run_column'; did you mean 'run_columns'"):
        sqlrank.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", "AP", run_column={"score": "s"})
    with pytest.raises(sqlrank.OptionError, match="unknown option 'tiebreak'; did you mean 'tie_break'"):
        sqlrank.render(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "AP", tiebreak="trec_eval")
    with pytest.raises(sqlrank.OptionError, match="unknown option 'name'; did you mean 'names'"):
        sqlrank.compare(str(tmp_path / "qrels.txt"), [str(tmp_path / "run.txt")] * 2, "AP", name=["a", "b"])


def test_a_missing_column_says_how_to_map_it_in_python_too(tmp_path):
    import pandas as pd

    import sqlrank

    write_files(tmp_path, {"qrels.txt": GOOD_QRELS})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "pred": [1.0]})
    with pytest.raises(InputError, match=r"no column 'score' .* map it with --run-columns score=pred "
                                         r"\(run_columns=\{'score': 'pred'\} in Python\)"):
        sqlrank.evaluate(tmp_path / "qrels.txt", run, "AP")
    assert sqlrank.evaluate(tmp_path / "qrels.txt", run, "AP", run_columns={"score": "pred"}).value[0] >= 0
    unknown = run.rename(columns={"pred": "weight"})
    with pytest.raises(InputError, match=r"map it with --run-columns score=NAME \(run_columns=\{'score': 'NAME'\}"):
        sqlrank.evaluate(tmp_path / "qrels.txt", unknown, "AP")


def test_dir_shows_what_the_package_offers():
    import sqlrank

    assert set(dir(sqlrank)) == set(sqlrank.__all__) | {"__version__"}


@pytest.mark.parametrize("dialect", ["postgres", "sqlite", "clickhouse", "trino"])
def test_a_statement_printed_for_an_engine_reads_no_trec_text(dialect):
    """The statement of an engine that reads tables never reads TREC text with DuckDB's SQL (string_split,
    fields[1]), which that engine could not run: the files are refused as CSV and Parquet are."""
    import sqlrank

    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "demo")
    with pytest.raises(sqlrank.OptionError, match=f"the {dialect} statement reads tables, not files"):
        sqlrank.render(os.path.join(demo, "qrels.test"), os.path.join(demo, "results.test"), "AP", dialect=dialect)


def test_python_takes_the_command_line_s_column_text():
    """qrels_columns="query_id=topic,doc_id=docno", the command line's form, reads as the dict form in evaluate,
    compare and pool (compare raised AttributeError, evaluate a raw ValueError); malformed text or another type is a
    one-line InputError naming the option."""
    import pandas as pd

    import sqlrank

    qrels = pd.DataFrame({"topic": ["q1", "q1", "q2"], "docno": ["a", "b", "a"], "grade": [1, 0, 2]})
    run = pd.DataFrame({"topic": ["q1", "q1", "q2"], "docno": ["a", "b", "a"], "score": [1.0, 0.5, 0.2]})
    other = run.assign(score=[0.5, 1.0, 0.2])
    text = dict(qrels_columns="query_id=topic, doc_id=docno, relevance=grade", run_columns="query_id=topic,doc_id=docno")
    mapping = dict(qrels_columns={"query_id": "topic", "doc_id": "docno", "relevance": "grade"},
                   run_columns={"query_id": "topic", "doc_id": "docno"})
    assert sqlrank.evaluate(qrels, run, "AP nDCG", **text).equals(sqlrank.evaluate(qrels, run, "AP nDCG", **mapping))
    compared = sqlrank.compare(qrels, {"a": run, "b": other}, "AP", **text)
    assert compared["mean"].tolist() == sqlrank.compare(qrels, {"a": run, "b": other}, "AP", **mapping)["mean"].tolist()
    implicit = sqlrank.evaluate(qrels[["topic", "docno"]], run, "P@1", qrels_columns="query_id=topic,doc_id=docno,relevance=",
                                run_columns="query_id=topic,doc_id=docno")
    assert implicit.value[0] == 1.0
    for wrong, message in (("query_id:topic", "qrels_columns: expected NAME=COLUMN pairs"),
                           (["query_id", "topic"], "qrels_columns must be a mapping")):
        with pytest.raises(sqlrank.InputError, match=message):
            sqlrank.evaluate(qrels, run, "AP", qrels_columns=wrong, run_columns=mapping["run_columns"])
