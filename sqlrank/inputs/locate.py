"""Where an input is: a file (its format from its name), a pattern, a DataFrame, a relation or a
table; Parquet of many small row groups and text files read once into sqlrank's copy."""
from __future__ import annotations

import os
from typing import Any, Callable, Mapping

import duckdb

from ..errors import InputError
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro
from .columns import column_mapping, require_distinct_names
from .files import file_source, tabular_source
from .source import IMPLICIT, INTEGER_TYPES, Source
from .store import Registry


def registered_source(obj: Any, kind: str, noun: str, con: duckdb.DuckDBPyConnection, registry: Registry,
                format: str | None) -> tuple[str, str, str, tuple[str, ...]] | None:
    """A DuckDB relation, a DataFrame (both registered in the connection) or a table name, as
    (label, format, reader, table name parts); None for a path. ``noun`` names it in errors."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return "DuckDB relation", "relation", DUCKDB.ident(registry.register(obj, kind)), ()
    held = held_table(obj, kind)
    if held is not None:
        label, table = held
        return label, "dataframe", DUCKDB.ident(registry.register(table, kind)), ()
    if is_dataframe(obj):
        require_distinct_names(f"{noun} DataFrame" if noun != kind else "DataFrame", [str(c) for c in obj.columns])
        return "DataFrame", "dataframe", DUCKDB.ident(registry.register(obj, kind)), ()
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        refuse_file_and_table(obj, format, lambda name: is_table(con, name), "the DuckDB database")
        if format is None and not os.path.exists(text) and is_table(con, text):
            parts = tuple(text.split("."))
            return f"table {text}", "table", call_macro(DUCKDB, "_macros/inputs.sql", "table", parts).strip(), parts
        return None
    raise InputError(f"cannot read {noun} from a {type(obj).__name__}: pass a file path, a pandas or Polars "
                     f"DataFrame, a pyarrow Table, a DuckDB relation, a table name, or a dict {{query: {{doc: value}}}}")


def refuse_file_and_table(obj: Any, format: str | None, is_table: Callable[[str], bool], database: str,
                          schema: str = "main") -> None:
    """A name that is both a file in the working folder and a table of the database: which one is meant
    cannot be known, so neither is read (the file used to win without a word)."""
    if not isinstance(obj, (str, os.PathLike)) or format is not None:
        return
    name = os.fspath(obj)
    try:
        both = os.path.isfile(name) and os.sep not in name and name.isprintable() and is_table(name)
    except Exception:  # a name the database cannot take (not UTF-8), or a database that cannot answer
        both = False   # now: what reads the file says what is wrong
    if both:
        raise InputError(f"{name}: is both a file in {os.getcwd()} and a table of {database}; say which: "
                         f"{os.path.join('.', name)} for the file, or the table's name with its schema "
                         f"({schema}.{name}, where the table is in schema {schema})")


def held_table(obj: Any, kind: str) -> tuple[str, Any] | None:
    """What DuckDB scans as it is, named for messages: a pyarrow Table or RecordBatch, a Polars DataFrame or
    LazyFrame (collected), or pytrec_eval's dict {query: {doc: label or score}} (as rows); None otherwise."""
    module, name = type(obj).__module__.split(".")[0], type(obj).__name__
    if module == "pyarrow" and name in ("Table", "RecordBatch"):
        require_distinct_names(f"pyarrow {name}", [str(c) for c in obj.column_names])
        return f"pyarrow {name}", obj
    if module == "polars" and name in ("DataFrame", "LazyFrame"):
        frame = obj.collect() if name == "LazyFrame" else obj
        require_distinct_names(f"Polars {name}", [str(c) for c in frame.columns])
        return f"Polars {name}", frame.to_arrow()
    if is_nested_dict(obj):
        import pyarrow as pa

        value = "relevance" if kind == "qrels" else "score"
        rows = [(str(q), str(d), v) for q, docs in obj.items() for d, v in docs.items()]
        bad = next(((q, d, v) for q, d, v in rows if isinstance(v, bool) or not isinstance(v, (int, float))), None)
        if bad is not None:
            raise InputError(f"dict: the {value} of document {bad[1]!r} of query {bad[0]!r} is {bad[2]!r}, not a "
                             f"number; a dict input is {{query: {{doc: {value}}}}}")
        numbers = [v for _, _, v in rows]
        typed = pa.int64() if kind == "qrels" and all(isinstance(v, int) for v in numbers) else pa.float64()
        return "dict", pa.table({"query_id": pa.array([q for q, _, _ in rows], pa.string()),
                                 "doc_id": pa.array([d for _, d, _ in rows], pa.string()),
                                 value: pa.array(numbers, typed)})
    return None


def is_nested_dict(obj: Any) -> bool:
    """pytrec_eval's form {query: {doc: value}}: a dict whose values are dicts of non-dict values."""
    return isinstance(obj, dict) and bool(obj) and all(
        isinstance(docs, dict) and not any(isinstance(v, dict) for v in docs.values()) for docs in obj.values())


def is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def require_columns_not_index(frame: Any, kind: str, mapping: dict[str, str]) -> None:
    """A column the mapping names that is the DataFrame's index (after set_index or groupby), which DuckDB
    does not read: said so, with the fix."""
    index = getattr(frame, "index", None)  # pandas; a Polars DataFrame has none
    names = [name for name in getattr(index, "names", None) or [] if name is not None]
    hidden = [name for name in mapping.values() if name in names and name not in frame.columns]
    if hidden:
        listed = ", ".join(repr(name) for name in hidden)
        raise InputError(f"DataFrame: {listed} {'is' if len(hidden) == 1 else 'are'} the {kind} DataFrame's index, "
                         f"not {'a column' if len(hidden) == 1 else 'columns'}, and an index is not read; pass "
                         f"frame.reset_index()")


LABEL_TYPES = ("integer", "real")  # how a table named but not read declares its labels


def declared_table(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, columns: Mapping[str, str] | None,
                   label_type: str | None, rows: bool = True) -> Any:
    """A name that is no file here and no table of the DuckDB database, as a table of the database a printed
    statement will run in (BigQuery's dataset.table): its columns named as given (query_id, doc_id, relevance or
    score by default), its labels of the type declared (real by default: read as DOUBLE), nothing read or
    checked here. A table of the DuckDB database without rows (a schema-only file) is taken so too, its labels'
    type from its column (with ``rows=False`` one with rows too). Anything else comes back as it is."""
    if label_type is not None and label_type not in LABEL_TYPES:
        raise InputError(f"label type {label_type!r} is not one of {', '.join(LABEL_TYPES)}")
    if not isinstance(obj, str) or os.path.exists(obj):
        return obj
    mapping = column_mapping(kind, columns)
    implicit = kind == "qrels" and mapping.get("relevance") == IMPLICIT  # every listed pair is relevant: label 1
    if implicit:
        label_type = "integer"
    if is_table(con, obj):  # a table of the DuckDB file: read as it is, or, without rows, its schema alone
        if rows and con.sql(f"SELECT * FROM {table_reader(obj)}").limit(1).fetchall():
            return obj
        label = table_types(con, obj).get(mapping.get("relevance", ""), "DOUBLE")
        label_type = label_type or ("integer" if label.upper() in INTEGER_TYPES else "real")
    parts = table_parts(obj)
    return Source(kind, f"table {obj}", "table", reader=table_reader(obj), columns=mapping, parts=parts,
                  label_type=label_type or "real", value_type="INTEGER" if label_type == "integer" else "DOUBLE",
                  implicit=implicit)


def table_reader(name: str) -> str:
    """A table's name ([catalog.][schema.]table) as DuckDB's FROM clause reads it."""
    return call_macro(DUCKDB, "_macros/inputs.sql", "table", table_parts(name)).strip()


def table_types(con: duckdb.DuckDBPyConnection, name: str) -> dict[str, str]:
    """The columns of a table of the DuckDB database and their types."""
    relation = con.sql(f"SELECT * FROM {table_reader(name)}")
    return dict(zip(relation.columns, map(str, relation.types)))


def table_parts(name: str) -> tuple[str, ...]:
    """A table's name ([catalog.][schema.]table) as its parts, or an error when it is none."""
    parts = tuple(name.split("."))
    if not 1 <= len(parts) <= 3 or not all(part and "\x00" not in part for part in parts):
        raise InputError(f"{name!r}: neither a file nor a table name ([catalog.][schema.]table)")
    return parts


def is_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    parts = name.split(".")
    if not 1 <= len(parts) <= 3 or not all(parts):
        return False
    rows = con.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = $1 AND ($2 IS NULL OR schema_name = $2) "
        "UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $1 AND ($2 IS NULL OR schema_name = $2)",
        [parts[-1], parts[-2] if len(parts) > 1 else None]).fetchall()
    return bool(rows)


def locate(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry,
           format: str | None, mapping: dict[str, str]) -> Source:
    """Where the qrels or run ``obj`` is and how DuckDB reads it: a relation, DataFrame or table of the
    connection, else a file or a pattern of files (files.py), its columns found (columns.py)."""
    if is_dataframe(obj):
        require_columns_not_index(obj, kind, mapping)
    found = registered_source(obj, kind, kind, con, registry, format)
    if found is None:
        return file_source(os.fspath(obj), kind, con, format, mapping)
    label, fmt, reader, parts = found
    return tabular_source(Source(kind, label, fmt, reader=reader, parts=parts), con, mapping)
