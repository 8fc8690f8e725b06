"""tie_break=expected equals the brute-force mean over every order of tied documents."""
from __future__ import annotations

import itertools
import random
import statistics

import pandas as pd
import pytest

from support import reference as ref
import sqlrank
from conftest import close

MEASURES = {
    "P@3": lambda l, j: ref.precision(l, 3),
    "P(denominator=retrieved)@5": lambda l, j: ref.precision_over_retrieved(l, 5),
    "Hits@3": lambda l, j: ref.hits(l, 3),
    "Hits(rel=2)": lambda l, j: ref.hits(l, rel=2),
    "R@4": lambda l, j: ref.recall(l, j, 4),
    "AP": lambda l, j: ref.average_precision(l, j),
    "AP@3": lambda l, j: ref.average_precision(l, j, 3),
    "AP(rel=2)": lambda l, j: ref.average_precision(l, j, rel=2),
    "RR": lambda l, j: ref.reciprocal_rank(l),
    "RR@2": lambda l, j: ref.reciprocal_rank(l, 2),
    "Success@2": lambda l, j: ref.success(l, 2),
    "nDCG": lambda l, j: ref.ndcg(l, j),
    "nDCG@3": lambda l, j: ref.ndcg(l, j, 3),
    "DCG@4": lambda l, j: ref.dcg(l, 4),
    "DCG(discount={1:1,2:0.5,4:0.25})": lambda l, j: ref.weighted_dcg(l, {1: 1, 2: 0.5, 4: 0.25}),
    "nDCG(discount={1:1,3:0.5})@3": lambda l, j: ref.weighted_dcg(l, {1: 1, 3: 0.5}, j),
    "CG@3": lambda l, j: ref.cumulative_gain(l, 3),
    "Rprec": lambda l, j: ref.rprec(l, j),
    "Unj@3": lambda l, j: ref.unjudged(l, 3),
    "RBP": lambda l, j: ref.rbp(l, j),
    "FallOut@3": lambda l, j: ref.fall_out(l, j, 3),
    "Judged@4": lambda l, j: ref.judged_share(l, 4),
    "FallOut(rel=2)": lambda l, j: ref.fall_out(l, j, rel=2),
    "FallOut(nonrelevant=retrieved,no_nonrelevant=one)@2": lambda l, j: ref.fall_out(l, j, 2, none=1.0,
                                                                                     retrieved=True),
}


def case(seed):
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(4):
        docs = [f"d{i}" for i in range(rng.randint(3, 8))]
        for d in docs:
            run.append((f"q{q}", d, float(rng.choice((1, 2, 2, 3, 3, 3)))))
            if rng.random() < 0.8:
                qrels.append((f"q{q}", d, rng.choice((0, 0, 1, 2, 3))))
        qrels.append((f"q{q}", "unretrieved", rng.choice((0, 1, 2))))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def brute_force(qrels, run, measure):
    """Mean over all orders of tied documents, per query."""
    out = {}
    for qid, docs in run.groupby("query_id"):
        labels = dict(zip(qrels[qrels.query_id == qid].doc_id, qrels[qrels.query_id == qid].relevance))
        judged = list(labels.values())
        groups = [list(g.doc_id) for _, g in docs.groupby("score", sort=True)][::-1]  # best score first
        values = []
        for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
            ranking = [labels.get(d) for group in orders for d in group]
            values.append(MEASURES[measure](ranking, judged))
        out[qid] = statistics.fmean(values)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_expected_equals_brute_force(seed):
    qrels, run = case(seed)
    assert run.groupby(["query_id", "score"]).size().max() >= 3, "the case should have real ties"
    names = list(MEASURES)
    got = sqlrank.evaluate(qrels, run, [f"{n[:n.index('@')] if '@' in n else n}" for n in []] + names,
                           per_query=True, tie_break="expected", missing_queries="zero")
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    for name in names:
        expected = brute_force(qrels, run, name)
        canonical = sqlrank.parse_measures(name)[0].resolve(
            sqlrank.measures.conventions.resolve_conventions(tie_break="expected", missing_queries="zero")).shown
        for qid, value in expected.items():
            assert close(values[(qid, canonical)], value), f"{name} {qid}: sqlrank {values[(qid, canonical)]}, brute force {value}"


def test_expected_is_refused_where_no_closed_form():
    qrels, run = case(0)
    with pytest.raises(sqlrank.MeasureError, match="not available for Bpref"):
        sqlrank.evaluate(qrels, run, "Bpref", tie_break="expected")
    with pytest.raises(sqlrank.MeasureError, match="cannot be combined with depth"):
        sqlrank.evaluate(qrels, run, "P@3", tie_break="expected", depth=5)


def test_per_measure_tie_breaks_in_one_statement():
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d1", "d2", "d3"], "relevance": [1, 0, 0]})
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d1", "d2", "d3"], "score": [1.0, 1.0, 1.0]})
    got = sqlrank.evaluate(qrels, run, "RR RR(tie_break=doc_id_asc) RR(tie_break=expected)")
    # docs/trec_eval_semantics.md E1: trec_eval ranks d3, d2, d1 (RR 1/3); doc_id ascending d1 first (1); the mean 11/18
    assert list(got.measure) == ["RR", "RR(tie_break=doc_id_asc)", "RR(tie_break=expected)"]
    assert close(got.value[0], 1 / 3) and close(got.value[1], 1.0) and close(got.value[2], (1 + 1 / 2 + 1 / 3) / 3)
