"""The uncertainty of one run's means (``sqlrank eval --ci 95``): for every mean over queries, the standard
deviation of the per-query values and a confidence interval: Student's t interval of the mean, or a
bootstrap over queries (percentile, basic or BCa) as scipy.stats.bootstrap computes it, with its seed and
number of resamples. Computed here from the per-query values the evaluation returns."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from ..errors import OptionError
from ..measures.family import GEOMETRIC_FLOOR
from ..results.formats import aligned_lines, number_text
from .aggregate import check_aggregate, plain_mean, summarise, weights_of
from ..progress import counted
from . import student
from .significance import check_trials, counting, resample_batch, scipy_stats

METHODS = ("t", "percentile", "basic", "bca")
PPI_METHODS = ("ppi", "ppi-untuned")  # prediction-powered: an LLM's judgments corrected by people's (statistics/ppi.py)
KINDS = {"percentile": "percentile", "basic": "basic", "bca": "BCa"}  # scipy.stats.bootstrap's names


def check_interval(level: float, method: str, trials: int, seed: int | None) -> None:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise OptionError(f"ci={level!r}: a confidence level between 0 and 1 (0.95; on the command line --ci 95)")
    if method not in METHODS + PPI_METHODS:
        raise OptionError(f"ci_method={method!r} is not one of {', '.join(METHODS + PPI_METHODS)}")
    check_trials(trials)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise OptionError(f"seed={seed!r} must be a whole number or None")


def interval(values: np.ndarray, level: float, method: str, trials: int, seed: int | None, aggregate: str = "mean",
             weights: np.ndarray | None = None) -> tuple[float, float]:
    """The confidence interval of the mean of ``values`` (or of their weighted mean, or their ``aggregate``:
    the bootstrap's only): NaN where there are fewer than two values (or, for the bootstrap, one value
    everywhere, where scipy has no interval either). The t interval of a weighted mean uses the standard
    error sqrt(n / (n - 1) * sum(w^2 (x - m)^2)) / sum(w), which is the usual one when the weights are equal."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan, math.nan
    if method == "t":
        if aggregate != "mean":
            raise OptionError(f"a t interval is of a mean; for aggregate={aggregate} use --ci-method percentile, basic or bca")
        if weights is None:
            centre, sem = values.mean(), np.std(values, ddof=1) / np.sqrt(len(values))  # scipy.stats.sem
        else:
            centre = np.dot(values, weights) / weights.sum()
            n = len(values)
            sem = math.sqrt(n / (n - 1) * np.sum(weights ** 2 * (values - centre) ** 2)) / weights.sum()
        if sem == 0:
            return float(centre), float(centre)
        half = student.quantile((1 + level) / 2, len(values) - 1) * sem  # scipy.stats.t.interval
        return float(centre - half), float(centre + half)
    if np.all(values == values[0]):
        return math.nan, math.nan
    stats = scipy_stats()
    kind = KINDS[method]
    batch = resample_batch(trials, len(values))
    with counted("bootstrap interval", trials) as advance:
        if weights is not None:
            weighted = counting(lambda x, w, axis=-1: np.sum(x * w, axis=axis) / np.sum(w, axis=axis), advance)
            found = stats.bootstrap((values, weights), weighted, paired=True, confidence_level=level,
                                    n_resamples=trials, method=kind, random_state=seed, vectorized=True, batch=batch)
        else:
            statistic = {"mean": np.mean, "median": np.median, "min": np.min, "max": np.max,
                         "gmean": lambda x, axis=-1: np.exp(np.mean(np.log(np.maximum(x, GEOMETRIC_FLOOR)), axis=axis))}
            found = stats.bootstrap((values,), counting(statistic[aggregate], advance), confidence_level=level,
                                    n_resamples=trials, method=kind, random_state=seed, vectorized=True, batch=batch)
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def with_intervals(per_query: pd.DataFrame, summary: pd.DataFrame, level: float, method: str = "t",
                   trials: int = 10_000, seed: int | None = 0, aggregate: str = "mean",
                   weights: pd.Series | None = None) -> pd.DataFrame:
    """The summary (measure, value[, run_id]) with std, ci_low and ci_high of each mean, from the per-query
    rows (query_id, measure, value[, run_id]). A measure whose value is no plain mean over queries (GMAP's
    geometric mean, a weighted mean, a value over the whole catalog) has none: NaN."""
    import numpy as np
    import pandas as pd

    check_interval(level, method, trials, seed)
    if method in PPI_METHODS:
        raise OptionError(f"ci_method={method}: a prediction-powered interval reads two judgment sources (the LLM's and "
                          f"the people's), not one evaluation's values")
    keys = ["run_id", "measure"] if "run_id" in summary.columns else ["measure"]
    check_aggregate(aggregate, weights is not None)
    if method == "t" and aggregate != "mean":
        raise OptionError(f"a t interval is of a mean; for aggregate={aggregate} use ci_method percentile, basic or bca")
    groups = {key if isinstance(key, tuple) else (key,): group.dropna(subset=["value"])
              for key, group in per_query.groupby(keys, sort=False)}
    grouped = {key: group.value.to_numpy() for key, group in groups.items()}
    rows = []
    for record in summary.to_dict("records"):
        key = tuple(record[k] for k in keys)
        values = grouped.get(key, np.array([]))
        if not plain_mean(record["measure"]) or not len(values):
            rows.append({**record, "std": math.nan, "ci_low": math.nan, "ci_high": math.nan})
            continue
        w = weights_of(groups[key].query_id, weights) if weights is not None else None
        low, high = interval(values, level, method, trials, seed, aggregate, w)
        std = float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
        rows.append({**record, "value": summarise(values, aggregate, w), "std": std, "ci_low": low, "ci_high": high})
    frame = pd.DataFrame(rows, columns=list(summary.columns) + ["std", "ci_low", "ci_high"])
    frame.attrs.update(summary.attrs, ci=level, ci_method=method, trials=trials, seed=seed,
                       aggregate="weighted mean" if weights is not None else aggregate)
    return frame


def interval_text(frame: pd.DataFrame) -> str:
    """The summary with its intervals as the command line prints it."""
    level = f"{frame.attrs['ci'] * 100:g}% CI"
    keys = ["run_id", "measure"] if "run_id" in frame.columns else ["measure"]
    header = keys + ["value", "std", level]
    rows = [[str(r[k]) for k in keys] + [number_text(r["value"]), number_text(r["std"]),
                                           "" if math.isnan(r["ci_low"]) else f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]"]
            for r in frame.to_dict("records")]
    method, aggregate = frame.attrs["ci_method"], frame.attrs.get("aggregate", "mean")
    how = ("Student's t interval of the mean" if method == "t" else
           f"bootstrap over queries ({KINDS[method]}, {frame.attrs['trials']} resamples, "
           f"seed={frame.attrs['seed']})")
    of = "" if aggregate == "mean" else f" of the {aggregate}"
    return "\n".join([*aligned_lines(header, rows, left=len(keys)), "",
                      f"{level}{of}: {how}; std: of the per-query values", ""])
