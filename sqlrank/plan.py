"""The planner: inputs located, measures and conventions resolved, the statement rendered.

``plan()`` does everything an evaluation needs but running it; an engine (``engine.DuckDBEngine``,
``spark.SparkEngine``) runs the plan, and ``evaluation.run_plan`` turns its rows into a Result.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Mapping, Sequence

import duckdb

from .errors import InputError, MeasureError, OptionError
from .inputs.columns import require_exact_id
from .inputs.extra import (EXTRA_INPUTS, EngineInputs, check_outside_catalog, check_ungrouped, check_unseen,
                           declared_inputs, extra_inputs_sql)
from .inputs.keyed import Intents, Samples
from .inputs.load import load_table
from .inputs.merge import Judgments
from .inputs.reading import by_source, read_judgments, read_run
from .inputs.source import Source, named_columns
from .inputs.store import Registry
from .measures.conventions import FIELD_NAMES, Conventions, resolve_conventions
from .measures.measure import Measure
from .measures.registry import FAMILIES
from .measures.resolve import beyond_accuracy, check_tie_break, needed_inputs, resolve_measures
from .rendering.dialects import DIALECTS, DUCKDB, Dialect
from .rendering.sqltext import render_listed, render_segments, step_names
from .rendering.prepared import Statement
from .rendering.statement import Prepared, render_prepared


def recommender_sql(measures: list[Measure], given: Mapping[str, Any], qrels: Source, run: Source,
                    con: duckdb.DuckDBPyConnection, registry: Registry, engine: EngineInputs | None = None,
                    remove_seen: bool = False) -> tuple[dict | None, Source]:
    """SQL of the extra inputs the measures read (render_evaluation's ``recommender``; ``given``: EXTRA_INPUTS
    by name), checked; None when no measure reads them and ``remove_seen`` (which reads the history) is off.
    With ``engine``, the SQL is the engine's: tables of its own are read and checked there, anything else
    is read and checked by DuckDB and copied in. The run comes back with what was noticed of it."""
    needs = needed_inputs(measures)
    if remove_seen:
        needs["history"] = ["remove-seen"] + needs.get("history", [])
    if not beyond_accuracy(measures):  # one configuration serves evaluations with and without them: a warning
        for name, value in given.items():
            if value is not None and not (name == "history" and remove_seen):
                readers = EXTRA_INPUTS[name][0] + (" and by remove-seen" if name == "history" else "")
                run = run.warned(f"{name.replace('_', '-')} is read by {readers}; none is asked for, so it is not read")
        if not remove_seen:
            return None, run
    for m in beyond_accuracy(measures):
        check_tie_break(m)  # what cannot be computed at all is said before what is missing
    if "catalog" in needs and given["history"] is None and given["items"] is None:
        raise OptionError(f"{', '.join(needs['catalog'])}: needs the item catalog: give the items (--items FILE, "
                          f"items=) or the history of interactions (--history FILE, history=)")
    for name, (_, missing) in EXTRA_INPUTS.items():
        if name in needs and given[name] is None:
            raise OptionError(f"{', '.join(needs[name])}: {missing}")
    sql = extra_inputs_sql(given, qrels, run, con, registry, engine)
    if "catalog" in needs:
        run = check_outside_catalog(needs["catalog"], sql, run, con, engine)
    if "groups" in needs:
        run = check_ungrouped(needs["groups"], sql, run, con, engine)
    novelty = [str(m) for m in measures if m.family == "Novelty"]
    if novelty and sql.get("history") is not None:
        run = check_unseen(novelty, sql, run, con, engine)
    return sql, run


MAX_SLICES = 1000
@dataclass(frozen=True)
class Plan:
    """Inputs located and measures and conventions resolved: everything but the execution."""

    qrels: Source
    run: Source
    statement: Statement
    # the same statement in ``dialect`` reading the files or tables themselves: printed, or run elsewhere (None: sql)
    shown: str | None
    dialect: Dialect = DUCKDB
    judgments: Judgments | None = None  # the judgments merged from several sources, with their counts

    @cached_property
    def sql(self) -> str:
        """The statement as executed by DuckDB: it reads the inputs sqlrank read and validated once (rendered when
        first read: a plan run elsewhere, or whose statement reads the run's checks, never renders it)."""
        return self.statement.render(DUCKDB, self.qrels.sql(), self.run.sql())

    @property
    def text(self) -> str:
        """The statement in ``dialect`` reading the inputs themselves (shown), or the one executed."""
        return self.shown if self.shown is not None else self.sql

    @property
    def measures(self) -> list[Measure]:
        return self.statement.measures

    @property
    def conventions(self) -> Conventions:
        return self.statement.conventions

    @property
    def slices(self) -> int:
        return self.statement.slices

    @property
    def segments(self) -> str | None:
        return self.statement.segments

    @property
    def listed(self) -> str | None:
        return self.statement.listed

    def slice_sql(self, index: int, with_counts: bool = False) -> str:
        """The per-query statement over the queries in slice ``index`` of ``slices``. With ``with_counts``,
        rows of (query_id, measure, value, doc_id): the per-query values (doc_id NULL), then, for the
        measures over all users' recommendations (Coverage, Gini, Entropy, Novelty), how often each
        item is in the slice's top k (query_id NULL; measure: the count's column)."""
        return self.statement.render(DUCKDB, self.qrels.sql(), self.run.sql(), index, with_counts)

    def summary_sql(self, table: str) -> str:
        """The per-query rows and the summary of an evaluation run in slices, whose rows (slice_sql with
        ``with_counts``) are in the table ``table``."""
        return self.statement.summary(table)


def plan(qrels: Any, run: Any, measures: Any, output: str, con: duckdb.DuckDBPyConnection,
         registry: Registry, *, qrels_format: str | None = None, run_format: str | None = None,
         qrels_columns: Mapping[str, str] | None = None, run_columns: Mapping[str, str] | None = None,
         preset: str | None = None, slices: int | None = None, queries: Any = None, by: str | None = None,
         dialect: str = "duckdb", relstring_length: int = 10, history: Any = None, items: Any = None,
         item_features: Any = None, remove_seen: bool = False, printable: bool = True,
         engine_inputs: EngineInputs | None = None, prefer: Sequence[str] | str | None = None,
         combine: str | None = None, groups: Any = None, targets: Any = None, label_type: str | None = None,
         declared: bool = False, defer: bool = False, **conventions: Any) -> Plan:
    """Everything an evaluation needs but running it. ``qrels`` may be a Source loaded before
    (several runs against the same judgments read them once). With ``by``, results are per
    segment of the query table ``queries`` (output "segments"). Output "relstring" (trec_eval's
    relstring of each query's top ``relstring_length`` documents) takes no measures. Qrels read
    with judgment groups (trec_eval's -R qrels_jg) evaluate the run once per group. ``history``,
    ``items`` and ``item_features`` are the extra inputs of the recommender measures beyond
    accuracy (inputs/extra.py), read where ``engine_inputs`` says on an engine other than DuckDB; ``groups``
    (document, group) and ``targets`` (group, share) those of the fairness measures.
    ``remove_seen=True`` leaves each user's history items out of the run before it is ranked.
    ``printable=False`` skips rendering the statement that reads the files themselves (``text`` is
    then the executed one): for callers that never show it. ``dialect``: the dialect of ``text``.
    Several judgment sources (``qrels`` a list or dict, or one table with a source column and ``prefer``
    or ``combine``) are merged first (inputs/merge.py). Printed for another dialect, a name that is no file
    and no table here is that database's table (``label_type``: integer or real labels), read nowhere;
    ``declared=True`` takes names so in DuckDB's dialect too (a dbt-duckdb project's tables). ``defer=True``: a run
    read in place is validated by the evaluation's statement (evaluation.run_plan; Source.deferred), where nothing
    before the statement reads its rows."""
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    target = DIALECTS[dialect]
    resolved_conventions, resolved_measures = resolved(measures if output != "relstring" else None, preset, conventions)
    output = _output(output, by, slices)
    printed = declared or (target is not DUCKDB and engine_inputs is None)  # the inputs: tables of that database
    judgments, intents, qrels_source = (qrels.judgments, qrels.intents, qrels.source) if isinstance(qrels, Judged) \
        else read_judgments(qrels, resolved_measures, target, printed, con, registry, prefer, combine,
                            qrels_format, qrels_columns, label_type)
    defer = defer and target is DUCKDB and not printed and not remove_seen and not beyond_accuracy(resolved_measures) \
        and not any(m.param("tie_break") == "input_rank" for m in resolved_measures)
    samples, run_source = read_run(run, resolved_measures, target, printed, con, registry, run_format,
                                   run_columns, resolved_conventions.duplicate_documents == "rows", defer)
    segments = segments_sql(queries, by, con, registry, qrels_source, run_source)
    listed = listed_sql(queries, con, registry, qrels_source, run_source) if by is None else None
    _check_combinations(resolved_measures, qrels_source, run_source, output, slices, segments, listed, target,
                        printed, remove_seen)
    given = {"history": history, "items": items, "item_features": item_features, "groups": groups, "targets": targets}
    extra = declared_inputs(target, con, qrels_source, run_source) if printed else engine_inputs  # its tables, printed
    recommender, run_source = recommender_sql(resolved_measures, given, qrels_source, run_source, con, registry,
                                              extra, remove_seen)
    resolved_measures = per_group(resolved_measures, recommender, con, printed or target is not DUCKDB)
    if remove_seen:  # every reader of the typed run (the statement, the checks after it) reads it without them
        run_source = replace(run_source, seen=recommender["history"])
    statement = Statement(resolved_measures, resolved_conventions, output, relstring_length, segments, listed,
                          run_source.per_run, qrels_source.rescannable and run_source.rescannable,
                          recommender if beyond_accuracy(resolved_measures) else None,  # remove-seen's is in the run
                          bool(qrels_source.groups), check_slices(slices),
                          judgments.sources_sql if judgments and by_source(resolved_measures) else None,
                          intents.sql if intents else None, samples.sql if samples else None,
                          qrels.prepared if isinstance(qrels, Judged) and not printed else ())
    text = shown_text(statement, target, qrels_source, run_source, judgments, intents, samples) \
        if printable or target is not DUCKDB else None
    return Plan(qrels_source, run_source, statement, text, target, judgments)


def shown_text(statement: Statement, target: Dialect, qrels: Source, run: Source, judgments: Judgments | None,
               intents: Intents | None, samples: Samples | None) -> str:
    """The statement in ``target`` reading the inputs themselves: in DuckDB's SQL, judgments per subtopic, sampled
    rankings and judgments of several sources in one table read from their files or tables (the statement run reads
    sqlrank's copies of them)."""
    if target is DUCKDB:  # another dialect's statement reads that database's tables, or the engine's copies
        if intents is not None and intents.shown is not None:
            statement, qrels = replace(statement, intents=intents.shown.sql, sliced={}), intents.shown.qrels
        if judgments is not None and judgments.shown is not None:
            sources = judgments.shown.sources_sql if statement.sources else None
            statement, qrels = replace(statement, sources=sources, sliced={}), judgments.shown.qrels
        if samples is not None and samples.shown is not None:
            statement = replace(statement, samples=samples.shown.sql, sliced={})
            run = replace(samples.shown.run, seen=run.seen)
    text = statement.render(target, qrels.source_sql(target), run.source_sql(target))
    require_unshadowed(text, target, statement.intents is not None)
    return text


_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+([\"`])([^\"`.]+)\1(?![.\w])")  # a table read by its name alone


def require_unshadowed(text: str, target: Dialect, recursive: bool) -> None:
    """A table the printed statement reads by its name alone where a step of the statement has that name: SQLite
    (and a recursive statement, the diversity measures' ideal ranking, elsewhere but in DuckDB) reads the step in its
    place, and fails on a circular reference. An error that says to name the table with its schema or another name."""
    if target.name != "sqlite" and (target is DUCKDB or not recursive):
        return
    steps = step_names(text)
    for _, table in _TABLE.findall(text):
        if table.lower() in steps:
            schema = "main" if target.name == "sqlite" else "public" if target.kind == "postgres" else "schema"
            raise OptionError(f"table {table}: the {target} statement has a step named {table.lower()}, which "
                              f"{target} reads in the table's place; give the table with its schema ({schema}.{table}) "
                              f"or under another name (a view)")


def conventions_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The conventions among an evaluation's options."""
    return {k: v for k, v in options.items() if k in FIELD_NAMES}


def resolved(measures: Any, preset: str | None, conventions: dict[str, Any]) -> tuple[Conventions, list[Measure]]:
    """The evaluation's conventions (a preset, then what is given) and its measures resolved under them (the conventions
    given win over the preset's settings for a family); no measures for None (relstring takes none)."""
    resolved_conventions = resolve_conventions(preset, **conventions)
    explicit = {k for k, v in conventions.items() if v is not None}
    return resolved_conventions, [] if measures is None else resolve_measures(measures, resolved_conventions, preset,
                                                                               explicit)


@dataclass(frozen=True)
class Judged:
    """Judgments read and checked once, for every run evaluated against them with the same measures (an
    Evaluator's): plan() takes one as its qrels."""

    source: Source
    measures: list[Measure]  # as resolved under the conventions
    judgments: Judgments | None = None  # merged from several sources
    intents: Intents | None = None  # per subtopic, for the diversity measures
    conventions: Conventions | None = None
    prepared: Prepared = ()  # the steps of the statement that read the judgments alone, made into tables once


def prepared(held: Judged, con: duckdb.DuckDBPyConnection, registry: Registry) -> Judged:
    """The judgments with the steps of every run's statement that read them alone (per-query counts, the ideal
    rankings and their DCG) made once into tables of the connection, which each statement then reads. Not made
    where they depend on the run: with unjudged_label (the run's unjudged documents are judged), judgment groups,
    judgments merged from several sources, or per subtopic."""
    c = held.conventions
    if c is None or c.unjudged_label is not None or held.source.groups or held.judgments or held.intents:
        return held
    made = []
    for step, sql in render_prepared(held.source.sql(), held.measures, c, dialect=DUCKDB).items():
        table = registry.materialize(sql, "prepared")
        columns = [row[0] for row in con.execute(f"DESCRIBE {DUCKDB.ident(table)}").fetchall()]
        made.append((step, table, tuple(name for name in columns if name != "query_id")))
    return replace(held, prepared=tuple(made))


def judged(qrels: Any, measures: Any, con: duckdb.DuckDBPyConnection, registry: Registry, *,
           qrels_format: str | None = None, qrels_columns: Mapping[str, str] | None = None, preset: str | None = None,
           prefer: Sequence[str] | str | None = None, combine: str | None = None, **conventions: Any) -> Judged:
    """The judgments as ``measures`` read them under these conventions, read into DuckDB and checked once."""
    resolved_conventions, measures = resolved(measures, preset, conventions)
    judgments, intents, source = read_judgments(qrels, measures, DUCKDB, False, con, registry, prefer, combine,
                                                qrels_format, qrels_columns)
    return Judged(source, measures, judgments, intents, resolved_conventions)


def per_group(measures: list[Measure], recommender: dict | None, con: duckdb.DuckDBPyConnection,
              on_engine: bool) -> list[Measure]:
    """Exposure without group=: one measure per group of the groups table, in the order of their names."""
    if not any(m.family == "Exposure" and m.param("group") is None for m in measures):
        return measures
    if on_engine:
        raise OptionError("Exposure without group= names one measure per group, and the groups are the engine's "
                          "table: name each group (Exposure(group=NAME)@k)")
    names = [row[0] for row in con.execute(f"SELECT DISTINCT feature FROM ({recommender['groups']}) AS grouped "
                                           f"ORDER BY 1").fetchall()]
    out = []
    for m in measures:
        if m.family != "Exposure" or m.param("group") is not None:
            out.append(m)
            continue
        for name in names:
            try:
                out.append(Measure(m.family, m.cutoff, tuple(m.params) + (("group", name),)))  # named by its group
            except MeasureError:
                raise OptionError(f"group {name!r} of the groups table cannot be named in a measure: name the groups "
                                  f"with letters, digits and _") from None
    return out


def _output(output: str, by: str | None, slices: int | None) -> str:
    """The output asked for, "segments" with ``by``."""
    if by is None:
        return output
    if output not in ("summary", "segments"):
        raise OptionError("results per segment (by=) are aggregates; they cannot be per query too")
    if slices not in (None, 1):
        raise OptionError("results per segment (by=) are computed in one statement; leave out slices=")
    return "segments"


def _check_combinations(measures: list[Measure], qrels: Source, run: Source, output: str, slices: int | None,
                        segments: str | None, listed: str | None, target: Dialect, printed: bool,
                        remove_seen: Any) -> None:
    """What cannot be evaluated together: a query table with runs stored together, judgment groups or
    relstrings; runs stored together with slices, segments or judgment groups; the measures beyond
    accuracy in a printed statement, with judgment groups or (a pooled one) with slices; a weighted
    mean with slices; remove-seen in a printed statement; a query table printed for another dialect."""
    if listed is not None and (run.per_run or qrels.groups or output == "relstring"):
        raise OptionError("a query table without by= lists the queries to evaluate: not with runs stored together, "
                          "judgment groups or relstrings")
    if run.per_run and slices not in (None, 1):
        raise OptionError("runs stored together (run_id) are evaluated in one statement; leave out slices=")
    if run.per_run and (segments is not None or qrels.groups):
        raise OptionError("runs stored together (run_id) are evaluated per run; segments and judgment groups "
                          "cannot be combined with them")
    extra = beyond_accuracy(measures)
    if extra:  # said before any extra input is read
        names = ", ".join(str(m) for m in extra)
        if qrels.groups:
            raise OptionError(f"{names}: the measures beyond accuracy take each run whole: not with judgment groups")
        pooled = [str(m) for m in extra if "pooled" in FAMILIES[m.family].reads]
        if pooled and slices not in (None, 1):
            raise OptionError(f"{', '.join(pooled)}: one ROC curve over the documents of every query is computed in "
                              f"one statement; leave out slices=")
    across = [str(m) for m in measures if "personalized" in m.spec.reads]
    if across and (slices not in (None, 1) or segments is not None):
        raise OptionError(f"{', '.join(across)}: each user is compared with every other user, in one statement: leave "
                          f"out {'slices=' if segments is None else 'segments (by=): evaluate each segment alone'}")
    weighted = [str(m) for m in measures if m.spec.aggregate == "weighted"]
    if weighted and slices not in (None, 1):
        raise OptionError(f"{', '.join(weighted)}: a mean that weighs each query is computed in one statement; "
                          f"leave out slices=")
    if not isinstance(remove_seen, bool):
        raise OptionError(f"remove_seen={remove_seen!r} must be True or False")
    if remove_seen and printed:
        raise OptionError(f"remove-seen reads the history where sqlrank runs the statement: in DuckDB, or on the "
                          f"engine named with --engine; a printed {target} statement cannot read it")
    if listed is not None and target is not DUCKDB:
        raise OptionError("a query table (queries=) is read by DuckDB: its statement cannot be printed for "
                          f"{target}; evaluate it here, or give the engine's own tables")


def segments_sql(queries: Any, by: str | None, con: duckdb.DuckDBPyConnection, registry: Registry,
                 *inputs: Source) -> str | None:
    """SQL of (query_id, segment) rows from the column ``by`` of the query table ``queries``, whose
    query ids are in a column named as ``inputs`` name theirs (user_id), query_id or user_id."""
    if by is None:
        return None
    if queries is None:
        raise OptionError("segments need both a query table (queries=, --queries FILE) with a query_id column "
                          "and the column to group by (by=, --by COLUMN)")
    if not isinstance(by, str) or not by or "\x00" in by:
        raise OptionError(f"by={by!r} must be a column name of the query table")
    table = load_table(queries, "query table", con, registry, (by,))
    names = [name for name in named_columns("query_id", ("query_id", "user_id"), *inputs) if name != by]
    return render_segments(table.reader, by, _query_id_column(table, names))


def listed_sql(queries: Any, con: duckdb.DuckDBPyConnection, registry: Registry, *inputs: Source) -> str | None:
    """SQL of the query ids a query table lists (its query id column, named as ``inputs`` name theirs,
    query_id or user_id): the queries an evaluation evaluates, every one of them."""
    if queries is None:
        return None
    table = load_table(queries, "query table", con, registry, ())
    id_column = _query_id_column(table, named_columns("query_id", ("query_id", "user_id"), *inputs))
    return render_listed(table.reader, id_column)


def _query_id_column(table, names: list[str]) -> str:
    id_column = next((name for name in names if name in table.types), None)
    if id_column is None:
        raise InputError(f"{table.label}: the query table has no query id column: expected one of {', '.join(names)} "
                         f"(columns: {', '.join(table.types)}); rename it, or map the run's columns the same way")
    require_exact_id(table.label, id_column, "query id", table.types[id_column])
    return id_column


def check_slices(slices: Any) -> int:
    if slices is None:
        return 1
    if isinstance(slices, bool) or not isinstance(slices, int) or not 1 <= slices <= MAX_SLICES:
        raise OptionError(f"slices {slices!r} must be a whole number from 1 to {MAX_SLICES} (each slice is one "
                          f"statement; 10 hold 500M run rows in 4 GB)")
    return slices
