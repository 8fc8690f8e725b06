"""Several inputs made one: judgments from several sources merged into one set (human assessors, LLM grades, clicks): each source
read and validated as any qrels are, then, per (query, document), the label of the first source in
the order preferred that judged it (the others fill the holes), or the mean, highest or lowest label
of the sources that judged it. The sources come as several inputs (named by their file names, or by
the keys of a dict), or as one table with a ``source`` column. The merged judgments are one validated
Source; beside them, which source judged which document (for Judged(source=...)) and the counts.
Several runs are stacked into runs stored together (a run_id column), each named by its file."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import duckdb

from ..errors import InputError, OptionError
from ..rendering.dialects import DUCKDB, Dialect
from .columns import column_mapping
from .keyed import declared_keyed
from .load import load
from .locate import is_nested_dict
from .source import IMPLICIT, Source
from .store import Registry

COMBINATIONS = ("mean", "max", "min")
AGGREGATES = {"mean": "AVG", "max": "MAX", "min": "MIN"}  # combine= as SQL


@dataclass(frozen=True)
class Judgments:
    """Merged judgments: ``qrels`` (query_id, doc_id, relevance), ``sources_sql`` (query_id, doc_id, relevance,
    source: every judgment of every source), ``counts`` per source (in order: how many of the merged judgments it
    gave, where a source is preferred; how many it has, where labels are combined), ``how`` in words."""

    qrels: Source
    sources_sql: str
    counts: dict[str, int]
    how: str
    shown: Judgments | None = None  # the same merged in the statement from the input itself (printed), where it can be


def source_names(inputs: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
    """{name: input}: a dict's keys, else each file's name without its extensions (human.txt -> human; where two
    collide, up to the last extension: qrels.human.txt -> qrels_human), a name of letters, digits and _."""
    if not inputs:
        raise InputError(f"qrels: an empty {type(inputs).__name__}: no judgments to evaluate against; give a file, a "
                         f"DataFrame, {{query: {{doc: label}}}} or several sources {{name: judgments}}")
    if isinstance(inputs, Mapping):
        named = {str(k): v for k, v in inputs.items()}
    else:
        names = [_source_name(obj, number, short=True) for number, obj in enumerate(inputs, 1)]
        if len(set(names)) < len(names):  # qrels.human.txt and qrels.llm.csv: qrels_human and qrels_llm
            names = [_source_name(obj, number, short=False) for number, obj in enumerate(inputs, 1)]
        named = {}
        for name, obj in zip(names, inputs):
            if name in named:
                raise OptionError(f"two judgment sources are both called {name!r} (from their file names); name them: "
                                  f"qrels={{'a': ..., 'b': ...}} in Python, or --qrels NAME=FILE")
            named[name] = obj
    for name in named:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise OptionError(f"judgment source name {name!r}: use letters, digits and _ (a name such as human or llm)")
    return named


def _source_name(obj: Any, number: int, short: bool) -> str:
    """A judgment source's name from its file name: up to its first dot (human.txt: human), or, where those names
    collide, up to its last extension (a compression's aside), other characters than letters, digits and _ as _
    (qrels.human.txt: qrels_human); qrels_N for an input without a path."""
    if not isinstance(obj, (str, os.PathLike)):
        return f"qrels_{number}"
    base = os.path.basename(os.fspath(obj))
    if short:
        return base.split(".")[0]
    for compression in (".gz", ".zst", ".bz2"):
        base = base[:-len(compression)] if base.lower().endswith(compression) else base
    return re.sub(r"[^A-Za-z0-9_]", "_", os.path.splitext(base)[0])


def split_by_source(obj: Any, con: duckdb.DuckDBPyConnection, registry: Registry, column: str = "source"
                    ) -> tuple[dict[str, Any], str]:
    """One table (a DataFrame, relation, table or CSV/Parquet file) with a ``column`` naming each row's
    source, as one relation per source, in the order of their names; with the reader of the table itself."""
    from .locate import registered_source  # a file: read as DuckDB reads it
    from .files import detect_format, file_reader

    found = registered_source(obj, "qrels", "qrels", con, registry, None)
    if found is not None:
        reader = found[2]
    else:
        path = os.fspath(obj)
        fmt = detect_format(path)
        if fmt == "trec":
            raise InputError(f"{path}: TREC qrels have no source column; give each source as its own file")
        reader = file_reader(os.path.abspath(path), fmt)
    relation = con.sql(f"SELECT * FROM {reader}")
    if column not in relation.columns:
        raise InputError(f"{obj if isinstance(obj, str) else 'the judgments'}: no column {column!r} naming the source "
                         f"of each judgment (columns: {', '.join(relation.columns)})")
    names = [row[0] for row in relation.query("judged", f"SELECT DISTINCT CAST({DUCKDB.ident(column)} AS VARCHAR) "
                                                         f"FROM judged ORDER BY 1").fetchall()]
    if None in names:
        raise InputError(f"a judgment has no source (column {column!r} is empty); every row needs one")
    return {name: con.sql(f"SELECT * EXCLUDE ({DUCKDB.ident(column)}) FROM {reader} "
                          f"WHERE CAST({DUCKDB.ident(column)} AS VARCHAR) = {DUCKDB.literal(name)}") for name in names}, \
        reader


def shown_merge(judgments: Judgments, reader: str, columns: Mapping[str, str] | None, column: str,
                combine: str | None) -> Judgments:
    """The judgments merged from one table with a source column, as the printed statement merges them reading the
    table (or file) itself: the sources in the order they were merged in."""
    mapping = {**column_mapping("qrels", columns), "source": column}
    itself = replace(judgments.qrels, reader=reader, table=None, columns=mapping, implicit=mapping["relevance"] == IMPLICIT)
    derived = ("merged_sources", tuple(judgments.counts), AGGREGATES[combine] if combine else None)
    return replace(judgments, shown=replace(judgments, qrels=replace(itself, derived=derived),
                                            sources_sql=itself.source_sql(DUCKDB)))


def merge(named: Mapping[str, Any], con: duckdb.DuckDBPyConnection, registry: Registry, prefer: Sequence[str] | None,
          combine: str | None, qrels_format: str | None = None, qrels_columns: Mapping[str, str] | None = None
          ) -> Judgments:
    """The sources read and validated, then merged by ``prefer`` (names, first wins; those not named follow
    in the order given) or ``combine`` (mean, max or min)."""
    order = merge_order(list(named), prefer, combine)
    sources = {name: load(named[name], "qrels", con, registry, qrels_format, qrels_columns) for name in order}
    union = "\nUNION ALL\n".join(
        f"SELECT query_id, doc_id, relevance, {DUCKDB.literal(name)} AS source, {rank} AS preference "
        f"FROM ({source.sql()}) AS {DUCKDB.ident('judged_' + name)}" for rank, (name, source) in enumerate(sources.items()))
    every = registry.materialize(union, "sources")
    if combine is None:
        merged = (f"SELECT query_id, doc_id, relevance, source FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY query_id, "
                  f"doc_id ORDER BY preference) AS choice FROM {DUCKDB.ident(every)}) AS ranked WHERE choice = 1")
        how = f"the first of {', '.join(order)} that judged a document gives its label"
    else:
        merged = (f"SELECT query_id, doc_id, {AGGREGATES[combine]}(relevance) AS relevance, NULL AS source "
                  f"FROM {DUCKDB.ident(every)} GROUP BY query_id, doc_id")
        how = f"the {combine} label of the sources that judged a document ({', '.join(order)})"
    table = registry.materialize(merged, "qrels")
    counted = f"SELECT source, count(*) FROM {DUCKDB.ident(table if combine is None else every)} GROUP BY source"
    counts = dict(con.execute(counted).fetchall())
    qrels = load(con.sql(f"SELECT query_id, doc_id, relevance FROM {DUCKDB.ident(table)}"), "qrels", con, registry,
                 label=f"judgments of {', '.join(order)}")
    if prefer is None and combine is None:
        totals = dict(con.execute(f"SELECT source, count(*) FROM {DUCKDB.ident(every)} GROUP BY source").fetchall())
        unused = [name for name in order[1:] if totals.get(name) and not counts.get(name)]
        if unused:  # a source that gave not one label: its labels were all overruled by the order given
            qrels = qrels.warned(unused_labels(order, unused, totals))
    return Judgments(qrels, f"SELECT query_id, doc_id, relevance, source FROM {DUCKDB.ident(every)}",
                     {name: int(counts.get(name, 0)) for name in order}, how)


def unused_labels(order: list[str], unused: list[str], totals: dict[str, int]) -> str:
    """Merging several sources in the order given (nothing said of how) used none of some source's labels."""
    lost = ", ".join(f"{name}'s {int(totals[name])}" for name in unused)
    return (f"judgments of {', '.join(order)} merged in the order given: a document several judged takes the label of "
            f"the first of them, so none of {lost} labels was used; --prefer NAME,... to choose the order, --combine "
            f"mean|max|min to combine them, or --ci --ci-method ppi to correct an LLM's judgments with people's")


def merge_order(names: list[str], prefer: Sequence[str] | None, combine: str | None) -> list[str]:
    if prefer is not None and combine is not None:
        raise OptionError("prefer and combine are two ways to merge judgments: give one")
    if combine is not None and combine not in COMBINATIONS:
        raise OptionError(f"combine={combine!r} is not one of {', '.join(COMBINATIONS)}")
    preferred = list(prefer or [])
    unknown = [name for name in preferred if name not in names]
    if unknown:
        raise OptionError(f"prefer names {unknown[0]!r}, which is no judgment source (sources: {', '.join(names)})")
    if len(set(preferred)) != len(preferred):
        raise OptionError("prefer names a judgment source twice")
    return preferred + [name for name in names if name not in preferred]


def input_names(runs: Any) -> tuple[list[str], list[Any]]:
    """The run inputs and their names: a dict's keys, else the file names without folder and suffix
    where that keeps them apart (paths otherwise, run_1, run_2, ... for what has no path)."""
    if isinstance(runs, Mapping):
        labels, objects = [str(k) for k in runs], list(runs.values())
    elif isinstance(runs, (list, tuple)):
        objects = list(runs)
        labels = [str(r) if isinstance(r, str) else f"run_{i + 1}" for i, r in enumerate(objects)]
    else:
        raise OptionError("runs must be a list of runs (paths, DataFrames, ...) or a dict of name: run")
    if not objects:
        raise InputError(f"run: an empty {type(runs).__name__}: no run to evaluate; give a file, a DataFrame, "
                         f"{{query: {{doc: score}}}} or several runs {{name: run}}")
    if not isinstance(runs, Mapping):  # file names without folder and suffix, when that keeps them apart
        stems = [os.path.splitext(os.path.basename(x))[0] if isinstance(o, str) else x
                 for x, o in zip(labels, objects)]
        if len(set(stems)) == len(stems) and all(stems):
            labels = stems
    return labels, objects


def distinct_inputs(runs: Any) -> tuple[list[str], list[Any]]:
    """Several runs' names and inputs (input_names), each name once: a file given twice is an error."""
    labels, objects = input_names(runs)
    if len(set(labels)) != len(labels):
        twice = next(label for label in labels if labels.count(label) > 1)
        raise OptionError(f"two runs are called {twice!r} (the same file given twice, or inputs of one name): give each "
                          f"run once; in Python, name them apart with a dict {{name: run}}")
    return labels, objects


def stored_in_a_list(label: str) -> OptionError:
    """The error of a table of runs stored together given as one run of a list of runs."""
    return OptionError(f"{label} is a table of runs stored together (a run_id column): give it alone (every run of it "
                       f"is evaluated), not in a list of runs")


STACKED_RUN = "sqlrank_run_name"  # the column of stacked_frames that names each row's run


def stacked_frames(labels: list[str], objects: list[Any], run_columns: Mapping[str, str] | None):
    """pandas DataFrames of the same columns, types and a plain index stacked into one, each row's run named in a
    column STACKED_RUN (categorical: a code per row), the runs' rows in their order; None for any other runs (files,
    relations, runs stored together already), each read alone."""
    if not objects or "pandas" not in type(objects[0]).__module__ or (run_columns and "run_id" in run_columns):
        return None
    import numpy as np
    import pandas as pd

    first = objects[0]
    if type(first) is not pd.DataFrame or {"run_id", STACKED_RUN} & set(first.columns):
        return None
    names, types = list(first.columns), list(first.dtypes)
    if not all(type(o) is pd.DataFrame and list(o.columns) == names and list(o.dtypes) == types
               and list(o.index.names) == [None] for o in objects):
        return None
    stacked = pd.concat(objects, ignore_index=True)
    codes = np.repeat(np.arange(len(objects), dtype=np.int32), [len(o) for o in objects])
    stacked[STACKED_RUN] = pd.Categorical.from_codes(codes, categories=labels)
    return stacked


def stacked_runs(runs: Sequence[Any] | Mapping[str, Any], con: duckdb.DuckDBPyConnection, registry: Registry,
                 run_format: str | None = None, run_columns: Mapping[str, str] | None = None,
                 allow_duplicates: bool = False, defer: bool = False) -> Source:
    """Several runs (a list, named by their file names, or a dict) as one input of runs stored together:
    DataFrames of the same columns stacked in one and read and validated once (a sweep's runs: one registration, one
    pass, whatever their number), else each read and validated alone, then their rows under their name in a run_id
    column (defer: the stacked frame's validation is left to the evaluation's statement, load's defer)."""
    labels, objects = distinct_inputs(runs)
    frame = stacked_frames(labels, objects, run_columns)
    if frame is not None:  # what is wrong is said of the run it is in, with its own row (Source.where)
        stacked = load(frame, "run", con, registry, None, {**(run_columns or {}), "run_id": STACKED_RUN},
                       allow_duplicates=allow_duplicates, label=f"runs {', '.join(labels)}", defer=defer,
                       stacked=tuple(zip(labels, map(len, objects))))
        return replace(stacked, run_order=tuple(labels))
    sources = [load(obj, "run", con, registry, run_format, run_columns, allow_duplicates=allow_duplicates)
               for obj in objects]
    stored = [label for label, source in zip(labels, sources) if source.per_run]
    if stored:  # its query ids carry its runs: stacked again, no query would meet the judgments
        raise stored_in_a_list(stored[0])
    union = "\nUNION ALL\n".join(
        f"SELECT {DUCKDB.literal(label)} AS run_id, query_id, doc_id, score, input_rank FROM ({source.sql()}) AS r"
        for label, source in zip(labels, sources))
    table = registry.materialize(union, "runs")
    stacked = load(con.sql(f"SELECT * FROM {DUCKDB.ident(table)}"), "run", con, registry,
                   allow_duplicates=allow_duplicates, columns={"rank": "input_rank"}, label=f"runs {', '.join(labels)}")
    types = {source.query_type for source in sources}  # query ids all of one type: results give them back so
    return replace(stacked, run_order=tuple(labels), query_type=types.pop() if len(types) == 1 else "VARCHAR")


def printed_sources(obj: Any, con: duckdb.DuckDBPyConnection, columns: Mapping[str, str] | None,
                    label_type: str | None, prefer: Sequence[str] | None, combine: str | None,
                    dialect: Dialect) -> Judgments:
    """Judgments from several sources merged in a statement printed for another database: a table of it with a
    source column, merged by ``prefer`` (names, first wins; the others after them by name) or ``combine``."""
    if isinstance(obj, (list, tuple, dict)) and not is_nested_dict(obj):
        raise OptionError(f"a statement printed for {dialect} merges the judgments of one table with a source column "
                          f"(--qrels-columns source=NAME, with --prefer or --combine); put the sources in one table")
    order = merge_order(list(prefer or []), prefer, combine)
    keyed = declared_keyed(obj, "qrels", con, columns, label_type, "source", ("source",), dialect,
                           "judgments from several sources are merged")
    merged = replace(keyed, derived=("merged_sources", tuple(order), AGGREGATES.get(combine or "")))
    how = (f"the {combine} label of the sources that judged a document" if combine else
           f"the first of {', '.join(order + ['the others by name'])} that judged a document gives its label")
    return Judgments(merged, keyed.source_sql(dialect), {}, how)
