"""Shapes of data that once fell off a cliff, side by side: the same number of run lines in every shape, each
evaluated in a fresh process (wall, CPU seconds and peak memory of the whole process, median of --repeat runs),
from every input format, and each shape's figures over the best shape's of the same format.

    python bench/shapes.py [--rows 30000] [--repeat 3] [--formats trec,csv,parquet,dataframe] [--measures "nDCG@10 AP P@10"]

Shapes (each query's judgments: two relevant documents of five judged, as the run's):
- unique:   rows / 5 queries x 5 documents, ids unique per query (q1d0, q1d1, ...)
- shared:   rows / 5 queries x the same 5 documents d0..d4 (fixed candidate sets, slates, a small catalogue)
- shared_int: the same with integer ids (Parquet and DataFrame; TREC and CSV text read them as text)
- one_query: one query ranking every document
- zipf:     rows / 50 queries x 50 documents drawn from 1,000 items by a Zipf law (popular items everywhere)

Until the judgments were joined to the run on the (query, document) pair, `shared` at 30,000 lines took 6.5 s
and 5.6 GB where `unique` took 0.6 s and 110 MB.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

CHILD = """
import resource, sys
import pandas as pd
import sqlrank
qrels, run, measures, fmt = sys.argv[1:5]
if fmt == "dataframe":
    qrels, run = pd.read_parquet(qrels), pd.read_parquet(run)
frame = sqlrank.evaluate(qrels, run, measures)
used = resource.getrusage(resource.RUSAGE_SELF)
print(" ".join(f"{v:.6f}" for v in frame.value))
print(used.ru_utime + used.ru_stime, used.ru_maxrss / 1024)
"""


def shape(name: str, rows: int, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) of a shape: query_id, doc_id, relevance and query_id, doc_id, score."""
    rng = np.random.default_rng(seed)
    if name == "one_query":
        queries, per = 1, rows
    elif name == "zipf":
        queries, per = max(1, rows // 50), 50
    else:
        queries, per = max(1, rows // 5), 5
    q = np.repeat(np.arange(queries), per)
    j = np.tile(np.arange(per), queries)
    if name == "zipf":
        items = np.empty(len(q), dtype=np.int64)
        for i in range(queries):  # per distinct items of a Zipf law over 1,000
            drawn = []
            while len(drawn) < per:
                for x in rng.zipf(1.3, 4 * per):
                    if x <= 1000 and x not in drawn:
                        drawn.append(int(x))
                        if len(drawn) == per:
                            break
            items[i * per:(i + 1) * per] = drawn
        docs = [f"d{x}" for x in items]
    elif name == "unique" or name == "one_query":
        docs = [f"q{a}d{b}" for a, b in zip(q, j)]
    else:
        docs = [f"d{b}" for b in j]
    run = pd.DataFrame({"query_id": [f"q{a}" for a in q], "doc_id": docs, "score": rng.random(len(q))})
    judged = j < 5
    qrels = pd.DataFrame({"query_id": run.query_id[judged], "doc_id": run.doc_id[judged],
                          "relevance": (j[judged] % 2).astype(np.int64)})
    if name == "shared_int":
        run = run.assign(query_id=q, doc_id=j)
        qrels = pd.DataFrame({"query_id": q[judged], "doc_id": j[judged], "relevance": (j[judged] % 2)})
    return qrels, run


def write(qrels: pd.DataFrame, run: pd.DataFrame, fmt: str, folder: str) -> tuple[str, str]:
    if fmt == "trec":
        qrels_path, run_path = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
        with open(qrels_path, "w") as handle:
            handle.writelines(f"{a} 0 {b} {c}\n" for a, b, c in qrels.itertuples(index=False))
        ranked = run.assign(rank=run.groupby("query_id").score.rank(ascending=False, method="first").astype(int))
        with open(run_path, "w") as handle:
            handle.writelines(f"{a} Q0 {b} {r} {s!r} t\n" for a, b, s, r in ranked.itertuples(index=False))
        return qrels_path, run_path
    suffix = "csv" if fmt == "csv" else "parquet"
    qrels_path, run_path = os.path.join(folder, f"qrels.{suffix}"), os.path.join(folder, f"run.{suffix}")
    for frame, path in ((qrels, qrels_path), (run, run_path)):
        frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path, index=False)
    return qrels_path, run_path


def measure(qrels: str, run: str, measures: str, fmt: str, repeat: int) -> tuple[float, float, float, str]:
    """Median wall s, CPU s and peak MB of a fresh process evaluating once (its own accounting); its values."""
    walls, cpus, peaks, printed = [], [], [], ""
    for _ in range(repeat):
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", CHILD, qrels, run, measures, fmt], capture_output=True, text=True)
        walls.append(time.monotonic() - started)
        if done.returncode:
            raise SystemExit(done.stderr)
        printed, used = done.stdout.strip().splitlines()
        cpu, peak = map(float, used.split())
        cpus.append(cpu)
        peaks.append(peak)
    return statistics.median(walls), statistics.median(cpus), statistics.median(peaks), printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="trec,csv,parquet,dataframe")
    parser.add_argument("--measures", default="nDCG@10 AP P@10")
    args = parser.parse_args()
    shapes = ["unique", "shared", "shared_int", "one_query", "zipf"]
    print(f"{args.rows:,} run lines per shape; {args.measures}; median of {args.repeat} fresh processes")
    print(f"{'format':<10} {'shape':<11} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'wall/best':>9} {'peak/best':>9}")
    for fmt in args.formats.split(","):
        rows = []
        for name in shapes:
            if name == "shared_int" and fmt in ("trec", "csv"):
                continue
            qrels, run = shape(name, args.rows)
            with tempfile.TemporaryDirectory() as folder:
                paths = write(qrels, run, "parquet" if fmt == "dataframe" else fmt, folder)
                rows.append((name, *measure(*paths, args.measures, fmt, args.repeat)))
        best_wall, best_peak = min(r[1] for r in rows), min(r[3] for r in rows)
        for name, wall, cpu, peak, _ in rows:
            print(f"{fmt:<10} {name:<11} {wall:>7.2f} {cpu:>7.2f} {peak:>8.0f} {wall / best_wall:>8.2f}x "
                  f"{peak / best_peak:>8.2f}x")


if __name__ == "__main__":
    main()
