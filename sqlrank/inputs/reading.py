"""The judgments and the run as the measures read them, before a plan is made of them: judgments merged from
several sources, judgments per subtopic (the diversity measures), sampled rankings (expected exposure), several
runs stacked, or one input as given; in a statement printed for another database, that database's tables. The
measures are resolved Measures (their ``spec`` says what they read)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import duckdb

from ..errors import InputError, OptionError
from ..rendering.dialects import Dialect, DUCKDB
from ..rendering.sqltext import call_macro
from .columns import column_map
from .keyed import Intents, Samples, printed_samples, printed_subtopics, sampled_run, subtopic_judgments
from .load import load
from .locate import declared_table, is_nested_dict
from .merge import Judgments, merge, printed_sources, shown_merge, source_names, split_by_source, stacked_runs
from .source import ENGINE_TABLES, Source
from .store import Registry


def read_run(run: Any, measures: Sequence[Any], target: Dialect, printed: bool,
             con: duckdb.DuckDBPyConnection, registry: Registry, run_format: str | None,
             run_columns: Mapping[str, str] | None, rows: bool, defer: bool = False) -> tuple[Samples | None, Source]:
    """The run as the measures read it: sampled rankings (the expected exposure measures), several runs stacked,
    or one as given (``rows``: repeated documents ranked as rows); with the samples it came from. In a statement
    printed for another database, a name that is no file and no table here is that database's. ``defer``: a run read
    in place is validated by the evaluation's statement (load's defer)."""
    if isinstance(run, Samples):  # read and checked before, for another engine
        return run, run.run
    samples = sampled(measures, run, target, printed, con, registry, run_format, run_columns)
    if printed and not samples:
        run = declared_table(run, "run", con, run_columns, None)
    if samples:
        source = samples.run
    elif isinstance(run, Source):
        source = run
    elif isinstance(run, (list, tuple, dict)) and not is_nested_dict(run):
        source = stacked_runs(run, con, registry, run_format, run_columns, rows, defer)
    else:
        source = load(run, "run", con, registry, run_format, run_columns, allow_duplicates=rows, defer=defer)
    if any(m.param("tie_break") == "input_rank" for m in measures) and source.format not in ENGINE_TABLES \
            and not printed:  # a table read nowhere here is checked nowhere here
        require_ranks(source, lambda sql: con.execute(sql).fetchall()[0], source.sql())
    return samples, source


def read_judgments(qrels: Any, measures: Sequence[Any], target: Dialect, printed: bool,
                   con: duckdb.DuckDBPyConnection, registry: Registry, prefer: Sequence[str] | str | None,
                   combine: str | None, qrels_format: str | None, qrels_columns: Mapping[str, str] | None,
                   label_type: str | None = None) -> tuple[Judgments | None, Intents | None, Source]:
    """The judgments as the measures read them: merged from several sources, per subtopic (the diversity
    measures), or as given; with the merge or the subtopic judgments they came from. In a statement printed
    for another database, a name that is no file and no table here is that database's (``label_type``)."""
    if printed:
        judgments, intents, qrels = printed_judgments(qrels, measures, target, con, prefer, combine, qrels_columns,
                                                      label_type)
    else:
        judgments = judgment_sources(qrels, con, registry, prefer, combine, qrels_format, qrels_columns)
        _check_sources(measures, judgments)
        intents = subtopics(measures, qrels, judgments, con, registry, qrels_format, qrels_columns)
    source = intents.qrels if intents else judgments.qrels if judgments else qrels if isinstance(qrels, Source) \
        else load(qrels, "qrels", con, registry, qrels_format, qrels_columns)
    return judgments, intents, source


def printed_judgments(qrels: Any, measures: Sequence[Any], target: Dialect, con: duckdb.DuckDBPyConnection,
                      prefer: Sequence[str] | str | None, combine: str | None,
                      qrels_columns: Mapping[str, str] | None, label_type: str | None
                      ) -> tuple[Judgments | None, Intents | None, Any]:
    """The judgments of a statement printed for another database, a table of it: per subtopic (the diversity
    measures), merged from several sources (a source column), or as they are."""
    for m in measures:
        target.check(m)
    columns = column_map(qrels_columns, "qrels_columns")
    if any(m.spec.intent_aware for m in measures):
        if prefer is not None or combine is not None or "source" in columns:
            raise OptionError("the diversity measures read one set of judgments per subtopic; merge the sources first")
        intents = printed_subtopics(qrels, con, columns, label_type, target)
        return None, intents, intents.qrels
    if prefer is not None or combine is not None or "source" in columns or \
            (isinstance(qrels, (list, tuple, dict)) and not is_nested_dict(qrels)):
        judgments = printed_sources(qrels, con, columns, label_type, preference(prefer), combine, target)
        _check_sources(measures, judgments)
        return judgments, None, judgments.qrels
    _check_sources(measures, None)
    return None, None, declared_table(qrels, "qrels", con, qrels_columns, label_type)


def sampled(measures: Sequence[Any], run: Any, target: Dialect, printed: bool,
            con: duckdb.DuckDBPyConnection, registry: Registry, run_format: str | None,
            run_columns: Mapping[str, str] | None) -> Samples | None:
    """The sampled rankings the expected exposure measures read (inputs/keyed.py), in a statement printed for
    another database that database's table; None when none is asked for."""
    stochastic = [str(m) for m in measures if m.spec.sampled]
    others = [str(m) for m in measures if not m.spec.sampled]
    if not stochastic:
        return None
    if printed:
        return printed_samples(run, con, run_columns, ", ".join(stochastic), others, target)
    return sampled_run(run, con, registry, run_format, run_columns, ", ".join(stochastic), others)


def judgment_sources(qrels: Any, con: duckdb.DuckDBPyConnection, registry: Registry,
                     prefer: Sequence[str] | str | None, combine: str | None, qrels_format: str | None,
                     qrels_columns: Mapping[str, str] | None) -> Judgments | None:
    """Judgments from several sources merged, or None for one set of judgments: a list or dict of inputs,
    or one input whose ``source`` column (or the column qrels_columns maps source to) names each row's
    source, when prefer or combine says how to merge them. ``prefer``: names, or one text "human,llm"."""
    columns = column_map(qrels_columns, "qrels_columns")
    column = columns.pop("source", None)
    if isinstance(qrels, (list, tuple, dict)) and not is_nested_dict(qrels):  # {query: {doc: label}} is one input
        return merge(source_names(qrels), con, registry, preference(prefer), combine, qrels_format, columns or None)
    if prefer is None and combine is None and column is None:
        return None
    named, reader = split_by_source(qrels, con, registry, column or "source")
    return shown_merge(merge(named, con, registry, preference(prefer), combine, qrels_format, columns or None), reader,
                       columns or None, column or "source", combine)


def preference(prefer: Sequence[str] | str | None) -> list[str] | None:
    """prefer= as the list of source names it gives: names, or one text "human,llm"."""
    return prefer.split(",") if isinstance(prefer, str) else None if prefer is None else list(prefer)


def subtopics(measures: Sequence[Any], qrels: Any, judgments: Judgments | None, con: duckdb.DuckDBPyConnection,
              registry: Registry, qrels_format: str | None, qrels_columns: Mapping[str, str] | None) -> Intents | None:
    """The judgments per subtopic the diversity measures read (inputs/keyed.py); None when none is asked for."""
    diverse = [str(m) for m in measures if m.spec.intent_aware]
    return subtopic_judgments(qrels, con, registry, qrels_format, qrels_columns, ", ".join(diverse),
                              judgments is not None) if diverse else None


def by_source(measures: Sequence[Any]) -> bool:
    return any(m.family == "Judged" and m.param("source") for m in measures)


def _check_sources(measures: Sequence[Any], judgments: Judgments | None) -> None:
    """Judged(source=NAME) names one of the sources merged."""
    for m in measures:
        name = m.param("source") if m.family == "Judged" else None
        if name is None:
            continue
        if judgments is None:
            raise OptionError(f"{m} counts the judgments of one source of several; give several (qrels as a list "
                              f"or dict, --qrels more than once, or a source column with prefer or combine)")
        if judgments.counts and name not in judgments.counts:  # a printed statement's sources are not known here
            raise OptionError(f"{m}: no judgment source is called {name!r} (sources: {', '.join(judgments.counts)})")


def require_ranks(run: Source, fetch_one, run_sql: str, dialect: Dialect = DUCKDB) -> None:
    """tie_break=input_rank needs an integer rank on every row of the run (``fetch_one`` runs a query
    on the engine that reads ``run_sql``)."""
    missing = fetch_one(call_macro(dialect, "checks.sql", "ranks", run_sql))
    if missing[0] == missing[1]:
        raise InputError(f"{run.label}: tie_break=input_rank needs the run's rank column; TREC runs have it "
                         f"(column 4), tables need one named rank or mapped with run_columns={{'rank': ...}}")
    if missing[0]:
        raise InputError(f"{run.label}: {missing[0]} rows have no integer rank; tie_break=input_rank needs one "
                         f"on every row")
