"""The public functions of judging: sqlrank.agree, sqlrank.pool and sqlrank.meta."""
from __future__ import annotations

import warnings as _warnings
from typing import Any

from ..errors import SqlrankWarning


def agree(qrels_a: Any, qrels_b: Any, binary: int | None = None, weights: str | None = None, labels: Any = None,
          **options: Any):
    """Agreement of two sets of judgments over the documents both judged: an ``Agreement`` with Cohen's
    ``kappa`` (``weights``: None, "linear" or "quadratic" over the grades' positions), the ``observed``
    agreement, the ``confusion`` matrix (a DataFrame: the first set's labels as rows), ``per_query``
    values, and the documents only one side judged (``only_a``, ``only_b``). ``binary=REL`` thresholds
    the labels first; ``labels=[0, 1]`` keeps the documents both sides gave one of these labels (in this order:
    the weights' positions), as scikit-learn's ``cohen_kappa_score(labels=...)``. The inputs are read as qrels are
    (files, DataFrames, tables; ``qrels_format``, ``qrels_columns``).

    >>> sqlrank.agree("assessor_1.txt", "llm_grades.csv", weights="linear").kappa   # doctest: +SKIP
    """
    from .agree import agree as agreement

    return agreement(qrels_a, qrels_b, binary=binary, weights=weights, labels=labels, **options)


def pool(runs: Any, depth: int | None = None, method: str = "depth", budget: int | None = None, qrels: Any = None,
         **options: Any):
    """The documents to judge next, as ``sqlrank pool`` finds them: a DataFrame of query_id, doc_id, weight per query in
    order of weight. ``runs``: one run or a list of them (files, DataFrames, tables; runs stored together are pooled
    run by run); ``depth=K``: TREC depth-k pooling (the union of every run's top K; weight: the best rank), or
    ``method="rrf"`` / ``"rbp"`` with ``budget`` documents per query; ``qrels``: judgments (one or a list) whose
    documents are left out. Options: ``tie_break``, ``rrf_k``, ``rbp_p``, ``run_format``/``run_columns``,
    ``qrels_format``/``qrels_columns``, ``connection``. ``attrs["runs"]``: how many runs were pooled.

    >>> sqlrank.pool(["bm25.run", "dense.run"], depth=30, qrels="human.txt")   # doctest: +SKIP
    """
    from .pool import pool as pooled

    def listed(obj: Any) -> list:
        return list(obj) if isinstance(obj, (list, tuple)) else [obj]

    return pooled(listed(runs), depth=depth, method=method, budget=budget, qrels=[] if qrels is None else listed(qrels),
                  **options)


def meta(qrels_a: Any, qrels_b: Any, runs: Any, measures: Any, test: str = "permutation", trials: int = 1000,
         seed: int | None = 0, alpha: float = 0.05, **options: Any):
    """Meta-evaluation: do two sets of judgments rank the runs (three or more) alike? A DataFrame with one row
    per measure: runs, tau_b and tau_ap (the runs' means under qrels_b against those under qrels_a), swapped
    (pairs of runs ordered differently), pairs, and power_a, power_b (Sakai's discriminative power: the share
    of pairs of runs the paired ``test`` finds different at ``alpha``). ``attrs["rankings"]``: each measure's
    ranking under both; ``attrs["asl"]``: each pair's p-value (achieved significance level) under each."""
    from .meta import meta as meta_evaluation

    result = meta_evaluation(qrels_a, qrels_b, runs, measures, test=test, trials=trials, seed=seed, alpha=alpha,
                             **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    frame = result.table
    frame.attrs.update(rankings=result.rankings, asl=result.asl, test=test, alpha=alpha)
    return frame
