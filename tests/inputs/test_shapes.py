"""Shapes that once fell off a cliff: many queries ranking the same few documents (fixed candidate sets,
slates, a small catalogue). DuckDB's optimiser joined the ranked run to the judgments on the document alone
(18 million rows for 3,000 queries x 5 documents, 5.6 GB), then on the query; every join of the run and
the judgments must hold the query in its key. The time and memory of the shapes are measured in bench/."""
from __future__ import annotations

import json
import random

import duckdb
import pytest

import sqlrank

MEASURES = ["nDCG@10 AP P@10", "RR bpref P@5 R@5 nDCG Rprec", "ndcg_cut.10 map recip_rank"]


def shared_ids(folder, queries: int = 300, documents: int = 5) -> tuple[str, str]:
    """qrels ``q{i} 0 d{j} {j % 2}`` and a run ``q{i} Q0 d{j} {j + 1} {random} a``: every query the same ids."""
    rng = random.Random(5)
    qrels, run = folder / "shared.qrels", folder / "shared.run"
    qrels.write_text("".join(f"q{i} 0 d{j} {j % 2}\n" for i in range(queries) for j in range(documents)))
    run.write_text("".join(f"q{i} Q0 d{j} {j + 1} {rng.random()} a\n" for i in range(queries) for j in range(documents)))
    return str(qrels), str(run)


def joins(plan: list[dict]) -> list[list[str]]:
    """The conditions of every join in DuckDB's physical plan (EXPLAIN (FORMAT JSON))."""
    found = []

    def walk(node: dict) -> None:
        extra = node.get("extra_info") or {}
        if "JOIN" in node.get("name", "") and isinstance(extra, dict) and "Conditions" in extra:
            conditions = extra["Conditions"]
            found.append(conditions if isinstance(conditions, list) else [conditions])
        for child in node.get("children", []):
            walk(child)
    for root in plan:
        walk(root)
    return found


@pytest.mark.parametrize("measures", MEASURES)
@pytest.mark.parametrize("kind", ["trec", "parquet"])
def test_no_join_of_the_run_and_the_judgments_is_on_the_document_alone(tmp_path, measures, kind):
    qrels, run = shared_ids(tmp_path)
    if kind == "parquet":
        con = duckdb.connect()
        for path, columns in ((qrels, "column0 AS query_id, column2 AS doc_id, CAST(column3 AS INTEGER) AS relevance"),
                              (run, "column0 AS query_id, column2 AS doc_id, CAST(column4 AS DOUBLE) AS score")):
            con.execute(f"COPY (SELECT {columns} FROM read_csv('{path}', delim=' ', header=false)) "
                        f"TO '{path}.parquet' (FORMAT parquet)")
        qrels, run = qrels + ".parquet", run + ".parquet"
    sql = sqlrank.render(qrels, run, measures).rstrip().rstrip(";")
    con = duckdb.connect()
    plan = json.loads(con.execute("EXPLAIN (FORMAT JSON) " + sql).fetchall()[0][1])
    conditions = joins(plan)
    assert conditions, "no join found in the plan"
    alone = [c for c in conditions if all("doc_id" in part for part in c)]
    assert alone == [], f"joined on the document alone: {alone}"
    assert sqlrank.evaluate(qrels, run, measures).value.notna().all()
