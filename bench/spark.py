"""Spark beside DuckDB: the same evaluation of the same Parquet files, to know when to move.

    python bench/spark.py [--rows 100000000] [--repeat 1] [--docs 1000]

Generates the Parquet files if missing (bench/generate.py --parquet-only: 1e8 rows are 100,000 queries x
1,000 documents, about 0.5 GB), then runs `sqlrank eval QRELS RUN -m MEASURES -f csv` as a whole process on
DuckDB and with `--engine spark` (a local session, `local[*]`, started by the command, its heap a quarter of
the machine's memory up to 8 GB), in turn, `repeat` times each. Each run's wall seconds, CPU seconds and peak
memory are those of its whole process tree, the Java process included: the tree is read from /proc every
0.1 s (Java is not a child Python waits for, so the operating system's accounting of the waited-for children
would miss it); a process's CPU seconds are its last reading, so at most 0.1 s of each process's end is not
counted (the figure is the larger of that sum and the operating system's own accounting of the waited-for
process and what it reaped), and peak memory is the largest sum of the tree's resident sets seen. Both must print the same values
(to 1e-9). Prints a Markdown table: medians and the ratio Spark / DuckDB.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

MEASURES = "nDCG@10 AP P@10 R@1000 RR"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree(root: int) -> dict[int, tuple[float, int]]:
    """{pid: (cpu seconds, resident bytes)} of root and its descendants, from /proc."""
    parents, usage = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        usage[int(entry)] = ((int(fields[11]) + int(fields[12])) / TICK, int(fields[21]) * PAGE)
    tree, changed = {root}, True
    while changed:
        grown = tree | {pid for pid, parent in parents.items() if parent in tree}
        changed, tree = grown != tree, grown
    return {pid: usage[pid] for pid in tree if pid in usage}


def timed(command: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds and peak resident bytes of the command's process tree, and what it printed."""
    with tempfile.TemporaryFile("w+") as out:
        before = os.times()  # what this process's reaped children had used before
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, text=True)
        cpu: dict[int, float] = {}
        peak = 0
        while process.poll() is None:
            seen = _tree(process.pid)
            for pid, (seconds, _) in seen.items():
                cpu[pid] = max(cpu.get(pid, 0.0), seconds)
            peak = max(peak, sum(rss for _, rss in seen.values()))
            time.sleep(0.1)
        wall = time.monotonic() - start
        if process.returncode:
            raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read()[-2000:]}")
        after = os.times()  # the waited-for Python process and what it reaped, exactly
        reaped = after.children_user + after.children_system - before.children_user - before.children_system
        out.seek(0)
        return wall, max(sum(cpu.values()), reaped), peak, out.read()


def values(csv_text: str) -> dict[str, float]:
    return {line.split(",")[0]: float(line.split(",")[1]) for line in csv_text.splitlines()[1:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    paths = generate(args.rows, args.docs, args.seed, str(HERE / "data"), text=False)
    commands = {"DuckDB": [], "Spark (local[*])": ["--engine", "spark"]}
    figures: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    printed = {}
    for _ in range(args.repeat):
        for name, extra in commands.items():
            wall, cpu, peak, out = timed([sys.executable, "-m", "sqlrank", "eval", paths["qrels.parquet"],
                                          paths["run.parquet"], "-m", MEASURES, "-f", "csv", *extra])
            figures[name].append((wall, cpu, peak))
            printed[name] = values(out)
            print(f"{name}: {wall:.1f} s, {cpu:.1f} CPU-s, {peak / 1e6:,.0f} MB", file=sys.stderr)
    duck, spark = printed.values()
    assert duck.keys() == spark.keys() and all(abs(duck[k] - spark[k]) <= 1e-9 for k in duck), (duck, spark)
    median = {name: [statistics.median(run[i] for run in runs) for i in range(3)] for name, runs in figures.items()}
    base = median["DuckDB"]
    print(f"`python bench/spark.py --rows {args.rows} --repeat {args.repeat}` ({time.strftime('%Y-%m-%d')}, "
          f"{platform.machine()}, {os.cpu_count()} cores): `sqlrank eval` of {args.rows:,} run rows "
          f"({args.rows // args.docs:,} queries) from Parquet, -m \"{MEASURES}\", whole process, median of {args.repeat}\n")
    print("| engine | wall | CPU seconds | peak memory | wall ratio | CPU ratio |")
    print("|---|---|---|---|---|---|")
    for name, (wall, cpu, peak) in median.items():
        print(f"| {name} | {wall:.1f} s | {cpu:.1f} | {peak / 1e6:,.0f} MB | {wall / base[0]:.2f}x | {cpu / base[1]:.2f}x |")
    print(f"\nvalues equal to 1e-9: {', '.join(f'{k} {v:.4f}' for k, v in duck.items())}")


if __name__ == "__main__":
    main()
