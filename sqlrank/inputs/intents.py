"""Subtopic judgments, for the intent-aware (diversity) measures: each row judges a document for one
subtopic (intent) of a query. TREC text holds the subtopic in its second column (ndeval's qrels); CSV,
Parquet, a DataFrame or a table in a ``subtopic`` column (or ``iteration``, ir_measures' name; another
name through qrels_columns={"subtopic": NAME}). The judgments are read and validated as qrels keyed by
query and subtopic (each (query, subtopic, document) judged once, errors located by line), kept whole
for the diversity measures, and collapsed to one judgment per (query, document), its highest label,
for every other measure: a document relevant to a subtopic is relevant to the query (ndeval's MAP)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

import duckdb

from ..errors import InputError
from ..rendering.dialects import DUCKDB
from .files import detect_format, file_reader
from .load import load
from .locate import registered_source
from .source import Source
from .store import Registry

SUBTOPIC_COLUMNS = ("subtopic", "iteration")


@dataclass(frozen=True)
class Intents:
    """``qrels``: one judgment per (query, document), the highest label of its subtopics; ``sql``: (query_id,
    subtopic, doc_id, relevance), every subtopic judgment; ``subtopics``: how many (query, subtopic) pairs."""

    qrels: Source
    sql: str
    subtopics: int


def subtopic_judgments(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, qrels_format: str | None = None,
                       qrels_columns: Mapping[str, str] | None = None) -> Intents:
    """The subtopic judgments of ``obj``, validated, and the judgments per document made of them."""
    columns = dict(qrels_columns or {})
    named = columns.pop("subtopic", None)
    found = registered_source(obj, "qrels", "qrels", con, registry, qrels_format)
    path = None if found is not None else os.fspath(obj)
    fmt = qrels_format or (detect_format(path) if path is not None else None)
    if fmt == "trec":  # column 2 is the subtopic: read as trec_eval's judgment groups, keyed query + chr(31) + subtopic
        if named is not None:
            raise InputError(f"{path}: TREC qrels hold the subtopic in their second column; qrels_columns cannot "
                             f"name it")
        keyed = load(obj, "qrels", con, registry, "trec", columns or None, groups=True, group_noun="subtopic")
    else:
        reader = found[2] if found is not None else file_reader(os.path.abspath(path), fmt)
        label = found[0] if found is not None else path
        relation = con.sql(f"SELECT * FROM {reader}")
        subtopic = named or next((c for c in SUBTOPIC_COLUMNS if c in relation.columns), None)
        query = columns.get("query_id", "query_id")
        for wanted, what in ((subtopic, named or "subtopic"), (query, query)):
            if wanted not in relation.columns:
                raise InputError(f"{label}: the diversity measures read judgments per subtopic, and these have no "
                                 f"{what} column (columns: {', '.join(relation.columns)}); name the subtopic column "
                                 f"with --qrels-columns subtopic=NAME (qrels_columns=)")
        sub, q = DUCKDB.ident(subtopic), DUCKDB.ident(query)
        keyed_rows = con.sql(f"SELECT * EXCLUDE ({sub}) REPLACE (CAST({q} AS VARCHAR) || chr(31) || CAST({sub} AS VARCHAR) "
                             f"AS {q}) FROM {reader} WHERE {sub} IS NOT NULL")
        missing_subtopics = con.execute(f"SELECT count(*) FROM {reader} WHERE {sub} IS NULL").fetchall()[0][0]
        if missing_subtopics:
            raise InputError(f"{label}: {missing_subtopics} judgments have no subtopic (column {subtopic!r}); every "
                             f"judgment of a diversity evaluation names the subtopic it is for")
        keyed = load(keyed_rows, "qrels", con, registry, None, columns or None, label=f"{label} (per subtopic)",
                     group_noun="subtopic")
    table = registry.materialize(
        f"SELECT split_part(query_id, chr(31), 1) AS query_id, substr(query_id, strpos(query_id, chr(31)) + 1) AS subtopic, "
        f"doc_id, relevance FROM ({keyed.sql()}) AS keyed", "intents")
    every = DUCKDB.ident(table)
    qrels = load(con.sql(f"SELECT query_id, doc_id, MAX(relevance) AS relevance FROM {every} GROUP BY query_id, doc_id"),
                 "qrels", con, registry, label=f"{keyed.label} (per document: the highest label of its subtopics)")
    count = con.execute(f"SELECT count(*) FROM (SELECT DISTINCT query_id, subtopic FROM {every}) AS pairs").fetchall()[0][0]
    return Intents(qrels, f"SELECT query_id, subtopic, doc_id, relevance FROM {every}", int(count))
