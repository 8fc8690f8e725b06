"""Where one sqlrank command spends its time: each step it names (reading an input into its copy, checking
it, evaluating, slice by slice) with its wall and CPU seconds, timed inside one process, and the rest
(starting Python, importing, planning, printing) as one line.

    python bench/steps.py trec_eval --threads 1 -m all_trec bench/data/10M-trec.qrels.txt bench/data/10M-trec.run.txt

The arguments are sqlrank's command line; its output is thrown away. CPU seconds are the whole process's
(DuckDB's threads included) while the step ran. The figures in bench/NOTES.md that split a command into
reading, checking and evaluating come from this.
"""
from __future__ import annotations

import contextlib
import io
import re
import resource
import sys
import time

STARTED = time.monotonic()


def run(argv: list[str]) -> tuple[list[tuple[str, float, float]], float, float]:
    """sqlrank's command line, run here: (each step's label, wall and CPU seconds), then the whole
    process's wall and CPU seconds so far."""
    from sqlrank.cli.main import main
    from sqlrank.progress import recording

    steps: list[tuple[str, float, float]] = []
    with recording(lambda label, wall, cpu: steps.append((label, wall, cpu))), \
            contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    if status:
        sys.exit(f"sqlrank {' '.join(argv)} exited with {status}")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return steps, time.monotonic() - STARTED, usage.ru_utime + usage.ru_stime


def grouped(steps: list[tuple[str, float, float]]) -> dict[str, list[float]]:
    """The steps by label, the slices of one evaluation added up: {label: [wall, cpu]}."""
    groups: dict[str, list[float]] = {}
    for label, wall, cpu in steps:
        key = re.sub(r" \(slice [0-9]+ of ([0-9]+)\)", r" (\1 slices)", label)
        found = groups.setdefault(key, [0.0, 0.0])
        found[0] += wall
        found[1] += cpu
    return groups


def main() -> None:
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        sys.exit(__doc__)
    steps, wall, cpu = run(argv)
    groups = grouped(steps)
    print(f"{'step':<90} {'wall s':>7} {'CPU s':>7}")
    for label, (step_wall, step_cpu) in groups.items():
        print(f"{label[:90]:<90} {step_wall:7.2f} {step_cpu:7.2f}")
    print(f"{'the rest: start, imports, planning, output':<90} {wall - sum(g[0] for g in groups.values()):7.2f} "
          f"{cpu - sum(g[1] for g in groups.values()):7.2f}")
    print(f"{'whole process (from the bench script on)':<90} {wall:7.2f} {cpu:7.2f}")


if __name__ == "__main__":
    main()
