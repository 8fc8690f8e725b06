"""A small, obviously-correct pure-Python model of sqlrank's measures under its conventions.

Written from trec_eval's documented behaviour (docs/trec_eval_semantics.md)
and the conventions sqlrank names, not from sqlrank's SQL: plain loops over one explicit ranking per
query. The property tests compare it with sqlrank on generated data.

qrels: {query: {doc: label}}; run: {query: {doc: score}}.
"""
from __future__ import annotations

import math

FAMILIES = ("P", "R", "Success", "relative_P", "AP", "RR", "Rprec", "nDCG", "DCG", "CG", "Bpref", "NumRet",
            "NumRel", "NumRelRet", "SetP", "SetR", "Unj")


def ranking(docs: dict, tie_break: str) -> list:
    """Documents by score descending; ties by doc id descending (trec_eval, byte order) or ascending."""
    by_id = sorted(docs, key=lambda d: d.encode("utf-8"), reverse=(tie_break == "trec_eval"))
    return sorted(by_id, key=lambda d: -docs[d])  # stable: the id order survives within a tie


def evaluate(qrels: dict, run: dict, measure: str, k: int | None, c: dict) -> dict:
    """Per-query values of one measure (family name, cutoff) under conventions c."""
    queries = [q for q in qrels if q in run] if c["missing_queries"] == "skip" else list(qrels)
    return {q: value(qrels[q], run.get(q, {}), measure, k, c) for q in queries}


def _gain(label, c) -> float:
    if label is None:
        return 0.0
    if isinstance(c["gain"], dict) and label in c["gain"]:
        return float(c["gain"][label])
    if label <= 0:
        return 0.0
    return 2.0 ** label - 1 if c["gain"] == "exponential" else float(label)


def _discount(i: int, c) -> float:
    b = c["log_base"]
    if c["discount"] == "jarvelin":
        return 1.0 if i <= b else 1.0 / (math.log(i) / math.log(b))
    return 1.0 / (math.log(i + 1) / math.log(b))


def _dcg(gains: list, k: int | None, c) -> float:
    return sum(g * _discount(i, c) for i, g in enumerate(gains[:k] if k else gains, 1))


def value(judged: dict, docs: dict, measure: str, k: int | None, c: dict) -> float:
    rel = c["rel"]
    order = ranking(docs, c["tie_break"])
    if c["depth"] is not None:
        order = order[:c["depth"]]
    if c["judged_only"]:
        order = [d for d in order if judged.get(d) is not None and judged[d] >= 0]
    labels = [judged.get(d) for d in order]

    def relevant(label) -> bool:
        return label is not None and label >= 0 and label >= rel

    big_r = sum(relevant(x) for x in judged.values())
    top = labels[:k] if k else labels
    hits = sum(relevant(x) for x in top)
    if measure == "P":
        return hits / k
    if measure == "R":
        return hits / big_r if big_r else 0.0
    if measure == "Success":
        return 1.0 if hits else 0.0
    if measure == "relative_P":
        return hits / min(k, big_r) if big_r else 0.0
    if measure == "AP":
        found, total = 0, 0.0
        for i, x in enumerate(top, 1):
            if relevant(x):
                found += 1
                total += found / i
        denominator = {"num_rel": big_r, "retrieved_relevant": hits,
                       "min_num_rel_cutoff": min(big_r, k) if k else big_r}[c["ap_denominator"]]
        return total / denominator if denominator else 0.0
    if measure == "RR":
        return next((1.0 / i for i, x in enumerate(top, 1) if relevant(x)), 0.0)
    if measure == "Rprec":
        return sum(relevant(x) for x in labels[:big_r]) / big_r if big_r else 0.0
    if measure in ("nDCG", "DCG", "CG"):
        gains = [_gain(x, c) for x in labels]
        if measure == "CG":
            return sum(gains[:k] if k else gains)
        dcg = _dcg(gains, k, c)
        if measure == "DCG":
            return dcg
        if c["ideal"] == "perfect":
            best = max((_gain(x, c) for x in judged.values()), default=0.0)
            positions = k if k else len(labels)
            ideal = best * sum(_discount(i, c) for i in range(1, positions + 1)) if best > 0 else 0.0
        else:
            pool = judged.values() if c["ideal"] == "qrels" else labels
            ideal = _dcg(sorted((g for g in (_gain(x, c) for x in pool) if g > 0), reverse=True), k, c)
        return dcg / ideal if ideal else 0.0
    if measure == "Bpref":
        nonrel = sum(1 for x in judged.values() if x is not None and 0 <= x < rel)
        seen, total = 0, 0.0
        for x in labels:
            if x is None or x < 0:
                continue  # unjudged, or judged as unjudged (negative): skipped
            if relevant(x):
                total += 1.0 if min(nonrel, big_r) == 0 else 1 - min(seen, big_r) / min(nonrel, big_r)
            else:
                seen += 1
        return total / big_r if big_r else 0.0
    num_rel_ret = sum(relevant(x) for x in labels)
    if measure == "NumRet":
        return float(len(labels))
    if measure == "NumRel":
        return float(big_r)
    if measure == "NumRelRet":
        return float(num_rel_ret)
    if measure == "SetP":
        return num_rel_ret / len(labels) if labels else 0.0
    if measure == "SetR":
        return num_rel_ret / big_r if big_r else 0.0
    if measure == "Unj":
        return sum(1 for x in top if x is None or x < 0) / k
    raise ValueError(measure)
