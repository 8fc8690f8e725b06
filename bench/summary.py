"""The README's performance table from one command: sqlrank beside trec_eval 10.0 built with -O2,
and beside the floor of bench/floor.py, as whole processes on the same files in one run.

    python bench/summary.py [--rows 10000000] [--repeat 3] [--large 1000000000]

Rows (time: median of --repeat whole processes; CPU: user + system seconds; memory: the largest resident
set, both from wait4):
  -m all_trec       `sqlrank trec_eval -m all_trec` and trec_eval's, TREC text, in turn: time, CPU and memory
                    ratios, and whether the outputs are byte-identical;
  5 measures        the same for bench/run.py's five measures (ndcg_cut.10 map P.10 recall.1000
                    recip_rank);
  Parquet           `sqlrank eval` from Parquet with those measures, against the floor from
                    Parquet (bench/floor.py: one process that starts Python and DuckDB, ranks every
                    row, checks duplicates), the two interleaved: sqlrank, the floor, sqlrank, ...
  --large N         bench/large.py at N rows from Parquet with --memory-limit 4GB (20 slices): time,
                    peak memory, and how many per-query values of 50 random queries equal
                    pytrec_eval's (1e-9) and the real trec_eval's printed ones. At 1e9 rows it takes
                    about 15 minutes and 10 GB of disk beside the generation.

The real trec_eval comes from bench/trec_eval_binary.py (SQLRANK_TREC_EVAL or
SQLRANK_TREC_EVAL_SOURCE); without it the table has only the Parquet (and --large) rows. Prints a
Markdown table, as the README shows it.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from floor import floor_process, medians, parquet_steps  # noqa: E402
from run import command, compile_sqlrank, data_files, measure, summarize  # noqa: E402
from trec_eval_binary import trec_eval_binary  # noqa: E402
from trec_eval_speed import COMMANDS, differing, interleaved  # noqa: E402


def trec_eval_rows(binary: Path, paths: dict, repeat: int) -> list[list[str]]:
    """-m all_trec and the five measures: sqlrank trec_eval beside trec_eval, TREC text, interleaved."""
    rows = []
    for name in ("-m all_trec", "5 measures"):
        files = [paths["qrels.txt"], paths["run.txt"]]
        found = interleaved({"sqlrank": [sys.executable, "-m", "sqlrank", "trec_eval", *COMMANDS[name], *files],
                             "trec_eval": [str(binary), *COMMANDS[name], *files]}, repeat)
        ours, theirs = found["sqlrank"], found["trec_eval"]
        same = "byte-identical" if ours[3] == theirs[3] else "differs in " + differing(ours[3], theirs[3])
        rows.append([f"`sqlrank trec_eval {name}`, TREC text", f"{ours[0]:.2f} s, {ours[1]:.2f} CPU-s, {ours[2]:,.0f} MB",
                     f"trec_eval -O2: {theirs[0]:.2f} s, {theirs[1]:.2f} CPU-s, {theirs[2]:,.0f} MB",
                     f"{ours[0] / theirs[0]:.2f}x time, {ours[1] / theirs[1]:.2f}x CPU, {ours[2] / theirs[2]:.2f}x "
                     f"memory; output {same}"])
    return rows


def parquet_row(paths: dict, repeat: int) -> list[str]:
    """sqlrank eval from Parquet (the five measures) against the floor from Parquet, interleaved: each
    repeat runs sqlrank, then the floor's process once (the machine's speed drifts by 10% and more
    within minutes; medians of interleaved runs keep the ratio honest)."""
    runs, floors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            runs.append(measure(command("sqlrank-parquet", paths, Path(tmp))))
            floors.append(floor_process(parquet_steps(paths)))
    seconds, peak, _ = summarize(runs)
    floor, rank, unique = medians(floors)
    return ["`sqlrank eval` from Parquet, the same 5", f"{seconds:.2f} s, {peak:,.0f} MB",
            f"floor: {floor:.2f} s (one process: rank and label {rank:.2f}, duplicate check {unique:.2f}, start and exit "
            f"{floor - rank - unique:.2f})", f"{seconds / floor:.2f}x the floor"]


def large_row(rows: int, data: str) -> list[str]:
    """bench/large.py at `rows` under a 4 GB memory limit, read back from its report."""
    out = subprocess.run([sys.executable, str(HERE / "large.py"), "--rows", str(rows), "--memory-limit", "4GB",
                          "--slices", "20", "--data", data], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bench/large.py failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    report = out.stdout
    seconds, peak = re.search(r"([0-9.]+) s, peak memory ([0-9,]+) MB", report).groups()
    sample = re.search(r"(\d+) per-query values of (\d+) random queries against pytrec_eval: max difference (\S+)",
                       report).groups()
    trec = re.search(r"(\d+) per-query values of the same queries from the real trec_eval \(-O2\): (\d+)", report)
    agreement = f"{sample[0]} values of {sample[1]} random queries equal pytrec_eval's (max difference {sample[2]})"
    if trec:
        agreement += f"; {trec.group(2)} of {trec.group(1)} print as trec_eval's"
    return [f"`sqlrank eval`, {rows:,} rows of Parquet, `--memory-limit 4GB --slices 20`",
            f"{float(seconds):.0f} s, {peak} MB", "", agreement]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", type=int, help="also bench/large.py at this many rows (1000000000: ~15 min)")
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--profile", choices=("uniform", "trec"), default="uniform",
                        help="bench/generate.py's profile of the data (default: uniform)")
    args = parser.parse_args()
    tag, paths = data_files(args.rows, args.data, args.profile)
    compile_sqlrank()
    binary, how = trec_eval_binary(Path(args.data))
    rows = trec_eval_rows(binary, paths, args.repeat) if binary else []
    rows.append(parquet_row(paths, args.repeat))
    if args.large:
        rows.append(large_row(args.large, args.data))
    with open(paths["qrels.txt"]) as qrels:
        judgments = sum(1 for _ in qrels)
    print(f"{args.rows:,} run lines ({tag}, {args.rows // 1000:,} queries x 1,000), {judgments:,} qrels lines; "
          f"{platform.machine()}, {os.cpu_count()} cores, {date.today()}; median of {args.repeat}, whole process; "
          f"trec_eval: {how}\n")
    print("| run | sqlrank | beside it | ratio |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
