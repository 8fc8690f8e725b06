"""sqlrank.evaluate and sqlrank.render: an evaluation as the public API offers it, with what comes around it
(confidence intervals, other summaries over queries, prediction-powered means, the history record) and its statement."""
from __future__ import annotations

import warnings as _warnings
from typing import Any

from .errors import OptionError, SqlrankWarning


def evaluate(qrels: Any, run: Any, measures: Any, per_query: bool = False, *, ci: float | None = None,
             ci_method: str = "t", trials: int = 10_000, seed: int | None = 0, record: str | None = None,
             tag: str | None = None, weights: Any = None, aggregate: str = "mean", gold: str = "human",
             output: str | None = None, **options: Any):
    """Evaluate a run against qrels and return a DataFrame (pandas; Polars, Arrow, DuckDB for those inputs: ``output``).

    qrels, run: a file path or glob (TREC text, CSV/TSV with a header, Parquet; .gz), a pandas or Polars
        DataFrame, an Arrow table, a DuckDB relation, or a table name in ``connection``.
    measures: names such as ``"nDCG@10 AP P@10"``, ``["ndcg_cut.10", "map"]`` or Measure objects.
    per_query: columns ``query_id, measure, value`` instead of ``measure, value`` (query_id is
        called as the inputs call it when a column mapping renames it: ``user_id``); a measure with
        one value over all queries and none per query (Coverage, Gini, GlobalAUC) has one row, its
        query_id empty.
    options: ``connection``, ``qrels_format``/``run_format`` (trec, csv, tsv, parquet),
        ``qrels_columns``/``run_columns`` (e.g. ``{"query_id": "user_id"}``), and conventions
        (``rel``, ``missing_queries``, ``judged_only``, ``depth``, ...). Engine options for a
        private connection: ``memory_limit`` (e.g. "4GB"; larger work spills to disk),
        ``temp_directory`` (where it spills), ``threads``, ``progress`` (DuckDB's progress bar);
        ``slices=N`` evaluates the queries in N groups, one statement each, for runs far larger
        than memory.

    ``frame.attrs["sql"]`` holds the statement, reading your files (sqlrank runs it on the copy of
    each file it read and validated once); ``frame.attrs["conventions"]`` the conventions;
    ``frame.attrs["num_queries"]`` the queries evaluated, and ``frame.attrs["queries"]`` how many
    of them each measure's mean is over (fewer for AUC where a user has one class; with runs stored
    together, per run: {run_id: {measure: count}}); rows are named as the measures were asked (HR@10),
    ``frame.attrs["measures"]`` maps each to its canonical name, with every convention that differs
    from trec_eval's ({"HR@10": "Success@10"}).

    Several judgment sources: ``qrels`` a list of inputs (named by their file names) or a dict
    {name: input}, or one input with a ``source`` column; ``prefer=["human", "llm"]`` (the first
    source that judged a document gives its label; the default, in the order given) or
    ``combine="mean"`` (or "max", "min"). ``frame.attrs["judgment_sources"]``: per source, the
    judgments it gave; ``Judged(source=human)@10`` counts one source's judgments alone.

    ci: a confidence level (0.95): std, ci_low and ci_high of each plain mean, by ``ci_method`` "t", "percentile",
    "basic" or "bca" (a bootstrap over queries, ``trials`` resamples with ``seed``, as scipy.stats.bootstrap), or
    "ppi" / "ppi-untuned" (prediction-powered: qrels two sources, an LLM's and the people's named ``gold``; the
    columns value, ci_low, ci_high, lambda, n, N, effective_n: statistics/ppi.py). weights
    (query_id, weight: a file, DataFrame or dict) or aggregate ("median", "gmean", "min", "max"): weighted means
    or that summary. record: a history file (.parquet, .duckdb) the means are appended to, with ``tag``.
    """
    from .evaluation import evaluate_result, framed

    from .results.kinds import converted, output_kind

    _check(options, record, tag, ci is None and ci_method != "t" and ci_method)
    kind, con = output_kind(output, qrels, run), options.get("connection")
    if ci is not None and ci_method in ("ppi", "ppi-untuned"):
        from .statistics.ppi import prediction_powered_frame

        return converted(prediction_powered_frame(qrels, run, measures, ci, ci_method, gold, options,
                                                  per_query=per_query, record=record, weights=weights,
                                                  aggregate=aggregate), kind, con)
    if ci is not None or weights is not None or aggregate != "mean":
        return converted(_summarised(qrels, run, measures, per_query, (ci, ci_method, trials, seed), options, record,
                                     tag, weights, aggregate), kind, con)
    result = evaluate_result(qrels, run, measures, per_query, **options)
    _record(record, tag, result, qrels, run)
    return converted(framed(result, per_query), kind, con)


def _check(options: dict, record: str | None, tag: str | None, method_alone: Any = None) -> None:
    """evaluate()'s options, history and tag, before anything is read; a ci_method without ci is refused (with
    two judgment sources, ppi's, the sources would be merged into one mean instead)."""
    from .evaluation import check_options
    from .tracking.history import check_record

    if method_alone:
        raise OptionError(f"ci_method={method_alone!r} is how ci's interval is computed: add ci=0.95")

    check_options(options)
    check_record(record, tag)


def _record(record: str | None, tag: str | None, result: Any, qrels: Any, run: Any, values: Any = None,
            aggregate: str = "mean", weights: Any = None) -> None:
    """evaluate() with record=: the values returned (the means, or VALUES summarised by AGGREGATE or WEIGHTS)
    appended to the history file (tracking/history.py)."""
    if record is not None:
        from .tracking.history import record_evaluation, summary_label

        record_evaluation(record, result, qrels, run, tag, values, summary_label(aggregate, weights))


def _summarised(qrels: Any, run: Any, measures: Any, per_query: bool, interval: tuple, options: dict,
                record: str | None, tag: str | None, weights: Any, aggregate: str):
    """evaluate() with ci=, weights= or aggregate=: the means with their intervals, or other summaries of the
    per-query values (statistics/uncertainty.py, statistics/aggregate.py)."""
    from .evaluation import evaluate_result
    from .statistics.aggregate import aggregated, check_aggregate, read_weights
    from .statistics.uncertainty import check_interval, with_intervals

    ci, ci_method, trials, seed = interval
    check_aggregate(aggregate, weights is not None)
    if ci is not None:
        check_interval(ci, ci_method, trials, seed)
    if per_query:
        raise OptionError("ci=, weights= and aggregate= describe the summary over queries; leave out per_query=True")
    table = read_weights(weights) if weights is not None else None
    result = evaluate_result(qrels, run, measures, True, **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=3)
    if ci is None:
        frame = aggregated(result.frame, result.summary, aggregate, table)
    else:
        frame = with_intervals(result.frame, result.summary, ci, ci_method, trials, seed, aggregate, table)
    _record(record, tag, result, qrels, run, frame, aggregate, weights)
    return frame


def render(qrels: Any, run: Any, measures: Any, per_query: bool = False, dialect: str = "duckdb",
           **options: Any) -> str:
    """The SQL statement of this evaluation, reading the inputs themselves (which are validated).
    With per_query=True it returns ``query_id, measure, value`` rows ordered by query; otherwise
    ``measure, value`` rows. dialect: "duckdb" (default), "spark" (Spark SQL: files are read
    with parquet.`path` and text.`path`; CSV files must be registered as tables first), "postgres",
    "datafusion", "clickhouse", "sqlite", "trino", "bigquery", "snowflake", "redshift" or "databricks" (Spark
    SQL, as "spark"; the others read tables: give table names). A name that is neither a file nor a table of the DuckDB connection is the other database's table,
    read nowhere here: its columns are the default names or those of qrels_columns / run_columns, its labels
    ``label_type="real"`` (DOUBLE, the default) or ``"integer"``."""
    from .evaluation import check_options
    from .evaluation import render as render_statement

    check_options(options, render_statement)
    return render_statement(qrels, run, measures, per_query, dialect, **options)
