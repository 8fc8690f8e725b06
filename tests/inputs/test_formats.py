"""Every input format gives identical results on the same data (fixtures/formats/)."""
from __future__ import annotations

import re

import duckdb
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, close

DATA = FIXTURES / "formats"
MEASURES = "nDCG@10 nDCG AP AP@5 P@5 R@10 RR Rprec Success@1 DCG@3 CG@5 NumQ NumRet NumRel NumRelRet P(rel=2)@10"
TSV_QRELS = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}
TSV_RUN = {"query_id": "qid", "doc_id": "docno", "score": "sim"}


def evaluate(qrels, run, **options):
    return sqlrank.evaluate(qrels, run, MEASURES, per_query=True, missing_queries="zero", **options)


@pytest.fixture(scope="module")
def reference():
    frame = evaluate(DATA / "qrels.txt", DATA / "run.txt")
    assert {"01", "1"} <= set(frame.query_id) or any("/" in q for q in frame.query_id)
    assert len(frame) > 300
    return frame


@pytest.mark.parametrize("qrels, run, options", [
    ("qrels.txt.gz", "run.txt.gz", {}),
    ("qrels.parquet", "run.parquet", {}),
    ("qrels.csv", "run.csv", {}),
    ("qrels.csv", "run.csv.gz", {}),
    ("qrels.tsv", "run.tsv", {"qrels_columns": TSV_QRELS, "run_columns": TSV_RUN}),
    ("qrels.parquet", "run.txt", {}),
])
def test_files(reference, qrels, run, options):
    # per query, ids are called as the inputs call them (qid when query_id=qid is mapped)
    named = options.get("run_columns", {}).get("query_id", "query_id")
    pd.testing.assert_frame_equal(evaluate(DATA / qrels, DATA / run, **options),
                                  reference.rename(columns={"query_id": named}))


def test_format_override(tmp_path, reference):
    (tmp_path / "judgments.data").write_bytes((DATA / "qrels.csv").read_bytes())
    (tmp_path / "ranking.data").write_bytes((DATA / "run.parquet").read_bytes())
    got = evaluate(tmp_path / "judgments.data", tmp_path / "ranking.data", qrels_format="csv", run_format="parquet")
    pd.testing.assert_frame_equal(got, reference)


def test_dataframes(reference):
    qrels = pd.read_csv(DATA / "qrels.csv", dtype={"query_id": str, "doc_id": str})
    run = pd.read_csv(DATA / "run.csv", dtype={"query_id": str, "doc_id": str})
    pd.testing.assert_frame_equal(evaluate(qrels, run), reference)


def test_duckdb_tables_and_relations(reference):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE my_qrels AS SELECT * FROM read_parquet('{DATA / 'qrels.parquet'}')")
    con.execute(f"CREATE VIEW my_run AS SELECT * FROM read_parquet('{DATA / 'run.parquet'}')")
    pd.testing.assert_frame_equal(evaluate("my_qrels", "my_run", connection=con), reference)
    relation = con.sql("SELECT qid AS query_id, docno AS doc_id, sim AS score FROM "
                       f"read_csv('{DATA / 'run.tsv'}', delim = '\t', header = true, all_varchar = true)")
    got = evaluate("my_qrels", relation, connection=con)  # a relation in, a relation of that connection out
    assert isinstance(got, duckdb.DuckDBPyRelation)
    pd.testing.assert_frame_equal(got.df(), reference)
    # nothing of sqlrank's is left behind in the caller's connection
    assert sorted(r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() UNION ALL "
                                            "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()) \
        == ["my_qrels", "my_run"]


def test_ids_stay_strings():
    frame = evaluate(DATA / "qrels.parquet", DATA / "run.csv")
    ids = set(frame.query_id)
    assert all(isinstance(q, str) for q in ids)
    qrels_ids = {line.split()[0] for line in (DATA / "qrels.txt").read_text().splitlines()}
    assert ids == qrels_ids


def test_render_returns_the_sql_that_evaluate_runs():
    frame = sqlrank.evaluate(DATA / "qrels.txt", DATA / "run.parquet", "AP nDCG@10")
    sql = sqlrank.render(DATA / "qrels.txt", DATA / "run.parquet", "AP nDCG@10")
    assert frame.attrs["sql"] == sql
    rows = duckdb.sql(sql).fetchall()  # self-contained: it reads the files itself
    assert [r[0] for r in rows] == list(frame.measure)
    # DuckDB sums in parallel, in no fixed order: the last bit may differ between runs.
    assert all(close(a, b, 1e-12) for a, b in zip([r[1] for r in rows], frame.value))


@pytest.mark.parametrize("late_line", ["{q}  Q0 {d} 1 {s} gen7", "{q}\tQ0\t{d}\t1\t{s}\tgen7", " {q} Q0 {d} 1 {s} gen7 ",
                                       "{q} Q0 {d} 1 {s} gen7 extra words", "{q} Q0 {d}\t1 {s} gen7",
                                       "{q} Q0\v{d} 1 {s} gen7"])
def test_irregular_white_space_after_the_first_lines(tmp_path, reference, late_line):
    # The reader splits on single spaces when the first lines allow it; a later line that does
    # not fit must send the whole file through the any-white-space reader, not be mis-split.
    lines = [" ".join(line.split()) for line in (DATA / "run.txt").read_text().splitlines()]
    assert len(lines) > 250
    q, _, d, _, s, _ = lines[300].split()
    lines[300] = late_line.format(q=q, d=d, s=s)
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    pd.testing.assert_frame_equal(evaluate(DATA / "qrels.txt", tmp_path / "run.txt"), reference)


@pytest.mark.parametrize("extra", ["# {q} Q0 {d} 1 {s} gen7", "", "#"])
def test_comment_and_blank_lines_among_regular_ones(tmp_path, reference, extra):
    # DuckDB's CSV reader splits a regular file's fields itself; a comment line of six fields must not
    # be read as a result, and a blank line is skipped, as trec_eval skips both.
    lines = [" ".join(line.split()) for line in (DATA / "run.txt").read_text().splitlines()]
    q, _, d, _, s, _ = lines[300].split()
    lines.insert(300, extra.format(q=q, d=d + "x", s=s))
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    pd.testing.assert_frame_equal(evaluate(DATA / "qrels.txt", tmp_path / "run.txt"), reference)


@pytest.mark.parametrize("line, found", [("{q} Q0 {d} 1 {s} ", 5), ("{q}  {d} 1 {s} gen7", 5), ("{q} Q0 {d} 1 {s}", 5)])
def test_an_empty_field_is_a_malformed_line(tmp_path, line, found):
    # six fields for the CSV reader (one empty), five for trec_eval: an error naming the line
    lines = [" ".join(line.split()) for line in (DATA / "run.txt").read_text().splitlines()]
    q, _, d, _, s, _ = lines[300].split()
    lines[300] = line.format(q=q, d=d, s=s)
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    with pytest.raises(sqlrank.InputError, match=rf"run.txt:301: malformed run line: expected 6 fields .*found {found}"):
        evaluate(DATA / "qrels.txt", tmp_path / "run.txt")


@pytest.mark.parametrize("text, lines, split", [
    ("q Q0 a 1 0.5 t\nq Q0 b 2 0.25 t\n", "fields", "space"),
    ("q\tQ0\ta\t1\t0.5\tt\n", "fields", "tab"),
    ("q Q0 a 1 0.5 t\r\n", "csv", "space"),  # line ends of \r\n: read line by line
    ("q Q0 a 1 0.5 t\nq Q0 b 2 0.25 t extra\n", "csv", "space"),  # seven fields: the CSV reader stops
    ("q Q0 a 1 0.5 t\n# a comment of six words\n", "csv", "regex"),  # six fields: found by the fields' reading
])
def test_which_reader_a_trec_file_gets(tmp_path, text, lines, split):
    from sqlrank.inputs.load import load
    from sqlrank.inputs.store import Registry
    (tmp_path / "r.txt").write_bytes(text.encode())
    con = duckdb.connect()
    registry = Registry(con)
    source = load(str(tmp_path / "r.txt"), "run", con, registry)
    assert (source.lines, source.split) == (lines, split)
    assert con.execute(f"SELECT count(*) FROM ({source.sql()}) AS run").fetchall() == [(sum(not line.startswith("#") for line in text.splitlines()),)]
    registry.close()


def test_tab_separated_lines_with_spaces_inside_fields(tmp_path, reference):
    # trec_eval splits on any white space: a tab-separated file whose fields carry spaces
    # ('q1 \tQ0\t d7\t...') must not keep them in the ids.
    lines = [line.split() for line in (DATA / "run.txt").read_text().splitlines()]
    text = "".join(f"{q}\tQ0\t{d}\t{r}\t  {s}\t{t}\n" for q, _, d, r, s, t in lines[:300])
    text += "".join(f"{q} \tQ0\t {d}\t{r}\t{s}\t{t}\n" for q, _, d, r, s, t in lines[300:])
    (tmp_path / "run.txt").write_text(text)
    qrels = [line.split() for line in (DATA / "qrels.txt").read_text().splitlines()]
    (tmp_path / "qrels.txt").write_text("".join(f"{q}\t{i}\t{d}\t{r}\n" for q, i, d, r in qrels[:10])
                                        + "".join(f"{q}\t{i}\t{d} \t {r}\n" for q, i, d, r in qrels[10:]))
    pd.testing.assert_frame_equal(evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt"), reference)


def test_input_rank_from_trec_and_tables(tmp_path):
    # The TREC run's fourth column, or a table's rank column, orders documents for tie_break=input_rank.
    (tmp_path / "q.txt").write_text("q 0 a 1\nq 0 b 0\nq 0 c 0\n")
    (tmp_path / "r.txt").write_text("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\nq Q0 c 3 0.5 t\n")
    got = sqlrank.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", "RR RR(tie_break=input_rank)")
    assert list(got.value) == [1 / 3, 1.0]
    table = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": list("abc"), "score": [0.1, 0.9, 0.5], "pos": [1, 2, 3]})
    got = sqlrank.evaluate(tmp_path / "q.txt", table, "RR", tie_break="input_rank", run_columns={"rank": "pos"})
    assert list(got.value) == [1.0]
    with pytest.raises(sqlrank.InputError, match="needs the run's rank column"):
        sqlrank.evaluate(tmp_path / "q.txt", table.drop(columns="pos"), "RR", tie_break="input_rank")


def test_trec_eval_copy_leaves_the_rank_column_out(tmp_path):
    # sqlrank trec_eval never reads the run's rank (ties go by document id), so its copy holds none;
    # an evaluation keeps it for tie_break=input_rank.
    from sqlrank.inputs.load import load
    from sqlrank.inputs.store import Registry
    (tmp_path / "r.txt").write_text("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\nq Q0 c 3 0.5 t\n")
    con = duckdb.connect()
    registry = Registry(con)
    kept = load(str(tmp_path / "r.txt"), "run", con, registry)
    left_out = load(str(tmp_path / "r.txt"), "run", con, registry, ranks=False)
    count = "SELECT count(input_rank), count(*) FROM ({}) AS run"
    assert con.execute(count.format(kept.sql())).fetchall() == [(3, 3)]
    assert con.execute(count.format(left_out.sql())).fetchall() == [(0, 3)]
    registry.close()


def test_boolean_labels_are_one_and_zero(tmp_path):
    """A recommender's clicked column: true/false as text (CSV, any case) or as booleans (Parquet,
    DataFrames) are the labels 1 and 0; the printed statement reads them the same way; other words
    are an error that names the line."""
    import duckdb
    import pandas as pd

    numeric = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["i1", "i2", "i3", "i1"],
                            "clicked": [1, 0, 1, 0]})
    predictions = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["i1", "i2", "i1", "i3"],
                                "pred": [0.9, 0.8, 0.7, 0.5]})
    maps = dict(qrels_columns={"query_id": "user_id", "doc_id": "item_id", "relevance": "clicked"},
                run_columns={"query_id": "user_id", "doc_id": "item_id", "score": "pred"})
    expected = sqlrank.evaluate(numeric, predictions, "nDCG@2 AP P@1", per_query=True, **maps)
    texts = numeric.assign(clicked=["true", "FALSE", " True", "false"])
    texts.to_csv(tmp_path / "clicks.csv", index=False)
    numeric.assign(clicked=numeric.clicked.astype(bool)).to_parquet(tmp_path / "clicks.parquet")
    for qrels in (str(tmp_path / "clicks.csv"), str(tmp_path / "clicks.parquet"),
                  numeric.assign(clicked=numeric.clicked.astype(bool))):
        got = sqlrank.evaluate(qrels, predictions, "nDCG@2 AP P@1", per_query=True, **maps)
        assert list(got.value) == list(expected.value), qrels
    printed = sqlrank.render(str(tmp_path / "clicks.csv"), predictions.to_csv(tmp_path / "p.csv", index=False)
                             or str(tmp_path / "p.csv"), "AP", per_query=True, **maps)
    assert "WHEN 'true' THEN 1" in printed
    assert [round(v, 12) for _, _, v in duckdb.connect().execute(printed).fetchall()] == \
        [round(v, 12) for v in sqlrank.evaluate(numeric, predictions, "AP", per_query=True, **maps).value]
    numeric.assign(clicked=["yes", "0", "1", "0"]).to_csv(tmp_path / "words.csv", index=False)
    with pytest.raises(sqlrank.InputError, match=r"words.csv:2: relevance 'yes'.*\(or true and false\)"):
        sqlrank.evaluate(str(tmp_path / "words.csv"), predictions, "AP", **maps)


def test_labels_written_with_a_zero_fraction_are_whole_numbers(tmp_path):
    """pandas writes a float label column as 1.0 and 0.0 (and trec_eval reads labels with atol): a
    zero fraction is the whole number, in CSV and TREC qrels; text that is no finite number is an error."""
    whole = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["d1", "d2", "d3", "d4", "d1", "d5"],
                          "relevance": [1, 0, 2, -1, 3, 0]})
    run = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["d4", "d3", "d2", "d1", "d5", "d1"],
                        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    expected = sqlrank.evaluate(whole, run, MEASURES, per_query=True)
    written = ["1.0", "0.00", "2.", "-1.0", "+3.000", "0"]
    whole.assign(relevance=written).to_csv(tmp_path / "qrels.csv", index=False)
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(whole.query_id, whole.doc_id,
                                                                                      written)))
    for qrels in ("qrels.csv", "qrels.txt"):
        pd.testing.assert_frame_equal(sqlrank.evaluate(tmp_path / qrels, run, MEASURES, per_query=True), expected)
    for bad in ("1,5", "inf", "NaN", "1_0", "two", "0x1", "1e10"):
        (tmp_path / "bad.txt").write_text(f"q1 0 d1 1\nq1 0 d2 {bad}\n")
        with pytest.raises(sqlrank.InputError, match=rf"bad.txt:2: relevance '{re.escape(bad)}' .* (not a label|too large)"):
            sqlrank.evaluate(tmp_path / "bad.txt", run, "AP")
