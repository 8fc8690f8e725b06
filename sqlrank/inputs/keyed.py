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
from dataclasses import dataclass
from typing import Any, Mapping

import duckdb

from ..errors import InputError, OptionError
from ..rendering.dialects import DUCKDB
from .files import detect_format, file_reader
from .load import load
from .locate import is_nested_dict, registered_source
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


def read_keyed(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry, fmt: str | None,
               columns: Mapping[str, str] | None, role: str, names: tuple[str, ...], why: str) -> Source:
    """``obj`` read and validated keyed by query + chr(31) + its ``role`` column (TREC text: column 2; else the
    column ``columns[role]`` names, or the first of ``names`` it has); ``why`` says who reads it, in errors."""
    columns = dict(columns or {})
    named = columns.pop(role, None)
    found = registered_source(obj, kind, kind, con, registry, fmt)
    path = None if found is not None else os.fspath(obj)
    fmt = fmt or (detect_format(path) if path is not None else None)
    if fmt == "trec":  # read as trec_eval's judgment groups: column 2 joins the query id
        if named is not None:
            raise InputError(f"{path}: TREC text holds the {role} in its second column; {kind}_columns cannot name it")
        return load(obj, kind, con, registry, "trec", columns or None, groups=True, group_noun=role)
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
    return load(keyed, kind, con, registry, None, columns or None, label=f"{label} (per {role})", group_noun=role)


def split_keyed(source: Source, registry: Registry, role: str) -> str:
    """The rows of a keyed input with the query and the key apart again, read once: the name of that table."""
    return registry.materialize(
        f"SELECT split_part(query_id, chr(31), 1) AS query_id, substr(query_id, strpos(query_id, chr(31)) + 1) AS {role}, "
        f"* EXCLUDE (query_id) FROM ({source.sql()}) AS keyed", role + "s")


def subtopic_judgments(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, qrels_format: str | None = None,
                       qrels_columns: Mapping[str, str] | None = None, names: str = "", merged: bool = False,
                       elsewhere: str | None = None) -> Intents:
    """The subtopic judgments of ``obj``, validated, and the judgments per document made of them. ``names``: the
    measures that read them, ``merged``: judgments merged from several sources, ``elsewhere``: the engine or dialect
    other than DuckDB the statement is for (each a refusal, that says so)."""
    if merged:
        raise OptionError(f"{names}: the diversity measures read one set of judgments per subtopic; merge the "
                          f"sources first")
    if isinstance(obj, Source):
        raise OptionError(f"{names}: the diversity measures read the qrels per subtopic; pass the qrels themselves")
    if elsewhere is not None:
        raise OptionError(f"{names}: the diversity measures read the judgments per subtopic in DuckDB (their ideal "
                          f"ranking is a recursive step); evaluate them with the DuckDB engine, not {elsewhere}")
    keyed = read_keyed(obj, "qrels", con, registry, qrels_format, qrels_columns, "subtopic", SUBTOPIC_COLUMNS,
                       "the diversity measures read judgments per subtopic")
    every = DUCKDB.ident(split_keyed(keyed, registry, "subtopic"))
    qrels = load(con.sql(f"SELECT query_id, doc_id, MAX(relevance) AS relevance FROM {every} GROUP BY query_id, doc_id"),
                 "qrels", con, registry, label=f"{keyed.label} (per document: the highest label of its subtopics)")
    return Intents(qrels, f"SELECT query_id, subtopic, doc_id, relevance FROM {every}")


@dataclass(frozen=True)
class Samples:
    """``run``: one ranking per query, its first sample (what the query set is read from); ``sql``: (query_id,
    sample, doc_id, score), every sampled ranking."""

    run: Source
    sql: str


def sampled_run(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, run_format: str | None = None,
                run_columns: Mapping[str, str] | None = None, names: str = "", others: list[str] | None = None,
                elsewhere: str | None = None) -> Samples:
    """The sampled rankings of ``obj`` (a run with a sample column), validated. ``names``: the measures that read
    them; ``others``: the measures beside them, which read one ranking of a query (so a query may have one sample
    only); ``elsewhere``: the engine or dialect other than DuckDB the statement is for (a refusal)."""
    if isinstance(obj, (Source, list, tuple, dict)) and not is_nested_dict(obj):
        raise OptionError(f"{names}: the expected exposure measures read one run's sampled rankings; give one run")
    if elsewhere is not None:
        raise OptionError(f"{names}: the expected exposure measures read the sampled rankings in DuckDB; evaluate them "
                          f"with the DuckDB engine, not {elsewhere}")
    keyed = read_keyed(obj, "run", con, registry, run_format, run_columns, "sample", SAMPLE_COLUMNS,
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
    return Samples(first, f"SELECT query_id, sample, doc_id, score FROM {every}")
