"""sqlrank as an ir_measures provider: with it registered, ir_measures.iter_calc and calc_aggregate
give what ir_measures' default provider gives, per query, for every measure both take, on generated
data with ties, near-ties, unjudged documents, graded and negative labels and queries on one side."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from support.tiers import tiered
from conftest import peer
from support.generate import generate, to_dicts

ir_measures = peer("ir_measures")
from ir_measures import (AP, IPrec, NumQ, NumRel, NumRet, P, R, RR, SetAP, SetF, SetP, SetR,  # noqa: E402
                         Bpref, Rprec, Success, infAP, nDCG)

import sqlrank.export.ir_measures as provider  # noqa: E402

MEASURES = [
    P@5, P@10, P(rel=2)@10, P(judged_only=True)@10, AP, AP@100, AP(rel=2), AP(judged_only=True), RR, RR(rel=2),
    Rprec, Rprec(rel=2), nDCG, nDCG@10, nDCG@3, nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7, 4: 15})@10,
    nDCG(judged_only=True)@10, R@10, R@1000, Bpref, Bpref(rel=2), NumRet, NumRet(rel=1), NumRet(rel=2), NumQ,
    NumRel, SetAP, SetF, SetF(beta=0.5), SetP, SetP(relative=True), SetR, Success@1, Success@10,
    Success(rel=2)@5, IPrec@0.0, IPrec@0.3, IPrec@1.0, infAP, infAP(rel=2),
]


def data(seed: int, n_queries: int = 150):
    """Generated qrels and run, without the queries whose judgments are all negative: trec_eval's C
    code (the default provider's pytrec_eval) crashes on those (a fault of trec_eval, docs/trec_eval.md)."""
    qrels, run = generate(seed, n_queries=n_queries, near_ties=True)
    negative = qrels.groupby("query_id")["relevance"].max() < 0
    drop = set(negative[negative].index)
    return qrels[~qrels.query_id.isin(drop)], run[~run.query_id.isin(drop)]


def default_values(measures, qrels: dict, run: dict) -> dict:
    """ir_measures' default provider's per-query values, each measure in a fresh process: pytrec_eval
    keeps measure parameters in trec_eval's static state, so a custom nDCG gain map, or NumRet(rel=1),
    computed in the same process changes plain nDCG or NumRet (found here: values that depended on
    the hash seed)."""
    script = ("import json, sys, ir_measures\n"
              "measures, qrels, run = json.load(sys.stdin)\n"
              "measures = [ir_measures.parse_measure(m) for m in measures]\n"
              "print(json.dumps([[m.query_id, str(m.measure), m.value] "
              "for m in ir_measures.iter_calc(measures, qrels, run)]))\n")
    values = {}
    for group in ([m] for m in measures):  # one process each: the provider's invocations share that state
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps([[str(m) for m in group], qrels, run]),
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        values.update({(q, name): value for q, name, value in json.loads(done.stdout)})
    return values


@pytest.fixture
def registered(monkeypatch):
    """sqlrank first in ir_measures' default pipeline, and a count of the evaluations it ran."""
    calls = []
    original = provider.Evaluator.evaluate
    monkeypatch.setattr(provider.Evaluator, "evaluate", lambda self, *a, **k: calls.append(self.measures)
                        or original(self, *a, **k))
    provider.register()
    yield calls
    provider.unregister()


def test_every_measure_is_one_the_default_provider_takes_too():
    default = ir_measures.providers.registry["pytrec_eval"]
    for measure in MEASURES:
        assert provider.PROVIDER.supports(measure) and default.supports(measure), measure


@pytest.mark.parametrize("seed", tiered([21, 22]))
def test_iter_calc_on_sqlrank_gives_the_default_providers_values(seed, registered):
    qrels, run = data(seed)
    qrels_dict, run_dict = to_dicts(qrels, run)
    expected = default_values(MEASURES, qrels_dict, run_dict)
    got = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(MEASURES, qrels_dict, run_dict)}
    assert len(registered) == 1 and len(registered[0]) >= len(MEASURES) - 2  # sqlrank computed them, in one call
    assert got.keys() == expected.keys() and len(got) > 5000
    differ = [f"{key}: default {expected[key]!r}, sqlrank {got[key]!r}" for key in expected
              if not (math.isclose(got[key], expected[key], rel_tol=0, abs_tol=1e-9)
                      or (math.isnan(expected[key]) and math.isnan(got[key])))]
    assert not differ, f"{len(differ)} differ:\n" + "\n".join(differ[:20])


def test_calc_aggregate_and_pandas_inputs(registered):
    qrels, run = data(23, n_queries=80)
    got = ir_measures.calc_aggregate([nDCG@10, AP, P@10], qrels, run)  # DataFrames, as ir_measures takes them
    per_query = default_values([nDCG@10, AP, P@10], *to_dicts(qrels, run))
    expected = {m: sum(v for (_, name), v in per_query.items() if name == str(m)) / len(set(qrels.query_id))
                for m in (nDCG@10, AP, P@10)}
    assert registered and all(math.isclose(got[m], expected[m], abs_tol=1e-9) for m in expected)


def test_unregister_restores_the_pipeline():
    before = list(ir_measures.DefaultPipeline.providers)
    provider.register()
    assert ir_measures.DefaultPipeline.providers[1] is provider.PROVIDER
    assert ir_measures.providers.registry["sqlrank"] is provider.PROVIDER
    provider.unregister()
    assert ir_measures.DefaultPipeline.providers == before and "sqlrank" not in ir_measures.providers.registry


def test_diversity_and_cwl_measures_give_pyndeval_and_cwl_evals_values():
    """The diversity measures (ir_measures' pyndeval provider) and INST, INSQ and BPM (its cwl_eval provider, which
    clips labels to [min_rel, max_rel] and rescales them) give per query what those providers give."""
    peer("pyndeval")
    peer("cwl")
    from ir_measures import (AP_IA, BPM, INSQ, INST, NRBP, P_IA, ERR_IA, StRecall, alpha_nDCG, nERR_IA,  # noqa: E402
                             nNRBP)
    from support.generate import subtopic_judgments

    qrels, run = subtopic_judgments(11)
    qrels = qrels.rename(columns={"subtopic": "iteration"})
    measures = [alpha_nDCG@10, alpha_nDCG(alpha=0.25)@5, ERR_IA@20, nERR_IA@10, NRBP, nNRBP(beta=0.75), P_IA@5, AP_IA,
                StRecall@10, INST(max_rel=3), INSQ(T=2.0, max_rel=2), BPM(max_rel=3)@10, BPM(T=2.0, min_rel=1, max_rel=3)@5]
    # one measure at a time: ir_measures' pyndeval provider reads the run once, so a second invocation (another
    # alpha) of the same call sees no run and gives 0 (ir_measures 0.4)
    expected = {(m.query_id, str(m.measure)): m.value for measure in measures
                for m in ir_measures.iter_calc([measure], qrels, run)}
    provider.register()
    try:
        got = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    finally:
        provider.unregister()
    assert got.keys() == expected.keys() and len(got) > 400
    differ = [f"{key}: {expected[key]!r} vs sqlrank {got[key]!r}" for key in expected
              if not (math.isclose(got[key], expected[key], abs_tol=1e-9) or (math.isnan(expected[key]) and got[key] == 0))]
    assert not differ, "\n".join(differ[:20])
