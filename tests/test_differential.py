"""Differential tests against pytrec_eval-terrier (trec_eval's C code) on generated data."""
from __future__ import annotations

import re

import pytest

import sqlrank
from conftest import close
from generate import generate, to_dicts

pytrec_eval = pytest.importorskip("pytrec_eval")

TREC_MEASURES = {"map", "P", "recall", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "success", "map_cut",
                 "num_ret", "num_rel", "num_rel_ret", "num_q"}
PLAIN = {"map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec", "num_ret": "NumRet",
         "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "num_q": "NumQ"}
CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}


def sqlrank_name(trec_name: str) -> str:
    if trec_name in PLAIN:
        return PLAIN[trec_name]
    base, k = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", trec_name).groups()
    return f"{CUT[base]}@{k}"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_per_query_values_match_pytrec_eval(seed, rel, judged_only):
    qrels, run = generate(seed)
    qrels_dict, run_dict = to_dicts(qrels, run)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, TREC_MEASURES, relevance_level=rel,
                                               judged_docs_only_flag=judged_only)
    expected = evaluator.evaluate(run_dict)
    trec_names = sorted(next(iter(expected.values())))
    if rel != 1:  # pytrec_eval's num_rel ignores the relevance level (a known defect)
        trec_names.remove("num_rel")
    names = [sqlrank_name(n) for n in trec_names]
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(qrels, run, names, per_query=True, rel=rel, judged_only=judged_only)
    canonical = {n: str(sqlrank.parse_measures(n)[0].resolve(rel)) for n in names}
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    assert set(got.query_id) == set(expected), "evaluated queries differ"
    mismatches, compared = [], 0
    for qid, measures in expected.items():
        for trec_name, name in zip(trec_names, names):
            compared += 1
            ours = values[(qid, canonical[name])]
            if not close(ours, measures[trec_name]):
                mismatches.append(f"{qid!r} {trec_name}: pytrec_eval {measures[trec_name]!r}, sqlrank {ours!r}")
    assert compared > 5000
    assert not mismatches, f"{len(mismatches)} of {compared} differ:\n" + "\n".join(mismatches[:20])


def test_generated_data_has_the_hard_cases():
    qrels, run = generate(1)
    scores = run.groupby("query_id")["score"]
    assert (scores.nunique() < scores.count()).mean() > 0.5, "most queries should have ties"
    assert (qrels.relevance < 0).any() and (qrels.relevance >= 4).any()
    assert set(qrels.query_id) - set(run.query_id) and set(run.query_id) - set(qrels.query_id)
    assert {"1", "01"} & set(qrels.query_id) or any("/" in q for q in qrels.query_id)
    judged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    assert judged.relevance.isna().mean() > 0.2, "many retrieved documents should be unjudged"
