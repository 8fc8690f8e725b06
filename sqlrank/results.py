"""Results: what an evaluation gives back (Rows, Result), printed as a table, CSV, TSV, JSON or
trec_eval's layout (written out by outputs.py)."""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .conventions import Conventions
from .errors import OptionError
from .measures import Measure, counted, renamed

if TYPE_CHECKING:  # pandas is imported by DuckDB when a DataFrame is asked for, not at start-up
    import pandas as pd

OUTPUT_FORMATS = ("table", "csv", "tsv", "json", "trec")


@dataclass(frozen=True)
class Rows:
    """Rows of a result as fetched (no pandas: the command line prints them as they are)."""

    columns: tuple[str, ...]
    rows: list[tuple]

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def frame(self) -> "pd.DataFrame":
        import pandas as pd

        frame = pd.DataFrame.from_records(self.rows, columns=list(self.columns))
        frame["value"] = frame["value"].astype("float64")
        return frame


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
        whole = {str(m) for m in self.measures if m.spec.aggregate == "catalog"}
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


def shape(table: Rows, p, per_query: bool, num_queries: int, warnings: list[str]) -> Result:
    """The rows of a statement as a Result: the rows asked for and the summary, in measure order.
    ``p`` is the evaluation's plan (planner.Plan: its text, conventions, measures, segments)."""
    columns = table.columns
    value = columns.index("value")
    rows = [row[:value] + (None if row[value] is None else float(row[value]),) + row[value + 1:] for row in table.rows]
    valued = _valued(columns, rows, counted(p.measures))
    if "queries" in columns:  # the summary's counts: in Result.valued, not in the values' tables
        at = columns.index("queries")
        columns, rows = columns[:at] + columns[at + 1:], [row[:at] + row[at + 1:] for row in rows]

    label = p.run.query_label or p.qrels.query_label or "query_id"

    def result(asked: Rows, summary: Rows, by_query: bool) -> Result:
        return Result(asked, summary, p.text, p.conventions, p.measures, by_query, num_queries, warnings, label,
                      p.run.seen is not None, valued)

    if p.segments is not None:  # the summary is the overall row (segment NULL) without the segment columns
        keep = [i for i, c in enumerate(columns) if c not in ("segment", "num_queries")]
        segment = columns.index("segment")
        overall = [tuple(row[i] for i in keep) for row in rows if row[segment] is None]
        return result(Rows(columns, rows), Rows(tuple(columns[i] for i in keep), overall), False)
    if "query_id" not in columns:
        return result(Rows(columns, rows), Rows(columns, rows), False)
    # rows of output "both" (also what slices return): per-query rows, summary rows with query_id NULL
    position = {str(m): i for i, m in enumerate(p.measures)}

    def order(names: tuple[str, ...], keys: tuple[str, ...]):
        at = [names.index(k) for k in keys if k in names]
        measure = names.index("measure")
        return lambda row: tuple(row[i] for i in at) + (position[row[measure]],)

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


def format_result(result: Result, fmt: str) -> str:
    if fmt not in OUTPUT_FORMATS:
        raise ValueError(fmt)
    table = result.values() if fmt in ("csv", "tsv", "json") else result.table
    if result.query_label != "query_id":
        table = Rows(tuple(result.query_label if c == "query_id" else c for c in table.columns), table.rows)
    integers = {str(m) for m in result.measures if m.spec.integer}
    if fmt in ("csv", "tsv"):
        return _delimited(table, "," if fmt == "csv" else "\t", integers)
    if fmt == "json":
        records = [{k: _json_value(v, row.get("measure") in integers) for k, v in row.items()}
                   for row in table.records()]
        return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    if fmt == "trec":
        if "run_id" in table.columns:
            raise OptionError("trec_eval's layout has one run; runs stored together print with -f table, csv, tsv "
                              "or json")
        if "segment" in table.columns:
            raise OptionError("trec_eval's layout has no place for segments; use -f table, csv, tsv or json")
        return _trec(result, integers)
    if "segment" in table.columns:
        return _segments_table(result, integers)
    if "run_id" in table.columns:
        return _runs_table(result, integers)
    return _table(result, integers)


def overall_label(groups) -> str:
    """What a table calls its overall row: all, or (all) where a segment, group or query is itself
    named all (two rows called all could not be told apart)."""
    return "(all)" if "all" in {str(group) for group in groups} else "all"


def _number(value: float, integer: bool, decimals: int | None = None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if integer and float(value).is_integer():
        return str(int(value))
    return f"{value:.{decimals}f}" if decimals is not None else repr(float(value))


def _json_value(value, integer: bool):
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if integer and value.is_integer() else value
    return value


def _delimited(table: Rows, sep: str, integers: set[str]) -> str:
    out = io.StringIO()
    out.write(sep.join(table.columns) + "\n")
    measure = table.columns.index("measure")
    for row in table.rows:
        cells = []
        for column, value in zip(table.columns, row):
            if column == "value":
                cells.append(_number(value, row[measure] in integers))
            elif value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append("")
            else:
                cells.append(_escape(str(value), sep))
        out.write(sep.join(cells) + "\n")
    return out.getvalue()


def _escape(text: str, sep: str) -> str:
    if any(ch in text for ch in (sep, '"', "\n", "\r")):
        return '"' + text.replace('"', '""') + '"'
    return text


def _trec(result: Result, integers: set[str]) -> str:
    lines = []
    if result.per_query:
        for row in result.table.records():
            measure = row["measure"]
            lines.append(f"{measure:<22}\t{row['query_id']}\t{_number(row['value'], measure in integers, 4)}")
    for row in result.summary_table.records():
        measure = row["measure"]
        lines.append(f"{measure:<22}\tall\t{_number(row['value'], measure in integers, 4)}")
    return "\n".join(lines) + "\n"


def _grouped(table: Rows, keys: list[str]) -> dict[tuple, dict[str, float]]:
    """{key values: {measure: value}} in the order the keys first appear."""
    groups: dict[tuple, dict[str, float]] = {}
    for row in table.records():
        groups.setdefault(tuple(row[k] for k in keys), {})[row["measure"]] = row["value"]
    return groups


def _segments_table(result: Result, integers: set[str]) -> str:
    """One row per segment (the overall row first, as "all"), one column per measure."""
    names = [str(m) for m in result.measures]
    rows = []
    grouped = _grouped(result.table, ["segment", "num_queries"])
    overall = overall_label(segment for segment, _ in grouped)
    for (segment, num_queries), values in grouped.items():
        label = overall if segment is None else str(segment)
        rows.append([label, str(int(num_queries))] + [_number(values[n], n in integers, 4) for n in names])
    return _aligned(["segment", "queries"] + names, rows, ["<", ">"] + [">"] * len(names), result)


def _runs_table(result: Result, integers: set[str]) -> str:
    """Runs stored together: one row per run (per run and query with -q), one column per measure."""
    names = [str(m) for m in result.measures]
    keys = ["run_id", "query_id"] if result.per_query else ["run_id"]
    rows = [[str(k) for k in key] + [_number(values.get(n), n in integers, 4) for n in names]
            for key, values in _grouped(result.table, keys).items()]
    if result.per_query:
        overall = overall_label(query for _, query in _grouped(result.table, keys))
        for (run_id,), values in _grouped(result.summary_table, ["run_id"]).items():
            rows.append([str(run_id), overall] + [_number(values.get(n), n in integers, 4) for n in names])
    header = ["run_id", result.query_label][:len(keys)]
    return _aligned(header + names, rows, ["<"] * len(keys) + [">"] * len(names), result)


def _aligned(header: list[str], rows: list[list[str]], aligns: list[str], result: Result) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]

    def line(cells):
        return "  ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, aligns, widths)).rstrip()

    text = [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
    text.append("")
    text.append(f"queries: {result.num_queries}")
    for m in result.measures:
        mean = "weighted mean" if m.spec.aggregate == "weighted" else "mean"
        counts = {run: result.queries(str(m), run) for run in result.run_ids()}
        if all(count == result.num_queries for count in counts.values()):
            continue
        if None in counts:  # one run
            count = counts[None]
            text.append(f"{m}: {mean} over the {count} of these that have a value" if count < result.num_queries
                        else f"{m}: {mean} over {count} queries")
        else:
            text.append(f"{m}: {mean} over " + ", ".join(f"{count} ({run})" for run, count in counts.items())
                        + " queries")
    names = renamed(result.measures)
    if names:
        text.append(f"as asked: {names}")
    text.append(f"conventions: {result.conventions.describe()}")
    if result.removed_seen:
        text.append("remove-seen: each user's history items were left out of the run before ranking")
    return "\n".join(text) + "\n"


def _table(result: Result, integers: set[str]) -> str:
    names = [str(m) for m in result.measures]
    if result.per_query:
        header = [result.query_label] + names
        grouped = _grouped(result.table, ["query_id"])
        rows = [[str(query_id)] + [_number(values.get(n), n in integers, 4) for n in names]
                for (query_id,), values in grouped.items()]
        summary = {row["measure"]: row["value"] for row in result.summary_table.records()}
        overall = overall_label(query_id for query_id, in grouped)
        rows.append([overall] + [_number(summary[n], n in integers, 4) for n in names])
        aligns = ["<"] + [">"] * len(names)
    else:
        header = ["measure", "value"]
        rows = [[row["measure"], _number(row["value"], row["measure"] in integers, 4)]
                for row in result.table.records()]
        aligns = ["<", ">"]
    return _aligned(header, rows, aligns, result)
