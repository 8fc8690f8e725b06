"""Kendall's tau-b in plain Python (statistics/correlation.py) against SciPy's kendalltau, its reference: lists with
ties in one, the other or both, all ties, two values, and random lists of runs' means."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sqlrank.statistics.correlation import kendall_tau_b

stats = pytest.importorskip("scipy.stats")

CASES = [
    ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]),
    ([1, 1, 2, 3, 3], [2, 1, 2, 3, 4]),  # ties in the first
    ([0.3, 0.1, 0.2], [0.5, 0.5, 0.1]),  # ties in the second
    ([1, 1, 2, 2], [3, 3, 1, 2]),  # a pair tied in both
    ([0.2, 0.4], [0.9, 0.1]),
]


@pytest.mark.parametrize("a, b", CASES)
def test_equals_scipy(a, b):
    assert math.isclose(kendall_tau_b(a, b), stats.kendalltau(a, b).statistic, rel_tol=0, abs_tol=1e-15)


def test_random_means_equal_scipy():
    rng = np.random.default_rng(0)
    for n in (3, 6, 20, 41):
        for _ in range(25):
            a, b = np.round(rng.random(n), 1), np.round(rng.random(n), 1)  # rounded: ties
            assert math.isclose(kendall_tau_b(a.tolist(), b.tolist()), stats.kendalltau(a, b).statistic,
                                rel_tol=0, abs_tol=1e-12)


def test_no_value_where_scipy_has_none():
    assert math.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3])) and math.isnan(stats.kendalltau([1, 1, 1], [1, 2, 3]).statistic)
    assert math.isnan(kendall_tau_b([1], [2]))
    with pytest.raises(ValueError):
        kendall_tau_b([1, 2], [1])
