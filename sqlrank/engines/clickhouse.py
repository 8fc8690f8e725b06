"""ClickHouse: the evaluation statement run by ClickHouse's engine, embedded in this process by chDB
(the optional extra ``sqlrank[clickhouse]``).

Inputs are read and validated by DuckDB, then copied into Memory tables of a chDB session as Arrow;
tables of that session are read by name. Statements end with SETTINGS join_use_nulls = 1,
cast_keep_nullable = 1, so that a row an outer join does not find is NULL, as in standard SQL,
rather than ClickHouse's default 0 or '' (the printed statement carries them too).
"""
from __future__ import annotations

import os
from functools import cached_property
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping
from ..inputs.source import Source
from ..rendering.dialects import DIALECTS
from .base import CopyingEngine, Rows, first_line
from .foreign import copied_source, validated_table

SETTINGS = "\nSETTINGS join_use_nulls = 1, cast_keep_nullable = 1"
_SESSION = None


def chdb_session(existing=None):
    """The session given, or one chDB session for this process (chDB keeps one engine per process)."""
    global _SESSION
    if existing is not None:
        return existing
    if _SESSION is None:
        try:
            from chdb import session as chdb_sessions
        except ImportError:
            raise OptionError("the ClickHouse engine needs chDB: pip install 'sqlrank[clickhouse]'") from None
        _SESSION = chdb_sessions.Session()
    return _SESSION


class ClickHouseEngine(CopyingEngine):
    """Runs the ClickHouse text of a plan in a chDB session; its errors become InputErrors."""

    dialect, name = DIALECTS["clickhouse"], "ClickHouse"

    def __init__(self, chdb):
        self.chdb = chdb
        self.tables: list[str] = []  # the inputs copied in, dropped by close()

    def arrow(self, sql: str):
        """The result of a query as an Arrow table; those sqlrank writes itself get the statement's
        settings too."""
        if "\nSETTINGS " not in sql:
            sql += SETTINGS
        try:
            return self.chdb.query(sql, "ArrowTable")
        except Exception as exc:
            raise InputError(f"evaluation failed in ClickHouse: {first_line(exc, 500)}") from None

    def rows(self, sql: str) -> Rows:
        table = self.arrow(sql)
        columns = table.column_names
        return Rows(tuple(columns), list(zip(*(table.column(c).to_pylist() for c in columns))))

    def schema(self, sql: str) -> dict[str, str]:
        return {f.name: str(f.type) for f in self.arrow(sql).schema}

    @cached_property
    def database(self) -> str:
        """The session's current database, asked once per evaluation: tables read in place are
        named with it, so that no WITH step of the statement hides a table of the same name."""
        return self.one("SELECT currentDatabase()")[0]

    def load(self, name: str, table) -> None:
        """A Memory table holding an Arrow table (chDB's Python() reads the variable ``table``)."""
        target = self.dialect.ident(name)
        types = {"string": "String", "double": "Float64", "int32": "Int32", "int64": "Nullable(Int64)"}
        columns = ", ".join(f"{self.dialect.ident(f.name, '`')} {types[str(f.type)]}" for f in table.schema)
        try:
            self.chdb.query(f"CREATE TABLE {target} ({columns}) ENGINE = Memory")
            self.tables.append(target)
            self.chdb.query(f"INSERT INTO {target} SELECT * FROM Python(table)")
        except Exception as exc:
            raise InputError(f"cannot copy the input into ClickHouse: {first_line(exc, 500)}") from None

    def close(self) -> None:
        for table in self.tables:
            self.chdb.query(f"DROP TABLE IF EXISTS {table}")
        self.tables.clear()

    def own_table(self, obj: Any, format: str | None = None) -> tuple[str, ...] | None:
        """A table of the session, named with its database: a plain name that is no file or pattern."""
        if isinstance(obj, str) and not os.path.exists(obj) and format is None and not any(ch in obj for ch in "*?[") \
                and "/" not in obj and "." not in obj:
            return self.database, obj
        return None

    def source(self, obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None) -> Source:
        """A table of the session, or a file or DataFrame copied into a Memory table."""
        parts = self.own_table(obj, format)
        if parts is not None:
            return validated_table(Source(kind, f"table {obj}", "clickhouse", parts=parts,
                                          columns=column_mapping(kind, columns)), self)
        return copied_source(obj, kind, con, registry, format, columns, self)
