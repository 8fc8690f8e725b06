"""What every engine is: ``Engine`` runs a plan's statement in its dialect and gives back ``Rows``;
``CopyingEngine`` also reads tables of its own where they are and takes copies of anything else
(PostgreSQL, ClickHouse, DataFusion). The engines sqlrank runs on are named here once."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rendering.dialects import Dialect

if TYPE_CHECKING:  # pandas is imported by DuckDB when a DataFrame is asked for, not at start-up
    import pandas as pd

    from ..inputs.extra import EngineInputs
    from ..inputs.source import Source
    from ..inputs.store import Registry
    from ..plan import Plan

ENGINES = ("duckdb", "spark", "postgres", "datafusion", "clickhouse", "sqlite")


@dataclass(frozen=True)
class Rows:
    """Rows of a result as fetched (no pandas: the command line prints them as they are)."""

    columns: tuple[str, ...]
    rows: list[tuple]

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def picked(self, *names: str) -> list[tuple]:
        """Each row's values of the columns ``names``, in that order."""
        at = [self.columns.index(name) for name in names]
        return [tuple(row[i] for i in at) for row in self.rows]

    def frame(self) -> "pd.DataFrame":
        import pandas as pd

        frame = pd.DataFrame.from_records(self.rows, columns=list(self.columns))
        frame["value"] = frame["value"].astype("float64")
        return frame


def first_line(exc: BaseException, limit: int | None = None) -> str:
    """The first line of an engine's error (its type where it says nothing), at most ``limit`` characters."""
    text = str(exc).strip().splitlines()
    return (text[0][:limit] if text else type(exc).__name__)


class Engine:
    """Runs a plan's statement. A subclass says its ``dialect`` and ``name`` (as messages name it) and
    gives ``rows(sql)``; ``source`` and ``extra_inputs`` make a plan's inputs for an engine other than
    DuckDB (engines/foreign.py plans with them)."""

    dialect: Dialect
    name: str

    def rows(self, sql: str) -> Rows:
        raise NotImplementedError

    def one(self, sql: str) -> tuple:
        """The first row of a (small) query, such as the data checks'."""
        return self.rows(sql).rows[0]

    def evaluate(self, p: Plan) -> Rows:
        """The rows of the plan's statement, in this engine's dialect."""
        return self.rows(p.text)

    def source(self, obj: Any, kind: str, con: Any, registry: Registry, format: str | None,
               columns: dict[str, str] | None) -> Source:
        """The qrels or run ``obj`` as this engine reads it (DuckDB reads its inputs itself: plan.load)."""
        raise NotImplementedError

    def extra_inputs(self, con: Any) -> EngineInputs:
        """How this engine takes the extra inputs of the measures beyond accuracy."""
        raise NotImplementedError

    def close(self) -> None:
        """What the engine holds for this evaluation (copies of the inputs, its connection)."""


class CopyingEngine(Engine):
    """An engine that reads tables of its own where they are and copies of anything else, which
    DuckDB reads and validates first and hands over as Arrow tables."""

    def schema(self, sql: str) -> dict[str, str]:
        """The columns of a query and their Arrow types."""
        raise NotImplementedError

    def table_types(self, parts: tuple[str, ...]) -> dict[str, str]:
        """The columns of a table of this engine (its name's parts) and their Arrow types."""
        return self.schema(f"SELECT * FROM {'.'.join(self.dialect.ident(part, chr(34)) for part in parts)} LIMIT 0")

    def load(self, name: str, table: Any) -> None:
        """An Arrow table, as a table of this engine named ``name``."""
        raise NotImplementedError

    def has_table(self, name: str) -> bool:
        """Whether this engine has a table or view of that name (a file of the same name is then refused)."""
        raise NotImplementedError

    def own_table(self, obj: Any, format: str | None = None) -> tuple[str, ...] | None:
        """The parts of the name of a table of this engine that ``obj`` names, or None."""
        raise NotImplementedError

    def extra_table(self, obj: Any) -> tuple[str, ...] | None:
        """A table of this engine given as an extra input, as the statement reads it."""
        return self.own_table(obj)
