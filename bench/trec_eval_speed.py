"""sqlrank trec_eval beside the real trec_eval (10.0, -O2) and pytrec_eval, as whole processes.

    python bench/trec_eval_speed.py [--rows 10000000 [--profile uniform|trec|both] | --copies 33] [--repeat 3]

The data: bench/generate.py's run and qrels at --rows (TREC text) in each --profile (both by default: the
uniform one, and the trec one shaped like a TREC collection), or trec_eval's own results.comment.test with
each query copied --copies times under new ids. For each command line (trec_eval's default measures;
-m all_trec; the five measures of bench/run.py; -m all_trec with --threads 1; -q -m all_trec, every measure
of every query) it runs sqlrank trec_eval and trec_eval with the same arguments, in turn (trec_eval,
sqlrank, trec_eval, sqlrank, ...), so that the machine's drift touches both: wall seconds and CPU seconds
(user + system, from wait4), each the median of --repeat, peak memory (the largest resident set, from
wait4), the ratios to trec_eval's, and whether the outputs are byte-identical. pytrec_eval-terrier
(trec_eval 9's C code driven from Python) runs the five measures too. The real trec_eval comes from
bench/trec_eval_binary.py (SQLRANK_TREC_EVAL or SQLRANK_TREC_EVAL_SOURCE); without it, only sqlrank and
pytrec_eval run.
"""
from __future__ import annotations

import argparse
import os
import statistics
import platform
import sys
import tempfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONFORMANCE = ROOT / "fixtures" / "trec_eval"
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402
from process import run_checked  # noqa: E402
from run import compile_sqlrank  # noqa: E402
from trec_eval_binary import trec_eval_binary  # noqa: E402

FIVE = ["-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m", "recall.1000", "-m", "recip_rank"]
COMMANDS = {"default measures": [], "-m all_trec": ["-m", "all_trec"], "5 measures": FIVE,
            "-m all_trec, 1 thread": ["-m", "all_trec"], "-q -m all_trec": ["-q", "-m", "all_trec"]}
THREADS = {"-m all_trec, 1 thread": ["--threads", "1"]}  # sqlrank's own flags for a command line

PYTREC_SCRIPT = r'''
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = {"ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = sorted(next(iter(results.values())))
out = []
for name in names:
    values = [r[name] for r in results.values()]
    out.append("%-22s\tall\t%6.4f" % (name, pytrec_eval.compute_aggregated_measure(name, values)))
sys.stdout.write("\n".join(out) + "\n")
'''


def scale(copies: int, folder: Path) -> tuple[Path, Path]:
    """The comment-test qrels and run, each query copied `copies` times under new ids."""
    qrels_in = (CONFORMANCE / "qrels.comment.test").read_text().splitlines()
    run_in = (CONFORMANCE / "results.comment.test").read_text().splitlines()
    qrels, run = folder / "qrels.scaled", folder / "results.scaled"
    with open(qrels, "w") as q, open(run, "w") as r:
        for k in range(copies):
            for line in qrels_in:
                qid, rest = line.split(None, 1)
                q.write(f"{qid}-{k} {rest}\n")
            for line in run_in:
                qid, rest = line.split(None, 1)
                r.write(f"{qid}-{k} {rest}\n")
    return qrels, run


def run_measured(command: list[str]) -> tuple[float, float, float, str]:
    """One whole process: (wall seconds, CPU seconds, peak resident MB, standard output), from the launcher."""
    done = run_checked(command)
    return done.wall, done.cpu, done.peak_mb, done.stdout


def summarize(runs: list[tuple]) -> tuple[float, float, float, str]:
    """Runs of one command: the median wall and CPU seconds, the largest peak and the last run's output."""
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), max(r[2] for r in runs),
            runs[-1][3])


def differing(ours: str, theirs: str) -> str:
    """The measure names whose lines differ (trec_eval -O2's rbp reads uninitialised memory in m_rbp.c)."""
    a, b = ours.splitlines(), theirs.splitlines()
    names = sorted({x.split("\t")[0].strip() for x, y in zip(a, b) if x != y})
    return ", ".join(names) + ("" if len(a) == len(b) else f" (and {abs(len(a) - len(b))} lines)")


def interleaved(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float, float, str]]:
    """Each command `repeat` times, in turn (A B A B ...), summarized."""
    runs: dict[str, list] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            runs[name].append(run_measured(command))
    return {name: summarize(found) for name, found in runs.items()}


def compare(qrels: Path, run: Path, binary: Path | None, repeat: int, tmp: str) -> None:
    """The table of one data set: each command line, trec_eval's and sqlrank's figures and their ratios."""
    print(f"{'command':<22} {'tool':<18} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'wall ratio':>10} {'CPU ratio':>9} "
          f"{'memory ratio':>12}  output")
    for name, flags in COMMANDS.items():
        commands = {"sqlrank trec_eval": [sys.executable, "-m", "sqlrank", "trec_eval", *THREADS.get(name, []), *flags,
                                          str(qrels), str(run)]}
        if binary:
            commands = {"trec_eval -O2": [str(binary), *flags, str(qrels), str(run)], **commands}
        if name == "5 measures":
            script = Path(tmp) / "pytrec.py"
            script.write_text(PYTREC_SCRIPT)
            commands["pytrec_eval"] = [sys.executable, str(script), str(qrels), str(run)]
        found = interleaved(commands, repeat)
        theirs = found.get("trec_eval -O2")
        for tool, (seconds, cpu, peak, output) in found.items():
            if theirs:
                same = "identical" if output == theirs[3] else "differs: " + differing(output, theirs[3])
                ratios = f"{seconds / theirs[0]:10.2f} {cpu / theirs[1]:9.2f} {peak / theirs[2]:12.2f}"
            else:
                same, ratios = "-", f"{'-':>10} {'-':>9} {'-':>12}"
            if tool == "pytrec_eval":
                same = "(9's code; not compared)"
            print(f"{name:<22} {tool:<18} {seconds:7.2f} {cpu:7.2f} {peak:8.0f} {ratios}  {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, help="bench/generate.py's data at this many run lines")
    parser.add_argument("--profile", choices=("uniform", "trec", "both"), default="both",
                        help="bench/generate.py's profile of the data (with --rows; default: both)")
    parser.add_argument("--copies", type=int, default=33, help="copies of each comment-test query (33: ~1M lines)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=str(HERE / "data"))
    args = parser.parse_args()
    binary, how = trec_eval_binary(Path(args.data))
    compile_sqlrank()
    with tempfile.TemporaryDirectory() as tmp:
        if args.rows:
            profiles = ("uniform", "trec") if args.profile == "both" else (args.profile,)
            inputs = []
            for profile in profiles:
                paths = generate(args.rows, 1000, 1, args.data, profile=profile)
                inputs.append((f"profile {profile}", Path(paths["qrels.txt"]), Path(paths["run.txt"])))
        else:
            qrels, run = scale(args.copies, Path(tmp))
            inputs = [("comment test, copied", qrels, run)]
        for title, qrels, run in inputs:
            lines = sum(1 for _ in open(run))
            print(f"\n{title}: {lines:,} run lines ({run.name}); {platform.machine()}, {os.cpu_count()} cores, "
                  f"{date.today()}; median of {args.repeat} runs, in turn with trec_eval, whole process; trec_eval: "
                  f"{binary or 'none'} ({how})")
            compare(qrels, run, binary, args.repeat, tmp)


if __name__ == "__main__":
    main()
