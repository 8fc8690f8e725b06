"""sqlrank meta: the runs' rankings under two sets of judgments, Kendall's tau-b (scipy), tau_AP (the paper's
formula written out here), the pairs ordered differently, and Sakai's discriminative power (the share of pairs
of runs scipy's paired test finds different), on the judging fixtures' six runs (human judgments of one run's
top 10, an LLM's of two runs' top 20)."""
from __future__ import annotations

import itertools

import pytest

import sqlrank
from conftest import ROOT, close, peer
from sqlrank.cli.main import main

J = ROOT / "fixtures" / "judging"
NAMES = ["bm25", "dense", "splade", "colbert", "bm25_rm3", "random"]
RUNS = [str(J / f"{name}.run") for name in NAMES]
QRELS = {"human": J / "human.txt", "llm": J / "llm.csv"}


def values(qrels, measure: str):
    """run -> per-query values (queries every run has), and run -> mean, from one evaluation per run."""
    frames = {name: sqlrank.evaluate(qrels, run, measure, per_query=True).set_index("query_id").value
              for name, run in zip(NAMES, RUNS)}
    return frames, {name: frame.mean() for name, frame in frames.items()}


def tau_ap_by_definition(reference: dict[str, float], other: dict[str, float]) -> float:
    """Yilmaz, Aslam and Robertson (2008), eq. 3: items in the order of `other`; C(i): the items above the i-th
    there that `reference` also ranks above it; tau_AP = 2 / (n - 1) * sum_i C(i) / (i - 1) - 1."""
    order = sorted(other, key=lambda r: -other[r])
    n = len(order)
    total = 0.0
    for i in range(1, n):
        above = order[:i]
        total += sum(reference[x] > reference[order[i]] for x in above) / i
    return 2 / (n - 1) * total - 1


@pytest.mark.parametrize("measure", ["nDCG@10", "P@10", "AP"])
def test_rankings_taus_and_discriminative_power(measure):
    stats = peer("scipy.stats")
    frame = sqlrank.meta(QRELS["human"], QRELS["llm"], RUNS, measure, test="t")
    row = frame.iloc[0]
    (per_a, a), (per_b, b) = values(QRELS["human"], measure), values(QRELS["llm"], measure)
    assert close(row.tau_b, stats.kendalltau([a[n] for n in NAMES], [b[n] for n in NAMES]).statistic, 1e-12)
    assert close(row.tau_ap, tau_ap_by_definition(a, b), 1e-12)
    pairs = list(itertools.combinations(NAMES, 2))
    assert row.swapped == sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in pairs) and row.pairs == len(pairs)
    for per, power in ((per_a, row.power_a), (per_b, row.power_b)):
        p_values = [stats.ttest_rel(per[i], per[j]).pvalue for i, j in pairs]
        assert close(power, sum(p < 0.05 for p in p_values) / len(pairs), 1e-12)
    ranks = frame.attrs["rankings"]
    assert list(ranks.run) == sorted(NAMES, key=lambda n: -a[n])
    assert list(ranks.sort_values("rank_b").run) == sorted(NAMES, key=lambda n: -b[n])
    assert len(frame.attrs["asl"]) == 2 * len(pairs)


def test_the_randomisation_test_is_scipy_s(monkeypatch):
    """The default test: scipy's paired permutation test with the seed given, pair by pair."""
    frame = sqlrank.meta(QRELS["human"], QRELS["llm"], RUNS, "AP", trials=500, seed=4)
    asl = frame.attrs["asl"]
    stats = peer("scipy.stats")
    import numpy as np
    per, _ = values(QRELS["llm"], "AP")
    row = asl[(asl.judgments == "b") & (asl.run == "bm25") & (asl.other == "dense")].iloc[0]
    x, y = per["bm25"].to_numpy(), per["dense"].to_numpy()
    expected = stats.permutation_test((x, y), lambda u, v, axis=-1: np.mean(u - v, axis=axis), permutation_type="samples",
                                      n_resamples=500, vectorized=True, random_state=np.random.default_rng(4)).pvalue
    assert close(row.p_value, expected, 1e-12)


def test_the_command_line(capsys):
    assert main(["meta", str(QRELS["human"]), str(QRELS["llm"]), *RUNS, "-m", "nDCG@10", "--test", "t"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "measure  runs   tau_b  tau_ap  swapped  power (human)  power (llm)"
    row = sqlrank.meta(QRELS["human"], QRELS["llm"], RUNS, "nDCG@10", test="t").iloc[0]
    assert out[2].split() == ["nDCG@10", "6", f"{row.tau_b:.4f}", f"{row.tau_ap:.4f}", f"{row.swapped}/15",
                              f"{row.power_a:.4f}", f"{row.power_b:.4f}"]
    assert main(["meta", str(QRELS["human"]), str(QRELS["llm"]), *RUNS[:2], "-m", "AP"]) == 1
    assert "at least three runs" in capsys.readouterr().err


IMPORTED = """
import sys
from sqlrank.cli.main import main
status = main(sys.argv[1:])
print(sorted(name for name in ("pandas", "scipy.stats", "pyarrow") if name in sys.modules), status)
"""


@pytest.mark.parametrize("flags", [[], ["--rankings"], ["--test", "t"]])
def test_the_command_line_imports_neither_pandas_nor_scipy_stats(tmp_path, flags):
    """The randomisation test and the t test are sqlrank's own (SciPy's to the float, above and in
    tests/statistics/test_permutation.py), so the command starts in a blink: scipy.stats takes a second to import,
    pandas a third of one."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", IMPORTED, "meta", str(QRELS["human"]), str(QRELS["llm"]), *RUNS,
                           "-m", "nDCG@10 AP", *flags], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == "[] 0"
    assert done.stdout.splitlines()[2].split()[0] == "nDCG@10"
