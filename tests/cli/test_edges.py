"""Trust at the edges: outputs never replace what the user did not ask to replace, and every input is
read as written or refused with a line that says where. Each case here once destroyed a file, printed
a wrong number with exit 0, leaked a secret, left a file behind or ended in a traceback."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import tracemalloc

import duckdb
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, ROOT, close
from sqlrank.cli.main import main

QRELS = "q1 0 d1 1\nq1 0 d3 1\n"
RUN = "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\n"


def run_cli(tmp_path, monkeypatch, capsys, args, files=None):
    for name, content in ({"qrels": QRELS, "run": RUN} if files is None else files).items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    monkeypatch.chdir(tmp_path)
    status = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def one_line_error(status, out, err, *fragments):
    assert status == 1 and out == "" and err.count("\n") == 1 and err.startswith("sqlrank: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# ------------------------------------------------------------------ outputs

# (command line, the input that -o names under another spelling): the output is one of the inputs
OUTPUT_IS_AN_INPUT = [
    (["eval", "qrels", "run", "-m", "AP", "-o", "run"], "run"),
    (["eval", "qrels", "run", "-m", "AP", "-o", "./run"], "run"),
    (["eval", "qrels", "run", "-m", "AP", "-o", "ABS/run"], "run"),
    (["eval", "qrels", "run", "-m", "AP", "-o", "runlink"], "run"),  # a symbolic link to the run
    (["eval", "qrels", "run", "-m", "AP", "-o", "hardlink"], "run"),  # a second name of the run's file
    (["eval", "qrels", "runlink", "-m", "AP", "-o", "run"], "run"),
    (["trec_eval", "qrels", "run", "-o", "qrels"], "qrels"),
    (["trec_eval", "-o", "./qrels", "qrels", "run"], "qrels"),
    (["sql", "qrels", "run", "-m", "AP", "-o", "qrels"], "qrels"),
    (["check", "qrels", "run", "-o", "run"], "run"),
    (["compare", "qrels", "run", "run2", "-m", "AP", "-o", "run2"], "run2"),
    (["report", "qrels", "run", "run2", "-m", "AP", "-o", "run2"], "run2"),
    (["explain", "qrels", "run", "-m", "AP", "--target", "0.5", "-o", "qrels"], "qrels"),
]


@pytest.mark.parametrize("args, victim", OUTPUT_IS_AN_INPUT, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_an_output_that_is_an_input_is_refused_before_anything_is_read(tmp_path, monkeypatch, capsys, args, victim):
    files = {"qrels": QRELS, "run": RUN, "run2": RUN.replace("0.5", "0.25")}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    os.symlink("run", tmp_path / "runlink")
    os.link(tmp_path / "run", tmp_path / "hardlink")
    args = [str(tmp_path / a[4:]) if a.startswith("ABS/") else a for a in args]
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, args, {})
    one_line_error(status, out, err, "writing the output there would replace it")
    for name, text in files.items():
        assert (tmp_path / name).read_text() == text, name
    assert os.path.islink(tmp_path / "runlink")


def test_an_output_through_a_link_replaces_the_link_s_target(tmp_path, monkeypatch, capsys):
    os.symlink("results.txt", tmp_path / "link.txt")
    (tmp_path / "results.txt").write_text("stale\n")
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-f", "csv",
                                                            "-o", "link.txt"])
    assert status == 0 and os.path.islink(tmp_path / "link.txt")
    assert (tmp_path / "results.txt").read_text() == "measure,value\nAP,0.5\n"
    # a dangling link: the file it names is made, as the shell's > makes it
    os.symlink("new.txt", tmp_path / "dangling.txt")
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-f", "csv",
                                                            "-o", "dangling.txt"])
    assert status == 0 and os.path.islink(tmp_path / "dangling.txt")
    assert (tmp_path / "new.txt").read_text() == "measure,value\nAP,0.5\n"


def test_a_file_the_user_may_not_write_is_an_error_not_replaced(tmp_path, monkeypatch, capsys):
    if os.geteuid() == 0:  # root may write any file: ask as the shell's > asks for anyone else, by the mode
        monkeypatch.setattr(os, "access", lambda path, mode, real=os.access: real(path, mode) and (
            mode != os.W_OK or bool(os.stat(path).st_mode & 0o200)))
    (tmp_path / "locked.txt").write_text("keep me\n")
    os.chmod(tmp_path / "locked.txt", 0o444)
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-o", "locked.txt"])
    one_line_error(status, out, err, "locked.txt: cannot write the output: Permission denied")
    assert (tmp_path / "locked.txt").read_text() == "keep me\n" and (tmp_path / "locked.txt").stat().st_mode & 0o777 == 0o444


def test_a_full_standard_output_is_named(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "qrels", "run", "-m", "AP"], cwd=tmp_path,
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1 and done.stderr == ("sqlrank: error: standard output: cannot write the output: No space "
                                                    "left on device\n")


def test_dbt_writes_only_the_files_it_wrote_before(tmp_path, monkeypatch, capsys):
    project = tmp_path / "metrics"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: sqlrank_metrics\nversion: '1.0'\n")
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "metrics", "-m", "AP"])
    one_line_error(status, out, err, "holds another dbt project", "dbt_project.yml was not written by sqlrank")
    assert (project / "dbt_project.yml").read_text() == "name: sqlrank_metrics\nversion: '1.0'\n"
    assert not (project / "models" / "evaluation.sql").exists()

    own = tmp_path / "own"
    (own / "models").mkdir(parents=True)
    (own / "models" / "evaluation.sql").write_text("select 1 -- mine\n")
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "own", "-m", "AP"])
    one_line_error(status, out, err, "models/evaluation.sql was not written by sqlrank dbt; nothing was written")
    assert (own / "models" / "evaluation.sql").read_text() == "select 1 -- mine\n"
    assert sorted(p.name for p in own.rglob("*") if p.is_file()) == ["evaluation.sql"]

    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "own", "-m", "AP", "--name", "other"])
    assert status == 0 and (own / "models" / "evaluation.sql").read_text() == "select 1 -- mine\n"
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "own", "-m", "AP P@5", "--name", "other"])
    assert status == 0 and "P@5" in (own / "macros" / "other.sql").read_text()  # its own files: replaced
    status, _, _ = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "own", "-m", "AP", "--force"])
    assert status == 0 and "sqlrank" in (own / "models" / "evaluation.sql").read_text()

    # --init: never over another project, and a seed already there is the user's data, kept as it is
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "metrics", "--init", "-m", "AP"])
    one_line_error(status, out, err, "holds another dbt project", "dbt_project.yml was not written by sqlrank")
    assert sorted(p.name for p in project.rglob("*") if p.is_file()) == ["dbt_project.yml"]
    starter = tmp_path / "starter"
    (starter / "seeds").mkdir(parents=True)
    (starter / "seeds" / "qrels.csv").write_text("query_id,doc_id,relevance\nq1,d1,1\n")
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "starter", "--demo", "-m", "AP"])
    assert status == 0 and "wrote 11 files of the starter project" in err, err
    assert (starter / "seeds" / "qrels.csv").read_text() == "query_id,doc_id,relevance\nq1,d1,1\n"
    assert (starter / "seeds" / "run.csv").read_text().startswith("query_id,doc_id,score\n301,")


def test_install_never_replaces_a_macro_it_did_not_create(tmp_path, monkeypatch, capsys):
    database = tmp_path / "u.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE SCHEMA sqlrank; CREATE MACRO sqlrank.p(a) AS a + 1")
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["install", "u.duckdb"], {})
    one_line_error(status, out, err, "sqlrank.p exists and was not created by sqlrank install; nothing was changed")
    with duckdb.connect(str(database)) as con:
        assert con.execute("SELECT sqlrank.p(1)").fetchall() == [(2,)]
        assert con.execute("SELECT count(*) FROM duckdb_functions() WHERE schema_name = 'sqlrank'").fetchall() == [(1,)]
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["install", "u.duckdb", "--force"], {})
    assert status == 0 and "warning: replaced sqlrank.p, which sqlrank install had not created" in err
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["install", "u.duckdb"], {})  # its own: replaced again
    assert status == 0 and "created 21 macros" in err
    with duckdb.connect(str(database)) as con:
        kinds = con.execute("SELECT DISTINCT function_type FROM duckdb_functions() WHERE schema_name = 'sqlrank' "
                            "AND function_name = 'p'").fetchall()
        assert kinds == [("table_macro",)]


def test_a_full_disk_during_install_suggests_nothing_install_lacks():
    from sqlrank.errors import duckdb_reason

    full = duckdb.IOException('IO Error: Could not write file "u.duckdb": No space left on device')
    assert "--slices" in duckdb_reason(full) and "--temp-directory" in duckdb_reason(full)
    reason = duckdb_reason(full, spill=False)
    assert "--slices" not in reason and "--temp-directory" not in reason and "free space" in reason


# ------------------------------------------------------------------ inputs read as written

def _parquet(path, columns: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(list(columns.values()), names=list(columns)), path)


@pytest.mark.parametrize("column, values, type_name", [
    ("doc_id", [["d1"], ["d2"]], "VARCHAR[]"),
    ("doc_id", [{"id": "d1"}, {"id": "d2"}], "STRUCT(id VARCHAR)"),
    ("query_id", [[("k", "q1")], [("k", "q1")]], "MAP(VARCHAR, VARCHAR)"),
])
def test_an_id_column_of_several_values_is_refused(tmp_path, column, values, type_name):
    import pyarrow as pa

    data = {"query_id": pa.array(["q1", "q1"]), "doc_id": pa.array(["d1", "d2"]), "score": pa.array([1.0, 0.5])}
    data[column] = pa.array(values, pa.map_(pa.string(), pa.string())) if "MAP" in type_name else pa.array(values)
    _parquet(tmp_path / "run.parquet", data)
    (tmp_path / "qrels").write_text(QRELS)
    with pytest.raises(sqlrank.InputError, match=re.escape(f"column '{column}' ({column}) is {type_name}, which holds "
                                                           f"several values")):
        sqlrank.evaluate(tmp_path / "qrels", tmp_path / "run.parquet", "AP")


def test_a_column_name_twice_is_refused_in_parquet_and_dataframes(tmp_path):
    import pyarrow as pa

    _parquet(tmp_path / "run.parquet", {"query_id": pa.array(["q1"]), "doc_id": pa.array(["d1"]),
                                        "score": pa.array([1.0]), "score ": pa.array([0.5])})
    # pyarrow keeps a repeated name when the table is built from arrays with names
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_arrays([pa.array(["q1"]), pa.array(["d1"]), pa.array([1.0]), pa.array([0.5])],
                                        names=["query_id", "doc_id", "score", "score"]), tmp_path / "twice.parquet")
    (tmp_path / "qrels").write_text(QRELS)
    with pytest.raises(sqlrank.InputError, match=r"twice.parquet: names column 'score' twice \(columns 3 and 4\)"):
        sqlrank.evaluate(tmp_path / "qrels", tmp_path / "twice.parquet", "AP")
    frame = pd.DataFrame([["q1", "d1", 1.0, 0.5]], columns=["query_id", "doc_id", "score", "score"])
    with pytest.raises(sqlrank.InputError, match=r"DataFrame: names column 'score' twice"):
        sqlrank.evaluate(tmp_path / "qrels", frame, "AP")
    assert sqlrank.evaluate(tmp_path / "qrels", tmp_path / "run.parquet", "AP").value[0] == 0.5  # 'score ' differs


def test_an_id_column_that_is_the_dataframes_index_is_named_with_the_fix(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    frame = pd.DataFrame([["q1", "d1", 1.0]], columns=["query_id", "doc_id", "score"])
    with pytest.raises(sqlrank.InputError, match=r"'query_id', 'doc_id' are the run DataFrame's index, not columns, "
                                                 r"and an index is not read; pass frame.reset_index\(\)"):
        sqlrank.evaluate(tmp_path / "qrels", frame.set_index(["query_id", "doc_id"]), "AP")
    mapped = frame.rename(columns={"query_id": "topic"}).set_index("topic")
    with pytest.raises(sqlrank.InputError, match=r"'topic' is the run DataFrame's index"):
        sqlrank.evaluate(tmp_path / "qrels", mapped, "AP", run_columns={"query_id": "topic"})
    assert sqlrank.evaluate(tmp_path / "qrels", mapped.reset_index(), "AP", run_columns={"query_id": "topic"}).value[0] \
        == sqlrank.evaluate(tmp_path / "qrels", frame, "AP").value[0]


def test_a_byte_order_mark_is_no_part_of_an_id_whatever_the_line_ends(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    plain = "q1 Q0 d1 1 1 t\nq1 Q0 d3 2 0.5 t\nq1 Q0 d2 3 0.2 t\n"
    (tmp_path / "plain").write_text(plain)
    # a lone carriage return sends the file to the reader of plain text, which kept the mark
    (tmp_path / "marked").write_bytes(b"\xef\xbb\xbf" + plain.replace("\n", "\r", 1).encode())
    (tmp_path / "marked_lf").write_bytes(b"\xef\xbb\xbf" + plain.encode())
    for name in ("plain", "marked", "marked_lf"):
        got = sqlrank.evaluate(tmp_path / "qrels", tmp_path / name, "AP", per_query=True)
        assert list(got.query_id) == ["q1"], name
    # the lone carriage return is white space inside its line, as trec_eval reads it: d3's line is the
    # rest of d1's; the same values as the file without the mark
    (tmp_path / "unmarked").write_bytes(plain.replace("\n", "\r", 1).encode())
    for name, want in (("plain", 0.5 * (1 + 2 / 3)), ("marked_lf", 0.5 * (1 + 2 / 3)), ("marked", 1.0), ("unmarked", 1.0)):
        assert close(sqlrank.evaluate(tmp_path / "qrels", tmp_path / name, "AP").value[0], want, 1e-12), name


def _warnings_of(*args, **kwargs) -> list[str]:
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sqlrank.evaluate(*args, **kwargs)
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("judged, retrieved, shown", [
    ("d1 ", "d1", "'q1': 'd1' ~ 'd1 '"),  # a trailing space in a CSV qrels
    ("caf\u00e9", "cafe\u0301", "'q1': 'cafe\\u0301' ~ 'caf\\xe9'"),  # NFC against NFD
    ("d\u200b1", "d1", "'q1': 'd1' ~ 'd\\u200b1'"),  # a zero-width space
    ("d1", "\ufeffd1", "'q1': '\\ufeffd1' ~ 'd1'"),  # a byte order mark inside the file
])
def test_document_ids_that_differ_only_in_what_does_not_show_are_named(tmp_path, judged, retrieved, shown):
    (tmp_path / "qrels.csv").write_text(f"query_id,doc_id,relevance\nq1,{judged},1\nq1,d9,1\n", encoding="utf-8")
    (tmp_path / "run.csv").write_text(f"query_id,doc_id,score\nq1,d0,2\nq1,{retrieved},1\n", encoding="utf-8")
    messages = _warnings_of(tmp_path / "qrels.csv", tmp_path / "run.csv", "AP")
    near = [m for m in messages if "document ids of the run match a judged document" in m]
    assert len(near) == 1 and shown in near[0] and "count as unjudged" in near[0], messages
    from sqlrank.diagnosing.check import check

    findings = {f.check: f for f in check(tmp_path / "qrels.csv", [tmp_path / "run.csv"])}
    found = findings["ids that differ only by white space, zeros or Unicode"]
    assert found.count == 1 and shown in found.message


def test_the_ids_that_may_not_be_in_normal_form_are_those_python_finds():
    """inputs.ids.odd_id against its definition in Python: empty, or white space or a zero first, or white
    space last, or a character beyond ASCII; on every id of up to three characters from an alphabet of
    white space, zeros, combining and invisible characters."""
    import itertools

    from sqlrank.inputs.ids import odd_id

    alphabet = ["a", "0", " ", "\t", "\r", "\n", "\u0301", "\u00e9", "\u200b", "1", "\ufeff"]
    ids = ["".join(chars) for n in range(4) for chars in itertools.product(alphabet, repeat=n)]
    con = duckdb.connect()
    con.execute("CREATE TABLE ids (id VARCHAR)")
    con.executemany("INSERT INTO ids VALUES (?)", [[i] for i in ids])
    found = dict(con.execute(f"SELECT id, {odd_id('id')} FROM ids").fetchall())
    beyond = dict(con.execute(f"SELECT id, {odd_id('id', beyond_ascii_only=True)} FROM ids").fetchall())
    for i in ids:
        assert found[i] == (i == "" or i[0] in " \t\r\n0" or i[-1] in " \t\r\n" or not i.isascii()), repr(i)
        assert beyond[i] == (not i.isascii()), repr(i)


def test_query_ids_that_differ_only_by_unicode_normalization_are_named(tmp_path):
    (tmp_path / "qrels").write_text("caf\u00e9 0 d1 1\n", encoding="utf-8")
    (tmp_path / "run").write_text("cafe\u0301 Q0 d1 1 1 t\n", encoding="utf-8")
    messages = _warnings_of(tmp_path / "qrels", tmp_path / "run", "AP", missing_queries="zero")
    assert any("run query ids match a judged query only after removing" in m and "'cafe\\u0301' ~ 'caf\\xe9'" in m
               for m in messages), messages


@pytest.mark.parametrize("name, text, line, fragment", [
    ("run.tsv", 'query_id\tdoc_id\tscore\nq1\td1\t1\nq1\t"d3\t0.5\nq1\td2\t0.2\nq1\td4"\t0.1\nq1\td5\t0.05\n', 3,
     "runs over the end of this line"),
    ("run.csv", 'query_id,doc_id,score\nq1,d1,1\nq1,"d3,0.5\nq1,d2,0.2\nq1,d4",0.1\nq1,d5,0.05\n', 3,
     "runs over the end of this line"),
    ("run.tsv", 'query_id\tdoc_id\tscore\nq1\td1\t1\nq1\t"d3\t0.5\nq1\td2\t0.2\n', 3, "that no later quote closes"),
    ("run.csv", 'query_id,doc_id,score\nq1,d1,1\nq1,d2,0.5\n"q1,d4,1\n', 4, "that no later quote closes"),
    # a quoted line end before a bad score: the quote's line is named, not a count of rows
    ("run.csv", 'query_id,doc_id,score\nq1,d1,1\nq1,"d\n2",0.5\nq1,d3,x\n', 3, "runs over the end of this line"),
])
def test_a_stray_quote_that_swallows_line_ends_is_an_error_naming_its_line(tmp_path, name, text, line, fragment):
    (tmp_path / name).write_text(text)
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    with pytest.raises(sqlrank.InputError, match=rf"{name}:{line}: .*{fragment}"):
        sqlrank.evaluate(tmp_path / "qrels", tmp_path / name, "AP NumRet")


@pytest.mark.parametrize("name, text", [("run", "q1 Q0 d1 1 1_0 t\nq1 Q0 d2 2 2 t\n"),
                                        ("run", "q1\tQ0\td1\t1\t1_0\tt\nq1\tQ0\td2\t2\t2\tt\n"),
                                        ("run.csv", "query_id,doc_id,score\nq1,d1,1_0\nq1,d2,2\n")])
@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_a_number_with_a_digit_separator_is_refused(tmp_path, monkeypatch, capsys, name, text, command):
    args = ["eval", "qrels", name, "-m", "AP"] if command == "eval" else ["trec_eval", "qrels", name]
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, args, {"qrels": QRELS, name: text})
    one_line_error(status, out, err, f"{name}:{1 if name == 'run' else 2}: score '1_0'", "digit separator")


@pytest.mark.parametrize("name, text, line", [
    ("run.csv", 'query_id,doc_id,score,title\nq1,d1,1,"two\nlines"\n\nq1,d2,x,t\n', 5),
    ("run.tsv", 'query_id\tdoc_id\tscore\tnote\nq1\td1\t1\t"a\nb\nc"\nq1\td2\tx\tn\n', 5),
])
def test_the_line_named_is_the_file_s_line_after_quoted_line_ends_and_blank_lines(tmp_path, name, text, line):
    (tmp_path / name).write_text(text)
    (tmp_path / "qrels").write_text(QRELS)
    with pytest.raises(sqlrank.InputError, match=rf"{name}:{line}: score 'x' \(column 'score'\) is not a number"):
        sqlrank.evaluate(tmp_path / "qrels", tmp_path / name, "AP")
    (tmp_path / "v.csv").write_text('query_id,note,verdict\nq1,"x\ny",good\nq2,z,maybe\n')
    with pytest.raises(sqlrank.InputError, match=r"v.csv:4: verdict 'maybe' is not good, same or bad"):
        sqlrank.gsb(tmp_path / "v.csv")


def test_a_name_that_is_a_file_and_a_table_is_refused(tmp_path, monkeypatch, capsys):
    with duckdb.connect(str(tmp_path / "db.duckdb")) as con:
        con.execute("CREATE TABLE qrels AS SELECT 'q1' AS query_id, 'd2' AS doc_id, 1 AS relevance")
        con.execute("CREATE TABLE run AS SELECT 'q1' AS query_id, 'd2' AS doc_id, 1.0 AS score")
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "--database", "db.duckdb", "qrels", "run",
                                                               "-m", "AP"])
    one_line_error(status, out, err, "qrels: is both a file in", "and a table of the DuckDB database; say which")
    for args, want in ((["main.qrels", "main.run"], "1.0000"), (["./qrels", "./run"], "0.5000")):
        status, out, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "--database", "db.duckdb", *args, "-m", "AP"])
        assert status == 0 and f"AP       {want}" in out


@pytest.mark.parametrize("tolerance", ["-1", "nan", "inf"])
def test_explain_validates_its_tolerance_as_compare_does(tmp_path, monkeypatch, capsys, tolerance):
    for command in (["explain", "qrels", "run", "-m", "AP", "--target", "0.5"],
                    ["compare", "qrels", "run", "run", "-m", "AP"]):
        status, out, err = run_cli(tmp_path, monkeypatch, capsys, command + ["--tolerance", tolerance])
        one_line_error(status, out, err, f"tolerance {float(tolerance)!r} must be a number of at least 0")


@pytest.mark.parametrize("target, hint", [("75%", "give 75% as 0.75"), ("0,75", "as a point: 0.75"),
                                          ("nan", ""), ("1_0", ""), ("", "")])
def test_explain_names_a_target_that_is_no_number(tmp_path, monkeypatch, capsys, target, hint):
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["explain", "qrels", "run", "-m", "AP", "--target",
                                                               target])
    one_line_error(status, out, err, f"target {target!r} is not a number", hint)


def test_a_measure_over_all_users_keeps_its_value_in_per_query_results(tmp_path, monkeypatch, capsys):
    inputs = [str(FIXTURES / "recsys" / "clicks.csv"), str(FIXTURES / "recsys" / "predictions.parquet")]
    options = dict(qrels_columns={"relevance": "clicked"}, items=str(FIXTURES / "recsys" / "items.csv"))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = sqlrank.evaluate(*inputs, "Coverage@10 nDCG@10", **options).set_index("measure").value
        frame = sqlrank.evaluate(*inputs, "Coverage@10 nDCG@10", per_query=True, **options)
    coverage = frame[frame.measure == "Coverage@10"]
    assert len(coverage) == 1 and coverage.user_id.isna().all() and coverage.value.iloc[0] == summary["Coverage@10"]
    assert len(frame[frame.measure == "nDCG@10"]) == 200
    status, out, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", *inputs, "-m", "Coverage@10 nDCG@10", "-q", "-f",
                                                            "csv", "--qrels-columns", "relevance=clicked", "--items",
                                                            options["items"]], {})
    assert status == 0 and f"\n,Coverage@10,{float(summary['Coverage@10'])!r}\n" in out


# ------------------------------------------------------------------ secrets, leftovers, signals

@pytest.mark.parametrize("dsn, secret", [
    ("postgresql://u:s3cret@localhost:1/db", "s3cret"),
    ("postgresql://u@localhost:1/db?password=s3cret&sslmode=disable", "s3cret"),
    ("postgresql:///db?host=/nonexistent&PASSWORD=s3cret", "s3cret"),
    ("host=/nonexistent port=1 password=s3cret dbname=db", "s3cret"),
    ("host=/nonexistent password='se cret' user=u", "se cret"),
])
def test_a_password_is_masked_in_every_spelling(dsn, secret):
    from sqlrank.engines.postgres import without_secrets

    masked = without_secrets(dsn)
    assert secret not in masked and "***" in masked
    pytest.importorskip("adbc_driver_postgresql")
    with pytest.raises(sqlrank.OptionError, match="cannot connect to PostgreSQL") as error:
        sqlrank.evaluate(str(FIXTURES / "demo" / "qrels.test"), str(FIXTURES / "demo" / "results.test"), "AP",
                         engine="postgres", dsn=dsn)
    assert secret not in str(error.value) and "s3cret" not in str(error.value)


def _stdin_run(tmp_path, **kwargs):
    (tmp_path / "qrels").write_text(QRELS)
    spool = tmp_path / "spool"
    spool.mkdir(exist_ok=True)
    env = os.environ | {"TMPDIR": str(spool), "PYTHONPATH": str(ROOT)}
    return spool, subprocess.Popen([sys.executable, "-m", "sqlrank", "trec_eval", "qrels", "-"], cwd=tmp_path,
                                   env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE, **kwargs)


@pytest.mark.parametrize("sig, status, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_standard_input_is_copied_leaves_no_copy(tmp_path, sig, status, word):
    spool, proc = _stdin_run(tmp_path, stdin=subprocess.PIPE)
    proc.stdin.write(RUN.encode())
    proc.stdin.flush()
    deadline = time.time() + 30
    while time.time() < deadline and not list(spool.glob("sqlrank-stdin-*")):
        time.sleep(0.02)
    assert list(spool.glob("sqlrank-stdin-*")), "the copy of standard input was never made"
    time.sleep(0.2)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == status and err.decode() == f"sqlrank: {word}\n"
    assert not list(spool.iterdir())


@pytest.mark.parametrize("stdin, message", [(subprocess.DEVNULL, "sqlrank: error: standard input: the run is empty\n"),
                                            (None, "sqlrank: error: standard input: is closed; give the run on "
                                                   "standard input or as a file\n")])
def test_an_empty_or_closed_standard_input_is_named(tmp_path, stdin, message):
    if stdin is None:  # started with file descriptor 0 closed (trec_eval qrels - <&-)
        spool, proc = _stdin_run(tmp_path, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    else:
        spool, proc = _stdin_run(tmp_path, stdin=stdin)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and err.decode() == message
    assert not list(spool.iterdir())


def test_a_malformed_run_on_standard_input_is_named_standard_input(tmp_path):
    spool, proc = _stdin_run(tmp_path, stdin=subprocess.PIPE)
    _, err = proc.communicate(b"q1 Q0 d1 1 x t\n", timeout=60)
    assert proc.returncode == 1 and err.decode().startswith("sqlrank: error: standard input:1: score 'x'")


@pytest.mark.parametrize("mode, used", [(0o700, True), (0o777, False), (0o770, False)])
def test_the_compiled_template_cache_is_used_only_when_private(tmp_path, monkeypatch, mode, used):
    from sqlrank.rendering import sqltext as templates

    cache = tmp_path / "cache"
    (cache / "sqlrank" / "jinja-unfolded").mkdir(parents=True)
    os.chmod(cache / "sqlrank" / "jinja-unfolded", mode)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    assert (templates._bytecode_cache() is not None) == used
    if used:  # owned by someone else: not used either
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
        assert templates._bytecode_cache() is None


def test_the_cache_folder_is_made_private(tmp_path, monkeypatch):
    from sqlrank.rendering import sqltext as templates

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    monkeypatch.setattr(os, "umask", os.umask)  # whatever the umask
    assert templates._bytecode_cache() is not None
    assert (tmp_path / "fresh" / "sqlrank" / "jinja-unfolded").stat().st_mode & 0o077 == 0


# ------------------------------------------------------------------ tracebacks and runaways

def test_resampling_memory_does_not_grow_with_the_trials(monkeypatch):
    import numpy as np

    from sqlrank.statistics import significance as statistics

    monkeypatch.setattr(statistics, "RESAMPLED_VALUES", 1 << 14)  # blocks of 16,384 values
    statistics.scipy_stats()  # imported before memory is traced
    rng = np.random.default_rng(3)
    run, baseline = rng.random(500), rng.random(500)
    for test in ("permutation", "bootstrap"):
        tracemalloc.start()
        statistics.paired_test(run, baseline, test, trials=4000, seed=0)  # 2,000,000 values in one block
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4_000_000, (test, peak)  # one block would take 16 MB (2,000,000 doubles)
    assert statistics.resample_batch(10_000_000, 3_000) * 3_000 <= statistics.RESAMPLED_VALUES
    assert statistics.resample_batch(100, 30) is None  # small: SciPy's own single block, its values unchanged


def test_a_parquet_file_of_many_small_row_groups_is_read_once(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sqlrank.engines.duckdb import session
    from sqlrank.inputs.load import load

    n = 3000
    table = pa.table({"query_id": [f"q{i % 30}" for i in range(n)], "doc_id": [f"d{i}" for i in range(n)],
                      "score": [float(i % 17) for i in range(n)]})
    pq.write_table(table, tmp_path / "fragmented.parquet", row_group_size=2)
    pq.write_table(table, tmp_path / "whole.parquet")
    pd.DataFrame({"query_id": [f"q{i % 30}" for i in range(0, n, 7)], "doc_id": [f"d{i}" for i in range(0, n, 7)],
                  "relevance": [i % 3 for i in range(0, n, 7)]}).to_csv(tmp_path / "qrels.csv", index=False)
    with session(None) as (con, registry):
        assert load(str(tmp_path / "fragmented.parquet"), "run", con, registry).table is not None  # sqlrank's copy
        assert load(str(tmp_path / "whole.parquet"), "run", con, registry).table is None  # scanned where it is
    measures = "AP nDCG@10 P@5 NumRet"
    fragmented = sqlrank.evaluate(tmp_path / "qrels.csv", tmp_path / "fragmented.parquet", measures, per_query=True)
    whole = sqlrank.evaluate(tmp_path / "qrels.csv", tmp_path / "whole.parquet", measures, per_query=True)
    pd.testing.assert_frame_equal(fragmented.reset_index(drop=True), whole.reset_index(drop=True))


def test_a_runaway_measure_list_is_bounded(tmp_path, monkeypatch, capsys):
    many = " ".join(f"P@{k}" for k in range(1, 1002))
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", many])
    one_line_error(status, out, err, "1,001 measures in one evaluation; at most 1,000")
    status, out, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", many.rsplit(" ", 1)[0],
                                                            "-f", "csv"])
    assert status == 0 and out.count("\n") == 1001
    assert len(sqlrank.parse_measures(["P@5", "success@5", "P@5"] * 2000)) == 2  # asked twice: once


# ------------------------------------------------------------------ messages that say what and where

def test_a_parquet_path_with_a_line_end_is_read(tmp_path):
    name = tmp_path / "runs\nof today.parquet"
    duckdb.sql(f"COPY (SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score) TO '{tmp_path / 'plain.parquet'}'")
    os.rename(tmp_path / "plain.parquet", name)
    (tmp_path / "qrels").write_text(QRELS)
    assert sqlrank.evaluate(tmp_path / "qrels", str(name), "AP").value[0] == 0.5


def test_a_run_id_with_a_line_end_is_compared(tmp_path):
    runs = pd.DataFrame({"run_id": ["a\nb", "a\nb", "c", "c"], "query_id": ["q1"] * 4,
                         "doc_id": ["d1", "d2", "d1", "d2"], "score": [1.0, 0.5, 0.5, 1.0]})
    (tmp_path / "qrels").write_text(QRELS)
    table = sqlrank.compare(tmp_path / "qrels", [runs], "AP")
    assert dict(zip(table.run, table["mean"])) == {"a\nb": 0.5, "c": 0.25}


@pytest.mark.parametrize("name, content, fragment", [
    ("run.txt", "PARQUET", "run.txt: is a Parquet file (it starts with PAR1), not trec text"),
    ("run", b"q1 Q0 d1 1 1 t\nq1 Q0 d\x002 2 0.5 t\n", "run: cannot read the run: line 2 holds a NUL byte"),
    ("run.csv", b"query_id,doc_id,score\nq1,d1,1\nq1,d\x002,0.5\n", "run.csv:3: an id holds a NUL byte"),
])
def test_a_file_that_is_not_what_its_name_says_is_named(tmp_path, name, content, fragment):
    if content == "PARQUET":
        duckdb.sql(f"COPY (SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score) TO '{tmp_path / name}' "
                   f"(FORMAT parquet)")
    else:
        (tmp_path / name).write_bytes(content)
    (tmp_path / "qrels").write_text(QRELS)
    with pytest.raises(sqlrank.InputError) as error:
        sqlrank.evaluate(tmp_path / "qrels", tmp_path / name, "AP")
    assert fragment in str(error.value)


@pytest.mark.parametrize("label, shown", [(18446744073709551615, "18446744073709551615"),
                                          (9999999999, "9999999999")])
def test_a_label_too_large_is_called_too_large(tmp_path, label, shown):
    import pyarrow as pa

    _parquet(tmp_path / "qrels.parquet", {"query_id": pa.array(["q1"]), "doc_id": pa.array(["d1"]),
                                          "relevance": pa.array([label], pa.uint64())})
    (tmp_path / "run").write_text(RUN)
    with pytest.raises(sqlrank.InputError, match=f"relevance {shown} .* is too large for a label"):
        sqlrank.evaluate(tmp_path / "qrels.parquet", tmp_path / "run", "AP")


def test_a_group_named_all_is_not_confused_with_the_overall_row(tmp_path, monkeypatch, capsys):
    verdicts = "query_id,seg,verdict\nq1,all,good\nq2,,bad\nq3,x,same\nq4,all,g\nq5,,b\n"
    status, out, err = run_cli(tmp_path, monkeypatch, capsys, ["gsb", "v.csv", "--by", "seg"], {"v.csv": verdicts})
    assert status == 0 and out.splitlines()[2:] == ["(all)     2     1    2  +0.0000", "all       2     0    0  +1.0000",
                                                    "x         0     1    0  +0.0000"]
    assert err == "sqlrank: warning: 2 verdicts have no seg (an empty or missing value); they count in the overall row only\n"
    files = {"qrels": "q1 0 d1 1\nall 0 d1 1\nq2 0 d1 1\n", "run": "q1 Q0 d1 1 1 t\nall Q0 d1 1 1 t\nq2 Q0 d2 1 1 t\n",
             "users.csv": "query_id,seg\nq1,all\nall,x\nq2,all\n"}
    status, out, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "-q"], files)
    assert status == 0 and [line.split()[0] for line in out.splitlines()[2:6]] == ["all", "q1", "q2", "(all)"]
    status, out, _ = run_cli(tmp_path, monkeypatch, capsys, ["eval", "qrels", "run", "-m", "AP", "--queries",
                                                            "users.csv", "--by", "seg"], files)
    assert status == 0 and [line.split()[:3] for line in out.splitlines()[2:5]] == [
        ["(all)", "3", "0.6667"], ["all", "2", "0.5000"], ["x", "1", "1.0000"]]


def test_a_second_evaluation_of_a_package_is_told_to_name_its_run(tmp_path, monkeypatch, capsys):
    """sqlrank dbt --name dense beside the starter's evaluation read the shared sqlrank_run where sqlrank_dense_run was
    unset: the starter's run, evaluated for dense in silence. An evaluation of its own name now reads its own run var
    only (unset: a compiler error naming it, tests/export/test_dbt.py), and the note says which var to set; the starter's
    evaluation reads the shared vars and gets no note. --init alone writes no seeds: the vars to set, in comments."""
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "ranking", "--init", "-m", "AP"])
    assert status == 0 and "note" not in err and not (tmp_path / "ranking" / "seeds").exists()
    project = (tmp_path / "ranking" / "dbt_project.yml").read_text()
    assert "  # sqlrank_qrels: judgments" in project and "\n  sqlrank_run:" not in project
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "ranking", "-m", "nDCG@10", "--name", "dense"])
    assert status == 0 and err.splitlines()[-1] == (
        "sqlrank: note: dense reads the run the var sqlrank_dense_run names (never the shared sqlrank_run), and its "
        "judgments from sqlrank_dense_qrels, else sqlrank_qrels: set sqlrank_dense_run in dbt_project.yml or --vars")
    assert "sqlrank.input('dense', 'run', shared=false)" in (tmp_path / "ranking" / "models" / "dense.sql").read_text()
    status, _, err = run_cli(tmp_path, monkeypatch, capsys, ["dbt", "ranking", "--demo", "-m", "P@5", "--name", "sparse"])
    assert status == 0 and "note" not in err  # the demo's project sets it
    project = (tmp_path / "ranking" / "dbt_project.yml").read_text()
    assert "  sqlrank_sparse_run: run" in project and "  sqlrank_dense_run: run" in project