"""How alike two rankings of the same queries are, without judgments (``sqlrank overlap``): RBO,
Jaccard, Overlap, Kendall's tau-b and tau_AP (measures/similarity.py), per query and their mean over
the queries with a value, computed by DuckDB in one statement (sql/overlap.sql) over the queries both
runs hold."""
from __future__ import annotations

import math

from typing import Any

import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import InputError, OptionError
from ..evaluation import integer_ids
from ..inputs.load import load
from ..inputs.source import INTEGER_TYPES, Source
from ..measures.similarity import Similarity, parse_similarities
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import render_template
from ..results.formats import aligned_lines, number_text

# How ties in scores are broken before the top k is taken (and for RBO, tau_AP and the sets): trec_eval's
# (document id descending), doc_id_asc, or the runs' own rank column (input_rank).
TIE_BREAKS = ("trec_eval", "doc_id_asc", "input_rank")


def overlap_sql(a_sql: str, b_sql: str, measures: list[Similarity], tie_break: str = "trec_eval") -> str:
    """The statement: (query_id, measure, value) rows per query both runs hold, in measure order."""
    if tie_break not in TIE_BREAKS:
        raise OptionError(f"tie_break={tie_break!r}: the rankings compared are strict orders; choose "
                          f"{', '.join(TIE_BREAKS)}")
    cutoffs = list(dict.fromkeys(m.cutoff for m in measures))
    persistence: dict[int | None, list[float]] = {}
    for m in measures:
        if m.family == "RBO":
            persistence.setdefault(m.cutoff, [])
            if m.p not in persistence[m.cutoff]:
                persistence[m.cutoff].append(m.p)
    context = [{"family": m.family, "cutoff": m.cutoff, "p": m.p, "kind": m.kind, "denominator": m.denominator,
                "ref_k": m.ref_k, "column": f"measure_{i}", "name": str(m)} for i, m in enumerate(measures, 1)]
    return render_template(DUCKDB, "overlap.sql", a_sql=a_sql, b_sql=b_sql, order=DUCKDB.ranking_order(tie_break, "score"),
                           cutoffs=cutoffs, rbo_cutoffs=list(persistence), rbo_persistence=persistence,
                           given_ranks=tie_break == "input_rank",
                           # ln(1 - p) from log1p: computed from 1 - p in SQL it is 0 for p below 1e-16, and p's
                           # 1/p factor then turned the lost digits into RBO values of -2 or 0 instead of 0 and 1
                           rbo_ln_1m={p: math.log1p(-p) for ps in persistence.values() for p in ps if p < 1},
                           pair_cutoffs=[c for c in cutoffs if any(m.cutoff == c and m.family in ("Tau", "TauAP")
                                                                   for m in measures)],
                           measures=context)


def overlap(run_a: Any, run_b: Any, measures: Any, per_query: bool = False, tie_break: str = "trec_eval",
            run_format: str | None = None, run_columns: dict | None = None, **options: Any) -> pd.DataFrame:
    """Per query (``per_query=True``: query_id, measure, value) or the mean of each measure over the queries
    with a value (measure, value, queries). ``attrs``: ``queries`` compared, ``only_a`` and ``only_b`` the
    queries only one run holds (left out)."""
    parsed = parse_similarities(measures)
    engine = session_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of overlap")
    with session(engine.pop("connection", None), **engine) as (con, registry):
        a = _one_run(load(run_a, "run", con, registry, run_format, run_columns, ranks=tie_break == "input_rank"))
        b = _one_run(load(run_b, "run", con, registry, run_format, run_columns, ranks=tie_break == "input_rank"))
        sql = overlap_sql(a.sql(), b.sql(), parsed, tie_break)
        rows = con.execute(sql).df()
        only_a, only_b = con.execute(
            f"SELECT (SELECT count(*) FROM (SELECT DISTINCT query_id FROM ({a.sql()}) AS a EXCEPT "
            f"SELECT DISTINCT query_id FROM ({b.sql()}) AS b) AS x), (SELECT count(*) FROM (SELECT DISTINCT query_id "
            f"FROM ({b.sql()}) AS b EXCEPT SELECT DISTINCT query_id FROM ({a.sql()}) AS a) AS y)").fetchall()[0]
    compared = rows.query_id.nunique()
    if not compared:
        raise InputError(f"{a.label} and {b.label}: no query is in both runs; ids are compared as exact strings")
    rows["value"] = rows["value"].astype(float)
    if per_query:
        frame = rows.reset_index(drop=True)
        if a.query_type in INTEGER_TYPES and b.query_type in INTEGER_TYPES:
            frame = integer_ids(frame)  # as evaluate gives them: integers, 2 before 10
    else:
        names = [str(m) for m in parsed]
        grouped = rows.groupby("measure", sort=False)["value"]
        frame = pd.DataFrame({"measure": names, "value": [grouped.mean()[n] for n in names],
                              "queries": [int(grouped.count()[n]) for n in names]})
    frame.attrs.update(queries=compared, only_a=int(only_a), only_b=int(only_b), sql=sql)
    return frame


def _one_run(source: Source) -> Source:
    return single_run(source, "overlap compares two single runs")


def single_run(source: Source, why: str) -> Source:
    """One run, not runs stored together (``why`` says who needs one)."""
    if source.per_run:
        raise InputError(f"{source.label}: holds several runs (a run_id column); {why}: give each as its own input")
    return source


def measure_lines(frame: pd.DataFrame, per_query: bool) -> list[str]:
    """Measures of two rankings as a table: a column per measure and a row per query, or (measure, value, queries)."""
    if per_query:
        wide = frame.pivot(index="query_id", columns="measure", values="value")[list(dict.fromkeys(frame.measure))]
        header = ["query_id", *wide.columns]
        rows = [[str(q), *(number_text(v) for v in values)] for q, values in zip(wide.index, wide.to_numpy())]
    else:
        header = ["measure", "value", "queries"]
        rows = [[m, number_text(v), str(n)] for m, v, n in frame[["measure", "value", "queries"]].itertuples(index=False)]
    return aligned_lines(header, rows)


def overlap_text(frame: pd.DataFrame, per_query: bool) -> str:
    """The comparison as the command line prints it: a table, then how many queries were compared."""
    text = [*measure_lines(frame, per_query), ""]
    left = frame.attrs["only_a"] + frame.attrs["only_b"]
    text.append(f"queries: {frame.attrs['queries']}" + (
        f" ({frame.attrs['only_a']} only in the first run, {frame.attrs['only_b']} only in the second: not compared)"
        if left else ""))
    return "\n".join(text) + "\n"

