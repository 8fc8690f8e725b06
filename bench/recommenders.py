"""Recommender evaluation at warehouse scale: 5M users x 20 recommendations (100M rows) with six
accuracy and four beyond-accuracy measures under a memory limit, and Microsoft Recommenders'
pandas implementation beside sqlrank on a sample it can hold.

    python bench/recommenders.py [--users 5000000] [--memory-limit 4GB] [--slices N] [--sample-users 100000]
                                 [--recommenders-python PATH] [--data DIR]

Generates (DuckDB SQL, seeded) in bench/data/recsys-<users>/: predictions.parquet (user_id, item_id,
score; 20 distinct items per user from 200,000, popularity skewed as a power law; no tied scores), clicks.parquet
(user_id, item_id, clicked: about 3 of the 20 recommended plus one item not recommended, 1 in 20
users without any click), history.parquet (4 training interactions per user, none of them
recommended), items.parquet (the catalog). Then it runs
`sqlrank eval` as a whole process with --memory-limit (and --slices: the users in N groups, one
statement each, the measures over all users from every slice's items' counts) and reports wall
time and peak memory (max resident set, from wait4).

The sample: the first --sample-users users of the same files, evaluated by sqlrank and by
Recommenders' python_evaluation (precision_at_k, recall_at_k, ndcg_at_k, map_at_k,
catalog_coverage, novelty; the catalog is the history's items, as catalog_coverage has it) in the Python of --recommenders-python (a virtual environment with
`pip install "pandas<3" numpy scikit-learn scipy` and `pip install --no-deps recommenders`:
Recommenders 1.2 needs pandas 2); time for each, and the largest difference of the means.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from process import run_checked  # noqa: E402
ACCURACY = ["HR@10", "P@10", "Recall@10", "MAP@10", "MRR@10", "NDCG@10"]
BEYOND = ["Coverage@10", "Gini@10", "Novelty@10", "AvgPop@10"]
ITEMS = 200_000


def generate(users: int, folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{name}.parquet" for name in ("predictions", "clicks", "history", "items")}
    if all(p.exists() for p in paths.values()):
        return paths
    con = duckdb.connect()
    con.execute("SELECT setseed(0.2026)")
    # item = (base + 7919 j) mod ITEMS: 20 distinct items per user, base drawn with a power-law skew
    con.execute(f"""
        CREATE TEMP TABLE users AS
        SELECT u, CAST(floor({ITEMS} * pow(random(), 3)) AS BIGINT) AS base FROM range({users}) AS t(u)""")
    con.execute(f"""
        COPY (SELECT 'u' || u AS user_id, 'i' || ((base + 7919 * j) % {ITEMS}) AS item_id,
                     1 - j * 0.04 + (random() - 0.5) * 0.06 AS score
              FROM users, range(20) AS r(j))
        TO '{paths["predictions"]}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.execute(f"""
        COPY (SELECT 'u' || u AS user_id, 'i' || ((base + 7919 * j) % {ITEMS}) AS item_id,
                     u % 20 <> 0 AND (random() < 0.15 OR j = 20) AS clicked
              FROM users, range(21) AS r(j)
              WHERE j = 20 OR random() < 0.4)
        TO '{paths["clicks"]}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.execute(f"""
        COPY (SELECT 'u' || u AS user_id, 'i' || ((base + 7919 * j) % {ITEMS}) AS item_id
              FROM users, range(21, 25) AS r(j))
        TO '{paths["history"]}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    con.execute(f"COPY (SELECT 'i' || i AS item_id FROM range({ITEMS}) AS t(i)) TO '{paths['items']}' (FORMAT parquet)")
    return paths


def sqlrank_eval(paths: dict[str, Path], memory_limit: str, spill: Path, out: Path, slices: int) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "sqlrank", "eval", str(paths["clicks"]), str(paths["predictions"]),
           "-m", " ".join(ACCURACY + BEYOND), "--qrels-columns", "relevance=clicked", "--history",
           str(paths["history"]), "--items", str(paths["items"]), "--preset", "ms_recommenders", "-f", "json", "-o", str(out),
           "--memory-limit", memory_limit, "--temp-directory", str(spill), "--slices", str(slices)]
    done = run_checked(cmd)
    return done.wall, done.peak_mb


def sample(paths: dict[str, Path], users: int, folder: Path) -> dict[str, Path]:
    """The first `users` users (by number) of each file, as CSV for both tools."""
    out = {name: folder / f"sample-{users}-{name}.csv" for name in ("predictions", "clicks", "history")}
    con = duckdb.connect()
    for name, path in paths.items():
        if name in out and not out[name].exists():
            con.execute(f"COPY (SELECT * FROM '{path}' WHERE CAST(substr(user_id, 2) AS BIGINT) < {users}) "
                        f"TO '{out[name]}' (HEADER)")
    return out


RECOMMENDERS_SCRIPT = r"""
import json, sys, time
import pandas as pd
from recommenders.evaluation import python_evaluation as pe
paths = json.loads(sys.argv[1])
read = lambda name: pd.read_csv(paths[name], dtype={"user_id": str, "item_id": str})
truth = read("clicks")
truth = truth[truth.clicked.astype(str).str.lower() == "true"][["user_id", "item_id"]].assign(rating=1)
pred, history = read("predictions"), read("history")
kw = dict(col_user="user_id", col_item="item_id", col_prediction="score", k=10)
start = time.perf_counter()
values = {"P@10": pe.precision_at_k(truth, pred, **kw), "Recall@10": pe.recall_at_k(truth, pred, **kw),
          "NDCG@10": pe.ndcg_at_k(truth, pred, **kw), "MAP@10": pe.map_at_k(truth, pred, **kw)}
top = pred.sort_values(["user_id", "score"], ascending=[True, False]).groupby("user_id").head(10)
top = top[top.user_id.isin(set(truth.user_id))]
history = history.drop_duplicates()
values["Coverage@10"] = pe.catalog_coverage(history, top, col_user="user_id", col_item="item_id")
values["Novelty@10"] = pe.novelty(history, top[["user_id", "item_id"]], col_user="user_id", col_item="item_id")
print(json.dumps({"seconds": time.perf_counter() - start, "values": values}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=5_000_000)
    parser.add_argument("--memory-limit", default="4GB")
    parser.add_argument("--slices", type=int, default=1)
    parser.add_argument("--sample-users", type=int, default=100_000)
    parser.add_argument("--recommenders-python", help="a Python with Microsoft Recommenders and pandas < 3")
    parser.add_argument("--data", default=str(HERE / "data"), help="where the generated files go")
    args = parser.parse_args()
    folder = Path(args.data) / f"recsys-{args.users}"
    start = time.perf_counter()
    paths = generate(args.users, folder)
    print(f"data: {folder} ({sum(p.stat().st_size for p in paths.values()) / 1e9:.2f} GB of Parquet, "
          f"{time.perf_counter() - start:.0f} s)")
    out = folder / "sqlrank.json"
    seconds, peak = sqlrank_eval(paths, args.memory_limit, folder / "spill", out, args.slices)
    rows = duckdb.sql(f"SELECT count(*) FROM '{paths['predictions']}'").fetchall()[0][0]
    print(f"\n{platform.node()}, {os.cpu_count()} cores; {rows:,} prediction rows, {args.users:,} users; "
          f"--memory-limit {args.memory_limit}" + (f" --slices {args.slices}" if args.slices > 1 else ""))
    print(f"sqlrank eval, {len(ACCURACY)} accuracy + {len(BEYOND)} beyond-accuracy measures: "
          f"{seconds:.1f} s, peak memory {peak / 1024:.2f} GB")
    for row in json.loads(out.read_text()):
        print(f"  {row['measure']:<42} {row['value']:.6f}")
    if not args.recommenders_python:
        return
    small = sample(paths, args.sample_users, folder)
    out_small = folder / f"sample-{args.sample_users}.json"
    measures = ["P@10", "Recall@10", "NDCG@10", "MAP@10", "Coverage@10", "Novelty@10"]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(small["clicks"]), str(small["predictions"]),
                    "-m", " ".join(measures), "--qrels-columns", "relevance=clicked", "--history",
                    str(small["history"]), "--preset", "ms_recommenders", "-f", "json", "-o", str(out_small)],
                   check=True, stderr=subprocess.DEVNULL)
    ours_seconds = time.perf_counter() - start
    ours = {row["measure"]: row["value"] for row in json.loads(out_small.read_text())}
    start = time.perf_counter()
    done = subprocess.run([args.recommenders_python, "-c", RECOMMENDERS_SCRIPT,
                           json.dumps({k: str(v) for k, v in small.items()})], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"Recommenders failed:\n{done.stderr}")
    theirs_process = time.perf_counter() - start
    theirs = json.loads(done.stdout.splitlines()[-1])
    lines = sum(1 for _ in open(small["predictions"])) - 1
    print(f"\nsample: {args.sample_users:,} users, {lines:,} prediction rows (CSV)")
    print(f"  sqlrank eval (whole process, reading CSV):        {ours_seconds:.1f} s")
    print(f"  Recommenders python_evaluation (6 functions):      {theirs['seconds']:.1f} s "
          f"(whole process {theirs_process:.1f} s); ratio {theirs['seconds'] / ours_seconds:.1f}x")
    names = dict(zip(measures, ours))
    for name in measures:
        print(f"  {name:<12} sqlrank {ours[names[name]]:.9f}   Recommenders {theirs['values'][name]:.9f}")
    worst = max(abs(ours[names[n]] - theirs["values"][n]) for n in measures)
    print(f"  largest difference of the means: {worst:.1e}")


if __name__ == "__main__":
    main()
