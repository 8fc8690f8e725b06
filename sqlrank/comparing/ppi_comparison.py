"""A prediction-powered comparison (``sqlrank compare --qrels llm=F --qrels human=F A B --test ppi``): every run
evaluated with the LLM's judgments (every query) and with the people's (the queries they judged); each run's mean
and each run's paired difference from the baseline as prediction-powered estimates (statistics/ppi.py) over the queries
every run evaluated. The difference is the estimate of the per-query differences (its own lambda with power tuning,
so with ``ppi`` it need not equal the difference of the two means), its 95% interval and its two-sided p-value of no
difference as ppi-python's ppi_mean_ci and ppi_mean_pval compute them; wins, ties and losses are counted over the
queries people judged. Valid under ppi.py's assumption: the people judged a random sample of the queries."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from ..errors import OptionError
from ..statistics.aggregate import plain_mean
from .compare import COLUMNS, Comparison, compare_result, framed, outcomes
from ..statistics.ppi import coverage, empty_rows, estimated, require_one_population, source_warnings, two_sources
from ..statistics.significance import adjust

PPI_TESTS = ("ppi", "ppi-untuned")
PPI_COLUMNS = ["lambda", "n", "N", "effective_n"]
LEVEL = 0.95  # compare's intervals are 95% ones


def comparison(qrels: Any, runs: Any, measures: Any, *, test: str = "t", gold: str | None = None,
               **options: Any) -> Comparison:
    """compare_result(), or with ``test`` ppi or ppi-untuned the prediction-powered comparison against the judgment
    source ``gold`` (default "human")."""
    if test in PPI_TESTS:
        return ppi_comparison(qrels, runs, measures, test=test, gold=gold or "human", **options)
    return compare_result(qrels, runs, measures, test=test, gold=gold, **options)


def ppi_comparison(qrels: Any, runs: Any, measures: Any, *, test: str = "ppi", gold: str = "human",
                   correction: str = "none", tolerance: float = 0.0, gsb: bool = False, by: str | None = None,
                   weights: Any = None, aggregate: str = "mean", details: int = 0, trials: int = 10_000,
                   seed: int | None = 0, **options: Any) -> Comparison:
    """compare(test="ppi" or "ppi-untuned", gold=NAME): the comparison table (compare's columns, then lambda, n, N
    and effective_n of each row's estimate), with the LLM-judged per-query values as its scores."""
    import pandas as pd

    if by is not None or gsb or weights is not None or aggregate != "mean":
        raise OptionError(f"--test {test} compares the plain means over all queries; leave out --by, --gsb, --weights "
                          f"and --aggregate")
    adjust([], correction)
    llm_name, llm, human = two_sources(qrels, gold, options)
    require_one_population(options)
    covered = coverage(llm, human, (llm_name, gold), options)
    with_llm = compare_result(llm, runs, measures, test="t", tolerance=tolerance, details=details, **options)
    with_gold = compare_result(human, runs, measures, test="t", tolerance=tolerance, **options)
    refused = [m for m in with_llm.measures if m in with_llm.untested or not plain_mean(m)]
    if refused:
        raise OptionError(f"{refused[0]}: its value is no mean of per-query values, so it has no prediction-powered "
                          f"estimate; leave it out of --test {test}")
    labels, names = with_llm.runs, (llm_name, gold)
    llm_values, gold_values = (_by_run_and_measure(c.scores) for c in (with_llm, with_gold))
    empty = pd.Series(dtype=float)
    records, notes = [], []
    for measure in with_llm.measures:
        base_every, base_judged = llm_values.get((labels[0], measure), empty), gold_values.get((labels[0], measure), empty)
        for label in labels:
            every, judged = llm_values.get((label, measure), empty), gold_values.get((label, measure), empty)
            mean = estimated(every, judged, True, measure, LEVEL, test, names)
            row = {"measure": measure, "run": label, "mean": mean["value"], **{k: mean[k] for k in PPI_COLUMNS}}
            notes += empty_rows([{"measure": measure, "run": label, "note": mean["note"]}], ["measure", "run"])
            if label != labels[0]:
                difference = _difference(every - base_every, judged - base_judged, measure, test, names, tolerance)
                notes += empty_rows([{"measure": measure, "run": f"{label} - {labels[0]}", "note": difference.pop("note")}],
                                    ["measure", "run"])
                row.update(difference)
            records.append(row)
    table = pd.DataFrame.from_records(records).reindex(columns=COLUMNS + PPI_COLUMNS)
    compared = table["run"] != labels[0]
    table.loc[compared, "p_value_adjusted"] = adjust(table.loc[compared, "p_value"].tolist(), correction)
    for column in ("wins", "ties", "losses", "n", "N"):
        table[column] = table[column].astype("Int64")
    said = source_warnings((llm_name, with_llm.warnings), (gold, with_gold.warnings)) + covered + notes
    return framed(table, with_llm.score_rows, segments=None, runs=labels, measures=with_llm.measures,
                  conventions=with_llm.conventions, test=test, correction=correction, num_queries=with_llm.num_queries,
                  warnings=said, removed_seen=with_llm.removed_seen, compared=with_llm.compared,
                  renamed=with_llm.renamed, untested=[], details=with_llm.details,
                  judgment_sources={"llm": llm_name, "gold": gold})


def _by_run_and_measure(scores: pd.DataFrame) -> dict:
    """(run, measure) -> the per-query values by query id."""
    return {key: group.set_index("query_id").value.astype(float) for key, group in scores.groupby(["run", "measure"],
                                                                                                  sort=False)}


def _difference(every: pd.Series, judged: pd.Series, measure: str, test: str, names: tuple[str, str],
                tolerance: float) -> dict:
    """One run's paired difference from the baseline: its estimate, interval and p-value, and the wins, ties and
    losses over the people-judged queries."""
    estimate = estimated(every.dropna(), judged.dropna(), True, measure, LEVEL, test, names)
    wins, ties, losses = outcomes(judged.dropna().to_numpy(), tolerance)
    return {"delta": estimate["value"], "ci_low": estimate["ci_low"], "ci_high": estimate["ci_high"],
            "p_value": estimate["p_value"], "effect_size": math.nan, "wins": wins, "ties": ties, "losses": losses,
            "note": estimate["note"], **{k: estimate[k] for k in PPI_COLUMNS}}
