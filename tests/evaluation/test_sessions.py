"""The private DuckDB connection kept between evaluations of one thread (opening one cost a third of a small
evaluation): every evaluation leaves it empty, one that fails or grows it is not kept, one with settings of
its own gets its own, a child process or another thread never shares it, and the values never depend on
what came before."""
from __future__ import annotations

import os
import threading

import pandas as pd
import pytest

import sqlrank
from sqlrank.engines import duckdb as engine

QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d3", "d1"], "relevance": [1, 1, 1]})
RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d1", "d2"],
                    "score": [1.0, 0.5, 2.0, 1.0]})


def kept():
    found = getattr(engine._KEPT, "connection", None)
    return None if found is None else found[1]


def test_the_kept_connection_is_empty_after_each_evaluation():
    first = sqlrank.evaluate(QRELS, RUN, "AP P@1", per_query=True)
    con = kept()
    assert con is not None
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchall()[0][0] == 0
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0] == 0
    assert [row[0] for row in con.execute("SELECT database_name FROM duckdb_databases() WHERE NOT internal")
            .fetchall()] == ["memory"]
    second = sqlrank.evaluate(QRELS, RUN, "AP P@1", per_query=True)
    assert kept() is con
    pd.testing.assert_frame_equal(first, second)
    assert list(sqlrank.evaluate(QRELS, RUN, "AP").value) == [0.75]


def test_an_evaluation_that_fails_leaves_no_connection_kept():
    sqlrank.evaluate(QRELS, RUN, "AP")
    before = kept()
    with pytest.raises(sqlrank.InputError):
        sqlrank.evaluate(QRELS, RUN.assign(score=["x", "y", "z", "w"]), "AP")
    assert kept() is None
    with pytest.raises(Exception):
        before.execute("SELECT 1")  # closed
    assert list(sqlrank.evaluate(QRELS, RUN, "AP").value) == [0.75]


def test_settings_of_its_own_get_a_connection_of_its_own(tmp_path):
    sqlrank.evaluate(QRELS, RUN, "AP")
    con = kept()
    assert list(sqlrank.evaluate(QRELS, RUN, "AP", threads=1, memory_limit="1GB").value) == [0.75]
    assert kept() is None  # the evaluation with settings took neither the kept one nor kept its own
    sqlrank.evaluate(QRELS, RUN, "AP")
    assert kept() is not con


def test_a_large_evaluation_closes_its_connection(monkeypatch):
    monkeypatch.setattr(engine, "KEPT_MEMORY", -1)
    sqlrank.evaluate(QRELS, RUN, "AP")
    assert kept() is None


def test_another_thread_and_a_child_process_open_their_own():
    sqlrank.evaluate(QRELS, RUN, "AP")
    mine = kept()
    theirs = []
    worker = threading.Thread(target=lambda: (sqlrank.evaluate(QRELS, RUN, "AP"), theirs.append(kept())))
    worker.start()
    worker.join()
    assert theirs[0] is not None and theirs[0] is not mine and kept() is mine
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's connection is not its own
        try:
            value = sqlrank.evaluate(QRELS, RUN, "AP").value.iloc[0]
            os.write(write, b"1" if value == 0.75 and kept() is not mine else b"0")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert kept() is mine


def test_a_statement_is_rendered_once_for_the_same_shape_and_the_store_is_bounded(monkeypatch):
    """Two evaluations of the same measures and inputs' shape render once (the second fills in its inputs); the rendered
    statements kept are at most RENDERED_MOST, and at most RENDERED_CHARACTERS of text (one always)."""
    from sqlrank.rendering import prepared

    calls = []
    render = prepared.render_evaluation
    monkeypatch.setattr(prepared, "render_evaluation", lambda *a, **k: calls.append(a[4]) or render(*a, **k))
    monkeypatch.setattr(prepared, "RENDERED", {})
    first = sqlrank.evaluate(QRELS, RUN, "AP P@1 RR")
    # the statement shown (reading the inputs) and the one run (reading the run's checks with its values)
    assert calls == ["summary", "summary"]
    second = sqlrank.evaluate(QRELS, RUN.assign(score=RUN.score * 2), "AP P@1 RR")
    assert len(calls) == 2 and first.value.tolist() == second.value.tolist()  # nothing rendered again
    monkeypatch.setattr(prepared, "RENDERED_MOST", 3)
    for k in range(1, 6):
        sqlrank.evaluate(QRELS, RUN, f"P@{k}")
    assert len(prepared.RENDERED) == 3
    monkeypatch.setattr(prepared, "RENDERED_CHARACTERS", 10)
    sqlrank.evaluate(QRELS, RUN, "P@7")
    assert len(prepared.RENDERED) == 1
