"""A history of evaluations (``--record FILE`` on eval and compare, ``sqlrank history FILE``): every
evaluation that succeeds appends the values it printed, one row per run and measure, with how they were
summarised over queries (the mean, a weighted mean, the minimum...) and the evaluation's manifest: when,
a tag, sqlrank's version, the conventions, and each input's name, rows and content hash (SHA-256 of a
file's bytes; of the rows as evaluated otherwise; each source's, for judgments from several).

The file is a Parquet file (``.parquet``) or a DuckDB database (``.duckdb``, table ``sqlrank_history``),
appended to as history_file.py says: never half a file, nothing left beside it.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import uuid
from typing import Any

import pandas as pd

from ..errors import OptionError
from ..measures.names import named_alike, one_name
from ..results.formats import aligned_lines
from ..version import __version__
from .history_file import COLUMNS, append, check, read

__all__ = ["read", "check_record", "check_tag", "record_evaluation", "record_comparison", "summary_label", "trend_text",
           "trend_html", "chosen"]
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def content_hash(obj: Any) -> str | None:
    """SHA-256 of a file's bytes; None for what is no file (a DataFrame, a table)."""
    if not isinstance(obj, (str, os.PathLike)) or not os.path.isfile(obj):
        return None
    digest = hashlib.sha256()
    with open(obj, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def records(rows: pd.DataFrame, command: str, tag: str | None, conventions: str, qrels: Any, runs: dict[str, Any],
            qrels_rows: int | None, run_rows: dict[str, int | None], aggregate: str = "mean") -> pd.DataFrame:
    """The rows one evaluation appends: ``rows`` has run (or not), measure, value, queries; ``aggregate``: how
    the values summarise the per-query values (summary_label), for the measures whose summary is a mean (the
    others keep theirs, recorded as "mean")."""
    from ..statistics.aggregate import plain_mean

    check_tag(tag)
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    frame = rows.copy()
    if "run" not in frame:
        frame["run"] = next(iter(runs))
    frame = frame.assign(
        evaluation=uuid.uuid4().hex, recorded_at=now, tag=tag, command=command,
        summary=frame.measure.map(lambda m: aggregate if aggregate == "mean" or plain_mean(m) else "mean").to_numpy(),
        conventions=conventions, qrels=_input_name(qrels), qrels_rows=qrels_rows, qrels_sha256=_input_hash(qrels),
        run_input=frame.run.map(lambda r: os.fspath(runs[r]) if isinstance(runs.get(r), (str, os.PathLike)) else r),
        run_rows=frame.run.map(lambda r: run_rows.get(r)), run_sha256=frame.run.map(lambda r: content_hash(runs.get(r))),
        sqlrank_version=__version__)
    return frame[list(COLUMNS)].astype({"queries": "Int64", "qrels_rows": "Int64", "run_rows": "Int64"})


def summary_label(aggregate: str, weights: Any = None) -> str:
    """How printed values summarise the per-query values, as a history records it: the aggregate (mean, min, ...),
    or the weighted mean of ``weights`` (named by its file)."""
    return aggregate if weights is None else f"weighted mean (weights: {weights if isinstance(weights, str) else 'given'})"


def _input_name(obj: Any) -> str:
    """A file's path; judgments from several sources: each source's NAME=path; else the object's type."""
    if isinstance(obj, dict):
        return "; ".join(f"{name}={_input_name(source)}" for name, source in obj.items())
    return os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else type(obj).__name__


def _input_hash(obj: Any) -> str | None:
    if isinstance(obj, dict):
        return "; ".join(f"{name}={content_hash(source) or ''}" for name, source in obj.items())
    return content_hash(obj)


def check_tag(tag: str | None) -> None:
    """A tag is one line of text: a control character (a line feed) would let it forge rows of the output."""
    if tag is not None and (not isinstance(tag, str) or _CONTROL.search(tag)):
        raise OptionError(f"--tag {tag!r}: holds a control character (a line feed, a tab...); give one line of "
                          f"printable text")


def check_record(path: str | None, tag: str | None) -> None:
    """--record and --tag, before anything is evaluated: a history file (or none yet) and one line of text."""
    check_tag(tag)
    if path is not None:
        check(os.fspath(path))


def shown(text: Any) -> str:
    """Text of the history as printed: control characters as escapes (\\n), never as themselves."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def chosen(history: pd.DataFrame, measures: list[str] | None, path: str) -> pd.DataFrame:
    """The rows of these measures (as recorded, or another name of the same measure); an error naming what the
    history holds when one was never recorded."""
    if not measures:
        return history
    recorded = list(dict.fromkeys(history.measure))
    wanted = []
    for name in measures:
        found = [m for m in recorded if named_alike(name, m)]  # as recorded, or another name of it (HR@10: Success@10)
        if not found:
            raise OptionError(f"{path}: no {name} recorded; the history holds " +
                              (", ".join(shown(m) for m in recorded) if recorded else "no values") +
                              " (-m takes the names as recorded)")
        wanted += found
    return history[history.measure.isin(wanted)]


def series(history: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The history's rows per measure, a measure recorded under several names (map, AP) one series, named by the
    first name recorded with the others after it ("map (also recorded as AP)")."""
    keys = history.measure.map(one_name)
    found = []
    for _, group in history.groupby(keys, sort=False):
        names = list(dict.fromkeys(group.measure))
        found.append((names[0] + (f" (also recorded as {', '.join(names[1:])})" if len(names) > 1 else ""), group))
    return found


def trend_text(history: pd.DataFrame) -> str:
    """Per measure, every recorded value oldest first, with its change from the previous value of the same run
    summarised the same way (a column says how, where a value is other than the mean)."""
    if history.empty:
        return "the history is empty\n"
    lines = []
    for measure, group in series(history):
        summaries = not set(group.summary) <= {"mean"}
        rows = []
        previous: dict[tuple[str, str], float] = {}
        for r in group.itertuples(index=False):
            key = (r.run, r.summary)
            change = "" if key not in previous else f"{round(r.value - previous[key], 12) + 0.0:+.4f}"
            previous[key] = r.value
            rows.append([str(r.recorded_at)[:19], shown(r.tag) if isinstance(r.tag, str) else "", shown(r.run)]
                        + ([shown(r.summary)] if summaries else []) + [f"{r.value:.4f}", change])
        lines.append(shown(measure))
        header = ["recorded (UTC)", "tag", "run"] + (["summary"] if summaries else []) + ["value", "change"]
        lines += aligned_lines(header, rows, left=len(header) - 2)
        lines.append("")
    return "\n".join(lines)


def trend_html(history: pd.DataFrame) -> str:
    """One self-contained page: per measure, each run's values over the evaluations recorded (inline SVG)."""
    from html import escape

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"]
    sections = []
    order = {e: k for k, e in enumerate(dict.fromkeys(history.evaluation))}
    for measure, group in series(history):
        low, high = float(group.value.min()), float(group.value.max())
        span = (high - low) or 1.0
        width, height, left, top = 640, 240, 60, 20
        steps = max(1, len(order) - 1)

        def point(evaluation: str, value: float) -> tuple[float, float]:
            return (left + (width - left - 20) * order[evaluation] / steps,
                    top + (height - top - 40) * (1 - (value - low) / span))

        lines = []
        for k, (run, rows) in enumerate(group.groupby("run", sort=False)):
            colour = colours[k % len(colours)]
            points = [point(e, v) for e, v in zip(rows.evaluation, rows.value)]
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
            lines += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{escape(run)}: {v:.4f} '
                      f'({escape(str(t)[:19])}{", " + escape(tag) if isinstance(tag, str) and tag else ""})</title>'
                      f'</circle>' for (x, y), v, t, tag in zip(points, rows.value, rows.recorded_at, rows.tag)]
            lines.append(f'<text x="{width - 10}" y="{top + 14 * (k + 1)}" text-anchor="end" fill="{colour}" '
                         f'font-size="12">{escape(run)}</text>')
        axis = (f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" font-size="11">{high:.4f}</text>'
                f'<text x="{left - 6}" y="{height - 36}" text-anchor="end" font-size="11">{low:.4f}</text>'
                f'<line x1="{left}" y1="{height - 40}" x2="{width - 20}" y2="{height - 40}" stroke="#999"/>'
                f'<text x="{left}" y="{height - 22}" font-size="11">first recorded</text>'
                f'<text x="{width - 20}" y="{height - 22}" text-anchor="end" font-size="11">last recorded</text>')
        sections.append(f"<h2>{escape(measure)}</h2>\n<svg width=\"{width}\" height=\"{height}\" role=\"img\" "
                        f"aria-label=\"{escape(measure)} over time\">{axis}{''.join(lines)}</svg>")
    body = "\n".join(sections) or "<p>The history is empty.</p>"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sqlrank history</title>"
            "<style>body{font-family:sans-serif;margin:2em}h2{font-size:1.1em}</style></head><body>\n"
            f"<h1>Measures over time</h1>\n{body}\n</body></html>\n")


def record_evaluation(path: str, result: Any, qrels: Any, run: Any, tag: str | None = None,
                      values: pd.DataFrame | None = None, aggregate: str = "mean") -> None:
    """Append an evaluation's values as printed, one row per run and measure: ``values`` (measure, value[,
    run_id]; default the means of results.Result), summarised over queries by ``aggregate`` (the measures
    whose summary is a mean; the others keep theirs, recorded as "mean")."""
    from ..inputs.merge import input_names

    summary = result.summary if values is None else values
    if isinstance(run, (list, tuple, dict)):
        names, objects = input_names(run)
        runs = dict(zip(names, objects))
    else:
        runs = {os.path.splitext(os.path.basename(os.fspath(run)))[0] if isinstance(run, (str, os.PathLike)) else "run": run}
    frame = summary.rename(columns={"run_id": "run"})
    if "run" not in frame:
        frame = frame.assign(run=next(iter(runs)))
    frame = frame.assign(queries=[result.queries(m, r if "run_id" in summary else None)
                                  for m, r in zip(frame.measure, frame.run)])
    qrels_rows, run_rows = result.input_rows
    rows = {name: run_rows if len(runs) == 1 else None for name in runs}
    append(path, records(frame[["run", "measure", "value", "queries"]], "eval", tag, result.conventions.describe(),
                         qrels, runs, qrels_rows, rows, aggregate))


def record_comparison(path: str, table: pd.DataFrame, compared: dict[str, int], conventions: str, qrels: Any,
                      runs: Any, names: list[str], tag: str | None = None) -> None:
    """Append a comparison's means (compare's table, its overall rows), one row per run and measure; ``runs``:
    the inputs as given, ``names``: the runs as the comparison names them."""
    from ..inputs.merge import input_names

    objects = input_names(runs)[1]
    runs = dict(zip(names, objects)) if len(objects) == len(names) else {name: name for name in names}
    overall = table[table["segment"].isna()] if "segment" in table else table
    frame = overall[["run", "measure", "mean"]].rename(columns={"mean": "value"})
    frame = frame.assign(queries=frame.measure.map(lambda m: compared.get(m)))
    append(path, records(frame, "compare", tag, conventions, qrels, runs, None, {}, table.attrs.get("aggregate", "mean")))
