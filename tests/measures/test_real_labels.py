"""Real-valued judgments (0.7, 2.75, -0.25: LLM grades, averaged assessors) are read as written,
everywhere judgments are read. Expected values come from the plain-Python formulas of
support/reference.py on the same rankings and from scikit-learn's ndcg_score, never from sqlrank."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

import sqlrank
from conftest import peer
from support import reference as ref
from support.generate import REAL_LABELS, generate

TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def data():
    return generate(71, n_queries=150, real_labels=True)


def rankings(qrels: pd.DataFrame, run: pd.DataFrame, every_run_query: bool = False) -> dict[str, tuple[list, list]]:
    """Per query both sides have (or every query of the run): the labels of the retrieved documents in
    rank order (trec_eval's ties: score descending, then document id descending) and every label of
    its judgments."""
    labels: dict = {}
    for q, d, r in qrels.itertuples(index=False):
        labels.setdefault(q, {})[d] = r
    scores: dict = {}
    for q, d, s in run[["query_id", "doc_id", "score"]].itertuples(index=False):
        scores.setdefault(q, []).append((d, s))
    out = {}
    for q in set(scores) if every_run_query else set(labels) & set(scores):
        docs = sorted(scores[q], key=lambda x: x[0].encode(), reverse=True)
        docs.sort(key=lambda x: -x[1])
        judged = labels.get(q, {})
        out[q] = ([judged.get(d) for d, _ in docs], list(judged.values()))
    return out


# measure -> its value from the ranked labels and the judgments, by the gain convention
FORMULAS = {
    "nDCG": lambda r, j, g: ref.ndcg(r, j, None, g),
    "nDCG@5": lambda r, j, g: ref.ndcg(r, j, 5, g),
    "DCG@10": lambda r, j, g: ref.dcg(r, 10, g),
    "ERR@10": lambda r, j, g: ref.err(r, 10),
    "RBP(p=0.8)": lambda r, j, g: ref.rbp(r, j, 0.8, g),
    "AP": lambda r, j, g: ref.average_precision(r, j),
    "AP(rel=0.5)": lambda r, j, g: ref.average_precision(r, j, rel=0.5),
    "AP(rel=2.75)": lambda r, j, g: ref.average_precision(r, j, rel=2.75),
    "P@5": lambda r, j, g: ref.precision(r, 5),
    "P(rel=0.7)@10": lambda r, j, g: ref.precision(r, 10, rel=0.7),
    "R(rel=1.25)@10": lambda r, j, g: ref.recall(r, j, 10, rel=1.25),
    "RR(rel=0.1)": lambda r, j, g: ref.reciprocal_rank(r, rel=0.1),
}


def assert_formulas(frame: pd.DataFrame, qrels: pd.DataFrame, run: pd.DataFrame, gain: str) -> None:
    ranked = rankings(qrels, run)
    got = {(row.query_id, row.measure.replace("(gain=exponential)", "").replace("gain=exponential,", "")): row.value
           for row in frame.itertuples(index=False)}  # DCG(gain=exponential)@10, RBP(gain=exponential,p=0.8)
    assert {q for q, _ in got} == set(ranked)
    assert {m for _, m in got} == set(FORMULAS)
    for (query, measure), value in got.items():
        expected = FORMULAS[measure](*ranked[query], gain)
        assert math.isclose(value, expected, rel_tol=0, abs_tol=TOLERANCE), (query, measure, value, expected)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_measures_equal_their_formulas_on_real_labels(data, gain):
    qrels, run = data
    assert (qrels.relevance % 1 != 0).any() and (qrels.relevance < 0).any()
    frame = sqlrank.evaluate(qrels, run, list(FORMULAS), per_query=True, gain=gain)
    assert_formulas(frame, qrels, run, gain)


def test_files_read_the_labels_as_written(data, tmp_path):
    """TREC text, CSV and Parquet give what the DataFrame gives: 0.7 stays 0.7 (no rounding to an integer)."""
    qrels, run = data
    expected = sqlrank.evaluate(qrels, run, list(FORMULAS), per_query=True)
    written = {"qrels.txt": lambda p: p.write_text("".join(f"{q} 0 {d} {r!r}\n" for q, d, r in qrels.itertuples(
                   index=False))),
               "qrels.csv": lambda p: qrels.to_csv(p, index=False),
               "qrels.parquet": lambda p: qrels.to_parquet(p)}
    for name, write in written.items():
        write(tmp_path / name)
        pd.testing.assert_frame_equal(sqlrank.evaluate(tmp_path / name, run, list(FORMULAS), per_query=True), expected)


def test_ndcg_equals_scikit_learn():
    """scikit-learn's ndcg_score takes real relevance: per query, every judged document ranked among
    unjudged ones (label 0 there), scores distinct so that no tie-break decides."""
    metrics = peer("sklearn.metrics")
    rng = random.Random(5)
    qrels, run, cases = [], [], {}
    for n in range(60):
        qid = f"q{n}"
        docs = [f"d{i}" for i in range(rng.randint(2, 30))]
        labels = {d: rng.choice([x for x in REAL_LABELS if x >= 0]) for d in docs if rng.random() < 0.7}
        scores = rng.sample(range(1000), len(docs))
        qrels += [(qid, d, label) for d, label in labels.items()]
        run += [(qid, d, s / 7) for d, s in zip(docs, scores)]
        cases[qid] = ([labels.get(d, 0.0) for d in docs], [s / 7 for s in scores])
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    frame = sqlrank.evaluate(qrels, run, "nDCG nDCG@3 nDCG@10", per_query=True)
    checked = 0
    for row in frame.itertuples(index=False):
        truth, scores = cases[row.query_id]
        k = None if row.measure == "nDCG" else int(row.measure.split("@")[1])
        expected = metrics.ndcg_score([truth], [scores], k=k) if any(truth) else 0.0
        assert math.isclose(row.value, expected, rel_tol=0, abs_tol=TOLERANCE), (row, expected)
        checked += 1
    assert checked == 3 * len(set(qrels.query_id) & set(run.query_id))


def test_whole_labels_stay_integers_and_real_ones_are_said(data, tmp_path, capsys):
    """A statement over whole labels reads them as integers (as before); real ones as DOUBLE, and the
    printed result says how they were used."""
    from sqlrank.cli.main import main
    qrels, run = data
    whole = qrels.assign(relevance=qrels.relevance.round().astype(int))
    assert "CAST(\"relevance\" AS INTEGER)" in sqlrank.render(whole.assign(relevance=whole.relevance.astype(float)),
                                                          run, "AP")
    assert "CAST(\"relevance\" AS DOUBLE)" in sqlrank.render(qrels, run, "AP")
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    assert main(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "nDCG P(rel=0.5)@10"]) == 0
    out = capsys.readouterr().out
    assert "labels: real numbers, used as written" in out and "relevant means label >= rel" in out
    whole.to_csv(tmp_path / "whole.csv", index=False)
    assert main(["eval", str(tmp_path / "whole.csv"), str(tmp_path / "run.csv"), "-m", "nDCG", "--rel", "0.5"]) == 0
    assert "labels:" not in capsys.readouterr().out


def test_real_relevance_levels_and_gain_maps(data):
    """rel=0.5 on the command line and in names, a gain mapping keyed by a real label, unjudged_label=0.5."""
    qrels, run = data
    ranked = rankings(qrels, run)
    frame = sqlrank.evaluate(qrels, run, "P@10 nDCG(gain={0.7: 5})@10", per_query=True, rel=0.5)
    weights = {i: 1 / math.log2(i + 1) for i in range(1, 11)}
    for row in frame.itertuples(index=False):
        labels, judged = ranked[row.query_id]
        if row.measure.startswith("P"):
            expected = ref.precision(labels, 10, rel=0.5)
        else:
            mapped = [5.0 if x == 0.7 else x for x in labels]
            expected = ref.weighted_dcg(mapped, weights, [5.0 if x == 0.7 else x for x in judged])
        assert math.isclose(row.value, expected, rel_tol=0, abs_tol=TOLERANCE), (row, expected)
    with pytest.raises(sqlrank.ConventionError, match="rel must be a number >= 0"):
        sqlrank.evaluate(qrels, run, "AP", rel=float("nan"))
    filled = sqlrank.evaluate(qrels, run, "P@10", per_query=True, unjudged_label=0.5, rel=0.5)
    ranked = rankings(qrels, run, every_run_query=True)  # a run query without judgments is judged 0.5 throughout
    assert set(filled.query_id) == set(ranked)
    for row in filled.itertuples(index=False):
        labels = [0.5 if x is None else x for x in ranked[row.query_id][0]]
        assert math.isclose(row.value, ref.precision(labels, 10, rel=0.5), abs_tol=TOLERANCE)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ncg_is_cumulative_gain_over_the_ideal_one(data, gain):
    """NCG@k (discount=flat): the gains of the top k over the k best gains of the judgments; DCG without a
    discount is CG."""
    qrels, run = data
    ranked = rankings(qrels, run)
    frame = sqlrank.evaluate(qrels, run, "NCG@5 NCG DCG(discount=flat)@5 CG@5", per_query=True, gain=gain)
    canonical = frame.attrs["measures"]  # rows named as asked (NCG@5); what each is: nDCG(discount=flat)@5
    for row in frame.itertuples(index=False):
        labels, judged = ranked[row.query_id]
        k = 5 if row.measure.endswith("@5") else None
        got = sum(ref.gain(x, gain) for x in labels[:k])
        if canonical[row.measure].startswith("nDCG"):
            best = sum(sorted((ref.gain(x, gain) for x in judged), reverse=True)[:k])
            expected = got / best if best else 0.0
        else:
            expected = got
        assert math.isclose(row.value, expected, rel_tol=0, abs_tol=TOLERANCE), (row, expected)
    assert set(canonical.values()) >= {"nDCG(discount=flat)@5", "CG@5"} or gain == "exponential"
