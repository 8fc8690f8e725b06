"""A small, obviously-correct reference of measures over one explicit ranking (pure Python).

labels: the label of each retrieved document in rank order; None for unjudged documents.
judged: every label of the query's judgments (for R and the ideal ranking).
"""
from __future__ import annotations

import math


def relevant(label, rel=1):
    return label is not None and label >= rel


def precision(labels, k, rel=1):
    return sum(relevant(x, rel) for x in labels[:k]) / k


def hits(labels, k=None, rel=1):
    return float(sum(relevant(x, rel) for x in labels[:k]))


def precision_over_retrieved(labels, k, rel=1):
    """Elasticsearch's precision: the relevant among the top k over the documents there (0 when none)."""
    top = labels[:k]
    return sum(relevant(x, rel) for x in top) / len(top) if top else 0.0


def recall(labels, judged, k, rel=1):
    r = sum(relevant(x, rel) for x in judged)
    return sum(relevant(x, rel) for x in labels[:k]) / r if r else 0.0


def average_precision(labels, judged, k=None, rel=1):
    r = sum(relevant(x, rel) for x in judged)
    hits, total = 0, 0.0
    for i, x in enumerate(labels[:k] if k else labels, 1):
        if relevant(x, rel):
            hits += 1
            total += hits / i
    return total / r if r else 0.0


def reciprocal_rank(labels, k=None, rel=1):
    for i, x in enumerate(labels[:k] if k else labels, 1):
        if relevant(x, rel):
            return 1.0 / i
    return 0.0


def success(labels, k, rel=1):
    return 1.0 if any(relevant(x, rel) for x in labels[:k]) else 0.0


def gain(label, kind="linear"):
    """The label (linear) or 2^label - 1 (exponential) for a label > 0 (real numbers too); else 0."""
    if label is None or label <= 0:
        return 0.0
    return float(label) if kind == "linear" else 2.0 ** label - 1


def dcg(labels, k=None, kind="linear"):
    return sum(gain(x, kind) / math.log2(i + 1) for i, x in enumerate(labels[:k] if k else labels, 1))


def ndcg(labels, judged, k=None, kind="linear"):
    ideal = sorted((gain(x, kind) for x in judged if gain(x, kind) > 0), reverse=True)
    best = sum(g / math.log2(i + 1) for i, g in enumerate(ideal[:k] if k else ideal, 1))
    return dcg(labels, k, kind) / best if best else 0.0


def err(labels, k=None, max_rel=4):
    """Expected reciprocal rank (Chapelle et al. 2009): the chance to stop at rank i is
    (2^label - 1) / 2^max_rel (0 for labels <= 0 and unjudged documents)."""
    value, going_on = 0.0, 1.0
    for i, x in enumerate(labels[:k] if k else labels, 1):
        stop = (2.0 ** x - 1) / 2.0 ** max_rel if x is not None and x > 0 else 0.0
        value += going_on * stop / i
        going_on *= 1 - stop
    return value


def weighted_dcg(labels, weights, judged=None):
    """DCG with a weight for each rank (a mapping rank -> weight; a rank left out weighs 0); with
    judged, divided by the same sum over the ideal ordering of judged."""
    value = sum(gain(x) * weights.get(i, 0.0) for i, x in enumerate(labels, 1))
    if judged is None:
        return value
    best = sum(g * weights.get(i, 0.0) for i, g in enumerate(sorted((gain(x) for x in judged), reverse=True), 1))
    return value / best if best else 0.0


def cumulative_gain(labels, k):
    return sum(gain(x) for x in labels[:k])


def rprec(labels, judged, rel=1):
    r = sum(relevant(x, rel) for x in judged)
    return sum(relevant(x, rel) for x in labels[:r]) / r if r else 0.0


def fall_out(labels, judged, k=None, rel=1, none=0.0, retrieved=False):
    """Judged non-relevant documents (0 <= label < rel) in the top k over all of the query's; `none`
    where the query has none (TorchMetrics' RetrievalFallOut: 1.0 by default). retrieved=True: every
    retrieved document that is not relevant (unjudged too) over all such retrieved documents."""
    def counts(x):
        return (x is None or x < rel) if retrieved else (x is not None and 0 <= x < rel)
    nonrelevant = sum(map(counts, labels if retrieved else judged))
    found = sum(map(counts, labels[:k] if k else labels))
    return found / nonrelevant if nonrelevant else none


def judged_share(labels, k=None):
    """ir_measures' Judged: documents with a judgment (any label) in the top k over min(k, retrieved)."""
    top = labels[:k] if k else labels
    return sum(x is not None for x in top) / len(top) if top else 0.0


def unjudged(labels, k):
    return sum(x is None or x < 0 for x in labels[:k]) / k


def rbp(labels, judged, p=0.9, gain="linear"):
    """trec_eval's RBP: each gain over the top label's (the top label when above 1, else 1); with gain=exponential
    2^label - 1 over 2^top - 1."""
    top = max([x for x in judged if x >= 0], default=0)
    if gain == "exponential":
        scale = 2 ** top - 1 if top > 1 else 1
        return (1 - p) * sum(((2 ** x - 1) / scale if x is not None and x > 0 else 0.0) * p ** i
                             for i, x in enumerate(labels))
    scale = top if top > 1 else 1
    return (1 - p) * sum((x / scale if x is not None and x > 0 else 0.0) * p ** i for i, x in enumerate(labels))
