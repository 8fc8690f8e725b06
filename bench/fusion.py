"""Rank fusion at scale: R runs of N lines each fused by sqlrank fuse and by ranx, whole processes side by side.

    python bench/fusion.py [--lines 10000000] [--runs 5] [--documents 1000] [--methods rrf,wsum] [--repeat 3]

Each run ranks D documents per query (N / D queries) drawn from 2 x D candidates, its scores random: the runs overlap
by about half, as a lexical and a dense retriever do. The runs are Parquet files (made once, in --data or a
temporary folder). Each tool is a process of its own that reads the files, fuses them and writes the fused run as
Parquet: `sqlrank fuse RUN... --method M -o fused.parquet`, and ranx (Run.from_parquet, ranx.fuse with min-max
normalisation, to_dataframe, to_parquet; the ids read as Python strings, which ranx asks for), the median of --repeat interleaved runs: wall and CPU seconds and the
largest resident set (bench/process.py). wsum weighs the runs equally. The two fused runs are compared
(the same documents, their largest difference of score) on the last round.
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
RANX = r'''
import sys
import pandas as pd
from ranx import Run, fuse
method, out, *paths = sys.argv[1:]
frames = [pd.read_parquet(p).astype({"query_id": object, "doc_id": object}) for p in paths]  # ranx asks for object ids
runs = [Run.from_df(f, q_id_col="query_id", doc_id_col="doc_id", score_col="score") for f in frames]
params = {"weights": [1 / len(runs)] * len(runs)} if method == "wsum" else {}
fused = fuse(runs, norm="min-max", method=method, params=params)
fused.to_dataframe().rename(columns={"q_id": "query_id", "doc_id": "doc_id", "score": "score"}).to_parquet(out)
'''


def make_runs(folder: str, runs: int, lines: int, documents: int) -> list[str]:
    queries = lines // documents
    paths = []
    for r in range(runs):
        path = os.path.join(folder, f"run{r}.parquet")
        paths.append(path)
        if os.path.exists(path):
            continue
        rng = np.random.default_rng(r)
        picks = np.argsort(rng.random((queries, 2 * documents)), axis=1)[:, :documents]  # D of 2D candidates
        frame = pd.DataFrame({"query_id": np.repeat(np.arange(queries), documents).astype(str),
                              "doc_id": pd.Series(picks.ravel()).astype(str).radd("d"),
                              "score": rng.random(queries * documents)})
        frame.to_parquet(path, index=False)
    return paths


def compare(sqlrank_out: str, ranx_out: str) -> str:
    ours = pd.read_parquet(sqlrank_out)
    theirs = pd.read_parquet(ranx_out)
    merged = ours.merge(theirs, on=["query_id", "doc_id"], how="outer", suffixes=("", "_ranx"), indicator=True)
    both = merged["_merge"] == "both"
    diff = float((merged.score[both] - merged.score_ranx[both]).abs().max())
    return f"{int(both.sum())} of {len(merged)} documents in both, largest difference {diff:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--methods", default="rrf,wsum")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", help="where the runs are kept (default: a temporary folder)")
    parser.add_argument("--no-ranx", action="store_true", help="sqlrank alone (ranx needs several GB at 10M lines)")
    args = parser.parse_args()
    folder = args.data or tempfile.mkdtemp(prefix="sqlrank-fusion-")
    os.makedirs(folder, exist_ok=True)
    paths = make_runs(folder, args.runs, args.lines, args.documents)
    print(f"{args.runs} runs x {args.lines:,} lines ({args.lines // args.documents:,} queries x {args.documents}), "
          f"Parquet in {folder}")
    for method in args.methods.split(","):
        weights = ["--weights", *[repr(1 / args.runs)] * args.runs] if method == "wsum" else []
        tools = {"sqlrank": lambda out: [sys.executable, "-m", "sqlrank", "fuse", *paths, "--method", method, *weights,
                                         "-o", out]}
        if not args.no_ranx:
            tools["ranx"] = lambda out: [sys.executable, "-c", RANX, method, out, *paths]
        times: dict[str, list] = {name: [] for name in tools}
        outs = {name: os.path.join(folder, f"fused_{method}_{name}.parquet") for name in tools}
        for _ in range(args.repeat):
            for name, command in tools.items():
                times[name].append(run_checked(command(outs[name]), cwd=ROOT))
        row = []
        for name, done in times.items():
            wall, cpu, peak = (statistics.median(getattr(d, key) for d in done) for key in ("wall", "cpu", "peak_mb"))
            row.append((name, wall, cpu, peak))
            print(f"{method:5} {name:8} {wall:8.2f} s wall {cpu:8.2f} s CPU {peak:8.0f} MB")
        if len(row) == 2:
            (_, w1, c1, m1), (_, w2, c2, m2) = row
            print(f"{method:5} sqlrank / ranx: {w1 / w2:.2f}x wall, {c1 / c2:.2f}x CPU, {m1 / m2:.2f}x memory; "
                  f"{compare(outs['sqlrank'], outs['ranx'])}")


if __name__ == "__main__":
    main()
