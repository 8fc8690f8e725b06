"""sqlrank eval --ci: the confidence interval of every mean equals scipy.stats.bootstrap on the same
per-query values (same method, resamples and seed) and scipy's Student's t interval; the std equals
numpy's; measures that are no plain mean over queries get no interval."""
from __future__ import annotations

import math

import numpy as np
import pytest

import sqlrank
from conftest import ROOT, close, peer
from sqlrank.cli.main import main

C = ROOT / "fixtures" / "compare"


@pytest.mark.parametrize("method", ["t", "percentile", "basic", "bca"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_intervals_equal_scipy(method, level):
    stats = peer("scipy.stats")
    measures = "nDCG@10 AP RR"
    frame = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", measures, ci=level, ci_method=method, trials=3000,
                             seed=7)
    per_query = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", measures, per_query=True)
    for row in frame.itertuples(index=False):
        values = per_query[per_query.measure == row.measure].value.to_numpy()
        if method == "t":
            low, high = stats.t.interval(level, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
        else:
            found = stats.bootstrap((values,), np.mean, confidence_level=level, n_resamples=3000,
                                    method={"bca": "BCa"}.get(method, method), random_state=7)
            low, high = found.confidence_interval
        assert close(row.value, values.mean(), 1e-12) and close(row.std, np.std(values, ddof=1), 1e-12)
        assert close(row.ci_low, low, 1e-9) and close(row.ci_high, high, 1e-9), (row, low, high)


def test_runs_stored_together_and_means_without_an_interval():
    frame = sqlrank.evaluate(C / "qrels.txt", [str(C / "baseline.run"), str(C / "rerank.run")], "AP GMAP", ci=0.95)
    assert list(frame.columns) == ["run_id", "measure", "value", "std", "ci_low", "ci_high"]
    assert frame[frame.measure == "GMAP"][["std", "ci_low", "ci_high"]].isna().all().all()  # a geometric mean
    assert frame[frame.measure == "AP"].ci_low.notna().all()
    with pytest.raises(sqlrank.OptionError, match="describe the summary over queries"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", ci=0.95, per_query=True)
    with pytest.raises(sqlrank.OptionError, match="a confidence level between 0 and 1"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", ci=95)


def test_the_command_line(capsys):
    stats = peer("scipy.stats")
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--ci", "95"]) == 0
    out = capsys.readouterr().out.splitlines()
    values = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", per_query=True).value.to_numpy()
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert out[:3] == ["measure   value     std            95% CI", "-------  ------  ------  ----------------",
                       f"AP       {values.mean():.4f}  {np.std(values, ddof=1):.4f}  [{low:.4f}, {high:.4f}]"]
    assert out[4] == "95% CI: Student's t interval of the mean; std: of the per-query values"
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--ci", "95", "-f", "json"]) == 0
    assert '"ci_low"' in capsys.readouterr().out
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--ci", "95", "-q"]) == 1
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--ci", "95", "-f", "trec"]) == 1
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--ci", "95", "--ci-method",
                 "bca", "--trials", "10"]) == 1
    assert "must be a whole number from 100 to 10000000" in capsys.readouterr().err
    assert not math.isnan(low)


def test_the_basic_interval_against_r():
    """scipy's test_bootstrap_against_R (scipy/stats/tests/test_resampling.py): R's boot.ci on these 16 values, a
    million resamples, gives the basic (reverse percentile) interval (23.77, 79.12); scipy asserts rtol 0.005."""
    from sqlrank.statistics.uncertainty import interval

    x = np.array([10, 12, 12.5, 12.5, 13.9, 15, 21, 22, 23, 34, 50, 81, 89, 121, 134, 213])
    low, high = interval(x, 0.95, "basic", 1_000_000, 0)
    assert low == pytest.approx(23.77, rel=0.005) and high == pytest.approx(79.12, rel=0.005)
    percentile = interval(x, 0.95, "percentile", 1_000_000, 0)
    assert percentile == pytest.approx((28.86, 84.21), rel=0.005)
    assert close(low, 2 * x.mean() - percentile[1], 1e-9) and close(high, 2 * x.mean() - percentile[0], 1e-9)
