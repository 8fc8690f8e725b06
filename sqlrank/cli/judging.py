"""The commands about judgments and rankings: agree (two sets of judgments), overlap (two rankings without
judgments), pool (what to judge next) and meta (do two sets of judgments rank the systems alike); and eval's
prediction-powered means (an LLM's judgments corrected by people's) and its approximate search against exact
search (--reference)."""
from __future__ import annotations

import argparse
import sys

from ..errors import OptionError
from ..results.writer import write_output
from .paths import frame_text, named_sources, rows_format, write_rows, write_statement
from .options import convention_options, database_options, engine_arguments, where_options

# eval's and sql's flags that an approximate search measured against exact search does not read
UNREAD_BY_REFERENCE = ("qrels_format", "qrels_columns", "queries", "by", "history", "items", "item_features", "groups",
                       "targets", "remove_seen")


def agree_command(args: argparse.Namespace) -> int:
    from ..judging.agree import agree, agreement_text

    result = agree(args.qrels_a, args.qrels_b, binary=args.binary, labels=args.labels,
                   weights=None if args.weights == "none" else args.weights, qrels_format=args.qrels_format,
                   qrels_columns=args.qrels_columns)
    if args.format == "table":
        text = agreement_text(result, args.per_query)
    else:
        import pandas as pd

        text = frame_text(result.per_query if args.per_query else pd.DataFrame([{
            "kappa": result.kappa, "observed": result.observed, "pairs": result.pairs, "only_a": result.only_a,
            "only_b": result.only_b, "weights": result.weights or "none", "binary": result.binary}]), args.format)
    write_output(text, args.output)
    return 0


def overlap_command(args: argparse.Namespace) -> int:
    from ..comparing.overlap import overlap, overlap_text

    frame = overlap(args.run_a, args.run_b, args.measures, per_query=args.per_query, tie_break=args.tie_break,
                    run_format=args.run_format, run_columns=args.run_columns)
    if args.format == "table":
        write_output(overlap_text(frame, args.per_query), args.output)
    else:
        write_output(frame_text(frame, args.format), args.output)
    return 0


def pool_command(args: argparse.Namespace) -> int:
    from ..judging.pool import pool, pool_output, pool_summary

    fmt = rows_format(args, "a Parquet pool goes")
    frame = pool(args.runs, depth=args.depth, method=args.method, budget=args.budget, qrels=args.judged,
                 tie_break=args.tie_break, rrf_k=args.rrf_k, rbp_p=args.rbp_p, run_format=args.run_format,
                 run_columns=args.run_columns, qrels_format=args.qrels_format, qrels_columns=args.qrels_columns)
    summary = pool_summary(frame, args.depth, args.budget)
    text = frame_text(frame, fmt) if fmt in ("json", "markdown", "latex") else pool_output(frame, fmt)
    write_rows(text, args.output, summary)
    return 0


def meta_command(args: argparse.Namespace) -> int:
    from ..judging.meta import meta, meta_text

    named = named_sources([args.qrels_a, args.qrels_b], True)  # NAME=FILE, or their file names: human, llm
    labels, (qrels_a, qrels_b) = tuple(named), named.values()
    result = meta(qrels_a, qrels_b, args.runs, " ".join(args.measures), test=args.test, trials=args.trials,
                  seed=args.seed, alpha=args.alpha, labels=labels, names=args.names, qrels_format=args.qrels_format,
                  qrels_columns=args.qrels_columns, run_format=args.run_format, run_columns=args.run_columns,
                  **where_options(args))
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    text = meta_text(result, args.rankings) if args.format == "table" else frame_text(result.table, args.format)
    write_output(text, args.output)
    return 0


def prediction_powered_output(args: argparse.Namespace, qrels, run, level: float, options: dict) -> int:
    """sqlrank eval --ci LEVEL --ci-method ppi: the means with an LLM's judgments corrected by people's."""
    from ..statistics.ppi import ppi_text, prediction_powered

    if args.per_query or args.weights is not None or args.aggregate != "mean" or args.record or args.engine != "duckdb":
        raise OptionError("--ci-method ppi gives the plain means of DuckDB's evaluation; leave out -q, --weights, "
                          "--aggregate, --record and --engine")
    gold = args.gold or "human"
    with database_options(args, options) as options:
        frame, said, conventions = prediction_powered(qrels, run, " ".join(args.measures), level, args.ci_method,
                                                      gold, strict=args.strict, **options)
    judged = f"queries: {int(frame.N.max())} judged by {frame.attrs['judgment_sources']['llm']}, " \
             f"{int(frame.n.max())} of them by {gold}\n" if len(frame) else ""
    text = ppi_text(frame) + judged + f"conventions: {conventions}\n" if args.format == "table" else \
        frame_text(frame, args.format)
    for message in said:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    write_output(text, args.output)
    return 0


def neighbours_output(args: argparse.Namespace) -> int:
    """sqlrank eval --reference EXACT RUN: an approximate search's Recall@k and DistanceRatio@k against exact search."""
    from ..comparing.neighbours import neighbours, neighbours_text

    runs = [args.qrels, *args.run] if args.qrels is not None else list(args.run)
    if len(runs) != 1 or args.qrels_sources:
        raise OptionError("--reference EXACT takes one RUN, the approximate search (and no judgments: --qrels)")
    refuse_unread(args)
    if args.format == "trec" or args.ci is not None or args.engine != "duckdb":
        raise OptionError("--reference gives a table, csv, tsv, json, markdown or latex of the measures, on DuckDB; "
                          "leave out --ci, --engine and -f trec")
    frame = neighbours(args.reference, runs[0], " ".join(args.measures), per_query=args.per_query,
                       distances=args.distances, run_format=args.run_format, run_columns=args.run_columns)
    write_output(neighbours_text(frame, args.per_query) if args.format == "table" else frame_text(frame, args.format),
                 args.output)
    return 0


def reference_sql(args: argparse.Namespace) -> int:
    """sqlrank sql --reference EXACT RUN: the statement of eval --reference in a dialect, reading the two searches
    themselves (per query with -q, else measure, value, queries)."""
    from ..comparing.neighbours import neighbours_statement

    if args.run is not None:
        raise OptionError("--reference EXACT takes one RUN, the approximate search: sqlrank sql --reference EXACT RUN")
    refuse_unread(args)
    options = engine_arguments(args)
    if not args.database:
        options = {}
    with database_options(args, options) as options:
        text = neighbours_statement(args.reference, args.qrels, " ".join(args.measures), per_query=args.per_query,
                                    distances=args.distances, dialect=args.dialect, run_format=args.run_format,
                                    run_columns=args.run_columns, **options)
    return write_statement(text, args)


def refuse_unread(args: argparse.Namespace) -> None:
    """A flag of an evaluation with judgments, given to one against a reference search, is an error that names it."""
    given = [name for name in UNREAD_BY_REFERENCE if getattr(args, name, None) not in (None, False)]
    given += [name for name, value in convention_options(args).items() if value is not None]
    for name in ("prefer", "combine", "label_type"):
        given += [name] if getattr(args, name, None) is not None else []
    if given:
        raise OptionError(f"--{given[0].replace('_', '-')} is not read by a search measured against exact search "
                          f"(--reference): leave it out")
