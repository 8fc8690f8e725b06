"""The DuckDB engine: a session (the caller's connection or a private one with resource
settings) and the execution of a plan's statement, in slices when asked."""
from __future__ import annotations

import os
import re
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb

from ..errors import InputError, OptionError, duckdb_reason
from ..inputs.store import Registry
from ..plan import Plan
from ..progress import configure, forget, step
from ..rendering.dialects import DUCKDB
from .base import Engine, Rows


class DuckDBEngine(Engine):
    """Runs statements on a DuckDB connection; DuckDB's errors become InputErrors that say what failed."""

    dialect, name = DUCKDB, "DuckDB"

    def __init__(self, connection: duckdb.DuckDBPyConnection):
        self.connection = connection

    def rows(self, sql: str) -> Rows:
        try:
            return fetch(self.connection.execute(sql))
        except duckdb.Error as exc:
            raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None

    def one(self, sql: str) -> tuple:
        return self.connection.execute(sql).fetchall()[0]  # DuckDB's own error: the checks say what failed

    def per_query(self, p: Plan) -> list[tuple]:
        """The (query_id, measure, value) rows of a per-query plan (a relstring plan's (query_id, relstring)):
        its statement, or its slices one after another (only a slice's ranking is held at a time, not the
        whole run's)."""
        if p.slices == 1:
            with step(self.connection, _evaluating(p)):
                return self.rows(p.sql).rows
        rows: list[tuple] = []
        for index in range(p.slices):
            with step(self.connection, _evaluating(p, index)):
                rows += self.rows(p.slice_sql(index)).rows
        return rows

    def per_query_columns(self, p: Plan) -> tuple[list[str], dict[str, list[float]]]:
        """The values of a per-query plan as columns: (its query ids in the order of their bytes, and for
        each measure its values in that order), pivoted by DuckDB rather than built from a million Python
        tuples. Every measure has a value for every query (the statement's rows are complete)."""
        statement = (lambda index: p.sql) if p.slices == 1 else p.slice_sql
        try:
            with _collected(p, self.connection, "query_id VARCHAR, measure VARCHAR, value DOUBLE", statement) as name, \
                    step(self.connection, "gathering each measure's values in the order of the query ids"):
                table = DUCKDB.ident(name)
                queries = [q for q, in self.connection.execute(f"SELECT DISTINCT query_id FROM {table} "
                                                               f"ORDER BY query_id").fetchall()]
                columns = self.connection.execute(f"SELECT measure, count(*), list(value ORDER BY query_id) FROM {table} "
                                                  f"GROUP BY measure").fetchall()
        except duckdb.Error as exc:
            raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None
        if any(count != len(queries) for _, count, _ in columns):  # one value per query and measure
            raise AssertionError("a measure has no value for some query, or two for one")
        order = sorted(range(len(queries)), key=lambda at: queries[at].encode("utf-8"))
        if order == list(range(len(queries))):  # DuckDB compares strings by their bytes
            return queries, {measure: values for measure, _, values in columns}
        return [queries[at] for at in order], {measure: [values[at] for at in order] for measure, _, values in columns}

    def evaluate(self, p: Plan) -> Rows:
        """The plan's statement (rows of output "both" or "summary"), or its slices."""
        if p.slices == 1:
            with step(self.connection, _evaluating(p)):
                return self.rows(p.sql)
        try:
            return _execute_slices(p, self.connection)
        except duckdb.Error as exc:
            raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None


def to_arrow(con: duckdb.DuckDBPyConnection, sql: str):
    """The rows of a query as an Arrow table with plain string columns (what other engines load)."""
    import pyarrow as pa

    relation = con.sql(sql)
    table = relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()
    fields = [pa.field(f.name, pa.string()) if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
              or str(f.type) == "string_view" else f for f in table.schema]
    return table.cast(pa.schema(fields))


def _evaluating(p: Plan, slice_index: int | None = None) -> str:
    """What the progress line says while a plan's statement (or one of its slices) runs."""
    rows = f" {p.run.rows:,} run rows" if p.run.rows else ""
    part = f" (slice {slice_index + 1} of {p.slices})" if slice_index is not None else ""
    return f"evaluating{rows}{part}"


def fetch(cursor) -> Rows:
    """All rows of an executed statement (a DuckDB connection after execute)."""
    rows = cursor.fetchall()
    return Rows(tuple(d[0] for d in cursor.description), rows)


def _execute_slices(p: Plan, con: duckdb.DuckDBPyConnection) -> Rows:
    """The evaluation as p.slices statements, each over the queries of one slice, whose
    per-query rows (and, for the measures over all users, their items' counts) are collected in a
    temporary table; then the summary over all of them: rows in the layout of output "both"
    (summary rows have query_id NULL) when per-query values were asked, else of output "summary"."""
    columns = "query_id VARCHAR, measure VARCHAR, value DOUBLE, doc_id VARCHAR"
    with _collected(p, con, columns, lambda index: p.slice_sql(index, with_counts=True)) as table:
        return fetch(con.execute(p.summary_sql(table)))


@contextmanager
def _collected(p: Plan, con: duckdb.DuckDBPyConnection, columns: str, statement: Callable[[int], str]) -> Iterator[str]:
    """A temporary table of COLUMNS holding the rows of statement(index) for each of p's slices, run one
    after another (the progress line says which); its name, while it exists."""
    table = f"sqlrank_slices_{uuid.uuid4().hex}"
    con.execute(f"CREATE TEMPORARY TABLE {DUCKDB.ident(table)} ({columns})")
    try:
        for index in range(p.slices):
            with step(con, _evaluating(p, index if p.slices > 1 else None)):
                con.execute(f"INSERT INTO {DUCKDB.ident(table)}\n{statement(index)}")
        yield table
    finally:
        con.execute(f"DROP TABLE IF EXISTS {DUCKDB.ident(table)}")


# Every connection sqlrank opens fetches nothing: DuckDB would otherwise download an extension it lacks (the
# SQLite scanner for a file it takes for an SQLite database, httpfs for a URL) while evaluating.
OFFLINE: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

_SIZE = re.compile(r"\s*[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*", re.IGNORECASE)


def engine_config(memory_limit: str | None = None, temp_directory: str | os.PathLike | None = None,
                  threads: int | None = None) -> dict[str, Any]:
    """DuckDB settings for a private connection, checked first so that a typo is a clear error.

    memory_limit: e.g. "4GB"; beyond it DuckDB spills sorts, joins and aggregates to
    temp_directory (default: a .tmp folder DuckDB makes in the working directory).
    threads: worker threads (default: all cores)."""
    config: dict[str, Any] = {}
    if memory_limit is not None:
        if not isinstance(memory_limit, str) or not _SIZE.fullmatch(memory_limit):
            raise OptionError(f"memory_limit {memory_limit!r} is not a size; write it like 4GB, 500MB or 2GiB")
        config["memory_limit"] = memory_limit.strip()
    if temp_directory is not None:
        folder = Path(temp_directory)
        if folder.exists() and not folder.is_dir():
            raise OptionError(f"temp_directory {str(folder)!r} is a file; give a folder for spilled data")
        config["temp_directory"] = str(folder)
    if threads is not None:
        most = max(8, 4 * (os.cpu_count() or 1))
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
            raise OptionError(f"threads {threads!r} must be a whole number from 1 to {most} (four per core of "
                              f"this machine; more only add overhead)")
        config["threads"] = threads
    return config


@contextmanager
def session(connection: duckdb.DuckDBPyConnection | None, memory_limit: str | None = None,
            temp_directory: str | os.PathLike | None = None, threads: int | None = None,
            progress: bool = False, kept: bool = True) -> Iterator[tuple[duckdb.DuckDBPyConnection, Registry]]:
    """The caller's connection (left as it was found) or a private in-memory one.

    Resource settings apply to the private connection; a caller who passes a connection
    sets them on it (SET memory_limit = '4GB'), so sqlrank refuses to override them.
    kept=False closes the private connection at the end (it is not kept for the next evaluation)."""
    config = engine_config(memory_limit, temp_directory, threads)
    if connection is not None and config:
        raise OptionError(f"{', '.join(config)} cannot be changed on your connection; set them on it "
                              f"(e.g. SET memory_limit = '4GB') or leave out connection=")
    if connection is None:
        con = _private(config)
        configure(con, progress)
        held = {}
    else:
        con = _open(connection)
        held = hold_neutral_settings(con)
    registry = Registry(con, config.get("temp_directory"))
    ended = False
    try:
        yield con, registry
        ended = True
    finally:
        registry.close()
        if connection is None:
            forget(con)
            _let_go(con, keep=ended and not config and kept)
        else:
            restore_settings(con, held)


def _open(connection: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The caller's connection, once it answers: a closed one is a clear error, not DuckDB's exception."""
    try:
        connection.execute("SELECT 1").fetchall()
    except duckdb.ConnectionException:
        raise OptionError("connection= is closed: give an open DuckDB connection, or leave out connection=") from None
    except AttributeError:
        raise OptionError(f"connection= takes a DuckDB connection (duckdb.connect()), not a "
                          f"{type(connection).__name__}") from None
    return connection


# A private connection without settings of its own is kept for the next evaluation of the same thread and
# process (opening one costs about 30 ms, a third of a small evaluation), empty again once its registry is
# closed; one that failed, or that holds more than KEPT_MEMORY after an evaluation, is closed instead.
_KEPT = threading.local()
KEPT_MEMORY = 64 << 20


_INHERITED: list[duckdb.DuckDBPyConnection] = []  # a parent's kept connection in a forked child: never closed here


def _private(config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    kept = getattr(_KEPT, "connection", None)
    _KEPT.connection = None
    if kept is not None and kept[0] != os.getpid():
        _INHERITED.append(kept[1])  # closing the parent's database in a child could wait on threads it has not
    elif kept is not None and not config:
        return kept[1]
    elif kept is not None:
        kept[1].close()
    try:
        return duckdb.connect(config={**config, **OFFLINE})
    except duckdb.Error as exc:
        raise OptionError(f"DuckDB refused the settings {config}: {duckdb_reason(exc)}") from None


def _let_go(con: duckdb.DuckDBPyConnection, keep: bool) -> None:
    """Keep the private connection for the next evaluation, or close it."""
    if keep:
        try:
            held = con.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()").fetchall()[0][0]
            keep = held <= KEPT_MEMORY and not con.execute("SELECT count(*) FROM duckdb_temporary_files()").fetchall()[0][0]
        except duckdb.Error:
            keep = False
    if keep:
        _KEPT.connection = (os.getpid(), con)
    else:
        con.close()


# Settings of a caller's connection that change what sqlrank's statements compute or what its messages say:
# held at DuckDB's defaults while sqlrank uses the connection (SET default_order = 'desc' would rank every
# ORDER BY rank from the bottom; default_collation = 'nocase' would join document D1 to d1), then put back.
NEUTRAL_SETTINGS: dict[str, Any] = {
    "default_order": "ASC",
    "default_null_order": "NULLS_LAST",
    "default_collation": "",
    "integer_division": False,
    "ieee_floating_point_ops": True,
    "scalar_subquery_error_on_multiple_rows": True,
    "preserve_insertion_order": True,  # line numbers in messages are read in the file's order
    "errors_as_json": False,  # messages quote DuckDB's errors
    "autoinstall_known_extensions": False,  # nothing is fetched while sqlrank uses the connection
}


def hold_neutral_settings(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Set each of NEUTRAL_SETTINGS that the connection has otherwise; returns what they were (for
    restore_settings). Settings that already hold are not touched."""
    found = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE list_contains(?, name)",
                             [list(NEUTRAL_SETTINGS)]).fetchall())
    held: dict[str, Any] = {}
    for name, neutral in NEUTRAL_SETTINGS.items():
        if name in found and not _same_setting(found[name], neutral):
            try:
                con.execute(f"SET {name} = {_setting_literal(neutral)}")
            except duckdb.Error as exc:
                restore_settings(con, held)
                raise OptionError(f"your connection sets {name} = {found[name]!r}, which changes what sqlrank "
                                  f"computes, and DuckDB refused to change it for the evaluation "
                                  f"({duckdb_reason(exc)}); SET {name} = {_setting_literal(neutral)} on it, "
                                  f"or leave out connection=") from None
            held[name] = found[name]
    return held


def restore_settings(con: duckdb.DuckDBPyConnection, held: dict[str, Any]) -> None:
    for name, value in held.items():
        con.execute(f"SET {name} = {_setting_literal(value)}")


def _same_setting(value: Any, neutral: Any) -> bool:
    """Whether duckdb_settings()'s text for a setting is the neutral value (ASC is ASCENDING there)."""
    text = str(value).strip().lower()
    if isinstance(neutral, bool):
        return text == str(neutral).lower()
    return text == neutral.lower() or (neutral == "ASC" and text == "ascending")


def _setting_literal(value: Any) -> str:
    if isinstance(value, bool) or str(value).lower() in ("true", "false"):
        return str(value).lower()
    return DUCKDB.literal(str(value))


def session_options(options: dict[str, Any]) -> dict[str, Any]:
    """Take the engine options (connection and resources) out of an evaluation's options."""
    return {name: options.pop(name) for name in ("connection", "memory_limit", "temp_directory", "threads",
                                                 "progress") if name in options}
