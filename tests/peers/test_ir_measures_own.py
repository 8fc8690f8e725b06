"""ir_measures' own measures, those no other tool computes: Compat (Clarke, Vtyurina & Smucker's compatibility,
its compat provider) and Accuracy (its accuracy provider), against ir_measures itself per query on generated data
full of ties, graded, negative and unjudged labels and queries missing on one side. ir_measures orders tied scores
by its input's order, so the inputs are handed to it in the order of sqlrank's tie-break."""
from __future__ import annotations

import pandas as pd
import pytest

import sqlrank
from conftest import peer
from support.generate import generate

ir_measures = peer("ir_measures")


def per_query(qrels, run, measures, **options):
    frame = sqlrank.evaluate(qrels, run, measures, per_query=True, **options)
    return {(r.query_id, r.measure): r.value for r in frame.itertuples() if not pd.isna(r.value)}


@pytest.mark.parametrize("seed", [21, 22])
def test_compat_equals_ir_measures(seed):
    """The ranking's ties by doc_id ascending (ir_measures sorts the documents, then by score); the ideal's ties by
    the run's score (0 where unretrieved), then the judgments' order, here doc_id ascending too. A judged query
    the run misses scores 0 (ir_measures' evaluators fill them in: missing_queries=zero)."""
    qrels, run = generate(seed, n_queries=80, max_docs=25)
    qrels = qrels.sort_values(["query_id", "doc_id"], kind="stable")
    asked = {"Compat": ir_measures.Compat, "Compat(p=0.8)": ir_measures.Compat(p=0.8),
             "Compat(normalize=False)": ir_measures.Compat(normalize=False),
             "Compat(rel=2)": None}
    got = per_query(qrels, run, list(asked), tie_break="doc_id_asc", missing_queries="zero")
    expected = {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc([m for m in asked.values() if m is not None], qrels, run)}
    compared = 0
    for (qid, measure), value in expected.items():  # ir_measures names them as sqlrank does
        assert got[(qid, measure)] == pytest.approx(value, abs=1e-12), (qid, measure)
        compared += 1
    assert compared >= 3 * 60
    assert sum(0 < v < 1 for (_, m), v in got.items() if m == "Compat") >= 30  # neither all nor nothing
    # rel=2: ir_measures' ideal holds every label > 0; the same with the labels below 2 made 0
    graded = qrels.assign(relevance=qrels.relevance.where(qrels.relevance >= 2, 0))
    for m in ir_measures.iter_calc([ir_measures.Compat], graded, run):
        assert got[(m.query_id, "Compat(rel=2)")] == pytest.approx(m.value, abs=1e-12), m.query_id


def test_compat_on_a_worked_example():
    """The ranking w x y u against the ideal v (2) w x z (1): RBO at depths 1..4 with p = 0.95, over the ideal's."""
    qrels = pd.DataFrame({"query_id": "a", "doc_id": list("vwxyz"), "relevance": [2, 1, 1, 0, 1]})
    run = pd.DataFrame({"query_id": "a", "doc_id": list("wxyu"), "score": [3.0, 2.0, 2.0, 1.0]})
    # ideal v w x z; overlaps of the top d: d=1 {} 0, d=2 {w} 1, d=3 {w x} 2, d=4 {w x} 2
    weights = [0.95 ** (d - 1) for d in range(1, 5)]
    rbo = sum(w * o / d for d, (w, o) in enumerate(zip(weights, [0, 1, 2, 2]), 1))
    best = sum(w * 1.0 for w in weights)
    got = sqlrank.evaluate(qrels, run, "Compat Compat(normalize=False)", tie_break="doc_id_asc")
    assert list(got.value) == pytest.approx([rbo / best, rbo / sum(weights)], abs=1e-12)


@pytest.mark.parametrize("seed", [23, 24])
@pytest.mark.parametrize("measure", ["Accuracy", "Accuracy@5", "Accuracy(rel=2)@10"])
def test_accuracy_equals_ir_measures(seed, measure):
    """Per query, ir_measures called on that query alone: it divides by zero where the top k holds no document that
    is not relevant (sqlrank: 1) and reports nothing where it holds no relevant one (sqlrank: no value)."""
    qrels, run = generate(seed, n_queries=60, max_docs=25)
    run = run.sort_values(["query_id", "doc_id"], ascending=False, kind="stable")  # ties: doc_id descending
    got = per_query(qrels, run, measure)
    theirs = ir_measures.parse_measure(measure)
    compared = ones = 0
    for qid in sorted(set(run.query_id) & set(qrels.query_id)):
        try:
            values = [m.value for m in theirs.iter_calc(qrels[qrels.query_id == qid], run[run.query_id == qid])]
        except ZeroDivisionError:
            assert got[(qid, measure)] == 1.0, qid
            ones += 1
            continue
        if not values:
            assert (qid, measure) not in got, qid
            continue
        assert got[(qid, measure)] == pytest.approx(values[0], abs=1e-12), qid
        compared += 1
    assert compared >= 20
    mean = sqlrank.evaluate(qrels, run, measure).value[0]
    assert mean == pytest.approx(sum(got.values()) / len(got), abs=1e-12)


def test_accuracy_of_a_top_k_of_one_kind():
    """A top 2 of relevant documents only: no pair to misorder, 1 (ir_measures divides by zero there); a top 2 of
    documents not relevant: no value, left out of the mean, as ir_measures reports none."""
    qrels = pd.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "z"], "relevance": [1, 2, 1]})
    run = pd.DataFrame({"query_id": ["a", "a", "a", "b", "b", "b"], "doc_id": ["x", "y", "w", "u", "v", "z"],
                        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    with pytest.raises(ZeroDivisionError):
        list(ir_measures.Accuracy(cutoff=2).iter_calc(qrels, run))
    got = sqlrank.evaluate(qrels, run, "Accuracy@2 Accuracy", per_query=True)
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    assert values[("a", "Accuracy@2")] == 1.0 and pd.isna(values[("b", "Accuracy@2")])
    theirs = {m.query_id: m.value for m in ir_measures.Accuracy.iter_calc(qrels, run)}
    assert values[("a", "Accuracy")] == theirs["a"] == 1.0 and values[("b", "Accuracy")] == theirs["b"] == 0.0
    means = sqlrank.evaluate(qrels, run, "Accuracy@2 Accuracy").set_index("measure").value
    assert means["Accuracy@2"] == 1.0 and means["Accuracy"] == 0.5
