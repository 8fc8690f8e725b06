"""Student's t distribution of statistics/student.py (the paired t test's p-value, the t interval's quantile) against
mpmath's arbitrary precision (40 digits): the regularised incomplete beta function I_x(df/2, 1/2) at
x = df / (df + t^2) is the two-sided tail, and the quantile is where the exact tail meets its target. SciPy's own
stdtrit is less exact near the median (q = 0.5000001, df = 4: 2.66560e-07 where the quantile is 2.66667e-07), so
mpmath, not SciPy, is the reference; test_compare.py and test_uncertainty.py check the p-values and intervals
that compare and eval print against scipy.stats where SciPy is exact."""
from __future__ import annotations

import math
import random

import pytest

from conftest import peer
from sqlrank.statistics import student


def exact_tail(mp, t: float, df: float):
    x = mp.mpf(df) / (df + mp.mpf(t) ** 2)
    return mp.betainc(mp.mpf(df) / 2, mp.mpf(1) / 2, 0, x, regularized=True)


def exact_density(mp, t: float, df: float):
    half = mp.mpf(df) / 2
    return (mp.gamma(half + mp.mpf(1) / 2) / (mp.sqrt(df * mp.pi) * mp.gamma(half))
            * (1 + mp.mpf(t) ** 2 / df) ** (-(df + 1) / mp.mpf(2)))


def test_two_sided_tail_is_exact():
    """3,000 random (df, t): df 1 to 10,000 (beyond it SciPy computes), |t| from 1e-6 to 300; relative error
    below 1e-12 wherever the tail is a double (above 1e-290; below it, a number under 1e-280)."""
    mp = peer("mpmath")
    mp.mp.dps = 40
    rng = random.Random(3)
    for _ in range(3_000):
        df = rng.choice([rng.randint(1, 60), rng.randint(1, 1_000), rng.randint(1_000, student.LARGEST_DF)])
        t = rng.choice([1, -1]) * 10 ** rng.uniform(-6, 2.5)
        expected = exact_tail(mp, t, df)
        got = student.two_sided(t, df)
        if expected < mp.mpf("1e-290"):
            assert got < 1e-280, (df, t, got)
        else:
            assert abs(float((got - expected) / expected)) < 1e-12, (df, t, got, float(expected))


def test_quantile_is_exact():
    """600 random (df, q), q over the whole (0, 1) and up to 1 - 1e-12: the exact tail at the quantile found is
    the target's, the difference in t (the tail's over the density) below 1e-12 of t."""
    mp = peer("mpmath")
    mp.mp.dps = 40
    rng = random.Random(5)
    for _ in range(600):
        df = rng.choice([rng.randint(1, 60), rng.randint(1, student.LARGEST_DF)])
        q = rng.choice([rng.uniform(0.5, 1), 1 - 10 ** rng.uniform(-12, -1), rng.uniform(1e-9, 0.5)])
        t = student.quantile(q, df)
        assert (t > 0) == (q > 0.5)
        target = 2 * (1 - mp.mpf(q)) if q > 0.5 else 2 * mp.mpf(q)
        off = (exact_tail(mp, t, df) - target) / (2 * exact_density(mp, t, df))
        assert abs(float(off / t)) < 1e-12, (df, q, t)


def test_edges_and_the_large_df_path():
    """No test where t is infinite (p 0) or zero (p 1); quantiles 0, 1 and 0.5; past 10,000 degrees of
    freedom SciPy's functions give the numbers (the same calls scipy.stats.ttest_rel and t.ppf make)."""
    from scipy import special, stats

    assert student.two_sided(math.inf, 5) == 0 and student.two_sided(0.0, 5) == 1
    assert math.isnan(student.two_sided(math.nan, 5)) and math.isnan(student.quantile(0.5, 0))
    assert student.quantile(0.5, 7) == 0 and student.quantile(1, 7) == math.inf and student.quantile(0, 7) == -math.inf
    df = student.LARGEST_DF + 1
    assert student.two_sided(2.0, df) == 2 * special.stdtr(df, -2.0)
    assert student.quantile(0.975, df) == stats.t.ppf(0.975, df)


@pytest.mark.parametrize("df", [1, 2, 9, 59, 999])
def test_equals_scipy_where_scipy_is_exact(df):
    """Away from the median, SciPy's stdtr and stdtrit (what ttest_rel and t.interval compute) agree to 1e-12."""
    from scipy import special

    for t in (0.5, 1.0, 1.96, 2.5, 4.0, 10.0):
        assert student.two_sided(t, df) == pytest.approx(2 * special.stdtr(df, -t), rel=1e-12)
    for q in (0.9, 0.95, 0.975, 0.99, 0.999):
        assert student.quantile(q, df) == pytest.approx(special.stdtrit(df, q), rel=1e-12)
