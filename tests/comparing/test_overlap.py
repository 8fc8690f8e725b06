"""sqlrank overlap: RBO, Jaccard, Overlap, tau-b and tau_AP of two rankings, per query. Expected values:
the `rbo` package (extrapolated RBO; and its truncated sum over explicit extensions of the two lists for
the lower bound and the residual), scipy.stats.kendalltau, tau_AP's formula from Yilmaz, Aslam and
Robertson (2008) written out here, and Python's sets; on generated rankings with score ties, lists of
unequal length, partial overlap and queries only one run holds."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

import sqlrank
from sqlrank.cli.main import main
from conftest import peer

TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def runs():
    rng = random.Random(11)
    a_rows, b_rows = [], []
    for n in range(80):
        qid = f"q{n}"
        pool = [f"d{k}" for k in range(rng.randint(3, 60))]
        a_docs = rng.sample(pool, rng.randint(1, len(pool)))
        b_docs = rng.sample(pool, rng.randint(1, len(pool)))
        if n % 17 != 3:
            a_rows += [(qid, d, rng.randrange(0, 12) / 4) for d in a_docs]  # ties: 12 distinct scores
        if n % 19 != 5:
            b_rows += [(qid, d, rng.randrange(0, 30) / 4) for d in b_docs]
    columns = ["query_id", "doc_id", "score"]
    return pd.DataFrame(a_rows, columns=columns), pd.DataFrame(b_rows, columns=columns)


def ranked(run: pd.DataFrame, tie_break: str = "trec_eval") -> dict[str, list[tuple[str, float]]]:
    """Each query's documents in rank order: score descending, ties by document id (descending for trec_eval)."""
    out: dict = {}
    for q, group in run.groupby("query_id"):
        docs = sorted(zip(group.doc_id, group.score), key=lambda x: x[0], reverse=tie_break == "trec_eval")
        out[q] = sorted(docs, key=lambda x: -x[1])
    return out


def rbo_bounds(s: list, t: list, p: float) -> tuple[float, float]:
    """RBO's lower and upper bound by the rbo package's truncated sum over explicit extensions: nothing
    unseen matches (fresh items on both sides), and everything unseen matches as early as it can (each
    list continued with the other's unmatched items, then the same fresh items)."""
    from rbo import RankingSimilarity

    depth = 3000
    fresh_s = s + [("s", k) for k in range(depth - len(s))]
    fresh_t = t + [("t", k) for k in range(depth - len(t))]
    low = RankingSimilarity(fresh_s, fresh_t).rbo(p=p)
    more_s = s + [x for x in t if x not in s]
    more_t = t + [x for x in s if x not in t]
    shared = [("both", k) for k in range(depth)]
    high = RankingSimilarity((more_s + shared)[:depth], (more_t + shared)[:depth]).rbo(p=p)
    return low, high


def tau_ap(reference: list, other: list) -> float:
    """tau_AP of `other`'s order against `reference`'s, over the items both hold (Yilmaz et al., eq. 3)."""
    common = [x for x in other if x in reference]
    position = {x: i for i, x in enumerate(reference)}
    n = len(common)
    total = sum(sum(position[common[j]] < position[common[i]] for j in range(i)) / i for i in range(1, n))
    return 2 / (n - 1) * total - 1


def expected_values(a: dict, b: dict, k: int | None, p: float) -> dict[str, dict[str, float]]:
    from scipy.stats import kendalltau
    from rbo import RankingSimilarity

    out = {}
    for q in set(a) & set(b):
        top_a, top_b = a[q][:k], b[q][:k]
        docs_a, docs_b = [d for d, _ in top_a], [d for d, _ in top_b]
        common = set(docs_a) & set(docs_b)
        low, high = rbo_bounds(docs_a, docs_b, p)
        values = {"RBO": low, "RBO(kind=residual)": high - low,
                  "RBO(kind=ext)": RankingSimilarity(docs_a, docs_b).rbo_ext(p=p),
                  "Jaccard": len(common) / len(common | set(docs_a) | set(docs_b)),
                  "Overlap": len(common) / k if k else math.nan}
        score_a, score_b = dict(top_a), dict(top_b)
        shared = sorted(common)
        tau = kendalltau([score_a[d] for d in shared], [score_b[d] for d in shared]).statistic if len(shared) > 1 \
            else math.nan
        values["Tau"] = tau
        values["TauAP"] = tau_ap(docs_a, docs_b) if len(shared) > 1 else math.nan
        out[q] = values
    return out


@pytest.mark.parametrize("k, p, tie_break", [(10, 0.9, "trec_eval"), (25, 0.8, "doc_id_asc"), (None, 0.98, "trec_eval"),
                                             (5, 0.5, "trec_eval")])
def test_every_measure_equals_its_reference(runs, k, p, tie_break):
    peer("rbo")
    peer("scipy")
    run_a, run_b = runs
    at = f"@{k}" if k else ""
    pname = "" if p == 0.9 else f"p={p}"
    names = {"RBO": f"RBO{'(' + pname + ')' if pname else ''}{at}",
             "RBO(kind=ext)": f"RBO({pname + ',' if pname else ''}kind=ext){at}",
             "RBO(kind=residual)": f"RBO({pname + ',' if pname else ''}kind=residual){at}",
             "Tau": f"Tau{at}", "TauAP": f"TauAP{at}"}
    if k:
        names.update(Jaccard=f"Jaccard{at}", Overlap=f"Overlap{at}")
    frame = sqlrank.overlap(run_a, run_b, " ".join(names.values()), per_query=True, tie_break=tie_break)
    expected = expected_values(ranked(run_a, tie_break), ranked(run_b, tie_break), k, p)
    assert set(frame.query_id) == set(expected) and len(expected) > 60
    measure_of = {name: key for key, name in names.items()}
    for row in frame.itertuples(index=False):
        want = expected[row.query_id][measure_of[row.measure]]
        if math.isnan(want):
            assert pd.isna(row.value), row
        else:
            assert math.isclose(row.value, want, rel_tol=0, abs_tol=TOLERANCE), (row, want)
    assert frame.attrs["only_a"] == 4 and frame.attrs["only_b"] == 5


def test_the_same_ranking_gives_one_and_disjoint_rankings_zero(runs):
    run_a, _ = runs
    names = "RBO@10 RBO(kind=ext)@10 RBO(kind=residual)@10 Jaccard@10 Tau@10 TauAP@10"
    same = sqlrank.overlap(run_a, run_a, names, per_query=True).pivot(index="query_id", columns="measure",
                                                                       values="value")
    assert (same["RBO(kind=ext)@10"] - 1).abs().max() < TOLERANCE
    assert (same["RBO@10"] + same["RBO(kind=residual)@10"] - 1).abs().max() < TOLERANCE  # nothing unknown is off
    assert (same["Jaccard@10"] == 1).all()
    several = same["TauAP@10"].notna()
    assert (same.loc[several, "TauAP@10"] - 1).abs().max() < TOLERANCE
    other = run_a.assign(doc_id="x" + run_a.doc_id)
    apart = sqlrank.overlap(run_a, other, names, per_query=True)
    by = apart.set_index("measure").value
    assert (by[["RBO@10", "RBO(kind=ext)@10", "Jaccard@10"]] == 0).all()
    assert by[["Tau@10", "TauAP@10"]].isna().all()  # no document in common: no correlation


def test_summary_is_the_mean_over_queries_with_a_value(runs):
    run_a, run_b = runs
    per_query = sqlrank.overlap(run_a, run_b, "Jaccard@10 Tau@3", per_query=True)
    summary = sqlrank.overlap(run_a, run_b, "Jaccard@10 Tau@3")
    assert list(summary.measure) == ["Jaccard@10", "Tau@3"]
    for row in summary.itertuples(index=False):
        values = per_query[per_query.measure == row.measure].value
        assert math.isclose(row.value, values.mean(), abs_tol=TOLERANCE) and row.queries == values.count()
    assert summary.queries[1] < summary.queries[0]  # Tau has no value where fewer than 2 documents are shared


def test_the_command_line(runs, tmp_path, capsys):
    run_a, run_b = runs
    for name, run in (("exact.txt", run_a), ("ann.txt", run_b)):
        (tmp_path / name).write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in run.itertuples(index=False)))
    args = [str(tmp_path / "exact.txt"), str(tmp_path / "ann.txt"), "-m", "RBO(p=0.9)@100 Overlap@10"]
    assert main(["overlap", *args]) == 0
    out = capsys.readouterr().out
    expected = sqlrank.overlap(run_a, run_b, "RBO(p=0.9)@100 Overlap@10")
    assert out.splitlines()[:4] == ["measure      value  queries", "----------  ------  -------",
                                    f"RBO@100     {expected.value[0]:.4f}  {expected.queries[0]:>7}",
                                    f"Overlap@10  {expected.value[1]:.4f}  {expected.queries[1]:>7}"]
    assert "queries: 71 (4 only in the first run, 5 only in the second: not compared)" in out
    assert main(["overlap", *args, "-q", "-o", str(tmp_path / "out.txt")]) == 0
    assert (tmp_path / "out.txt").read_text().startswith("query_id  RBO@100  Overlap@10")
    assert main(["overlap", *args[:2], "-m", "RBO(p=1.5)@10"]) == 1
    assert "p of RBO must be a number in (0, 1]" in capsys.readouterr().err
    assert main(["overlap", *args[:2], "-m", "Overlap"]) == 1
    assert "Overlap needs a cutoff, for example Overlap@10" in capsys.readouterr().err
    assert main(["overlap", *args[:2], "-m", "nDCG@10"]) == 1
    assert "unknown measure 'nDCG' of two rankings" in capsys.readouterr().err


@pytest.mark.parametrize("measure, expected", [
    ("Intersection(ref_k=2)@2", {1: 0.0, 2: 1.0, 4: 1 / 2, 5: 1 / 3}),
    ("Intersection@3", {1: 1 / 2, 2: 1.0, 3: 1 / 2, 4: 2 / 3, 5: 2 / 4}),
    ("Intersection(ref_k=6)@3", {1: 1 / 2, 2: 1.0, 3: 0.0, 4: 1 / 2, 5: 2 / 3}),
])
def test_intersection_equals_rectools_own_cases(measure, expected):
    """RecTools' own test (MobileTeleSystems/RecTools, tests/metrics/test_intersection.py, TestIntersection.test_calc:
    its three (k, ref_k) cases, their inputs and expected values per user): |reco top k & ref_reco top ref_k| /
    |ref_reco top ref_k| (all of ref_reco without ref_k), lists cut by their given ranks (user 5's ref_reco ranks
    1, 2, 2: the top 2 holds three items); a user whose cut ref_reco is empty has no value (user 3 at ref_k=2).
    Overlap(denominator=first), which the docs took for it, divides by |reco top k| and cuts ref_reco at k."""
    ref = pd.DataFrame({"user_id": [1, 1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5], "item_id": [1, 2, 1, 1, 2, 1, 2, 3, 1, 2, 3, 4],
                        "rank": [3, 1, 1, 7, 5, 2, 1, 8, 1, 2, 2, 9]})
    reco = pd.DataFrame({"user_id": [1, 1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5], "item_id": [1, 3, 1, 1, 2, 1, 2, 3, 1, 2, 3, 4],
                         "rank": [3, 2, 1, 1, 4, 5, 1, 2, 3, 4, 1, 7]})
    got = sqlrank.overlap(reco, ref, measure, per_query=True, tie_break="input_rank")
    values = {q: v for q, v in zip(got.query_id, got.value) if v == v}
    assert values.keys() == expected.keys() and all(abs(values[q] - expected[q]) <= 1e-12 for q in expected)
    mean = sqlrank.overlap(reco, ref, measure, tie_break="input_rank")
    assert abs(mean.value[0] - sum(expected.values()) / len(expected)) <= 1e-12 and mean.queries[0] == len(expected)
