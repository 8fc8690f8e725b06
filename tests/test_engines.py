"""The embedded engines: DataFusion and ClickHouse (chDB) run the statement rendered in their dialect.
Every measure under the engine tiers' convention sets, per query, equals DuckDB to 1e-12 on
generated data with ties, graded and negative labels and one-sided queries."""
from __future__ import annotations

import subprocess
import sys

import pytest

import sqlrank
from cases import CONVENTIONS, convention_id, measures_for
from conftest import ROOT, close, peer
from generate import generate

# Where a dialect cannot compute a measure, it says so (templates.UNSUPPORTED).
REFUSED = {"datafusion": {"RR", "Success"}, "clickhouse": set()}
PACKAGES = {"datafusion": "datafusion", "clickhouse": "chdb"}


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(45, n_queries=120)
    run["rank"] = run.groupby("query_id").cumcount() + 1  # the input order, for tie_break=input_rank
    return qrels, run


def _same(duck, other):
    merged = duck.merge(other, on=["query_id", "measure"], how="outer", suffixes=("_duckdb", "_other"),
                        indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    bad = merged[~merged.apply(lambda r: close(r.value_duckdb, r.value_other, 1e-12), axis=1)]
    assert bad.empty, bad.head(10).to_string()


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
@pytest.mark.parametrize("engine", ["datafusion", "clickhouse"])
def test_every_measure_equals_duckdb(engine, data, conventions):
    peer(PACKAGES[engine])
    qrels, run = data
    measures = measures_for(conventions)
    if conventions.get("tie_break") == "expected" and REFUSED[engine]:
        refused = [m for m in measures if sqlrank.parse_measures(m)[0].family in REFUSED[engine]]
        with pytest.raises(sqlrank.MeasureError, match=f"cannot be computed in {engine}"):
            sqlrank.evaluate(qrels, run, refused[:1], engine=engine, **conventions)
        measures = [m for m in measures if m not in refused]
    duck = sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions)
    other = sqlrank.evaluate(qrels, run, measures, per_query=True, engine=engine, **conventions)
    assert len(duck) > 1000
    _same(duck, other)
    summary = sqlrank.evaluate(qrels, run, measures, engine=engine, **conventions)
    expected = sqlrank.evaluate(qrels, run, measures, **conventions)
    assert list(summary.measure) == list(expected.measure)
    assert all(close(a, b, 1e-12) for a, b in zip(summary.value, expected.value))


@pytest.mark.parametrize("engine", ["datafusion", "clickhouse"])
def test_the_command_line_evaluates_in_the_engine(engine):
    peer(PACKAGES[engine])
    demo = ROOT / "fixtures" / "demo"
    args = [str(demo / "qrels.test"), str(demo / "results.test"), "-m", "nDCG@10 AP P@10 Bpref IPrec@0.5", "-q"]
    duck = subprocess.run([sys.executable, "-m", "sqlrank", "eval", *args], capture_output=True, text=True)
    other = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--engine", engine, *args], capture_output=True,
                           text=True)
    assert other.returncode == 0, other.stderr
    assert other.stdout == duck.stdout


def test_a_datafusion_context_s_own_tables_are_read_by_name(data):
    datafusion = peer("datafusion")
    import pyarrow as pa

    qrels, run = data
    context = datafusion.SessionContext()
    judged = qrels.rename(columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"})
    context.register_record_batches("judged", [pa.Table.from_pandas(judged, preserve_index=False).to_batches()])
    context.register_record_batches("ranked", [pa.Table.from_pandas(run.drop(columns="rank"),
                                                                    preserve_index=False).to_batches()])
    got = sqlrank.evaluate("judged", "ranked", "nDCG@10 AP", per_query=True, datafusion=context,
                           qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"})
    assert "topic" in got.columns  # per query, ids are called as the tables call them
    _same(sqlrank.evaluate(qrels, run.drop(columns="rank"), "nDCG@10 AP", per_query=True), got.rename(columns={"topic": "query_id"}))
