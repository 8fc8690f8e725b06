"""Engine: run one evaluation in DuckDB and hand back a Result."""
from __future__ import annotations

import math
import os
import re
import sys
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

import duckdb

from .conventions import Conventions, resolve_conventions
from .errors import InputError, OptionError, duckdb_reason
from .inputs import Registry, Source, load, load_table
from .measures import FAMILIES, Measure, parse_measures
from .presets import preset_family_conventions
from .templates import DIALECTS, call_macro, quote_ident, render_evaluation, render_segments, render_slice, render_slices_summary
from .templates import dialect as sql_dialect

if TYPE_CHECKING:  # pandas is imported by DuckDB when a DataFrame is asked for, not at start-up
    import pandas as pd


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

    @cached_property
    def frame(self) -> "pd.DataFrame":
        return self.table.frame()

    @cached_property
    def summary(self) -> "pd.DataFrame":
        return self.summary_table.frame()


@dataclass
class Plan:
    """Inputs located and measures and conventions resolved: everything but the execution."""

    qrels: Source
    run: Source
    measures: list[Measure]
    conventions: Conventions
    sql: str  # the statement as executed here: it reads the inputs sqlrank read and validated once
    text: str  # the same statement reading the files themselves: what users print and run elsewhere
    slices: int = 1  # evaluate the queries in this many groups, one statement each (memory)
    segments: str | None = None  # SQL of (query_id, segment) rows when results are per segment


def resolve_measures(spec: str | Measure | Iterable[str | Measure], conventions: Conventions,
                     preset: str | None = None, explicit: Iterable[str] = ()) -> list[Measure]:
    """Measures with conventions filled in. Precedence: the measure's own parameters, then the
    caller's explicit conventions, then the preset's setting for the family, then the rest."""
    resolved: list[Measure] = []
    for measure in parse_measures(spec):
        family = {k: v for k, v in preset_family_conventions(preset, measure.family).items() if k not in explicit}
        measure = measure.resolve(replace(conventions, **family) if family else conventions)
        if measure not in resolved:
            resolved.append(measure)
    return resolved


def plan(qrels: Any, run: Any, measures: Any, output: str, con: duckdb.DuckDBPyConnection,
         registry: Registry, *, qrels_format: str | None = None, run_format: str | None = None,
         qrels_columns: Mapping[str, str] | None = None, run_columns: Mapping[str, str] | None = None,
         preset: str | None = None, slices: int | None = None, queries: Any = None, by: str | None = None,
         dialect: str = "duckdb", **conventions: Any) -> Plan:
    """Everything an evaluation needs but running it. ``qrels`` may be a Source loaded before
    (several runs against the same judgments read them once). With ``by``, results are per
    segment of the query table ``queries`` (output "segments")."""
    resolved_conventions = resolve_conventions(preset, **conventions)
    explicit = {k for k, v in conventions.items() if v is not None}
    resolved_measures = resolve_measures(measures, resolved_conventions, preset, explicit)
    segments = segments_sql(queries, by, con, registry)
    if segments is not None:
        if output not in ("summary", "segments"):
            raise OptionError("results per segment (by=) are aggregates; they cannot be per query too")
        if slices not in (None, 1):
            raise OptionError("results per segment (by=) are computed in one statement; leave out slices=")
        output = "segments"
    qrels_source = qrels if isinstance(qrels, Source) else load(qrels, "qrels", con, registry, qrels_format,
                                                                  qrels_columns)
    run_source = run if isinstance(run, Source) else load(run, "run", con, registry, run_format, run_columns)
    if any(m.param("tie_break") == "input_rank" for m in resolved_measures) and run_source.format != "spark":
        _require_ranks(run_source, con)
    by_run = run_source.per_run
    if by_run and slices not in (None, 1):
        raise OptionError("runs stored together (run_id) are evaluated in one statement; leave out slices=")
    if by_run and (segments is not None or qrels_source.groups):
        raise OptionError("runs stored together (run_id) are evaluated per run; segments and judgment groups "
                          "cannot be combined with them")
    reread = qrels_source.rescannable and run_source.rescannable
    sql = render_evaluation(qrels_source.sql(), run_source.sql(), resolved_measures, resolved_conventions,
                            output, segments_sql=segments, by_run=by_run, reread_inputs=reread)
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    with sql_dialect(dialect):
        text = render_evaluation(qrels_source.source_sql(), run_source.source_sql(), resolved_measures,
                                 resolved_conventions, output, segments_sql=segments, by_run=by_run,
                                 reread_inputs=reread)
    return Plan(qrels_source, run_source, resolved_measures, resolved_conventions, sql, text,
                _check_slices(slices), segments)


def segments_sql(queries: Any, by: str | None, con: duckdb.DuckDBPyConnection, registry: Registry) -> str | None:
    """SQL of (query_id, segment) rows from the column ``by`` of the query table ``queries``."""
    if queries is None and by is None:
        return None
    if queries is None or by is None:
        raise OptionError("segments need both a query table (queries=, --queries FILE) with a query_id column "
                          "and the column to group by (by=, --by COLUMN)")
    if not isinstance(by, str) or not by or "\x00" in by:
        raise OptionError(f"by={by!r} must be a column name of the query table")
    table = load_table(queries, "query table", con, registry, ("query_id", by))
    return render_segments(table.reader, by)


def _check_slices(slices: Any) -> int:
    if slices is None:
        return 1
    if isinstance(slices, bool) or not isinstance(slices, int) or not 1 <= slices <= MAX_SLICES:
        raise OptionError(f"slices {slices!r} must be a whole number from 1 to {MAX_SLICES} (each slice is one "
                          f"statement; 10 hold 500M run rows in 4 GB)")
    return slices


def _require_ranks(run: Source, con: duckdb.DuckDBPyConnection) -> None:
    missing = con.execute(f"SELECT count(*) FILTER (WHERE input_rank IS NULL), count(*) FROM ({run.sql()}) AS run"
                          ).fetchall()[0]
    if missing[0] == missing[1]:
        raise InputError(f"{run.label}: tie_break=input_rank needs the run's rank column; TREC runs have it "
                         f"(column 4), tables need one named rank or mapped with run_columns={{'rank': ...}}")
    if missing[0]:
        raise InputError(f"{run.label}: {missing[0]} rows have no integer rank; tie_break=input_rank needs one "
                         f"on every row")


def fetch(cursor) -> Rows:
    """All rows of an executed statement (a DuckDB connection after execute)."""
    rows = cursor.fetchall()
    return Rows(tuple(d[0] for d in cursor.description), rows)


def _execute_slices(p: Plan, con: duckdb.DuckDBPyConnection) -> Rows:
    """The evaluation as p.slices statements, each over the queries of one slice, whose
    per-query rows are collected in a temporary table; then the summary over all of them.
    Rows in the layout of output "both" (summary rows have query_id NULL)."""
    table = f"sqlrank_slices_{uuid.uuid4().hex}"
    con.execute(f"CREATE TEMPORARY TABLE {quote_ident(table)} (query_id VARCHAR, measure VARCHAR, value DOUBLE)")
    qrels_sql, run_sql = p.qrels.sql(), p.run.sql()
    try:
        for index in range(p.slices):
            statement = render_evaluation(render_slice(qrels_sql, p.slices, index),
                                          render_slice(run_sql, p.slices, index),
                                          p.measures, p.conventions, "per_query",
                                          reread_inputs=p.qrels.rescannable and p.run.rescannable)
            con.execute(f"INSERT INTO {quote_ident(table)}\n{statement}")
        return fetch(con.execute(render_slices_summary(table, p.measures)))
    finally:
        con.execute(f"DROP TABLE IF EXISTS {quote_ident(table)}")


def execute(p: Plan, per_query: bool, con: duckdb.DuckDBPyConnection) -> Result:
    """Run the plan's statement (rendered with output="both" for per-query results)."""
    warnings, num_queries = _check_queries(p, lambda sql: con.execute(sql).fetchall()[0], p.qrels.sql(),
                                           run_queries_sql(p.run.sql(), p.run.per_run))
    one_sided = bool(warnings)  # _check_queries warns only about queries on one side
    warnings = p.qrels.warnings + p.run.warnings + warnings
    try:
        table = fetch(con.execute(p.sql)) if p.slices == 1 else _execute_slices(p, con)
    except duckdb.Error as exc:
        raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None
    _require_finite(table)
    if p.segments is not None:
        warnings += _check_segments(p, con)
    warnings += _check_data(p, con, one_sided)
    return shape(table, p, per_query, num_queries, warnings)


def _require_finite(table: Rows) -> None:
    """A value that is infinite or NaN comes from gains beyond a double (2^label - 1 for labels of
    1,024 and more, or a gain map's sums): an error, never an empty or infinite number."""
    at = table.columns.index("value")
    for row in table.rows:
        value = row[at]
        if value is not None and not math.isfinite(value):
            record = dict(zip(table.columns, row))
            query = f" for query {record['query_id']!r}" if record.get("query_id") is not None else ""
            raise InputError(
                f"{record.get('measure')}{query} is {value}, not a number: its gains overflow a double "
                f"(gain=exponential, 2^label - 1, is finite for labels up to 1023; a gain map's gains must sum to "
                f"less than 1.8e308); use gain=linear, a smaller gain map, or smaller labels")


def _check_data(p: Plan, con: duckdb.DuckDBPyConnection, one_sided: bool) -> list[str]:
    """The data-quality warnings that can change this evaluation's numbers and are cheap to find
    (sqlrank check finds all): ties across the requested cutoffs, query ids that match only after
    removing white space or leading zeros, queries without a relevant document. If a check
    itself runs out of resources, that is a warning too: the values are computed already."""
    from .checks import count_ties, near_query_ids, no_relevant

    warnings = []
    qrels_sql, run_sql = p.qrels.sql(), p.run.sql()
    cutoffs = sorted({int(m.cutoff) for m in p.measures if isinstance(m.cutoff, int) and not isinstance(m.cutoff, bool)
                      and m.param("tie_break") != "expected" and FAMILIES[m.family].cutoff_kind == "rank"})
    try:
        if cutoffs:
            for k, count in zip(cutoffs, count_ties(con, run_sql, cutoffs, p.slices)):
                if count:
                    warnings.append(f"in {count} queries the documents at ranks {k} and {k + 1} have the same score, "
                                    f"so @{k} values depend on the tie-break ({p.conventions.tie_break}; see "
                                    f"--tie-break)")
        if one_sided and not p.run.per_run:
            near, example = near_query_ids(con, qrels_sql, run_sql)
            if near:
                warnings.append(f"{near} run query ids match a judged query only after removing white space or "
                                f"leading zeros, e.g. {example}; ids are compared exactly, so they are not evaluated "
                                f"together")
        rels = sorted({int(m.param("rel")) for m in p.measures if m.param("rel") is not None})
        for rel in rels[:1]:
            count, example, queries = no_relevant(con, qrels_sql, rel)
            if count:
                warnings.append(f"{count} of {queries} judged queries have no document labelled >= {rel}, e.g. "
                                f"{example!r}; measures that divide by the relevant documents are 0 there")
    except duckdb.Error as exc:
        warnings.append(f"the data checks after the evaluation did not finish ({duckdb_reason(exc)}); "
                        f"sqlrank check tells what they would have found")
    return warnings


def run_queries_sql(run_sql: str, per_run: bool) -> str:
    """The run's rows with plain query ids (runs stored together key them run_id || chr(31) || query_id)."""
    if not per_run:
        return run_sql
    return f"SELECT {call_macro('_macros/dialect.sql', 'after_separator', 'query_id')} AS query_id FROM ({run_sql}) AS runs"


def shape(table: Rows, p: Plan, per_query: bool, num_queries: int, warnings: list[str]) -> Result:
    """The rows of a statement as a Result: the rows asked for and the summary, in measure order."""
    columns = table.columns
    value = columns.index("value")
    rows = [row[:value] + (None if row[value] is None else float(row[value]),) + row[value + 1:] for row in table.rows]

    def result(asked: Rows, summary: Rows, by_query: bool) -> Result:
        return Result(asked, summary, p.text, p.conventions, p.measures, by_query, num_queries, warnings)

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


def _check_segments(p: Plan, con: duckdb.DuckDBPyConnection) -> list[str]:
    skip = p.conventions.missing_queries == "skip"
    outside, example = con.execute(f"""
        WITH evaluated AS (
            SELECT DISTINCT query_id FROM ({p.qrels.sql()}) AS qrels
            {"INTERSECT SELECT DISTINCT query_id FROM (" + p.run.sql() + ") AS run" if skip else ""}
        )
        SELECT count(*), min(query_id) FROM evaluated
        WHERE query_id NOT IN (SELECT query_id FROM ({p.segments}) AS segments)
    """).fetchall()[0]
    if not outside:
        return []
    return [f"{outside} evaluated queries have no segment in the query table (no row, or an empty value) "
            f"and count only in the overall row, e.g. {example!r}"]


def _check_queries(p: Plan, fetch_one, qrels_sql: str, run_sql: str) -> tuple[list[str], int]:
    """Which queries are on one side only (a warning each), in a portable query run by
    ``fetch_one`` (DuckDB or Spark)."""
    both, qrels_only, run_only, example_qrels, example_run = fetch_one(f"""
        WITH qrels_queries AS (SELECT DISTINCT query_id FROM ({qrels_sql}) AS qrels),
             run_queries AS (SELECT DISTINCT query_id FROM ({run_sql}) AS run)
        SELECT count(*) FILTER (WHERE q.query_id IS NOT NULL AND r.query_id IS NOT NULL),
               count(*) FILTER (WHERE r.query_id IS NULL),
               count(*) FILTER (WHERE q.query_id IS NULL),
               min(q.query_id) FILTER (WHERE r.query_id IS NULL),
               min(r.query_id) FILTER (WHERE q.query_id IS NULL)
        FROM qrels_queries AS q FULL OUTER JOIN run_queries AS r ON q.query_id = r.query_id
    """)
    zero = p.conventions.missing_queries == "zero"
    if both == 0 and not zero:
        raise InputError(
            f"no query is in both the qrels ({p.qrels.label}) and the run ({p.run.label}): qrels queries look like "
            f"{example_qrels!r}, run queries like {example_run!r}; ids are compared as exact strings "
            f"('01' is not '1')")
    warnings = []
    if qrels_only:
        action = "scored 0 (missing_queries=zero)" if zero else "skipped (missing_queries=skip; use zero to score them 0)"
        warnings.append(f"{qrels_only} qrels queries have no results in the run and are {action}, "
                        f"e.g. {example_qrels!r}")
    if run_only:
        warnings.append(f"{run_only} run queries have no judgments and are ignored, e.g. {example_run!r}")
    return warnings, both + (qrels_only if zero else 0)


MAX_SLICES = 1000
_SIZE = re.compile(r"\s*[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*", re.IGNORECASE)


def engine_config(memory_limit: str | None = None, temp_directory: str | os.PathLike | None = None,
                  threads: int | None = None) -> dict[str, Any]:
    """DuckDB settings for a private connection, checked first so that a typo is a clear error.

    memory_limit: e.g. "4GB"; beyond it DuckDB spills sorts, joins and aggregates to
    temp_directory (default: a .tmp folder DuckDB makes in the working directory).
    threads: worker threads (default: all cores)."""
    config: dict[str, Any] = {}
    if memory_limit is not None:
        if not isinstance(memory_limit, str) or not _SIZE.fullmatch(memory_limit):
            raise OptionError(f"memory_limit {memory_limit!r} is not a size; write it like 4GB, 500MB or 2GiB")
        config["memory_limit"] = memory_limit.strip()
    if temp_directory is not None:
        folder = Path(temp_directory)
        if folder.exists() and not folder.is_dir():
            raise OptionError(f"temp_directory {str(folder)!r} is a file; give a folder for spilled data")
        config["temp_directory"] = str(folder)
    if threads is not None:
        most = max(8, 4 * (os.cpu_count() or 1))
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
            raise OptionError(f"threads {threads!r} must be a whole number from 1 to {most} (four per core of "
                              f"this machine; more only add overhead)")
        config["threads"] = threads
    return config


@contextmanager
def session(connection: duckdb.DuckDBPyConnection | None, memory_limit: str | None = None,
            temp_directory: str | os.PathLike | None = None, threads: int | None = None,
            progress: bool = False) -> Iterator[tuple[duckdb.DuckDBPyConnection, Registry]]:
    """The caller's connection (left as it was found) or a private in-memory one.

    Resource settings apply to the private connection; a caller who passes a connection
    sets them on it (SET memory_limit = '4GB'), so sqlrank refuses to override them."""
    config = engine_config(memory_limit, temp_directory, threads)
    if connection is not None and config:
        raise OptionError(f"{', '.join(config)} cannot be changed on your connection; set them on it "
                              f"(e.g. SET memory_limit = '4GB') or leave out connection=")
    if connection is None:
        try:
            con = duckdb.connect(config=config)
        except duckdb.Error as exc:
            raise OptionError(f"DuckDB refused the settings {config}: {duckdb_reason(exc)}") from None
        con.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
    else:
        con = connection
    registry = Registry(con)
    try:
        yield con, registry
    finally:
        registry.close()
        if connection is None:
            con.close()


def add_engine_arguments(parser):
    """The resource flags of the command lines (sqlrank eval, sqlrank trec_eval)."""
    group = parser.add_argument_group("engine")
    group.add_argument("--memory-limit", metavar="SIZE",
                       help="DuckDB's memory limit, e.g. 4GB (default: 80%% of RAM); larger work spills to disk")
    group.add_argument("--temp-directory", metavar="DIR",
                       help="where spilled data goes (default: .tmp in the working directory)")
    group.add_argument("--threads", type=int, metavar="N", help="worker threads (default: all cores)")
    return group


def engine_arguments(args) -> dict[str, Any]:
    """session() options from parsed command-line flags. DuckDB draws its progress bar (for
    queries longer than about 2 s) on standard output, so it is on only when that is a terminal
    and never mixes with results written to a pipe or a file."""
    return dict(memory_limit=args.memory_limit, temp_directory=args.temp_directory, threads=args.threads,
                progress=sys.stdout.isatty())


def session_options(options: dict[str, Any]) -> dict[str, Any]:
    """Take the engine options (connection and resources) out of an evaluation's options."""
    return {name: options.pop(name) for name in ("connection", "memory_limit", "temp_directory", "threads",
                                                 "progress") if name in options}



ENGINES = ("duckdb", "spark")


def evaluate_result(qrels: Any, run: Any, measures: Any, per_query: bool = False, engine: str = "duckdb",
                    spark: Any = None, strict: bool = False, **options: Any) -> Result:
    """One evaluation on DuckDB (default) or on Spark (engine="spark", or a SparkSession in spark=).
    strict=True: every warning (something that can change a number) is an error instead."""
    if engine not in ENGINES:
        raise OptionError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    if engine == "spark" or spark is not None:
        from .spark import evaluate_spark
        result = evaluate_spark(qrels, run, measures, per_query, spark=spark, **options)
    else:
        resources = session_options(options)
        with session(resources.pop("connection", None), **resources) as (con, registry):
            output = "both" if per_query else "summary"
            result = execute(plan(qrels, run, measures, output, con, registry, **options), per_query, con)
    if strict and result.warnings:
        raise InputError(f"strict: {len(result.warnings)} findings can change the numbers: "
                         + "; ".join(result.warnings))
    return result
