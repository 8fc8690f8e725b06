"""PostgreSQL: the evaluation statement rendered in PostgreSQL's SQL and run in the database.

The client is ADBC's PostgreSQL driver (the optional extra ``sqlrank[postgres]``): one standard
interface (DB-API over Arrow) that also uploads an Arrow table in one COPY, where a hand-written
client would need its own upload path. Inputs that are table or view names in that database are
read where they are (validated by one query: columns, missing values, duplicates); files and
DataFrames are read and validated by DuckDB as always, then copied into temporary tables of the
session, which vanish with it.
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping
from ..inputs.locate import is_dataframe, refuse_file_and_table
from ..inputs.source import Source
from ..rendering.dialects import DIALECTS
from .base import CopyingEngine, Rows, first_line
from .foreign import copied_source, validated_table
from .interruption import interruptible, keep


def connect(dsn: str):
    """A DB-API connection to PostgreSQL (a URL such as postgresql://user@host:5432/db, or with
    host=/socket/dir for a Unix socket)."""
    if not isinstance(dsn, str) or not dsn:
        raise OptionError("the PostgreSQL engine needs a connection URL: --dsn postgresql://user@host/database")
    try:
        import adbc_driver_postgresql.dbapi as dbapi
    except ImportError:
        raise OptionError("the PostgreSQL engine needs ADBC's driver: pip install 'sqlrank[postgres]'") from None
    try:
        return dbapi.connect(dsn)
    except Exception as exc:  # the driver's own error types
        raise OptionError(f"cannot connect to PostgreSQL at {without_secrets(dsn)}: "
                          f"{without_secrets(_reason(exc))}") from None


_SECRETS = (
    re.compile(r"(?<=://)([^:/?#@\s]*):[^@/?#\s]*@"),  # postgresql://user:SECRET@host
    re.compile(r"(?i)((?:^|[?&;\s])(?:password|passwd|pwd|sslpassword)\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)"),
)


def without_secrets(text: str) -> str:
    """TEXT with every password of a connection string masked: in the URL's user part, as a query
    parameter (?password=...), or as a libpq keyword (host=... password=...), quoted or not."""
    text = _SECRETS[0].sub(lambda m: f"{m.group(1)}:***@", text)
    return _SECRETS[1].sub(lambda m: f"{m.group(1)}***", text)


def _reason(exc: Exception) -> str:
    return without_secrets(first_line(exc))


class PostgresEngine(CopyingEngine):
    """Runs the PostgreSQL text of a plan on a connection; the database's errors become InputErrors."""

    dialect, name = DIALECTS["postgres"], "PostgreSQL"

    def __init__(self, connection):
        self.connection = connection
        self.cancelled = False

    def rows(self, sql: str) -> Rows:
        def fetch(cursor) -> Rows:
            cursor.execute(sql)
            rows = [tuple(row) for row in cursor.fetchall()]
            return Rows(tuple(d[0] for d in cursor.description), rows)

        return self._run(fetch)

    def schema(self, sql: str) -> dict[str, str]:
        def fetch(cursor) -> dict[str, str]:
            cursor.execute(sql)
            return {f.name: str(f.type) for f in cursor.fetch_arrow_table().schema}

        return self._run(fetch)

    def _run(self, fetch):
        """fetch(cursor) on a cursor of its own, cancelled by Ctrl-C or SIGTERM; the database's errors
        roll the transaction back and become InputErrors."""
        with self._cursor("evaluation failed in PostgreSQL") as cursor:
            return interruptible(lambda: fetch(cursor), cursor.adbc_cancel)

    def close(self) -> None:
        """The connection sqlrank opened, with the temporary tables its inputs were copied into (kept
        open, as its cursor, after a signal cancelled one of its statements: see interruption.keep)."""
        if not self.cancelled:
            self.connection.close()

    def load(self, name: str, table) -> None:
        """A temporary table of the session holding an Arrow table (one COPY)."""
        with self._cursor("cannot copy the input into PostgreSQL") as cursor:
            interruptible(lambda: cursor.adbc_ingest(name, table, mode="create", temporary=True), cursor.adbc_cancel)
            self.connection.commit()

    @contextmanager
    def _cursor(self, failure: str):
        """A cursor, closed after use; the database's errors roll back and become InputErrors that start
        with FAILURE; after a signal, the cursor and the connection are kept unclosed (interruption.keep)."""
        cursor = self.connection.cursor()
        try:
            yield cursor
        except Exception as exc:
            self.connection.rollback()
            cursor.close()
            raise InputError(f"{failure}: {_reason(exc)}") from None
        except BaseException:
            self.cancelled = True
            keep(cursor, self.connection)
            raise
        cursor.close()

    def own_table(self, obj: Any, format: str | None = None) -> tuple[str, ...] | None:
        """The parts of a table name of the database ([schema.]table): a name that is no file or pattern."""
        if isinstance(obj, (str, os.PathLike)) and not os.path.exists(os.fspath(obj)) and format is None \
                and not any(ch in os.fspath(obj) for ch in "*?["):
            return tuple(os.fspath(obj).split("."))
        return None

    def source(self, obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None) -> Source:
        """A table of the database, or a file or DataFrame copied into a temporary table."""
        def is_table(name: str) -> bool:
            return self.one(f"SELECT to_regclass({self.dialect.literal(name)}) IS NOT NULL")[0]

        refuse_file_and_table(obj, format, is_table, "the PostgreSQL database", "public")
        parts = self.own_table(obj, format)
        if parts is not None:
            return validated_table(Source(kind, f"table {'.'.join(parts)}", "postgres", parts=parts,
                                          columns=column_mapping(kind, columns)), self)
        if not isinstance(obj, (str, os.PathLike)) and not is_dataframe(obj):
            raise InputError(f"cannot read {kind} from a {type(obj).__name__} on PostgreSQL: pass a path, a "
                             f"DataFrame or a table name")
        return copied_source(obj, kind, con, registry, format, columns, self)
