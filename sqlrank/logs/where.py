"""Where the statements of a log run: DuckDB, on the files and DataFrames themselves, or another engine (PostgreSQL,
ClickHouse, DataFusion, SQLite, Spark), as an evaluation runs there: its own tables are read and checked where they
are, a file or DataFrame is read and checked by DuckDB and copied in. A Place reads an input for its dialect, runs
a statement, and keeps a result as a table of its own for the next statement (EM's parameters)."""
from __future__ import annotations

import re
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..engines.base import ENGINES, CopyingEngine, Engine
from ..engines.duckdb import session, session_options
from ..engines.foreign import engine_inputs
from ..errors import InputError, OptionError
from ..evaluation import engine_elsewhere
from ..inputs.extra import EngineInputs
from ..inputs.load import Table, load_table
from ..rendering.dialects import DUCKDB, Dialect

WHERE = ("engine", "dsn", "spark", "datafusion", "sqlite")
_NUMBER = re.compile(r"int|long|short|byte|double|float|real|decimal|numeric", re.I)
_BOOLEAN = re.compile(r"bool", re.I)


@dataclass
class Place:
    """DuckDB's connection (it reads files and DataFrames everywhere) and, for another engine, that engine and how
    it takes copies; the tables kept for a statement, dropped when the place closes."""

    con: Any
    registry: Any
    other: Engine | None = None
    inputs: EngineInputs | None = None
    kept: list[str] = field(default_factory=list)

    @property
    def dialect(self) -> Dialect:
        return DUCKDB if self.other is None else self.other.dialect

    def rows(self, sql: str) -> list[tuple]:
        """Every row of a statement in this place's dialect."""
        return self.con.execute(sql).fetchall() if self.other is None else self.other.rows(sql).rows

    def frame(self, sql: str):
        """A statement's rows as a DataFrame (numbers a database gives as decimals as floats)."""
        if self.other is None:
            return self.con.execute(sql).df()
        import pandas as pd

        got = self.other.rows(sql)
        frame = pd.DataFrame.from_records(got.rows, columns=list(got.columns))
        for column in frame.columns:
            given = frame[column].dropna()
            if frame[column].dtype == object and len(given) and type(given.iloc[0]).__name__ == "Decimal":
                frame[column] = frame[column].astype("float64")
        return frame

    def table(self, obj: Any, what: str, required: tuple[str, ...], format: str | None) -> tuple[Table, bool]:
        """The input as a table this place reads: one of the other engine's own (True), else what DuckDB reads."""
        if self.inputs is not None:
            own = self.inputs.table(obj, what)
            if own is not None:
                missing = [c for c in required if c not in own.types]
                if missing:
                    raise InputError(f"{own.label}: the {what} has no column {missing[0]!r} (columns: "
                                     f"{', '.join(own.types)})")
                return own, True
        return load_table(obj, what, self.con, self.registry, required, format), False

    def copied(self, kind: str, duckdb_sql: str) -> str:
        """What DuckDB reads with ``duckdb_sql``, as this place's SQL: itself on DuckDB, else a copy in the engine."""
        if self.other is None:
            return duckdb_sql
        return f"SELECT * FROM {self.dialect.ident(self.inputs.copy(kind, duckdb_sql))}"

    def keep(self, kind: str, sql: str) -> str:
        """The rows of ``sql`` (this place's dialect) as a table of this place, by a fresh name: a temporary table of
        DuckDB's, or, on another engine, the rows fetched and copied back in (EM's parameters between iterations)."""
        if self.other is not None:
            got = self.other.rows(sql)
            import pyarrow as pa

            name = f"sqlrank_{kind}_rows_{uuid.uuid4().hex[:10]}"
            self.con.register(name, pa.table({c: [row[i] for row in got.rows] for i, c in enumerate(got.columns)}))
            try:
                return self.dialect.ident(self.inputs.copy(kind, f"SELECT * FROM {name}"))
            finally:
                self.con.unregister(name)
        name = f"sqlrank_{kind}_{uuid.uuid4().hex[:10]}"
        self.con.execute(f"CREATE TEMP TABLE {name} AS {sql}")
        self.kept.append(name)
        return name

    def drop(self, name: str) -> None:
        """A table kept on DuckDB, dropped now (another engine's copies go when it closes)."""
        if name in self.kept:
            self.con.execute(f"DROP TABLE {name}")
            self.kept.remove(name)

    def number(self, column: str, types: dict[str, str] | None, label: str, what: str) -> str:
        """A column as a number in the checks: DuckDB tries the cast (text that is no number is then NULL and
        reported as it is); another engine's table must hold numbers or booleans there."""
        quoted = (DUCKDB if types is None else self.dialect).ident(column)
        double = self.dialect.type("DOUBLE")
        if types is None:
            return f"TRY_CAST({quoted} AS DOUBLE)"
        kind = types[column]
        if _BOOLEAN.search(kind):
            return f"CAST(CASE WHEN {quoted} THEN 1 WHEN NOT {quoted} THEN 0 END AS {double})"
        if not _NUMBER.search(kind):
            raise InputError(f"{label}: the {what}'s column {column!r} holds {kind}, no numbers: store numbers there "
                             f"(or a view that casts them)")
        return f"CAST({quoted} AS {double})"

    def close(self) -> None:
        for name in self.kept:
            self.con.execute(f"DROP TABLE IF EXISTS {name}")
        self.kept.clear()


def where_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options naming where the statements run (engine=, dsn=, spark=, datafusion=, sqlite=) and DuckDB's
    settings (connection=, memory_limit=, ...), taken out of ``options``."""
    taken = {k: options.pop(k) for k in WHERE if k in options}
    taken.update(session_options(options))
    engine = taken.get("engine", "duckdb")
    if engine not in ENGINES:
        raise OptionError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    return taken


@contextmanager
def place(where: dict[str, Any]) -> Iterator[Place]:
    """A Place for ``where`` (where_options' dict): DuckDB's own session, or DuckDB beside the other engine."""
    given = {k: where.pop(k, None) for k in ("spark", "datafusion", "sqlite")}
    other = engine_elsewhere(where.pop("engine", "duckdb"), where.pop("dsn", None), given, where)
    try:
        with session(None if other else where.pop("connection", None), **({} if other else where)) as (con, registry):
            inputs = None if other is None else engine_inputs(other, con) if isinstance(other, CopyingEngine) \
                else other.extra_inputs(con)
            here = Place(con, registry, other, inputs)
            try:
                yield here
            finally:
                here.close()
    finally:
        if other is not None:
            other.close()
