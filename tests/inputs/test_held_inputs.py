"""Inputs people already hold: pyarrow Tables and RecordBatches, Polars DataFrames and LazyFrames and
pytrec_eval's dicts give the same values as the same data from files; several runs in one eval give each
run's own values; sqlrank.check, explain and trec_eval print what the command line prints."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from conftest import peer
from sqlrank.cli.main import main
from support.generate import generate, to_dicts

MEASURES = "nDCG@10 AP P@5 RR Judged@10"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("held")
    qrels, run = generate(23, n_queries=60)
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    (folder / "run.txt").write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in run.itertuples(index=False)))
    expected = sqlrank.evaluate(folder / "qrels.txt", folder / "run.txt", MEASURES, per_query=True)
    return folder, qrels, run, expected


def test_arrow_polars_and_dicts_equal_the_files(files):
    pa = peer("pyarrow")
    pl = peer("polars")
    _, qrels, run, expected = files
    held = {
        "pyarrow Table": (pa.Table.from_pandas(qrels), pa.Table.from_pandas(run)),
        "pyarrow RecordBatch": (pa.RecordBatch.from_pandas(qrels), pa.RecordBatch.from_pandas(run)),
        "Polars DataFrame": (pl.from_pandas(qrels), pl.from_pandas(run)),
        "Polars LazyFrame": (pl.from_pandas(qrels).lazy(), pl.from_pandas(run).lazy()),
        "dict": to_dicts(qrels, run),
    }
    for name, (q, r) in held.items():
        pd.testing.assert_frame_equal(sqlrank.evaluate(q, r, MEASURES, per_query=True, output="pandas"), expected,
                                      obj=name)


def test_results_come_back_in_the_kind_that_came_in(files):
    """Polars in, Polars out; Arrow in, an Arrow table out; the same rows, the attrs along (a Polars frame's attrs, the
    Arrow schema's metadata); output= asks for a kind."""
    import json

    pa = peer("pyarrow")
    pl = peer("polars")
    _, qrels, run, expected = files
    polars = sqlrank.evaluate(pl.from_pandas(qrels), pl.from_pandas(run).lazy(), MEASURES, per_query=True)
    assert isinstance(polars, pl.DataFrame) and polars.attrs["conventions"] == expected.attrs["conventions"]
    assert polars.attrs["num_queries"] == expected.attrs["num_queries"] and "SELECT" in polars.attrs["sql"]
    pd.testing.assert_frame_equal(polars.to_pandas(), expected, check_dtype=False)
    arrow = sqlrank.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), MEASURES, per_query=True)
    assert isinstance(arrow, pa.Table)
    assert json.loads(arrow.schema.metadata[b"sqlrank"])["conventions"] == expected.attrs["conventions"]
    pd.testing.assert_frame_equal(arrow.to_pandas(), expected, check_dtype=False)
    assert isinstance(sqlrank.evaluate(qrels, run, "AP", output="polars"), pl.DataFrame)
    assert isinstance(sqlrank.evaluate(pl.from_pandas(qrels), pl.from_pandas(run), "AP", output="pandas"), pd.DataFrame)
    with pytest.raises(sqlrank.OptionError, match="output='excel' is not one of pandas, polars, arrow, duckdb"):
        sqlrank.evaluate(qrels, run, "AP", output="excel")
    with sqlrank.Evaluator(pl.from_pandas(qrels), MEASURES) as evaluator:
        assert isinstance(evaluator.evaluate(pl.from_pandas(run)), pl.DataFrame)


def test_the_run_decides_the_kind_whenever_it_is_a_frame(files, tmp_path):
    """A pandas run beside Polars or Arrow judgments came back as Polars or Arrow: the run is what a user loops over,
    and its kind decides whenever it is a frame; judgments decide only beside a run that is no frame (a file)."""
    pa = peer("pyarrow")
    pl = peer("polars")
    folder, qrels, run, _ = files
    for judgments in (pl.from_pandas(qrels), pa.Table.from_pandas(qrels)):
        assert isinstance(sqlrank.evaluate(judgments, run, "AP"), pd.DataFrame)
    assert isinstance(sqlrank.evaluate(qrels, pl.from_pandas(run), "AP"), pl.DataFrame)
    assert isinstance(sqlrank.evaluate(pa.Table.from_pandas(qrels), folder / "run.txt", "AP"), pa.Table)


def test_integer_ids_come_back_as_integers_everywhere(tmp_path):
    """Integer query ids came back as integers from evaluate but as text from neighbours, overlap and pool, and
    uint64 ids above 2^63 were a traceback (ids past 2^53 beside an overall row came back rounded)."""
    import numpy as np

    run = pd.DataFrame({"query_id": np.array([10, 10, 2, 2], dtype="int64"), "doc_id": ["a", "b", "a", "c"],
                        "score": [2.0, 1.0, 1.0, 0.5]})
    for frame in (sqlrank.overlap(run, run, "Jaccard@2", per_query=True),
                  sqlrank.neighbours(run, run, "Recall@1", per_query=True), sqlrank.pool([run], depth=2)):
        assert str(frame.query_id.dtype) == "Int64" and list(dict.fromkeys(frame.query_id)) == [2, 10]
    big = np.array([2 ** 64 - 1, 2 ** 63 + 5, 2 ** 63 + 5], dtype="uint64")
    judged = pd.DataFrame({"query_id": big, "doc_id": ["a", "a", "b"], "relevance": [1, 1, 0]})
    ranked = pd.DataFrame({"query_id": big, "doc_id": ["a", "a", "b"], "score": [1.0, 2.0, 1.0]})
    got = sqlrank.evaluate(judged, ranked, "AP", per_query=True)
    assert str(got.query_id.dtype) == "UInt64" and got.query_id.tolist() == [2 ** 63 + 5, 2 ** 64 - 1]
    past = np.array([2 ** 60 + 1, 2 ** 60 + 3], dtype="int64")
    got = sqlrank.evaluate(judged.iloc[1:].assign(query_id=past), ranked.iloc[1:].assign(query_id=past), "AP Gini@1",
                           per_query=True, items=pd.DataFrame({"item_id": ["a", "b"]}))
    assert got.query_id.tolist()[:2] == [2 ** 60 + 1, 2 ** 60 + 3]  # exact, not 2^60 twice


def test_duckdb_relations_in_a_relation_out_that_joins_back(files):
    """DuckDB relations in (with their connection), a relation of that connection out: the same rows, joined back to a
    table of that connection in SQL; a relation without its connection is an error that names the fix."""
    import duckdb

    _, qrels, run, expected = files
    con = duckdb.connect()
    con.execute("CREATE TABLE topics AS SELECT DISTINCT query_id, 'topic ' || query_id AS title FROM qrels")
    relations = con.from_df(qrels), con.from_df(run)
    got = sqlrank.evaluate(*relations, MEASURES, per_query=True, connection=con)
    assert isinstance(got, duckdb.DuckDBPyRelation)
    pd.testing.assert_frame_equal(got.df(), expected, check_dtype=False)
    titled = got.join(con.table("topics"), "query_id").filter("measure = 'AP'").order("query_id").df()
    assert titled.title.tolist() == ["topic " + q for q in sorted(expected[expected.measure == "AP"].query_id)]
    with sqlrank.Evaluator(relations[0], MEASURES, connection=con) as evaluator:
        assert isinstance(evaluator.evaluate(relations[1]), duckdb.DuckDBPyRelation)
    assert isinstance(sqlrank.evaluate(*relations, "AP", connection=con, output="pandas"), pd.DataFrame)
    with pytest.raises(sqlrank.InputError, match="pass connection=con, the connection that made it"):
        sqlrank.evaluate(*relations, "AP")
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0] == 0  # none left there
    with pytest.raises(sqlrank.OptionError, match="a DuckDB relation as the result is one of your connection"):
        sqlrank.evaluate(qrels, run, "AP", output="duckdb")


def test_a_held_input_that_is_wrong_says_so(files):
    pa = peer("pyarrow")
    _, qrels, run, _ = files
    with pytest.raises(sqlrank.InputError, match=r"dict: the score of document 'd1' of query 'q' is 'high'"):
        sqlrank.evaluate(qrels, {"q": {"d1": "high"}}, "AP")
    with pytest.raises(sqlrank.InputError, match="pyarrow Table: no columns 'query_id', 'doc_id', 'relevance'"):
        sqlrank.evaluate(pa.table({"a": [1]}), run, "AP")
    with pytest.raises(sqlrank.InputError, match="a pandas or Polars DataFrame, a pyarrow Table"):
        sqlrank.evaluate(42, run, "AP")


def test_several_runs_in_one_eval_give_each_run_its_values(files, capsys):
    folder, qrels, run, expected = files
    other = run.assign(score=-run.score)
    other_path = folder / "reversed.txt"
    other_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in other.itertuples(index=False)))
    alone = sqlrank.evaluate(qrels, other, MEASURES, per_query=True)
    both = sqlrank.evaluate(folder / "qrels.txt", [str(folder / "run.txt"), str(other_path)], MEASURES, per_query=True)
    for name, values in (("run", expected), ("reversed", alone)):
        got = both[both.run_id == name].drop(columns="run_id").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, values, obj=name)
    assert main(["eval", str(folder / "qrels.txt"), str(folder / "run.txt"), str(other_path), "-m", "AP"]) == 0
    out = capsys.readouterr().out.splitlines()
    means = dict(zip(*sqlrank.evaluate(qrels, {"run": run, "reversed": other}, "AP")[["run_id", "value"]].T.values))
    assert out[:4] == ["run_id        AP", "--------  ------",  # in the order given (run.txt first)
                       f"run       {means['run']:.4f}", f"reversed  {means['reversed']:.4f}"]


def test_check_explain_and_trec_eval_are_in_the_python_namespace(files):
    folder, *_ = files
    q, r = str(folder / "qrels.txt"), str(folder / "run.txt")
    command = subprocess.run([sys.executable, "-m", "sqlrank", "trec_eval", "-q", "-c", "-m", "map", "-m", "P.5", q, r],
                             capture_output=True, text=True, check=True)
    assert sqlrank.trec_eval(q, r, ["map", "P.5"], per_query=True, complete=True) == command.stdout
    findings = sqlrank.check(q, r)
    assert {"duplicate judgments", "label histogram"} <= set(findings.check)
    value = sqlrank.evaluate(q, r, "AP").value[0]
    found = sqlrank.explain(q, r, "AP", target=f"{value:.4f}")
    assert found.matches[0] and found.measure[0] == "AP"
    moved = sqlrank.explain(q, r, "nDCG@10", between=("trec_eval", "ranx"))
    assert "all" in set(moved.query_id)
    with pytest.raises(sqlrank.OptionError, match="give target= .* or between="):
        sqlrank.explain(q, r, "AP")
