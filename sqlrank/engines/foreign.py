"""Plans for the engines other than DuckDB (PostgreSQL, ClickHouse, DataFusion, Spark). For the first
three, which take copies of the inputs, DuckDB reads and validates a file or DataFrame as always,
and the engine receives it as an Arrow table under a fresh name (the extra inputs of the measures
beyond accuracy too); a table of the engine is read where it is. Spark reads files itself
(spark.py)."""
from __future__ import annotations

import os
import uuid
from dataclasses import replace
from typing import Any, Callable

from ..errors import InputError, OptionError
from ..inputs.columns import column_map, column_mapping, map_table_columns, read_boolean_labels
from ..inputs.extra import EngineInputs
from ..inputs.load import Table, load
from ..inputs.locate import is_nested_dict, refuse_file_and_table
from ..inputs.source import Source
from ..inputs.validate import label_range_sql, require_complete_rows, require_labels_in_range, table_counts_sql
from ..inputs.keyed import Intents, Samples, sampled_run
from ..inputs.reading import by_source, require_ranks
from ..plan import Judged, Plan, conventions_of, judged, plan, resolved
from ..rendering.dialects import DUCKDB, Dialect
from ..rendering.sqltext import call_macro
from .base import CopyingEngine, Engine
from .duckdb import session, session_options, to_arrow

JUDGING = ("qrels_format", "qrels_columns", "preset", "prefer", "combine")  # what reading the judgments takes


def copied_source(obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None,
                  engine: CopyingEngine) -> Source:
    """The input read and validated by DuckDB, then loaded into the engine; the Source reads that
    table by name, with the canonical columns (the run's rank as input_rank)."""
    return copy_of(load(obj, kind, con, registry, format, columns), copier(engine, con), engine.dialect)


def copier(engine: CopyingEngine, con) -> Callable[[str, str], str]:
    """``copy(kind, sql)``: what DuckDB reads with ``sql`` loaded into the engine under a fresh name, returned."""
    def copy(kind: str, sql: str) -> str:
        name = f"sqlrank_{kind}_{uuid.uuid4().hex[:12]}"
        engine.load(name, to_arrow(con, sql))
        return name

    return copy


def copy_of(source: Source, copy: Callable[[str, str], str], dialect: Dialect) -> Source:
    """A Source DuckDB read and validated, copied into an engine (``copy(kind, sql)``: the copy's table name): the
    Source that reads the copy by name, with the canonical columns (the run's rank as input_rank)."""
    kind = source.kind
    canonical = {"query_id": "query_id", "doc_id": "doc_id", source.value_name: source.value_name}
    if kind == "run":
        canonical["rank"] = "input_rank"
    rows = source.sql()
    if source.per_run:  # runs stored together: the copy keeps run_id apart, the engine's SQL keys the queries
        rows = call_macro(DUCKDB, "_macros/inputs.sql", "unkeyed_runs", rows).strip()
        canonical["run_id"] = "run_id"
    return Source(kind, source.label, dialect.name, parts=(copy(kind, rows),), columns=canonical,
                  warnings=source.warnings, query_name=source.query_label, label_type=source.label_type)


def held_inputs(engine: Engine, inputs: EngineInputs, qrels: Any, run: Any, measures: Any, options: dict[str, Any],
                con, registry) -> tuple[Judged | None, Samples | None]:
    """What DuckDB reads and checks for the engine as it does for itself, then copies in: judgments merged from
    several sources, judgments per subtopic (the diversity measures) and sampled rankings (expected exposure).
    plan() takes them in place of the qrels and the run; None for an input the engine reads as always."""
    conventions = conventions_of(options)
    _, resolved_measures = resolved(measures, options.get("preset"), conventions)
    for m in resolved_measures:  # before anything is copied
        engine.dialect.check(m)
    diverse = any(m.spec.intent_aware for m in resolved_measures)
    held_qrels = held_run = None
    several = isinstance(qrels, (list, tuple, dict)) and not is_nested_dict(qrels)
    if diverse or several or options.get("prefer") or options.get("combine") \
            or "source" in column_map(options.get("qrels_columns"), "qrels_columns"):
        for obj in (qrels.values() if isinstance(qrels, dict) else qrels if several else [qrels]):
            _refuse_own_table(engine, inputs, obj, "judgments per subtopic or of several sources are")
        read = judged(qrels, measures, con, registry, **{k: options.get(k) for k in JUDGING}, **conventions)
        source = copy_of(read.source, inputs.copy, engine.dialect)
        merged = read.judgments and replace(read.judgments, qrels=source, sources_sql=inputs.store(
            "sources", read.judgments.sources_sql) if by_source(resolved_measures) else read.judgments.sources_sql)
        intents = read.intents and Intents(source, inputs.store("intents", read.intents.sql))
        held_qrels = replace(read, source=source, judgments=merged, intents=intents)
    stochastic = [str(m) for m in resolved_measures if m.spec.sampled]
    if stochastic:
        _refuse_own_table(engine, inputs, run, "sampled rankings are")
        samples = sampled_run(run, con, registry, options.get("run_format"), options.get("run_columns"),
                              ", ".join(stochastic), [str(m) for m in resolved_measures if not m.spec.sampled])
        held_run = Samples(copy_of(samples.run, inputs.copy, engine.dialect), inputs.store("samples", samples.sql))
    return held_qrels, held_run


def _refuse_own_table(engine: Engine, inputs: EngineInputs, obj: Any, what: str) -> None:
    """A table of the engine where DuckDB must read the input (keyed by a subtopic, a sample or a source)."""
    if isinstance(obj, str) and not os.path.exists(obj) and inputs.table(obj, "input") is not None:
        raise OptionError(f"{obj}: a table of {engine.name}; {what} read and checked by DuckDB and copied in, so give "
                          f"a file or a DataFrame, or print the statement that reads the table there: sqlrank sql "
                          f"--dialect {engine.dialect.name}")


def table_or_copy(engine: CopyingEngine, obj: Any, kind: str, con, registry, format: str | None,
                  columns: dict[str, str] | None, where: str) -> Source:
    """A table of the engine (``where`` names its database in errors), validated where it is; or a file
    or DataFrame, read and validated by DuckDB and copied in. A name both a table and a file is refused."""
    refuse_file_and_table(obj, format, engine.has_table, where)
    parts = engine.own_table(obj, format)
    if parts is not None:
        return validated_table(Source(kind, f"table {obj}", engine.dialect.name, parts=parts,
                                      columns=column_mapping(kind, columns)), engine)
    return copied_source(obj, kind, con, registry, format, columns, engine)


def table_columns(engine: CopyingEngine, parts: tuple[str, ...], label: str) -> tuple[str, dict[str, str]]:
    """A table of the engine: its name in the engine's SQL, and its columns with their (Arrow) types."""
    name = ".".join(engine.dialect.ident(part, '"') for part in parts)
    try:
        return name, engine.table_types(parts)
    except InputError:
        raise InputError(f"{label}: no such table or view in {engine.name} (nor a file of that name)") from None


def validated(source: Source, dialect: Dialect, one: Callable[[str], tuple], types: dict[str, str]) -> Source:
    """A table read where it is, checked in the engine's own SQL as DuckDB checks what it reads: its
    columns exist, no id or value is missing or NaN, and no (query, document) pair repeats; a run_id
    column makes it runs stored together, each row's run named. ``one`` runs a query there."""
    source = map_table_columns(source, types, per_run=True)  # a run_id column: runs stored together, as in a file
    labels = label_range_sql(source, dialect, types)
    if labels is not None:
        require_labels_in_range(source, *one(labels))
    source = read_boolean_labels(source, dialect, lambda sql: one(sql)[0])
    return require_complete_rows(source, *one(table_counts_sql(source, dialect, types)))


def validated_table(source: Source, engine: CopyingEngine) -> Source:
    """A table of a copying engine (PostgreSQL, ClickHouse, DataFusion), validated there."""
    _, types = table_columns(engine, source.parts, source.label)
    return validated(source, engine.dialect, engine.one, types)


def engine_inputs(engine: CopyingEngine, con) -> EngineInputs:
    """How a copying engine takes the extra inputs of the measures beyond accuracy: a table of its own
    (``engine.extra_table(obj)``: its name's parts, or None) is read there; a file or DataFrame, read
    and checked by DuckDB, is handed to ``engine.load`` as an Arrow table under a fresh name."""
    def table(obj: Any, what: str) -> Table | None:
        parts = engine.extra_table(obj)
        if parts is None:
            return None
        label = f"{what} table {obj}"
        return Table(label, *table_columns(engine, parts, label))

    return EngineInputs.copying(engine.dialect, table, lambda sql: engine.one(sql)[0], copier(engine, con))


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


def foreign_plan(engine: Engine, qrels: Any, run: Any, measures: Any, output: str, **options: Any) -> Plan:
    """The plan of an evaluation on ``engine`` (its dialect), whose inputs ``engine.source`` makes and
    whose extra inputs ``engine.extra_inputs`` takes. The options only DuckDB takes were refused
    before the engine started (refuse_duckdb_options, in evaluation.py). If planning fails, the
    engine is closed."""
    try:
        qrels_format, run_format = options.pop("qrels_format", None), options.pop("run_format", None)
        qrels_columns, run_columns = options.pop("qrels_columns", None), options.pop("run_columns", None)
        with session(None) as (con, registry):
            inputs = engine_inputs(engine, con) if isinstance(engine, CopyingEngine) else engine.extra_inputs(con)
            held_qrels, held_run = held_inputs(engine, inputs, qrels, run, measures, dict(
                options, qrels_format=qrels_format, run_format=run_format, qrels_columns=qrels_columns,
                run_columns=run_columns), con, registry)
            qrels_source = held_qrels or engine.source(qrels, "qrels", con, registry, qrels_format, qrels_columns)
            run_source = held_run or engine.source(run, "run", con, registry, run_format, run_columns)
            p = plan(qrels_source, run_source, measures, output, con, registry, dialect=engine.dialect.name,
                     engine_inputs=inputs, **options)
        if any(m.param("tie_break") == "input_rank" for m in p.measures):
            require_ranks(p.run, engine.one, p.run.source_sql(engine.dialect), engine.dialect)
    except BaseException:
        engine.close()
        raise
    return p
