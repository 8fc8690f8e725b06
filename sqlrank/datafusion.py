"""DataFusion: the evaluation statement run by Apache DataFusion's SQL engine, embedded in this
process (the optional extra ``sqlrank[datafusion]``).

Inputs are read and validated by DuckDB, then handed to a DataFusion SessionContext as Arrow
tables; tables already registered in a context you pass (``datafusion=ctx``) are read by name.
DataFusion has no LGAMMA, so RR and Success under tie_break=expected are refused there.
"""
from __future__ import annotations

import os
import uuid
from typing import Any

from .engine import session, session_options, to_arrow
from .errors import InputError, OptionError
from .inputs import Source, column_mapping, load
from .planner import Plan, plan, require_ranks
from .results import Rows
from .templates import dialect


def session_context(context=None):
    if context is not None:
        return context
    try:
        from datafusion import SessionContext
    except ImportError:
        raise OptionError("the DataFusion engine needs the datafusion package: pip install 'sqlrank[datafusion]'") \
            from None
    return SessionContext()


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class DataFusionEngine:
    """Runs the DataFusion text of a plan in a SessionContext; its errors become InputErrors."""

    dialect = "datafusion"

    def __init__(self, context):
        self.context = context

    def rows(self, sql: str) -> Rows:
        try:
            table = self.context.sql(sql).to_arrow_table()
        except Exception as exc:
            raise InputError(f"evaluation failed in DataFusion: {_reason(exc)}") from None
        columns = table.column_names
        return Rows(tuple(columns), list(zip(*(table.column(c).to_pylist() for c in columns))))

    def one(self, sql: str) -> tuple:
        return self.rows(sql).rows[0]

    def evaluate(self, p: Plan) -> Rows:
        return self.rows(p.text)


def datafusion_source(obj: Any, kind: str, engine: DataFusionEngine, con, registry, format: str | None,
                      columns: dict[str, str] | None) -> Source:
    """A table registered in the context, or a file or DataFrame handed over as an Arrow table."""
    if isinstance(obj, str) and not os.path.exists(obj) and format is None and not any(ch in obj for ch in "*?[") \
            and engine.context.table_exist(obj):
        return Source(kind, f"table {obj}", "datafusion", parts=(obj,), columns=column_mapping(kind, columns))
    source = load(obj, kind, con, registry, format, columns)
    if source.per_run:
        raise InputError(f"{source.label}: runs stored together are evaluated on DuckDB or Spark; on DataFusion "
                         f"give one run per evaluation")
    name = f"sqlrank_{kind}_{uuid.uuid4().hex[:12]}"
    engine.context.register_record_batches(name, [to_arrow(con, source.sql()).to_batches()])
    canonical = {"query_id": "query_id", "doc_id": "doc_id", source.value_name: source.value_name}
    if kind == "run":
        canonical["rank"] = "input_rank"
    return Source(kind, source.label, "datafusion", parts=(name,), columns=canonical, warnings=source.warnings)


def plan_on_datafusion(qrels: Any, run: Any, measures: Any, output: str, context=None,
                       **options: Any) -> tuple[Plan, DataFusionEngine]:
    """The plan of an evaluation in DataFusion and the engine that runs it."""
    if session_options(options):
        raise OptionError("memory_limit, temp_directory, threads and connection are DuckDB settings; they do not "
                          "apply on DataFusion")
    for name, what in (("slices", "slices="), ("queries", "segments (queries=, by=)")):
        if options.get(name) not in (None, 1):
            raise OptionError(f"{what} run on DuckDB only")
    engine = DataFusionEngine(session_context(context))
    qrels_format, run_format = options.pop("qrels_format", None), options.pop("run_format", None)
    qrels_columns, run_columns = options.pop("qrels_columns", None), options.pop("run_columns", None)
    with session(None) as (con, registry):
        qrels_source = datafusion_source(qrels, "qrels", engine, con, registry, qrels_format, qrels_columns)
        run_source = datafusion_source(run, "run", engine, con, registry, run_format, run_columns)
        p = plan(qrels_source, run_source, measures, output, con, registry, dialect="datafusion", **options)
    if any(m.param("tie_break") == "input_rank" for m in p.measures):
        with dialect("datafusion"):
            require_ranks(p.run, engine.one, p.run.source_sql())
    return p, engine
