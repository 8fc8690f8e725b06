"""Benchmark sqlrank against the peers on the same files, in one run.

    python bench/run.py --rows 10000000 [--repeat 3] [--tools sqlrank-parquet,sqlrank-trec,pytrec_eval,...]

sqlrank-parquet@600MB is sqlrank on the Parquet files with --memory-limit 600MB.

Generates the data if missing (bench/generate.py), then runs each tool as a whole process, from
files to printed means, `repeat` times: wall time (median), peak memory (max resident set of
the process, from wait4), and the means it prints, which must agree across tools to 1e-6
(ranx's order of tied scores differs; see the ranx preset; trec_eval prints 4 decimals). trec_eval
is the real one built with -O2 (bench/trec_eval_binary.py: SQLRANK_TREC_EVAL_SOURCE or
SQLRANK_TREC_EVAL); the default tool list needs it. Prints a table with the ratio of
pytrec_eval's time to each tool's.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402
from process import run_checked  # noqa: E402
from trec_eval_binary import trec_eval_binary  # noqa: E402

MEASURES = ["nDCG@10", "AP", "P@10", "R@1000", "RR"]

SCRIPTS = {
    "pytrec_eval": """
import json, sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
names = {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recall_1000": "R@1000", "recip_rank": "RR"}
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"}).evaluate(run)
print(json.dumps({ours: sum(r[name] for r in res.values()) / len(res) for name, ours in names.items()}))
""",
    "ir_measures": """
import json, sys, ir_measures
measures = [ir_measures.parse_measure(m) for m in ["nDCG@10", "AP", "P@10", "R@1000", "RR"]]
res = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(sys.argv[1]), ir_measures.read_trec_run(sys.argv[2]))
print(json.dumps({str(m): v for m, v in res.items()}))
""",
    "ranx": """
import json, sys, ranx
qrels, run = ranx.Qrels.from_file(sys.argv[1], kind="trec"), ranx.Run.from_file(sys.argv[2], kind="trec")
names = {"ndcg@10": "nDCG@10", "map": "AP", "precision@10": "P@10", "recall@1000": "R@1000", "mrr": "RR"}
res = ranx.evaluate(qrels, run, list(names), make_comparable=True)
print(json.dumps({ours: float(res[name]) for name, ours in names.items()}))
""",
}


TREC_NAMES = {"ndcg_cut_10": "nDCG@10", "map": "AP", "P_10": "P@10", "recall_1000": "R@1000", "recip_rank": "RR"}


def command(tool: str, paths: dict, script_dir: Path) -> list[str]:
    if tool == "trec_eval":  # the real one, -O2 (bench/trec_eval_binary.py)
        binary, why = trec_eval_binary(Path(paths["run.txt"]).parent)
        if binary is None:
            raise SystemExit(f"trec_eval: {why}")
        return [str(binary), "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m", "recall.1000", "-m", "recip_rank",
                paths["qrels.txt"], paths["run.txt"]]
    if tool.startswith("sqlrank"):  # sqlrank-parquet, sqlrank-trec, with @LIMIT: sqlrank-parquet@600MB
        name, _, limit = tool.partition("@")
        fmt = "parquet" if name.endswith("parquet") else "txt"
        return [sys.executable, "-m", "sqlrank", "eval", paths[f"qrels.{fmt}"], paths[f"run.{fmt}"],
                "-m", " ".join(MEASURES), "-f", "json"] + (["--memory-limit", limit] if limit else [])
    script = script_dir / f"bench_{tool}.py"  # not {tool}.py: it would shadow the module it imports
    script.write_text(SCRIPTS[tool])
    return [sys.executable, str(script), paths["qrels.txt"], paths["run.txt"]]


def measure(cmd: list[str]) -> tuple[float, float, dict]:
    """One whole process, from the launcher: (wall seconds, peak resident MB, the means it printed)."""
    done = run_checked(cmd)
    if cmd[-3] == "recip_rank":  # trec_eval's own layout: name, "all", value with 4 decimals
        return done.wall, done.peak_mb, {TREC_NAMES[line.split()[0]]: float(line.split()[2])
                                         for line in done.stdout.splitlines()}
    data = json.loads(done.stdout)
    if isinstance(data, list):  # sqlrank's JSON: [{"measure": ..., "value": ...}]
        data = {row["measure"]: row["value"] for row in data}
    return done.wall, done.peak_mb, data


def compile_sqlrank() -> None:
    """sqlrank's modules compiled to bytecode, as `pip install sqlrank` leaves them: from an editable
    install with PYTHONDONTWRITEBYTECODE=1 (as on the machine the figures come from) every timed
    process would compile them again, about 0.04 s that no installed copy pays."""
    import compileall

    import sqlrank
    compileall.compile_dir(str(Path(sqlrank.__file__).parent), quiet=1)


def data_files(rows: int, data: str, profile: str = "uniform") -> tuple[str, dict[str, str]]:
    """The scale's tag (10M, 10M-trec) and its four files in bench/generate.py's profile, generated if any is
    missing."""
    tag = (f"{rows // 1_000_000}M" if rows >= 1_000_000 else f"{rows // 1000}k") + \
        ("" if profile == "uniform" else f"-{profile}")
    paths = {name: os.path.join(data, f"{tag}.{name}") for name in
             ("run.parquet", "qrels.parquet", "run.txt", "qrels.txt")}
    if not all(os.path.exists(p) for p in paths.values()):
        paths = generate(rows, 1000, 1, data, profile=profile)
    return tag, paths


def summarize(runs: list[tuple]) -> tuple:
    """Runs of one command, each (seconds, peak MB, output): the median time, the largest peak and
    the last run's output."""
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


def run_tools(tools: list[str], paths: dict, repeat: int) -> dict[str, tuple[float, float, dict]]:
    """Each tool `repeat` times as a whole process: (median seconds, peak MB, the means it printed)."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tool in tools:
            results[tool] = summarize([measure(command(tool, paths, Path(tmp))) for _ in range(repeat)])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tools", default="sqlrank-parquet,sqlrank-parquet@600MB,sqlrank-trec,trec_eval,pytrec_eval,"
                                           "ir_measures,ranx")
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--profile", choices=("uniform", "trec"), default="uniform",
                        help="bench/generate.py's profile of the data (default: uniform)")
    args = parser.parse_args()
    tag, paths = data_files(args.rows, args.data, args.profile)
    compile_sqlrank()
    results = run_tools(args.tools.split(","), paths, args.repeat)
    reference = results.get("pytrec_eval")
    print(f"{args.rows:,} run rows ({tag}), measures {' '.join(MEASURES)}; {platform.machine()}, "
          f"{os.cpu_count()} cores, {date.today()}; median of {args.repeat} runs, whole process")
    print(f"{'tool':<22} {'seconds':>8} {'peak MB':>8} {'pytrec_eval / tool':>19}  means agree")
    for tool, (seconds, peak, means) in results.items():
        ratio = f"{reference[0] / seconds:.2f}x" if reference else "-"
        agree = "-"
        if reference and tool != "pytrec_eval":
            worst = max(abs(means[m] - reference[2][m]) for m in MEASURES)
            limit = 5e-5 if tool == "trec_eval" else 1e-6  # trec_eval prints 4 decimals
            agree = "yes" if worst <= limit else f"no (max diff {worst:.2g})"
        print(f"{tool:<22} {seconds:8.2f} {peak:8.0f} {ratio:>19}  {agree}")


if __name__ == "__main__":
    main()
