"""Inputs keyed by a second column beside the query: TREC text's second column, or a named column of CSV,
Parquet, a DataFrame or a table; each read and validated keyed by query + chr(31) + that key (a document
once per key, errors located by line).

- Subtopic judgments, for the intent-aware (diversity) measures: each row judges a document for one
  subtopic (intent) of a query (ndeval's qrels; a ``subtopic`` or ``iteration`` column, or another named by
  qrels_columns={"subtopic": NAME}). Kept whole for the diversity measures, and collapsed to one judgment
  per (query, document), its highest label, for every other measure: a document relevant to a subtopic is
  relevant to the query (ndeval's MAP).
- Sampled rankings, for the expected exposure measures: several rankings of a query drawn from a stochastic
  ranker, each a sample (expeval's runs: the sample id in TREC's second column; a ``sample`` column, or
  another named by run_columns={"sample": NAME})."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Mapping

import duckdb

from ..errors import InputError, OptionError
from ..rendering.dialects import DUCKDB, Dialect
from ..rendering.sqltext import call_macro
from .files import detect_format, file_reader
from .load import load
from .locate import declared_table, is_nested_dict, is_table, registered_source, table_types
from .source import Source
from .store import Registry

SUBTOPIC_COLUMNS = ("subtopic", "iteration")
SAMPLE_COLUMNS = ("sample",)


@dataclass(frozen=True)
class Intents:
    """``qrels``: one judgment per (query, document), the highest label of its subtopics; ``sql``: (query_id,
    subtopic, doc_id, relevance), every subtopic judgment."""

    qrels: Source
    sql: str
    shown: Intents | None = None  # the same read from the input itself, for the statement printed (None: no file)


def read_keyed(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry, fmt: str | None,
               columns: Mapping[str, str] | None, role: str, names: tuple[str, ...], why: str
               ) -> tuple[Source, Source, bool]:
    """``obj`` read and validated keyed by query + chr(31) + its ``role`` column (TREC text: column 2; else the
    column ``columns[role]`` names, or the first of ``names`` it has); ``why`` says who reads it, in errors. With
    it, the Source that reads the input itself (what a printed statement reads) and whether its query ids carry the
    key (TREC text) or it is a column of its own."""
    columns = dict(columns or {})
    named = columns.pop(role, None)
    found = registered_source(obj, kind, kind, con, registry, fmt)
    path = None if found is not None else os.fspath(obj)
    fmt = fmt or (detect_format(path) if path is not None else None)
    if fmt == "trec":  # read as trec_eval's judgment groups: column 2 joins the query id
        if named is not None:
            raise InputError(f"{path}: TREC text holds the {role} in its second column; {kind}_columns cannot name it")
        keyed = load(obj, kind, con, registry, "trec", columns or None, groups=True, group_noun=role)
        return keyed, keyed, True
    reader = found[2] if found is not None else file_reader(os.path.abspath(path), fmt)
    label = found[0] if found is not None else path
    relation = con.sql(f"SELECT * FROM {reader}")
    key = named or next((c for c in names if c in relation.columns), None)
    query = columns.get("query_id", "query_id")
    for wanted, what in ((key, named or names[0]), (query, query)):
        if wanted not in relation.columns:
            raise InputError(f"{label}: {why}, and it has no {what} column (columns: {', '.join(relation.columns)}); "
                             f"name the {role} column with --{kind}-columns {role}=NAME ({kind}_columns=)")
    sub, q = DUCKDB.ident(key), DUCKDB.ident(query)
    missing = con.execute(f"SELECT count(*) FROM {reader} WHERE {sub} IS NULL").fetchall()[0][0]
    if missing:
        raise InputError(f"{label}: {missing} rows have no {role} (column {key!r}); {why}, every row names its {role}")
    keyed = con.sql(f"SELECT * EXCLUDE ({sub}) REPLACE (CAST({q} AS VARCHAR) || chr(31) || CAST({sub} AS VARCHAR) "
                    f"AS {q}) FROM {reader}")
    source = load(keyed, kind, con, registry, None, columns or None, label=f"{label} (per {role})", group_noun=role)
    return source, replace(source, reader=reader, table=None, columns={**source.columns, role: key}), False


def split_keyed(source: Source, registry: Registry, role: str) -> str:
    """The rows of a keyed input with the query and the key apart again, read once: the name of that table."""
    return registry.materialize(
        f"SELECT split_part(query_id, chr(31), 1) AS query_id, substr(query_id, strpos(query_id, chr(31)) + 1) AS {role}, "
        f"* EXCLUDE (query_id) FROM ({source.sql()}) AS keyed", role + "s")


def subtopic_judgments(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, qrels_format: str | None = None,
                       qrels_columns: Mapping[str, str] | None = None, names: str = "", merged: bool = False
                       ) -> Intents:
    """The subtopic judgments of ``obj``, validated, and the judgments per document made of them. ``names``: the
    measures that read them, ``merged``: judgments merged from several sources (a refusal, that says so)."""
    if merged:
        raise OptionError(f"{names}: the diversity measures read one set of judgments per subtopic; merge the "
                          f"sources first")
    if isinstance(obj, Source):
        raise OptionError(f"{names}: the diversity measures read the qrels per subtopic; pass the qrels themselves")
    keyed, itself, joined = read_keyed(obj, "qrels", con, registry, qrels_format, qrels_columns, "subtopic",
                                       SUBTOPIC_COLUMNS, "the diversity measures read judgments per subtopic")
    every = DUCKDB.ident(split_keyed(keyed, registry, "subtopic"))
    qrels = load(con.sql(f"SELECT query_id, doc_id, MAX(relevance) AS relevance FROM {every} GROUP BY query_id, doc_id"),
                 "qrels", con, registry, label=f"{keyed.label} (per document: the highest label of its subtopics)")
    shown = Intents(replace(itself, derived=("per_document", joined)), _rows(itself, joined, "subtopic"))
    return Intents(qrels, f"SELECT query_id, subtopic, doc_id, relevance FROM {every}", shown)


def _rows(itself: Source, joined: bool, role: str) -> str:
    """The rows of a keyed input read from the input itself (DuckDB's SQL), its key a column of its own."""
    sql = itself.source_sql(DUCKDB)
    return call_macro(DUCKDB, "_macros/inputs.sql", "split_key", sql, role, itself.kind).strip() if joined else sql


@dataclass(frozen=True)
class Samples:
    """``run``: one ranking per query, its first sample (what the query set is read from); ``sql``: (query_id,
    sample, doc_id, score), every sampled ranking."""

    run: Source
    sql: str
    shown: Samples | None = None  # the same read from the input itself, for the statement printed (None: no file)


def sampled_run(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, run_format: str | None = None,
                run_columns: Mapping[str, str] | None = None, names: str = "", others: list[str] | None = None
                ) -> Samples:
    """The sampled rankings of ``obj`` (a run with a sample column), validated. ``names``: the measures that read
    them; ``others``: the measures beside them, which read one ranking of a query (so a query may have one sample
    only)."""
    if isinstance(obj, (Source, list, tuple, dict)) and not is_nested_dict(obj):
        raise OptionError(f"{names}: the expected exposure measures read one run's sampled rankings; give one run")
    keyed, itself, joined = read_keyed(obj, "run", con, registry, run_format, run_columns, "sample", SAMPLE_COLUMNS,
                                       "the expected exposure measures read sampled rankings")
    every = DUCKDB.ident(split_keyed(keyed, registry, "sample"))
    first = load(con.sql(f"SELECT query_id, doc_id, score FROM {every} WHERE (query_id, sample) IN "
                         f"(SELECT query_id, min(sample) FROM {every} GROUP BY query_id)"), "run", con, registry,
                 label=f"{keyed.label} (its first sample)")
    most = con.execute(f"SELECT max(n) FROM (SELECT count(DISTINCT sample) AS n FROM {every} GROUP BY query_id) AS counts"
                       ).fetchall()[0][0]
    if others and (most or 0) > 1:
        raise OptionError(f"{', '.join(others)}: read one ranking of a query, and the run holds up to {most} sampled "
                          f"rankings of one; evaluate them apart from {names}")
    shown = Samples(replace(itself, derived=("first_sample", joined)), _rows(itself, joined, "sample"))
    return Samples(first, f"SELECT query_id, sample, doc_id, score FROM {every}", shown)


def declared_keyed(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, columns: Mapping[str, str] | None,
                   label_type: str | None, role: str, names: tuple[str, ...], dialect: Dialect, why: str) -> Source:
    """A table of the database a statement printed for ``dialect`` runs in, read with its ``role`` column beside the
    query (the column ``columns[role]`` names, or the first of ``names``): a table of the DuckDB database (its rows
    or its schema alone) or a name alone; nothing read or checked here."""
    columns = dict(columns or {})
    named = columns.pop(role, None)
    source = declared_table(obj, kind, con, columns, label_type, rows=False)
    if not isinstance(source, Source):
        raise OptionError(f"{why} from a table of the database the {dialect} statement runs in: give its name "
                          f"([catalog.][schema.]table), not a file or a DataFrame")
    if named is None:
        found = table_types(con, obj) if is_table(con, obj) else dict.fromkeys(names)
        named = next((c for c in names if c in found), None)
        if named is None:
            raise InputError(f"{source.label}: {why}, and it has no {names[0]} column (columns: {', '.join(found)}); "
                             f"name it with --{kind}-columns {role}=NAME ({kind}_columns=)")
    return replace(source, columns={**source.columns, role: named})


def printed_subtopics(obj: Any, con: duckdb.DuckDBPyConnection, columns: Mapping[str, str] | None,
                      label_type: str | None, dialect: Dialect) -> Intents:
    """The subtopic judgments of a statement printed for another database: a table of it with a subtopic column."""
    keyed = declared_keyed(obj, "qrels", con, columns, label_type, "subtopic", SUBTOPIC_COLUMNS, dialect,
                           "the diversity measures read judgments per subtopic")
    return Intents(replace(keyed, derived=("per_document",)), keyed.source_sql(dialect))


def printed_samples(obj: Any, con: duckdb.DuckDBPyConnection, columns: Mapping[str, str] | None, names: str,
                    others: list[str], dialect: Dialect) -> Samples:
    """The sampled rankings of a statement printed for another database: a table of it with a sample column. How
    many samples a query has is not known here, so the measures that read one ranking are evaluated apart."""
    if others:
        raise OptionError(f"{', '.join(others)}: read one ranking of a query, and a statement printed for {dialect} "
                          f"cannot tell whether the run holds one sample of each; evaluate them apart from {names}")
    keyed = declared_keyed(obj, "run", con, columns, None, "sample", SAMPLE_COLUMNS, dialect,
                           "the expected exposure measures read sampled rankings")
    return Samples(replace(keyed, derived=("first_sample",)), keyed.source_sql(dialect))
