"""The extra inputs of the recommender measures beyond accuracy: the history of interactions
(training data: popularity, novelty, co-occurrence), the item catalog, and item features
(categories or feature vectors). Each is a CSV/TSV/Parquet file, a DataFrame, a relation or a
table; its columns are found by the names the qrels and run use (a mapping such as
query_id=user_id applies here too), else user_id/query_id and item_id/doc_id."""
from __future__ import annotations

import re
from typing import Any

import duckdb

from .errors import InputError, OptionError, duckdb_reason
from .inputs import Registry, Source, Table, load_table
from .measures import FAMILIES, Measure
from .templates import check_tie_break, quote_ident

_VECTOR = re.compile(r"(\[\d*\])$")


def needed_inputs(measures: list[Measure]) -> dict[str, list[str]]:
    """For each extra input, the measures that read it: {input: [measure names]}."""
    needs: dict[str, list[str]] = {}
    for m in measures:
        for name in FAMILIES[m.family].inputs:
            needs.setdefault(name, []).append(str(m))
        if "similarity" in FAMILIES[m.family].params and m.param("similarity") == "features":
            needs.setdefault("item_features", []).append(str(m))
    return needs


def beyond_accuracy(measures: list[Measure]) -> list[Measure]:
    """The measures that read the extra inputs or are one value over all recommendations."""
    return [m for m in measures if FAMILIES[m.family].beyond_accuracy]


def recommender_sql(measures: list[Measure], history: Any, items: Any, item_features: Any,
                    qrels: Source, run: Source, con: duckdb.DuckDBPyConnection, registry: Registry) -> dict | None:
    """SQL of the extra inputs the measures read (render_evaluation's ``recommender``), checked;
    None when no measure reads them."""
    given = {"history": history, "items": items, "item_features": item_features}
    if not beyond_accuracy(measures):
        for name, value in given.items():
            if value is not None:
                raise OptionError(f"{name.replace('_', '-')} is read by the measures beyond accuracy (Coverage, Gini, "
                                  f"Novelty, AvgPop, TailPct, ILD, Serendipity); none is asked for")
        return None
    for m in beyond_accuracy(measures):
        check_tie_break(m)  # what cannot be computed at all is said before what is missing
    needs = needed_inputs(measures)
    if "catalog" in needs and history is None and items is None:
        raise OptionError(f"{', '.join(needs['catalog'])}: needs the item catalog: give the items (--items FILE, "
                          f"items=) or the history of interactions (--history FILE, history=)")
    if "history" in needs and history is None:
        raise OptionError(f"{', '.join(needs['history'])}: needs the history of interactions (training data): "
                          f"--history FILE (history=) with a user and an item column")
    if "item_features" in needs and item_features is None:
        raise OptionError(f"{', '.join(needs['item_features'])}: similarity=features needs item features: "
                          f"--item-features FILE (item_features=) with an item column and a category or features "
                          f"column")
    users = _names("query_id", ("user_id", "query_id"), qrels, run)
    item_names = _names("doc_id", ("item_id", "doc_id"), qrels, run)
    sql = {"history": "SELECT CAST(NULL AS VARCHAR) AS query_id, CAST(NULL AS VARCHAR) AS doc_id WHERE FALSE",
           "items": None, "features": None}
    if history is not None:
        table = load_table(history, "history", con, registry, ())
        user, item = _column(table, users, "user"), _column(table, item_names, "item")
        sql["history"] = (f"SELECT CAST({quote_ident(user)} AS VARCHAR) AS query_id, "
                          f"CAST({quote_ident(item)} AS VARCHAR) AS doc_id\nFROM {table.reader}")
        _require_ids(con, sql["history"], table, ("query_id", "doc_id"))
    if items is not None:
        table = load_table(items, "item catalog", con, registry, ())
        item = _column(table, item_names, "item")
        sql["items"] = f"SELECT CAST({quote_ident(item)} AS VARCHAR) AS doc_id\nFROM {table.reader}"
        _require_ids(con, sql["items"], table, ("doc_id",))
    if item_features is not None:
        table = load_table(item_features, "item features", con, registry, ())
        item = _column(table, item_names, "item")
        feature = _column(table, ("features", "category"), "feature")
        if _VECTOR.search(table.types[feature]):
            sql["features"] = (f"SELECT CAST({quote_ident(item)} AS VARCHAR) AS doc_id, CAST(position AS VARCHAR) "
                               f"AS feature, CAST(weight AS DOUBLE) AS weight\n"
                               f"FROM (SELECT {quote_ident(item)}, unnest(CAST({quote_ident(feature)} AS DOUBLE[])) "
                               f"AS weight, generate_subscripts(CAST({quote_ident(feature)} AS DOUBLE[]), 1) AS position "
                               f"FROM {table.reader}) AS vectors")
        else:
            sql["features"] = (f"SELECT DISTINCT CAST({quote_ident(item)} AS VARCHAR) AS doc_id, "
                               f"CAST({quote_ident(feature)} AS VARCHAR) AS feature, CAST(1 AS DOUBLE) AS weight\n"
                               f"FROM {table.reader}\nWHERE {quote_ident(feature)} IS NOT NULL")
        _require_ids(con, sql["features"], table, ("doc_id",))
    return sql


def _names(canonical: str, usual: tuple[str, ...], qrels: Source, run: Source) -> tuple[str, ...]:
    """Column names to look for, the inputs' own first (user_id when mapped query_id=user_id)."""
    own = [s.columns.get(canonical) for s in (run, qrels) if not s.format.endswith("-noheader")]
    return tuple(dict.fromkeys([name for name in own if name] + list(usual)))


def _column(table: Table, names: tuple[str, ...], role: str) -> str:
    for name in names:
        if name in table.types:
            return name
    raise InputError(f"{table.label}: no {role} column: expected one of {', '.join(names)} "
                     f"(columns: {', '.join(table.types) or 'none'}); rename it, or map the run's columns the same way")


def _require_ids(con: duckdb.DuckDBPyConnection, sql: str, table: Table, columns: tuple[str, ...]) -> None:
    condition = " OR ".join(f"{c} IS NULL" for c in columns)
    try:
        missing = con.execute(f"SELECT count(*) FROM ({sql}) AS rows WHERE {condition}").fetchall()[0][0]
    except duckdb.Error as exc:
        raise InputError(f"{table.label}: cannot read it: {duckdb_reason(exc)}") from None
    if missing:
        raise InputError(f"{table.label}: {missing} rows have no {' or '.join(columns)}; every row needs them")
