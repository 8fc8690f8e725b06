"""Diagnostics of every evaluation: the guards that stop one before it gives a wrong number (labels
beyond a measure's bound) and the warnings after it (queries on one side, ids that differ only
unseen, ties across a cutoff, segments without queries). ``sqlrank check`` (diagnosing/check.py)
reports the same findings and more."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import duckdb

from .engines.base import Engine, Rows
from .errors import InputError, duckdb_reason
from .inputs.ids import NEAR, near_documents, near_examples, near_query_ids
from .inputs.validate import deferred_pass
from .measures.registry import FAMILIES
from .plan import Plan
from .progress import step
from .rendering.dialects import DUCKDB, Dialect
from .rendering.sqltext import call_macro, render_slice


@dataclass(frozen=True)
class Guarded:
    """What the guards before an evaluation found: warnings of queries on one side only, and how
    many queries are evaluated."""

    warnings: list[str]
    num_queries: int
    left_out: int | None = None  # the run's queries with a ranking that are not evaluated (None: not counted)
    ties: tuple | None = None  # on DuckDB, the tie pass's row (count_ties), read in the same statement


def guard(p: Plan, engine: Engine, memo: dict | None = None, found: dict | None = None) -> Guarded:
    """Before the statement runs, on its engine: the queries on one side only (a warning each, or an
    error when no query is left) and judgments above a measure's label bound (an error). ``memo`` keeps what
    is found of the judgments alone for the next run against the same ones (an Evaluator's). ``found``: the run's
    checks as the statement read them (statement_checks), after it ran, in place of a statement of their own."""
    dialect = engine.dialect
    qrels_sql = p.qrels.sql() if dialect is DUCKDB else p.qrels.source_sql(dialect)
    run_sql = run_queries_sql(p.run.sql() if dialect is DUCKDB else p.run.source_sql(dialect), p.run.per_run, dialect)
    fetch_one = (lambda sql: found["overlap"]) if found else engine.one
    with step(getattr(engine, "connection", None), "looking for queries on one side only"):
        warnings, num_queries, left_out = query_overlap(p, fetch_one, best_labels_sql(p, dialect, qrels_sql), run_sql,
                                                        dialect)
        require_labels_within_limits(p, engine.one, qrels_sql, dialect, memo)
    return Guarded(warnings, num_queries, left_out, found.get("ties") if found else None)


def best_labels_sql(p: Plan, dialect: Dialect, qrels_sql: str) -> str:
    """What the guards read of the judgments: each query's highest label where an Evaluator made it once (a table of
    its prepared steps), else the judgments themselves (the checks take the highest label of each query)."""
    best = {step: table for step, table, _ in p.statement.prepared}.get("best_labels") if dialect is DUCKDB else None
    return f"SELECT query_id, relevance FROM {DUCKDB.ident(best)}" if best else qrels_sql


# The parts of the run's checks a statement reads with its values: (name, the letter of its columns).
CHECK_PARTS = (("validation", "v"), ("overlap", "o"), ("ties", "t"))


def statement_checks(p: Plan, engine: Engine) -> str | None:
    """SQL of one row of the run's checks for the statement to read with its values on DuckDB (one statement, not
    three): validation's pass where it was left to it (Source.deferred), the guard's overlap of the queries, the tie
    pass up to SHALLOW; columns v0.., o0.., t0... None where it cannot (another engine, slices, per-query rows alone,
    a query table, judgment groups)."""
    if engine.dialect is not DUCKDB or p.slices != 1 or p.statement.output not in ("summary", "both") \
            or p.listed is not None or p.qrels.groups:
        return None
    cutoffs, plain = tie_cutoffs(p), plain_runs_sql(p.run)
    queries = f"SELECT query_id FROM ({plain}) AS runs" if plain else run_queries_sql(p.run.sql(), p.run.per_run, DUCKDB)
    ties = _ties_sql(plain or p.run.sql(), cutoffs, longest=True, key="run_key, query_id" if plain else "query_id")
    parts = [deferred_pass(p.run) if p.run.deferred else None,
             (call_macro(DUCKDB, "checks.sql", "overlap", best_labels_sql(p, DUCKDB, p.qrels.sql()), queries,
                         int(p.conventions.rel)), 9),
             (ties, 2 + len(cutoffs)) if cutoffs and max(cutoffs) <= SHALLOW else None]
    return "SELECT *\nFROM " + ",\n     ".join(
        f"({sql}) AS {name}({', '.join(f'{letter}{i}' for i in range(width))})"
        for (name, letter), part in zip(CHECK_PARTS, parts) if part for sql, width in [part])


def plain_runs_sql(run) -> str | None:
    """Runs stored together in a table, frame or relation, as (run_key, query_id, score) rows read from it directly,
    for the checks that key each query by its run: two columns grouped, not the run || chr(31) || query text each
    row of the typed run builds (at 200 runs x 5,000 rows, 13 ms where the built key takes 25). None for any other
    run (a copy of a file, one run, a run whose rows are filtered or derived, scores from ranks)."""
    if not run.per_run or run.format not in ("dataframe", "relation", "table") or run.table is not None \
            or run.seen is not None or run.derived or run.score_from_rank or run.run_from_file:
        return None
    column = {name: DUCKDB.ident(run.columns[name]) for name in ("run_id", "query_id", "score")}
    return (f"SELECT CAST({column['run_id']} AS VARCHAR) AS run_key, CAST({column['query_id']} AS VARCHAR) AS query_id, "
            f"CAST({column['score']} AS DOUBLE) AS score FROM {run.reader}")


def checked_rows(table: Rows) -> tuple[Rows, dict]:
    """The statement's rows without the run's checks, and the checks (statement_checks), by part: {name: row}."""
    at = table.columns.index("checks")
    found = next((row[at] for row in table.rows if row[at] is not None), None)
    rows = Rows(table.columns[:at] + table.columns[at + 1:], [row[:at] + row[at + 1:] for row in table.rows])
    if found is None:
        return rows, {}  # no summary row (runs stored together, none evaluated): the guards read their own
    parts = {name: tuple(value for key, value in found.items() if key[0] == letter) for name, letter in CHECK_PARTS}
    return rows, {name: values for name, values in parts.items() if values}


def warn(p: Plan, engine: Engine, table: Rows, guarded: Guarded, memo: dict | None = None) -> list[str]:
    """After the statement ran: every warning of the evaluation (the inputs', the guards', and on
    DuckDB the data-quality findings that can change a number); values that are no number are an error, on
    every engine."""
    warnings = [*p.qrels.warnings, *p.run.warnings, *guarded.warnings]
    require_finite(table)
    if engine.dialect is not DUCKDB:
        return warnings + engine_warnings(p, engine, memo)
    if p.segments is not None:
        warnings += segment_warnings(p, engine.connection)
    with step(engine.connection, "looking for ties across the cutoffs and ids that almost match"):
        return warnings + data_warnings(p, engine.connection, bool(guarded.warnings), memo, guarded.ties)


def engine_warnings(p: Plan, engine: Engine, memo: dict | None = None) -> list[str]:
    """On an engine other than DuckDB, in its own SQL: the ties across the requested cutoffs and the judged queries
    without a relevant document, as data_warnings finds them on DuckDB (the near-matching ids: sqlrank check)."""
    dialect, warnings = engine.dialect, []
    cutoffs = tie_cutoffs(p)
    if cutoffs:
        warnings += tie_warnings(p, cutoffs, engine.one(call_macro(dialect, "checks.sql", "ties_across",
                                                                   p.run.source_sql(dialect), cutoffs)))
    qrels_sql = p.qrels.source_sql(dialect)
    for rel in no_relevant_levels(p):
        found = remembered(memo, ("no_relevant", qrels_sql, rel),
                           lambda: engine.one(call_macro(dialect, "checks.sql", "no_relevant", qrels_sql, rel)))
        warnings += no_relevant_warning(rel, *found)
    return warnings


def tie_cutoffs(p: Plan) -> list[int]:
    """The rank cutoffs of the measures whose top k a tie across k changes (not under tie_break=expected or block)."""
    return sorted({int(m.cutoff) for m in p.measures
                   if isinstance(m.cutoff, int) and not isinstance(m.cutoff, bool)
                   and m.param("tie_break") not in ("expected", "block") and FAMILIES[m.family].cutoff_kind == "rank"})


def tie_warnings(p: Plan, cutoffs: list[int], counts) -> list[str]:
    """A warning per cutoff with queries tied across it (``counts``: how many, per cutoff)."""
    same = "rank in the run's rank column" if p.run.score_from_rank else "score"
    return [f"in {count} {'query' if count == 1 else 'queries'} the documents at ranks {k} and {k + 1} have the same "
            f"{same}, so @{k} values depend on the tie-break ({p.conventions.tie_break}; see --tie-break)"
            for k, count in zip(cutoffs, counts) if count]


def no_relevant_levels(p: Plan) -> list[int]:
    """The level whose queries without a relevant judgment are warned about: the lowest rel of the measures that score
    such a query (AUC has no value there, and says so), under no_relevant=zero."""
    rels = sorted({int(m.param("rel")) for m in p.measures
                   if m.param("rel") is not None and m.spec.scores_no_relevant})
    return rels[:1] if p.conventions.no_relevant == "zero" else []


def no_relevant_warning(rel: int, count: int, example: Any, queries: int) -> list[str]:
    if not count:
        return []
    return [f"{count} of {queries} judged queries have no document labelled >= {rel}, e.g. {example!r}; measures "
            f"that divide by the relevant documents are 0 there (no_relevant=skip leaves them out, as recommender "
            f"libraries do)"]


def require_finite(table: Rows) -> None:
    """A value that is infinite or NaN comes from gains beyond a double (2^label - 1 for labels of
    1,024 and more, or a gain map's sums): an error, never an empty or infinite number."""
    at = table.columns.index("value")
    for row in table.rows:
        value = row[at]
        if value is not None and not math.isfinite(value):
            record = dict(zip(table.columns, row))
            query = f" for query {record['query_id']!r}" if record.get("query_id") is not None else ""
            raise InputError(
                f"{record.get('measure')}{query} is {value}, not a number: its gains overflow a double "
                f"(gain=exponential, 2^label - 1, is finite for labels up to 1023; a gain map's gains must sum to "
                f"less than 1.8e308); use gain=linear, a smaller gain map, or smaller labels")


def remembered(memo: dict | None, key: tuple, find):
    """find(), or what it found before under ``key`` in ``memo`` (None: found again each time)."""
    if memo is None:
        return find()
    if key not in memo:
        memo[key] = find()
    return memo[key]


def first_row(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple:
    return con.execute(sql, params or []).fetchall()[0]


SHALLOW = 100  # cutoffs up to this keep a (k + 1)-score heap per query in the counting pass itself


class Ties(NamedTuple):
    counts: list[int]  # per cutoff, the queries with a tie across it
    rows: int  # the run's rows, counted on the way


def count_ties(con, run_sql: str, cutoffs: list[int], slices: int = 1, first: tuple | None = None) -> Ties:
    """Per cutoff k, the queries whose documents at ranks k and k + 1 have the same score (so that
    which documents are in the top k depends on the tie-break). No sort: one pass per slice of
    queries (as the evaluation itself is sliced when the run is larger than memory) counts each
    query's documents and keeps its k + 1 highest scores (DuckDB's max(score, n)) for the cutoffs
    up to SHALLOW; a deeper cutoff takes a second pass, and only when some query is longer than it
    (no rank k + 1, no tie across k). ``first``: the first pass's row, read already (guard reads it with its own)."""
    shallow = [int(k) for k in cutoffs if k <= SHALLOW]
    found = dict.fromkeys(cutoffs, 0)
    total = 0
    for index in range(slices):
        rows = run_sql if slices == 1 else render_slice(run_sql, slices, index)
        longest, count_rows, *counts = first or first_row(con, _ties_sql(rows, shallow, longest=True))
        total += count_rows or 0
        deep = [int(k) for k in cutoffs if k > SHALLOW and longest is not None and k < longest]
        if deep:
            counts += first_row(con, _ties_sql(rows, deep))
        for k, count in zip(shallow + deep, counts):
            found[k] += count
    return Ties([found[k] for k in cutoffs], total)


def _ties_sql(rows: str, cutoffs: list[int], longest: bool = False, key: str = "query_id") -> str:
    totals = (["max(n)", "sum(n)"] if longest else []) + [
        f"count(*) FILTER (WHERE len(top) > {k} AND top[{k}] = top[{k + 1}])" for k in cutoffs]
    per_query = ["count(*) AS n"] + ([f"max(score, {max(cutoffs) + 1}) AS top"] if cutoffs else [])
    return (f"SELECT {', '.join(totals)} FROM (SELECT {', '.join(per_query)} FROM ({rows}) AS run "
            f"GROUP BY {key}) AS per_query")


def no_relevant(con, qrels_sql: str, rel: int) -> tuple[int, str | None, int]:
    """Judged queries with no document labelled >= rel: (how many, an example, of how many); the query every
    engine runs (checks.sql), on DuckDB."""
    return first_row(con, call_macro(DUCKDB, "checks.sql", "no_relevant", qrels_sql, rel))


# What no_relevant=error says of the queries without a relevant judgment, and the other choices.
_NO_RELEVANT_ERROR = "(no_relevant=error); score them 0 (no_relevant=zero), 1 (one) or leave them out (skip)"


def query_overlap(p: Plan, fetch_one, qrels_sql: str, run_sql: str,
                  dialect: Dialect) -> tuple[list[str], int, int | None]:
    """Which queries are on one side only (a warning each), in a portable query run by ``fetch_one`` (the
    engine the statement runs on); how many queries are evaluated, and how many of the run's are not."""
    if p.listed is not None:
        return *listed_overlap(p, fetch_one, qrels_sql, run_sql, dialect), None
    rel = int(p.conventions.rel)
    both, qrels_only, run_only, example_qrels, example_run, both_none, qrels_only_none, *none_examples = fetch_one(
        call_macro(dialect, "checks.sql", "overlap", qrels_sql, run_sql, rel))
    c = p.conventions
    zero = c.missing_queries == "zero"
    if c.no_relevant == "error" and (both_none or (zero and qrels_only_none)):
        raise InputError(f"{both_none + (qrels_only_none if zero else 0)} evaluated queries have no judgment >= {rel} "
                         f"in the qrels ({p.qrels.label}), e.g. {(none_examples[0] or none_examples[1])!r} "
                         f"{_NO_RELEVANT_ERROR}")
    # run queries without judgments: judged by unjudged_label, or scored 0 with unjudged_queries=zero
    labelled = c.unjudged_label is not None and (c.no_relevant == "zero" or c.unjudged_label >= rel)
    run_scored = labelled or (c.unjudged_queries == "zero" and c.no_relevant == "zero")
    if c.no_relevant == "skip":  # queries without a relevant judgment are not evaluated
        both, qrels_only = both - both_none, qrels_only - qrels_only_none
    evaluated = both + (qrels_only if zero else 0) + (run_only if run_scored else 0)
    if evaluated == 0:
        if example_qrels is not None and example_run is not None:
            raise InputError(
                f"no query is in both the qrels ({p.qrels.label}) and the run ({p.run.label}): qrels queries look like "
                f"{example_qrels!r}, run queries like {example_run!r}; ids are compared as exact strings "
                f"('01' is not '1')")
        empty = [source for source, example in ((p.qrels, example_qrels), (p.run, example_run)) if example is None]
        remedy = ("" if len(empty) == 2 else
                  "; with missing_queries=zero (-c) the judged queries score 0" if empty[0] is p.run else
                  "; with unjudged_queries=zero the run's queries score 0")
        raise InputError(f"nothing to evaluate: {' and '.join(f'the {s.kind} ({s.label})' for s in empty)} "
                         f"{'has' if len(empty) == 1 else 'have'} no data rows{remedy}")
    warnings = []
    if qrels_only:
        action = "scored 0 (missing_queries=zero)" if zero else "skipped (missing_queries=skip; use zero to score them 0)"
        warnings.append(f"{qrels_only} qrels queries have no results in the run and are {action}, "
                        f"e.g. {example_qrels!r}")
    if run_only:
        action = (f"judged {c.unjudged_label} throughout (unjudged_label)" if labelled else
                  "scored 0 (unjudged_queries=zero)" if run_scored else
                  "ignored (unjudged_queries=skip; use zero to score them 0)")
        warnings.append(f"{run_only} run queries have no judgments and are {action}, e.g. {example_run!r}")
    left_out = (0 if run_scored else run_only) + (both_none if c.no_relevant == "skip" else 0)
    return warnings, evaluated, left_out


def listed_overlap(p: Plan, fetch_one, qrels_sql: str, run_sql: str, dialect: Dialect) -> tuple[list[str], int]:
    """With a query table listing the queries: those it lists on neither side (scored 0), and the
    queries of either side it does not list (not evaluated); the number evaluated."""
    no_relevant, rel = p.conventions.no_relevant, int(p.conventions.rel)
    counted = "relevant" if no_relevant in ("skip", "error") else "listed"  # skip drops some, error refuses them
    listed, neither, example, run_out, run_example, qrels_out, qrels_example, evaluated = fetch_one(call_macro(
        dialect, "checks.sql", "listed_overlap", p.listed, qrels_sql, run_sql, rel, counted))
    if no_relevant == "error" and evaluated < listed:
        raise InputError(f"{listed - evaluated} queries of the query table have no judgment >= {rel} in the qrels "
                         f"({p.qrels.label}) {_NO_RELEVANT_ERROR}")
    if not evaluated:
        raise InputError("the query table lists no query" + (" with a relevant judgment (no_relevant=skip)" if listed else ""))
    warnings = []
    if neither:
        warnings.append(f"{neither} listed queries have neither results nor judgments and score 0, e.g. {example!r}")
    if run_out:
        warnings.append(f"{run_out} run queries are not in the query table and are not evaluated, e.g. {run_example!r}")
    if qrels_out:
        warnings.append(f"{qrels_out} judged queries are not in the query table and are not evaluated, e.g. "
                        f"{qrels_example!r}")
    return warnings, evaluated


def data_warnings(p: Plan, con: duckdb.DuckDBPyConnection, one_sided: bool, memo: dict | None = None,
                  first: tuple | None = None) -> list[str]:
    """The data-quality warnings that can change this evaluation's numbers and are cheap to find
    (sqlrank check finds all): ties across the requested cutoffs, query ids that match only after
    removing white space or leading zeros, queries without a relevant document. If a check
    itself runs out of resources, that is a warning too: the values are computed already."""
    warnings = []
    qrels_sql, run_sql = p.qrels.sql(), p.run.sql()
    cutoffs = tie_cutoffs(p)
    try:
        kept = None  # the run's rows as evaluated, when the tie check counts them
        if cutoffs:
            ties = count_ties(con, run_sql, cutoffs, p.slices, first)
            kept = ties.rows
            warnings += tie_warnings(p, cutoffs, ties.counts)
        if one_sided and not p.run.per_run:
            near, example = near_query_ids(con, qrels_sql, run_sql)
            if near:
                warnings.append(f"{near} run query ids match a judged query only after removing {NEAR}, e.g. "
                                f"{near_examples(example)}; ids are compared exactly, so they are not evaluated "
                                f"together")
        if not p.run.per_run and not (p.qrels.odd_ids == 0 and p.run.odd_ids == 0):  # validation counted none
            near, example = near_documents(con, qrels_sql, run_sql, every_run_id=False)
            if near:
                warnings.append(f"{near} document ids of the run match a judged document of their query only after "
                                f"removing {NEAR}, e.g. {near_examples(example)}; ids are compared exactly, so they "
                                f"count as unjudged")
        if p.run.seen is not None and p.run.rows:
            if kept is None:
                kept = con.execute(f"SELECT count(*) FROM ({run_sql}) AS run").fetchall()[0][0]
            if kept == p.run.rows:
                warnings.append(f"remove-seen left out no prediction: none of the run's {kept} (user, item) pairs is "
                                f"in the history; check that both write user and item ids alike")
        for rel in no_relevant_levels(p):
            found = remembered(memo, ("no_relevant", qrels_sql, rel), lambda: no_relevant(con, qrels_sql, rel))
            warnings += no_relevant_warning(rel, *found)
    except duckdb.Error as exc:
        warnings.append(f"the data checks after the evaluation did not finish ({duckdb_reason(exc)}); "
                        f"sqlrank check tells what they would have found")
    return warnings


def segment_warnings(p: Plan, con: duckdb.DuckDBPyConnection) -> list[str]:
    skip = p.conventions.missing_queries == "skip"
    outside, example = con.execute(f"""
        WITH evaluated AS (
            SELECT DISTINCT query_id FROM ({p.qrels.sql()}) AS qrels
            {"INTERSECT SELECT DISTINCT query_id FROM (" + p.run.sql() + ") AS run" if skip else ""}
        )
        SELECT count(*), min(query_id) FROM evaluated
        WHERE query_id NOT IN (SELECT query_id FROM ({p.segments}) AS segments)
    """).fetchall()[0]
    if not outside:
        return []
    return [f"{outside} evaluated queries have no segment in the query table (no row, or an empty value) "
            f"and count only in the overall row, e.g. {example!r}"]


def run_queries_sql(run_sql: str, per_run: bool, dialect: Dialect) -> str:
    """The run's rows with plain query ids (runs stored together key them run_id || chr(31) || query_id)."""
    if not per_run:
        return run_sql
    return f"SELECT {call_macro(dialect, '_macros/dialect.sql', 'after_separator', 'query_id')} AS query_id FROM ({run_sql}) AS runs"


def require_labels_within_limits(p: Plan, fetch_one, qrels_sql: str, dialect: Dialect,
                                 memo: dict | None = None) -> None:
    """Measures whose definition bounds the labels (the registry's label_limit: ERR's max_rel) refuse
    judgments above the bound rather than compute a number outside the measure's range; where a NaN is NULL
    (Dialect.nan_as_null), so do exponential gains beyond a double (on DuckDB: require_finite)."""
    limits = {m.shown: (m.spec.label_limit, m.param(m.spec.label_limit)) for m in p.measures if m.spec.label_limit}
    exponential = []
    if dialect.nan_as_null:  # a NaN is NULL there (SQLite): gains past a double's range would read back as no value
        for m in p.measures:
            gains = m.param("gain")
            if isinstance(gains, tuple) and max(abs(g) for _, g in gains) > 1e300:
                raise InputError(f"{m.shown}: a gain map's gains must sum to less than 1.8e308 in {dialect} (a NaN is "
                                 f"NULL there); give smaller gains")
        exponential = [m.shown for m in p.measures if m.param("gain") == "exponential"]
    if not limits and not exponential:
        return
    top = remembered(memo, ("top_label", qrels_sql), lambda: fetch_one(call_macro(dialect, "checks.sql", "top_label",
                                                                                  qrels_sql))[0])
    if exponential and top is not None and top >= 1024:
        raise InputError(f"{p.qrels.label}: a judgment has label {top}, whose exponential gain 2^label - 1 of "
                         f"{exponential[0]} overflows a double (finite for labels up to 1023); use gain=linear or "
                         f"smaller labels")
    label = p.conventions.unjudged_label
    for measure, (name, limit) in limits.items():
        if label is not None and label > limit:
            raise InputError(f"unjudged_label={label} is above {name}={limit} of {measure}; give a label of the "
                             f"scale, or the scale's highest label as {name}")
        if top is not None and top > limit:
            family = measure.split("(")[0].split("@")[0]
            raise InputError(f"{p.qrels.label}: a judgment has label {top}, above {name}={limit} of {measure}; give "
                             f"the highest label of the scale, as in {family}({name}={top})")
