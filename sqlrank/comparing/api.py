"""The public functions of comparing: sqlrank.compare (with every pair, gsb and report) and the rankings compared
without judgments, sqlrank.overlap and sqlrank.neighbours."""
from __future__ import annotations

import warnings as _warnings
from typing import Any

from ..errors import OptionError, SqlrankWarning


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
    from ..evaluation import check_options
    from .ppi_comparison import compare_result, comparison
    from .gate import failures, parse_rule, require_measures
    from ..tracking.history import check_record, record_comparison

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
    """compare(pairs="all"): every pair of runs (statistics/pairs.py); with record=, every run's means recorded."""
    from ..evaluation import check_options
    from .compare import compare_pairs, compare_result
    from ..tracking.history import record_comparison

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
    from .compare import gsb_frame

    frame = gsb_frame(verdicts, by, **options)
    for message in frame.attrs["warnings"]:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    return frame


def report(qrels: Any, runs: Any, measures: Any, path: str, format: str = "html", pairs: str = "baseline",
           alpha: float = 0.05, **options: Any) -> None:
    """Write a comparison report (compare()'s options) to ``path``: one self-contained HTML page
    with the table and plots, or a Markdown or LaTeX table. Written atomically. pairs="all" adds every
    pair of runs to the HTML page (by options' ``test``: tukey by default)."""
    from ..evaluation import check_options
    from ..results.writer import refuse_inputs, write_output
    from .ppi_comparison import compare_result, comparison
    from .reports import DEPTH, html_page, latex, markdown

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
        from .compare import pairs_of

        every = pairs_of(result, test or "tukey", options.get("correction", "none"), options.get("trials", 10_000),
                         options.get("seed", 0), alpha)
        write_output(html_page(result, gsb_columns, pairs=every), path)
        return
    text = {"html": html_page, "markdown": markdown, "latex": latex}[format](result, gsb_columns)
    write_output(text, path)


def neighbours(reference: Any, run: Any, measures: Any, per_query: bool = False, distances: bool = False,
               **options: Any):
    """An approximate search ``run`` against the exact search ``reference`` (two runs; similarities, or distances
    with ``distances=True``): "Recall@10 Recall(epsilon=0.01)@10 DistanceRatio@10" (the last two: distances), as
    ann-benchmarks measures them (comparing/neighbours.py); (measure, value, queries), or per query."""
    from .neighbours import neighbours as measured

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
    from .overlap import overlap as compare_rankings

    return compare_rankings(run_a, run_b, measures, per_query=per_query, tie_break=tie_break, **options)
