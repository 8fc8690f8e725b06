"""Statistics: paired significance tests and multiple-comparison corrections.

Distributions and resampling come from SciPy (a dependency of sqlrank), except Student's t (statistics/student.py)
and the permutation test (statistics/permutation.py: SciPy's, without the second its import costs);
this module only decides which function answers which question and names the conventions:

- the difference is ``run - baseline`` per query, over the queries both runs were evaluated on;
- every test is two-sided at the 95% level;
- ``ci_low, ci_high`` is a 95% confidence interval of the mean difference: Student's t interval,
  or with the bootstrap test the bootstrap (BCa) interval;
- ``effect_size`` is Cohen's d for paired samples (mean difference / its standard deviation, d_z)
  for t, permutation and bootstrap; the matched-pairs rank-biserial correlation for Wilcoxon;
  (wins - losses) / (wins + losses) for the sign test.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import OptionError
from ..progress import counted
from . import moments, student
from ..measures.conventions import CORRECTIONS, TESTS  # noqa: F401  (also imported from here)

if TYPE_CHECKING:
    import numpy as np

NAN = float("nan")


@dataclass(frozen=True)
class PairedTest:
    p_value: float
    ci_low: float
    ci_high: float
    effect_size: float


def _t_test(diff: list[float]) -> tuple[float, float, float]:
    """The paired t test of the differences, as scipy.stats.ttest_rel computes it: the two-sided p-value and the
    95% confidence interval of the mean difference (numpy's mean and variance to the bit: statistics/moments.py)."""
    n = len(diff)
    mean, se = moments.mean(diff), math.sqrt(moments.variance(diff, ddof=1) / n)
    t = mean / se if se else math.copysign(math.inf, mean) if mean else NAN  # as numpy divides by 0
    half = student.quantile(0.975, n - 1) * se
    return student.two_sided(float(t), n - 1), mean - half, mean + half


def scipy_stats():
    try:
        from scipy import stats
    except ImportError:
        raise OptionError("comparing runs needs SciPy for its distributions (a dependency of sqlrank): "
                          "pip install scipy") from None
    return stats


MAX_TRIALS = 10_000_000  # resamples of any test or interval: 80 MB of distribution, drawn in blocks


def check_trials(trials: int) -> None:
    """The one bound of --trials (trials=) for every command that resamples."""
    if isinstance(trials, bool) or not isinstance(trials, int) or not 100 <= trials <= MAX_TRIALS:
        raise OptionError(f"trials {trials!r} must be a whole number from 100 to {MAX_TRIALS} (10000 is usual; more "
                          f"only narrows the resampling's own noise)")


def check_test(test: str, trials: int, seed: int | None) -> None:
    if test not in TESTS:
        raise OptionError(f"test {test!r} is not one of {', '.join(TESTS)}")
    check_trials(trials)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise OptionError(f"seed {seed!r} must be a whole number of at least 0")


def paired_test(run: Sequence[float], baseline: Sequence[float], test: str = "t", trials: int = 10_000,
                seed: int | None = 0) -> PairedTest:
    """Compare per-query scores ``run`` with ``baseline`` (same queries, same order). The t test needs no numpy;
    the others are SciPy's or resample with numpy."""
    diff = [float(a) - float(b) for a, b in zip(run, baseline, strict=True)]
    n = len(diff)
    if n < 2 or not any(diff):  # nothing varies: every test is undefined
        return PairedTest(NAN, *_t_interval(diff), NAN)
    if test == "t":
        return PairedTest(*_t_test(diff), _cohen_dz(diff))
    import numpy as np

    run, baseline = np.asarray(run, dtype=float), np.asarray(baseline, dtype=float)
    if test == "permutation":
        from .permutation import permutation_p_value

        with counted("permutation test", trials) as advance:
            p = permutation_p_value(run, baseline, trials, seed, resample_batch(trials, n), advance)
        return PairedTest(p, *_t_interval(diff), _cohen_dz(diff))
    stats = scipy_stats()
    if test == "wilcoxon":
        result = stats.wilcoxon(run, baseline)
        return PairedTest(float(result.pvalue), *_t_interval(diff), _rank_biserial(run - baseline, stats))
    if test == "sign":
        wins, losses = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
        p = stats.binomtest(wins, wins + losses, 0.5).pvalue
        return PairedTest(float(p), *_t_interval(diff), (wins - losses) / (wins + losses))
    if test == "bootstrap":
        return _bootstrap(run - baseline, trials, seed, stats)
    raise OptionError(f"test {test!r} is not one of {', '.join(TESTS)}")


def counting(statistic, advance):
    """STATISTIC of a vectorised resampling, telling ADVANCE how many resamples each call computed (its
    progress line); the values are STATISTIC's own."""
    import numpy as np

    def counted_statistic(*samples, axis=-1):
        value = statistic(*samples, axis=axis)
        advance(int(np.shape(value)[0]) if np.ndim(value) else 1)
        return value
    return counted_statistic


RESAMPLED_VALUES = 1 << 22  # values of one block of resamples (a few 32 MB arrays at a time)


def resample_batch(trials: int, queries: int) -> int | None:
    """How many resamples SciPy draws at a time: all of them while that is small (SciPy's default,
    None), else blocks of RESAMPLED_VALUES values, so that memory does not grow with --trials
    (10 million trials on 3,000 queries took hundreds of GB in one block)."""
    if trials * queries <= RESAMPLED_VALUES:
        return None
    return max(1, RESAMPLED_VALUES // max(queries, 1))


def _t_interval(diff: Sequence[float]) -> tuple[float, float]:
    n = len(diff)
    if n < 2:
        return NAN, NAN
    mean = moments.mean(diff)
    half = student.quantile(0.975, n - 1) * moments.std(diff, ddof=1) / math.sqrt(n)
    return mean - half, mean + half


def _cohen_dz(diff: Sequence[float]) -> float:
    sd = moments.std(diff, ddof=1)
    return moments.mean(diff) / sd if sd > 0 else NAN


def _rank_biserial(diff: np.ndarray, stats) -> float:
    """(sum of the ranks of positive differences - of negative ones) / their total, zeros dropped
    (the differences Wilcoxon's test ranks with its default zero_method)."""
    import numpy as np

    nonzero = diff[diff != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    total = ranks.sum()
    return float((ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()) / total)


def _bootstrap(diff: np.ndarray, trials: int, seed: int | None, stats) -> PairedTest:
    """SciPy's BCa interval of the mean difference; the p-value by the shift method: how often
    the bootstrap mean moves at least as far from the observed mean as the observed mean is
    from 0 ((count + 1) / (trials + 1), as a resampling p-value is never 0)."""
    import numpy as np

    with counted("bootstrap", trials) as advance:
        result = stats.bootstrap((diff,), counting(np.mean, advance), n_resamples=trials, confidence_level=0.95,
                                 method="BCa", vectorized=True, batch=resample_batch(trials, len(diff)),
                                 random_state=np.random.default_rng(seed))
    observed = float(np.mean(diff))
    distribution = np.asarray(result.bootstrap_distribution)
    extreme = int(np.sum(np.abs(distribution - observed) >= abs(observed)))
    p = (extreme + 1) / (len(distribution) + 1)
    interval = result.confidence_interval
    return PairedTest(p, float(interval.low), float(interval.high), _cohen_dz(diff))


def adjust(p_values: list[float], correction: str) -> list[float]:
    """p-values adjusted for all comparisons together; undefined ones (NaN) stay NaN and do not count."""
    if correction not in CORRECTIONS:
        raise OptionError(f"correction {correction!r} is not one of {', '.join(CORRECTIONS)}")
    p = [float(x) for x in p_values]
    defined = [i for i, x in enumerate(p) if not math.isnan(x)]
    values = [p[i] for i in defined]
    m = len(values)
    if m == 0 or correction == "none":
        return p
    if correction == "bonferroni":
        adjusted = [min(x * m, 1.0) for x in values]
    elif correction == "holm":  # step-down: the k-th smallest times (m - k), never below the one before it
        adjusted, stepped = [0.0] * m, 0.0
        for k, i in enumerate(sorted(range(m), key=values.__getitem__)):
            stepped = max(stepped, values[i] * (m - k))
            adjusted[i] = min(stepped, 1.0)
    else:
        adjusted = [float(x) for x in scipy_stats().false_discovery_control(values, method="bh")]
    for i, x in zip(defined, adjusted):
        p[i] = x
    return p
