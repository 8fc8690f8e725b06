"""statistics/moments.py against numpy itself, to the bit: the sum, mean, variance and standard deviation of float64
arrays of every size up to past two pairwise blocks, and of larger ones past numpy's buffer (8,192), with values of
mixed signs and magnitudes (whose sums depend on the order they are added in), and with NaN and infinities."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from sqlrank.statistics import moments

SIZES = list(range(0, 300)) + [383, 384, 385, 1000, 8191, 8192, 8193, 20_001, 100_003]


def arrays(size: int, count: int, rng: random.Random) -> list[list[float]]:
    return [[rng.choice((1, -1)) * rng.random() * 10.0 ** rng.randint(-8, 8) for _ in range(size)]
            for _ in range(count)]


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("size", SIZES)
def test_the_moments_are_numpys_to_the_bit(size):
    rng = random.Random(size)
    for values in arrays(size, 12 if size < 400 else 2, rng):
        array = np.array(values, dtype=float)
        assert same(moments.pairwise_sum(values), float(np.sum(array)))
        if size:
            assert same(moments.mean(values), float(np.mean(array)))
            assert same(moments.variance(values), float(np.var(array)))
            assert same(moments.std(values), float(np.std(array)))
        if size > 1:
            assert same(moments.variance(values, ddof=1), float(np.var(array, ddof=1)))
            assert same(moments.std(values, ddof=1), float(np.std(array, ddof=1)))


def test_numpy_arrays_and_special_values_give_numpys_results():
    """A numpy array (as the pair tests pass) gives what its list gives; NaN and infinities go as numpy's do; no
    values have no mean, and one value no sample variance."""
    rng = random.Random(7)
    for size in (3, 9, 130, 1000):
        for special in (math.nan, math.inf, -math.inf):
            values = arrays(size, 1, rng)[0]
            values[rng.randrange(size)] = special
            array = np.array(values)
            with np.errstate(invalid="ignore"):
                expected = float(np.sum(array)), float(np.mean(array)), float(np.var(array, ddof=1))
            assert all(map(same, (moments.pairwise_sum(array), moments.mean(array), moments.variance(array, 1)),
                           expected))
    assert math.isnan(moments.mean([])) and math.isnan(moments.variance([2.0], ddof=1))
    assert moments.pairwise_sum([]) == 0.0
