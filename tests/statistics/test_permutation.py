"""The paired randomisation test written out (statistics/permutation.py) is scipy.stats.permutation_test's: the same
null distribution, float for float, and the same p-value, on exact tests (2^n assignments within the trials) and
random ones, drawn at once or in blocks, with ties, zero differences and near-equal scores."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import peer
from sqlrank.statistics import permutation
from sqlrank.statistics.significance import paired_test


def scipy_test(x, y, trials, seed, batch):
    stats = peer("scipy.stats")
    return stats.permutation_test((x, y), lambda u, v, axis=-1: np.mean(u - v, axis=axis), permutation_type="samples",
                                  n_resamples=trials, vectorized=True, batch=batch, alternative="two-sided",
                                  random_state=np.random.default_rng(seed))


def pairs():
    rng = np.random.default_rng(2026)
    for queries in (2, 3, 9, 12, 13, 40, 301):
        x = np.round(rng.random(queries), 2)  # two decimals: many ties and zero differences
        yield queries, x, np.round(rng.random(queries), 2)
        yield queries, x, x + rng.normal(0, 1e-3, queries)  # differences near zero, either sign


@pytest.mark.parametrize("trials, batch", [(1000, None), (5000, None), (1000, 7), (10_000, 333)])
def test_null_distribution_and_p_value_are_scipy_s(trials, batch):
    for seed, (queries, x, y) in enumerate(pairs()):
        expected = scipy_test(x, y, trials, seed, batch)
        exact = trials >= 2 ** queries
        swaps = permutation._every_swap(queries, batch) if exact else permutation._random_swaps(queries, trials, batch,
                                                                                                   seed)
        null = np.concatenate([permutation._mean_difference(x - y, s) for s in swaps])
        # an exact test's assignments come in another order (the count does not depend on it), a random one's in SciPy's
        assert np.array_equal(np.sort(null) if exact else null,
                              np.sort(expected.null_distribution) if exact else expected.null_distribution), queries
        assert permutation.permutation_p_value(x, y, trials, seed, batch) == expected.pvalue, (queries, trials)


def test_the_paired_test_counts_every_trial():
    counted = []
    x, y = np.arange(20.0), np.arange(20.0)[::-1]
    p = permutation.permutation_p_value(x, y, 1000, 3, 300, counted.append)
    assert counted == [300, 300, 300, 100] and p == scipy_test(x, y, 1000, 3, 300).pvalue
    assert paired_test(x, y, "permutation", trials=1000, seed=3).p_value == p
