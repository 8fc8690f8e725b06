"""The extra inputs of the recommender measures beyond accuracy: the history of interactions
(training data: popularity, novelty, co-occurrence), the item catalog, and item features
(categories or feature vectors). Each is a CSV/TSV/Parquet file, a DataFrame, a relation or a
table; its columns are found by the names the qrels and run use (a mapping such as
query_id=user_id applies here too), else user_id/query_id and item_id/doc_id."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import duckdb

from ..errors import InputError, OptionError, duckdb_reason
from ..rendering.dialects import DUCKDB, Dialect
from ..rendering.sqltext import call_macro
from .columns import require_exact_id
from .load import Table, load_table
from .locate import is_table, table_parts, table_types
from .source import Source, named_columns
from .store import Registry

# Each extra input: the measures that read it, and how to give it (said when a measure needs it and it is missing).
_READERS = "the measures beyond accuracy (Coverage, Gini, Novelty, AvgPop, TailPct, ILD, Serendipity)"
EXTRA_INPUTS = {
    "history": (_READERS, "needs the history of interactions (training data): --history FILE (history=) with a user "
                          "and an item column"),
    "items": (_READERS, ""),
    "item_features": (_READERS, "similarity=features needs item features: --item-features FILE (item_features=) with "
                                "an item column and a category or features column"),
    "groups": ("the fairness measures (Exposure, ExposureGini, AWRF, AWRF_nDCG)", "needs the documents' groups: "
               "--groups FILE (groups=) with a document (item) column and a group column"),
    "targets": ("AWRF(target=file)", "target=file needs the groups' target shares: --targets FILE (targets=) with a "
                "group and a share column, and a query_id column where they differ by query"),
}
GROUP_COLUMNS = ("group", "group_id", "category")  # the group column of the fairness measures' groups table
_VECTOR = re.compile(r"(\[\d*\])$")
_ENGINE_VECTORS = ("list", "large_list", "fixed_size_list", "array")  # Arrow's and Spark's names of a list type


@dataclass(frozen=True)
class EngineInputs:
    """How an engine other than DuckDB takes the extra inputs. ``table(obj, what)``: a Table of the
    engine's own (its name in the engine's SQL, its columns and their types) when obj is one, else
    None; ``count(sql)``: a count the engine computes; ``store(kind, sql)``: what DuckDB read (sql)
    copied into the engine, and the engine's SQL that reads the copy; ``copy(kind, sql)``: the same copy's
    table name (None for a statement printed for another database, which copies nothing)."""

    dialect: Dialect
    table: Callable[[Any, str], Table | None]
    count: Callable[[str], int]
    store: Callable[[str, str], str]
    copy: Callable[[str, str], str] | None = None

    @classmethod
    def copying(cls, dialect: Dialect, table: Callable[[Any, str], Table | None], count: Callable[[str], int],
                copy: Callable[[str, str], str]) -> EngineInputs:
        """An engine that takes copies (``copy``): what it stores is read back from the copy by name."""
        return cls(dialect, table, count, lambda kind, sql: f"SELECT * FROM {dialect.ident(copy(kind, sql))}", copy)


def declared_inputs(dialect: Dialect, con: duckdb.DuckDBPyConnection, qrels: Source, run: Source) -> EngineInputs:
    """How a statement printed for another database takes the extra inputs: as that database's tables, by name,
    read and checked nowhere here. A table of the DuckDB database (a schema-only file) has its columns; a name
    alone has the columns its input is read by: the user and item columns named as the run names them (query_id
    and doc_id by default), ``category`` (item features), ``group`` (groups), ``group`` and ``share`` (targets)."""
    user = named_columns("query_id", ("user_id", "query_id"), run, qrels)[0]
    item = named_columns("doc_id", ("item_id", "doc_id"), run, qrels)[0]
    declared = {"history": (user, item), "item catalog": (item,), "item features": (item, "category"),
                "groups": (item, "group"), "target shares": ("group", "share")}

    def table(obj: Any, what: str) -> Table:
        if not isinstance(obj, str) or os.path.exists(obj):
            raise OptionError(f"the {what} of a statement printed for {dialect} is a table of that database: give its "
                              f"name ([catalog.][schema.]table), not a file or a DataFrame")
        parts = table_parts(obj)
        # a table of the DuckDB file, schema-only or not: its columns
        types = table_types(con, obj) if is_table(con, obj) else dict.fromkeys(declared[what], "VARCHAR")
        return Table(f"{what} table {obj}", call_macro(dialect, "_macros/inputs.sql", "table", parts).strip(), types)

    def store(kind: str, sql: str) -> str:  # only the history not given: no rows
        text = call_macro(dialect, "_macros/dialect.sql", "null_text")
        return f"SELECT {text} AS query_id, {text} AS doc_id WHERE 1 = 0"

    return EngineInputs(dialect, table, lambda sql: 0, store)


def extra_inputs_sql(given: Mapping[str, Any], qrels: Source, run: Source, con: duckdb.DuckDBPyConnection,
                     registry: Registry, engine: EngineInputs | None = None) -> dict:
    """SQL of the inputs ``given`` (EXTRA_INPUTS by name): the history (query_id, doc_id), the catalog's items
    (doc_id), the item features (doc_id, feature, weight), the documents' groups (doc_id, feature: the group,
    weight) and the groups' target shares (query_id or NULL, feature: the group, weight: the share), each read
    with the user and item columns the qrels and run name and its ids checked; None for an input not given
    (the history: no rows)."""
    users = named_columns("query_id", ("user_id", "query_id"), run, qrels)
    item_names = named_columns("doc_id", ("item_id", "doc_id"), run, qrels)

    def read(obj: Any, what: str) -> tuple[Table, EngineInputs | None]:
        """The input and where it is read: a table of the engine's own there, anything else by DuckDB."""
        own = engine.table(obj, what) if engine is not None else None
        return (own, engine) if own is not None else (load_table(obj, what, con, registry, ()), None)

    def checked(kind: str, sql: str, table: Table, where: EngineInputs | None, ids: tuple[str, ...]) -> str:
        """The input's SQL once its ids are checked where it is read; what DuckDB read, copied into the engine."""
        condition = " OR ".join(f"{c} IS NULL" for c in ids)
        count = f"SELECT count(*) FROM ({sql}) AS input_rows WHERE {condition}"
        try:
            missing = where.count(count) if where is not None else con.execute(count).fetchall()[0][0]
        except duckdb.Error as exc:
            raise InputError(f"{table.label}: cannot read it: {duckdb_reason(exc)}") from None
        if missing:
            raise InputError(f"{table.label}: {missing} rows have no {' or '.join(ids)}; every row needs them")
        return engine.store(kind, sql) if engine is not None and where is None else sql

    empty = "SELECT CAST(NULL AS VARCHAR) AS query_id, CAST(NULL AS VARCHAR) AS doc_id WHERE FALSE"
    history, items = given.get("history"), given.get("items")
    sql = {"history": engine.store("history", empty) if engine is not None and history is None else empty,
           "items": None, "features": None, "groups": None, "targets": None}
    if given.get("groups") is not None:
        table, where = read(given["groups"], "groups")
        columns = {"doc_id": _column(table, item_names, "document"), "feature": _column(table, GROUP_COLUMNS, "group")}
        sql["groups"] = checked("groups", _as_text(table, columns, where, weight=True), table, where, ("doc_id",))
    if given.get("targets") is not None:
        table, where = read(given["targets"], "target shares")
        sql["targets"] = checked("targets", _targets_sql(table, where, users), table, where, ("feature", "weight"))
        if where is None:
            _check_targets(table, sql["targets"], con)
    if history is not None:
        table, where = read(history, "history")
        columns = {"query_id": _column(table, users, "user"), "doc_id": _column(table, item_names, "item")}
        sql["history"] = checked("history", _as_text(table, columns, where), table, where, ("query_id", "doc_id"))
    if items is not None:
        table, where = read(items, "item catalog")
        columns = {"doc_id": _column(table, item_names, "item")}
        sql["items"] = checked("items", _as_text(table, columns, where), table, where, ("doc_id",))
    if given.get("item_features") is not None:
        table, where = read(given["item_features"], "item features")
        sql["features"] = checked("features", _features_sql(table, where, item_names), table, where, ("doc_id",))
    return sql


def outside_catalog(sql: dict, run: Source, con: duckdb.DuckDBPyConnection,
                    engine: EngineInputs | None = None) -> tuple[int, str | None]:
    """The distinct items of the run that the catalog (the items of --items and of the history) lacks,
    and the first of them (None on an engine), counted where the statement runs."""
    catalog = " UNION ".join(f"SELECT doc_id FROM ({sql[name]}) AS {name}" for name in ("items", "history")
                             if sql[name] is not None)
    return retrieved_outside(catalog, run, con, engine)


def retrieved_outside(listed: str, run: Source, con: duckdb.DuckDBPyConnection,
                      engine: EngineInputs | None = None) -> tuple[int, str | None]:
    """How many distinct documents of the run the SQL ``listed`` (doc_id rows) lacks, and the first of them
    (None on an engine), counted where the statement runs."""
    run_sql = run.sql() if engine is None else run.source_sql(engine.dialect)
    outside = (f"FROM (SELECT DISTINCT doc_id FROM ({run_sql}) AS run "
               f"WHERE doc_id NOT IN (SELECT doc_id FROM ({listed}) AS listed)) AS outside")
    if engine is not None:
        return engine.count(f"SELECT count(*) {outside}"), None
    return con.execute(f"SELECT count(*), min(doc_id) {outside}").fetchall()[0]


def outside_catalog_text(outside: int, example: str | None) -> str:
    """How many items of the run the catalog lacks (outside_catalog), in the words of the warning,
    the error and sqlrank check."""
    return (f"{outside} items of the run are not in the catalog (the items of --items and --history)"
            + (f", e.g. {example!r}" if example is not None else ""))


def check_outside_catalog(names: list[str], sql: dict, run: Source, con: duckdb.DuckDBPyConnection,
                          engine: EngineInputs | None) -> Source:
    """A run that recommends items the catalog lacks: Gini places every recommended item among the
    catalog's n, so its value would be wrong (an error); coverage counts them over the catalog's size
    and can pass 1, as Microsoft Recommenders' catalog_coverage (whose catalog is the training items)
    can (a warning of the run, which is returned with it)."""
    try:
        outside, example = outside_catalog(sql, run, con, engine)
    except (duckdb.Error, InputError):
        return run  # the statement reports what cannot be read
    if not outside:
        return run
    what = outside_catalog_text(outside, example)
    gini = [name for name in names if name.startswith("Gini")]
    if gini:
        raise InputError(f"{what}; {', '.join(gini)} ranks every recommended item among the catalog's items: give "
                         f"every item with --items (items=)")
    return run.warned(f"{what}; {', '.join(names)} {'counts' if len(names) == 1 else 'count'} them over the "
                      f"catalog's size and can pass 1 (as Microsoft Recommenders' catalog_coverage, over the training "
                      f"items); give every item with --items for the share of the catalog recommended")


def check_unseen(names: list[str], sql: dict, run: Source, con: duckdb.DuckDBPyConnection,
                 engine: EngineInputs | None) -> Source:
    """Recommended items the history never saw: Novelty gives them self-information 0 and counts them in its mean, as
    Microsoft Recommenders' novelty does; the run comes back with a warning that says how many."""
    return _warned_outside(run, f"SELECT doc_id FROM ({sql['history']}) AS history", con, engine,
                           "recommended items have no interaction in --history",
                           f"{', '.join(names)} counts their self-information as 0 (as Microsoft Recommenders' "
                           f"novelty does), which lowers the mean")


def check_ungrouped(names: list[str], sql: dict, run: Source, con: duckdb.DuckDBPyConnection,
                    engine: EngineInputs | None) -> Source:
    """Retrieved documents in no group of the groups table: their rank's attention counts in the top k's
    exposure and in no group's; the run comes back with a warning that says how many."""
    return _warned_outside(run, sql["groups"], con, engine, "retrieved documents are in no group of --groups",
                           f"{', '.join(names)}: their exposure counts in the whole top k's and in no group's "
                           f"(Exposure's shares sum to less than 1; ExposureGini and AWRF compare the groups' exposure)")


def _warned_outside(run: Source, listed: str, con: duckdb.DuckDBPyConnection, engine: EngineInputs | None,
                    what: str, effect: str) -> Source:
    """The run, with a warning ('N WHAT, e.g. ID; EFFECT') where some of its documents are not in ``listed``."""
    try:
        count, example = retrieved_outside(listed, run, con, engine)
    except (duckdb.Error, InputError):
        return run  # the statement reports what cannot be read
    if not count:
        return run
    return run.warned(f"{count} {what}" + (f", e.g. {example!r}" if example else "") + f"; {effect}")


def _features_sql(table: Table, where: EngineInputs | None, item_names: tuple[str, ...]) -> str:
    """Item features as (doc_id, feature, weight): a vector column unnested (position, value), categories weight 1."""
    item, feature = _column(table, item_names, "item"), _column(table, ("features", "category"), "feature")
    if not (_VECTOR.search(table.types[feature]) or table.types[feature].startswith(_ENGINE_VECTORS)):
        return _as_text(table, {"doc_id": item, "feature": feature}, where, weight=True)
    if where is not None:
        raise InputError(f"{table.label}: feature vectors are unnested by DuckDB: give them as a file or a "
                         f"pandas DataFrame, or the table as one row per item and category")
    return (f"SELECT CAST({DUCKDB.ident(item)} AS VARCHAR) AS doc_id, CAST(position AS VARCHAR) "
            f"AS feature, CAST(weight AS DOUBLE) AS weight\n"
            f"FROM (SELECT {DUCKDB.ident(item)}, unnest(CAST({DUCKDB.ident(feature)} AS DOUBLE[])) "
            f"AS weight, generate_subscripts(CAST({DUCKDB.ident(feature)} AS DOUBLE[]), 1) AS position "
            f"FROM {table.reader}) AS vectors")


def _targets_sql(table: Table, where: EngineInputs | None, users: tuple[str, ...]) -> str:
    """The groups' target shares as (query_id, feature: the group, weight: the share); query_id NULL where the
    table has no query column (one target for every query)."""
    dialect = where.dialect if where is not None else DUCKDB
    text = call_macro(dialect, "_macros/dialect.sql", "text")
    group, share = _column(table, GROUP_COLUMNS, "group"), _column(table, ("share", "target"), "share")
    query = next((name for name in users if name in table.types), None)
    query_sql = f"CAST({dialect.ident(query)} AS {text})" if query else call_macro(dialect, "_macros/dialect.sql",
                                                                                   "null_text")
    return (f"SELECT {query_sql} AS query_id, CAST({dialect.ident(group)} AS {text}) AS feature, "
            f"CAST({dialect.ident(share)} AS {dialect.type('DOUBLE')}) AS weight\nFROM {table.reader}")


def _check_targets(table: Table, sql: str, con: duckdb.DuckDBPyConnection) -> None:
    """Target shares are data: a share that is negative or not finite, or a group given two shares (for the same
    query, or for every query), is refused with the row it is on (a delimited file's line: its header is line 1)."""
    found = con.execute(f"""
        SELECT row_number, feature, weight, first_row FROM (
            SELECT row_number, query_id, feature, weight,
                   min(row_number) OVER (PARTITION BY query_id, feature) AS first_row
            FROM (SELECT row_number() OVER () AS row_number, * FROM ({sql}) AS targets) AS numbered
        ) AS checked
        WHERE NOT isfinite(weight) OR weight < 0 OR first_row < row_number
        ORDER BY row_number LIMIT 1""").fetchall()
    if not found:
        return
    row, group, share, first = found[0]
    delimited = re.search(r"\.(csv|tsv|txt)(\.gz)?\b", table.label, re.IGNORECASE) is not None
    where = (lambda n: f"line {n + 1}") if delimited else (lambda n: f"row {n}")
    if first < row:
        raise InputError(f"{table.label}, {where(row)}: group {group!r} has a second target share (the first is on "
                         f"{where(first)}); give each group one share (per query, where a query column is given)")
    raise InputError(f"{table.label}, {where(row)}: the target share of group {group!r} is {share:g}; a share is a "
                     f"finite number >= 0 (the shares are normalised to sum to 1)")


def _column(table: Table, names: tuple[str, ...], role: str) -> str:
    for name in names:
        if name in table.types:
            if role in ("user", "item", "document"):
                require_exact_id(table.label, name, f"{role} id", table.types[name])
            return name
    raise InputError(f"{table.label}: no {role} column: expected one of {', '.join(names)} "
                     f"(columns: {', '.join(table.types) or 'none'}); rename it, or map the run's columns the same way")


def _as_text(table: Table, columns: dict[str, str], where: EngineInputs | None, weight: bool = False) -> str:
    """The table's columns {name: column} as text, in the SQL of the engine that reads it; with
    ``weight``, distinct (item, category) rows of the categories given, each of weight 1."""
    dialect = where.dialect if where is not None else DUCKDB
    text = call_macro(dialect, "_macros/dialect.sql", "text")
    select = ", ".join(f"CAST({dialect.ident(column)} AS {text}) AS {name}" for name, column in columns.items())
    if not weight:
        return f"SELECT {select}\nFROM {table.reader}"
    return (f"SELECT DISTINCT {select}, CAST(1 AS {dialect.type('DOUBLE')}) AS weight\nFROM {table.reader}\n"
            f"WHERE {dialect.ident(columns['feature'])} IS NOT NULL")
