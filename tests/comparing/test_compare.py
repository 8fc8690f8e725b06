"""sqlrank compare / gsb / segments: statistics against SciPy, statsmodels and ranx, GSB against
a published GSB example and hand counts, segments against evaluating each segment's queries separately."""
from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sqlrank
from sqlrank.statistics.significance import adjust, paired_test

from conftest import FIXTURES, close, peer
from support.generate import generate, to_dicts

stats = peer("scipy.stats")
COMPARE = FIXTURES / "compare"
RUNS = [str(COMPARE / f"{name}.run") for name in ("baseline", "rerank", "rerank_v2")]


def _sqlrank(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlrank", *args], capture_output=True, text=True)


# ---------------------------------------------------------------------------------- GSB

def test_published_gsb_example():
    """Seed 004: verdicts Good, Same, Bad, Bad give (1 - 2) / (1 + 1 + 2) = -0.25."""
    frame = sqlrank.gsb(COMPARE / "gsb_verdicts.csv")
    assert frame.to_dict("records") == [{"good": 1, "same": 1, "bad": 2, "gsb": -0.25}]


def test_gsb_verdict_spellings_and_groups(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("query_id,verdict\na,G\na, good \nb,s\nb,BAD\nb,b\nc,Same\n")
    frame = sqlrank.gsb(str(path), by="query_id")
    assert frame["query_id"].isna().iloc[0]  # the overall row first
    rows = {r.query_id: (r.good, r.same, r.bad, r.gsb) for r in frame.iloc[1:].itertuples()}
    assert rows == {"a": (2, 0, 0, 1.0), "b": (0, 1, 2, -2 / 3), "c": (0, 1, 0, 0.0)}
    assert tuple(frame.iloc[0][["good", "same", "bad"]]) == (2, 2, 2)


def test_gsb_rejects_unknown_verdicts_with_the_line(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("verdict\ngood\nbetter\n")
    done = _sqlrank("gsb", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{path}:3: verdict 'better' is not good, same or bad" in done.stderr
    path.write_text("query,label\nq1,good\n")
    done = _sqlrank("gsb", str(path))
    assert "has no column 'verdict'" in done.stderr and done.returncode == 1


def _crafted(tmp_path):
    """Five queries, two relevant documents each (r1, r2), and P@1 of runs A and B chosen by hand:
    q1 A 0 B 1 (good), q2 A 1 B 1 (same), q3 A 1 B 0 (bad), q4 A 1 B 0 (bad), q5 A 0 B 1 (good)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 r{j} 1\n" for i in range(1, 6) for j in (1, 2)))
    top = {"A": {1: "n", 2: "r1", 3: "r1", 4: "r2", 5: "n"}, "B": {1: "r2", 2: "r2", 3: "n", 4: "n", 5: "r1"}}
    paths = []
    for name, first in top.items():
        lines = []
        for q in range(1, 6):
            docs = [first[q]] + [d for d in ("r1", "r2", "n", "m") if d != first[q]]
            lines += [f"q{q} Q0 {d} {rank} {10 - rank} {name}" for rank, d in enumerate(docs, 1)]
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(qrels), paths


def test_gsb_from_metric_deltas_matches_a_hand_count(tmp_path):
    qrels, runs = _crafted(tmp_path)
    frame = sqlrank.compare(qrels, runs, "P@1", gsb=True)
    row = frame.iloc[1]
    assert (row.good, row.same, row.bad) == (2, 1, 2) and row.gsb == 0.0
    assert (row.wins, row.ties, row.losses) == (2, 1, 2)
    done = _sqlrank("compare", qrels, *runs, "-m", "P@1", "--gsb", "-f", "csv")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith(",good,same,bad,gsb") and lines[2].endswith(",2,1,2,0.0")


def test_tolerance_turns_small_differences_into_same(tmp_path):
    qrels, runs = _crafted(tmp_path)
    exact = sqlrank.compare(qrels, runs, "RR", gsb=True).iloc[1]  # RR differences are 0.5 or 0
    assert (exact.good, exact.same, exact.bad) == (2, 1, 2)
    loose = sqlrank.compare(qrels, runs, "RR", gsb=True, tolerance=0.5).iloc[1]
    assert (loose.good, loose.same, loose.bad) == (0, 5, 0) and loose.gsb == 0.0


# --------------------------------------------------------------------- statistics

def _pytrec_runs(seed: int):
    """Generated qrels (ties, unjudged, graded and negative labels, one-sided queries) and three
    runs of the same documents with differently perturbed scores; per-query values from pytrec_eval."""
    pytrec_eval = peer("pytrec_eval")
    qrels, run = generate(seed, n_queries=120)
    rng = random.Random(seed)
    runs = {"a": run}
    for name in ("b", "c"):
        other = run.copy()
        other["score"] = [s + rng.choice((-1, 0, 0, 1, 2)) / 4 for s in run["score"]]
        runs[name] = other
    qdict, _ = to_dicts(qrels, run)
    evaluator = pytrec_eval.RelevanceEvaluator(qdict, {"map", "ndcg_cut_10", "P_10"})
    values = {}
    for name, frame in runs.items():
        _, rdict = to_dicts(qrels, frame)
        result = evaluator.evaluate(rdict)
        values[name] = {m: pd.Series({q: v[key] for q, v in result.items()})
                        for m, key in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10"))}
    return qrels, runs, values


@pytest.fixture(scope="module")
def generated():
    return _pytrec_runs(31)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
def test_p_values_intervals_and_effects_match_scipy(generated, test):
    qrels, runs, values = generated
    frame = sqlrank.compare(qrels, runs, "AP nDCG@10 P@10", test=test, trials=2000, seed=7)
    for row in frame[frame.run != "a"].itertuples():
        base = values["a"][row.measure].sort_index()  # the order of sqlrank's per-query rows: resampling
        other = values[row.run][row.measure].reindex(base.index)  # with one seed gives the same draws
        x, y = other.to_numpy(), base.to_numpy()
        d = x - y
        assert close(row.mean, x.mean()) and close(row.delta, d.mean())
        assert (row.wins, row.ties, row.losses) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
        t_interval = stats.ttest_rel(x, y).confidence_interval(0.95)
        dz = d.mean() / d.std(ddof=1)
        if test == "t":
            expected_p, interval, effect = stats.ttest_rel(x, y).pvalue, t_interval, dz
        elif test == "wilcoxon":
            nz = d[d != 0]
            ranks = stats.rankdata(np.abs(nz))
            expected_p, interval = stats.wilcoxon(x, y).pvalue, t_interval
            effect = (ranks[nz > 0].sum() - ranks[nz < 0].sum()) / ranks.sum()
        elif test == "sign":
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            expected_p, interval = stats.binomtest(wins, wins + losses).pvalue, t_interval
            effect = (wins - losses) / (wins + losses)
        elif test == "permutation":
            expected_p = stats.permutation_test(
                (x, y), lambda a, b, axis=-1: np.mean(a - b, axis=axis), permutation_type="samples",
                n_resamples=2000, vectorized=True, random_state=np.random.default_rng(7)).pvalue
            interval, effect = t_interval, dz
        else:
            boot = stats.bootstrap((d,), np.mean, n_resamples=2000, method="BCa", vectorized=True,
                                   random_state=np.random.default_rng(7))
            dist = boot.bootstrap_distribution
            expected_p = (np.sum(np.abs(dist - d.mean()) >= abs(d.mean())) + 1) / (len(dist) + 1)
            interval, effect = boot.confidence_interval, dz
        assert close(row.p_value, expected_p), (row.measure, row.run)
        assert close(row.ci_low, interval.low) and close(row.ci_high, interval.high)
        assert close(row.effect_size, effect)


@pytest.mark.parametrize("correction, method", [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels(correction, method):
    multitest = peer("statsmodels.stats.multitest")
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 40):
        p = np.concatenate([rng.uniform(0, 0.06, size // 2), rng.uniform(0, 1, size - size // 2)])
        p[rng.integers(0, size)] = p[0]  # a repeated p-value
        expected = multitest.multipletests(p, method=method)[1]
        assert all(close(a, e) for a, e in zip(adjust(list(p), correction), expected))
    assert math.isnan(adjust([0.01, float("nan")], "holm")[1])  # undefined stays undefined, not counted
    assert adjust([0.01, float("nan")], "bonferroni")[0] == 0.01


def test_corrections_are_over_all_comparisons(generated):
    qrels, runs, _ = generated
    plain = sqlrank.compare(qrels, runs, "AP P@10", correction="none")
    holm = sqlrank.compare(qrels, runs, "AP P@10", correction="holm")
    multitest = peer("statsmodels.stats.multitest")
    compared = plain.run != "a"
    expected = multitest.multipletests(plain.p_value[compared], method="holm")[1]
    assert np.allclose(holm.p_value_adjusted[compared], expected, atol=1e-12, rtol=0)
    assert holm.p_value_adjusted[~compared].isna().all()


def test_permutation_test_is_reproducible_and_near_the_exact_p_value():
    rng = np.random.default_rng(11)
    base = rng.uniform(0, 1, 12)
    run = base + rng.normal(0.08, 0.2, 12)
    d = run - base
    flips = np.array(list(itertools.product((1, -1), repeat=12)))  # all 4096 sign assignments
    exact = np.mean(np.abs((flips * d).mean(axis=1)) >= abs(d.mean()) - 1e-15)
    first = paired_test(run, base, "permutation", trials=3000, seed=5)
    again = paired_test(run, base, "permutation", trials=3000, seed=5)
    assert first == again
    assert abs(first.p_value - exact) <= 4 * math.sqrt(exact * (1 - exact) / 3000) + 1e-3
    exact_run = paired_test(run, base, "permutation", trials=5000, seed=5)  # 2^12 < trials: SciPy is exact
    assert close(exact_run.p_value, exact)


def test_ranx_agrees_on_t_test_and_fisher_randomization(generated):
    tests = peer("ranx.statistical_tests")
    _, _, values = generated
    for measure in ("AP", "nDCG@10"):
        base, other = values["a"][measure], values["b"][measure].reindex(values["a"][measure].index)
        x, y = other.to_numpy(), base.to_numpy()
        ranx_t, _ = tests.paired_student_t_test(y, x)
        assert close(paired_test(x, y, "t").p_value, ranx_t)
        ranx_fisher, _ = tests.fisher_randomization_test(y, x, 4000, 0.05, 42)
        ours = paired_test(x, y, "permutation", trials=4000, seed=1).p_value
        p = max(ranx_fisher, 1e-3)
        assert abs(ours - ranx_fisher) <= 5 * math.sqrt(p * (1 - p) / 4000) + 1e-3, (measure, ours, ranx_fisher)


def test_identical_runs_have_no_p_value():
    result = paired_test(np.array([0.1, 0.5, 0.3]), np.array([0.1, 0.5, 0.3]))
    assert math.isnan(result.p_value) and result.ci_low == 0 and result.ci_high == 0


# ------------------------------------------------------------------------ segments

def test_segments_equal_each_segment_evaluated_alone():
    qrels, run = str(COMPARE / "qrels.txt"), RUNS[0]
    measures = "nDCG@10 AP P@10 R@50 RR Bpref"
    frame = sqlrank.evaluate(qrels, run, measures, queries=str(COMPARE / "topics.csv"), by="segment")
    topics = pd.read_csv(COMPARE / "topics.csv")
    qrels_rows = pd.read_csv(qrels, sep=" ", names=["query_id", "it", "doc_id", "relevance"], dtype=str)
    run_rows = pd.read_csv(run, sep=" ", names=["query_id", "q0", "doc_id", "rank", "score", "tag"], dtype=str)
    run_rows["score"] = run_rows["score"].astype(float)
    qrels_rows["relevance"] = qrels_rows["relevance"].astype(int)
    overall = sqlrank.evaluate(qrels, run, measures)
    got = frame[frame.segment.isna()]
    assert list(got.measure) == list(overall.measure) and np.allclose(got.value, overall.value, atol=1e-12)
    assert set(got.num_queries) == {60}
    for segment, ids in topics.groupby("segment")["query_id"]:
        alone = sqlrank.evaluate(qrels_rows[qrels_rows.query_id.isin(ids)], run_rows[run_rows.query_id.isin(ids)],
                                 measures)
        part = frame[frame.segment == segment]
        assert set(part.num_queries) == {len(ids)}
        assert np.allclose(part.value.to_numpy(), alone.value.to_numpy(), atol=1e-12, rtol=0), segment


def test_compare_per_segment_equals_comparing_each_segment_alone():
    topics = pd.read_csv(COMPARE / "topics.csv")
    whole = sqlrank.compare(str(COMPARE / "qrels.txt"), RUNS, "AP nDCG@10", queries=str(COMPARE / "topics.csv"),
                            by="lang", test="wilcoxon")
    for lang, ids in topics.groupby("lang")["query_id"]:
        qrels = pd.read_csv(COMPARE / "qrels.txt", sep=" ", names=["query_id", "it", "doc_id", "relevance"])
        runs = {}
        for path in RUNS:
            rows = pd.read_csv(path, sep=" ", names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
            runs[path.rsplit("/", 1)[1][:-4]] = rows[rows.query_id.isin(ids)]
        alone = sqlrank.compare(qrels[qrels.query_id.isin(ids)], runs, "AP nDCG@10", test="wilcoxon")
        part = whole[whole.segment == lang].drop(columns=["segment", "num_queries"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, check_exact=False, atol=1e-12, rtol=0)


def test_segment_errors_and_warnings(tmp_path):
    qrels, run = str(COMPARE / "qrels.txt"), RUNS[0]
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--by", "segment")
    assert done.returncode == 1 and "need both a query table" in done.stderr
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--queries", str(COMPARE / "topics.csv"), "--by", "Segment")
    assert done.returncode == 1 and "no column 'Segment'" in done.stderr and "did you mean 'segment'" in done.stderr
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--queries", str(COMPARE / "topics.csv"), "--by", "segment", "-q")
    assert done.returncode == 1 and "cannot be per query" in done.stderr
    unnamed = tmp_path / "qids.csv"
    unnamed.write_text("qid,segment\nq01,x\n")
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--queries", str(unnamed), "--by", "segment")
    assert done.returncode == 1 and "no query id column: expected one of query_id, user_id (columns: qid, segment)" \
        in done.stderr and "Traceback" not in done.stderr
    topics = pd.read_csv(COMPARE / "topics.csv")
    run_rows = pd.read_csv(run, sep=" ", names=["topic", "q0", "doc_id", "rank", "score", "tag"], dtype={"topic": str})
    mapped = sqlrank.evaluate(qrels, run_rows[["topic", "doc_id", "score"]], "AP", run_columns={"query_id": "topic"},
                              queries=topics.rename(columns={"query_id": "topic"}), by="segment")
    pd.testing.assert_frame_equal(mapped, sqlrank.evaluate(qrels, run, "AP", queries=topics, by="segment"))
    floats = tmp_path / "floats.parquet"
    pd.DataFrame({"query_id": [1.0, 2.0], "segment": ["x", "y"]}).to_parquet(floats)
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--queries", str(floats), "--by", "segment")
    assert done.returncode == 1 and "'query_id' (query id) is DOUBLE" in done.stderr
    partial = tmp_path / "topics.csv"
    partial.write_text("query_id,segment\nq01,x\nq02,\n")
    done = _sqlrank("eval", qrels, run, "-m", "AP", "--queries", str(partial), "--by", "segment", "-f", "csv")
    assert done.returncode == 0 and "59 evaluated queries have no segment" in done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
    assert [r[:3] for r in rows] == [["", "60", "AP"], ["x", "1", "AP"]]
    assert close(float(rows[0][3]), sqlrank.evaluate(qrels, run, "AP").value[0], 1e-15)
    assert close(float(rows[1][3]), sqlrank.evaluate(qrels, run, "AP", per_query=True).value[0], 1e-15)


# ------------------------------------------------------------------------ interface

def test_compare_csv_columns_and_baseline_row():
    done = _sqlrank("compare", str(COMPARE / "qrels.txt"), *RUNS, "-m", "AP P@10", "-f", "csv", "--correction", "bh")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("measure,run,mean,delta,wins,ties,losses,p_value,p_value_adjusted,ci_low,ci_high,"
                        "effect_size")
    assert lines[1].startswith("AP,baseline,") and lines[1].endswith(",,,,,,,,,")
    assert [line.split(",")[1] for line in lines[1:]] == ["baseline", "rerank", "rerank_v2"] * 2
    frame = pd.read_csv(pd.io.common.StringIO(done.stdout))
    evaluated = sqlrank.evaluate(str(COMPARE / "qrels.txt"), RUNS[1], "AP P@10")
    assert close(frame.loc[1, "mean"], evaluated.value[0]) and close(frame.loc[4, "mean"], evaluated.value[1])


def test_the_legend_counts_comparisons_in_words():
    one = _sqlrank("compare", str(COMPARE / "qrels.txt"), *RUNS[:2], "-m", "AP")
    two = _sqlrank("compare", str(COMPARE / "qrels.txt"), *RUNS, "-m", "AP")
    assert "no correction over 1 comparison;" in one.stdout and "no correction over 2 comparisons;" in two.stdout


def test_runs_stored_together_are_compared_run_by_run():
    """A table of runs (run_id) stands for its runs, named by run id, in run id order: the same table as
    the three files compared (where the table once stood as one run and took its first run's values);
    beside another run it adds its runs; baseline= picks the run the others are compared with."""
    qrels, table = str(COMPARE / "qrels.txt"), str(COMPARE / "runs.parquet")
    files = sqlrank.compare(qrels, RUNS, "AP nDCG@10 P@5", correction="holm")
    stored = sqlrank.compare(qrels, [table], "AP nDCG@10 P@5", correction="holm")
    pd.testing.assert_frame_equal(files, stored)
    assert list(stored.run[:3]) == ["baseline", "rerank", "rerank_v2"]
    beside = sqlrank.compare(qrels, [RUNS[1], table], "AP", names=["first", "baseline", "rerank", "rerank_v2"])
    assert list(beside.run) == ["first", "baseline", "rerank", "rerank_v2"]
    pd.testing.assert_frame_equal(beside, sqlrank.compare(qrels, [RUNS[1], *RUNS], "AP", names=list(beside.run)))
    chosen = sqlrank.compare(qrels, [table], "AP", baseline="rerank")
    pd.testing.assert_frame_equal(chosen, sqlrank.compare(qrels, [RUNS[1], RUNS[0], RUNS[2]], "AP"))
    done = _sqlrank("compare", qrels, table, "-m", "AP", "--baseline", "rerank_v2", "-f", "csv")
    assert done.returncode == 0, done.stderr
    assert [line.split(",")[1] for line in done.stdout.splitlines()[1:]] == ["rerank_v2", "baseline", "rerank"]


def test_compare_refuses_what_it_cannot_do(tmp_path):
    qrels, table = str(COMPARE / "qrels.txt"), str(COMPARE / "runs.parquet")
    for args, message in [((RUNS[0],), "at least two runs"),
                          ((*RUNS[:2], "--names", "x"), "1 names for 2 runs"),
                          ((*RUNS[:2], "--names", "x,x"), "run names must differ"),
                          ((RUNS[0], table), "run names must differ: ['baseline', 'baseline', 'rerank', 'rerank_v2']"),
                          ((table, "--names", "a,b"), "2 names for 3 runs (runs stored together count one each)"),
                          ((*RUNS[:2], "--baseline", "bm25"), "baseline 'bm25' is not one of the runs: baseline, rerank"),
                          ((*RUNS[:2], "--test", "permutation", "--trials", "5"), "trials 5 must be")]:
        done = _sqlrank("compare", qrels, *args, "-m", "AP")
        assert done.returncode in (1, 2) and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_queries_missing_from_a_run_are_left_out_with_a_warning(tmp_path):
    run = pd.read_csv(RUNS[1], sep=" ", names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    short = tmp_path / "short.parquet"
    run[run.query_id != "q07"].to_parquet(short)
    with pytest.warns(sqlrank.SqlrankWarning, match="1 queries are evaluated for some runs only"):
        frame = sqlrank.compare(str(COMPARE / "qrels.txt"), [RUNS[0], str(short)], "AP")
    assert frame.attrs["num_queries"] == 59
    zero = sqlrank.compare(str(COMPARE / "qrels.txt"), [RUNS[0], str(short)], "AP", missing_queries="zero")
    assert zero.attrs["num_queries"] == 60 and zero.loc[1, "losses"] >= 1


def test_markdown_and_latex_tables():
    for fmt, first in (("markdown", "| measure | run | mean |"), ("latex", "\\begin{tabular}")):
        done = _sqlrank("compare", str(COMPARE / "qrels.txt"), *RUNS[:2], "-m", "AP", "-f", fmt)
        assert done.returncode == 0 and done.stdout.startswith(first), done.stdout
    done = _sqlrank("compare", str(COMPARE / "qrels.txt"), *RUNS[:2], "-m", "AP", "-f", "latex")
    assert "\\midrule" in done.stdout and "rerank" in done.stdout and "\\bottomrule" in done.stdout


def _auc_case():
    """Query b has two relevant documents and no non-relevant one, so no AUC; the others have both."""
    ids = ["a", "a", "b", "b", "c", "c", "d", "d"]
    qrels = pd.DataFrame({"query_id": ids, "doc_id": ["1", "2"] * 4, "relevance": [1, 0, 1, 1, 1, 0, 1, 0]})
    first = pd.DataFrame({"query_id": ids, "doc_id": ["1", "2"] * 4, "score": [2, 1, 2, 1, 1, 2, 2, 1]})
    second = pd.DataFrame({"query_id": ids, "doc_id": ["1", "2"] * 4, "score": [1, 2, 2, 1, 1, 2, 1, 2]})
    return qrels, {"first": first, "second": second}


def test_a_measure_without_a_value_for_some_queries_is_compared_over_the_others():
    # By hand: P@1 is 1, 1, 0, 1 (first) and 0, 1, 0, 0 (second) over a, b, c, d; AUC is 1, -, 0, 1 and
    # 0, -, 0, 0. Every query is compared for P@1, and a, c, d for AUC; b is not dropped from P@1.
    qrels, runs = _auc_case()
    with pytest.warns(sqlrank.SqlrankWarning, match="AUC: 1 of the 4 queries have no value in some run") as caught:
        frame = sqlrank.compare(qrels, runs, "AUC P@1")
    assert not any("evaluated for some runs only" in str(w.message) for w in caught)
    assert frame.attrs["num_queries"] == 4 and frame.attrs["compared"] == {"AUC": 3, "P@1": 4}
    auc, p1 = frame.iloc[1], frame.iloc[3]
    assert (auc.measure, p1.measure) == ("AUC", "P@1")
    assert close(frame.iloc[0]["mean"], 2 / 3) and auc["mean"] == 0 and (auc.wins, auc.ties, auc.losses) == (0, 1, 2)
    assert frame.iloc[2]["mean"] == 0.75 and p1["mean"] == 0.25 and (p1.wins, p1.ties, p1.losses) == (0, 2, 2)
    assert close(auc.p_value, stats.ttest_rel([0, 0, 0], [1, 0, 1]).pvalue)
    assert close(p1.p_value, stats.ttest_rel([0, 1, 0, 0], [1, 1, 0, 1]).pvalue)


def test_a_measure_without_any_paired_value_is_reported_not_compared(tmp_path):
    qrels, runs = _auc_case()
    qrels = qrels.assign(relevance=1)  # no query has a non-relevant document: no AUC anywhere
    with pytest.warns(sqlrank.SqlrankWarning, match="AUC: no query has a value in every run"):
        frame = sqlrank.compare(qrels, runs, "AUC P@1")
    assert frame.attrs["compared"] == {"AUC": 0, "P@1": 4} and frame.iloc[:2]["mean"].isna().all()
    assert frame.iloc[3]["ties"] == 4  # every document is relevant: P@1 is 1 in both runs
    folder = tmp_path / "files"
    folder.mkdir()
    qrels.to_csv(folder / "qrels.csv", index=False)
    for name, run in runs.items():
        run.to_csv(folder / f"{name}.csv", index=False)
    page = tmp_path / "report.html"
    done = _sqlrank("report", str(folder / "qrels.csv"), str(folder / "first.csv"), str(folder / "second.csv"),
                    "-m", "AUC P@1", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert "AUC: no query has a value in every run." in page.read_text()


IMPORTED = """
import sys
from sqlrank.cli.main import main
status = main(sys.argv[1:])
print(sorted(name for name in ("pandas", "scipy", "pyarrow") if name in sys.modules), status)
"""


@pytest.mark.parametrize("command, flags, imported", [
    ("compare", [], []), ("compare", ["-f", "markdown"], []), ("compare", ["-f", "latex"], []),
    ("compare", ["-f", "csv"], ["pandas", "pyarrow"]), ("report", ["-o", "report.html"], []),
    ("report", ["-o", "report.md"], [])])
def test_the_command_line_compares_without_pandas_or_scipy(tmp_path, command, flags, imported):
    """A comparison printed as a table, Markdown or LaTeX, or written as an HTML report, imports neither pandas nor
    SciPy (a third and a fifth of a second of every start); CSV is written by pandas."""
    runs = [str(COMPARE / name) for name in ("qrels.txt", "baseline.run", "rerank.run", "rerank_v2.run")]
    done = subprocess.run([sys.executable, "-c", IMPORTED, command, *runs, "-m", "nDCG@10 AP", *flags],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == f"{imported} 0"


def test_paired_t_completes_a_comparison_computed_in_a_database(tmp_path):
    """compare --paired-t reads a table of per-run mean differences, their standard deviation, t and degrees of freedom
    (dbt's NAME_comparison, here written by numpy into SQLite) and gives compare's p-values, adjusted p-values,
    intervals and effects to 1e-12 (compare's are SciPy's, test_p_values_intervals_and_effects_match_scipy)."""
    import sqlite3

    compare = FIXTURES / "compare"
    qrels, runs, measures = str(compare / "qrels.txt"), str(compare / "runs.parquet"), "AP nDCG@10 P@10"
    per_query = sqlrank.evaluate(qrels, runs, measures, per_query=True).pivot(
        index=["measure", "query_id"], columns="run_id", values="value")
    rows = []
    for measure in measures.split():
        values = per_query.loc[measure]
        for run in ("rerank", "rerank_v2"):
            d = (values[run] - values["baseline"]).to_numpy()
            sd = d.std(ddof=1)
            rows.append((run, "baseline", measure, len(d), d.mean(), sd, d.mean() / (sd / math.sqrt(len(d))), len(d) - 1))
    database = tmp_path / "warehouse.sqlite"
    with sqlite3.connect(database) as con:
        con.execute("CREATE TABLE evaluation_comparison (run_id, baseline, measure, queries, mean_difference, "
                    "sd_difference, t_statistic, degrees_of_freedom)")
        con.executemany("INSERT INTO evaluation_comparison VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "compare", "--paired-t", "evaluation_comparison", "--engine",
                           "sqlite", "--dsn", str(database), "-m", measures, "--correction", "holm", "-f", "csv"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(__import__("io").StringIO(done.stdout)).set_index(["measure", "run_id"])
    expected = sqlrank.compare(qrels, [runs], measures, correction="holm")
    expected = expected[expected.run != "baseline"].set_index(["measure", "run"])
    assert len(got) == len(expected) == 6
    for key, want in expected.iterrows():
        for mine, theirs in (("p", "p_value"), ("p_adjusted", "p_value_adjusted"), ("ci_low", "ci_low"),
                             ("ci_high", "ci_high"), ("effect", "effect_size"), ("mean_difference", "delta")):
            assert close(got.loc[key][mine], want[theirs], 1e-12), (key, mine)
    for args, message in ((["--paired-t", "nope", "--engine", "sqlite", "--dsn", str(database), "-m", "AP"], "nope"),
                          (["--paired-t", "evaluation_comparison", "--engine", "sqlite", "--dsn", str(database), "-m",
                            "RR"], "the comparison table has no rows of RR"),
                          (["--paired-t", "evaluation_comparison", qrels, "-m", "AP"], "leave out QRELS and RUN"),
                          (["-m", "AP"], "give QRELS and one or more RUN")):
        done = subprocess.run([sys.executable, "-m", "sqlrank", "compare", *args], capture_output=True, text=True)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
