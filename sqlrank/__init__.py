"""sqlrank: ranking evaluation as readable SQL, run in DuckDB where the data lives.

>>> import sqlrank
>>> sqlrank.evaluate("qrels.txt", "run.parquet", "nDCG@10 AP P@10")   # doctest: +SKIP
"""
from __future__ import annotations

import warnings as _warnings
from typing import Any

from .errors import ConventionError, InputError, MeasureError, OptionError, SqlrankError, SqlrankWarning
from .measures.conventions import Conventions
from .measures.measure import Measure
from .measures.names import parse_measures
from .version import __version__  # noqa: F401  (sqlrank.__version__)

__all__ = [
    "evaluate", "Evaluator", "render", "compare", "gsb", "report", "install", "agree", "overlap", "neighbours", "pool", "meta", "history",
    "check",
    "explain", "trec_eval",
    "parse_measures", "Measure", "Conventions",
    "SqlrankError", "InputError", "MeasureError", "ConventionError", "OptionError", "SqlrankWarning",
]


def __getattr__(name: str) -> Any:
    """sqlrank.Evaluator, imported when first used (importing sqlrank stays light)."""
    if name == "Evaluator":
        from .evaluation import Evaluator

        return Evaluator
    raise AttributeError(f"module 'sqlrank' has no attribute {name!r}")


def __dir__() -> list[str]:
    """What the package offers (not the names its own code imports)."""
    return sorted(__all__ + ["__version__"])


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
    columns value, ci_low, ci_high, lambda, n, N, effective_n: tools/ppi.py). weights
    (query_id, weight: a file, DataFrame or dict) or aggregate ("median", "gmean", "min", "max"): weighted means
    or that summary. record: a history file (.parquet, .duckdb) the means are appended to, with ``tag``.
    """
    from .evaluation import evaluate_result, framed

    from .results.kinds import converted, output_kind

    _check(options, record, tag, ci is None and ci_method != "t" and ci_method)
    kind, con = output_kind(output, qrels, run), options.get("connection")
    if ci is not None and ci_method in ("ppi", "ppi-untuned"):
        from .tools.ppi import prediction_powered_frame

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
    from .tools.history import check_record

    if method_alone:
        raise OptionError(f"ci_method={method_alone!r} is how ci's interval is computed: add ci=0.95")

    check_options(options)
    check_record(record, tag)


def _record(record: str | None, tag: str | None, result: Any, qrels: Any, run: Any, values: Any = None,
            aggregate: str = "mean", weights: Any = None) -> None:
    """evaluate() with record=: the values returned (the means, or VALUES summarised by AGGREGATE or WEIGHTS)
    appended to the history file (tools/history.py)."""
    if record is not None:
        from .tools.history import record_evaluation, summary_label

        record_evaluation(record, result, qrels, run, tag, values, summary_label(aggregate, weights))


def _summarised(qrels: Any, run: Any, measures: Any, per_query: bool, interval: tuple, options: dict,
                record: str | None, tag: str | None, weights: Any, aggregate: str):
    """evaluate() with ci=, weights= or aggregate=: the means with their intervals, or other summaries of the
    per-query values (tools/uncertainty.py, tools/aggregate.py)."""
    from .evaluation import evaluate_result
    from .tools.aggregate import aggregated, check_aggregate, read_weights
    from .tools.uncertainty import check_interval, with_intervals

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


def compare(qrels: Any, runs: Any, measures: Any, *, test: str | None = None, correction: str = "none",
            trials: int = 10_000, seed: int | None = 0, gsb: bool = False, tolerance: float = 0.0,
            fail_if: Any = None, alpha: float = 0.05, pairs: str = "baseline", record: str | None = None,
            tag: str | None = None, weights: Any = None, aggregate: str = "mean", **options: Any):
    """Compare runs with the first (the baseline), per measure, with a paired test per comparison.

    runs: a list of runs (paths, DataFrames, ...; named by file name) or a dict of name: run; an
        input of runs stored together (a run_id column) stands for its runs, named by run id.
    test: "t" (paired t-test; the default), "wilcoxon", "sign", "permutation" (paired randomization, ``trials``
        sign flips with ``seed``) or "bootstrap" (``trials`` resamples, BCa interval); correction: "none",
        "bonferroni", "holm" or "bh" (Benjamini-Hochberg), over all comparisons. "ppi", "ppi-untuned": qrels
        {"llm": ..., "human": ...} (people's named by gold=), prediction-powered means and deltas (docs/judging.md).
    gsb: add good, same, bad and gsb columns (a query is "same" when its values differ by at
        most ``tolerance``; the same tolerance decides wins, ties and losses).
    options: as for evaluate(), plus ``names=[...]`` (one per run), ``baseline=NAME`` (the run the others
        are compared with; default the first), and ``queries=`` with ``by=`` for a table
        per segment (columns segment and num_queries first; the overall rows have segment NaN).

    Returns a DataFrame with the columns measure, run, mean, delta, wins, ties, losses, p_value,
    p_value_adjusted, ci_low, ci_high, effect_size (comparison columns empty on the baseline row).
    ``attrs["num_queries"]``: the queries every run evaluated; ``attrs["compared"]``: per measure,
    those of them with a value in every run (fewer where a measure has none for some queries: AUC
    without both classes), over which that measure is compared.

    fail_if: rules of a regression gate ("nDCG@10 < -0.01", "nDCG@10 < -2%", "AP mean < 0.25",
    "AP significant-worse" at ``alpha``); ``attrs["failures"]``: one line per rule that holds for a run.
    pairs="all": every pair of runs instead (test "tukey" by default, "randomized-tukey", or a paired test
    with ``correction`` over all pairs): a DataFrame of measure, run, other, mean, other_mean, delta,
    p_value, p_value_adjusted, significant (at ``alpha``); ``attrs["superscripts"]`` and ``attrs["letters"]``
    (a compact letter display), per measure and run. record, tag, weights, aggregate: as for evaluate() (the
    means and deltas so summarised; the tests test the per-query differences).
    """
    from .evaluation import check_options
    from .tools.ppi_comparison import compare_result, comparison
    from .tools.gate import failures, parse_rule, require_measures
    from .tools.history import check_record, record_comparison

    if pairs not in ("baseline", "all"):
        raise OptionError(f"pairs={pairs!r} is baseline (each run with the first) or all (every pair)")
    check_record(record, tag)
    if pairs == "all":
        return _all_pairs(qrels, runs, measures, test or "tukey", correction, trials, seed, alpha, options, record, tag)
    test = test or "t"
    rules = [parse_rule(rule) for rule in ([fail_if] if isinstance(fail_if, str) else fail_if or [])]
    if rules and isinstance(measures, str):
        require_measures(rules, measures)
    check_options(options, compare_result)
    result = comparison(qrels, runs, measures, test=test, correction=correction, trials=trials, seed=seed,
                        gsb=gsb, tolerance=tolerance, weights=weights, aggregate=aggregate, **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    frame = result.table
    frame.attrs.update(conventions=result.conventions, test=test, correction=correction,
                       num_queries=result.num_queries, compared=result.compared)
    if rules:
        frame.attrs["failures"] = failures(frame, rules, alpha)
    if record is not None:
        record_comparison(record, frame, result.compared, result.conventions, qrels, runs, result.runs, tag)
    return frame


def _all_pairs(qrels: Any, runs: Any, measures: Any, test: str, correction: str, trials: int, seed: int | None,
               alpha: float, options: dict, record: str | None = None, tag: str | None = None):
    """compare(pairs="all"): every pair of runs (tools/pairs.py); with record=, every run's means recorded."""
    from .evaluation import check_options
    from .tools.compare import compare_pairs, compare_result
    from .tools.history import record_comparison

    check_options(options, compare_result)
    result, comparison = compare_pairs(qrels, runs, measures, test=test, correction=correction, trials=trials, seed=seed,
                                       alpha=alpha, **options)
    for message in comparison.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=3)
    frame = result.table
    frame.attrs.update(superscripts=result.superscripts, letters=result.letters, means=result.means, test=result.test,
                       correction=correction, alpha=alpha, num_queries=comparison.num_queries)
    if record is not None:
        record_comparison(record, comparison.table, comparison.compared, comparison.conventions, qrels, runs,
                          comparison.runs, tag)
    return frame


def gsb(verdicts: Any, by: str | None = None, **options: Any):
    """GSB = (good - bad) / (good + same + bad) from side-by-side verdicts (a table with a
    ``verdict`` column: good/same/bad or G/S/B, any case), overall and per value of ``by``.
    Returns a DataFrame with the columns [by,] good, same, bad, gsb (overall row first, its ``by``
    missing); verdicts without a ``by`` value count in the overall row only (a SqlrankWarning says
    how many)."""
    from .tools.compare import gsb_frame

    frame = gsb_frame(verdicts, by, **options)
    for message in frame.attrs["warnings"]:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    return frame


def report(qrels: Any, runs: Any, measures: Any, path: str, format: str = "html", pairs: str = "baseline",
           alpha: float = 0.05, **options: Any) -> None:
    """Write a comparison report (compare()'s options) to ``path``: one self-contained HTML page
    with the table and plots, or a Markdown or LaTeX table. Written atomically. pairs="all" adds every
    pair of runs to the HTML page (by options' ``test``: tukey by default)."""
    from .evaluation import check_options
    from .results.writer import refuse_inputs, write_output
    from .tools.ppi_comparison import compare_result, comparison
    from .tools.reports import DEPTH, html_page, latex, markdown

    check_options(options, compare_result)
    refuse_inputs(path, [qrels, *(runs if isinstance(runs, (list, tuple)) else [runs])]
                  + [options.get(k) for k in ("queries", "history", "items", "item_features", "groups", "targets")])

    if format not in ("html", "markdown", "latex"):
        raise OptionError(f"format {format!r} is not one of html, markdown, latex")
    gsb_columns = bool(options.get("gsb"))
    if pairs not in ("baseline", "all") or (pairs == "all" and format != "html"):
        raise OptionError(f"pairs={pairs!r}: baseline, or all (every pair of runs, in the HTML page)")
    test = options.pop("test", None)
    tukey = test in ("tukey", "randomized-tukey")
    result = comparison(qrels, runs, measures, test="t" if tukey or test is None else test,
                        details=DEPTH if format == "html" else 0, **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    if pairs == "all":
        from .tools.compare import pairs_of

        every = pairs_of(result, test or "tukey", options.get("correction", "none"), options.get("trials", 10_000),
                         options.get("seed", 0), alpha)
        write_output(html_page(result, gsb_columns, pairs=every), path)
        return
    text = {"html": html_page, "markdown": markdown, "latex": latex}[format](result, gsb_columns)
    write_output(text, path)


def install(connection: Any, measures: Any = None, schema: str = "sqlrank", **conventions: Any) -> list[str]:
    """Create sqlrank's table macros in a DuckDB connection (or a database file path), so that
    plain SQL can call them: ``SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', ['nDCG@10', 'AP'])``,
    ``sqlrank.evaluate_per_query(...)``, and per family ``sqlrank.ndcg('my_qrels', 'my_run', 10)``,
    ``sqlrank.p``, ``sqlrank.recall``, ``sqlrank.ap``, ``sqlrank.rr``, ... (``sqlrank.measures()``
    lists the measures evaluate() knows; ``measures=`` adds more). Conventions apply to all.
    Returns the macro names."""
    from .export.macros import install as install_macros
    from .export.macros import install_file

    if isinstance(connection, str):
        return install_file(connection, measures, schema, **conventions)
    return install_macros(connection, measures, schema, **conventions)


def agree(qrels_a: Any, qrels_b: Any, binary: int | None = None, weights: str | None = None, labels: Any = None,
          **options: Any):
    """Agreement of two sets of judgments over the documents both judged: an ``Agreement`` with Cohen's
    ``kappa`` (``weights``: None, "linear" or "quadratic" over the grades' positions), the ``observed``
    agreement, the ``confusion`` matrix (a DataFrame: the first set's labels as rows), ``per_query``
    values, and the documents only one side judged (``only_a``, ``only_b``). ``binary=REL`` thresholds
    the labels first; ``labels=[0, 1]`` keeps the documents both sides gave one of these labels (in this order:
    the weights' positions), as scikit-learn's ``cohen_kappa_score(labels=...)``. The inputs are read as qrels are
    (files, DataFrames, tables; ``qrels_format``, ``qrels_columns``).

    >>> sqlrank.agree("assessor_1.txt", "llm_grades.csv", weights="linear").kappa   # doctest: +SKIP
    """
    from .tools.agree import agree as agreement

    return agreement(qrels_a, qrels_b, binary=binary, weights=weights, labels=labels, **options)


def neighbours(reference: Any, run: Any, measures: Any, per_query: bool = False, distances: bool = False,
               **options: Any):
    """An approximate search ``run`` against the exact search ``reference`` (two runs; similarities, or distances
    with ``distances=True``): "Recall@10 Recall(epsilon=0.01)@10 DistanceRatio@10" (the last two: distances), as
    ann-benchmarks measures them (tools/neighbours.py); (measure, value, queries), or per query."""
    from .tools.neighbours import neighbours as measured

    return measured(reference, run, measures, per_query=per_query, distances=distances, **options)


def overlap(run_a: Any, run_b: Any, measures: Any, per_query: bool = False, tie_break: str = "trec_eval",
            **options: Any):
    """How alike two rankings of the same queries are, without judgments: ``measures`` such as
    "RBO(p=0.9)@100 RBO(kind=ext)@100 Jaccard@10 Overlap@10 Tau@100 TauAP@100". A DataFrame of the mean of
    each measure over the queries with a value (measure, value, queries), or with ``per_query=True`` the
    value of each query both runs hold (query_id, measure, value). ``tie_break``: trec_eval (default),
    doc_id_asc or input_rank. The runs are read as any run is (``run_format``, ``run_columns``).

    >>> sqlrank.overlap("exact.parquet", "ann.parquet", "Overlap@10 RBO@100")   # doctest: +SKIP
    """
    from .tools.overlap import overlap as compare_rankings

    return compare_rankings(run_a, run_b, measures, per_query=per_query, tie_break=tie_break, **options)


def pool(runs: Any, depth: int | None = None, method: str = "depth", budget: int | None = None, qrels: Any = None,
         **options: Any):
    """The documents to judge next, as ``sqlrank pool`` finds them: a DataFrame of query_id, doc_id, weight per query in
    order of weight. ``runs``: one run or a list of them (files, DataFrames, tables; runs stored together are pooled
    run by run); ``depth=K``: TREC depth-k pooling (the union of every run's top K; weight: the best rank), or
    ``method="rrf"`` / ``"rbp"`` with ``budget`` documents per query; ``qrels``: judgments (one or a list) whose
    documents are left out. Options: ``tie_break``, ``rrf_k``, ``rbp_p``, ``run_format``/``run_columns``,
    ``qrels_format``/``qrels_columns``, ``connection``. ``attrs["runs"]``: how many runs were pooled.

    >>> sqlrank.pool(["bm25.run", "dense.run"], depth=30, qrels="human.txt")   # doctest: +SKIP
    """
    from .tools.pool import pool as pooled

    def listed(obj: Any) -> list:
        return list(obj) if isinstance(obj, (list, tuple)) else [obj]

    return pooled(listed(runs), depth=depth, method=method, budget=budget, qrels=[] if qrels is None else listed(qrels),
                  **options)


def check(qrels: Any, runs: Any, measures: Any = None, **options: Any):
    """What in the data can change a number (``sqlrank check``): a DataFrame of findings with the
    columns check, input, count, changes_numbers, message. ``runs``: one run or a list; ``measures``
    set the cutoffs whose ties are counted; ``rel``, ``history``, ``items``, ``groups``, the input options of
    evaluate(), and several judgment sources (``qrels`` a list or dict, ``prefer``, ``combine``)."""
    from .tools.check import check as checks
    from .tools.check import findings_frame

    many = isinstance(runs, (list, tuple))
    return findings_frame(checks(qrels, list(runs) if many else [runs], measures, **options))


def explain(qrels: Any, run: Any, measure: Any, target: float | str | None = None, between: tuple | None = None,
            **options: Any):
    """Which conventions reproduce a number (``target``: the value as printed, e.g. "0.7512"; a DataFrame
    of measure, value, matches, best first), or how each convention that differs between two presets
    moves a value, query by query (``between=("trec_eval", "ranx")``; query_id, step, convention, before,
    after, delta). Options: ``tolerance``, ``query``, ``run_id`` and those of evaluate()."""
    from .tools import explain as explaining

    if (target is None) == (between is None):
        raise OptionError("give target= (a value to reproduce) or between=(start, end), one of them")
    if target is not None:
        return explaining.reproduce(qrels, run, measure, target, **options)
    return explaining.attribute(qrels, run, measure, *between, **options)


def trec_eval(qrels: Any, run: Any, measures: Any = ("official",), per_query: bool = False, complete: bool = False,
              rel: int = 1, judged_only: bool = False, depth: int | None = None, version: int = 10) -> str:
    """What trec_eval 10 prints for these files (``sqlrank trec_eval``): ``measures`` as trec_eval names
    them ("map", "P.5,10", "ndcg_cut.10", nicknames such as "all_trec"), ``per_query`` (-q), ``complete``
    (-c), ``rel`` (-l), ``judged_only`` (-J), ``depth`` (-M); ``version=9`` as trec_eval 9 and pytrec_eval.

    >>> print(sqlrank.trec_eval("qrels.txt", "run.txt", ["map", "P.10"]))   # doctest: +SKIP
    """
    import io
    import os

    from .tools.trec_eval import Options, request_measure
    from .tools.trec_eval import run as run_trec_eval

    options = Options(os.fspath(qrels), os.fspath(run), per_query, complete, False, judged_only, depth, rel,
                      version=version)
    for spec in [measures] if isinstance(measures, str) else measures:
        request_measure(options.measures, spec)
    out = io.StringIO()
    run_trec_eval(options, out)
    return out.getvalue()


def meta(qrels_a: Any, qrels_b: Any, runs: Any, measures: Any, test: str = "permutation", trials: int = 1000,
         seed: int | None = 0, alpha: float = 0.05, **options: Any):
    """Meta-evaluation: do two sets of judgments rank the runs (three or more) alike? A DataFrame with one row
    per measure: runs, tau_b and tau_ap (the runs' means under qrels_b against those under qrels_a), swapped
    (pairs of runs ordered differently), pairs, and power_a, power_b (Sakai's discriminative power: the share
    of pairs of runs the paired ``test`` finds different at ``alpha``). ``attrs["rankings"]``: each measure's
    ranking under both; ``attrs["asl"]``: each pair's p-value (achieved significance level) under each."""
    from .tools.meta import meta as meta_evaluation

    result = meta_evaluation(qrels_a, qrels_b, runs, measures, test=test, trials=trials, seed=seed, alpha=alpha,
                             **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    frame = result.table
    frame.attrs.update(rankings=result.rankings, asl=result.asl, test=test, alpha=alpha)
    return frame


def history(path: str):
    """Every row of a history written with record= (or --record): evaluation, recorded_at, tag, command, run,
    measure, value, queries, conventions, and each input's name, rows and SHA-256; oldest first."""
    from .tools.history import read

    return read(path)
