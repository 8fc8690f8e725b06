"""Many runs against the same judgments, the way a sweep is scored: the Evaluator makes the steps that read the
judgments alone once (tables of its connection), each run's statement reads them and the run's checks with its
values, and many runs in one call are one registration and one statement. Every value is the one sqlrank.evaluate
gives for the run alone; the expected values come from sqlrank.evaluate (its own tests hold it to trec_eval and the
peers), never from the Evaluator's path under test."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sqlrank
from sqlrank import plan as planning
from sqlrank.inputs import store, validate

MEASURES = ("nDCG@10 AP P@5 RR Recall@100 bpref R-prec nDCG nDCG(gain=exponential)@10 ERR@10 infAP Success@3 "
            "ndcg_rel Rndcg NumRel NumRelRet Judged@10 nDCG(ideal=run)@10")
# Measures that read the judged documents of a ranking only: the run meets the judgments in a join of its own
# (sql/evaluation/ranking_sparse.sql), where MEASURES rank every document with its label.
SPARSE = "nDCG@10 AP P@5 RR Recall@100 R-prec nDCG(gain=exponential)@10 NumRelRet Success@3"
# Measures whose values are running sums over a window (DuckDB's segment trees add in an order of their own):
# equal to the last bits only (1e-15 found, 1e-12 asked).
WINDOWED = {"ndcg_rel", "Rndcg"}


def random_qrels(seed: int, queries: int = 30, documents: int = 50) -> pd.DataFrame:
    """Graded and negative labels, queries without a relevant document."""
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", int(rng.integers(-1, 4))) for q in range(queries) for d in range(documents)
            if rng.random() < 0.3]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def random_run(seed: int, queries: int = 34, documents: int = 45) -> pd.DataFrame:
    """Ties (scores in tenths), queries the judgments lack, queries left out, documents never judged."""
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", round(float(rng.random()), 1)) for q in range(queries) if rng.random() < 0.9
            for d in range(documents) if rng.random() < 0.6]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def quietly(call):
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        return call(), [str(w.message) for w in warned]


def assert_same(got: pd.DataFrame, expected: pd.DataFrame, keys: list[str]) -> None:
    got, expected = (frame.sort_values(keys, na_position="first").reset_index(drop=True) for frame in (got, expected))
    assert got[keys].equals(expected[keys])
    exact = ~got.measure.isin(WINDOWED)
    assert got.value[exact].equals(expected.value[exact])  # value for value, to the last bit
    assert np.allclose(got.value[~exact], expected.value[~exact], rtol=0, atol=1e-12)


@pytest.mark.parametrize("measures", [MEASURES, SPARSE], ids=["every document", "judged documents"])
@pytest.mark.parametrize("conventions", [{}, {"missing_queries": "zero"}, {"unjudged_queries": "zero"},
                                         {"no_relevant": "skip"}, {"preset": "ranx"}], ids=str)
def test_each_run_gives_what_evaluate_gives_after_many(conventions, measures):
    qrels = random_qrels(0)
    with sqlrank.Evaluator(qrels, measures, **conventions) as ev:
        for seed in range(5):
            run = random_run(seed)
            got, got_warned = quietly(lambda: ev.evaluate(run, per_query=seed % 2 == 0))
            expected, warned = quietly(lambda: sqlrank.evaluate(qrels, run, measures, per_query=seed % 2 == 0,
                                                                **conventions))
            keys = ["query_id", "measure"] if seed % 2 == 0 else ["measure"]
            assert_same(got, expected, keys)
            assert got_warned == warned and warned  # the run's own warnings (ties, queries on one side)


def test_the_steps_of_the_judgments_are_made_once_per_evaluator(monkeypatch):
    made = []
    render = planning.render_prepared
    monkeypatch.setattr(planning, "render_prepared", lambda *a, **k: (steps := render(*a, **k), made.extend(steps))[0])
    with sqlrank.Evaluator(random_qrels(1), "nDCG@10 AP P@10 nDCG(gain=exponential)@5") as ev:
        assert sorted(made) == sorted(["best_labels", "evaluated_queries", "numbered_qrels", "judgments", "ideal",
                                       "ideal_dcg", "ideal_exp", "ideal_exp_dcg"])
        tables = [table for _, table, _ in ev._judged.prepared]
        for seed in range(4):
            quietly(lambda: ev.evaluate(random_run(seed)))
            quietly(lambda: ev.evaluate({"a": random_run(seed), "b": random_run(seed + 9)}))
        assert len(made) == 8  # none again, whatever the runs
        listed = {name for name, in ev._con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
        assert set(tables) <= listed  # held while it is open
    with sqlrank.Evaluator(random_qrels(1), "nDCG@10", unjudged_label=0) as ev:  # the run's documents are judged
        assert ev._judged.prepared == ()


@pytest.mark.parametrize("measures", [MEASURES, SPARSE], ids=["every document", "judged documents"])
def test_a_sweep_in_one_call_is_the_loop_value_for_value(monkeypatch, measures):
    qrels = random_qrels(2)
    runs = {f"setting {i}": random_run(10 + i).iloc[: 1200 - 40 * i] for i in range(12)}
    registered, passes = [], []
    register, validated = store.Registry.register, validate.validate
    monkeypatch.setattr(store.Registry, "register", lambda self, obj, kind: registered.append(kind) or
                        register(self, obj, kind))
    monkeypatch.setattr(validate, "validate", lambda *a, **k: passes.append(a[0].label) or validated(*a, **k))
    with sqlrank.Evaluator(qrels, measures) as ev:
        registered.clear()
        one, _ = quietly(lambda: ev.evaluate(runs, per_query=True))
        assert registered == ["run"] and passes == []  # one frame, its checks read by the statement
        loop = pd.concat([quietly(lambda: ev.evaluate(run, per_query=True))[0].assign(run_id=name)
                          for name, run in runs.items()])[one.columns]
        assert_same(one, loop, ["run_id", "query_id", "measure"])
        summary, _ = quietly(lambda: ev.evaluate(runs))
        stored = pd.concat([run.assign(run_id=name) for name, run in runs.items()], ignore_index=True)
        together, _ = quietly(lambda: ev.evaluate(stored))  # one table of runs stored together
        assert_same(together, summary, ["run_id", "measure"])
        assert list(summary.run_id.unique()) == list(runs)  # in the order given


def test_a_sweeps_statement_never_repeats_the_judgments_per_run():
    """Runs stored together meet the judgments by each query's judged number: no copy of the judgments per run
    (before, every judgment was repeated for every run: rows x runs)."""
    from sqlrank.plan import plan

    with sqlrank.Evaluator(random_qrels(3), "nDCG@10 AP") as ev:
        runs = {"a": random_run(1), "b": random_run(2)}
        p = plan(ev._judged, runs, ev._measures, "summary", ev._con, ev._registry, printable=False, defer=True)
        assert "judged_number" in p.sql and "CROSS JOIN (SELECT DISTINCT" not in p.sql.split("numbered_qrels AS")[1]


@pytest.mark.parametrize("change, message", [
    (lambda run: run.assign(score=run.score.where(run.index != 7)), "run 'b' \\(row 8\\): missing score"),
    (lambda run: run.assign(doc_id=run.doc_id.where(run.index != 3, "")), "run 'b' \\(row 4\\): .*empty"),
    (lambda run: run.assign(query_id=run.query_id.where(run.index != 6, "")), "run 'b' \\(row 7\\): empty query_id"),
    (lambda run: pd.concat([run, run.iloc[[5]]], ignore_index=True), "document .* is ranked 2 times for query"),
    (lambda run: run.assign(score=run.score.astype(str).where(run.index != 2, "high")), "score"),
], ids=["NaN", "empty id", "empty query id", "twice", "text"])
def test_a_bad_run_in_a_sweep_is_named_with_its_row(change, message):
    runs = {"a": random_run(4), "b": change(random_run(5)), "c": random_run(6)}
    with sqlrank.Evaluator(random_qrels(4), "AP P@5") as ev:
        for given in (runs, runs["b"]):
            with pytest.raises(sqlrank.InputError, match=message if given is runs else message.replace(
                    "run 'b' \\(row", "DataFrame \\(row")):
                quietly(lambda: ev.evaluate(given))
        assert quietly(lambda: ev.evaluate(runs["a"]))[0].value.notna().all()  # the Evaluator is as it was


@pytest.mark.parametrize("names", [("judged", "ranked"), ("qrels", "run"), ("ideal", "run_ranked")])
def test_tables_named_as_the_statements_steps_are_the_tables(names):
    """The run's checks are read in the statement: a table named as one of its steps (judged, ranked, run) is the
    table there, not the step (the checks read 'judged', the ranking's step, and found no query in both)."""
    import duckdb

    qrels, run = random_qrels(5), random_run(5)
    con = duckdb.connect()
    con.register("q", qrels)
    con.register("r", pd.concat([run.assign(run_id="a"), run.assign(run_id="b")], ignore_index=True))
    con.execute(f'CREATE TABLE "{names[0]}" AS SELECT * FROM q')
    con.execute(f'CREATE TABLE "{names[1]}" AS SELECT * FROM r')
    got, _ = quietly(lambda: sqlrank.evaluate(names[0], names[1], SPARSE, per_query=True, connection=con))
    expected, _ = quietly(lambda: sqlrank.evaluate(qrels, {"a": run, "b": run}, SPARSE, per_query=True))
    assert_same(got, expected, ["run_id", "query_id", "measure"])


def test_a_run_whose_statement_cannot_read_its_checks_is_validated_first():
    """Evaluated in slices (one statement per slice), a run read in place is validated before any statement: its
    values are evaluate's, and a bad row is said with its place, as when the statement reads the checks."""
    qrels, run = random_qrels(6), random_run(6)
    expected, _ = quietly(lambda: sqlrank.evaluate(qrels, run, SPARSE, per_query=True))
    with sqlrank.Evaluator(qrels, SPARSE, slices=3) as ev:
        assert_same(quietly(lambda: ev.evaluate(run, per_query=True))[0], expected, ["query_id", "measure"])
        with pytest.raises(sqlrank.InputError, match="DataFrame \\(row 3\\): missing score"):
            ev.evaluate(run.assign(score=run.score.where(run.index != 2)))


def test_an_empty_query_id_in_runs_stored_together_is_refused():
    """The run || chr(31) || query key of runs stored together is never empty: an empty query id ends it (it was
    evaluated as a query of its own, where one run alone is refused)."""
    run = random_run(7)
    stored = pd.concat([run.assign(run_id="a"), run.assign(run_id="b")], ignore_index=True)
    stored.loc[len(run) + 4, "query_id"] = ""
    with pytest.raises(sqlrank.InputError, match="row 5\\b.*empty query_id|empty query_id"):
        quietly(lambda: sqlrank.evaluate(random_qrels(7), stored, "AP"))
