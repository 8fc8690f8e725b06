"""The runs of a comparison as evaluated: each run's per-query values and summary (``Runs``, which compare computes its
statistics from), the runs named and the baseline put first, and the route through another engine, where the values
are computed in the engine and only they come back."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engines.base import Rows
from ..errors import OptionError
from ..evaluation import evaluate_result
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
    details: Any = None  # compare.Details: a report's curves and rankings


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
    if details:
        raise OptionError("the HTML report shows each run's top documents, read on DuckDB only: write the report on "
                          "DuckDB, or its tables from the engine: format='markdown' or 'latex' (-f markdown, -f latex)")
    inputs, objects = input_names(runs)
    loaded, warnings = [], []  # each input's run, or each of its runs stored together under its run id
    for name, run in zip(inputs, objects):
        result = evaluate_result(qrels, run, measures, True, **options)
        loaded += [(run_id or name, _Evaluated(run_id, result)) for run_id in result.run_ids()]
        warnings += [f"{name}: {w}" for w in result.warnings]
    evaluated = named_runs(loaded, names, baseline)
    frames, summaries = [], {}
    for label, one in evaluated.items():
        frames.append(one.picked(one.result.values(), "query_id", "measure", "value"))
        summaries[label] = {(None, measure): value for measure, value
                            in summary_values(one.picked(one.result.summary_table, "measure", "value"))}
    first = loaded[0][1].result
    return Runs(list(evaluated), frames, summaries, first.measures, first.conventions.describe(),
                untested(first.measures), None, warnings, first.removed_seen,
                [one.result.num_queries for one in evaluated.values()])
