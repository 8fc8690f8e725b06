"""--weights and --aggregate: weighted means equal numpy.average of the per-query values with those weights, the
other summaries numpy's median, minimum, maximum and the floored geometric mean; in eval, with runs stored
together, in compare's means and deltas, and in the confidence intervals (scipy's bootstrap, paired over values
and weights; with equal weights, the t interval of the plain mean)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import ROOT, close, peer
from sqlrank.cli.main import main

C = ROOT / "fixtures" / "compare"
WEIGHTS = {f"q{i:02d}": float(i % 7) for i in range(1, 61)}  # some 0: those queries count for nothing


def per_query(run: str, measure: str) -> pd.Series:
    return sqlrank.evaluate(C / "qrels.txt", C / run, measure, per_query=True).set_index("query_id").value


def test_weighted_means_equal_numpy(tmp_path):
    pd.DataFrame({"query_id": list(WEIGHTS), "weight": list(WEIGHTS.values())}).to_csv(tmp_path / "w.csv", index=False)
    for weights in (WEIGHTS, str(tmp_path / "w.csv")):
        frame = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP nDCG@10 GMAP", weights=weights)
        for row in frame.itertuples(index=False):
            values = per_query("rerank.run", row.measure)
            if row.measure == "GMAP":  # a geometric mean keeps its own summary
                assert close(row.value, sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "GMAP").value[0], 1e-12)
            else:
                assert close(row.value, np.average(values, weights=[WEIGHTS[q] for q in values.index]), 1e-12)
    together = sqlrank.evaluate(C / "qrels.txt", [str(C / "baseline.run"), str(C / "rerank.run")], "AP", weights=WEIGHTS)
    for row in together.itertuples(index=False):
        values = per_query(f"{row.run_id}.run", "AP")
        assert close(row.value, np.average(values, weights=[WEIGHTS[q] for q in values.index]), 1e-12)


@pytest.mark.parametrize("aggregate, numpy", [("median", np.median), ("min", np.min), ("max", np.max),
                                              ("gmean", lambda v: np.exp(np.mean(np.log(np.maximum(v, 1e-5)))))])
def test_other_summaries_equal_numpy(aggregate, numpy):
    frame = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP P@10", aggregate=aggregate)
    for row in frame.itertuples(index=False):
        assert close(row.value, numpy(per_query("rerank.run", row.measure).to_numpy()), 1e-12)


def test_compare_means_and_deltas_are_weighted():
    frame = sqlrank.compare(C / "qrels.txt", [str(C / "baseline.run"), str(C / "rerank.run")], "AP", weights=WEIGHTS)
    means = {run: np.average(per_query(f"{run}.run", "AP"), weights=[WEIGHTS[q] for q in per_query(f"{run}.run", "AP").index])
             for run in ("baseline", "rerank")}
    assert close(frame["mean"][0], means["baseline"], 1e-12) and close(frame["mean"][1], means["rerank"], 1e-12)
    assert close(frame.delta[1], means["rerank"] - means["baseline"], 1e-12)


def test_intervals_of_weighted_means():
    stats = peer("scipy.stats")
    values = per_query("rerank.run", "AP")
    w = np.array([WEIGHTS[q] for q in values.index])
    frame = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", weights=WEIGHTS, ci=0.95, ci_method="bca",
                             trials=2000, seed=5)
    found = stats.bootstrap((values.to_numpy(), w), lambda x, v, axis=-1: np.sum(x * v, axis=axis) / np.sum(v, axis=axis),
                            paired=True, confidence_level=0.95, n_resamples=2000, method="BCa", random_state=5)
    assert close(frame.ci_low[0], found.confidence_interval.low, 1e-9)
    assert close(frame.ci_high[0], found.confidence_interval.high, 1e-9)
    equal = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", weights={q: 2.0 for q in WEIGHTS}, ci=0.95)
    plain = sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", ci=0.95)
    assert close(equal.ci_low[0], plain.ci_low[0], 1e-12) and close(equal.ci_high[0], plain.ci_high[0], 1e-12)


def test_errors(tmp_path, capsys):
    missing = dict(list(WEIGHTS.items())[:-1])
    with pytest.raises(sqlrank.InputError, match=r"1 evaluated query has no weight, e.g. 'q60'"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", weights=missing)
    with pytest.raises(sqlrank.InputError, match="weights are finite numbers >= 0"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", weights={**WEIGHTS, "q01": -1.0})
    with pytest.raises(sqlrank.OptionError, match="weights give weighted means"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", weights=WEIGHTS, aggregate="median")
    with pytest.raises(sqlrank.OptionError, match="a t interval is of a mean"):
        sqlrank.evaluate(C / "qrels.txt", C / "rerank.run", "AP", aggregate="median", ci=0.95)
    (tmp_path / "w.csv").write_text("query_id,weight\nq01,heavy\n")
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--weights",
                 str(tmp_path / "w.csv")]) == 1
    assert "weight 'heavy' of query 'q01' is not a number" in capsys.readouterr().err
    assert main(["eval", str(C / "qrels.txt"), str(C / "rerank.run"), "-m", "AP", "--aggregate", "max", "-q"]) == 1
    assert "leave out -q" in capsys.readouterr().err


def test_the_report_prints_weighted_means(tmp_path):
    weights = tmp_path / "w.csv"
    pd.DataFrame({"query_id": list(WEIGHTS), "weight": list(WEIGHTS.values())}).to_csv(weights, index=False)
    assert main(["report", str(C / "qrels.txt"), str(C / "baseline.run"), str(C / "rerank.run"), "-m", "AP",
                 "--weights", str(weights), "-o", str(tmp_path / "r.html")]) == 0
    values = per_query("rerank.run", "AP")
    mean = np.average(values, weights=[WEIGHTS[q] for q in values.index])
    assert f"{mean:.4f}" in (tmp_path / "r.html").read_text()
