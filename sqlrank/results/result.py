"""Results: what an evaluation gives back (Rows, Result), printed as a table, CSV, TSV, JSON or
trec_eval's layout (written out by outputs.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..engines.base import Rows
from ..measures.conventions import Conventions
from ..measures.measure import Measure, counted, named_as_asked

if TYPE_CHECKING:  # pandas is imported by DuckDB when a DataFrame is asked for, not at start-up
    import pandas as pd


@dataclass
class Result:
    """What an evaluation produced: the values, the SQL that computed them, and how.

    ``table`` is what was asked for (per query, or the summary); ``summary_table`` is the
    aggregate over queries, computed in the same statement; ``frame`` and ``summary`` are
    the same as pandas DataFrames.
    """

    table: Rows
    summary_table: Rows
    sql: str
    conventions: Conventions
    measures: list[Measure]
    per_query: bool
    num_queries: int
    warnings: list[str] = field(default_factory=list)
    query_label: str = "query_id"  # what printed results call query ids: the inputs' own name (user_id)
    removed_seen: bool = False  # the run was evaluated without each user's history items (remove_seen)
    # the queries each measure's mean is over, for measures that may have no value for some queries
    # (measures.counted), per run: {run_id: {measure: count}}, run_id None for one run
    valued: dict[str | None, dict[str, int]] = field(default_factory=dict)
    real_labels: bool = False  # some judgment label has a fraction (0.7): labels were read as real numbers
    judgments: Any = None  # inputs.merge.Judgments: judgments merged from several sources, with their counts
    input_rows: tuple[int | None, int | None] = (None, None)  # the rows validation counted in the qrels and the run
    query_type: str = "VARCHAR"  # the run's query id type as read: a DataFrame gives integer ids back as integers
    left_out: int | None = None  # the run's queries with a ranking that are not evaluated (None: not counted)

    def queries(self, measure: str, run_id: str | None = None) -> int:
        """How many queries the measure's mean (of that run) is over."""
        return self.valued.get(run_id, {}).get(measure, self.num_queries)

    def run_ids(self) -> list[str | None]:
        """The runs of runs stored together, in the summary's order; [None] for one run."""
        if "run_id" not in self.summary_table.columns:
            return [None]
        at = self.summary_table.columns.index("run_id")
        return list(dict.fromkeys(row[at] for row in self.summary_table.rows))

    @cached_property
    def frame(self) -> "pd.DataFrame":
        return self.values().frame()

    def values(self) -> Rows:
        """The rows asked for, where a measure has one value over all queries and none per query
        (Coverage, Gini, GlobalAUC: ``aggregate="catalog"``) its per-query rows replaced by that value
        with an empty query_id: what the DataFrame, CSV, TSV and JSON carry."""
        whole = {m.shown for m in self.measures if m.spec.aggregate == "catalog"}
        if not self.per_query or not whole or "query_id" not in self.table.columns:
            return self.table
        measure = self.table.columns.index("measure")
        query = self.table.columns.index("query_id")
        kept = [row for row in self.table.rows if row[measure] not in whole]
        overall = [row[:query] + (None,) + row[query:] for row in self.summary_table.rows
                   if row[self.summary_table.columns.index("measure")] in whole]
        return Rows(self.table.columns, kept + overall)

    @cached_property
    def summary(self) -> "pd.DataFrame":
        return self.summary_table.frame()


def shape(table: Rows, p, per_query: bool, num_queries: int, warnings: list[str], left_out: int | None = None) -> Result:
    """The rows of a statement as a Result: the rows asked for and the summary, in measure order.
    ``p`` is the evaluation's plan (planner.Plan: its text, conventions, measures, segments)."""
    columns = table.columns
    value = columns.index("value")
    rows = [row[:value] + (None if row[value] is None else float(row[value]),) + row[value + 1:] for row in table.rows]
    measures = named_as_asked(p.measures)  # the statement gives a row under each name of a measure asked by two
    valued = _valued(columns, rows, counted(measures))
    if "queries" in columns:  # the summary's counts: in Result.valued, not in the values' tables
        at = columns.index("queries")
        columns, rows = columns[:at] + columns[at + 1:], [row[:at] + row[at + 1:] for row in rows]

    label = p.run.query_label or p.qrels.query_label or "query_id"

    def result(asked: Rows, summary: Rows, by_query: bool) -> Result:
        return Result(asked, summary, p.text, p.conventions, measures, by_query, num_queries, warnings, label,
                      p.run.seen is not None, valued, p.qrels.label_type == "real", p.judgments,
                      (p.qrels.rows, p.run.rows), p.run.query_type, left_out)

    if p.segments is not None:  # the summary is the overall row (segment NULL) without the segment columns
        keep = [i for i, c in enumerate(columns) if c not in ("segment", "num_queries")]
        segment = columns.index("segment")
        overall = [tuple(row[i] for i in keep) for row in rows if row[segment] is None]
        return result(Rows(columns, rows), Rows(tuple(columns[i] for i in keep), overall), False)
    position = {m.shown: i for i, m in enumerate(measures)}
    given = {name: i for i, name in enumerate(p.run.run_order)}  # several runs: in the order given

    def order(names: tuple[str, ...], keys: tuple[str, ...]):
        at = [names.index(k) for k in keys if k in names]
        measure = names.index("measure")
        return lambda row: tuple((given.get(row[i], len(given)), row[i]) if names[i] == "run_id" else
                                 natural(row[i]) if names[i] == "query_id" else row[i] for i in at) + (position[row[measure]],)

    integer = p.run.integer_ids

    def natural(query_id: str) -> tuple:  # integer ids in their order (2 before 10), as the input had them
        return (0, int(query_id), query_id) if integer and query_id.lstrip("-").isdigit() else (1, 0, query_id)

    if "query_id" not in columns:
        listed = sorted(rows, key=order(columns, ("run_id",))) if given and "run_id" in columns else rows
        return result(Rows(columns, listed), Rows(columns, listed), False)
    # rows of output "both" (also what slices return): per-query rows, summary rows with query_id NULL

    query = columns.index("query_id")
    summary_columns = columns[:query] + columns[query + 1:]
    summary = sorted((row[:query] + row[query + 1:] for row in rows if row[query] is None),
                     key=order(summary_columns, ("run_id",)))
    summary_rows = Rows(summary_columns, summary)
    if not per_query:
        return result(summary_rows, summary_rows, False)
    asked = sorted((row for row in rows if row[query] is not None), key=order(columns, ("run_id", "query_id")))
    return result(Rows(columns, asked), summary_rows, True)


def _valued(columns: tuple[str, ...], rows: list[tuple], names: set[str]) -> dict[str | None, dict[str, int]]:
    """How many queries have a value of each counted measure, per run (None for one run): the
    summary's ``queries`` column, or the per-query rows where the statement returned them."""
    if not names:
        return {}
    measure, value = columns.index("measure"), columns.index("value")
    run = columns.index("run_id") if "run_id" in columns else None
    valued: dict[str | None, dict[str, int]] = {}
    if "queries" in columns:
        count = columns.index("queries")
        segment = columns.index("segment") if "segment" in columns else None
        for row in rows:
            if row[measure] in names and (segment is None or row[segment] is None):
                valued.setdefault(None if run is None else row[run], {})[row[measure]] = int(row[count])
        return valued
    if "query_id" not in columns:
        return {}
    query = columns.index("query_id")
    for row in rows:
        if row[query] is not None and row[measure] in names:
            counts = valued.setdefault(None if run is None else row[run], dict.fromkeys(sorted(names), 0))
            counts[row[measure]] += row[value] is not None
    return valued
