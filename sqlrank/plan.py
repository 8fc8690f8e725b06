"""The planner: inputs located, measures and conventions resolved, the statement rendered.

``plan()`` does everything an evaluation needs but running it; an engine (``engine.DuckDBEngine``,
``spark.SparkEngine``) runs the plan, and ``evaluation.run_plan`` turns its rows into a Result.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

import duckdb

from .errors import InputError, OptionError
from .inputs.columns import require_exact_id
from .inputs.extra import EngineInputs, check_outside_catalog, extra_inputs_sql
from .inputs.load import load, load_table
from .inputs.source import ENGINE_TABLES, Source, named_columns
from .inputs.store import Registry
from .measures.conventions import Conventions, resolve_conventions
from .measures.measure import Measure
from .measures.registry import FAMILIES
from .measures.resolve import beyond_accuracy, check_tie_break, needed_inputs, resolve_measures
from .rendering.dialects import DIALECTS
from .rendering.dialects import dialect as sql_dialect
from .rendering.sqltext import call_macro, render_listed, render_segments, render_slice
from .rendering.statement import render_evaluation


def recommender_sql(measures: list[Measure], history: Any, items: Any, item_features: Any,
                    qrels: Source, run: Source, con: duckdb.DuckDBPyConnection, registry: Registry,
                    engine: EngineInputs | None = None, remove_seen: bool = False) -> dict | None:
    """SQL of the extra inputs the measures read (render_evaluation's ``recommender``), checked;
    None when no measure reads them and ``remove_seen`` (which reads the history) is off. With
    ``engine``, the SQL is the engine's: tables of its own are read and checked there, anything else
    is read and checked by DuckDB and copied in."""
    given = {"history": history, "items": items, "item_features": item_features}
    if not beyond_accuracy(measures):
        for name, value in given.items():
            if value is not None and not (name == "history" and remove_seen):
                also = " and by remove-seen" if name == "history" else ""
                raise OptionError(f"{name.replace('_', '-')} is read by the measures beyond accuracy (Coverage, Gini, "
                                  f"Novelty, AvgPop, TailPct, ILD, Serendipity){also}; none is asked for")
        if not remove_seen:
            return None
    for m in beyond_accuracy(measures):
        check_tie_break(m)  # what cannot be computed at all is said before what is missing
    needs = needed_inputs(measures)
    if remove_seen:
        needs["history"] = ["remove-seen"] + needs.get("history", [])
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
    sql = extra_inputs_sql(history, items, item_features, qrels, run, con, registry, engine)
    if "catalog" in needs:
        check_outside_catalog(needs["catalog"], sql, run, con, engine)
    return sql


MAX_SLICES = 1000


@dataclass
class Plan:
    """Inputs located and measures and conventions resolved: everything but the execution."""

    qrels: Source
    run: Source
    measures: list[Measure]
    conventions: Conventions
    sql: str  # the statement as executed here: it reads the inputs sqlrank read and validated once
    text: str  # the same statement reading the files themselves: what users print and run elsewhere
    slices: int = 1  # evaluate the queries in this many groups, one statement each (memory)
    segments: str | None = None  # SQL of (query_id, segment) rows when results are per segment
    listed: str | None = None  # SQL of the query ids a query table lists: exactly the evaluated queries
    render: Callable[..., str] | None = field(default=None, repr=False)  # (qrels_sql, run_sql, slice) -> statement
    summarize: Callable[[str], str] | None = field(default=None, repr=False)  # slices' table -> summary statement

    def slice_sql(self, index: int, with_counts: bool = False) -> str:
        """The per-query statement over the queries in slice ``index`` of ``slices``. With ``with_counts``,
        rows of (query_id, measure, value, doc_id): the per-query values (doc_id NULL), then, for the
        measures over all users' recommendations (Coverage, Gini, Entropy, Novelty), how often each
        item is in the slice's top k (query_id NULL; measure: the count's column)."""
        return self.render(self.qrels.sql(), self.run.sql(), index, with_counts)

    def summary_sql(self, table: str) -> str:
        """The per-query rows and the summary of an evaluation run in slices, whose rows (slice_sql with
        ``with_counts``) are in the table ``table``."""
        return self.summarize(table)


def plan(qrels: Any, run: Any, measures: Any, output: str, con: duckdb.DuckDBPyConnection,
         registry: Registry, *, qrels_format: str | None = None, run_format: str | None = None,
         qrels_columns: Mapping[str, str] | None = None, run_columns: Mapping[str, str] | None = None,
         preset: str | None = None, slices: int | None = None, queries: Any = None, by: str | None = None,
         dialect: str = "duckdb", relstring_length: int = 10, history: Any = None, items: Any = None,
         item_features: Any = None, remove_seen: bool = False, printable: bool = True,
         engine_inputs: EngineInputs | None = None, **conventions: Any) -> Plan:
    """Everything an evaluation needs but running it. ``qrels`` may be a Source loaded before
    (several runs against the same judgments read them once). With ``by``, results are per
    segment of the query table ``queries`` (output "segments"). Output "relstring" (trec_eval's
    relstring of each query's top ``relstring_length`` documents) takes no measures. Qrels read
    with judgment groups (trec_eval's -R qrels_jg) evaluate the run once per group. ``history``,
    ``items`` and ``item_features`` are the extra inputs of the recommender measures beyond
    accuracy (catalog.py), read where ``engine_inputs`` says on an engine other than DuckDB.
    ``remove_seen=True`` leaves each user's history items out of the run before it is ranked.
    ``printable=False`` skips rendering the statement that reads the files themselves (``text`` is
    then the executed one): for callers that never show it."""
    resolved_conventions = resolve_conventions(preset, **conventions)
    explicit = {k for k, v in conventions.items() if v is not None}
    resolved_measures = [] if output == "relstring" else resolve_measures(measures, resolved_conventions, preset,
                                                                            explicit)
    if by is not None:
        if output not in ("summary", "segments"):
            raise OptionError("results per segment (by=) are aggregates; they cannot be per query too")
        if slices not in (None, 1):
            raise OptionError("results per segment (by=) are computed in one statement; leave out slices=")
        output = "segments"
    qrels_source = qrels if isinstance(qrels, Source) else load(qrels, "qrels", con, registry, qrels_format,
                                                                  qrels_columns)
    run_source = run if isinstance(run, Source) else load(
        run, "run", con, registry, run_format, run_columns,
        allow_duplicates=resolved_conventions.duplicate_documents == "rows")
    segments = segments_sql(queries, by, con, registry, qrels_source, run_source)
    listed = listed_sql(queries, con, registry, qrels_source, run_source) if by is None else None
    if listed is not None and (run_source.per_run or qrels_source.groups or output == "relstring"):
        raise OptionError("a query table without by= lists the queries to evaluate: not with runs stored together, "
                          "judgment groups or relstrings")
    if any(m.param("tie_break") == "input_rank" for m in resolved_measures) and run_source.format not in ENGINE_TABLES:
        require_ranks(run_source, lambda sql: con.execute(sql).fetchall()[0], run_source.sql())
    by_run = run_source.per_run
    if by_run and slices not in (None, 1):
        raise OptionError("runs stored together (run_id) are evaluated in one statement; leave out slices=")
    if by_run and (segments is not None or qrels_source.groups):
        raise OptionError("runs stored together (run_id) are evaluated per run; segments and judgment groups "
                          "cannot be combined with them")
    reread = qrels_source.rescannable and run_source.rescannable
    extra = beyond_accuracy(resolved_measures)
    if extra:  # said before any extra input is read
        names = ", ".join(str(m) for m in extra)
        if dialect != "duckdb" and engine_inputs is None:
            raise OptionError(f"{names}: the measures beyond accuracy read their extra inputs (history, items, item "
                              f"features) where sqlrank runs the statement: in DuckDB, or on the engine named with "
                              f"--engine; a printed {dialect} statement cannot read them")
        if qrels_source.groups:
            raise OptionError(f"{names}: the measures beyond accuracy take each run whole: not with judgment groups")
        pooled = [str(m) for m in extra if "pooled" in FAMILIES[m.family].reads]
        if pooled and slices not in (None, 1):
            raise OptionError(f"{', '.join(pooled)}: one ROC curve over the documents of every query is computed in "
                              f"one statement; leave out slices=")
    weighted = [str(m) for m in resolved_measures if m.spec.aggregate == "weighted"]
    if weighted and slices not in (None, 1):
        raise OptionError(f"{', '.join(weighted)}: a mean that weighs each query is computed in one statement; "
                          f"leave out slices=")
    if not isinstance(remove_seen, bool):
        raise OptionError(f"remove_seen={remove_seen!r} must be True or False")
    if remove_seen:
        if dialect != "duckdb" and engine_inputs is None:
            raise OptionError(f"remove-seen reads the history where sqlrank runs the statement: in DuckDB, or on the "
                              f"engine named with --engine; a printed {dialect} statement cannot read it")
    recommender = recommender_sql(resolved_measures, history, items, item_features, qrels_source, run_source, con,
                                  registry, engine_inputs if dialect != "duckdb" else None, remove_seen)
    if remove_seen:  # every reader of the typed run (the statement, the checks after it) reads it without them
        run_source = replace(run_source, seen=recommender["history"])
    if not extra:
        recommender = None  # the history of remove-seen is read in the run's SQL, not as the measures' inputs

    def statement(qrels_sql: str, run_sql: str, slice_index: int | None = None, with_counts: bool = False) -> str:
        if qrels_source.groups:  # a slice holds whole judgment groups: sliced after the run is keyed by group
            run_sql = call_macro("_macros/inputs.sql", "run_per_group", run_sql).strip()
        listed_queries = listed
        if slice_index is not None:
            qrels_sql, run_sql = (render_slice(sql, p_slices, slice_index) for sql in (qrels_sql, run_sql))
            if listed_queries is not None:
                listed_queries = render_slice(listed_queries, p_slices, slice_index)
        return render_evaluation(qrels_sql, run_sql, resolved_measures, resolved_conventions,
                                 output if slice_index is None else "slice" if with_counts else "per_query",
                                 relstring_length, segments_sql=segments, by_run=by_run, reread_inputs=reread,
                                 recommender=recommender, listed_sql=listed_queries)

    def summary(table: str) -> str:
        return render_evaluation("", "", resolved_measures, resolved_conventions,
                                 "slices" if output == "both" else "slices_summary", slices_table=table,
                                 recommender=recommender)

    p_slices = check_slices(slices)

    sql = statement(qrels_source.sql(), run_source.sql())
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    if listed is not None and dialect != "duckdb":
        raise OptionError("a query table (queries=) is read by DuckDB: its statement cannot be printed for "
                          f"{dialect}; evaluate it here, or give the engine's own tables")
    if printable or dialect != "duckdb":
        with sql_dialect(dialect):
            text = statement(qrels_source.source_sql(), run_source.source_sql())
    else:
        text = sql
    return Plan(qrels_source, run_source, resolved_measures, resolved_conventions, sql, text, p_slices, segments,
                listed, statement, summary)


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


def require_ranks(run: Source, fetch_one, run_sql: str) -> None:
    """tie_break=input_rank needs an integer rank on every row of the run (``fetch_one`` runs a query
    on the engine that reads ``run_sql``)."""
    missing = fetch_one(f"SELECT count(*) FILTER (WHERE input_rank IS NULL), count(*) FROM ({run_sql}) AS run")
    if missing[0] == missing[1]:
        raise InputError(f"{run.label}: tie_break=input_rank needs the run's rank column; TREC runs have it "
                         f"(column 4), tables need one named rank or mapped with run_columns={{'rank': ...}}")
    if missing[0]:
        raise InputError(f"{run.label}: {missing[0]} rows have no integer rank; tie_break=input_rank needs one "
                         f"on every row")
