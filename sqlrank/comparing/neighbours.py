"""An approximate nearest-neighbour search measured against exact search, without judgments (``sqlrank eval
--reference EXACT RUN -m Recall@10``): Recall@k by distances with a tolerance and DistanceRatio@k
(measures/neighbours.py), per query of the exact search and over all of them, computed by one statement
(sql/neighbours.sql) in any dialect, run by DuckDB here."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import InputError, OptionError
from ..evaluation import integer_ids
from ..inputs.load import load
from ..inputs.locate import declared_table
from ..inputs.source import INTEGER_TYPES, Source
from ..measures.neighbours import Neighbours, parse_neighbours
from ..rendering.dialects import DIALECTS, DUCKDB, Dialect
from ..rendering.sqltext import render_template
from .overlap import measure_lines, single_run

WHY = "the exact and the approximate search are single runs"
SMALLEST_TOTAL = 0.01  # ann-benchmarks' rel: below this sum of exact distances the ratio is infinite


def neighbours_sql(exact_sql: str, approximate_sql: str, measures: list[Neighbours], distances: bool,
                   dialect: Dialect = DUCKDB, summary: bool = False) -> str:
    """The statement: (query_id, measure, value, exact_sum, approximate_sum, position) per query of the exact
    search and measure; with ``summary`` (measure, value, queries) over the queries, as neighbours() gives them."""
    if not distances:
        relative = [str(m) for m in measures if m.epsilon is not None or m.family == "DistanceRatio"]
        if relative:
            raise OptionError(f"{', '.join(relative)}: relative to a distance; the scores are similarities (say "
                              f"--distances where they are distances, lower nearer), or use Recall(tolerance=X)@k")
    context = [{"family": m.family, "cutoff": m.cutoff, "tolerance": m.tolerance, "epsilon": m.epsilon,
                "column": f"measure_{i}", "name": m.shown} for i, m in enumerate(measures, 1)]
    ratios = [i for i, m in enumerate(measures, 1) if m.family == "DistanceRatio"]
    return render_template(dialect, "neighbours.sql", exact_sql=exact_sql, approximate_sql=approximate_sql,
                           distances=distances, cutoffs=list(dict.fromkeys(m.cutoff for m in measures)),
                           measures=context, summary=summary, ratios=ratios, smallest_total=SMALLEST_TOTAL)


def neighbours(reference: Any, run: Any, measures: Any, per_query: bool = False, distances: bool = False,
               run_format: str | None = None, run_columns: dict | None = None, dialect: str | None = None,
               **options: Any) -> pd.DataFrame:
    """The approximate search ``run`` against the exact search ``reference`` (two runs: query_id, doc_id and a
    score that is a similarity, or a distance with ``distances=True``): per query (query_id, measure, value) or
    over all queries (measure, value, queries): Recall's mean, DistanceRatio's ratio of the summed distances.
    ``attrs``: ``queries`` (those of the exact search), ``only_approximate`` (queries it lacks, left out),
    ``unanswered`` (queries of the exact search the approximate one did not answer),
    ``short`` (queries with fewer exact neighbours than the largest k: an error), ``sql``."""
    parsed, engine = parse_neighbours(measures), _engine(options)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        exact, approximate = _searches(reference, run, parsed, DUCKDB, con, registry, run_format, run_columns,
                                       distances)
        sql = neighbours_sql(exact.sql(), approximate.sql(), parsed, distances)
        rows = con.execute(sql).df()
        only, unanswered = (con.execute(f"SELECT count(*) FROM (SELECT DISTINCT query_id FROM ({a.sql()}) AS a EXCEPT "
                                        f"SELECT DISTINCT query_id FROM ({b.sql()}) AS b) AS x").fetchall()[0][0]
                            for a, b in ((approximate, exact), (exact, approximate)))
        printed = neighbours_sql(exact.source_sql(DIALECTS[dialect]), approximate.source_sql(DIALECTS[dialect]),
                                 parsed, distances, DIALECTS[dialect]) if dialect else sql
    for column in ("value", "exact_sum", "approximate_sum"):
        rows[column] = rows[column].astype(float)
    frame = rows[["query_id", "measure", "value"]].reset_index(drop=True) if per_query else _summary(rows, parsed)
    if per_query and exact.query_type in INTEGER_TYPES and approximate.query_type in INTEGER_TYPES:
        frame = integer_ids(frame)  # as evaluate gives them: integers, 2 before 10
    frame.attrs.update(queries=rows.query_id.nunique(), only_approximate=int(only), unanswered=int(unanswered),
                       sql=printed, distances=distances)
    return frame


def neighbours_statement(reference: Any, run: Any, measures: Any, per_query: bool = False, distances: bool = False,
                         dialect: str = "duckdb", run_format: str | None = None, run_columns: dict | None = None,
                         **options: Any) -> str:
    """The statement of neighbours() in ``dialect``, reading the two searches themselves (``sqlrank sql --reference``):
    files and DuckDB tables are read and checked here; for another dialect a name that is neither is a table of that
    database (columns query_id, doc_id, score, or as ``run_columns`` names them), read nowhere here."""
    parsed = parse_neighbours(measures)
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    target, engine = DIALECTS[dialect], _engine(options)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        exact, approximate = _searches(reference, run, parsed, target, con, registry, run_format, run_columns,
                                       distances)
        return neighbours_sql(exact.source_sql(target), approximate.source_sql(target), parsed, distances, target,
                              summary=not per_query)


def _engine(options: dict[str, Any]) -> dict[str, Any]:
    """The session's options; any other option is an error naming it."""
    engine = session_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of an evaluation against a reference search")
    return engine


def _searches(reference: Any, run: Any, parsed: list[Neighbours], target: Dialect, con, registry,
              run_format: str | None, run_columns: dict | None, distances: bool = False) -> tuple[Source, Source]:
    """The exact and the approximate search, each read and checked as a single run (the exact one deep enough for the
    largest cutoff); for another dialect than DuckDB a name that is no file and no table here is that database's
    table, read nowhere."""
    found, declared = [], []
    for search in (reference, run):
        if target is not DUCKDB:
            search = declared_table(search, "run", con, run_columns, None)
        declared.append(isinstance(search, Source))
        found.append(search if declared[-1] else
                     single_run(load(search, "run", con, registry, run_format, run_columns, ranks=False), WHY))
    if not declared[0]:
        _require_depth(con, found[0], max(m.cutoff for m in parsed))
    relative = [m.shown for m in parsed if m.epsilon is not None or m.family == "DistanceRatio"]
    for search, given in zip(found, declared):
        if distances and relative and not given:
            _require_distances(con, search, relative)
    return found[0], found[1]


def _require_distances(con, search: Source, relative: list[str]) -> None:
    """Distances are >= 0: a negative one (an inner-product index's score, a similarity) makes Recall(epsilon=)'s
    bound d_k (1 + epsilon) nearer than d_k (a search against itself scored 0.83) and DistanceRatio's sums
    meaningless."""
    negative, example = con.execute(f"SELECT count(*), min(query_id) FROM ({search.sql()}) AS s "
                                    f"WHERE score < 0").fetchall()[0]
    if negative:
        raise InputError(f"{search.label}: {negative} distances are negative (e.g. in query {example!r}), and "
                         f"{', '.join(relative)} are relative to a distance >= 0; an inner-product index gives "
                         f"similarities: leave out --distances (distances=False), and use Recall@k or "
                         f"Recall(tolerance=X)@k")


def _summary(rows: pd.DataFrame, measures: list[Neighbours]) -> pd.DataFrame:
    """Recall: the mean over queries; DistanceRatio: the approximate distances' total over the exact ones'
    (infinite below SMALLEST_TOTAL, as ann-benchmarks' rel)."""
    out = []
    for m in measures:
        mine = rows[rows.measure == m.shown]
        if m.family == "Recall":
            value = float(mine.value.mean())
        else:
            total = float(mine.exact_sum.sum())
            value = math.inf if total < SMALLEST_TOTAL else float(mine.approximate_sum.sum()) / total
        out.append({"measure": m.shown, "value": value, "queries": int(mine.value.notna().sum())})
    return pd.DataFrame(out, columns=["measure", "value", "queries"])


def _require_depth(con, exact: Source, depth: int) -> None:
    """Every query of the exact search has at least ``depth`` neighbours (the k-th exact distance is the bound)."""
    short, example = con.execute(f"SELECT count(*), min(query_id) FROM (SELECT query_id FROM ({exact.sql()}) AS e "
                                 f"GROUP BY query_id HAVING count(*) < {depth}) AS short").fetchall()[0]
    if short:
        raise InputError(f"{exact.label}: {short} queries have fewer than {depth} exact neighbours (e.g. {example!r}); "
                         f"Recall@{depth} reads the {depth}-th exact distance: search the reference to depth {depth}")


def neighbours_text(frame: pd.DataFrame, per_query: bool) -> str:
    """The measures as the command line prints them."""
    scores = "distances (lower is nearer)" if frame.attrs["distances"] else "similarities (higher is nearer)"
    left, unanswered = frame.attrs["only_approximate"], frame.attrs["unanswered"]
    ratios = any(name.lower().startswith("distanceratio") for name in frame.measure)
    return "\n".join([*measure_lines(frame, per_query), "", f"queries: {frame.attrs['queries']} of the reference" + (
        f" ({left} only in the approximate search: not evaluated)" if left else "") + (
        f" ({unanswered} not answered by the approximate search: Recall 0" + (
            "; DistanceRatio infinite: ann-benchmarks pads a missing answer with infinite distances"
            if ratios else "") + ")" if unanswered else "") + f"; scores: {scores}",
        "Recall: the approximate top k within the k-th reference distance plus the tolerance (1e-3 unless given), "
        "over k; DistanceRatio: the approximate top k's distances summed over the reference's", ""])
