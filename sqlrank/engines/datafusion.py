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

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping
from ..inputs.locate import refuse_file_and_table
from ..inputs.source import Source
from ..plan import Plan
from .base import Rows
from .foreign import copied_source, engine_inputs, foreign_plan, validated_table


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
    """Runs the DataFusion text of a plan in a SessionContext; its errors become InputErrors. The
    inputs it registers are deregistered by close(): a context you pass outlives the evaluation."""

    dialect = "datafusion"

    def __init__(self, context):
        self.context = context
        self.tables: list[str] = []

    def rows(self, sql: str) -> Rows:
        try:
            table = self.context.sql(sql).to_arrow_table()
        except Exception as exc:
            raise InputError(f"evaluation failed in DataFusion: {_reason(exc)}") from None
        columns = table.column_names
        return Rows(tuple(columns), list(zip(*(table.column(c).to_pylist() for c in columns))))

    def one(self, sql: str) -> tuple:
        return self.rows(sql).rows[0]

    def schema(self, sql: str) -> dict[str, str]:
        """The columns of a query and their Arrow types."""
        try:
            return {f.name: str(f.type) for f in self.context.sql(sql).schema()}
        except Exception as exc:
            raise InputError(f"evaluation failed in DataFusion: {_reason(exc)}") from None

    def evaluate(self, p: Plan) -> Rows:
        return self.rows(p.text)

    def load(self, name: str, table) -> None:
        """An Arrow table registered under ``name`` (one empty batch for a table without rows, which
        DataFusion needs to know its columns)."""
        import pyarrow as pa

        self.context.register_record_batches(name, [table.to_batches() or [pa.RecordBatch.from_pylist([], table.schema)]])
        self.tables.append(name)

    def close(self) -> None:
        for name in self.tables:
            self.context.deregister_table(name)
        self.tables.clear()


def own_table(obj: Any, engine: DataFusionEngine, format: str | None = None) -> tuple[str, ...] | None:
    """A table registered in the context: a name that is no file or pattern and that the context has."""
    if isinstance(obj, str) and not os.path.exists(obj) and format is None and not any(ch in obj for ch in "*?[") \
            and _has_table(engine, obj):
        return (obj,)
    return None


def _has_table(engine: DataFusionEngine, name: str) -> bool:
    """Whether the context has a table of that name (a name it cannot resolve, such as a.b.c, has none)."""
    try:
        return bool(engine.context.table_exist(name))
    except Exception:  # DataFusion's own error for a schema it does not know
        return False


def extra_input_table(obj: Any, engine: DataFusionEngine) -> tuple[str, ...] | None:
    """A table of the context given as an extra input of the measures beyond accuracy, registered
    again under a fresh name with its text columns as Utf8: DataFusion 55 stops with an internal
    error on some of those statements over LargeUtf8 columns (pandas' strings)."""
    import pyarrow as pa

    parts = own_table(obj, engine)
    if parts is None:
        return None
    table = engine.context.table(parts[0]).to_arrow_table()
    text = (pa.types.is_large_string, pa.types.is_string_view)
    table = table.cast(pa.schema([pa.field(f.name, pa.string()) if any(is_text(f.type) for is_text in text) else f
                                  for f in table.schema]))
    name = f"sqlrank_input_{uuid.uuid4().hex[:12]}"
    engine.load(name, table)
    return (name,)


def datafusion_source(obj: Any, kind: str, engine: DataFusionEngine, con, registry, format: str | None,
                      columns: dict[str, str] | None) -> Source:
    """A table registered in the context, or a file or DataFrame handed over as an Arrow table."""
    refuse_file_and_table(obj, format, lambda name: _has_table(engine, name), "the DataFusion context")
    parts = own_table(obj, engine, format)
    if parts is not None:
        return validated_table(Source(kind, f"table {obj}", "datafusion", parts=parts,
                                      columns=column_mapping(kind, columns)), engine, "DataFusion")
    return copied_source(obj, kind, con, registry, format, columns, "DataFusion", engine.load)


def plan_on_datafusion(qrels: Any, run: Any, measures: Any, output: str, context=None,
                       **options: Any) -> tuple[Plan, DataFusionEngine]:
    """The plan of an evaluation in DataFusion and the engine that runs it."""
    engine = DataFusionEngine(session_context(context))

    def source_of(obj, kind, con, registry, format, columns):
        return datafusion_source(obj, kind, engine, con, registry, format, columns)

    def inputs(con):
        return engine_inputs(engine, "DataFusion", lambda obj: extra_input_table(obj, engine), con)

    return foreign_plan(engine, source_of, inputs, qrels, run, measures, output, **options), engine
