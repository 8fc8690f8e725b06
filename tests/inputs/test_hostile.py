"""Hostile strings never change a statement's meaning: identifiers are quoted, values are
bound or validated, measure names are parsed (never evaluated)."""
from __future__ import annotations

import shutil

import duckdb
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES

DATA = FIXTURES / "formats"
HOSTILE = [
    'x"; DROP TABLE victims; --',
    "x'; DROP TABLE victims; --",
    "x) UNION SELECT * FROM victims --",
    "x/* comment */",
    "x\\",
    "DROP TABLE victims",
]


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE victims AS SELECT 42 AS answer")
    con.execute(f"CREATE TABLE qrels AS SELECT * FROM read_parquet('{DATA / 'qrels.parquet'}')")
    con.execute(f"CREATE TABLE run AS SELECT * FROM read_parquet('{DATA / 'run.parquet'}')")
    yield con
    assert con.execute("SELECT answer FROM victims").fetchall() == [(42,)], "a hostile string ran"


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_column_mapping(con, hostile):
    with pytest.raises(sqlrank.InputError, match="no column"):
        sqlrank.evaluate("qrels", "run", "AP", connection=con, run_columns={"score": hostile})


@pytest.mark.parametrize("hostile", HOSTILE + ["AP; DROP TABLE victims", "nDCG@10); DROP TABLE victims; --",
                                               "__import__('os').system('false')", "AP(rel=__import__('os'))",
                                               "P@10'", "P.5;DROP", "AP(rel='2; DROP')", "(" * 500])
def test_hostile_measure_names(con, hostile):
    with pytest.raises(sqlrank.MeasureError):
        sqlrank.evaluate("qrels", "run", [hostile], connection=con)


def test_hostile_column_names_that_exist_are_quoted(con):
    weird = 'sc"o;re -- DROP'
    con.execute(f'CREATE TABLE weird_run AS SELECT query_id, doc_id, score AS "{weird.replace(chr(34), chr(34) * 2)}" FROM run')
    got = sqlrank.evaluate("qrels", "weird_run", "AP nDCG@10", per_query=True, connection=con,
                           run_columns={"score": weird})
    expected = sqlrank.evaluate("qrels", "run", "AP nDCG@10", per_query=True, connection=con)
    pd.testing.assert_frame_equal(got, expected)


def test_hostile_table_names_are_not_executed(con):
    with pytest.raises(sqlrank.InputError, match="no such qrels file"):
        sqlrank.evaluate('qrels"; DROP TABLE victims; --', "run", "AP", connection=con)


@pytest.mark.parametrize("name", ["it's; DROP TABLE victims; --.txt", 'q"uote \\ back.txt', "a b -- c.txt"])
def test_hostile_paths_evaluate_correctly(tmp_path, name):
    shutil.copy(DATA / "run.txt", tmp_path / name)
    got = sqlrank.evaluate(DATA / "qrels.txt", tmp_path / name, "AP P@5", per_query=True)
    expected = sqlrank.evaluate(DATA / "qrels.txt", DATA / "run.txt", "AP P@5", per_query=True)
    pd.testing.assert_frame_equal(got, expected)


def test_hostile_ids_are_data(tmp_path):
    qrels = pd.DataFrame({"query_id": ["q'1", 'q"2', "q;3 --"], "doc_id": ["d'); DROP", "d2", "d3"],
                          "relevance": [1, 1, 1]})
    run = pd.DataFrame({"query_id": ["q'1", 'q"2', "q;3 --"], "doc_id": ["d'); DROP", "x", "d3"],
                        "score": [1.0, 1.0, 1.0]})
    got = sqlrank.evaluate(qrels, run, "AP", per_query=True)
    assert dict(zip(got.query_id, got.value)) == {"q'1": 1.0, 'q"2': 0.0, "q;3 --": 1.0}
