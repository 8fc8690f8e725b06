"""What each tool does with bad input: sqlrank, the real trec_eval 10, pytrec_eval-terrier and ranx,
measured here on the same small TREC files (one case per row), each tool in a child process so
that a crash is seen as a crash. trec_eval is the binary SQLRANK_TREC_EVAL names, or built from
the source tarball SQLRANK_TREC_EVAL_SOURCE names (as the oracle tests do); without either its
column says so.

    SQLRANK_TREC_EVAL_SOURCE=trec_eval-10.0.tar.gz python bench/bad_inputs.py   # the table of docs/bad-input.md
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\n"
RUN = "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0 t\nq2 Q0 d4 1 2.0 t\nq2 Q0 d1 2 1.0 t\n"

# (case, qrels text, run text): bytes where the case needs bytes that are not UTF-8
CASES = [
    ("duplicate document in the run", QRELS, RUN + "q1 Q0 d1 4 0.5 t\n"),
    ("the same document judged twice, with different labels", QRELS + "q1 0 d1 0\n", RUN),
    ("query id `01` in the run, `1` in the qrels", QRELS.replace("q1", "1"), RUN.replace("q1", "01")),
    ("score `nan`", QRELS, RUN.replace("2.0 t", "nan t", 1)),
    ("label `R` (not a number)", QRELS.replace("d3 2", "d3 R"), RUN),
    ("run line with 5 fields", QRELS, RUN + "q2 Q0 d9 3 0.5\n"),
    ("empty run file", QRELS, ""),
    ("judged query missing from the run", QRELS + "q3 0 d1 1\n", RUN),
    ("negative labels", QRELS.replace("d2 0", "d2 -1"), RUN),
    ("a query whose judgments are all negative", QRELS.replace("q2 0 d1 1", "q2 0 d1 -1").replace("d4 0", "d4 -2"), RUN),
    ("score `1e308` next to `1e39`", QRELS, RUN.replace("3.0 t", "1e308 t", 1).replace("2.0 t", "1e39 t", 1)),
    ("a Latin-1 byte in a document id", QRELS, RUN.encode() + b"q2 Q0 d\xe9 3 0.5 t\n"),
    ("a lone carriage return inside a run line", QRELS, RUN + "q2 Q0 d9 3\r0.5 t\n"),
    ("label `1.7` (not an integer)", QRELS.replace("d3 2", "d3 1.7"), RUN),
    ("a byte order mark and a lone carriage return", QRELS, b"\xef\xbb\xbf" + RUN.replace("\n", "\r", 1).encode()),
    ("score `1_0` (a digit separator)", QRELS, RUN.replace("3.0 t", "1_0 t", 1)),
    ("a NUL byte in a run line", QRELS, RUN.encode() + b"q2 Q0 d\x009 3 0.5 t\n"),
    ("a zero-width space in a judged document id", QRELS.replace("q1 0 d3", "q1 0 d\u200b3"), RUN),
    ("`café` judged (NFC), the same word with a combining accent (NFD) retrieved",
     QRELS.replace("q1 0 d3", "q1 0 caf\u00e9"), RUN.replace("q1 Q0 d3", "q1 Q0 cafe\u0301")),
    ("a stray double quote in a run line", QRELS, RUN.replace("q1 Q0 d2", 'q1 Q0 "d2', 1)),
    ("label `9999999999`", QRELS.replace("d3 2", "d3 9999999999"), RUN),
]

SQLRANK = "import sys, sqlrank.cli.main as cli; sys.exit(cli.main(sys.argv[1:]))"
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
    warned.sort(key=lambda w: "leading zeros" not in w)  # the most specific first (ids that differ unseen)
    text = "numbers: " + ", ".join(f"{float(v):.4f}" for v in values)
    more = f" (+{len(warned) - 1} more)" if len(warned) > 1 else ""
    return text + (f" + warning: `{_short(warned[0])}`{more}" if warned else "")


def _trec_eval(binary, qrels: str, run: str) -> str:
    if binary is None:
        return "not run (no trec_eval configured)"
    done = subprocess.run([str(binary), "-m", "P.5", "-m", "ndcg_cut.10", "-m", "map", qrels, run],
                          capture_output=True, timeout=300)
    if done.returncode < 0:
        return f"crashes (signal {-done.returncode})"
    err = [line for line in done.stderr.decode(errors="replace").strip().splitlines() if line.strip()]
    if done.returncode != 0:
        return f"exit {done.returncode}: `{_short(err[-1] if err else '')}`"
    values = {line.split()[0]: line.split()[2] for line in done.stdout.decode(errors="replace").splitlines()}
    return "numbers: " + ", ".join(values.get(m, "-") for m in ("P_5", "ndcg_cut_10", "map"))


def _short(text: str, width: int = 110) -> str:
    text = text.replace("|", "/").replace("`", "'")
    text = text.replace(tempfile.gettempdir(), "").replace("//", "/")
    return text if len(text) <= width else text[:width - 3] + "..."


def main() -> int:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    from support.oracle import find_trec_eval  # builds trec_eval 10 from its source, as the oracle tests do

    folder = tempfile.mkdtemp(prefix="bad-")
    binary, why = find_trec_eval(Path(tempfile.mkdtemp(prefix="trec_eval-")))
    if binary is None:
        print(f"(trec_eval not run: {why})", file=sys.stderr)
    print("| bad input | sqlrank | trec_eval 10.0 (built from its source) | pytrec_eval-terrier 0.5.11 "
          "(its parse_qrel/parse_run) | ranx 0.3.21 (from_file) |")
    print("|---|---|---|---|---|")
    for name, qrels_text, run_text in CASES:
        qrels, run = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
        for path, text in ((qrels, qrels_text), (run, run_text)):
            with open(path, "wb") as handle:
                handle.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        cells = [_sqlrank(qrels, run), _trec_eval(binary, qrels, run), _run(PYTREC, qrels, run), _run(RANX, qrels, run)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nValues are P@5, nDCG@10, AP (means); the same files for every tool.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
