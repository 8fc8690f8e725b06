"""sqlrank.Evaluator: judgments read once for many runs. Each run gives what sqlrank.evaluate gives for it (values,
per-query rows, warnings, errors), from every kind of input, however many runs came before; closing it frees the
judgments and its connection, and a caller's connection is left as it was found."""
from __future__ import annotations

import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import ROOT

FORMATS = ROOT / "fixtures" / "formats"
COMPARE = ROOT / "fixtures" / "compare"
DIVERSITY = ROOT / "fixtures" / "diversity"
MEASURES = "nDCG@10 AP P@5 RR Recall@100 bpref"

QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d3", "d1"], "relevance": [1, 1, 1]})
RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d1", "d2"],
                    "score": [1.0, 0.5, 2.0, 1.0]})


def same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, expected)
    assert {k: v for k, v in got.attrs.items() if k != "sql"} == {k: v for k, v in expected.attrs.items() if k != "sql"}


def random_run(seed: int, queries: int = 30, documents: int = 40) -> pd.DataFrame:
    """Ties (scores rounded to tenths), queries the judgments lack, documents they never judged."""
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", round(float(rng.random()), 1)) for q in range(queries) for d in range(documents)
            if rng.random() < 0.7]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def random_qrels(seed: int = 0, queries: int = 25, documents: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", int(rng.integers(-1, 4))) for q in range(queries) for d in range(documents)
            if rng.random() < 0.3]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def test_a_hand_computed_mean():
    # q1: d1 relevant at rank 1, d3 relevant and not retrieved: AP 1/2; q2: d1 at rank 1: AP 1
    with sqlrank.Evaluator(QRELS, "AP P@1") as ev:
        assert list(ev.evaluate(RUN).value) == [0.75, 1.0]
        assert ev.measures == ["AP", "P@1"]


@pytest.mark.parametrize("qrels, run", [
    (FORMATS / "qrels.txt", FORMATS / "run.txt"),
    (FORMATS / "qrels.csv", FORMATS / "run.csv"),
    (FORMATS / "qrels.parquet", FORMATS / "run.parquet"),
    (FORMATS / "qrels.txt.gz", FORMATS / "run.csv.gz"),
], ids=["trec", "csv", "parquet", "gzip"])
def test_files_give_what_evaluate_gives(qrels, run):
    with sqlrank.Evaluator(str(qrels), MEASURES) as ev:
        for per_query in (False, True, False):
            same(ev.evaluate(str(run), per_query=per_query), sqlrank.evaluate(str(qrels), str(run), MEASURES, per_query=per_query))


def test_many_runs_against_the_same_judgments():
    qrels = random_qrels()
    with sqlrank.Evaluator(qrels, MEASURES) as ev:
        for seed in range(8):
            run = random_run(seed)
            with warnings.catch_warnings(record=True) as got_warned:
                warnings.simplefilter("always")
                got = ev.evaluate(run, per_query=seed % 2 == 1)
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                expected = sqlrank.evaluate(qrels, run, MEASURES, per_query=seed % 2 == 1)
            same(got, expected)
            assert [str(w.message) for w in got_warned] == [str(w.message) for w in warned]
            assert warned  # ties across the cutoffs, queries on one side: the warnings are the run's own


def test_other_kinds_of_input():
    qrels, run = random_qrels(1), random_run(1)
    expected = sqlrank.evaluate(qrels, run, MEASURES, per_query=True)
    nested = {q: dict(zip(g.doc_id, g.relevance.astype(int))) for q, g in qrels.groupby("query_id")}
    run_nested = {q: dict(zip(g.doc_id, g.score)) for q, g in run.groupby("query_id")}
    con = duckdb.connect()
    con.register("run_frame", run)
    with sqlrank.Evaluator(nested, MEASURES) as ev:
        same(ev.evaluate(run_nested, per_query=True), expected)
        same(ev.evaluate(run, per_query=True), expected)
    with sqlrank.Evaluator(qrels, MEASURES, connection=con) as ev:  # a relation and a table of that connection
        got = ev.evaluate(con.sql("SELECT * FROM run_frame"), per_query=True)  # a relation of that connection out
        assert isinstance(got, duckdb.DuckDBPyRelation)
        pd.testing.assert_frame_equal(got.df(), expected)  # a relation carries no attrs
        same(ev.evaluate("run_frame", per_query=True), expected)
    pyarrow = pytest.importorskip("pyarrow")
    with sqlrank.Evaluator(pyarrow.Table.from_pandas(qrels), MEASURES) as ev:
        got = ev.evaluate(pyarrow.Table.from_pandas(run), per_query=True)  # Arrow in, Arrow out
        assert isinstance(got, pyarrow.Table)
        same(ev.evaluate(pyarrow.Table.from_pandas(run), per_query=True, output="pandas"), expected)


def test_several_runs_in_one_call_and_column_names():
    qrels = random_qrels(2).rename(columns={"query_id": "user_id", "doc_id": "item_id"})
    runs = {"a": random_run(3).rename(columns={"query_id": "user_id", "doc_id": "item_id"}),
            "b": random_run(4).rename(columns={"query_id": "user_id", "doc_id": "item_id"})}
    options = {"qrels_columns": {"query_id": "user_id", "doc_id": "item_id"},
               "run_columns": {"query_id": "user_id", "doc_id": "item_id"}}
    with sqlrank.Evaluator(qrels, "nDCG@10 HR@5", **options) as ev:
        got = ev.evaluate(runs, per_query=True)
        assert "user_id" in got.columns
        same(got, sqlrank.evaluate(qrels, runs, "nDCG@10 HR@5", per_query=True, **options))


def test_conventions_presets_and_several_judgment_sources():
    qrels, run = random_qrels(5), random_run(5)
    with sqlrank.Evaluator(qrels, "nDCG@10 AP", preset="ranx", rel=2) as ev:
        same(ev.evaluate(run), sqlrank.evaluate(qrels, run, "nDCG@10 AP", preset="ranx", rel=2))
    sources = {"human": qrels.iloc[::2], "llm": random_qrels(6)}
    measures = "nDCG@10 Judged(source=human)@10"
    with sqlrank.Evaluator(sources, measures, prefer=["human", "llm"]) as ev:
        got = ev.evaluate(run)
        same(got, sqlrank.evaluate(sources, run, measures, prefer=["human", "llm"]))
        assert set(got.attrs["judgment_sources"]) == {"human", "llm"}


def test_diversity_judgments_per_subtopic():
    qrels, measures = str(DIVERSITY / "qrels.txt"), "alpha_nDCG@10 ERR_IA@10"
    with sqlrank.Evaluator(qrels, measures) as ev:
        for run in ("diverse.run", "relevance.run"):
            same(ev.evaluate(str(DIVERSITY / run)), sqlrank.evaluate(qrels, str(DIVERSITY / run), measures))


def test_strict_and_errors_are_those_of_evaluate():
    with sqlrank.Evaluator(QRELS, "P@1", strict=True) as ev:
        tied = RUN.assign(score=1.0)
        with pytest.raises(sqlrank.InputError, match="strict: .* same score"):
            ev.evaluate(tied)
        with pytest.raises(sqlrank.InputError, match="no query is in both"):
            ev.evaluate(RUN.assign(query_id=["x", "x", "y", "y"]))
        assert list(ev.evaluate(RUN).value) == [1.0]  # a failed run leaves the evaluator as it was


@pytest.mark.parametrize("given, message", [
    ({"engine": "postgres", "dsn": "postgresql://x"}, "evaluates in DuckDB"),
    ({"run_colums": {}}, "unknown option 'run_colums'; did you mean 'run_columns'"),
    ({"rel": "high"}, "rel"),
])
def test_options_are_checked_when_it_is_made(given, message):
    with pytest.raises(sqlrank.SqlrankError, match=message):
        sqlrank.Evaluator(QRELS, "AP", **given)


def test_closing_frees_the_judgments_and_the_connection():
    ev = sqlrank.Evaluator(str(FORMATS / "qrels.txt"), "AP")  # TREC text: a copy kept while it is open
    con = ev._con
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0] >= 1
    ev.evaluate(str(FORMATS / "run.txt"))
    ev.close()
    ev.close()  # twice: nothing more
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")
    with pytest.raises(sqlrank.OptionError, match="closed"):
        ev.evaluate(str(FORMATS / "run.txt"))


def test_each_run_is_let_go_after_its_call_and_a_callers_connection_stays_as_it_was():
    con = duckdb.connect()
    con.execute("CREATE TABLE mine AS SELECT 1 AS x")
    before = con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0]
    with sqlrank.Evaluator(QRELS, "AP", connection=con) as ev:
        held = con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0]
        for _ in range(3):
            ev.evaluate(RUN)
            assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0] == held
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0] == before
    assert con.execute("SELECT x FROM mine").fetchall() == [(1,)]


def test_dropped_without_closing_it_closes_itself():
    import gc

    ev = sqlrank.Evaluator(QRELS, "AP")
    con = ev._con
    del ev
    gc.collect()
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")


def test_it_holds_the_judgments_it_checked(tmp_path):
    """The judgments changed after the Evaluator checked them (a Parquet file rewritten to judge a document twice,
    which sqlrank.evaluate refuses; a DataFrame or table changed in place): its runs still read the judgments it
    checked, not the new rows unchecked."""
    path = tmp_path / "qrels.parquet"
    QRELS.to_parquet(path)
    frame, con = QRELS.copy(), duckdb.connect()
    con.execute("CREATE TABLE judged AS SELECT * FROM QRELS")
    evaluators = [sqlrank.Evaluator(str(path), "AP P@1"), sqlrank.Evaluator(frame, "AP P@1"),
                  sqlrank.Evaluator("judged", "AP P@1", connection=con)]
    before = [ev.evaluate(RUN) for ev in evaluators]
    twice = pd.concat([QRELS.assign(relevance=0), QRELS.iloc[:1]], ignore_index=True)
    twice.to_parquet(path)
    with pytest.raises(sqlrank.InputError, match="judged 2 times"):
        sqlrank.evaluate(str(path), RUN, "AP P@1")
    frame["relevance"] = 0
    con.execute("UPDATE judged SET relevance = 0")
    for ev, first in zip(evaluators, before):
        same(ev.evaluate(RUN), first)
        assert first.value.tolist() == [0.75, 1.0]  # by hand: q1 AP (1 + 0) / 2 with d3 never retrieved; q2 1
        ev.close()


def test_a_closed_connection_and_an_error_on_another_connections_relation_are_clear():
    closed = duckdb.connect()
    closed.close()
    for call in (lambda: sqlrank.Evaluator(QRELS, "AP", connection=closed),
                 lambda: sqlrank.evaluate(QRELS, RUN, "AP", connection=closed)):
        with pytest.raises(sqlrank.OptionError, match="connection= is closed"):
            call()
    con = duckdb.connect()
    with sqlrank.Evaluator(QRELS, "AP", connection=con) as ev:
        foreign = duckdb.connect().sql("SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score")
        with pytest.raises(sqlrank.InputError, match="is read in the connection it belongs to"):
            ev.evaluate(foreign)
        assert ev.evaluate(RUN).value.tolist() == [0.75]  # not left with an unfinished result


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork here")
def test_a_fork_made_while_another_thread_evaluates_is_refused_not_waited_on():
    """A child forked while a thread of the parent holds the Evaluator's lock waited on it for ever."""
    import os
    import time

    ev = sqlrank.Evaluator(QRELS, "AP")
    with ev._lock:  # as another thread evaluating at the moment of the fork
        child = os.fork()
        if child == 0:  # pragma: no cover (the child)
            try:
                ev.evaluate(RUN)
                os._exit(2)
            except sqlrank.OptionError as exc:
                os._exit(0 if "make a new Evaluator in this one" in str(exc) else 3)
            except BaseException:
                os._exit(4)
    deadline = time.monotonic() + 30
    while (found := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if found[0] == 0:
        os.kill(child, 9)
        os.waitpid(child, 0)
        pytest.fail("the forked child waited on the lock")
    assert os.waitstatus_to_exitcode(found[1]) == 0
    assert ev.evaluate(RUN).value.tolist() == [0.75]  # the parent's is as it was
    ev.close()
