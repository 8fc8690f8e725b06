"""Seeded generated qrels and runs full of the cases that break evaluators.

Ties (scores from a small set), unjudged documents, graded labels 0-4 and negative labels,
ids that differ only in leading zeros or case, ids with '/' and '-', queries only in the run
and only in the qrels, queries without relevant documents. Scores are multiples of 1/8, so
they are exact as 32-bit floats (pytrec_eval compares floats).
"""
from __future__ import annotations

import random

import pandas as pd

QUERY_STYLES = ("{n}", "0{n}", "Q-{n}/x", "q{n}")


# Real-valued labels, as graded by LLMs or averaged over assessors: fractions, negatives, whole numbers.
REAL_LABELS = (-1.5, -0.25, 0.0, 0.1, 0.5, 0.7, 1.0, 1.25, 1.5, 2.0, 2.75, 3.0, 3.5)


def generate(seed: int, n_queries: int = 300, max_docs: int = 60, near_ties: bool = False,
             signed_zeros: bool = False, real_labels: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """near_ties adds scores that differ from a tie only beyond 32-bit float precision
    (1 + 1e-9): trec_eval 10 ranks them apart, trec_eval 9 and pytrec_eval as ties. signed_zeros
    writes half the scores of 0 as -0.0 (documents with ids of odd length), which IEEE equality ties
    with 0.0 and a total order of floats (Arrow's) ranks below it; the same random draws either way.
    real_labels draws the labels from REAL_LABELS (0.7, -0.25, 2.75, ...) instead."""
    rng = random.Random(seed)
    qrels_rows, run_rows = [], []
    for n in range(n_queries):
        qid = rng.choice(QUERY_STYLES).format(n=n)
        side = rng.random()
        in_run, in_qrels = side > 0.05, side < 0.95 or side > 0.97
        pool = [rng.choice(("d{}", "D{}", "doc-{}", "{}")).format(rng.randrange(200)) for _ in range(max_docs * 2)]
        pool = list(dict.fromkeys(pool))
        retrieved = rng.sample(pool, rng.randint(1, min(max_docs, len(pool)))) if in_run else []
        for doc in retrieved:
            score = rng.randrange(-8, 40) / 8
            if near_ties and rng.random() < 0.3:
                score += rng.choice((1e-9, -1e-9, 2e-9))
            if signed_zeros and score == 0 and len(doc) % 2:
                score = -0.0
            run_rows.append((qid, doc, score))
        if in_qrels:
            judged = set(rng.sample(retrieved, int(len(retrieved) * rng.random()))) if retrieved else set()
            judged |= set(rng.sample(pool, rng.randint(0, 15)))
            all_zero = rng.random() < 0.1
            for doc in sorted(judged):
                label = 0 if all_zero else rng.choice(REAL_LABELS) if real_labels else \
                    rng.choices((-2, -1, 0, 1, 2, 3, 4), (1, 1, 10, 5, 3, 2, 1))[0]
                qrels_rows.append((qid, doc, label))
            if not judged:
                qrels_rows.append((qid, "only-judgment", rng.choice((0, 1))))
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return qrels, run


def long_rankings(seed: int, n_queries: int, n_docs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rankings as long as a TREC run's (n_docs documents per query, 6-decimal scores), a fifth of them
    judged with grades 0-3, and judged documents the run did not retrieve."""
    rng = random.Random(seed)
    qrels_rows, run_rows = [], []
    for n in range(n_queries):
        qid = f"q{rng.randrange(10 ** 6)}-{n}"
        for d in range(n_docs):
            doc = f"D{rng.randrange(10 ** 7)}-{d}"
            run_rows.append((qid, doc, round(rng.random(), 6)))
            if rng.random() < 0.2:
                qrels_rows.append((qid, doc, rng.choices((0, 1, 2, 3), (5, 3, 2, 1))[0]))
        qrels_rows += [(qid, f"unretrieved-{k}", rng.randint(0, 3)) for k in range(rng.randint(0, 30))]
    return (pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]))


def to_dicts(qrels: pd.DataFrame, run: pd.DataFrame) -> tuple[dict, dict]:
    q: dict = {}
    for row in qrels.itertuples(index=False):
        q.setdefault(row.query_id, {})[row.doc_id] = int(row.relevance)
    r: dict = {}
    for row in run.itertuples(index=False):
        r.setdefault(row.query_id, {})[row.doc_id] = float(row.score)
    return q, r


def subtopic_judgments(seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judgments per subtopic (query_id, subtopic, doc_id, relevance) and a run: graded and negative labels, documents
    relevant to several subtopics, queries where nothing is relevant, tied scores, unjudged documents, a query on each
    side only."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(40):
        query = f"q{q}"
        subtopics = [f"{q}.{s}" for s in range(rng.randint(1, 6))]
        pool = [f"d{q}_{d}" for d in range(rng.randint(5, 40))]
        hopeless = q % 9 == 4  # judged, but nothing relevant to any subtopic
        if q != 37:  # q37 is in the run only
            for doc in pool:
                for subtopic in rng.sample(subtopics, rng.randint(1, len(subtopics))):
                    label = 0 if hopeless else rng.choice((-1, 0, 0, 1, 1, 2, 3))
                    qrels.append((query, subtopic, doc, label))
        if q == 38:  # q38 is in the qrels only
            continue
        retrieved = rng.sample(pool, min(len(pool), rng.randint(1, 30))) + [f"u{q}_{i}" for i in range(rng.randint(0, 8))]
        for doc in retrieved:
            run.append((query, doc, round(rng.uniform(0, 3), 1)))  # one decimal: many ties
    return (pd.DataFrame(qrels, columns=["query_id", "subtopic", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def sampled_rankings(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judgments and sampled rankings (query_id, sample, doc_id, score): one to five samples a query, tied scores."""
    rng = random.Random(seed)
    qrels, samples = [], []
    for q in range(25):
        query = f"q{q}"
        pool = [f"d{q}_{n}" for n in range(15)]
        for doc in rng.sample(pool, 10):
            qrels.append((query, doc, rng.choice((-1, 0, 0, 1, 1, 2, 3))))
        for s in range(rng.randint(1, 5)):
            for doc in rng.sample(pool, rng.randint(2, 12)):
                samples.append((query, f"s{s}", doc, round(rng.uniform(0, 2), 1)))  # ties
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(samples, columns=["query_id", "sample", "doc_id", "score"]))
