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
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping
from ..inputs.locate import is_dataframe, refuse_file_and_table
from ..inputs.source import Source
from ..plan import Plan
from ..rendering.dialects import quote_literal
from .base import Rows
from .foreign import copied_source, engine_inputs, foreign_plan, validated_table
from .interruption import interruptible


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
    text = str(exc).strip().splitlines()
    return without_secrets(text[0] if text else type(exc).__name__)


class PostgresEngine:
    """Runs the PostgreSQL text of a plan on a connection; the database's errors become InputErrors."""

    dialect = "postgres"

    def __init__(self, connection):
        self.connection = connection

    def rows(self, sql: str) -> Rows:
        cursor = self.connection.cursor()

        def fetch() -> Rows:
            cursor.execute(sql)
            rows = [tuple(row) for row in cursor.fetchall()]
            return Rows(tuple(d[0] for d in cursor.description), rows)

        try:
            return interruptible(fetch, cursor.adbc_cancel)
        except Exception as exc:
            self.connection.rollback()
            raise InputError(f"evaluation failed in PostgreSQL: {_reason(exc)}") from None
        finally:
            cursor.close()

    def one(self, sql: str) -> tuple:
        return self.rows(sql).rows[0]

    def schema(self, sql: str) -> dict[str, str]:
        """The columns of a query and their Arrow types."""
        cursor = self.connection.cursor()

        def fetch() -> dict[str, str]:
            cursor.execute(sql)
            return {f.name: str(f.type) for f in cursor.fetch_arrow_table().schema}

        try:
            return interruptible(fetch, cursor.adbc_cancel)
        except Exception as exc:
            self.connection.rollback()
            raise InputError(f"evaluation failed in PostgreSQL: {_reason(exc)}") from None
        finally:
            cursor.close()

    def evaluate(self, p: Plan) -> Rows:
        return self.rows(p.text)

    def close(self) -> None:
        """The connection sqlrank opened, with the temporary tables its inputs were copied into."""
        self.connection.close()

    def load(self, name: str, table) -> None:
        """A temporary table of the session holding an Arrow table (one COPY)."""
        cursor = self.connection.cursor()
        try:
            interruptible(lambda: cursor.adbc_ingest(name, table, mode="create", temporary=True), cursor.adbc_cancel)
            self.connection.commit()
        except Exception as exc:
            self.connection.rollback()
            raise InputError(f"cannot copy the input into PostgreSQL: {_reason(exc)}") from None
        finally:
            cursor.close()


def own_table(obj: Any, format: str | None = None) -> tuple[str, ...] | None:
    """The parts of a table name of the database ([schema.]table): a name that is no file or pattern."""
    if isinstance(obj, (str, os.PathLike)) and not os.path.exists(os.fspath(obj)) and format is None \
            and not any(ch in os.fspath(obj) for ch in "*?["):
        return tuple(os.fspath(obj).split("."))
    return None


def postgres_source(obj: Any, kind: str, engine: PostgresEngine, con, registry, format: str | None,
                    columns: dict[str, str] | None) -> Source:
    """A table of the database, or a file or DataFrame copied into a temporary table."""
    def is_table(name: str) -> bool:
        return engine.one(f"SELECT to_regclass({quote_literal(name)}) IS NOT NULL")[0]

    refuse_file_and_table(obj, format, is_table, "the PostgreSQL database")
    parts = own_table(obj, format)
    if parts is not None:
        return validated_table(Source(kind, f"table {'.'.join(parts)}", "postgres", parts=parts,
                                      columns=column_mapping(kind, columns)), engine, "PostgreSQL")
    if not isinstance(obj, (str, os.PathLike)) and not is_dataframe(obj):
        raise InputError(f"cannot read {kind} from a {type(obj).__name__} on PostgreSQL: pass a path, a DataFrame "
                         f"or a table name")
    return copied_source(obj, kind, con, registry, format, columns, "PostgreSQL", engine.load)


def plan_on_postgres(qrels: Any, run: Any, measures: Any, output: str, dsn: str | None = None,
                     **options: Any) -> tuple[Plan, PostgresEngine]:
    """The plan of an evaluation in PostgreSQL at ``dsn`` and the engine that runs it there."""
    engine = PostgresEngine(connect(dsn))

    def source_of(obj, kind, con, registry, format, columns):
        return postgres_source(obj, kind, engine, con, registry, format, columns)

    def inputs(con):
        return engine_inputs(engine, "PostgreSQL", own_table, con)

    return foreign_plan(engine, source_of, inputs, qrels, run, measures, output, **options), engine
