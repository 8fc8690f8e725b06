"""Click models and counterfactual estimates on the other engines: DataFusion, ClickHouse (chDB), SQLite, PostgreSQL and
Spark run the statements rendered in their dialect (EM's parameters a table of theirs between iterations), on copies
of the log or on their own tables, checked there; every label and every estimate equals DuckDB's to 1e-12."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import sqlrank
from conftest import close, peer
from fusing.test_fusion_engines import PACKAGES, where
from logs.test_clicks import generated_log
from logs.test_counterfactual import traffic

pytestmark = pytest.mark.slow  # starts the engines

MODELS = ["ctr", "coec", "cm", "dcm", "sdbn", "pbm", "ubm", "dbn"]
ESTIMATORS = ["ips", "snips", "iips", "rips", "sips", "dm", "dr"]


def same_labels(other, duck, engine: str, model: str) -> None:
    assert list(zip(other.query_id, other.doc_id)) == list(zip(duck.query_id, duck.doc_id)), (engine, model)
    assert list(other.sessions) == list(duck.sessions) and list(other.clicks) == list(duck.clicks), (engine, model)
    assert all(close(o, d, 1e-12) for o, d in zip(other.relevance, duck.relevance)), (engine, model)
    assert other.attrs["iterations"] == duck.attrs["iterations"], (engine, model)


@pytest.mark.parametrize("engine", list(PACKAGES))
def test_every_click_model_on_the_engine_equals_duckdb(engine, request):
    log = generated_log(21, sessions=150)
    options = where(engine, request)
    for model in MODELS:
        for prior in ("pyclick", "none") if engine != "spark" else ("pyclick",):  # Spark: a second a statement
            # the DBN without a prior multiplies a last-bit difference (an exp or a sum in another order) about tenfold
            # an iteration on this log (attractions near 1, satisfactions near 0): 3 iterations stay within 1e-12
            iterations = 3 if (model, prior) == ("dbn", "none") else 6
            duck = sqlrank.clicks(log, model, iterations=iterations, tolerance=0, prior=prior, min_sessions=2)
            other = sqlrank.clicks(log, model, iterations=iterations, tolerance=0, prior=prior, min_sessions=2, **options)
            same_labels(other, duck, engine, model)
            if model == "dbn":
                assert close(other.attrs["continuation"], duck.attrs["continuation"], 1e-12), engine
    duck = sqlrank.clicks(log, "pbm", iterations=200, tolerance=1e-6)  # stops at the tolerance, after as many iterations
    other = sqlrank.clicks(log, "pbm", iterations=200, tolerance=1e-6, **options)
    assert duck.attrs["iterations"] < 200
    same_labels(other, duck, engine, "pbm")
    gammas = other.attrs["examination"]
    assert all(close(o, d, 1e-12) for o, d in zip(gammas.gamma, duck.attrs["examination"].gamma))


@pytest.mark.parametrize("engine", list(PACKAGES))
def test_every_estimator_on_the_engine_equals_duckdb(engine, request):
    log, new, model = traffic(23, sessions=150)
    options = where(engine, request)
    duck = sqlrank.counterfactual(log, new, ESTIMATORS, rewards=model, trials=500, seed=3)
    other = sqlrank.counterfactual(log, new, ESTIMATORS, rewards=model, trials=500, seed=3, **options)
    assert list(other.estimator) == ESTIMATORS and list(other.sessions) == list(duck.sessions)
    for column in ("estimate", "ci_low", "ci_high"):
        assert all(close(o, d, 1e-12) for o, d in zip(other[column], duck[column])), (engine, column)
    unseen = new.assign(doc_id=new.doc_id.where(new.index != 0, "never"))
    with pytest.raises(sqlrank.InputError, match="the new run puts documents where the log never shows them") as there:
        sqlrank.counterfactual(log, unseen, "ips", **options)
    with pytest.raises(sqlrank.InputError) as here:
        sqlrank.counterfactual(log, unseen, "ips")
    assert str(there.value) == str(here.value)


def test_a_log_table_of_the_engine_is_read_and_checked_there(tmp_path):
    """A SQLite database's own tables (the log, logged traffic, the reward model) are read where they are and give
    DuckDB's values; a fault in them is the same error as in a file, and a text column of values is refused."""
    log = generated_log(24, sessions=60)
    traffic_log, new, model = traffic(25, sessions=60)
    path = tmp_path / "logs.db"
    with sqlite3.connect(path) as con:
        log.to_sql("impressions", con, index=False)
        log.assign(clicked=np.where(log.index == 7, 3, log.clicked)).to_sql("bad_clicks", con, index=False)
        log.assign(clicked=log.clicked.astype(str)).to_sql("text_clicks", con, index=False)
        traffic_log.to_sql("traffic", con, index=False)
        model.to_sql("model", con, index=False)
    for name in ("pbm", "sdbn"):
        same_labels(sqlrank.clicks("impressions", name, iterations=4, sqlite=str(path)), sqlrank.clicks(log, name, iterations=4),
                    "sqlite", name)
    row = log.iloc[7]
    with pytest.raises(sqlrank.InputError, match=f"table bad_clicks: clicked is 3 for document '{row.doc_id}' in "
                                                 f"session '{row.session_id}'"):
        sqlrank.clicks("bad_clicks", "ctr", sqlite=str(path))
    with pytest.raises(sqlrank.InputError, match="column 'clicked' holds string, no numbers"):
        sqlrank.clicks("text_clicks", "ctr", sqlite=str(path))
    duck = sqlrank.counterfactual(traffic_log, new, ["ips", "rips", "dr"], rewards=model, ci=None)
    other = sqlrank.counterfactual("traffic", new, ["ips", "rips", "dr"], rewards="model", ci=None, sqlite=str(path))
    assert all(close(o, d, 1e-12) for o, d in zip(other.estimate, duck.estimate))


def test_the_printed_statements_run_on_postgres_as_its_tables(request):
    """What sqlrank clicks --dialect postgres and sqlrank counterfactual --dialect postgres print reads PostgreSQL's
    tables by name there and gives DuckDB's labels and estimates."""
    peer("adbc_driver_postgresql")
    import pyarrow as pa
    from sqlrank.engines.postgres import PostgresEngine, connect

    log = generated_log(26, sessions=80)
    traffic_log, new, model = traffic(27, sessions=80)
    engine = PostgresEngine(connect(request.getfixturevalue("postgres_server")))
    names = {"clicks_log": log, "logged_traffic": traffic_log, "new_run": new, "reward_model": model}
    try:
        for name, frame in names.items():
            engine.load(name, pa.Table.from_pandas(frame, preserve_index=False))
        for name in ("ctr", "coec", "cm", "dcm", "sdbn"):
            got = engine.rows(sqlrank.render_clicks("clicks_log", name, dialect="postgres")).records()
            duck = sqlrank.clicks(log, name)
            assert [(r["query_id"], r["doc_id"]) for r in got] == list(zip(duck.query_id, duck.doc_id)), name
            assert all(close(r["relevance"], d, 1e-12) for r, d in zip(got, duck.relevance)), name
        text = sqlrank.render_counterfactual("logged_traffic", "new_run", ESTIMATORS, rewards="reward_model",
                                             dialect="postgres")
        row = engine.rows(text).records()[0]
        duck = sqlrank.counterfactual(traffic_log, new, ESTIMATORS, rewards=model, ci=None)
        assert all(close(float(row[e]), v, 1e-12) for e, v in zip(duck.estimator, duck.estimate))
        assert int(row["sessions"]) == 80 and int(row["unsupported_slots"]) == 0
    finally:
        engine.close()
