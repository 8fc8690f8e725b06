"""Runs stored together: one table with a run_id column, hive-partitioned folders run_id=...,
or one Parquet file per run evaluate in one statement, one result per run, equal to
evaluating each run alone."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES

COMPARE = FIXTURES / "compare"
NAMES = ("baseline", "rerank", "rerank_v2")
MEASURES = "nDCG@10 AP P@10 RR Bpref R@50"


@pytest.fixture(scope="module")
def alone():
    return {name: sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(COMPARE / f"{name}.run"), MEASURES, per_query=True)
            for name in NAMES}


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    table = pd.read_parquet(COMPARE / "runs.parquet")
    table.to_parquet(folder / "hive", partition_cols=["run_id"], index=False)
    (folder / "files").mkdir()
    for name, rows in table.groupby("run_id"):
        rows.drop(columns="run_id").to_parquet(folder / "files" / f"{name}.parquet", index=False)
    return {"column": (str(COMPARE / "runs.parquet"), {}),
            "dataframe": (table.rename(columns={"run_id": "system"}), {"run_columns": {"run_id": "system"}}),
            "hive": (str(folder / "hive" / "*" / "*.parquet"), {}),
            "files": (str(folder / "files" / "*.parquet"), {"run_columns": {"run_id": "filename"}})}


@pytest.mark.parametrize("layout", ["column", "dataframe", "hive", "files"])
def test_runs_stored_together_equal_each_run_alone(alone, layouts, layout):
    run, options = layouts[layout]
    together = sqlrank.evaluate(str(COMPARE / "qrels.txt"), run, MEASURES, per_query=True, **options)
    assert list(together.columns) == ["run_id", "query_id", "measure", "value"]
    assert sorted(together.run_id.unique()) == list(NAMES)
    for name in NAMES:
        mine = together[together.run_id == name].drop(columns="run_id").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone[name], check_exact=False, atol=1e-12, rtol=0)
    summary = sqlrank.evaluate(str(COMPARE / "qrels.txt"), run, MEASURES, **options)
    assert list(summary.columns) == ["run_id", "measure", "value"] and len(summary) == 3 * 6
    for name in NAMES:
        expected = sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(COMPARE / f"{name}.run"), MEASURES)
        assert (summary[summary.run_id == name].value.to_numpy() - expected.value.to_numpy()).max() <= 1e-12


def test_missing_queries_per_run(tmp_path):
    table = pd.read_parquet(COMPARE / "runs.parquet")
    table = table[~((table.run_id == "rerank") & (table.query_id == "q05"))]
    path = tmp_path / "runs.parquet"
    table.to_parquet(path, index=False)
    skip = sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(path), "AP", per_query=True)
    assert len(skip[skip.run_id == "rerank"]) == 59 and len(skip[skip.run_id == "baseline"]) == 60
    zero = sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(path), "AP", per_query=True, missing_queries="zero")
    row = zero[(zero.run_id == "rerank") & (zero.query_id == "q05")]
    assert len(row) == 1 and row.value.iloc[0] == 0.0


def test_duplicates_are_per_run_and_bad_run_ids_are_errors(tmp_path):
    table = pd.read_parquet(COMPARE / "runs.parquet")
    doubled = pd.concat([table, table[(table.run_id == "rerank")].head(1)])
    doubled.to_parquet(tmp_path / "dup.parquet", index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(COMPARE / "qrels.txt"),
                           str(tmp_path / "dup.parquet"), "-m", "AP"], capture_output=True, text=True)
    assert done.returncode == 1 and "is ranked 2 times for query 'rerank\\x1fq01'" in done.stderr or \
        "is ranked 2 times" in done.stderr, done.stderr
    missing = table.copy()
    missing.loc[missing.index[5], "run_id"] = None
    missing.to_parquet(tmp_path / "missing.parquet", index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(COMPARE / "qrels.txt"),
                           str(tmp_path / "missing.parquet"), "-m", "AP"], capture_output=True, text=True)
    assert done.returncode == 1 and "empty run_id" in done.stderr, done.stderr


def test_runs_table_on_the_command_line():
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(COMPARE / "qrels.txt"),
                           str(COMPARE / "runs.parquet"), "-m", "nDCG@10 AP"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["run_id", "nDCG@10", "AP"]
    assert [line.split()[0] for line in lines[2:5]] == list(NAMES)


def test_a_mean_over_fewer_queries_is_said_per_run(tmp_path):
    # By hand: run x retrieves only q2's relevant document, so q2 has no AUC there; run y has both
    # classes in both queries. AUC is over 1 query in x and 2 in y; AP over both everywhere.
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2"] * 2, "relevance": [1, 0] * 2})
    runs = pd.DataFrame({"run_id": ["x", "x", "x", "y", "y", "y", "y"],
                         "query_id": ["q1", "q1", "q2", "q1", "q1", "q2", "q2"],
                         "doc_id": ["d1", "d2", "d1", "d2", "d1", "d1", "d2"], "score": [2, 1, 1, 2, 1, 2, 1]})
    for per_query in (False, True):
        frame = sqlrank.evaluate(qrels, runs, "AUC AP", per_query=per_query)
        assert frame.attrs["queries"] == {"x": {"AUC": 1, "AP": 2}, "y": {"AUC": 2, "AP": 2}}, per_query
    runs.to_parquet(tmp_path / "runs.parquet")
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "qrels.csv"),
                           str(tmp_path / "runs.parquet"), "-m", "AUC AP"], capture_output=True, text=True)
    assert "queries: 2\nAUC: mean over 1 (x), 2 (y) queries\n" in done.stdout, done.stdout + done.stderr


def test_a_table_of_runs_stored_together_in_a_list_of_runs_is_said():
    """evaluate(qrels, [table of runs stored together]) stacked its keyed query ids again: "no query is in both the
    qrels and the run (runs run_1): ... run queries like 'a\\x1f0'", sqlrank's internals; it now says what to do."""
    runs = pd.read_parquet(COMPARE / "runs.parquet")
    with pytest.raises(sqlrank.OptionError, match="run_1 is a table of runs stored together .* give it alone"):
        sqlrank.evaluate(str(COMPARE / "qrels.txt"), [runs], "AP")
    assert set(sqlrank.evaluate(str(COMPARE / "qrels.txt"), runs, "AP").run_id) == set(NAMES)


@pytest.mark.parametrize("kind", ["dataframe", "relation", "dict"])
def test_runs_stored_together_are_checked_with_their_query_ids_apart(kind):
    """Validation's pass hashes a frame's, relation's or table's (run, query, document) without building the keyed
    text: the same pair in two runs is no repeat, a repeat within one run, a NUL byte in a run's name or an empty query
    id are the errors the keyed rows say, and the values are each run's alone."""
    import duckdb

    table = pd.read_parquet(COMPARE / "runs.parquet")

    def evaluated(frame: pd.DataFrame):
        if kind == "dict":
            runs = {name: rows.drop(columns="run_id") for name, rows in frame.groupby("run_id", sort=False)}
            return sqlrank.Evaluator(str(COMPARE / "qrels.txt"), "AP P@10").evaluate(runs)
        con = duckdb.connect()
        run = frame if kind == "dataframe" else con.from_df(frame)
        result = sqlrank.evaluate(str(COMPARE / "qrels.txt"), run, "AP P@10", connection=con)
        return result if isinstance(result, pd.DataFrame) else result.df()  # a relation's result is a relation

    got = evaluated(table)
    for name in NAMES:
        expected = sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(COMPARE / f"{name}.run"), "AP P@10")
        assert got[got.run_id == name].value.tolist() == expected.value.tolist()
    repeated = pd.concat([table, table[table.run_id == "rerank"].head(1)])
    with pytest.raises(sqlrank.InputError, match="is ranked 2 times"):
        evaluated(repeated)
    if kind != "dict":  # a dict's keys name its runs
        named = table.copy()
        named["run_id"] = named.run_id.where(named.run_id != "rerank", "re\x00rank")
        with pytest.raises(sqlrank.InputError, match="NUL byte"):
            evaluated(named)
    empty = table.copy()
    empty.loc[empty.index[7], "query_id"] = ""
    with pytest.raises(sqlrank.InputError, match="empty query_id"):
        evaluated(empty)
