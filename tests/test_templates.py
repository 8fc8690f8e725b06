"""Every measure renders and binds (EXPLAIN) in DuckDB under every convention, and the
rendered SQL keeps to the portable subset."""
from __future__ import annotations

import itertools
import re

import duckdb
import pytest

from sqlrank.conventions import resolve_conventions
from sqlrank.engine import resolve_measures
from sqlrank.measures import FAMILIES, Measure
from sqlrank.templates import render_evaluation

QRELS = "SELECT query_id, doc_id, relevance FROM qrels_table"
RUN = "SELECT query_id, doc_id, score FROM run_table"


def all_measures():
    out = []
    for family, spec in FAMILIES.items():
        cutoffs = [None] if spec.cutoff == "none" else ([10] if spec.cutoff == "required" else [None, 10])
        rels = [None, 2] if "rel" in spec.params else [None]
        out += [Measure(family, k, r) for k in cutoffs for r in rels]
    return out


CONVENTIONS = [dict(zip(("missing_queries", "judged_only", "depth", "rel"), combo))
               for combo in itertools.product(["skip", "zero"], [False, True], [None, 5], [1, 0])]


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE qrels_table (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE run_table (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    return con


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("per_query", [False, True])
def test_every_measure_binds(con, conventions, per_query):
    resolved = resolve_conventions(**conventions)
    measures = resolve_measures(all_measures(), resolved)
    sql = render_evaluation(QRELS, RUN, measures, resolved, per_query)
    con.execute(f"EXPLAIN {sql}")
    for m in measures:
        single = render_evaluation(QRELS, RUN, [m], resolved, per_query)
        con.execute(f"EXPLAIN {single}")


def test_portable_subset(con):
    resolved = resolve_conventions()
    sql = render_evaluation(QRELS, RUN, resolve_measures(all_measures(), resolved), resolved, False)
    body = sql.split("evaluated_queries AS", 1)[1]  # after the (DuckDB-specific) input readers
    for pattern in (r"::", r"\bFILTER\s*\(", r"\bQUALIFY\b", r"//", r"\bLOG\(", r"\d+\.\d+"):
        assert not re.search(pattern, body), pattern
    for order_by in re.findall(r"ORDER BY [^)]*", body):
        if "measures.position" not in order_by:
            assert "doc_id" in order_by, order_by
