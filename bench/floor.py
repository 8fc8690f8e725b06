"""The steps no correct evaluation can skip, in one fresh process, next to pytrec_eval and sqlrank on
the same files, in one run: how fast a Python + DuckDB evaluator can be on this machine.

    python bench/floor.py --rows 10000000 [--repeat 3]

Every correct evaluation (trec_eval's semantics, the bench's measures: AP and RR need each
relevant document's rank among all retrieved documents) pays at least:

  start     a Python process that imports DuckDB and opens a connection;
  rank      each query's documents sorted by score, ties by document id: the window of
            run_ranked in sql/evaluate.sql (queries numbered, 4-byte partition key), written out
            here, and each ranked document's label looked up in the judgments (a join on query and
            document, as every evaluator finds the label of each retrieved document), with nothing
            else computed (the label lookup is in the floor since 2026-11-27: floors printed before
            that date leave it out and are lower);
  unique    the duplicate check (trec_eval stops on a document listed twice in a query):
            sqlrank's validation pass (validation.checked_pairs_sql, a sorted 64-bit hash of every
            (query, document) pair, neighbours compared) with no row checks folded in, the
            cheapest exact check measured (grouping or counting distinct pairs is slower);
  read      (TREC text only) the run's and the judgments' text read into typed tables by DuckDB's own
            CSV reader, the fastest reader measured; rank and unique then run on those tables.

The floor is one Python process that takes these steps and nothing else, timed from outside as
sqlrank's and pytrec_eval's processes are: its time includes what every process pays beside the
steps (starting, touching fresh memory for the first time, exiting). The process times its own
steps too; "start" is the rest. It leaves out the measures, validation of ids and
values, and output. pytrec_eval's time divided by the floor is the largest ratio an evaluator
that takes these steps the fastest ways measured can show on this machine; sqlrank's time divided
by it, how far sqlrank is from it. Medians of `repeat` (bench/summary.py interleaves sqlrank
from Parquet with the floor's process, for a steadier ratio on a noisy machine).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import compile_sqlrank, data_files, run_tools  # noqa: E402

from sqlrank.inputs.validate import checked_pairs_sql  # noqa: E402
from sqlrank.rendering.dialects import DUCKDB  # noqa: E402

TARGETS = {"Parquet": 6.0, "TREC text": 3.5}  # the ratios to pytrec_eval aimed for

RANK = """
SELECT count(*), max(rank), sum(relevance) FROM (
    SELECT row_number() OVER (PARTITION BY queries.query_number ORDER BY run.score DESC, run.doc_id DESC) AS rank,
           qrels.relevance
    FROM {run} AS run
    JOIN (SELECT query_id, CAST(row_number() OVER (ORDER BY query_id) AS INTEGER) AS query_number
          FROM (SELECT DISTINCT query_id FROM {run} AS ids) AS distinct_ids) AS queries
      ON queries.query_id = run.query_id
    LEFT JOIN {qrels} AS qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
) AS ranked"""

READ = """
CREATE TEMP TABLE run AS
SELECT query_id, doc_id, score
FROM read_csv({path}, delim = ' ', header = false, quote = '', escape = '', auto_detect = false,
              columns = {{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR',
                         'rank': 'VARCHAR', 'score': 'DOUBLE', 'tag': 'VARCHAR'}})"""

READ_QRELS = """
CREATE TEMP TABLE qrels AS
SELECT query_id, doc_id, relevance
FROM read_csv({path}, delim = ' ', header = false, quote = '', escape = '', auto_detect = false,
              columns = {{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', 'relevance': 'INTEGER'}})"""

STEPS = """
import json, sys, time
import duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
times = []
for sql in json.loads(sys.argv[1]):
    start = time.perf_counter()
    con.execute(sql).fetchall()
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def floor_process(steps: list[str]) -> list[float]:
    """One fresh Python process that imports DuckDB, connects and runs `steps` one after the other:
    [the whole process's seconds, from outside, then each step's, timed inside]."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", STEPS, json.dumps(steps)], check=True, capture_output=True, text=True)
    return [time.perf_counter() - start] + json.loads(out.stdout)


def medians(runs: list[list[float]]) -> list[float]:
    """floor_process's figures of several processes, each the median of its place."""
    return [statistics.median(figures) for figures in zip(*runs)]


def median_floor(steps: list[str], repeat: int) -> list[float]:
    """floor_process's figures, each the median of `repeat` processes."""
    return medians([floor_process(steps) for _ in range(repeat)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--profile", choices=("uniform", "trec"), default="uniform",
                        help="bench/generate.py's profile of the data (default: uniform)")
    args = parser.parse_args()
    tag, paths = data_files(args.rows, args.data, args.profile)
    compile_sqlrank()

    whole = {tool: seconds for tool, (seconds, _, _) in
             run_tools(["pytrec_eval", "sqlrank-parquet", "sqlrank-trec"], paths, args.repeat).items()}
    parquet_floor, rank_parquet, unique_parquet = median_floor(parquet_steps(paths), args.repeat)
    text_floor, read, rank_table, unique_table = median_floor(text_steps(paths), args.repeat)

    reference = whole["pytrec_eval"]
    print(f"{args.rows:,} run rows ({tag}); {platform.machine()}, {os.cpu_count()} cores, {date.today()}; "
          f"median of {args.repeat}")
    rows = [
        ("pytrec_eval, whole process (TREC text)", reference, ""),
        ("sqlrank, whole process, Parquet", whole["sqlrank-parquet"], f"{reference / whole['sqlrank-parquet']:.2f}x"),
        ("sqlrank, whole process, TREC text", whole["sqlrank-trec"], f"{reference / whole['sqlrank-trec']:.2f}x"),
        ("rank and label every run row (Parquet)", rank_parquet, ""),
        ("duplicate check, from Parquet", unique_parquet, ""),
        ("rest of the process: start, exit (Parquet)", parquet_floor - rank_parquet - unique_parquet, ""),
        ("read the TREC text into tables", read, ""),
        ("rank and label every run row (tables)", rank_table, ""),
        ("duplicate check, from that table", unique_table, ""),
        ("rest of the process: start, exit (TREC text)", text_floor - read - rank_table - unique_table, ""),
    ]
    floors = {"Parquet": parquet_floor, "TREC text": text_floor}
    for fmt, floor in floors.items():
        target = TARGETS[fmt]
        ours = whole["sqlrank-parquet" if fmt == "Parquet" else "sqlrank-trec"]
        rows.append((f"floor from {fmt} (one process)", floor,
                     f"at most {reference / floor:.2f}x; {target}x needs {reference / target:.2f} s; "
                     f"sqlrank takes {ours / floor:.2f}x it"))
    print(f"{'step':<44} {'seconds':>8}  pytrec_eval / it")
    for name, seconds, note in rows:
        print(f"{name:<44} {seconds:8.2f}  {note}".rstrip())


def parquet_steps(paths: dict) -> list[str]:
    """The floor's steps from Parquet: rank, unique."""
    parquet = f"read_parquet({DUCKDB.literal(paths['run.parquet'])})"
    qrels = f"read_parquet({DUCKDB.literal(paths['qrels.parquet'])})"
    return [RANK.format(run=parquet, qrels=qrels), checked_pairs_sql(f"SELECT * FROM {parquet}", "false")]


def text_steps(paths: dict) -> list[str]:
    """The floor's steps from TREC text: read (the run and the judgments), rank, unique."""
    return [READ.format(path=DUCKDB.literal(paths["run.txt"])) + ";" + READ_QRELS.format(
                path=DUCKDB.literal(paths["qrels.txt"])),
            RANK.format(run="run", qrels="qrels"), checked_pairs_sql("SELECT * FROM run", "false")]


if __name__ == "__main__":
    main()
