"""SQLite: the evaluation statement run by SQLite, through Python's own sqlite3 module (no extra
package). SQLite 3.39 or newer runs it (FULL OUTER JOIN; window functions, FILTER and math
functions came before); the few functions it lacks (GREATEST, LEAST, LGAMMA, isnan, chr) are
registered on the connection as deterministic Python functions.

Inputs are read and validated by DuckDB, then copied into temporary tables of the connection;
tables of a database you pass (``sqlite=`` a connection or a database file) are read by name.
SQLite has no 32-bit float: trec_eval_version=9, which ranks 32-bit scores, is refused.
"""
from __future__ import annotations

import math
import os
import sqlite3
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.source import Source
from ..rendering.dialects import DIALECTS
from .base import CopyingEngine, Rows, first_line
from .foreign import table_or_copy

OLDEST = (3, 39, 0)  # FULL OUTER JOIN
# SQLite's declared column types as the names other engines' Arrow types have (inputs/columns.py reads them).
_TYPES = {"TEXT": "string", "VARCHAR": "string", "INTEGER": "int64", "INT": "int64", "BIGINT": "int64",
          "REAL": "double", "DOUBLE": "double", "FLOAT": "double", "NUMERIC": "decimal", "BOOLEAN": "bool"}
_ARROW = {"string": "TEXT", "large_string": "TEXT", "double": "REAL", "float": "REAL", "int32": "INTEGER",
          "int64": "INTEGER", "bool": "INTEGER"}


def _greatest(*values):
    present = [v for v in values if v is not None]  # as DuckDB and PostgreSQL: NULLs are left out
    return max(present) if present else None


def _least(*values):
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _lgamma(x):
    return None if x is None else math.lgamma(x)


def _isnan(x):
    return None if x is None else int(isinstance(x, float) and math.isnan(x))


def _chr(code):
    return None if code is None else chr(int(code))


def is_sqlite_file(path: Any) -> bool:
    """Whether the file at PATH starts as an SQLite database does (its 16-byte header)."""
    with open(path, "rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def connect(database: Any = None) -> sqlite3.Connection:
    """The connection given, a database file opened, or a new in-memory database; the functions the
    statement needs registered on it."""
    if sqlite3.sqlite_version_info < OLDEST:
        raise OptionError(f"the SQLite engine needs SQLite {'.'.join(map(str, OLDEST))} or newer (FULL OUTER JOIN); "
                          f"this Python has {sqlite3.sqlite_version}")
    if isinstance(database, sqlite3.Connection):
        connection = database
    elif database is None or isinstance(database, (str, os.PathLike)):
        if database is not None and not os.path.isfile(database):
            raise OptionError(f"{database}: no such SQLite database file")
        if database is not None and os.path.getsize(database) and not is_sqlite_file(database):
            raise OptionError(f"{database}: is not an SQLite database (it does not start as one); give an SQLite "
                              f"database file, or no --dsn for a database in memory")
        connection = sqlite3.connect(":memory:" if database is None else os.fspath(database))
    else:
        raise OptionError(f"sqlite= takes a sqlite3 connection or a database file, not a {type(database).__name__}")
    for name, function, arguments in (("GREATEST", _greatest, -1), ("LEAST", _least, -1), ("LGAMMA", _lgamma, 1),
                                      ("isnan", _isnan, 1), ("chr", _chr, 1)):
        connection.create_function(name, arguments, function, deterministic=True)
    return connection


class SqliteEngine(CopyingEngine):
    """Runs the SQLite text of a plan on a connection; SQLite's errors become InputErrors. The
    temporary tables it copies the inputs into are dropped by close(), and a connection it opened
    is closed: one you pass outlives the evaluation."""

    dialect, name = DIALECTS["sqlite"], "SQLite"

    def __init__(self, connection: sqlite3.Connection, owned: bool = False):
        self.connection, self.owned = connection, owned
        self.tables: list[str] = []

    def rows(self, sql: str) -> Rows:
        try:
            cursor = self.connection.execute(sql)
            return Rows(tuple(d[0] for d in cursor.description), [tuple(row) for row in cursor.fetchall()])
        except sqlite3.Error as exc:
            raise InputError(f"evaluation failed in SQLite: {first_line(exc)}") from None

    def table_types(self, parts: tuple[str, ...]) -> dict[str, str]:
        """A table's columns and their declared types, as Arrow names them (PRAGMA table_info)."""
        schema, name = parts
        rows = self.rows(f"SELECT name, type FROM pragma_table_info({self.dialect.literal(name)}, "
                         f"{self.dialect.literal(schema)})").rows
        if not rows:
            raise InputError(f"evaluation failed in SQLite: no such table: {name}")
        return {column: _TYPES.get(declared.split("(")[0].upper(), "string") for column, declared in rows}

    def load(self, name: str, table) -> None:
        """A temporary table holding an Arrow table's rows."""
        columns = ", ".join(f"{self.dialect.ident(f.name)} {_ARROW.get(str(f.type), 'TEXT')}" for f in table.schema)
        target = self.dialect.ident(name)
        marks = ", ".join("?" for _ in table.schema)
        try:
            self.connection.execute(f"CREATE TEMPORARY TABLE {target} ({columns})")
            self.tables.append(target)
            self.connection.executemany(f"INSERT INTO {target} VALUES ({marks})",
                                        zip(*(table.column(i).to_pylist() for i in range(table.num_columns))))
        except sqlite3.Error as exc:
            raise InputError(f"cannot copy the input into SQLite: {first_line(exc)}") from None

    def close(self) -> None:
        for table in self.tables:
            self.connection.execute(f"DROP TABLE IF EXISTS {table}")
        self.tables.clear()
        if self.owned:
            self.connection.close()

    def schema_of(self, name: str, only: str | None = None) -> str | None:
        """The schema (main, temp or an attached database; ONLY that one) that has a table or view of that name."""
        for (schema,) in self.rows("SELECT name FROM pragma_database_list ORDER BY seq").rows:
            if only is not None and schema != only:
                continue
            found = self.rows(f"SELECT count(*) FROM {self.dialect.ident(schema)}.sqlite_schema WHERE type IN "
                              f"('table', 'view') AND name = {self.dialect.literal(name)}").rows[0][0]
            if found:
                return schema
        return None

    def has_table(self, name: str) -> bool:
        return self.schema_of(name) is not None

    def own_table(self, obj: Any, format: str | None = None) -> tuple[str, ...] | None:
        """A table or view of the database, named with its schema so that no WITH step of the statement
        hides it: a name that is no file or pattern and that the database has."""
        if isinstance(obj, str) and not os.path.exists(obj) and format is None and not any(ch in obj for ch in "*?["):
            schema = self.schema_of(obj)
            if schema is not None:
                return schema, obj
            prefix, dot, name = obj.partition(".")  # SCHEMA.TABLE, as the message for a file of a table's name says
            return (prefix, name) if dot and self.schema_of(name, prefix) is not None else None
        return None

    def source(self, obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None) -> Source:
        """A table of the database, or a file or DataFrame copied into a temporary table."""
        return table_or_copy(self, obj, kind, con, registry, format, columns, "the SQLite database")


def open_engine(database: Any = None) -> SqliteEngine:
    """The engine on the connection given (left open at the end), or on one it opens (closed at the end)."""
    return SqliteEngine(connect(database), owned=not isinstance(database, sqlite3.Connection))

