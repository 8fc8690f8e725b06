"""The uncertainty of one run's means (``sqlrank eval --ci 95``): for every mean over queries, the standard
deviation of the per-query values and a confidence interval: Student's t interval of the mean, or a
bootstrap over queries (percentile or BCa) as scipy.stats.bootstrap computes it, with its seed and
number of resamples. Computed here from the per-query values the evaluation returns."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..errors import OptionError
from ..measures.registry import FAMILIES
from ..measures.names import parse_measures
from .statistics import scipy_stats

METHODS = ("t", "percentile", "bca")


def check_interval(level: float, method: str, trials: int, seed: int | None) -> None:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise OptionError(f"ci={level!r}: a confidence level between 0 and 1 (0.95; on the command line --ci 95)")
    if method not in METHODS:
        raise OptionError(f"ci_method={method!r} is not one of {', '.join(METHODS)}")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 100:
        raise OptionError(f"trials={trials!r}: at least 100 bootstrap resamples")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise OptionError(f"seed={seed!r} must be a whole number or None")


def interval(values: np.ndarray, level: float, method: str, trials: int, seed: int | None) -> tuple[float, float]:
    """The confidence interval of the mean of ``values``: NaN where there are fewer than two values (or,
    for the bootstrap, one value everywhere, where scipy has no interval either)."""
    stats = scipy_stats()
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan, math.nan
    if method == "t":
        sem = stats.sem(values)
        if sem == 0:
            return float(values.mean()), float(values.mean())
        low, high = stats.t.interval(level, len(values) - 1, loc=values.mean(), scale=sem)
        return float(low), float(high)
    if np.all(values == values[0]):
        return math.nan, math.nan
    found = stats.bootstrap((values,), np.mean, confidence_level=level, n_resamples=trials,
                            method="BCa" if method == "bca" else "percentile", random_state=seed, vectorized=True)
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def with_intervals(per_query: pd.DataFrame, summary: pd.DataFrame, level: float, method: str = "t",
                   trials: int = 10_000, seed: int | None = 0) -> pd.DataFrame:
    """The summary (measure, value[, run_id]) with std, ci_low and ci_high of each mean, from the per-query
    rows (query_id, measure, value[, run_id]). A measure whose value is no plain mean over queries (GMAP's
    geometric mean, a weighted mean, a value over the whole catalog) has none: NaN."""
    check_interval(level, method, trials, seed)
    keys = ["run_id", "measure"] if "run_id" in summary.columns else ["measure"]
    grouped = {key if isinstance(key, tuple) else (key,): group.value.dropna().to_numpy()
               for key, group in per_query.groupby(keys, sort=False)}
    rows = []
    for record in summary.to_dict("records"):
        key = tuple(record[k] for k in keys)
        values = grouped.get(key, np.array([]))
        if not _plain_mean(record["measure"]) or not len(values):
            rows.append({**record, "std": math.nan, "ci_low": math.nan, "ci_high": math.nan})
            continue
        low, high = interval(values, level, method, trials, seed)
        std = float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
        rows.append({**record, "std": std, "ci_low": low, "ci_high": high})
    frame = pd.DataFrame(rows, columns=list(summary.columns) + ["std", "ci_low", "ci_high"])
    frame.attrs.update(summary.attrs, ci=level, ci_method=method, trials=trials, seed=seed)
    return frame


def _plain_mean(name: str) -> bool:
    try:
        return FAMILIES[parse_measures(name)[0].family].aggregate == "mean"
    except Exception:  # a name sqlrank printed but cannot read back: no interval rather than a wrong one
        return False


def interval_text(frame: pd.DataFrame) -> str:
    """The summary with its intervals as the command line prints it."""
    level = f"{frame.attrs['ci'] * 100:g}% CI"
    keys = ["run_id", "measure"] if "run_id" in frame.columns else ["measure"]
    header = keys + ["value", "std", level]
    rows = [[str(r[k]) for k in keys] + [_cell(r["value"]), _cell(r["std"]),
                                           "" if math.isnan(r["ci_low"]) else f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]"]
            for r in frame.to_dict("records")]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(f"{c:<{w}}" if i < len(keys) else f"{c:>{w}}" for i, (c, w) in enumerate(zip(cells, widths))
                         ).rstrip()

    method = frame.attrs["ci_method"]
    how = ("Student's t interval of the mean" if method == "t" else
           f"bootstrap over queries ({'BCa' if method == 'bca' else 'percentile'}, {frame.attrs['trials']} resamples, "
           f"seed {frame.attrs['seed']})")
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows), "",
                      f"{level}: {how}; std: of the per-query values", ""])


def _cell(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"
