"""Everyday sizes: a Python call in a loop, a command at the terminal, side by side with the peers.

    python bench/everyday.py [--calls 15] [--commands 5] [--sizes 50,500,5000]

Per call: nDCG@10, AP and P@10 of in-memory pandas DataFrames (Q queries x 100 documents, graded labels 0-3 on
30% of them), the median over --calls interleaved calls of each tool: pytrec_eval building its
RelevanceEvaluator in each call (as a loop over runs does), ranx with its Qrels and Run built once,
sqlrank.evaluate, a sqlrank.Evaluator made once (the judgments read once), and the DuckDB floor: the least any
evaluation in DuckDB's SQL does (FLOOR_SQL: the frames registered, one ranking window, the join, DCG@10 alone).
Commands: each a whole process,
the median of --commands interleaved runs, against the floor of
any DuckDB command (python -c "import duckdb; duckdb.connect().sql('select 1')")."""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURES = "nDCG@10 AP P@10"


def data(queries: int, documents: int = 100, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    q = np.repeat([f"q{i}" for i in range(queries)], documents)
    d = np.array([f"d{j}" for j in range(documents)] * queries)
    run = pd.DataFrame({"query_id": q, "doc_id": d, "score": rng.random(len(q))})
    judged = rng.random(len(q)) < 0.3
    qrels = pd.DataFrame({"query_id": q[judged], "doc_id": d[judged], "relevance": rng.integers(0, 4, judged.sum())})
    return qrels, run


def callers(qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    """One call of each tool, as a user writes it in a loop."""
    import sqlrank

    prepared = sqlrank.Evaluator(qrels, MEASURES)  # the judgments read once, as ranx's Qrels are built once
    found = {"sqlrank.evaluate": lambda: sqlrank.evaluate(qrels, run, MEASURES), "Evaluator": lambda: prepared.evaluate(run)}
    found["DuckDB floor"] = floor(qrels, run)
    try:
        import pytrec_eval

        qrels_dict, run_dict = {}, {}
        for q, d, r in qrels.itertuples(index=False):
            qrels_dict.setdefault(q, {})[d] = int(r)
        for q, d, s in run.itertuples(index=False):
            run_dict.setdefault(q, {})[d] = float(s)

        def pytrec():
            evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10", "map", "P.10"})
            return evaluator.evaluate(run_dict)
        found["pytrec_eval"] = pytrec
    except ImportError:
        pass
    try:
        from ranx import Qrels, Run, evaluate

        text = {"query_id": object, "doc_id": object}  # ranx asks for object columns (pandas 3 has str ones)
        ranx_qrels = Qrels.from_df(qrels.astype({**text, "relevance": int}), q_id_col="query_id", doc_id_col="doc_id",
                                   score_col="relevance")
        ranx_run = Run.from_df(run.astype(text), q_id_col="query_id", doc_id_col="doc_id", score_col="score")
        evaluate(ranx_qrels, ranx_run, ["ndcg@10", "map", "precision@10"])  # its compilation, once
        found["ranx"] = lambda: evaluate(ranx_qrels, ranx_run, ["ndcg@10", "map", "precision@10"])
    except ImportError:
        pass
    return found


# The least any evaluation in DuckDB's SQL does: the DataFrames registered, the run ranked per query with one
# window, joined to the judgments, and DCG@10 (not even normalised: no ideal ranking, no AP, no P@10) averaged.
FLOOR_SQL = """
SELECT avg(dcg) FROM (
    SELECT query_id, sum(coalesce(relevance, 0) / log2(rank + 1)) AS dcg
    FROM (SELECT run.query_id, relevance,
                 row_number() OVER (PARTITION BY run.query_id ORDER BY score DESC, run.doc_id DESC) AS rank
          FROM run LEFT JOIN qrels USING (query_id, doc_id)) AS ranked
    WHERE rank <= 10
    GROUP BY query_id)
"""


def floor(qrels: pd.DataFrame, run: pd.DataFrame):
    """One call of the floor: on a kept connection, as the Evaluator's (FLOOR_SQL)."""
    import duckdb

    con = duckdb.connect()

    def call():
        con.register("qrels", qrels)
        con.register("run", run)
        value = con.execute(FLOOR_SQL).fetchall()
        con.unregister("run")
        con.unregister("qrels")
        return value
    return call


def per_call(sizes: list[int], calls: int) -> None:
    print(f"per call ({MEASURES}; Q queries x 100 documents; median of {calls} interleaved calls, ms)")
    print(f"{'rows':>12} {'pytrec_eval':>12} {'ranx':>8} {'evaluate':>9} {'Evaluator':>10} {'/ best':>7} {'/ best':>7}"
          f" {'DuckDB floor':>13} {'/ best':>7}")
    for queries in sizes:
        tools = callers(*data(queries))
        for call in tools.values():
            call()  # warm
        times: dict[str, list[float]] = {name: [] for name in tools}
        for _ in range(calls):
            for name, call in tools.items():
                started = time.perf_counter()
                call()
                times[name].append(1000 * (time.perf_counter() - started))
        median = {name: statistics.median(values) for name, values in times.items()}
        peers = [median[name] for name in ("pytrec_eval", "ranx") if name in median]
        ratios = [f"{median[name] / min(peers):.2f}x" if peers else ""
                  for name in ("sqlrank.evaluate", "Evaluator", "DuckDB floor")]
        print(f"{queries:>7} x 100 {median.get('pytrec_eval', float('nan')):>12.1f} {median.get('ranx', float('nan')):>8.1f} "
              f"{median['sqlrank.evaluate']:>9.1f} {median['Evaluator']:>10.1f} {ratios[0]:>7} {ratios[1]:>7} "
              f"{median['DuckDB floor']:>13.1f} {ratios[2]:>7}")


def commands(runs: int) -> None:
    demo, comp, judging = (os.path.join(ROOT, "fixtures", name) for name in ("demo", "compare", "judging"))
    python = [sys.executable]
    floor = python + ["-c", "import duckdb; duckdb.connect().sql('select 1')"]
    compared = [os.path.join(comp, f) for f in ("qrels.txt", "baseline.run", "rerank.run", "rerank_v2.run")]
    report = os.path.join(os.environ.get("TMPDIR", "/tmp"), "sqlrank-everyday-report.html")
    listed = {
        "eval": ["eval", os.path.join(demo, "qrels.test"), os.path.join(demo, "results.test"), "-m", MEASURES],
        "compare": ["compare", *compared, "-m", "nDCG@10 AP"],
        "report": ["report", *compared, "-m", "nDCG@10 AP", "-o", report],
        "meta": ["meta", os.path.join(judging, "human.txt"), os.path.join(judging, "llm.csv"),
                 *[os.path.join(judging, f) for f in ("bm25.run", "dense.run", "splade.run")], "-m", "nDCG@10"],
        "explain": ["explain", os.path.join(demo, "qrels.test"), os.path.join(demo, "results.test"), "-m", "nDCG@10",
                    "--target", "0.3016"],
    }
    walls: dict[str, list[float]] = {name: [] for name in ["floor", *listed]}
    for _ in range(runs):
        for name in walls:
            argv = floor if name == "floor" else python + ["-m", "sqlrank", *listed[name]]
            started = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
            walls[name].append(time.perf_counter() - started)
            if done.returncode:
                print(f"{name}: exit {done.returncode}: {done.stderr.strip()[:200]}")
    base = statistics.median(walls["floor"])
    print(f"\ncommands (whole process, median of {runs} interleaved runs) against the DuckDB floor ({base:.2f} s)")
    for name in listed:
        wall = statistics.median(walls[name])
        print(f"  sqlrank {name:<8} {wall:>6.2f} s  {wall / base:>5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--commands", type=int, default=5)
    parser.add_argument("--sizes", default="50,500,5000")
    args = parser.parse_args()
    per_call([int(s) for s in args.sizes.split(",")], args.calls)
    if args.commands:
        commands(args.commands)


if __name__ == "__main__":
    main()
