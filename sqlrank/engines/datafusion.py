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
from ..inputs.source import Source
from ..rendering.dialects import DIALECTS
from .base import CopyingEngine, Rows, first_line
from .foreign import table_or_copy


def session_context(context=None):
    if context is not None:
        return context
    try:
        from datafusion import SessionContext
    except ImportError:
        raise OptionError("the DataFusion engine needs the datafusion package: pip install 'sqlrank[datafusion]'") \
            from None
    return SessionContext()


class DataFusionEngine(CopyingEngine):
    """Runs the DataFusion text of a plan in a SessionContext; its errors become InputErrors. The
    inputs it registers are deregistered by close(): a context you pass outlives the evaluation."""

    dialect, name = DIALECTS["datafusion"], "DataFusion"

    def __init__(self, context):
        self.context = context
        self.tables: list[str] = []

    def rows(self, sql: str) -> Rows:
        try:
            table = self.context.sql(sql).to_arrow_table()
        except Exception as exc:
            raise InputError(f"evaluation failed in DataFusion: {first_line(exc)}") from None
        columns = table.column_names
        return Rows(tuple(columns), list(zip(*(table.column(c).to_pylist() for c in columns))))

    def schema(self, sql: str) -> dict[str, str]:
        try:
            return {f.name: str(f.type) for f in self.context.sql(sql).schema()}
        except Exception as exc:
            raise InputError(f"evaluation failed in DataFusion: {first_line(exc)}") from None

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

    def own_table(self, obj: Any, format: str | None = None) -> tuple[str, ...] | None:
        """A table registered in the context: a name that is no file or pattern and that the context has."""
        if isinstance(obj, str) and not os.path.exists(obj) and format is None and not any(ch in obj for ch in "*?[") \
                and self.has_table(obj):
            return (obj,)
        return None

    def has_table(self, name: str) -> bool:
        """Whether the context has a table of that name (a name it cannot resolve, such as a.b.c, has none)."""
        try:
            return bool(self.context.table_exist(name))
        except Exception:  # DataFusion's own error for a schema it does not know
            return False

    def extra_table(self, obj: Any) -> tuple[str, ...] | None:
        """A table of the context given as an extra input of the measures beyond accuracy, registered
        again under a fresh name with its text columns as Utf8: DataFusion 55 stops with an internal
        error on some of those statements over LargeUtf8 columns (pandas' strings)."""
        import pyarrow as pa

        parts = self.own_table(obj)
        if parts is None:
            return None
        table = self.context.table(parts[0]).to_arrow_table()
        text = (pa.types.is_large_string, pa.types.is_string_view)
        table = table.cast(pa.schema([pa.field(f.name, pa.string()) if any(is_text(f.type) for is_text in text)
                                      else f for f in table.schema]))
        name = f"sqlrank_input_{uuid.uuid4().hex[:12]}"
        self.load(name, table)
        return (name,)

    def source(self, obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None) -> Source:
        """A table registered in the context, or a file or DataFrame handed over as an Arrow table."""
        return table_or_copy(self, obj, kind, con, registry, format, columns, "the DataFusion context")
