"""Results in the kind of frame that came in: a Polars DataFrame for Polars inputs, a pyarrow Table for Arrow ones,
a DuckDB relation of the caller's connection for DuckDB relations, pandas otherwise, or the kind asked for
(``output="pandas" | "polars" | "arrow" | "duckdb"``). What pandas' ``attrs`` carry (the statement, the conventions,
the queries counted) goes along: a Polars frame's ``attrs``, an Arrow table's schema metadata (``b"sqlrank"``,
JSON); a relation has no place for them (output="pandas" keeps them)."""
from __future__ import annotations

import json
from typing import Any

from ..errors import OptionError

OUTPUTS = ("pandas", "polars", "arrow", "duckdb")


def output_kind(output: str | None, *inputs: Any) -> str:
    """The kind asked for, or that of the inputs, the run (the last) first: polars for a Polars DataFrame or
    LazyFrame, arrow for a pyarrow Table or RecordBatch, duckdb for a DuckDB relation, pandas for a pandas DataFrame;
    an input that is no frame (a file, a table's name, a dict of dicts) says nothing, and the one before it decides
    (pandas where none does). A pandas run beside Polars judgments gives pandas: the run decides whenever it is a
    frame."""
    if output is not None:
        if output not in OUTPUTS:
            raise OptionError(f"output={output!r} is not one of {', '.join(OUTPUTS)}")
        return output
    for obj in reversed(inputs):  # the run last: it decides
        kind = _kind(obj)
        if kind is not None:
            return kind
    return "pandas"


def _kind(obj: Any) -> str | None:
    module, name = type(obj).__module__.split(".")[0], type(obj).__name__
    if module == "polars" and name in ("DataFrame", "LazyFrame"):
        return "polars"
    if module == "pyarrow" and name in ("Table", "RecordBatch"):
        return "arrow"
    if module == "duckdb" and name == "DuckDBPyRelation":
        return "duckdb"
    if module == "pandas" and name == "DataFrame":
        return "pandas"
    if isinstance(obj, (list, tuple)) and obj:
        return _kind(obj[0])
    if isinstance(obj, dict) and obj and all(isinstance(k, str) for k in obj):
        return _kind(next(iter(obj.values())))
    return None


def converted(frame: Any, kind: str, connection: Any = None) -> Any:
    """A pandas DataFrame of results as ``kind``, its attrs kept; a relation of ``connection`` (the caller's, where
    their relations live: it scans the frame, nothing copied), to join back to their tables in SQL."""
    if kind == "pandas":
        return frame
    if kind == "duckdb":
        if connection is None:
            raise OptionError("a DuckDB relation as the result is one of your connection: pass connection=con (the "
                              "connection your relations and tables belong to), or output='pandas'")
        return connection.from_df(frame)
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "arrow":
        metadata = dict(table.schema.metadata or {})
        metadata[b"sqlrank"] = json.dumps(frame.attrs, default=str).encode()
        return table.replace_schema_metadata(metadata)
    import polars as pl

    out = pl.from_arrow(table)
    out.attrs = dict(frame.attrs)
    return out
