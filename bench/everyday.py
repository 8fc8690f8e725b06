"""Everyday sizes: a Python call in a loop, a sweep of many runs, a command at the terminal, beside the peers.

    python bench/everyday.py [--calls 15] [--commands 5] [--sizes 50,500,5000] [--sweeps 200x50,20x500]

Per call: nDCG@10, AP and P@10 of in-memory pandas DataFrames (Q queries x 100 documents, graded labels 0-3 on
30% of them), the median over --calls interleaved calls of each tool: pytrec_eval building its
RelevanceEvaluator in each call (as a loop over runs does), ranx with its Qrels and Run built once,
sqlrank.evaluate, a sqlrank.Evaluator made once (the judgments read once), and the DuckDB floor: what an evaluator
that already holds its judgments must at least do in DuckDB (FLOOR_SQL: the run's frame registered, one ranking
window, the join to the judgments held in a table made once, DCG@10 alone, fetched).
Sweeps (R runs x Q queries x 100 documents, the same judgments): each tool's loop over the runs, and sqlrank's one
call of all of them (Evaluator.evaluate({name: run})), the median of --sweep-calls interleaved rounds; pytrec_eval
with one RelevanceEvaluator and its dicts, ranx with its Qrels and Runs, each built before the clock; and each
sqlrank call's peak memory above what its process held before it, beside the runs' own size in memory (a process
of its own per figure, its resident set read every millisecond).
Commands: each a whole process, the median of --commands interleaved runs, against the floor of
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


# What an evaluator that holds its judgments must at least do in DuckDB: the run's DataFrame registered, ranked per
# query with one window, joined to the judgments (a table made once), and DCG@10 (not normalised: no ideal ranking,
# no AP, no P@10, no check of the run) averaged, fetched.
FLOOR_SQL = """
SELECT avg(dcg) FROM (
    SELECT r.query_id, sum(CASE WHEN r.rk <= 10 THEN q.relevance / log2(r.rk + 1) ELSE 0 END) AS dcg
    FROM (SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC) AS rk
          FROM run_in) AS r
    JOIN q ON q.query_id = r.query_id AND q.doc_id = r.doc_id
    GROUP BY r.query_id)
"""


def floor(qrels: pd.DataFrame, run: pd.DataFrame):
    """One call of the floor: on a kept connection holding the judgments in a table, as the Evaluator's."""
    import duckdb

    con = duckdb.connect()
    con.register("qrels_in", qrels)
    con.execute("CREATE TABLE q AS SELECT * FROM qrels_in")
    con.unregister("qrels_in")

    def call():
        con.register("run_in", run)
        value = con.execute(FLOOR_SQL).fetchall()
        con.unregister("run_in")
        return value
    return call


def interleaved(tools: dict, calls: int) -> dict[str, float]:
    """Each tool's median ms over CALLS rounds, the tools in turn in each round, after one warm call each."""
    import warnings

    times: dict[str, list[float]] = {name: [] for name in tools}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties across the cutoffs: sqlrank says so at each call
        for call in tools.values():
            call()
        for _ in range(calls):
            for name, call in tools.items():
                started = time.perf_counter()
                call()
                times[name].append(1000 * (time.perf_counter() - started))
    return {name: statistics.median(values) for name, values in times.items()}


def per_call(sizes: list[int], calls: int) -> None:
    print(f"per call ({MEASURES}; Q queries x 100 documents; median of {calls} interleaved calls, ms)")
    print(f"{'rows':>12} {'pytrec_eval':>12} {'ranx':>8} {'evaluate':>9} {'Evaluator':>10} {'/ best':>7} {'/ floor':>8}"
          f" {'DuckDB floor':>13} {'/ best':>7}")
    for queries in sizes:
        median = interleaved(callers(*data(queries)), calls)
        best = min((median[name] for name in ("pytrec_eval", "ranx") if name in median), default=float("nan"))
        print(f"{queries:>7} x 100 {median.get('pytrec_eval', float('nan')):>12.1f} {median.get('ranx', float('nan')):>8.1f} "
              f"{median['sqlrank.evaluate']:>9.1f} {median['Evaluator']:>10.1f} {median['Evaluator'] / best:>6.2f}x "
              f"{median['Evaluator'] / median['DuckDB floor']:>7.2f}x {median['DuckDB floor']:>13.1f} "
              f"{median['DuckDB floor'] / best:>6.2f}x")


def sweep_runs(runs: int, queries: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The judgments and RUNS runs of QUERIES x 100 documents (each its own scores: a hyperparameter sweep)."""
    qrels, run = data(queries)
    rng = np.random.default_rng(1)
    return qrels, {f"setting_{i}": run.assign(score=rng.random(len(run))) for i in range(runs)}


def sweep_callers(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> dict:
    """Each tool's loop over the runs, and sqlrank's one call of them all; what each reads built beforehand."""
    import sqlrank

    prepared = sqlrank.Evaluator(qrels, MEASURES)
    found = {"Evaluator loop": lambda: [prepared.evaluate(run) for run in runs.values()],
             "Evaluator, one call": lambda: prepared.evaluate(runs)}
    try:
        import pytrec_eval

        qrels_dict: dict = {}
        for q, d, r in qrels.itertuples(index=False):
            qrels_dict.setdefault(q, {})[d] = int(r)
        dicts = []
        for run in runs.values():
            run_dict: dict = {}
            for q, d, score in run.itertuples(index=False):
                run_dict.setdefault(q, {})[d] = float(score)
            dicts.append(run_dict)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10", "map", "P.10"})
        found["pytrec_eval loop"] = lambda: [evaluator.evaluate(run_dict) for run_dict in dicts]
    except ImportError:
        pass
    try:
        from ranx import Qrels, Run, evaluate

        text = {"query_id": object, "doc_id": object}
        ranx_qrels = Qrels.from_df(qrels.astype({**text, "relevance": int}), q_id_col="query_id",
                                   doc_id_col="doc_id", score_col="relevance")
        ranx_runs = [Run.from_df(run.astype(text), q_id_col="query_id", doc_id_col="doc_id", score_col="score")
                     for run in runs.values()]
        evaluate(ranx_qrels, ranx_runs[0], ["ndcg@10", "map", "precision@10"])  # its compilation, once
        found["ranx loop"] = lambda: [evaluate(ranx_qrels, r, ["ndcg@10", "map", "precision@10"]) for r in ranx_runs]
    except ImportError:
        pass
    return found


def sweeps(shapes: list[tuple[int, int]], calls: int) -> None:
    print(f"\nsweeps ({MEASURES}; R runs x Q queries x 100 documents; median of {calls} interleaved rounds, ms; "
          f"peak: memory above what the process held before the call, each in a process of its own)")
    print(f"{'runs':>18} {'pytrec_eval':>12} {'ranx':>8} {'Evaluator loop':>15} {'one call':>9} {'/ best':>7} "
          f"{'runs in memory':>15} {'peak, one call':>15} {'/ runs':>7}")
    for runs, queries in shapes:
        qrels, listed = sweep_runs(runs, queries)
        median = interleaved(sweep_callers(qrels, listed), calls)
        peers = [median[name] for name in ("pytrec_eval loop", "ranx loop") if name in median]
        size = sum(run.memory_usage(deep=True).sum() for run in listed.values()) / 1e6
        peak = peak_memory(runs, queries)
        ratio = f"{median['Evaluator, one call'] / min(peers):.2f}x" if peers else ""
        print(f"{runs:>5} x {queries:>5} x 100 {median.get('pytrec_eval loop', float('nan')):>12.1f} "
              f"{median.get('ranx loop', float('nan')):>8.1f} {median['Evaluator loop']:>15.1f} "
              f"{median['Evaluator, one call']:>9.1f} {ratio:>7} {size:>12.1f} MB {peak:>12.1f} MB "
              f"{peak / size:>6.2f}x")


def peak_memory(runs: int, queries: int) -> float:
    """MB the one call of a sweep held at its peak above what its process held before it (a process of its own)."""
    done = subprocess.run([sys.executable, __file__, "--peak", f"{runs}x{queries}"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    return float(done.stdout.split()[-1])


def measure_peak(runs: int, queries: int) -> None:
    """Print the MB above the resident set before it that Evaluator.evaluate(runs) held at its peak."""
    import threading
    import warnings

    import sqlrank

    qrels, listed = sweep_runs(runs, queries)
    page = os.sysconf("SC_PAGE_SIZE")

    def resident() -> int:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * page
    with sqlrank.Evaluator(qrels, MEASURES) as ev, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev.evaluate(dict(list(listed.items())[:2]))  # warm: the statement rendered, DuckDB's first allocations
        before, peak, running = resident(), [0], [True]

        def sample():
            while running[0]:
                peak[0] = max(peak[0], resident())
                time.sleep(0.001)
        sampler = threading.Thread(target=sample)
        sampler.start()
        ev.evaluate(listed)
        running[0] = False
        sampler.join()
    print(f"{max(peak[0] - before, 0) / 1e6:.1f}")


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
    parser.add_argument("--sweeps", default="200x50,20x500", help="RUNSxQUERIES, comma-separated ('' for none)")
    parser.add_argument("--sweep-calls", type=int, default=5)
    parser.add_argument("--peak", help=argparse.SUPPRESS)  # a process of its own: one call's peak memory
    args = parser.parse_args()
    if args.peak:
        measure_peak(*map(int, args.peak.split("x")))
        return
    per_call([int(s) for s in args.sizes.split(",")], args.calls)
    if args.sweeps:
        sweeps([tuple(map(int, shape.split("x"))) for shape in args.sweeps.split(",")], args.sweep_calls)
    if args.commands:
        commands(args.commands)


if __name__ == "__main__":
    main()
