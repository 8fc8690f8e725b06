"""The regression gate (sqlrank compare --fail-if): exit statuses and messages on passing, failing and
not-significant cases. Whether a rule should hold is decided here from the per-query values with pandas
and scipy.stats.ttest_rel, not from sqlrank's comparison table."""
from __future__ import annotations

import pytest

import sqlrank
from conftest import ROOT, peer
from sqlrank.cli.main import main

C = ROOT / "fixtures" / "compare"
RUNS = {name: str(C / f"{name}.run") for name in ("baseline", "rerank", "rerank_v2")}


def delta_and_p(measure: str, base: str, new: str) -> tuple[float, float, float]:
    """(delta, relative delta, two-sided paired t-test p) of run new against run base, from per-query values."""
    stats = peer("scipy.stats")
    values = {name: sqlrank.evaluate(C / "qrels.txt", RUNS[name], measure, per_query=True).set_index("query_id").value
              for name in (base, new)}
    delta = values[new].mean() - values[base].mean()
    return delta, delta / values[base].mean(), stats.ttest_rel(values[new], values[base]).pvalue


def gate(capsys, base: str, new: str, *rules: str) -> tuple[int, list[str]]:
    code = main(["compare", str(C / "qrels.txt"), RUNS[base], RUNS[new], "-m", "nDCG@10 AP",
                 *[arg for rule in rules for arg in ("--fail-if", rule)]])
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if line.startswith("sqlrank: fail: ")]


def test_a_better_run_passes_and_a_worse_one_fails(capsys):
    delta, _, p = delta_and_p("nDCG@10", "baseline", "rerank")
    assert delta > 0.01 and p < 0.05  # rerank is better: a drop rule passes
    assert gate(capsys, "baseline", "rerank", "nDCG@10 < -0.01", "AP significant-worse") == (0, [])
    code, lines = gate(capsys, "rerank", "baseline", "nDCG@10 < -0.01", "ndcg_cut.10 significant-worse")
    assert code == 1
    assert lines == [f"sqlrank: fail: nDCG@10 of baseline: delta {-delta:+.4f} < -0.01 (p = {p:.4g}) "
                     f"(rule: nDCG@10 < -0.01)",
                     f"sqlrank: fail: nDCG@10 of baseline: worse than the baseline by {-delta:+.4f}, p = {p:.4g} < 0.05 "
                     f"(rule: ndcg_cut.10 significant-worse)"]


def test_a_difference_that_is_not_significant_passes(capsys):
    delta, _, p = delta_and_p("AP", "rerank", "rerank_v2")
    assert delta < 0 and p > 0.05
    assert gate(capsys, "rerank", "rerank_v2", "AP significant-worse") == (0, [])
    code, lines = gate(capsys, "rerank", "rerank_v2", f"AP < {delta / 2:.6f}")  # the plain drop rule still holds
    assert code == 1 and lines[0].startswith(f"sqlrank: fail: AP of rerank_v2: delta {delta:+.4f} < ")


def test_relative_and_mean_rules(capsys):
    delta, relative, p = delta_and_p("nDCG@10", "baseline", "rerank")
    code, lines = gate(capsys, "baseline", "rerank", "nDCG@10 > 10%", "nDCG@10 > 50%", "AP mean < 0.01")
    assert code == 1 and lines == [f"sqlrank: fail: nDCG@10 of rerank: delta {relative:+.2%} > +10.00% (p = {p:.4g}) "
                                   f"(rule: nDCG@10 > 10%)"]
    frame = sqlrank.compare(C / "qrels.txt", [RUNS["baseline"], RUNS["rerank"]], "nDCG@10 AP",
                            fail_if=["AP mean >= 0.25"])
    assert frame.attrs["failures"] == [line.removeprefix("sqlrank: fail: ") for line in
                                       gate(capsys, "baseline", "rerank", "AP mean >= 0.25")[1]]
    assert len(frame.attrs["failures"]) == 1 and "AP of rerank: mean 0.29" in frame.attrs["failures"][0]


@pytest.mark.parametrize("rule, message", [
    ("nDCG@10 worse", "not a rule; write for example"),
    ("nDCG@10 mean < 2%", "a percentage is relative to the baseline's mean"),
    ("P@5 < 0", "P@5 is not compared; add it to -m"),
    ("nDCG@100x < 0", "cannot parse measure"),
])
def test_a_wrong_rule_stops_before_anything_is_evaluated(capsys, rule, message):
    code = main(["compare", str(C / "qrels.txt"), RUNS["baseline"], RUNS["rerank"], "-m", "nDCG@10 AP",
                 "--fail-if", rule])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and message in err, err
