"""Spark: the statement rendered in Spark SQL, run by a local Spark session, gives DuckDB's
per-query values to 1e-12 for every measure under every convention, on generated data with
ties, graded and negative labels, unjudged documents and queries on one side only (and the summary's
under the sets that change which queries are averaged).

Marked spark: skipped where pyspark or Java is missing, required in CI (SQLRANK_REQUIRE_PEERS)."""
from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

import sqlrank
from support.generate import generate
from support.cases import (CONVENTIONS, assert_beyond_accuracy_equals_duckdb, assert_compare_equals_duckdb, assert_engine_tables_equal_duckdb,
                   assert_read_by_duckdb_equals_duckdb,
                   assert_runs_stored_together_equal_duckdb, assert_same_values, convention_id, engine_tables,
                   measures_for, recommender_case)
from conftest import close

pytestmark = [pytest.mark.spark, pytest.mark.slow]

@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        if os.environ.get("SQLRANK_REQUIRE_PEERS"):
            pytest.fail("Java is required here (SQLRANK_REQUIRE_PEERS)")
        pytest.skip("Java is not installed")
    from conftest import peer
    peer("pyspark")
    from sqlrank.engines.spark import local_session
    return local_session()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spark")
    qrels, run = generate(41, n_queries=120, signed_zeros=True)
    run["rank"] = run.groupby("query_id").cumcount() + 1  # the input order, for tie_break=input_rank
    paths = folder / "qrels.parquet", folder / "run.parquet"
    qrels.to_parquet(paths[0])
    run.to_parquet(paths[1])
    return qrels, run, paths


# The summary's statement averages the per-query one's values over the queries the conventions count: on Spark (about
# 25 s a statement of every measure) it runs under the sets that change which queries those are, trec_eval's,
# missing_queries=zero and unjudged_queries=zero; tests/engines/test_engines.py runs it under every set elsewhere.
SUMMARIES = tuple(number for number, conventions in enumerate(CONVENTIONS)
                  if not conventions or {"missing_queries", "unjudged_queries"} & set(conventions))


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
def test_every_measure_on_spark_equals_duckdb(spark, data, conventions):
    _, _, (qrels, run) = data
    measures = measures_for(conventions)
    duck = sqlrank.evaluate(str(qrels), str(run), measures, per_query=True, **conventions)
    on_spark = sqlrank.evaluate(str(qrels), str(run), measures, per_query=True, spark=spark, **conventions)
    assert len(duck) > 1000
    assert_same_values(duck, on_spark)
    if CONVENTIONS.index(conventions) not in SUMMARIES:
        return
    duck_summary = sqlrank.evaluate(str(qrels), str(run), measures, **conventions)
    spark_summary = sqlrank.evaluate(str(qrels), str(run), measures, spark=spark, **conventions)
    assert list(duck_summary.measure) == list(spark_summary.measure)
    assert duck_summary.attrs["queries"] == spark_summary.attrs["queries"]
    assert all(close(a, b, 1e-12) for a, b in zip(duck_summary.value, spark_summary.value))


def test_spark_dataframes_tables_and_trec_text(spark, data, tmp_path):
    qrels, run, (qrels_path, run_path) = data
    expected = sqlrank.evaluate(qrels, run, "nDCG@10 AP P@5 RR", per_query=True)
    qrels_frame, run_frame = spark.createDataFrame(qrels), spark.createDataFrame(run)
    assert_same_values(expected, sqlrank.evaluate(qrels_frame, run_frame, "nDCG@10 AP P@5 RR", per_query=True,
                                                  spark=spark))
    run_frame.createOrReplaceTempView("my_run")
    qrels_frame.withColumnRenamed("relevance", "label").createOrReplaceTempView("my_qrels")
    assert_same_values(expected, sqlrank.evaluate("my_qrels", "my_run", "nDCG@10 AP P@5 RR", per_query=True,
                                                  spark=spark, qrels_columns={"relevance": "label"}))
    trec_qrels, trec_run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    trec_qrels.write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples()))
    trec_run.write_text("".join(f"{r.query_id}\tQ0\t{r.doc_id}\t{r.rank}\t{r.score!r}\ttag\n" for r in run.itertuples()))
    assert_same_values(expected, sqlrank.evaluate(str(trec_qrels), str(trec_run), "nDCG@10 AP P@5 RR",
                                                  per_query=True, spark=spark))


def test_bad_spark_input_is_an_error(spark, data):
    qrels, run, _ = data
    doubled = spark.createDataFrame(pd.concat([run, run.head(3)]))
    with pytest.raises(sqlrank.InputError, match="3 rows repeat a \\(query_id, doc_id\\) pair"):
        sqlrank.evaluate(spark.createDataFrame(qrels), doubled, "AP", spark=spark)
    nan_score = run.astype({"doc_id": object}).copy()
    nan_score.loc[[0, 4], "score"] = float("nan")
    with pytest.raises(sqlrank.InputError, match="2 rows have no score \\(NULL or NaN\\)"):
        sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(nan_score), "AP", spark=spark)
    no_doc = run.astype({"doc_id": object}).copy()
    no_doc.loc[1, "doc_id"] = None
    with pytest.raises(sqlrank.InputError, match="1 rows have no query_id or doc_id"):
        sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(no_doc), "AP", spark=spark)
    unnamed = pd.concat([run.assign(run_id="a"), run.head(4).assign(run_id="b\x1fc")])  # the statement's separator
    with pytest.raises(sqlrank.InputError, match="4 rows have an empty run_id \\(column 'run_id'\\) or one holding"):
        sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(unnamed), "AP", spark=spark)
    empty = spark.createDataFrame(qrels).limit(0)
    with pytest.raises(sqlrank.InputError, match="the table has no rows"):
        sqlrank.evaluate(empty, spark.createDataFrame(run), "AP", spark=spark)
    # a label with a fraction is the real number it is (Spark's CAST to an integer would make 2.5 a 2), as a
    # double column or as text
    halves = qrels.assign(relevance=qrels.relevance.astype(float).where(qrels.index % 3 != 2, qrels.relevance + 0.5))
    measures = "AP nDCG@10 nDCG(gain=exponential)@10 P(rel=1.5)@5"
    expected = sqlrank.evaluate(halves, run, measures, per_query=True)
    assert_same_values(expected, sqlrank.evaluate(spark.createDataFrame(halves), spark.createDataFrame(run), measures,
                                                  per_query=True, spark=spark))
    texts = spark.createDataFrame(halves.assign(relevance=halves.relevance.map(lambda r: f"{r:g}")))
    assert_same_values(expected, sqlrank.evaluate(texts, spark.createDataFrame(run), measures, per_query=True,
                                                  spark=spark))
    with pytest.raises(sqlrank.InputError, match="column 'query_id' \\(query_id\\) is double; ids must be text"):
        sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run.assign(query_id=pd.factorize(run.query_id)[0] + 0.5)), "AP",
                         spark=spark)
    scores_as_ranks = spark.createDataFrame(run.drop(columns="score").assign(rank=run.score))
    with pytest.raises(sqlrank.InputError, match="ranks are no whole number >= 0; the run has no score column"):
        sqlrank.evaluate(spark.createDataFrame(qrels), scores_as_ranks, "AP", spark=spark)
    with pytest.raises(sqlrank.InputError, match="no column 'score'"):  # and no rank to rank by
        sqlrank.evaluate(spark.createDataFrame(qrels),
                         spark.createDataFrame(run.rename(columns={"score": "s"}).drop(columns="rank")), "AP", spark=spark)


def test_measures_beyond_accuracy_on_spark_equal_duckdb(spark):
    assert_beyond_accuracy_equals_duckdb(spark=spark)


def test_subtopics_samples_and_merged_judgments_on_spark_equal_duckdb(spark):
    """Expected exposure and merged judgment sources, read by DuckDB and copied in; the diversity measures are refused
    before anything is copied, saying why (Spark allows no window function on a recursive reference)."""
    assert_read_by_duckdb_equals_duckdb(diversity=False, spark=spark)
    qrels = pd.DataFrame({"query_id": ["q1"], "subtopic": ["1"], "doc_id": ["d1"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(sqlrank.MeasureError, match="cannot be computed in spark: .* window functions, which Spark"):
        sqlrank.evaluate(qrels, run, "alpha_nDCG@10", spark=spark)


def test_compare_on_spark_equals_duckdb(spark):
    """compare with spark= (a SparkSession; --engine spark on the command line): the per-query values computed by
    Spark, the tests in Python, equal DuckDB's comparison to 1e-12 (support/cases.py)."""
    assert_compare_equals_duckdb(spark=spark)


def test_extra_inputs_that_are_spark_tables_or_dataframes_are_read_by_spark(spark):
    for name, frame in engine_tables().items():
        spark.createDataFrame(frame).createOrReplaceTempView(name)
    assert_engine_tables_equal_duckdb(spark=spark)
    qrels, run, options = recommender_case()
    expected = sqlrank.evaluate(qrels, run, "Novelty@10 AvgPop@10", per_query=True, **options)
    history = spark.createDataFrame(engine_tables()["seen"])
    assert_same_values(expected, sqlrank.evaluate(qrels, run, "Novelty@10 AvgPop@10", per_query=True, spark=spark,
                                                  history=history, qrels_columns=options["qrels_columns"]))
    # the views sqlrank made of the inputs (DataFrames, copies of the extra inputs) are gone afterwards:
    # a session outlives its evaluations, and a view of a pandas DataFrame holds its rows
    assert [t.name for t in spark.catalog.listTables() if t.name.startswith("sqlrank_")] == []


def test_labels_written_true_or_false_on_spark(spark):
    """A CSV Spark reads (text) with a clicked column of true and false: 1 and 0, as DuckDB reads it."""
    from conftest import FIXTURES

    clicks, run = str(FIXTURES / "recsys" / "clicks.csv"), str(FIXTURES / "recsys" / "predictions.parquet")
    expected = sqlrank.evaluate(clicks, run, "HR@10 NDCG@10 AP", per_query=True, qrels_columns={"relevance": "clicked"})
    assert_same_values(expected, sqlrank.evaluate(clicks, run, "HR@10 NDCG@10 AP", per_query=True, spark=spark,
                                                  qrels_columns={"relevance": "clicked"}))


def test_a_rank_only_run_on_spark_equals_duckdb(spark, data):
    qrels, run, _ = data
    ranked = run.drop(columns="score")  # a rank column only: rank 1 first
    expected = sqlrank.evaluate(qrels, ranked, "nDCG@10 AP P@5", per_query=True)
    assert_same_values(expected, sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(ranked),
                                                  "nDCG@10 AP P@5", per_query=True, spark=spark))
    by_score = sqlrank.evaluate(qrels, run.assign(score=-run["rank"].astype(float)), "nDCG@10 AP P@5", per_query=True)
    assert expected.equals(by_score)


def test_runs_stored_together_on_spark(spark, tmp_path):
    from conftest import FIXTURES
    compare = FIXTURES / "compare"
    expected = sqlrank.evaluate(str(compare / "qrels.txt"), str(compare / "runs.parquet"), "nDCG@10 AP P@5",
                                per_query=True)
    on_spark = sqlrank.evaluate(str(compare / "qrels.txt"), str(compare / "runs.parquet"), "nDCG@10 AP P@5",
                                per_query=True, spark=spark)
    assert list(on_spark.columns) == ["run_id", "query_id", "measure", "value"]
    merged = expected.merge(on_spark, on=["run_id", "query_id", "measure"])
    assert len(merged) == len(expected) == 3 * 60 * 3
    assert (merged.value_x - merged.value_y).abs().max() <= 1e-12
    table = pd.read_parquet(compare / "runs.parquet")
    files = tmp_path / "files"
    files.mkdir()
    for name, rows in table.groupby("run_id"):
        rows.drop(columns="run_id").to_parquet(files / f"{name}.parquet", index=False)
    by_file = sqlrank.evaluate(str(compare / "qrels.txt"), str(files / "*.parquet"), "nDCG@10 AP P@5", spark=spark,
                               run_columns={"run_id": "filename"})
    summary = sqlrank.evaluate(str(compare / "qrels.txt"), str(compare / "runs.parquet"), "nDCG@10 AP P@5")
    assert list(by_file.run_id) == list(summary.run_id)
    assert (by_file.value - summary.value).abs().max() <= 1e-12
    table.to_parquet(tmp_path / "hive", partition_cols=["run_id"], index=False)
    hive = sqlrank.evaluate(str(compare / "qrels.txt"), str(tmp_path / "hive" / "*" / "*.parquet"), "nDCG@10 AP P@5",
                            spark=spark)
    assert list(hive.run_id) == list(summary.run_id)
    assert (hive.value - summary.value).abs().max() <= 1e-12


def test_every_measure_of_runs_stored_together_on_spark(spark, data):
    """Two runs in one table (run_id): every measure per query, and each run's Coverage, Gini,
    GlobalAUC, Serendipity... with and without remove_seen, equal DuckDB's (with queries missing from
    a run scored 0 only: Spark takes 15-30 s a statement; the other engines check both rules)."""
    qrels, run, _ = data
    assert_runs_stored_together_equal_duckdb(qrels, run, ({"missing_queries": "zero"},), spark=spark)


def test_hostile_paths_and_names_on_spark(spark, data, tmp_path):
    """Quotes, backticks, semicolons, comments and backslashes in paths and column names keep
    their meaning in Spark SQL (backtick identifiers, backslash-escaped literals)."""
    qrels, run, _ = data
    folder = tmp_path / "it's `odd`; -- * x \\ y"
    folder.mkdir()
    q, r = folder / "q.parquet", folder / "r.parquet"
    qrels.rename(columns={"relevance": "rel`; DROP TABLE x --"}).to_parquet(q)
    run.to_parquet(r)
    expected = sqlrank.evaluate(qrels, run, "AP nDCG@10", per_query=True)
    got = sqlrank.evaluate(str(q), str(r), "AP nDCG@10", per_query=True, spark=spark,
                           qrels_columns={"relevance": "rel`; DROP TABLE x --"})
    assert_same_values(expected, got)


def test_what_only_duckdb_takes_is_refused_on_spark(spark, data):
    _, _, (qrels, run) = data
    for options, message in (({"threads": 2}, "threads: DuckDB settings, which do not apply on Spark"),
                             ({"slices": 2}, "slices= is for DuckDB: Spark runs the whole statement itself"),
                             ({"queries": pd.DataFrame({"query_id": ["1"], "kind": ["a"]}), "by": "kind"},
                              "a query table (queries=, by=) is read on DuckDB only")):
        with pytest.raises(sqlrank.OptionError) as caught:
            sqlrank.evaluate(str(qrels), str(run), "AP", spark=spark, **options)
        assert message in str(caught.value)


def test_input_rank_on_spark_needs_a_rank_on_every_row(spark, data):
    qrels, run, _ = data
    holes = run.assign(rank=run["rank"].astype("Int64").mask(run.index % 7 == 0))
    with pytest.raises(sqlrank.InputError, match="rows have no integer rank"):
        sqlrank.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(holes), "AP", tie_break="input_rank",
                         spark=spark)


def test_a_spark_evaluation_prints_only_sqlranks_lines(spark, tmp_path):
    """sqlrank eval --engine spark in a fresh process: the table on stdout, and on stderr nothing of Java's
    start-up notes, log4j's defaults or pyspark's pandas notice (they go to the session's folder)."""
    import subprocess
    import sys

    from conftest import FIXTURES
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(FIXTURES / "demo" / "qrels.test"),
                           str(FIXTURES / "demo" / "results.test"), "-m", "P@10 nDCG@10", "--engine", "spark"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("measure ") and "P@10     0.3000" in done.stdout
    assert done.stderr == "", done.stderr
