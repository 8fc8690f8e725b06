"""Click models at scale: an impression log of N rows (pages of 10 results) turned into judgments by sqlrank clicks,
whole processes: wall and CPU seconds and the largest resident set (bench/process.py), the median of --repeat runs.

    python bench/clicks.py [--rows 10000000] [--models ctr,sdbn,pbm,ubm] [--iterations 20] [--repeat 1]

The log is Parquet (made once, in --data or a temporary folder): 1,000 queries of 100 documents, each page the 10 of
highest noisy score, clicks drawn from a position-based model (attractiveness x 0.85^(position - 1)). PyClick, the
reference, runs on Python 2 only, so no peer is timed here; the EM models run --iterations iterations (--tolerance 0).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from process import run_checked  # noqa: E402  (bench/ is no package)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = 10


def make_log(path: str, rows: int) -> None:
    if os.path.exists(path):
        return
    rng = np.random.default_rng(0)
    sessions = rows // PAGE
    attraction = rng.random((1000, 100))
    queries = rng.integers(0, 1000, sessions)
    noisy = attraction[queries] + rng.normal(0, 0.3, (sessions, 100))
    shown = np.argsort(-noisy, axis=1)[:, :PAGE]
    positions = np.tile(np.arange(1, PAGE + 1), sessions)
    probability = attraction[np.repeat(queries, PAGE), shown.ravel()] * 0.85 ** (positions - 1)
    pd.DataFrame({"session_id": np.repeat(np.arange(sessions), PAGE).astype(str),
                  "query_id": np.repeat(queries, PAGE).astype(str),
                  "doc_id": shown.ravel().astype(str), "position": positions,
                  "clicked": (rng.random(rows) < probability).astype(int)}).to_parquet(path, index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--models", default="ctr,sdbn,pbm,ubm")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--data", help="where the log is kept (default: a temporary folder)")
    args = parser.parse_args()
    folder = args.data or tempfile.mkdtemp(prefix="sqlrank-clicks-")
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(folder, f"log_{args.rows}.parquet")
    make_log(log, args.rows)
    print(f"{args.rows:,} impressions ({args.rows // PAGE:,} pages of {PAGE}), Parquet in {folder}")
    for model in args.models.split(","):
        out = os.path.join(folder, f"{model}.parquet")
        command = [sys.executable, "-m", "sqlrank", "clicks", log, "--model", model, "--iterations", str(args.iterations),
                   "--tolerance", "0", "-o", out]
        done = [run_checked(command, cwd=ROOT) for _ in range(args.repeat)]
        wall, cpu, peak = (statistics.median(getattr(d, key) for d in done) for key in ("wall", "cpu", "peak_mb"))
        iterations = f", {args.iterations} EM iterations" if model in ("pbm", "ubm") else ""
        print(f"{model:5} {wall:8.2f} s wall {cpu:8.2f} s CPU {peak:8.0f} MB{iterations}")


if __name__ == "__main__":
    main()
