"""sqlrank trec_eval against trec_eval's C code on results.comment.test scaled to ~1M lines.

The peer is pytrec_eval-terrier: trec_eval's measure code in C, driven from Python, reading the
same TREC files with its own parse_qrel/parse_run and printing trec_eval's layout. Both are timed as whole processes, files to printed output,
median of several runs, in the same session.

    python bench/trec_eval_speed.py [--copies 33] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "fixtures" / "trec_eval"

PYTREC_SCRIPT = r'''
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P"}
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


def timed(command: list[str], repeat: int) -> tuple[float, str]:
    times, output = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{command[0]} failed: {proc.stderr}")
        output = proc.stdout
    return statistics.median(times), output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=33, help="copies of each query (33: ~1M run lines)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = scale(args.copies, Path(tmp))
        lines = sum(1 for _ in open(run))
        script = Path(tmp) / "pytrec.py"
        script.write_text(PYTREC_SCRIPT)
        sqlrank_time, sqlrank_out = timed([sys.executable, "-m", "sqlrank", "trec_eval", str(qrels), str(run)],
                                          args.repeat)
        pytrec_time, pytrec_out = timed([sys.executable, str(script), str(qrels), str(run)], args.repeat)
        all_trec_time, _ = timed([sys.executable, "-m", "sqlrank", "trec_eval", "-q", "-m", "all_trec",
                                  str(qrels), str(run)], args.repeat)
    ours = {l.split("\t")[0].strip(): l.split("\t")[2] for l in sqlrank_out.splitlines()}
    theirs = {l.split("\t")[0].strip(): l.split("\t")[2] for l in pytrec_out.splitlines()}
    # pytrec_eval uses trec_eval 9's recall-level rounding, so iprec lines may differ (docs/trec_eval_semantics.md 9.2)
    agree = [n for n in theirs if n in ours and not n.startswith("iprec")
             and f"{float(ours[n]):.4f}" != f"{float(theirs[n]):.4f}"]
    print(f"run lines: {lines:,}; queries: {args.copies * 31:,} judged; cores: {os.cpu_count()}; "
          f"median of {args.repeat}")
    print(f"{'tool':<44} {'seconds':>8} {'ratio':>7}")
    print(f"{'sqlrank trec_eval (official measures)':<44} {sqlrank_time:8.2f} {1.0:7.2f}")
    print(f"{'pytrec_eval-terrier (trec_eval C, official)':<44} {pytrec_time:8.2f} {pytrec_time / sqlrank_time:7.2f}")
    print(f"{'sqlrank trec_eval -q -m all_trec':<44} {all_trec_time:8.2f} {all_trec_time / sqlrank_time:7.2f}")
    print("summary values agree (apart from iprec rounding):", "yes" if not agree else f"NO: {agree}")


if __name__ == "__main__":
    main()
