"""The mean, variance and standard deviation of a list of floats as numpy computes them, to the bit, in plain Python:
compare and report compute their means and t tests without the tenth of a second numpy's import costs at the
terminal (tests/statistics/test_moments.py checks every size against numpy itself).

numpy adds a contiguous float64 array pairwise (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum): fewer than 8
values from left to right; up to PAIRWISE_BLOCK values in eight running sums, one for each position modulo 8, added
as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) before the last n % 8 values; more than that split in two
halves (the first a multiple of 8 long), each added so, then together."""
from __future__ import annotations

import math
from collections.abc import Sequence

PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE


def pairwise_sum(values: Sequence[float]) -> float:
    """The sum of ``values`` in numpy's pairwise order (numpy.sum of them as a float64 array)."""
    return _pairwise(values, 0, len(values))


def _pairwise(values: Sequence[float], start: int, n: int) -> float:
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    if n <= PAIRWISE_BLOCK:
        r = [float(x) for x in values[start:start + 8]]
        end = start + n - n % 8
        for block in range(start + 8, end, 8):
            for j in range(8):
                r[j] += values[block + j]
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(end, start + n):
            total += values[i]
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, n - half)


def mean(values: Sequence[float]) -> float:
    """numpy.mean(values): NaN for no values."""
    return pairwise_sum(values) / len(values) if len(values) else math.nan


def variance(values: Sequence[float], ddof: int = 0) -> float:
    """numpy.var(values, ddof=ddof): the squared deviations from the mean, added pairwise, over n - ddof (NaN where
    that is not above 0, where numpy warns and gives NaN or infinity)."""
    n = len(values)
    if n - ddof <= 0:
        return math.nan
    centre = pairwise_sum(values) / n
    return pairwise_sum([(x - centre) * (x - centre) for x in values]) / (n - ddof)


def std(values: Sequence[float], ddof: int = 0) -> float:
    """numpy.std(values, ddof=ddof)."""
    return math.sqrt(variance(values, ddof))
