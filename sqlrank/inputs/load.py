"""Inputs: find and read (in DuckDB) qrels, runs and plain tables.

Every input becomes a ``Source`` (sources.py): SQL that yields ``query_id VARCHAR, doc_id VARCHAR``
and ``relevance`` (qrels: INTEGER where every label is whole, else DOUBLE) or ``score DOUBLE`` (run), validated (validation.py). Files are
read by DuckDB itself; Python only decides the reader and, when something is wrong, says where.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Mapping

import duckdb

from ..errors import InputError, duckdb_reason
from ..progress import step
from .columns import column_mapping
from .files import detect_format, file_reader, require_distinct_columns
from .locate import locate, registered_source
from .source import FORMATS, KINDS, Source, duckdb_path
from .store import Registry, fragmented, guess_split, plain_fields, read_once
from .validate import Validation, validate


def load(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry,
         format: str | None = None, columns: Mapping[str, str] | None = None, groups: bool = False,
         allow_duplicates: bool = False, ranks: bool = True, label: str | None = None, atol: bool = False,
         group_noun: str | None = None, odd_ids: bool = True, defer: bool = False,
         stacked: tuple[tuple[str, int], ...] = ()) -> Source:
    """Turn a path, DataFrame, DuckDB relation or table name into a validated ``Source``.

    groups=True reads TREC qrels with judgment groups in column 2 (trec_eval's qrels_jg).
    allow_duplicates=True skips the duplicate check (sqlrank check counts them itself).
    ranks=False leaves a TREC run's rank column out of sqlrank's copy (it reads as NULL): for
    evaluations that never use it, as trec_eval's (its ties are broken by document id); parsing and
    compressing 10M ranks costs about 0.2 s. LABEL: what errors call the input, where its path is
    sqlrank's own copy (standard input). atol=True reads labels as trec_eval does (C's atol: 1.7 is 1).
    group_noun: what errors call the part of a query id after chr(31) (column 2 of TREC text read with groups).
    odd_ids=False: validation does not count the document ids that may not be in normal form (what an
    evaluation's warning of near ids reads; trec_eval's output has no such warning). defer=True: a run read in
    place (a DataFrame, relation or table) is not validated here; the evaluation's statement reads its checks
    (Source.deferred). stacked: the runs a frame stacks, by name and rows (Source.stacked)."""
    if kind not in KINDS:
        raise ValueError(kind)
    mapping = column_mapping(kind, columns)
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown {kind} format {format!r}; choose one of {', '.join(FORMATS)}")
    source = locate(obj, kind, con, registry, format, mapping)
    if label is not None:
        source = replace(source, label=label)
    if stacked:
        source = replace(source, stacked=stacked)
    if atol:
        source = replace(source, label_type="atol")
    if group_noun is not None:
        source = replace(source, group_noun=group_noun)
    if groups:
        if source.format != "trec":
            raise InputError(f"{source.label}: judgment groups are read from TREC qrels_jg text only")
        source = replace(source, groups=True)
    if defer and kind == "run" and source.path is None and not allow_duplicates:
        return replace(source, deferred=True)
    if source.path is None or (source.format == "parquet" and not fragmented(source, con)):  # cheap to scan again
        return _validated(source, validate(source, con, allow_duplicates, odd_ids))
    if source.format == "trec":
        split = guess_split(source.path, kind)
        with step(con, f"looking for irregular white space in {source.label}"):
            lines = "fields" if plain_fields(source.path, split) else "csv"
        source = replace(source, split=split, ranks=ranks, lines=lines)
    source = read_once(source, con, registry)
    found = validate(source, con, allow_duplicates, odd_ids)
    if found.irregular:  # some line is not split by the single character: read again, any white space
        registry.drop(source.table)
        source = read_once(replace(source, split="regex", lines="csv", table=None), con, registry)
        found = validate(source, con, allow_duplicates, odd_ids)
    return _validated(source, found)


def _validated(source: Source, found: Validation) -> Source:
    """The source with what validation found: its rows, how its labels are read (as integers when
    every one is whole; trec_eval's reading stays), and its count of odd document ids."""
    label_type = source.label_type if source.label_type == "atol" else "integer" if found.whole_labels else "real"
    return replace(source, rows=found.rows, boolean_labels=found.boolean_labels, label_type=label_type,
                   odd_ids=found.odd_ids)


# ---------------------------------------------------------------- plain tables

@dataclass
class Table:
    """A plain table read by DuckDB: query attributes (segments) or side-by-side verdicts."""

    label: str
    reader: str  # FROM-clause expression
    types: dict[str, str]


def load_table(obj: Any, what: str, con: duckdb.DuckDBPyConnection, registry: Registry,
               required: tuple[str, ...], format: str | None = None) -> Table:
    """A CSV/TSV/Parquet file, DataFrame, DuckDB relation or table name with the columns
    ``required`` (exact names). ``what`` names it in messages ("query table", "verdicts")."""
    found = registered_source(obj, what.replace(" ", "_"), f"a {what}", con, registry, format)
    if found is not None:
        label, _, reader, parts = found
        label = ".".join(parts) or f"{what} {label}"  # history DataFrame
    else:
        path = label = os.fspath(obj)
        if not os.path.exists(path) and not any(ch in path for ch in "*?["):
            raise InputError(f"{path}: no such {what} file")
        fmt = format or detect_format(path)
        if fmt == "trec":
            raise InputError(f"{path}: a {what} is read from CSV, TSV (with a header) or Parquet; "
                             f"name the file .csv, .tsv or .parquet")
        if os.path.exists(path):
            require_distinct_columns(path, fmt, con)
        reader = file_reader(duckdb_path(os.path.abspath(path)) if os.path.exists(path) else path, fmt)
    try:
        types = {row[0]: row[1] for row in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()}
    except duckdb.Error as exc:
        raise InputError(f"{label}: cannot read the {what}: {duckdb_reason(exc)}") from None
    for column in required:
        if column not in types:
            close = [c for c in types if c.lower() == column.lower()]
            hint = f"; did you mean {close[0]!r}? Column names are case-sensitive" if close else ""
            raise InputError(f"{label}: the {what} has no column {column!r} (columns: {', '.join(types) or 'none'})"
                             f"{hint}")
    return Table(label, reader, types)
