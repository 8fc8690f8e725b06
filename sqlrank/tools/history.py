"""A history of evaluations (``--record FILE`` on eval and compare, ``sqlrank history FILE``): every
evaluation appends its values, one row per run and measure, each with the evaluation's manifest: when,
a tag, sqlrank's version, the conventions, and each input's name, rows and content hash (SHA-256 of a
file's bytes; of the rows as evaluated otherwise).

The file is a Parquet file (``.parquet``) or a DuckDB database (``.duckdb``, table ``sqlrank_history``).
An append never leaves half a file: Parquet is rewritten beside itself and renamed over it, under an
exclusive lock of a ``FILE.lock`` beside it, so that two writers append one after the other; DuckDB
inserts in one transaction (a writer that finds the database locked by another waits and tries again).
A file that is no sqlrank history (another Parquet schema, another database, bytes that are neither)
is refused and left as it is.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import time
import uuid
from typing import Any, Iterator

import duckdb
import pandas as pd

from ..errors import OptionError
from ..rendering.dialects import DUCKDB
from ..results.formats import aligned_lines
from ..results.writer import target
from ..version import __version__

TABLE = "sqlrank_history"
MARKER = b"sqlrank_history"  # the Parquet file's key-value metadata key; its value is the format's version
COLUMNS = {"evaluation": "VARCHAR", "recorded_at": "TIMESTAMP", "tag": "VARCHAR", "command": "VARCHAR",
           "run": "VARCHAR", "measure": "VARCHAR", "value": "DOUBLE", "queries": "BIGINT", "conventions": "VARCHAR",
           "qrels": "VARCHAR", "qrels_rows": "BIGINT", "qrels_sha256": "VARCHAR", "run_input": "VARCHAR",
           "run_rows": "BIGINT", "run_sha256": "VARCHAR", "sqlrank_version": "VARCHAR"}
WAIT_SECONDS = 30  # how long a writer waits for another's lock before it gives up


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
            qrels_rows: int | None, run_rows: dict[str, int | None]) -> pd.DataFrame:
    """The rows one evaluation appends: ``rows`` has run (or not), measure, value, queries."""
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    frame = rows.copy()
    if "run" not in frame:
        frame["run"] = next(iter(runs))
    qrels_name = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else type(qrels).__name__
    frame = frame.assign(
        evaluation=uuid.uuid4().hex, recorded_at=now, tag=tag, command=command, conventions=conventions,
        qrels=qrels_name, qrels_rows=qrels_rows, qrels_sha256=content_hash(qrels),
        run_input=frame.run.map(lambda r: os.fspath(runs[r]) if isinstance(runs.get(r), (str, os.PathLike)) else r),
        run_rows=frame.run.map(lambda r: run_rows.get(r)), run_sha256=frame.run.map(lambda r: content_hash(runs.get(r))),
        sqlrank_version=__version__)
    return frame[list(COLUMNS)].astype({"queries": "Int64", "qrels_rows": "Int64", "run_rows": "Int64"})


def append(path: str, rows: pd.DataFrame) -> None:
    """Append ``rows`` (records()) to the history at ``path``, creating it when there is none."""
    kind = _kind(path)
    if kind == "duckdb":
        _append_duckdb(target(path), rows)
    else:
        with _locked(target(path)):
            _append_parquet(target(path), rows)


def read(path: str) -> pd.DataFrame:
    """Every row of the history at ``path``, oldest first."""
    if not os.path.exists(path):
        raise OptionError(f"{path}: no such history file")
    if _kind(path) == "duckdb":
        with _duckdb(path, read_only=True) as con:
            return con.execute(f"SELECT * FROM {TABLE} ORDER BY recorded_at, evaluation").df()
    _require_ours(path)
    return pd.read_parquet(path).sort_values(["recorded_at", "evaluation"], kind="stable").reset_index(drop=True)


def _kind(path: str) -> str:
    name = os.fspath(path).lower()
    if name.endswith(".duckdb") or name.endswith(".db"):
        return "duckdb"
    if name.endswith(".parquet"):
        return "parquet"
    raise OptionError(f"{path}: a history is a .parquet file or a .duckdb database; name it so")


def _require_ours(path: str) -> None:
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except Exception:
        raise OptionError(f"{path}: not a Parquet file; a history is refused rather than overwritten: give another "
                          f"--record file") from None
    if MARKER not in metadata:
        raise OptionError(f"{path}: a Parquet file that is no sqlrank history (no {MARKER.decode()} mark); it is left "
                          f"as it is: give another --record file")


def _append_parquet(path: str, rows: pd.DataFrame) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = rows
    if os.path.exists(path):
        _require_ours(path)
        frame = pd.concat([pd.read_parquet(path), rows], ignore_index=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), MARKER: b"1"})
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, f".sqlrank-{uuid.uuid4().hex}.parquet")
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """An exclusive lock of PATH.lock for the duration (fcntl where there is one; a lock file created
    exclusively elsewhere), waiting up to WAIT_SECONDS for another writer."""
    lock_path = path + ".lock"
    try:
        import fcntl
    except ImportError:  # Windows: a file that exists while someone holds the lock
        fcntl = None
    deadline = time.monotonic() + WAIT_SECONDS
    if fcntl is not None:
        with open(lock_path, "a") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise OptionError(f"{path}: another writer holds {lock_path}; try again") from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    while True:
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            if time.monotonic() > deadline:
                raise OptionError(f"{path}: {lock_path} exists (another writer, or one that stopped): remove it") from None
            time.sleep(0.05)
    try:
        yield
    finally:
        os.close(fd)
        os.unlink(lock_path)


@contextlib.contextmanager
def _duckdb(path: str, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """The history database, opened when no other process holds it (waiting up to WAIT_SECONDS)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            con = duckdb.connect(path, read_only=read_only)
            break
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise OptionError(f"{path}: cannot open the history: {str(exc).splitlines()[0]}") from None
            time.sleep(0.05)
        except duckdb.Error as exc:
            raise OptionError(f"{path}: not a DuckDB database ({str(exc).splitlines()[0]}); a history is refused "
                              f"rather than overwritten: give another --record file") from None
    try:
        tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if tables and TABLE not in tables:
            raise OptionError(f"{path}: a DuckDB database without a {TABLE} table: no sqlrank history; it is left as "
                              f"it is: give another --record file")
        if TABLE in tables:
            found = dict(con.execute(f"SELECT column_name, data_type FROM information_schema.columns "
                                     f"WHERE table_name = '{TABLE}'").fetchall())
            if set(found) != set(COLUMNS):
                raise OptionError(f"{path}: its {TABLE} table has other columns than a sqlrank history's; it is left "
                                  f"as it is")
        yield con
    finally:
        con.close()


def _append_duckdb(path: str, rows: pd.DataFrame) -> None:
    with _duckdb(path) as con:
        con.execute("BEGIN TRANSACTION")
        columns = ", ".join(f"{DUCKDB.ident(c)} {t}" for c, t in COLUMNS.items())
        con.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} ({columns})")
        con.register("appended", rows)
        con.execute(f"INSERT INTO {TABLE} SELECT {', '.join(DUCKDB.ident(c) for c in COLUMNS)} FROM appended")
        con.execute("COMMIT")


def trend_text(history: pd.DataFrame, measures: list[str] | None = None) -> str:
    """Per measure, every recorded value oldest first, with its change from the run's previous value."""
    if history.empty:
        return "the history is empty\n"
    lines = []
    for measure, group in history.groupby("measure", sort=False):
        if measures and measure not in measures:
            continue
        rows = []
        previous: dict[str, float] = {}
        for r in group.itertuples(index=False):
            change = "" if r.run not in previous else f"{round(r.value - previous[r.run], 12) + 0.0:+.4f}"
            previous[r.run] = r.value
            rows.append([str(r.recorded_at)[:19], r.tag if isinstance(r.tag, str) else "", r.run, f"{r.value:.4f}", change])
        lines.append(measure)
        lines += aligned_lines(["recorded (UTC)", "tag", "run", "value", "change"], rows, left=3)
        lines.append("")
    return "\n".join(lines)


def trend_html(history: pd.DataFrame, measures: list[str] | None = None) -> str:
    """One self-contained page: per measure, each run's values over the evaluations recorded (inline SVG)."""
    from html import escape

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"]
    sections = []
    order = {e: k for k, e in enumerate(dict.fromkeys(history.evaluation))}
    for measure, group in history.groupby("measure", sort=False):
        if measures and measure not in measures:
            continue
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


def record_evaluation(path: str, result: Any, qrels: Any, run: Any, tag: str | None = None) -> None:
    """Append an evaluation's means (results.Result), one row per run and measure."""
    from ..inputs.merge import input_names

    summary = result.summary
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
                         qrels, runs, qrels_rows, rows))


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
    append(path, records(frame, "compare", tag, conventions, qrels, runs, None, {}))
