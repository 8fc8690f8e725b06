"""A run far larger than memory: evaluate it under a memory limit and check a sample of queries.

    python bench/large.py [--rows 500000000] [--memory-limit 4GB] [--slices 10] [--threads N] [--sample 50]

Generates the Parquet files if missing (bench/generate.py --parquet-only; 500M rows are about
2.6 GB of Parquet, 21 GB as TREC text, so no text is written), runs `sqlrank eval -q` on them as
a whole process with --memory-limit (DuckDB spills to bench/data/spill) and --slices (the
queries in groups, one statement each), and reports wall time,
peak memory (max resident set, from wait4) and the means. Then it draws `sample` queries at
random (seeded), reads their rows back from the Parquet files and evaluates them with
pytrec_eval-terrier (every per-query value must agree to 1e-9), with the real trec_eval where
it is at hand (bench/trec_eval_binary.py: the same printed 4 decimals), and with sqlrank on those
rows alone (equal to 1e-12).

The 100M-row check: python bench/large.py --rows 100000000 --memory-limit 2GB --slices 10
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import platform
import random
import subprocess
import sys
import tempfile
import warnings
from collections import defaultdict
from datetime import date
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402
from process import run_checked  # noqa: E402
from trec_eval_binary import trec_eval_binary  # noqa: E402

MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@10": "P_10", "R@1000": "recall_1000", "RR": "recip_rank"}


def evaluate(qrels: str, run: str, memory_limit: str, threads: int | None, slices: int, spill: str,
             out: str) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "sqlrank", "eval", qrels, run, "-m", " ".join(MEASURES), "-q", "-f", "csv",
           "-o", out, "--memory-limit", memory_limit, "--temp-directory", spill]
    if threads:
        cmd += ["--threads", str(threads)]
    if slices > 1:
        cmd += ["--slices", str(slices)]
    done = run_checked(cmd)
    return done.wall, done.peak_mb


def check_sample(qrels: str, run: str, values: dict, sample: int, seed: int = 7) -> tuple[int, float]:
    """Per-query values of `sample` random queries against pytrec_eval; (compared, worst difference)."""
    import pytrec_eval

    queries = sorted(random.Random(seed).sample(sorted({q for q, _ in values}), sample))
    con = duckdb.connect()
    qrels_dict, run_dict = defaultdict(dict), defaultdict(dict)
    for qid, doc, rel in con.execute("SELECT query_id, doc_id, relevance FROM read_parquet($1) "
                                     "WHERE query_id IN (SELECT unnest($2::VARCHAR[]))", [qrels, queries]).fetchall():
        qrels_dict[qid][doc] = int(rel)
    for qid, doc, score in con.execute("SELECT query_id, doc_id, score FROM read_parquet($1) "
                                       "WHERE query_id IN (SELECT unnest($2::VARCHAR[]))", [run, queries]).fetchall():
        run_dict[qid][doc] = float(score)
    expected = pytrec_eval.RelevanceEvaluator(dict(qrels_dict), {"ndcg_cut.10", "map", "P.10", "recall.1000",
                                                                 "recip_rank"}).evaluate(dict(run_dict))
    if set(expected) != set(queries):
        raise SystemExit(f"pytrec_eval evaluated {len(expected)} of the {len(queries)} sampled queries")
    worst, compared = 0.0, 0
    for qid, row in expected.items():
        for ours, theirs in MEASURES.items():
            worst = max(worst, abs(values[(qid, ours)] - row[theirs]))
            compared += 1
    return compared, worst


def check_trec_eval(qrels: str, run: str, values: dict, sample: int, seed: int = 7) -> tuple[int, int] | None:
    """The same sampled queries through the real trec_eval (bench/trec_eval_binary.py), -q: how many
    of its printed per-query values (4 decimals) equal sqlrank's rounded the same way; None
    without trec_eval."""
    binary, _ = trec_eval_binary()
    if binary is None:
        return None
    queries = sorted(random.Random(seed).sample(sorted({q for q, _ in values}), sample))
    con = duckdb.connect()
    picked = "WHERE query_id IN (SELECT unnest($2::VARCHAR[]))"
    with tempfile.TemporaryDirectory() as tmp:
        q_path, r_path = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        with open(q_path, "w") as f:
            for qid, doc, rel in con.execute(f"SELECT query_id, doc_id, relevance FROM read_parquet($1) {picked}",
                                             [qrels, queries]).fetchall():
                f.write(f"{qid} 0 {doc} {rel}\n")
        with open(r_path, "w") as f:
            for qid, doc, score in con.execute(f"SELECT query_id, doc_id, score FROM read_parquet($1) {picked}",
                                               [run, queries]).fetchall():
                f.write(f"{qid} Q0 {doc} 0 {score!r} bench\n")
        names = {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recall_1000": "R@1000", "recip_rank": "RR"}
        out = subprocess.run([str(binary), "-q", "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m", "recall.1000",
                              "-m", "recip_rank", q_path, r_path], capture_output=True, text=True, check=True).stdout
    same = total = 0
    for line in out.splitlines():
        name, qid, printed = line.split()
        if qid == "all":
            continue
        total += 1
        same += f"{values[(qid, names[name])]:.4f}" == printed
    return total, same


def check_alone(qrels: str, run: str, values: dict, sample: int, seed: int = 7) -> tuple[int, float]:
    """The same sampled queries evaluated by sqlrank on just their own rows (a few thousand rows,
    in memory): every per-query value must equal the large run's."""
    import sqlrank

    queries = sorted(random.Random(seed).sample(sorted({q for q, _ in values}), sample))
    con = duckdb.connect()
    picked = "WHERE query_id IN (SELECT unnest($2::VARCHAR[]))"
    q = con.execute(f"SELECT query_id, doc_id, relevance FROM read_parquet($1) {picked}", [qrels, queries]).df()
    r = con.execute(f"SELECT query_id, doc_id, score FROM read_parquet($1) {picked}", [run, queries]).df()
    with warnings.catch_warnings():  # the large run printed its warnings already
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)
        alone = sqlrank.evaluate(q, r, list(MEASURES), per_query=True)
    worst = max(abs(values[(row.query_id, row.measure)] - row.value) for row in alone.itertuples())
    return len(alone), worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000_000)
    parser.add_argument("--memory-limit", default="4GB")
    parser.add_argument("--threads", type=int, help="DuckDB threads (default: all cores)")
    parser.add_argument("--slices", type=int, default=10, help="sqlrank --slices (default 10)")
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--data", default=str(HERE / "data"))
    args = parser.parse_args()
    tag = f"{args.rows // 1_000_000}M" if args.rows >= 1_000_000 else f"{args.rows // 1000}k"
    qrels, run = (os.path.join(args.data, f"{tag}.{name}.parquet") for name in ("qrels", "run"))
    if not (os.path.exists(qrels) and os.path.exists(run)):
        print(f"generating {args.rows:,} rows ...", flush=True)
        generate(args.rows, 1000, 1, args.data, text=False)
    out = os.path.join(args.data, f"{tag}.per_query.csv")
    seconds, peak = evaluate(qrels, run, args.memory_limit, args.threads, args.slices, os.path.join(args.data, "spill"), out)
    values = {}
    with open(out, newline="") as f:
        for row in csv.DictReader(f):
            values[(row["query_id"], row["measure"])] = float(row["value"])
    queries = {q for q, _ in values}
    means = {m: math.fsum(values[(q, m)] for q in queries) / len(queries) for m in MEASURES}
    compared, worst = check_sample(qrels, run, values, args.sample)
    print(f"{args.rows:,} run rows ({tag}), {len(queries):,} queries; {platform.machine()}, {os.cpu_count()} cores, "
          f"{date.today()}; sqlrank eval --memory-limit {args.memory_limit}"
          f"{f' --threads {args.threads}' if args.threads else ''} --slices {args.slices}, whole process")
    print(f"  {seconds:.1f} s, peak memory {peak:,.0f} MB")
    print("  means: " + ", ".join(f"{m} {v:.6f}" for m, v in means.items()))
    print(f"  {compared} per-query values of {args.sample} random queries against pytrec_eval: "
          f"max difference {worst:.1e} ({'agree' if worst <= 1e-9 else 'DISAGREE'} to 1e-9)")
    trec = check_trec_eval(qrels, run, values, args.sample)
    if trec is not None:
        print(f"  {trec[0]} per-query values of the same queries from the real trec_eval (-O2): {trec[1]} print the "
              f"same 4 decimals")
    alone, worst_alone = check_alone(qrels, run, values, args.sample)
    print(f"  {alone} per-query values of the same queries evaluated on their rows alone: "
          f"max difference {worst_alone:.1e} ({'equal' if worst_alone <= 1e-12 else 'DIFFERENT'} to 1e-12)")
    if worst > 1e-9 or worst_alone > 1e-12 or (trec is not None and trec[0] != trec[1]):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
