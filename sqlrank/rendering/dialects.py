"""TODO"""
from __future__ import annotations

import contextvars
import math
import os
from contextlib import contextmanager
from typing import Iterator

from ..errors import MeasureError

DIALECTS = ("duckdb", "spark", "postgres", "datafusion", "clickhouse", "trino", "bigquery", "snowflake")
# Dialects sqlrank prints but cannot run here (no engine in this process or a test's reach).
PRINTED_ONLY = ("trino", "bigquery", "snowflake")
# The type names each dialect spells differently (the templates' globals DOUBLE, FLOAT, INTEGER).
TYPES = {
    "duckdb": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "spark": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "postgres": {"DOUBLE": "DOUBLE PRECISION", "FLOAT": "REAL", "INTEGER": "INTEGER"},
    "datafusion": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "clickhouse": {"DOUBLE": "Float64", "FLOAT": "Float32", "INTEGER": "Int32"},
    "trino": {"DOUBLE": "DOUBLE", "FLOAT": "REAL", "INTEGER": "INTEGER"},
    "bigquery": {"DOUBLE": "FLOAT64", "FLOAT": "FLOAT32", "INTEGER": "INT64"},
    "snowflake": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT32", "INTEGER": "INTEGER"},
}
# What a dialect cannot compute: (family, tie_break) pairs, with the reason.
UNSUPPORTED = {
    "datafusion": {("RR", "expected"): "DataFusion has no LGAMMA for the closed form over tie orders",
                   ("Success", "expected"): "DataFusion has no LGAMMA for the closed form over tie orders"},
    "snowflake": {("RR", "expected"): "Snowflake has no LGAMMA for the closed form over tie orders",
                  ("Success", "expected"): "Snowflake has no LGAMMA for the closed form over tie orders"},
}
_DIALECT: contextvars.ContextVar[str] = contextvars.ContextVar("sqlrank_dialect", default="duckdb")


@contextmanager
def dialect(name: str) -> Iterator[None]:
    """Render for this SQL dialect inside the block: quoting and the macros of _macros/dialect.sql."""
    if name not in DIALECTS:
        raise ValueError(name)
    token = _DIALECT.set(name)
    try:
        yield
    finally:
        _DIALECT.reset(token)


def current_dialect() -> str:
    return _DIALECT.get()


class TypeName:
    """A type name rendered in the dialect being rendered: {{ DOUBLE }} is DOUBLE PRECISION in PostgreSQL."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return TYPES[_DIALECT.get()][self.name]


# Dialects that read backslash escapes ('\\', '\n') in string literals, and those that also read them in
# quoted identifiers; the others (DuckDB, PostgreSQL, Trino, DataFusion) read a backslash as itself.
_ESCAPING_LITERALS = ("spark", "bigquery", "snowflake", "clickhouse")
_ESCAPING_IDENTIFIERS = ("bigquery", "clickhouse")


def quote_ident(name: str, quote: str | None = None) -> str:
    """A quoted SQL identifier (double quotes; backticks in Spark SQL and BigQuery): the quote is
    doubled inside, or escaped with a backslash where the dialect reads backslash escapes there."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"invalid identifier {name!r}")
    quote = quote or ("`" if _DIALECT.get() in ("spark", "bigquery") else '"')  # the others: double quotes
    if _DIALECT.get() in _ESCAPING_IDENTIFIERS:
        return quote + name.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote
    return quote + name.replace(quote, quote * 2) + quote


def quote_literal(value: str) -> str:
    """A SQL string literal. Standard SQL (DuckDB) doubles single quotes and has no backslash
    escapes; where the dialect reads backslash escapes, both are escaped with a backslash. A line end
    is never written as it is (the statement's indentation would enter the string): chr(10) and
    chr(13) joined in, or the escapes \\n and \\r."""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"not a string: {value!r}")
    text = os.fspath(value)
    if "\x00" in text:
        raise ValueError("a string literal cannot hold a NUL character")
    if _DIALECT.get() in _ESCAPING_LITERALS:
        escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
        return "'" + escaped + "'"
    quoted = "'" + text.replace("'", "''") + "'"
    # a line end inside a literal would take the statement's indentation into the string: spelled as chr()
    return quoted.replace("\n", "' || chr(10) || '").replace("\r", "' || chr(13) || '")


def number_literal(value: object) -> str:
    """A validated finite int or float, printed so that it reads back exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return str(value) if isinstance(value, int) else repr(value)


# Dialects whose ORDER BY and PARTITION BY keep -0.0 apart from 0.0 (a total order of floats, as Arrow's
# kernels use), or that are not run here to show otherwise: the ranking key maps -0.0 to 0.0, so that the
# two tie as IEEE equality says and as DuckDB, PostgreSQL, ClickHouse and trec_eval rank them.
SIGNED_ZERO_DIALECTS = ("datafusion", "spark", "trino", "bigquery", "snowflake")


def score_expression(trec_eval_version: int) -> str:
    """The score as ranked: trec_eval 9 (and pytrec_eval) compare 32-bit floats, and C's (float) cast
    turns a double at or beyond FLT_MAX + half an ulp into infinity where SQL's CAST fails; -0.0 is
    0.0 (SIGNED_ZERO_DIALECTS)."""
    score = "score"
    if trec_eval_version == 9:
        if _DIALECT.get() in ("bigquery", "snowflake"):
            raise MeasureError(f"trec_eval_version=9 ranks 32-bit float scores; {_DIALECT.get()} has no 32-bit "
                               f"float type")
        real = TYPES[_DIALECT.get()]["FLOAT"]
        score = (f"CASE WHEN score >= 3.4028235677973366e38 THEN CAST('inf' AS {real}) "
                 f"WHEN score <= -3.4028235677973366e38 THEN CAST('-inf' AS {real}) ELSE CAST(score AS {real}) END")
    if _DIALECT.get() in SIGNED_ZERO_DIALECTS:
        return f"CASE WHEN score = 0 THEN 0 ELSE {score} END"
    return score


def ranking_order(tie_break: str, score: str) -> str:
    """The ORDER BY of a ranking under a tie-break convention. Ids compare as bytes, as trec_eval's
    strcmp (PostgreSQL's text order follows the database's collation unless told COLLATE "C")."""
    doc_id = 'doc_id COLLATE "C"' if _DIALECT.get() == "postgres" else "doc_id"
    return {
        "trec_eval": f"{score} DESC NULLS LAST, {doc_id} DESC",
        "expected": f"{score} DESC NULLS LAST, {doc_id} DESC",
        "doc_id_asc": f"{score} DESC NULLS LAST, {doc_id} ASC",
        "input_rank": f"input_rank ASC NULLS LAST, {doc_id} DESC",
    }[tie_break]
