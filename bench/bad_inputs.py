"""What each tool does with bad input: sqlrank, pytrec_eval-terrier and ranx, measured here on
the same small TREC files (one case per row), each tool in a child process so that a crash is
seen as a crash. trec_eval itself cannot be built on this machine (its build fetches its source
from GitHub); its column quotes ../shared/conformance/trec_eval/SEMANTICS.md, whose entries were
verified against trec_eval 10.

    python bench/bad_inputs.py            # prints the Markdown table of the README
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\n"
RUN = "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0 t\nq2 Q0 d4 1 2.0 t\nq2 Q0 d1 2 1.0 t\n"

# (case, qrels text, run text, what trec_eval 10 does according to SEMANTICS.md)
CASES = [
    ("duplicate document in the run", QRELS, RUN + "q1 Q0 d1 4 0.5 t\n", "fatal `duplicate docs`, exit 4 (E4)"),
    ("the same document judged twice, with different labels", QRELS + "q1 0 d1 0\n", RUN,
     "fatal, exit 4 (E4c)"),
    ("query id `01` in the run, `1` in the qrels", QRELS.replace("q1", "1"), RUN.replace("q1", "01"),
     "ids are strings, so `1` has no results: exit 4 without -c (§2, E6)"),
    ("score `nan`", QRELS, RUN.replace("2.0 t", "nan t", 1), "not in SEMANTICS.md"),
    ("label `R` (not a number)", QRELS.replace("d3 2", "d3 R"), RUN, "`rel` is read with `atol` (§1.1): `R` is 0"),
    ("run line with 5 fields", QRELS, RUN + "q2 Q0 d9 3 0.5\n", "not in SEMANTICS.md"),
    ("empty run file", QRELS, "", "every judged query is missing: exit 4 without -c (§2)"),
    ("judged query missing from the run", QRELS + "q3 0 d1 1\n", RUN, "exit 4 without -c; -c scores it 0 (§2, E6)"),
    ("negative labels", QRELS.replace("d2 0", "d2 -1"), RUN,
     "neither relevant nor judged non-relevant (E3)"),
]

SQLRANK = "import sys, sqlrank.cli; sys.exit(sqlrank.cli.main(sys.argv[1:]))"
PYTREC = textwrap.dedent("""
    import json, sys, pytrec_eval
    with open(sys.argv[1]) as q, open(sys.argv[2]) as r:
        qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    result = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "ndcg_cut_10", "map"}).evaluate(run)
    n = len(result)
    print(json.dumps({m: sum(v[m] for v in result.values()) / n if n else None for m in ("P_5", "ndcg_cut_10", "map")}))
""")
RANX = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    from ranx import Qrels, Run, evaluate
    qrels, run = Qrels.from_file(sys.argv[1], kind="trec"), Run.from_file(sys.argv[2], kind="trec")
    print(json.dumps(evaluate(qrels, run, ["precision@5", "ndcg@10", "map"])))
""")


def _run(code: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)
    if done.returncode < 0:
        return f"crashes (signal {-done.returncode})"
    if done.returncode != 0:
        last = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return f"exit {done.returncode}: `{_short(last[-1] if last else '')}`"
    try:
        values = json.loads(done.stdout.strip().splitlines()[-1])
        return "numbers: " + ", ".join("-" if v is None else f"{v:.4f}" for v in values.values())
    except (ValueError, IndexError, AttributeError):
        return f"exit 0: `{_short(done.stdout.strip())}`"


def _sqlrank(qrels: str, run: str) -> str:
    done = subprocess.run([sys.executable, "-c", SQLRANK, "eval", qrels, run, "-m", "P@5 nDCG@10 AP", "-f", "csv"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return f"error: `{_short(done.stderr.strip().splitlines()[-1].removeprefix('sqlrank: error: '))}`"
    values = [line.split(",")[1] for line in done.stdout.strip().splitlines()[1:]]
    warned = [line.removeprefix("sqlrank: warning: ") for line in done.stderr.splitlines() if "warning" in line]
    warned.sort(key=lambda w: "leading zeros" not in w)  # the most specific first
    text = "numbers: " + ", ".join(f"{float(v):.4f}" for v in values)
    more = f" (+{len(warned) - 1} more)" if len(warned) > 1 else ""
    return text + (f" + warning: `{_short(warned[0])}`{more}" if warned else "")


def _short(text: str, width: int = 110) -> str:
    text = text.replace("|", "/").replace("`", "'")
    text = text.replace(tempfile.gettempdir(), "").replace("//", "/")
    return text if len(text) <= width else text[:width - 3] + "..."


def main() -> int:
    folder = tempfile.mkdtemp(prefix="bad-")
    print("| bad input | sqlrank | trec_eval 10 (from SEMANTICS.md, not run here) | pytrec_eval-terrier 0.5.11 "
          "(its parse_qrel/parse_run) | ranx 0.3.21 (from_file) |")
    print("|---|---|---|---|---|")
    for name, qrels_text, run_text, trec_eval in CASES:
        qrels, run = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
        with open(qrels, "w") as handle:
            handle.write(qrels_text)
        with open(run, "w") as handle:
            handle.write(run_text)
        cells = [_sqlrank(qrels, run), trec_eval, _run(PYTREC, qrels, run), _run(RANX, qrels, run)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nValues are P@5, nDCG@10, AP (means); the same files for every tool.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
