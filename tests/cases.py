"""Shared test cases: every measure of the registry in a few variants, and the convention sets the
engine tiers (DuckDB by hand, Spark, the rendered-SQL snapshots) evaluate them under."""
from __future__ import annotations

import math

from sqlrank.measures import FAMILIES, Measure


def all_measures() -> list[Measure]:
    """Each family with and without its cutoff, and with rel=2 or a gain map where it takes them
    (the measures beyond accuracy aside)."""
    out = []
    for family, spec in FAMILIES.items():
        if spec.beyond_accuracy:  # they read extra inputs: tests/test_recommenders.py evaluates them
            continue
        k = 10 if spec.cutoff_kind == "rank" else 0.5
        cutoffs = [None] if spec.cutoff == "none" else ([k] if spec.cutoff == "required" else [None, k])
        variants = [{}]
        if "rel" in spec.params:
            variants.append({"rel": 2})
        if "gain" in spec.params:
            variants.append({"gain": {1: 3, 2: 9}})
        out += [Measure(family, c, v) for c in cutoffs for v in variants]
    return out


# Each statement evaluates every measure at once (80 columns) under one set of conventions.
CONVENTIONS = [
    {},
    {"tie_break": "doc_id_asc", "missing_queries": "zero", "rel": 2},
    {"tie_break": "expected"},
    {"gain": "exponential", "discount": "jarvelin", "log_base": math.e, "ideal": "run"},
    {"ideal": "perfect", "ap_denominator": "retrieved_relevant", "judged_only": True},
    {"depth": 7, "ap_denominator": "min_num_rel_cutoff", "trec_eval_version": 9},
    {"tie_break": "input_rank", "gain": {1: 3, 2: 9, 3: 20}, "rel": 0},
]


def measures_for(conventions: dict) -> list[str]:
    """The names of all_measures() that these conventions allow (tie_break=expected needs the
    family's closed form)."""
    expected = conventions.get("tie_break") == "expected"
    return [str(m) for m in all_measures() if not expected or FAMILIES[m.family].tie_expected]


def convention_id(conventions: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in conventions.items()) or "trec_eval"
