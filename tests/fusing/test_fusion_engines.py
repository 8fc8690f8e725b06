"""Rank fusion on the other engines: DataFusion, ClickHouse (chDB), SQLite, PostgreSQL and Spark run the statement
rendered in their dialect, on copies of the runs (and of the judgments of a trained method); every document's fused
score equals DuckDB's to 1e-12, in DuckDB's order but for scores that tie to the last bits."""
from __future__ import annotations

import pandas as pd
import pytest

import sqlrank
from conftest import close, peer
from fusing.test_fusion import _qrels, generated_runs, scores

pytestmark = pytest.mark.slow  # starts the engines

PACKAGES = {"datafusion": "datafusion", "clickhouse": "chdb", "sqlite": "sqlite3", "postgres": "adbc_driver_postgresql",
            "spark": "pyspark"}
FUSIONS = [("rrf", "min-max", None, False), ("sum", "zmuv", None, False), ("med", "sum", None, False),
           ("wsum", "max", [0.5, 0.3, 0.2], False), ("w_bordafuse", "rank", [0.2, 0.5, 0.3], False),
           ("mnz", "borda", None, False), ("gmnz(gamma=0.3)", "min-max-inverted", None, False),
           ("logn_isr", "none", None, False), ("rbc(phi=0.7)", "min-max", None, False),
           ("w_condorcet", "min-max", [0.4, 0.4, 0.2], False), ("probfuse(n_segments=3)", "min-max", None, True),
           ("segfuse", "min-max", None, True), ("slidefuse(w=2)", "min-max", None, True), ("mapfuse", "min-max", None, True),
           ("bayesfuse", "min-max", None, True), ("posfuse", "min-max", None, True)]


@pytest.fixture(scope="module")
def data():
    return generated_runs(51, queries=8), _qrels(52, queries=8)[0]


def where(engine: str, request) -> dict:
    peer(PACKAGES[engine])
    if engine == "postgres":
        return {"engine": "postgres", "dsn": request.getfixturevalue("postgres_server")}
    if engine == "spark":
        from sqlrank.engines.spark import local_session

        return {"spark": local_session()}
    return {"engine": engine}


@pytest.mark.parametrize("engine", list(PACKAGES))
def test_every_fusion_on_the_engine_equals_duckdb(engine, data, request):
    runs, qrels = data
    options = where(engine, request)
    for method, norm, weights, trained in FUSIONS:
        duck = sqlrank.fuse(runs, method, norm=norm, weights=weights, qrels=qrels if trained else None)
        other = sqlrank.fuse(runs, method, norm=norm, weights=weights, qrels=qrels if trained else None, **options)
        assert list(other.query_id) == list(duck.query_id) and len(other) == len(duck), (engine, method)
        want = scores(duck)
        assert all(close(s, want[k], 1e-12) for k, s in scores(other).items()), (engine, method)
        for _, group in other.groupby("query_id"):
            assert (group.score.diff().dropna() <= 1e-12).all(), (engine, method)


@pytest.mark.parametrize("engine", ["datafusion", "clickhouse", "sqlite"])
def test_a_fusion_of_a_depth_and_of_runs_stored_together_on_the_engine(engine, data, request):
    runs, _ = data
    stored = pd.concat([run.assign(run_id=name) for run, name in zip(runs, ["a", "b", "c"])])
    options = where(engine, request)
    duck = sqlrank.fuse(stored, "rrf", depth=5)
    other = sqlrank.fuse(stored, "rrf", depth=5, **options)
    assert other.attrs["runs"] == ["a", "b", "c"] and scores(other).keys() == scores(duck).keys()
    with pytest.raises(sqlrank.OptionError, match="optimize= runs on DuckDB"):
        sqlrank.fuse(runs, "wsum", qrels=_qrels(1)[0], optimize="AP", **options)
