"""Student's t distribution in plain Python: the two-sided tail of a paired t test and the quantile of a t interval,
exact to 1e-12 (tests/statistics/test_student.py, against mpmath's arbitrary precision) without importing SciPy, which takes a
fifth of a second of every compare at the terminal. Beyond LARGEST_DF degrees of freedom (10,000 queries), where the
continued fraction loses digits, SciPy's scipy.special.stdtr and stdtrit compute them (as ttest_rel and t.interval
do); there the import is small beside the evaluation.

The tail is the regularised incomplete beta function I_x(df/2, 1/2) at x = df / (df + t^2), by its continued fraction
(Lentz's method, as in Numerical Recipes' betacf), with ln B(df/2, 1/2) from the Stirling series of the difference of
the two log-gammas for large df, where math.lgamma's values are too large to subtract to 1e-12. The quantile is
Newton's method on the tail, kept inside a bracket that halves when a step leaves it."""
from __future__ import annotations

import math
from functools import lru_cache

LARGEST_DF = 10_000
_HALF_LOG_PI = 0.5 * math.log(math.pi)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)  # B_2k / (2k (2k - 1)), k = 1..5


def two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for T of Student's t distribution with ``df`` degrees of freedom (2 * stdtr(df, -|t|))."""
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if df > LARGEST_DF:
        from scipy import special

        return float(2 * special.stdtr(df, -abs(t)))
    if math.isinf(t):
        return 0.0
    t2 = t * t
    if t2 == 0:
        return 1.0
    return _beta_fraction(df / 2, df / (df + t2), t2 / (df + t2))


@lru_cache(maxsize=1024)  # a comparison asks for the same one (0.975, its queries - 1) for every run and measure
def quantile(q: float, df: float) -> float:
    """The q-quantile of Student's t distribution with ``df`` degrees of freedom (stdtrit(df, q), t.ppf)."""
    if math.isnan(q) or math.isnan(df) or df <= 0 or not 0 <= q <= 1:
        return math.nan
    if df > LARGEST_DF:
        from scipy import special

        return float(special.stdtrit(df, q))
    if q == 0.5:
        return 0.0
    if q in (0, 1):
        return math.copysign(math.inf, q - 0.5)
    upper = q > 0.5
    target = 2 * (1 - q) if upper else 2 * q  # the two-sided tail at the quantile's |t|
    low, high = 0.0, 1.0
    while two_sided(high, df) > target:  # a bracket of |t|
        low, high = high, high * 2
    t = (low + high) / 2
    for _ in range(200):
        excess = two_sided(t, df) - target  # falls as t grows
        if excess == 0:
            break
        if excess > 0:
            low = t
        else:
            high = t
        step = excess / (2 * _density(t, df))
        following = t + step
        if not low < following < high:  # Newton left the bracket: halve it
            following = (low + high) / 2
        if abs(following - t) <= 4e-16 * abs(following):
            t = following
            break
        t = following
    return t if upper else -t


def _density(t: float, df: float) -> float:
    """Student's t density at t."""
    return math.exp(-(df + 1) / 2 * math.log1p(t * t / df) - _log_beta_half(df / 2)) / math.sqrt(df)


def _log_beta_half(a: float) -> float:
    """ln B(a, 1/2) = ln Gamma(a) + ln Gamma(1/2) - ln Gamma(a + 1/2), accurate to about 1e-15 for every a > 0."""
    if a < 30:
        return math.lgamma(a) + _HALF_LOG_PI - math.lgamma(a + 0.5)
    series = sum(c * ((a + 0.5) ** -(2 * k + 1) - a ** -(2 * k + 1)) for k, c in enumerate(_STIRLING))
    difference = a * math.log1p(0.5 / a) - 0.5 + 0.5 * math.log(a) + series  # ln Gamma(a + 1/2) - ln Gamma(a)
    return _HALF_LOG_PI - difference


def _beta_fraction(a: float, x: float, y: float) -> float:
    """I_x(a, 1/2), the regularised incomplete beta function, for x in (0, 1] and y = 1 - x given apart (so that
    neither loses digits near 1): its continued fraction where that converges fast, else 1 - I_y(1/2, a)."""
    if y == 0:
        return 1.0
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    front = math.exp(a * log_x + 0.5 * log_y - _log_beta_half(a))
    if x < (a + 1) / (a + 2.5):
        return front * _fraction(a, 0.5, x) / a
    return 1 - front * _fraction(0.5, a, y) / 0.5


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (Numerical Recipes' betacf), by Lentz's method."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                          -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 4e-16:
            break
    return h
