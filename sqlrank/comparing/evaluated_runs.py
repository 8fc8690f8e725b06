"""The runs of a comparison as evaluated: each run's per-query values and summary (``Runs``, which compare computes its
statistics from), the runs named and the baseline put first, and the route through another engine, where the values
are computed in the engine and only they come back."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engines.base import Rows
from ..errors import OptionError
from ..evaluation import evaluate_result, top_documents
from ..inputs.merge import input_names
from ..inputs.source import Source
from ..measures.registry import FAMILIES

if TYPE_CHECKING:
    import pandas as pd


def named_runs(loaded: list[tuple[str, Source]], names: list[str] | None, baseline: str | None) -> dict[str, Source]:
    """The runs compared, by name, the baseline first: ``loaded`` holds each input's name and run, or,
    for runs stored together, each of its runs under its run id; ``names`` renames them all, in that
    order; ``baseline`` names the run the others are compared with (default: the first)."""
    labels = [label for label, _ in loaded]
    if names is not None:
        if len(names) != len(loaded):
            stored = " (runs stored together count one each)" if any(s.only_run is not None for _, s in loaded) else ""
            raise OptionError(f"{len(names)} names for {len(loaded)} runs{stored}; give one name per run")
        labels = [str(n) for n in names]
    if len(loaded) < 2:
        raise OptionError("a comparison needs at least two runs: the baseline first, then the others (or one table "
                          "of runs stored together, with a run_id column)")
    if len(set(labels)) != len(labels):
        raise OptionError(f"run names must differ: {labels}; name them with names= (--names a,b,...)")
    runs = dict(zip(labels, (source for _, source in loaded)))
    if baseline is not None:
        if baseline not in runs:
            raise OptionError(f"baseline {baseline!r} is not one of the runs: {', '.join(labels)}")
        runs = {baseline: runs.pop(baseline), **runs}
    return runs


@dataclass
class Details:
    """What a report shows beside the comparison: each run's interpolated precision at the 11 recall levels
    (trec_eval's iprec_at_recall means, ``curves``: run -> 11 values) and each run's top ``depth`` documents of
    every compared query with their labels (``rankings``: (query_id as text, run) -> [(rank, doc_id, relevance)] by
    rank; relevance None: unjudged)."""

    curves: dict[str, list[float]]
    rankings: dict[tuple[str, str], list[tuple]]
    depth: int


RECALL_LEVELS = [f"{level / 10:.1f}" for level in range(11)]


@dataclass
class Runs:
    """Every run evaluated against the qrels: its per-query values (query_id, measure, value: a measure's value
    over all users with query_id None), each run's summary values by (segment, measure), the measures no paired
    test compares, and the warnings so far."""

    labels: list[str]
    frames: list[list[tuple]]
    summaries: dict[str, dict]
    measures: list
    conventions: str
    untested: list[str]
    segments: pd.DataFrame | None
    warnings: list[str]
    removed_seen: Any
    evaluated: list[int]  # each run's evaluated queries (those of measures over all users too)
    details: Details | None = None  # a report's curves and rankings


def untested(measures: list) -> list[str]:
    """The measures no paired test compares: one value per run (Coverage, Gini, GlobalAUC: over all users) or a mean
    that weighs each query differently in each run (GAUC)."""
    return [m.shown for m in measures if FAMILIES[m.family].aggregate in ("catalog", "weighted")]


def summary_values(pairs: list[tuple]) -> list[tuple[str, float]]:
    """(measure, value) pairs of a summary as its DataFrame has them: a value None is NaN."""
    return [(measure, math.nan if value is None else float(value)) for measure, value in pairs]


@dataclass(frozen=True)
class _Evaluated:
    """One run's values computed on another engine: the evaluation of its input, and its run id there (runs stored
    together; None for a run alone)."""

    only_run: str | None
    result: Any
    curve: list | None = None  # a report's: the run's mean interpolated precision at the 11 recall levels
    ranking: dict | None = None  # a report's: query_id -> [(rank, doc_id, relevance)] of the run's top documents

    def picked(self, table: Rows, *names: str) -> list[tuple]:
        """The columns NAMES of the rows of TABLE (the result's values or summary) that are this run's."""
        if self.only_run is None or "run_id" not in table.columns:
            return table.picked(*names)
        return [row[:-1] for row in table.picked(*names, "run_id") if row[-1] == self.only_run]


def evaluate_elsewhere(qrels: Any, runs: Any, measures: Any, names: list[str] | None, baseline: str | None,
                       queries: Any, by: str | None, options: dict[str, Any], details: int) -> Runs:
    """Each run input evaluated per query where the statement runs (PostgreSQL, ClickHouse, DataFusion, SQLite, Spark:
    its tables read in place, files copied there), one statement per input (runs stored together: one for all of
    them); the statistics are then computed here from those values, as from DuckDB's."""
    if queries is not None or by is not None:
        raise OptionError("a query table (queries=, by=) is read on DuckDB only: compare on DuckDB, or without "
                          "segments")
    inputs, objects = input_names(runs)
    loaded, warnings = [], []  # each input's run, or each of its runs stored together under its run id
    for name, run in zip(inputs, objects):
        result = evaluate_result(qrels, run, measures, True, **options)
        shown = _shown_elsewhere(qrels, run, result.run_ids(), options, details) if details else {}
        loaded += [(run_id or name, _Evaluated(run_id, result, *shown.get(run_id, (None, None))))
                   for run_id in result.run_ids()]
        warnings += [f"{name}: {w}" for w in result.warnings]
    evaluated = named_runs(loaded, names, baseline)
    frames, summaries = [], {}
    for label, one in evaluated.items():
        frames.append(one.picked(one.result.values(), "query_id", "measure", "value"))
        summaries[label] = {(None, measure): value for measure, value
                            in summary_values(one.picked(one.result.summary_table, "measure", "value"))}
    shown = None
    if details:
        shown = Details({label: one.curve for label, one in evaluated.items()},
                        {(query, label): rows for label, one in evaluated.items()
                         for query, rows in one.ranking.items()},
                        details)
    first = loaded[0][1].result
    return Runs(list(evaluated), frames, summaries, first.measures, first.conventions.describe(),
                untested(first.measures), None, warnings, first.removed_seen,
                [one.result.num_queries for one in evaluated.values()], shown)


def _shown_elsewhere(qrels: Any, run: Any, run_ids: list, options: dict[str, Any], depth: int) -> dict:
    """What a report shows of a run input evaluated on another engine, computed there as on DuckDB: per run id (None
    for a run alone) its mean interpolated precision at the 11 recall levels and its top DEPTH documents per query
    with their labels."""
    levels = [f"IPrec@{level}" for level in RECALL_LEVELS]
    curves = evaluate_result(qrels, run, " ".join(levels), False, **options)
    rows = top_documents(qrels, run, depth, **options)
    keyed = "run_id" in curves.summary_table.columns
    shown = {}
    for run_id in run_ids:
        values = dict(_Evaluated(run_id, curves).picked(curves.summary_table, "measure", "value"))
        ranking: dict = {}
        for query, rank, doc, relevance in rows.rows:
            owner, _, query = str(query).partition(chr(31)) if keyed else (None, "", str(query))
            if owner == run_id or not keyed:
                ranking.setdefault(query, []).append((rank, doc, relevance))
        shown[run_id] = ([None if values[m] is None else float(values[m]) for m in levels], ranking)
    return shown
