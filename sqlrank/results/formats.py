"""A result printed: an aligned table, CSV, TSV, JSON or trec_eval's layout."""
from __future__ import annotations

import io
import json
import math
from typing import Any

from ..engines.base import Rows
from ..errors import OptionError
from ..measures.measure import renamed
from .result import Result

OUTPUT_FORMATS = ("table", "csv", "tsv", "json", "trec")

# LaTeX's special characters, written so that LaTeX prints them as they are.
LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
         "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
         ">": r"\textgreater{}"}


def latex_text(text: str) -> str:
    """Text as LaTeX prints it literally."""
    return "".join(LATEX.get(ch, ch) for ch in text)


def markdown_row(cells) -> str:
    """One row of a Markdown table: a ``|`` inside a cell (a run or query id) escaped, so that it keeps its column."""
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def number_text(value: Any, digits: int = 4) -> str:
    """A number to ``digits`` decimals for a printed table; empty for a missing one (None, NaN)."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def format_result(result: Result, fmt: str) -> str:
    if fmt not in OUTPUT_FORMATS:
        raise ValueError(fmt)
    table = result.values() if fmt in ("csv", "tsv", "json") else result.table
    if result.query_label != "query_id":
        table = Rows(tuple(result.query_label if c == "query_id" else c for c in table.columns), table.rows)
    integers = {m.shown for m in result.measures if m.spec.integer}
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


def aligned_lines(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """A plain text table: the header, a rule of dashes, the rows; the first ``left`` columns aligned left,
    the others right, two spaces apart, no trailing spaces (every command's table)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return ["  ".join(f"{c:<{w}}" if i < left else f"{c:>{w}}" for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in [header, ["-" * w for w in widths], *rows]]


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
    names = [m.shown for m in result.measures]
    rows = []
    grouped = _grouped(result.table, ["segment", "num_queries"])
    overall = overall_label(segment for segment, _ in grouped)
    for (segment, num_queries), values in grouped.items():
        label = overall if segment is None else str(segment)
        rows.append([label, str(int(num_queries))] + [_number(values[n], n in integers, 4) for n in names])
    return _aligned(["segment", "queries"] + names, rows, ["<", ">"] + [">"] * len(names), result)


def _runs_table(result: Result, integers: set[str]) -> str:
    """Runs stored together: one row per run (per run and query with -q), one column per measure."""
    names = [m.shown for m in result.measures]
    keys = ["run_id", "query_id"] if result.per_query else ["run_id"]
    rows = [[str(k) for k in key] + [_number(values.get(n), n in integers, 4) for n in names]
            for key, values in _grouped(result.table, keys).items()]
    if result.per_query:
        overall = overall_label(query for _, query in _grouped(result.table, keys))
        for (run_id,), values in _grouped(result.summary_table, ["run_id"]).items():
            rows.append([str(run_id), overall] + [_number(values.get(n), n in integers, 4) for n in names])
    header = ["run_id", result.query_label][:len(keys)]
    return _aligned(header + names, rows, ["<"] * len(keys) + [">"] * len(names), result)


# How real-valued judgments (0.7, 2.5) were used, printed with the results they gave.
REAL_LABELS = ("labels: real numbers, used as written: a gain is the label (linear) or 2^label - 1 (exponential), "
               "relevant means label >= rel, a negative label is judged non-relevant")


def _aligned(header: list[str], rows: list[list[str]], aligns: list[str], result: Result) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]

    def line(cells):
        return "  ".join(f"{c:{a}{w}}" for c, a, w in zip(cells, aligns, widths)).rstrip()

    text = [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
    text.append("")
    text.append(f"queries: {result.num_queries}{_over_all(result)}")
    for m in result.measures:
        mean = "weighted mean" if m.spec.aggregate == "weighted" else "mean"
        counts = {run: result.queries(m.shown, run) for run in result.run_ids()}
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
        text.append(f"canonical: {names}")
    text.append(f"conventions: {result.conventions.describe()}")
    if result.judgments is not None:
        counts = ", ".join(f"{name} {count}" for name, count in result.judgments.counts.items())
        text.append(f"judgments: {counts} ({result.judgments.how})")
    if result.real_labels:
        text.append(REAL_LABELS)
    if result.removed_seen:
        text.append("remove-seen: each user's history items were left out of the run before ranking")
    return "\n".join(text) + "\n"


def _over_all(result: Result) -> str:
    """What the values over all queries (Coverage, Gini, Novelty...) are over: the rankings of the queries
    evaluated, and how many of the run's the conventions left out."""
    whole = [m.shown for m in result.measures if m.spec.aggregate == "catalog"]
    if not whole:
        return ""
    if result.left_out is None:  # a query table chose the queries
        return f" ({', '.join(whole)}: over these rankings only)"
    return f" ({', '.join(whole)}: " + ("over every ranking of the run)" if not result.left_out else
                                        f"over these rankings, not the run's {result.left_out} others; "
                                        f"unjudged_queries=zero no_relevant=zero count them)")


def _table(result: Result, integers: set[str]) -> str:
    names = [m.shown for m in result.measures]
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
