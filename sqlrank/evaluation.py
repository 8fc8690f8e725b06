"""An evaluation from inputs to a Result: planned once, run by the engine chosen here (DuckDB,
or Spark), then checked and shaped. The one place that picks an engine."""
from __future__ import annotations

import difflib
import inspect
import os
import threading
import warnings
import weakref
from contextlib import ExitStack
from dataclasses import replace
from typing import Any, Callable

from .diagnostics import checked_rows, guard, statement_checks, warn
from .engines.base import ENGINES, Engine, Rows
from .engines.duckdb import DuckDBEngine, session, session_options
from .engines.foreign import foreign_plan, refuse_duckdb_options
from .errors import InputError, OptionError, SqlrankWarning
from .inputs.locate import is_nested_dict
from .inputs.merge import distinct_inputs, stored_in_a_list
from .measures.conventions import FIELD_NAMES
from .inputs.source import INTEGER_TYPES, Source
from .inputs.store import read_once
from .inputs.validate import deferred_validation
from .plan import Judged, Plan, judged, plan, prepared
from .results.result import Result, shape


def check_options(options: dict[str, Any], *functions: Callable) -> None:
    """Every keyword an evaluation takes is known: an unknown one (a typo such as run_column) is an
    error naming the closest option or convention, never a silently ignored argument."""
    def keywords(f: Callable) -> set[str]:
        return {name for name, p in inspect.signature(f).parameters.items()
                if p.kind is p.KEYWORD_ONLY or p.default is not p.empty}

    conventions = set(FIELD_NAMES) | {"preset"}
    internal = {"printable", "relstring_length", "dialect", "engine_inputs", "kept", "defer"}  # set by sqlrank itself
    known = (keywords(evaluate_result) | set(inspect.signature(session).parameters) | keywords(plan) - internal
             | set().union(*map(keywords, functions))) - conventions - {"per_query"}
    for name in options:
        if name not in known | conventions:
            close = difflib.get_close_matches(name, sorted(known | conventions), n=1, cutoff=0.7)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise OptionError(f"unknown option {name!r}; {hint}the options are {', '.join(sorted(known))}; the "
                              f"conventions are {', '.join(sorted(conventions))}")


def run_plan(p: Plan, engine: Engine, per_query: bool, memo: dict | None = None) -> Result:
    """Run a plan on an engine: guard (queries on one side only, labels beyond a measure's bound),
    evaluate, warn (values that are no number; on DuckDB the data-quality warnings), shape. ``memo``: what the
    checks found of judgments read once, for the next run against them. On DuckDB the statement reads the run's
    checks with its values (diagnostics.statement_checks), and the guards read them after it: one statement."""
    checks = statement_checks(p, engine)
    if checks is None:
        p = replace(p, run=validated(p.run, engine))
        guarded = guard(p, engine, memo)
        table = engine.evaluate(p)
    else:
        p = replace(p, statement=replace(p.statement, checks=checks, sliced={}))  # its text is the one the result holds
        table, found = _evaluate_checked(p, engine)
        p = replace(p, run=validated(p.run, engine, found.get("validation")))
        guarded = guard(p, engine, memo, found)
    return shape(table, p, per_query, guarded.num_queries, warn(p, engine, table, guarded, memo), guarded.left_out)


def _evaluate_checked(p: Plan, engine: Engine) -> tuple[Rows, dict]:
    """The statement that reads the run's checks with its values: its rows and the checks. Where it fails on a run
    whose validation it was to read (a score that is no number, cast), the validation says what is wrong and where."""
    try:
        table = engine.evaluate(p)
    except InputError:
        validated(p.run, engine)
        raise
    return checked_rows(table)


def validated(run: Source, engine: Engine, row: tuple | None = None) -> Source:
    """A run whose validation was left to the statement (Source.deferred) validated: from the row of validation's
    pass the statement read, else by a statement of its own; any other run as it is."""
    return deferred_validation(run, engine.connection, row) if run.deferred else run


def evaluate_result(qrels: Any, run: Any, measures: Any, per_query: bool = False, engine: str = "duckdb",
                    spark: Any = None, dsn: str | None = None, datafusion: Any = None, sqlite: Any = None,
                    strict: bool = False, **options: Any) -> Result:
    """One evaluation on DuckDB (default), on Spark (engine="spark", or a SparkSession in spark=) or
    in PostgreSQL (engine="postgres" with dsn=, a connection URL), or in DataFusion (engine="datafusion",
    or a SessionContext in datafusion= whose tables QRELS and RUN may name), or in SQLite
    (engine="sqlite", or a sqlite3 connection or database file in sqlite= whose tables QRELS and RUN may
    name). strict=True: every warning (something that can change a number) is an error instead."""
    if engine not in ENGINES:
        raise OptionError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    output = "both" if per_query else "summary"
    if (engine == "postgres") != (dsn is not None):
        raise OptionError("the PostgreSQL engine takes a connection URL: engine='postgres' with dsn=... "
                          "(--engine postgres --dsn URL)")
    given = {"spark": spark, "datafusion": datafusion, "sqlite": sqlite}
    elsewhere = engine != "duckdb" or dsn is not None or any(obj is not None for obj in given.values())
    if isinstance(run, (list, tuple, dict)) and not is_nested_dict(run) and elsewhere:  # one statement per run there
        results = {label: evaluate_result(qrels, obj, measures, per_query, engine, spark, dsn, datafusion, sqlite,
                                          **options) for label, obj in zip(*distinct_inputs(run))}
        return checked(stacked_results(results), strict)
    elsewhere = _plan_elsewhere(engine, qrels, run, measures, output, dsn, given, options)
    if elsewhere is None:
        resources = session_options(options)
        with session(resources.pop("connection", None), **resources) as (con, registry):
            result = run_plan(plan(qrels, run, measures, output, con, registry, defer=True, **options), DuckDBEngine(con),
                              per_query)
    else:
        p, other = elsewhere
        try:
            result = run_plan(p, other, per_query)
        finally:
            other.close()  # its copies of the inputs, its connection
    return checked(result, strict)


def top_documents(qrels: Any, run: Any, top: int, engine: str = "duckdb", spark: Any = None, dsn: str | None = None,
                  datafusion: Any = None, sqlite: Any = None, **options: Any) -> Rows:
    """Each query's top TOP documents of RUN with their labels (query_id, rank, doc_id, relevance; NULL: unjudged),
    ranked by the evaluation's tie-break, read on the engine of an evaluation elsewhere (a report's side-by-side
    rankings there; query ids carry their run, run_id || chr(31) || query_id, for runs stored together)."""
    from .rendering.sqltext import render_template

    given = {"spark": spark, "datafusion": datafusion, "sqlite": sqlite}
    p, other = _plan_elsewhere(engine, qrels, run, "P@1", "summary", dsn, given, options)
    try:
        tie_break = p.statement.conventions.tie_break
        kept = tie_break if tie_break in ("doc_id_asc", "input_rank") else "trec_eval"  # the report's, as on DuckDB
        order = p.dialect.ranking_order(kept, "score")
        return other.rows(render_template(p.dialect, "ranked.sql", run_sql=p.run.source_sql(p.dialect),
                                          qrels_sql=p.qrels.source_sql(p.dialect), order=order, depth=top,
                                          keyed=p.run.keyed))
    finally:
        other.close()


def stacked_results(results: dict[str, Result]) -> Result:
    """The evaluations of several runs, one statement each on another engine, as one Result of runs stored together:
    run_id first in every row, each run's warnings under its name, as DuckDB evaluates a list of runs."""
    stored = [label for label, result in results.items() if result.run_ids() != [None]]
    if stored:
        raise stored_in_a_list(stored[0])

    def rows(tables: list[Rows]) -> Rows:
        return Rows(("run_id",) + tables[0].columns,
                    [(label,) + row for label, table in zip(results, tables) for row in table.rows])

    first = next(iter(results.values()))
    return replace(first, table=rows([r.table for r in results.values()]),
                   summary_table=rows([r.summary_table for r in results.values()]),
                   sql=";\n\n".join(f"-- {label}\n{r.sql}" for label, r in results.items()),
                   num_queries=max(r.num_queries for r in results.values()),
                   warnings=[f"{label}: {w}" for label, r in results.items() for w in r.warnings],
                   valued={label: r.valued.get(None, {}) for label, r in results.items() if r.valued.get(None)},
                   left_out=None)


def checked(result: Result, strict: bool) -> Result:
    """strict=True: every warning (something that can change a number) is an error instead."""
    if strict and result.warnings:
        raise InputError(f"strict: {len(result.warnings)} findings can change the numbers: "
                         + "; ".join(result.warnings))
    return result


def framed(result: Result, per_query: bool, stacklevel: int = 3):
    """The DataFrame sqlrank.evaluate returns, its attrs saying how it was computed; the warnings warned."""
    for message in result.warnings:
        warnings.warn(message, SqlrankWarning, stacklevel=stacklevel)
    frame = result.frame
    if per_query and result.query_type in INTEGER_TYPES:
        frame = integer_ids(frame)
    if per_query and result.query_label != "query_id":
        frame = frame.rename(columns={"query_id": result.query_label})
    frame.attrs["sql"] = result.sql  # with per_query=True it also returns the summary rows (query_id NULL)
    frame.attrs["conventions"] = result.conventions.describe()
    frame.attrs["num_queries"] = result.num_queries
    queries = {run: {m.shown: result.queries(m.shown, run) for m in result.measures} for run in result.run_ids()}
    frame.attrs["queries"] = queries[None] if None in queries else queries
    frame.attrs["measures"] = {m.shown: str(m) for m in result.measures}  # as asked: canonical
    frame.attrs.update({"judgment_sources": dict(result.judgments.counts)} if result.judgments is not None else {})
    return frame


def integer_ids(frame):
    """Per-query rows of a run whose query ids are integers: the ids as integers again (pandas' Int64, empty where a
    value is over all queries), in their natural order (2 before 10), runs and measures in their order."""
    import pandas as pd

    ids = frame["query_id"]
    text = ids.dropna().astype(str)
    if not text.str.fullmatch(r"-?(0|[1-9][0-9]*)").all():  # not every id reads back as the integer it was
        return frame
    numbers = [None if q is None or q != q else int(q) for q in ids]  # exact: a float would round ids past 2^53
    found = [n for n in numbers if n is not None]
    dtype = "UInt64" if found and max(found) >= 1 << 63 and min(found) >= 0 else "Int64"  # a uint64 column's ids
    if found and (max(found) >= 1 << 64 or min(found) < -(1 << 63) or dtype == "Int64" and max(found) >= 1 << 63):
        return frame  # no integer column holds them all: as text
    runs = pd.factorize(frame["run_id"])[0] if "run_id" in frame.columns else [0] * len(frame)
    order = sorted(range(len(frame)), key=lambda at: (runs[at], numbers[at] is None, numbers[at] or 0, at))
    out = frame.assign(query_id=pd.array(numbers, dtype=dtype)).iloc[order].reset_index(drop=True)
    out.attrs.update(frame.attrs)
    return out


def _plan_elsewhere(engine: str, qrels: Any, run: Any, measures: Any, output: str, dsn: str | None,
                    given: dict[str, Any], options: dict[str, Any]) -> tuple[Plan, Engine] | None:
    """The plan and the engine to run it on when that is not DuckDB (None then): PostgreSQL,
    ClickHouse, SQLite, DataFusion or Spark (engine=, or a session, context or connection ``given`` for
    the last three). What only DuckDB takes is refused before the engine is started or connected to."""
    other = engine_elsewhere(engine, dsn, given, options)
    return None if other is None else (foreign_plan(other, qrels, run, measures, output, **options), other)


def engine_elsewhere(engine: str, dsn: str | None, given: dict[str, Any], options: dict[str, Any]) -> Engine | None:
    """The engine other than DuckDB that ``engine`` (or a session, context or connection ``given``) names, started or
    connected to; None for DuckDB. What only DuckDB takes (``options``) is refused first."""
    chosen = engine if engine != "duckdb" else next((name for name, obj in given.items() if obj is not None), None)
    name = {"postgres": "PostgreSQL", "clickhouse": "ClickHouse", "sqlite": "SQLite", "datafusion": "DataFusion",
            "spark": "Spark"}.get(chosen)
    if name is None:
        return None
    refuse_duckdb_options(options, name)
    if name == "PostgreSQL":
        from .engines.postgres import PostgresEngine, connect

        return PostgresEngine(connect(dsn))
    if name == "ClickHouse":
        from .engines.clickhouse import ClickHouseEngine, chdb_session

        return ClickHouseEngine(chdb_session())
    if name == "SQLite":
        from .engines.sqlite import open_engine

        return open_engine(given["sqlite"])
    if name == "DataFusion":
        from .engines.datafusion import DataFusionEngine, session_context

        return DataFusionEngine(session_context(given["datafusion"]))
    from .engines.spark import SparkEngine, local_session

    return SparkEngine(given["spark"] or local_session())


def render(qrels: Any, run: Any, measures: Any, per_query: bool = False, dialect: str = "duckdb",
           **options: Any) -> str:
    """The statement of an evaluation in a dialect, reading the inputs themselves (sqlrank.render)."""
    engine = session_options(options)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        output = "per_query" if per_query else "summary"
        return plan(qrels, run, measures, output, con, registry, dialect=dialect, **options).text


ELSEWHERE = ("engine", "spark", "dsn", "datafusion", "sqlite")
JUDGMENT_OPTIONS = ("qrels_format", "qrels_columns", "prefer", "combine")


def held(judgments: Judged, con, registry) -> Judged:
    """Judgments as they were checked, held in a copy of the Evaluator's: a file, table or DataFrame read in place
    would be read again by each run's statement, and a change made to it since (a document judged twice now) would
    reach the numbers unchecked."""
    source = judgments.source
    if source.table is not None or judgments.judgments is not None or judgments.intents is not None:
        return judgments  # read once already, or made of sources that are (merged, per subtopic)
    return replace(judgments, source=read_once(source, con, registry))


def _close_in(pid: int, stack: ExitStack) -> None:
    """Close what an Evaluator holds, in the process that made it only (a fork's copy is left alone)."""
    if os.getpid() == pid:
        stack.close()


class Evaluator:
    """Judgments and measures prepared once, for many runs: ``Evaluator(qrels, measures, **options)`` reads
    and checks the judgments, resolves the measures and conventions and opens a DuckDB connection of its
    own; ``evaluate(run)`` returns what ``sqlrank.evaluate(qrels, run, measures, **options)`` returns,
    costing what the run costs (its statement is rendered once per process). ``close()``, or the end of
    a ``with`` block, frees the judgments and the connection. One call at a time (a lock holds others)."""

    def __init__(self, qrels: Any, measures: Any, *, strict: bool = False, **options: Any):
        check_options(options)
        given = [name for name in ELSEWHERE if options.get(name) not in (None, "duckdb")]
        if given:
            raise OptionError(f"an Evaluator evaluates in DuckDB; for {given[0]}= call sqlrank.evaluate")
        for name in ELSEWHERE:
            options.pop(name, None)
        resources = session_options(options)
        self._stack, self._theirs = ExitStack(), resources.get("connection")  # a relation as the result: theirs
        self._con, self._registry = self._stack.enter_context(session(resources.pop("connection", None), kept=False,
                                                                      **resources))
        self._pid = os.getpid()  # a forked child has a copy of the connection that is not its own (fork-unsafe)
        self._closing = weakref.finalize(self, _close_in, self._pid, self._stack)  # also when dropped unclosed
        try:
            conventions = {k: v for k, v in options.items() if k in FIELD_NAMES or k == "preset"}
            self._judged = prepared(held(judged(qrels, measures, self._con, self._registry,
                                                **{k: options.pop(k) for k in JUDGMENT_OPTIONS if k in options},
                                                **conventions), self._con, self._registry), self._con, self._registry)
        except BaseException:
            self.close()
            raise
        self._measures, self._options, self._strict = measures, options, strict
        self._memo: dict = {}  # what the checks found of the judgments (diagnostics.remembered)
        self._lock = threading.Lock()

    def evaluate(self, run: Any, per_query: bool = False, output: str | None = None):
        """The run (a file, DataFrame, relation or table name; a list or dict of them: several runs) evaluated
        against the judgments: a DataFrame as sqlrank.evaluate returns it. The run is read, checked and let go
        of in each call; the judgments stay."""
        if os.getpid() != self._pid:  # forked: the lock may be held by a thread the child does not have
            raise OptionError("this Evaluator was made in another process (this one is a fork of it): its DuckDB "
                              "connection and lock are that process's; make a new Evaluator in this one")
        with self._lock:
            if not self._closing.alive:
                raise OptionError("this Evaluator is closed; make a new one to evaluate more runs")
            mark = self._registry.mark()
            try:
                p = plan(self._judged, run, self._measures, "both" if per_query else "summary", self._con,
                         self._registry, defer=True, **self._options)
                result = run_plan(p, DuckDBEngine(self._con), per_query, self._memo)
            finally:
                self._registry.release(mark)
        from .results.kinds import converted, output_kind

        return converted(framed(checked(result, self._strict), per_query), output_kind(output, run), self._theirs)

    @property
    def measures(self) -> list[str]:
        """The measures evaluated, by the names results give them (the names asked by where those differ)."""
        return [m.shown for m in self._judged.measures]

    def close(self) -> None:
        """Let go of the judgments and close the connection (none of the caller's: a connection= given stays
        open, as it was found). Closing twice does nothing."""
        self._closing()

    def __enter__(self) -> "Evaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
