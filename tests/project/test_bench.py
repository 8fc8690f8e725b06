"""The benchmark commands the docs quote run, on small data: bench/run.py's tools print the
same means, and bench/floor.py's floors are processes made of their steps."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import peer

ROOT = Path(__file__).resolve().parents[2]


def bench(script: str, data: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--rows", "100000", "--repeat", "1",
                           "--data", str(data), *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def bench_module(name: str):
    """A script of bench/ imported as a module (bench/ is no package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_command_reports_its_own_peak_memory_not_the_bench_s():
    # a command started by a process holding 400 MB would report 400 MB from wait4 (Linux keeps the
    # mark across exec); the benches start commands from their small launcher
    code = ("import os, subprocess, sys\nsys.path.insert(0, sys.argv[1])\nimport process\n"
            "held = bytearray(400 << 20)\nfor at in range(0, len(held), 4096): held[at] = 1\n"
            "child = [sys.executable, '-c', 'x = bytearray(80 << 20)\\nfor at in range(0, len(x), 4096): x[at] = 1']\n"
            "proc = subprocess.Popen(child)\n_, _, usage = os.wait4(proc.pid, 0)\n"
            "done = process.run_checked(child)\nprint(usage.ru_maxrss >> 10, round(done.peak_mb), round(done.cpu, 2))\n")
    direct, launched, cpu = subprocess.run([sys.executable, "-c", code, str(ROOT / "bench")], capture_output=True,
                                           text=True, check=True).stdout.split()
    assert int(direct) >= 400 and 80 <= int(launched) < 200 and float(cpu) > 0


def test_benchmark_tools_print_the_same_means(tmp_path):
    peer("pytrec_eval")
    out = bench("run.py", tmp_path, "--tools", "sqlrank-parquet,sqlrank-trec,pytrec_eval")
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert set(rows) == {"sqlrank-parquet", "sqlrank-trec", "pytrec_eval"}, out
    assert rows["sqlrank-parquet"].endswith("yes") and rows["sqlrank-trec"].endswith("yes"), out


def test_the_trec_profile_s_text_is_written_as_a_system_writes_its_run(tmp_path):
    """Each query's lines together, in query order and in the run's rank order (1, 2, ...); some tied
    documents listed otherwise than trec_eval orders them (document id descending); the same rows as the
    Parquet file; the qrels in query and document order."""
    import duckdb

    paths = bench_module("generate").generate(20000, 1000, 1, str(tmp_path), profile="trec")
    lines = [line.split(" ") for line in Path(paths["run.txt"]).read_text().splitlines()]
    queries = [int(fields[0]) for fields in lines]
    assert queries == sorted(queries) and len(set(queries)) == 20
    for query in set(queries):
        mine = [fields for fields in lines if int(fields[0]) == query]
        assert [int(fields[3]) for fields in mine] == list(range(1, len(mine) + 1))
        assert all(float(a[4]) >= float(b[4]) for a, b in zip(mine, mine[1:]))
    tied = [(a[2], b[2]) for a, b in zip(lines, lines[1:]) if a[0] == b[0] and float(a[4]) == float(b[4])]
    assert tied and any(a < b for a, b in tied) and any(a > b for a, b in tied)
    parquet = duckdb.execute("SELECT query_id, doc_id, score FROM read_parquet(?)", [paths["run.parquet"]]).fetchall()
    assert sorted((q, d, float(s)) for q, _, d, _, s, _ in lines) == sorted(parquet)
    judged = [(int(q), d) for q, _, d, _ in (line.split(" ") for line in Path(paths["qrels.txt"]).read_text().splitlines())]
    assert judged == sorted(judged)


@pytest.mark.parametrize("profile", ["uniform", "trec"])
def test_floor_is_one_process_of_its_steps(tmp_path, profile):
    peer("pytrec_eval")
    out = bench("floor.py", tmp_path, "--profile", profile)
    seconds = {m[1].strip(): float(m[2]) for m in re.finditer(r"^(.{44}) +(-?\d+\.\d\d)", out, re.M)}
    steps = {"Parquet": ["rank and label every run row (Parquet)", "duplicate check, from Parquet"],
             "TREC text": ["read the TREC text into tables", "rank and label every run row (tables)",
                           "duplicate check, from that table"]}
    for fmt, names in steps.items():
        rest = seconds[f"rest of the process: start, exit ({fmt})"]
        assert all(seconds[name] >= 0 for name in names) and rest > 0, out  # a process takes time to start
        # each printed figure is rounded to 0.01 s: they differ by at most half a hundredth per number
        slack = 0.005 * (len(names) + 2) + 1e-9
        assert abs(seconds[f"floor from {fmt} (one process)"] - rest - sum(seconds[n] for n in names)) <= slack, out
    assert re.search(r"at most \d+\.\d\dx; 6\.0x needs", out), out


def test_recommender_bench_agrees_with_microsoft_recommenders(tmp_path):
    """bench/recommenders.py at a small scale: the run completes under its memory limit, and where
    Microsoft Recommenders is at hand its means on the sample equal sqlrank's."""
    import os

    cmd = [sys.executable, str(ROOT / "bench" / "recommenders.py"), "--users", "3000", "--sample-users", "1000",
           "--memory-limit", "1GB", "--data", str(tmp_path)]
    python = os.environ.get("SQLRANK_RECOMMENDERS_PYTHON")
    if python:
        cmd += ["--recommenders-python", python]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "60,000 prediction rows, 3,000 users" in out.stdout
    assert "Coverage@10" in out.stdout and "AvgPop@10" in out.stdout
    if python:
        worst = float(out.stdout.rsplit("largest difference of the means: ", 1)[1].split()[0])
        assert worst < 1e-9


def test_trec_eval_beside_sqlrank(tmp_path):
    """bench/run.py and bench/trec_eval_speed.py run the real trec_eval (built with -O2) beside
    sqlrank: the means agree, and trec_eval's own command lines print the same bytes."""
    import os

    if not (os.environ.get("SQLRANK_TREC_EVAL_SOURCE") or os.environ.get("SQLRANK_TREC_EVAL")):
        if os.environ.get("SQLRANK_REQUIRE_ORACLE"):
            pytest.fail("SQLRANK_TREC_EVAL_SOURCE or SQLRANK_TREC_EVAL is required here (SQLRANK_REQUIRE_ORACLE)")
        pytest.skip("the real trec_eval is not configured (SQLRANK_TREC_EVAL_SOURCE or SQLRANK_TREC_EVAL)")
    out = bench("run.py", tmp_path, "--tools", "trec_eval,sqlrank-trec,pytrec_eval")
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert rows["trec_eval"].endswith("yes") and rows["sqlrank-trec"].endswith("yes")
    speed = subprocess.run([sys.executable, str(ROOT / "bench" / "trec_eval_speed.py"), "--copies", "2", "--repeat", "1",
                            "--data", str(tmp_path)], capture_output=True, text=True)
    assert speed.returncode == 0, speed.stderr
    lines = [line for line in speed.stdout.splitlines() if "sqlrank trec_eval" in line]
    assert len(lines) == 5  # default measures, -m all_trec, the five, -m all_trec on one thread, -q -m all_trec
    for line in lines:  # identical, or differing only on rbp (trec_eval -O2 reads uninitialised memory there)
        assert line.endswith("identical") or line.endswith("differs: rbp"), line


def test_summary_prints_the_readme_table(tmp_path):
    """bench/summary.py, the README's table: a row for -m all_trec and the five measures beside the real
    trec_eval (where it is configured), the Parquet row against the floor, and bench/large.py's row."""
    import os

    peer("pytrec_eval")
    out = bench("summary.py", tmp_path, "--large", "200000")
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| run ")]
    parquet = next(row for row in rows if row.startswith("| `sqlrank eval` from Parquet"))
    seconds, floor, ratio = map(float, re.search(
        r"\| ([0-9.]+) s, [0-9,]+ MB \| floor: ([0-9.]+) s .*\| ([0-9.]+)x the floor", parquet).groups())
    # the ratio of the unrounded times: within what the printed times, each rounded to 0.01 s, allow
    assert (seconds - 0.005) / (floor + 0.005) - 0.005 <= ratio <= (seconds + 0.005) / (floor - 0.005) + 0.005, parquet
    large = next(row for row in rows if row.startswith("| `sqlrank eval`, 200,000 rows"))
    assert re.search(r"\| (\d+) values of 50 random queries equal pytrec_eval's", large), large
    if os.environ.get("SQLRANK_TREC_EVAL_SOURCE") or os.environ.get("SQLRANK_TREC_EVAL"):
        assert len(rows) == 4, out
        assert "output byte-identical" in rows[1] and "print as trec_eval's" in large, out
        assert "output byte-identical" in rows[0] or "output differs in rbp" in rows[0], out
    else:
        assert len(rows) == 2, out


def test_steps_account_for_the_whole_process():
    """bench/steps.py splits one command into the steps sqlrank names and the rest, which add up to the
    whole process; a slice's steps are added up under one line."""
    demo = ROOT / "fixtures" / "demo"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "steps.py"), "trec_eval", "--slices", "3", "-m", "map",
                           str(demo / "qrels.test"), str(demo / "results.test")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {line[:90].strip(): [float(x) for x in line[90:].split()] for line in proc.stdout.splitlines()[1:]}
    labels = list(rows)
    assert labels[0].startswith("looking for irregular white space in") and labels[0].endswith("qrels.test")
    assert any(label.startswith("reading") and label.endswith("results.test") for label in labels)
    assert any(label.startswith("checking") for label in labels)
    assert "evaluating 1,500 run rows (3 slices)" in labels
    assert labels[-2:] == ["the rest: start, imports, planning, output", "whole process (from the bench script on)"]
    for column in (0, 1):  # wall, CPU: the lines add up to the whole (each printed to 0.01)
        parts = sum(values[column] for label, values in rows.items() if not label.startswith("whole"))
        assert abs(parts - rows[labels[-1]][column]) <= 0.01 * len(rows)
    bad = subprocess.run([sys.executable, str(ROOT / "bench" / "steps.py"), "eval", "missing.txt", "run.txt", "-m",
                          "map"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "exited with 1" in bad.stderr


def test_repeat_counts_values_that_differ_in_any_bit():
    """bench/repeat.py evaluates the same files again and compares every value's bits with the first time's."""
    repeat = bench_module("repeat")
    first = {("q1", "AP"): repeat.bits(0.1 + 0.2), ("q2", "AP"): repeat.bits(float("nan")),
             ("(mean)", "AP"): repeat.bits(0.0)}
    again = {("q1", "AP"): repeat.bits(0.3), ("q2", "AP"): repeat.bits(None), ("(mean)", "AP"): repeat.bits(-0.0)}
    assert repeat.differing([first, dict(first)]) == {}
    assert repeat.differing([first, dict(first), again]) == {"AP": {"q1", "(mean)"}}  # 0.30000000000000004, -0.0
    demo = ROOT / "fixtures" / "demo"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "repeat.py"), str(demo / "qrels.test"),
                           str(demo / "results.test"), "-m", "map", "-m", "ndcg_cut.10", "--times", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[:3] for line in lines[1:]] == [["map", "4", "0"], ["ndcg_cut.10", "4", "0"], ["all", "8", "0"]]


def test_the_macros_bench_times_four_ways_that_agree():
    """bench/macros.py on the demo and on 20,000 generated rows: the evaluate macro, the family macros, the printed
    statement and the statement written by hand (an independent nDCG@10, AP and P@10: row_number ranks, the labels
    joined) give the same means to 1e-9 before they are timed, and each gets its row."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "macros.py"), "--rows", "20000", "--repeat", "1"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1,500 run rows, 3 queries" in proc.stdout and "20,000 run rows, 200 queries" in proc.stdout
    for way in ("evaluate macro", "family macros", "sqlrank sql", "hand"):
        assert len(re.findall(rf"^{way} +\d", proc.stdout, re.M)) == 2, proc.stdout
