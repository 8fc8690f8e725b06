"""Plans for the engines other than DuckDB (PostgreSQL, ClickHouse, DataFusion, Spark). For the first
three, which take copies of the inputs, DuckDB reads and validates a file or DataFrame as always,
and the engine receives it as an Arrow table under a fresh name (the extra inputs of the measures
beyond accuracy too); a table of the engine is read where it is. Spark reads files itself
(spark.py)."""
from __future__ import annotations

import uuid
from typing import Any, Callable

from ..errors import InputError, OptionError
from ..inputs.columns import map_table_columns, read_boolean_labels
from ..inputs.extra import EngineInputs
from ..inputs.load import Table, load
from ..inputs.source import Source
from ..inputs.validate import label_range_sql, require_complete_rows, require_labels_in_range, table_counts_sql
from ..plan import Plan, plan, require_ranks
from ..rendering.dialects import dialect, quote_ident
from ..rendering.sqltext import call_macro
from .duckdb import session, session_options, to_arrow


def copied_source(obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None,
                  engine_name: str, store: Callable[[str, Any], None]) -> Source:
    """The input read and validated by DuckDB, then handed to ``store(name, arrow_table)``; the
    Source reads that table by name, with the canonical columns (the run's rank as input_rank)."""
    source = load(obj, kind, con, registry, format, columns)
    name = f"sqlrank_{kind}_{uuid.uuid4().hex[:12]}"
    canonical = {"query_id": "query_id", "doc_id": "doc_id", source.value_name: source.value_name}
    if kind == "run":
        canonical["rank"] = "input_rank"
    rows = source.sql()
    if source.per_run:  # runs stored together: the copy keeps run_id apart, the engine's SQL keys the queries
        rows = call_macro("_macros/inputs.sql", "unkeyed_runs", rows).strip()
        canonical["run_id"] = "run_id"
    store(name, to_arrow(con, rows))
    return Source(kind, source.label, ENGINE_FORMATS[engine_name], parts=(name,), columns=canonical,
                  warnings=source.warnings, query_name=source.query_label)


def table_columns(engine, engine_name: str, parts: tuple[str, ...], label: str) -> tuple[str, dict[str, str]]:
    """A table of the engine: its name in the engine's SQL, and its columns with their (Arrow) types."""
    name = ".".join(quote_ident(part, '"') for part in parts)
    try:
        return name, engine.schema(f"SELECT * FROM {name} LIMIT 0")
    except InputError:
        raise InputError(f"{label}: no such table or view in {engine_name} (nor a file of that name)") from None


def validated_table(source: Source, engine, engine_name: str) -> Source:
    """A table read where it is (PostgreSQL, ClickHouse, DataFusion), checked in the engine's own SQL
    as DuckDB checks what it reads: its columns exist, no id or value is missing or NaN, and no
    (query, document) pair repeats; a run_id column makes it runs stored together, each row's run named."""
    _, types = table_columns(engine, engine_name, source.parts, source.label)
    map_table_columns(source, types, per_run=True)  # a run_id column: runs stored together, as in a file
    with dialect(engine.dialect):
        labels = label_range_sql(source, types)
        if labels is not None:
            require_labels_in_range(source, *engine.one(labels))
        read_boolean_labels(source, lambda sql: engine.one(sql)[0])
        counts = table_counts_sql(source, types)
    require_complete_rows(source, *engine.one(counts))
    return source


def engine_inputs(engine, engine_name: str, own_table: Callable[[Any], tuple[str, ...] | None], con) -> EngineInputs:
    """How the engine takes the extra inputs of the measures beyond accuracy: a table of its own
    (``own_table(obj)``: its name's parts, or None) is read there; a file or DataFrame, read and checked
    by DuckDB, is handed to ``engine.load`` as an Arrow table under a fresh name."""
    def table(obj: Any, what: str) -> Table | None:
        parts = own_table(obj)
        if parts is None:
            return None
        label = f"{what} table {obj}"
        return Table(label, *table_columns(engine, engine_name, parts, label))

    def store(kind: str, sql: str) -> str:
        name = f"sqlrank_{kind}_{uuid.uuid4().hex[:12]}"
        engine.load(name, to_arrow(con, sql))
        with dialect(engine.dialect):
            return f"SELECT * FROM {quote_ident(name)}"

    return EngineInputs(engine.dialect, table, lambda sql: engine.one(sql)[0], store)


ENGINE_FORMATS = {"PostgreSQL": "postgres", "ClickHouse": "clickhouse", "DataFusion": "datafusion"}


def refuse_duckdb_options(options: dict[str, Any], engine_name: str) -> None:
    """What only DuckDB takes, refused before another engine is started or connected to."""
    settings = session_options(dict(options))
    if settings:
        raise OptionError(f"{', '.join(settings)}: DuckDB settings, which do not apply on {engine_name} (configure "
                          f"{engine_name} itself)")
    if options.get("slices") not in (None, 1):
        raise OptionError(f"slices= is for DuckDB: {engine_name} runs the whole statement itself")
    if options.get("duplicate_documents") == "rows":
        raise OptionError(f"duplicate_documents=rows reads the run on DuckDB: {engine_name} checks its tables for "
                          f"documents ranked twice")
    if options.get("queries") is not None or options.get("by") is not None:
        raise OptionError("a query table (queries=, by=) is read on DuckDB only")


def foreign_plan(engine, source_of: Callable, inputs: Callable[[Any], EngineInputs], qrels: Any, run: Any,
                 measures: Any, output: str, **options: Any) -> Plan:
    """The plan of an evaluation on ``engine`` (its dialect), whose inputs
    ``source_of(obj, kind, con, registry, format, columns)`` makes; ``inputs(con)`` says how it takes
    the extra inputs of the measures beyond accuracy (engine_inputs). The options only DuckDB takes
    were refused before the engine started (refuse_duckdb_options, in evaluation._plan_elsewhere).
    If planning fails, the engine is closed."""
    try:
        qrels_format, run_format = options.pop("qrels_format", None), options.pop("run_format", None)
        qrels_columns, run_columns = options.pop("qrels_columns", None), options.pop("run_columns", None)
        with session(None) as (con, registry):
            qrels_source = source_of(qrels, "qrels", con, registry, qrels_format, qrels_columns)
            run_source = source_of(run, "run", con, registry, run_format, run_columns)
            p = plan(qrels_source, run_source, measures, output, con, registry, dialect=engine.dialect,
                     engine_inputs=inputs(con), **options)
        if any(m.param("tie_break") == "input_rank" for m in p.measures):
            with dialect(engine.dialect):
                require_ranks(p.run, engine.one, p.run.source_sql())
    except BaseException:
        engine.close()
        raise
    return p
