"""The installed DuckDB macros against each other and against SQL written by hand, on the same tables, in one run.

    python bench/macros.py [--rows 10000000] [--repeat 5] [--measures "nDCG@10 AP P@10"]

A DuckDB user who ran `sqlrank install` has three ways to the same numbers: the evaluate macro
(`sqlrank.evaluate(qrels, run, [names])`, which writes at bind time the statement of the measures named, each
an installed macro of its own, and runs it through DuckDB's query()), the family macros
(`sqlrank.ndcg(qrels, run, 10)`, one per measure, per query: averaged here in the same query) and the statement `sqlrank sql` prints for the two table names. Beside them, `hand`: one statement
written as a user would write it (ranks by row_number, the labels joined, nDCG@10, AP and P@10 averaged; none
of sqlrank's checks of the inputs), the least SQL that computes those numbers, which is no evaluator's floor
because it checks nothing. Each is timed as one query on one connection holding the tables (wall and CPU
seconds of this process, DuckDB's threads included; medians of `repeat`, interleaved), at the demo's size
(fixtures/demo: 3 queries, 2,000 run rows) and at `rows` (uniform profile of bench/generate.py, 100 documents
a query). Every way's values are checked against the evaluate macro's to 1e-9 before anything is timed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sqlrank  # noqa: E402
from generate import _uniform_profile  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILY_CALLS = {"nDCG@10": "sqlrank.ndcg('qrels', 'run', 10)", "AP": "sqlrank.ap('qrels', 'run')",
                "P@10": "sqlrank.p('qrels', 'run', 10)"}
HAND = """
WITH ranked AS (
    SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC) AS rk FROM run
), labelled AS (
    SELECT r.query_id, r.rk, COALESCE(q.relevance, 0) AS rel FROM ranked r
    LEFT JOIN qrels q ON q.query_id = r.query_id AND q.doc_id = r.doc_id
), running AS (
    SELECT query_id, rk, rel, SUM(CASE WHEN rel > 0 THEN 1 ELSE 0 END) OVER (PARTITION BY query_id ORDER BY rk) AS hits
    FROM labelled
), ideal AS (
    SELECT query_id, SUM(CASE WHEN pos <= 10 THEN relevance / log2(pos + 1) ELSE 0 END) AS idcg,
           COUNT(CASE WHEN relevance > 0 THEN 1 END) AS num_rel
    FROM (SELECT query_id, relevance, row_number() OVER (PARTITION BY query_id ORDER BY relevance DESC) AS pos
          FROM qrels WHERE relevance > 0) AS sorted
    GROUP BY query_id
), per_query AS (
    SELECT running.query_id,
           COALESCE(SUM(CASE WHEN rk <= 10 AND rel > 0 THEN rel / log2(rk + 1) ELSE 0 END) / MAX(ideal.idcg), 0) AS ndcg,
           COALESCE(SUM(CASE WHEN rel > 0 THEN hits / rk ELSE 0 END) / MAX(ideal.num_rel), 0) AS ap,
           COUNT(CASE WHEN rk <= 10 AND rel > 0 THEN 1 END) / 10.0 AS p10
    FROM running
    JOIN (SELECT DISTINCT query_id FROM qrels) AS judged ON judged.query_id = running.query_id
    LEFT JOIN ideal ON ideal.query_id = running.query_id
    GROUP BY running.query_id
)
SELECT 'nDCG@10' AS measure, avg(ndcg) AS value FROM per_query
UNION ALL SELECT 'AP', avg(ap) FROM per_query UNION ALL SELECT 'P@10', avg(p10) FROM per_query
"""


def tables(con: duckdb.DuckDBPyConnection, rows: int | None) -> str:
    """Tables qrels and run in CON: the demo's, or `rows` run rows of the uniform profile; a description."""
    if rows is None:
        demo = os.path.join(ROOT, "fixtures", "demo")
        for name, file, columns in (("qrels", "qrels.test", "f[1] AS query_id, f[3] AS doc_id, f[4]::INTEGER AS relevance"),
                                    ("run", "results.test", "f[1] AS query_id, f[3] AS doc_id, f[5]::DOUBLE AS score")):
            con.execute(f"CREATE TABLE {name} AS SELECT {columns} FROM (SELECT regexp_split_to_array(trim(line), '\\s+') AS f "
                        f"FROM read_csv('{demo}/{file}', columns={{'line': 'VARCHAR'}}, delim=chr(1), header=false))")
    else:
        _uniform_profile(con, max(1, rows // 100), 100, 1)
        for name in ("run", "qrels"):
            con.execute(f"ALTER VIEW {name} RENAME TO {name}_view")
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM {name}_view")
    count = con.execute("SELECT count(*) FROM run").fetchone()[0]
    queries = con.execute("SELECT count(DISTINCT query_id) FROM run").fetchone()[0]
    return f"{count:,} run rows, {queries:,} queries"


def ways(con: duckdb.DuckDBPyConnection, measures: list[str]) -> dict[str, str]:
    """Each way's query, returning (measure, value) rows."""
    listed = "[" + ", ".join(f"'{m}'" for m in measures) + "]"
    family = " UNION ALL ".join(f"SELECT '{m}' AS measure, avg(value) AS value FROM {FAMILY_CALLS[m]}" for m in measures)
    printed = sqlrank.render("qrels", "run", measures, connection=con)
    found = {"evaluate macro": f"SELECT measure, value FROM sqlrank.evaluate('qrels', 'run', {listed})",
             "family macros": family, "sqlrank sql": printed}
    if measures == list(FAMILY_CALLS):
        found["hand"] = HAND
    return found


def timed(con, sql: str) -> tuple[float, float, list]:
    wall, cpu = time.perf_counter(), time.process_time()
    rows = con.execute(sql).fetchall()
    return time.perf_counter() - wall, time.process_time() - cpu, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--measures", default="nDCG@10 AP P@10")
    args = parser.parse_args()
    measures = args.measures.split()
    print(f"duckdb {duckdb.__version__}, sqlrank {sqlrank.__version__}, {os.cpu_count()} cores; medians of "
          f"{args.repeat}, seconds (ratio: the wall time over the family macros')")
    for rows in (None, args.rows):
        con = duckdb.connect()
        shape = tables(con, rows)
        sqlrank.install(con, " ".join(measures))
        queries = ways(con, measures)
        expected = dict(timed(con, queries["evaluate macro"])[2])
        for name, sql in queries.items():
            got = dict((m, v) for m, v in timed(con, sql)[2])
            assert all(abs(got[m] - expected[m]) < 1e-9 for m in measures), (name, got, expected)
        runs = {name: [] for name in queries}
        for _ in range(args.repeat):
            for name, sql in queries.items():
                runs[name].append(timed(con, sql)[:2])
        walls = {name: statistics.median(w for w, _ in times) for name, times in runs.items()}
        print(f"\n{shape}")
        print(f"{'way':<16} {'wall':>8} {'cpu':>8} {'ratio':>6}")
        for name, times in runs.items():
            cpu = statistics.median(c for _, c in times)
            print(f"{name:<16} {walls[name]:>8.3f} {cpu:>8.3f} {walls[name] / walls['family macros']:>6.2f}")
        con.close()


if __name__ == "__main__":
    main()
