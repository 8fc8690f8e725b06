"""Measure names: both syntaxes, canonical forms that parse back, clear errors."""
from __future__ import annotations

import pytest

from sqlrank import Measure, MeasureError, parse_measures
from sqlrank.measures import FAMILIES, TREC_CUTOFFS


def names(spec):
    return [str(m) for m in parse_measures(spec)]


@pytest.mark.parametrize("spec, expected", [
    ("nDCG@10", ["nDCG@10"]),
    ("AP(rel=2)@100", ["AP(rel=2)@100"]),
    ("P@5", ["P@5"]),
    ("ndcg_cut.10", ["nDCG@10"]),
    ("ndcg_cut_10", ["nDCG@10"]),
    ("P.5,10", ["P@5", "P@10"]),
    ("map", ["AP"]),
    ("map_cut.5,1000", ["AP@5", "AP@1000"]),
    ("recip_rank", ["RR"]),
    ("RR@10", ["RR@10"]),
    ("Rprec", ["Rprec"]),
    ("recall.1000", ["R@1000"]),
    ("success.1,5", ["Success@1", "Success@5"]),
    ("num_q num_ret num_rel num_rel_ret", ["NumQ", "NumRet", "NumRel", "NumRelRet"]),
    ("NumRel(rel=2)", ["NumRel(rel=2)"]),
    ("ndcg", ["nDCG"]),
    ("dcg", ["DCG"]),
    ("DCG@6 CG@5", ["DCG@6", "CG@5"]),
    ("MAP MRR ndcg@10 Recall@5", ["AP", "RR", "nDCG@10", "R@5"]),
    ("success", ["Success@1", "Success@5", "Success@10"]),
    ("nDCG@10 nDCG@10", ["nDCG@10"]),
    ("  AP   P@10\tnDCG@5\n", ["AP", "P@10", "nDCG@5"]),
])
def test_parse(spec, expected):
    assert names(spec) == expected


def test_bare_cutoff_measures_take_trec_eval_defaults():
    assert names("P") == [f"P@{k}" for k in TREC_CUTOFFS]
    assert names("ndcg_cut") == [f"nDCG@{k}" for k in TREC_CUTOFFS]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_canonical_names_parse_back(family):
    spec = FAMILIES[family]
    cutoffs = [None] if spec.cutoff == "none" else ([7] if spec.cutoff == "required" else [None, 7])
    rels = [None, 0, 3] if "rel" in spec.params else [None]
    for cutoff in cutoffs:
        for rel in rels:
            m = Measure(family, cutoff, rel)
            assert parse_measures(str(m)) == [m], str(m)


def test_resolve_shows_only_non_default_rel():
    assert str(Measure("P", 10).resolve(2)) == "P(rel=2)@10"
    assert str(Measure("P", 10).resolve(1)) == "P@10"
    assert str(Measure("P", 10, 3).resolve(2)) == "P(rel=3)@10"
    assert str(Measure("nDCG", 10).resolve(2)) == "nDCG@10"


@pytest.mark.parametrize("spec, message", [
    ("nDGC@10", "did you mean 'nDCG'"),
    ("Presision@5", "did you mean"),
    ("P@0", "positive integer"),
    ("P@-1", "positive integer"),
    ("P@x", "bad cutoff"),
    ("P@1.5", "bad cutoff"),
    ("P(2)@5", "must be named"),
    ("AP(gain=1)", "no parameter 'gain'"),
    ("AP(rel=-1)", "rel must be an integer >= 0"),
    ("AP(rel=1.5)", "rel must be an integer >= 0"),
    ("AP(rel=True)", "rel must be an integer >= 0"),
    ("NumQ@5", "takes no cutoff"),
    ("ndcg_cut.", "no cutoff after the dot"),
    ("ndcg_cut.ten", "bad trec_eval parameters"),
    ("map.5", "takes no parameters"),
    ("", "no measure given"),
    ("x" * 300, "longer than"),
])
def test_errors(spec, message):
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_measures(spec)
