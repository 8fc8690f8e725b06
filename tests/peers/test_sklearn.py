"""scikit-learn's ranking measures of one sample per query: average_precision_score (AP with tie_break=block, the
sklearn preset), label_ranking_loss (LabelRankingLoss), each against scikit-learn itself on its documentation's
examples and on generated queries full of ties, unjudged documents and relevant documents the run did not score.
LRAP's test is with the presets' (test_presets.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import peer
from sqlrank.errors import MeasureError

metrics = peer("sklearn.metrics")


def generated(seed: int, n_queries: int = 60):
    """Queries of 1..14 retrieved documents scored 0..3 (ties everywhere), labels -1..2 on most of them (the rest
    unjudged), every seventh query without a relevant label, and relevant documents the run did not score."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        for d in range(int(rng.integers(1, 15))):
            run.append((qid, f"d{d}", float(rng.integers(0, 4))))
            if rng.random() < 0.8:
                label = int(rng.integers(-1, 3)) if q % 7 else int(rng.integers(-1, 1))
                qrels.append((qid, f"d{d}", label))
        if q % 7 and q % 3 == 0:
            qrels.append((qid, "unretrieved", 1))
        if q % 5 == 0:
            qrels.append((qid, "judged_elsewhere", 0))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def per_query(qrels, run, measures, **options):
    frame = sqlrank.evaluate(qrels, run, measures, per_query=True, **options)
    return {(r.query_id, r.measure): r.value for r in frame.itertuples()}


def samples(qrels, run, unretrieved_last: bool):
    """Each query as scikit-learn's sample: its retrieved documents (relevant: label >= 1, unjudged ones not) and,
    with ``unretrieved_last``, its relevant documents the run did not score, scored below every retrieved one."""
    labels = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    for qid, docs in run.groupby("query_id"):
        truth = [int(labels.get((qid, d), 0) >= 1) for d in docs.doc_id]
        scores = list(docs.score)
        if unretrieved_last:
            retrieved = set(docs.doc_id)
            missing = [d for (q, d), r in labels.items() if q == qid and r >= 1 and d not in retrieved]
            truth += [1] * len(missing)
            scores += [min(scores) - 1.0] * len(missing)
        yield qid, np.array(truth), np.array(scores)


def test_average_precision_score_on_its_documentation_example():
    qrels = pd.DataFrame({"query_id": "q", "doc_id": list("abcd"), "relevance": [0, 0, 1, 1]})
    run = pd.DataFrame({"query_id": "q", "doc_id": list("abcd"), "score": [0.1, 0.4, 0.35, 0.8]})
    value = sqlrank.evaluate(qrels, run, "AP", preset="sklearn").value[0]
    assert value == pytest.approx(metrics.average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), abs=1e-12)
    assert value == pytest.approx(0.8333333333333333, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
def test_ap_with_tied_blocks_equals_average_precision_score(seed):
    """Every relevant document of a tied block gets the precision at the block's end; over the relevant documents
    retrieved; 0 for a query without one, as scikit-learn scores it (with a warning)."""
    qrels, run = generated(seed)
    explicit = "AP(tie_break=block,ap_denominator=retrieved_relevant)"
    got = per_query(qrels, run, explicit)
    preset = per_query(qrels, run, "AP", preset="sklearn")
    judged = set(qrels.query_id)
    assert {q for q, _ in got} == set(run.query_id) & judged  # a query without a judgment is not evaluated
    blocks = 0
    for qid, truth, scores in samples(qrels, run, unretrieved_last=False):
        if qid not in judged:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "No positive class found in y_true"
            expected = metrics.average_precision_score(truth, scores) if len(truth) > 1 or truth[0] else 0.0
        assert got[(qid, explicit)] == pytest.approx(expected, abs=1e-12), qid
        assert preset[(qid, "AP")] == pytest.approx(expected, abs=1e-12), qid
        blocks += len(set(scores)) < len(scores) and truth.any()
    assert blocks >= 20  # the blocks are the point
    trec = per_query(qrels, run, "AP(ap_denominator=retrieved_relevant)")
    assert sum(abs(trec[(q, "AP(ap_denominator=retrieved_relevant)")] - got[(q, explicit)]) > 1e-9
               for q, _ in got) >= 10  # and they change the values


def test_label_ranking_loss_on_its_documentation_example():
    qrels = pd.DataFrame({"query_id": ["a"] * 3 + ["b"] * 3, "doc_id": list("xyz") * 2, "relevance": [1, 0, 0, 0, 0, 1]})
    run = pd.DataFrame({"query_id": ["a"] * 3 + ["b"] * 3, "doc_id": list("xyz") * 2,
                        "score": [0.75, 0.5, 1, 1, 0.2, 0.1]})
    expected = metrics.label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    assert expected == pytest.approx(0.75)
    assert sqlrank.evaluate(qrels, run, "label_ranking_loss").value[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_label_ranking_loss_equals_scikit_learn(seed):
    """A tie of a relevant and a non-relevant document counts as wrong; a relevant document the run did not
    retrieve is below every retrieved one (scikit-learn sees it scored lowest); 0 with one class only."""
    qrels, run = generated(seed)
    got = per_query(qrels, run, "LabelRankingLoss")
    assert {q for q, _ in got} == set(run.query_id) & set(qrels.query_id)
    unretrieved = 0
    for qid, truth, scores in samples(qrels, run, unretrieved_last=True):
        if (qid, "LabelRankingLoss") not in got:
            continue
        # scikit-learn takes no sample of one label (a binary target): one class, so 0
        expected = metrics.label_ranking_loss([truth], [scores]) if len(truth) > 1 else 0.0
        assert got[(qid, "LabelRankingLoss")] == pytest.approx(expected, abs=1e-12), qid
        unretrieved += len(truth) > (run.query_id == qid).sum() and 0 < truth.sum() < len(truth)
    assert unretrieved >= 5


def test_tied_blocks_are_refused_where_they_mean_nothing():
    qrels, run = generated(5, n_queries=5)
    with pytest.raises(MeasureError, match="cutoff"):
        sqlrank.evaluate(qrels, run, "AP(tie_break=block)@10")
    with pytest.raises(MeasureError, match="cutoff"):
        sqlrank.evaluate(qrels, run, "AP@10", preset="sklearn")
    with pytest.raises(MeasureError, match="read by AP, LRAP, LabelRankingLoss only, not nDCG"):
        sqlrank.evaluate(qrels, run, "nDCG@10", tie_break="block")
