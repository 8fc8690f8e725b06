"""Pools for the next round of judging (``sqlrank pool``): the documents of several runs worth judging
next, per query, without those already judged. TREC depth-k pooling (the union of every run's top k),
or a budget of N documents per query by reciprocal-rank fusion or RBP weight over the runs, computed
by DuckDB in one statement (sql/pool.sql). Written as TREC qrels with the label -1 ("in the pool, not
judged yet", as trec_eval reads it), or as CSV or Parquet rows query_id, doc_id, weight."""
from __future__ import annotations

import math
from typing import Any, Sequence

import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import InputError, OptionError
from ..evaluation import integer_ids
from ..inputs.load import load
from ..inputs.source import INTEGER_TYPES
from ..rendering.dialects import DUCKDB
from ..results.rows_file import require_trec_ids, table_file
from ..rendering.sqltext import call_macro, render_template
from ..comparing.overlap import TIE_BREAKS

METHODS = ("depth", "rrf", "rbp")
PLACEHOLDER_LABEL = -1  # trec_eval's label of a pooled document not judged yet


def pool(runs: Sequence[Any], depth: int | None = None, method: str = "depth", budget: int | None = None,
         qrels: Sequence[Any] = (), tie_break: str = "trec_eval", rrf_k: float = 60, rbp_p: float = 0.8,
         run_format: str | None = None, run_columns: dict | None = None, qrels_format: str | None = None,
         qrels_columns: dict | None = None, **options: Any) -> pd.DataFrame:
    """The pool: query_id, doc_id, weight (the fused weight; depth pooling: the best rank of the document),
    per query in order of weight. ``qrels``: judgments whose documents are left out (any number)."""
    _check(runs, depth, method, budget, tie_break, rrf_k, rbp_p)
    engine = session_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of pool")
    with session(engine.pop("connection", None), **engine) as (con, registry):
        keyed, pooled, types = [], 0, set()
        for number, run in enumerate(runs, 1):
            source = load(run, "run", con, registry, run_format, run_columns, ranks=tie_break == "input_rank")
            types.add(source.query_type in INTEGER_TYPES)
            if source.per_run:  # runs stored together: each ranked apart, by its run_id
                keyed.append(call_macro(DUCKDB, "_macros/inputs.sql", "unkeyed_runs", source.sql()).strip())
                pooled += con.execute(f"SELECT count(DISTINCT run_id) FROM ({keyed[-1]}) AS stored").fetchall()[0][0]
            else:
                pooled += 1
                keyed.append(f"SELECT {number} AS run_id, query_id, doc_id, score, input_rank FROM ({source.sql()}) AS run")
        judged = [load(q, "qrels", con, registry, qrels_format, qrels_columns).sql() for q in qrels]
        sql = render_template(DUCKDB, "pool.sql", runs=keyed, judged=judged, order=DUCKDB.ranking_order(tie_break, "score"),
                              method=method, depth=depth, budget=budget, rrf_k=rrf_k, rbp_p=rbp_p)
        frame = con.execute(sql).df()
    if types == {True}:  # every run's query ids integers: so are the pool's, as evaluate gives them
        frame = integer_ids(frame)
    frame.attrs.update(sql=sql, runs=pooled, method=method)
    return frame


def _check(runs: Sequence[Any], depth: int | None, method: str, budget: int | None, tie_break: str, rrf_k: float,
           rbp_p: float) -> None:
    if not runs:
        raise OptionError("no run to pool; give one or more runs")
    if method not in METHODS:
        raise OptionError(f"method={method!r} is not one of {', '.join(METHODS)}")
    if tie_break not in TIE_BREAKS:
        raise OptionError(f"tie_break={tie_break!r} is not one of {', '.join(TIE_BREAKS)}")
    for name, value in (("depth", depth), ("budget", budget)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise OptionError(f"{name} {value!r} must be a whole number >= 1")
    if method == "depth" and depth is None:
        raise OptionError("depth pooling needs --depth K (depth=K): the top K of every run")
    if method == "depth" and budget is not None:
        raise OptionError("--budget is for --method rrf or rbp; depth pooling takes every run's top --depth")
    if method != "depth" and budget is None:
        raise OptionError(f"--method {method} needs --budget N (budget=N): how many documents per query to judge")
    if not (isinstance(rrf_k, (int, float)) and not isinstance(rrf_k, bool) and math.isfinite(rrf_k) and rrf_k >= 0):
        raise OptionError(f"rrf_k {rrf_k!r} must be a number >= 0 (60, as Cormack et al.)")
    if not (isinstance(rbp_p, (int, float)) and not isinstance(rbp_p, bool) and 0 < rbp_p < 1):
        raise OptionError(f"rbp_p {rbp_p!r} must be a number between 0 and 1 (0.8)")


def pool_output(frame: pd.DataFrame, format: str) -> str | bytes:
    """The pool as TREC qrels (label -1: pooled, not judged yet), CSV/TSV text or Parquet bytes."""
    if format == "trec":
        require_trec_ids(frame, "TREC qrels")
        return "".join(f"{q} 0 {d} {PLACEHOLDER_LABEL}\n" for q, d in zip(frame.query_id, frame.doc_id))
    if format not in ("csv", "tsv", "parquet"):
        raise OptionError(f"unknown pool format {format!r}; choose trec, csv, tsv or parquet")
    return table_file(frame, format)


def pool_summary(frame: pd.DataFrame, depth: int | None, budget: int | None) -> str:
    """One line: how many documents for how many queries, pooled how."""
    runs = f"{frame.attrs['runs']} run{'s' if frame.attrs['runs'] != 1 else ''}"
    how = (f"the top {depth} of {runs}" if frame.attrs["method"] == "depth" else
           f"{budget} per query by {frame.attrs['method']} over {runs}"
           + (f", their top {depth}" if depth is not None else ""))
    if frame.empty:
        raise InputError(f"the pool is empty: every document of {how} is judged already")
    queries = frame.query_id.nunique()
    return (f"pool: {len(frame)} document{'s' if len(frame) != 1 else ''} to judge for {queries} "
            f"quer{'ies' if queries != 1 else 'y'} ({how}, judged ones left out)\n")
