"""The paired randomisation test without importing scipy.stats (a second of a command's start).

It is ``scipy.stats.permutation_test((run, baseline), mean difference, permutation_type="samples",
vectorized=True, alternative="two-sided", random_state=numpy Generator)`` step for step:

- each query's pair is swapped or not. When ``trials`` reaches the 2^n assignments of n queries, every assignment
  is tried once (the exact test). Otherwise the generator's ``permuted`` is drawn on the same array of index pairs,
  in the same blocks, so the same seed gives the same swaps;
- the statistic is the mean of x - y over arrays laid out as SciPy lays them out, so its sums run in the same order
  and give the same floats;
- a null value within 100 machine epsilons of the observed one counts as equal. A random test adds one to the count
  and to the trials; the two-sided p-value is twice the smaller tail, at most 1.

tests/comparing/test_compare.py and tests/statistics/test_permutation.py hold it to SciPy's own function.
"""
from __future__ import annotations

import numpy as np

EXACT_BLOCK = 1 << 16  # assignments of one block of the exact test


def permutation_p_value(run: np.ndarray, baseline: np.ndarray, trials: int, seed: int | None,
                        batch: int | None = None, advance=lambda count: None) -> float:
    """The two-sided p-value of the mean of ``run - baseline`` under random swaps of each query's pair, drawn
    ``batch`` at a time (None: all at once); ``advance(count)`` after each block (a progress line)."""
    run, baseline = np.asarray(run, dtype=float), np.asarray(baseline, dtype=float)
    queries = len(run)
    difference = run - baseline
    observed = np.mean(difference)
    exact = queries < 63 and trials >= 2 ** queries
    null = []
    for swapped in (_every_swap(queries, batch) if exact else _random_swaps(queries, trials, batch, seed)):
        null.append(_mean_difference(difference, swapped))
        advance(len(swapped))
    distribution = np.concatenate(null)
    count = 2 ** queries if exact else trials
    adjustment = 0 if exact else 1
    gamma = abs(np.finfo(float).eps * 100 * observed)
    less = (np.count_nonzero(distribution <= observed + gamma) + adjustment) / (count + adjustment)
    greater = (np.count_nonzero(distribution >= observed - gamma) + adjustment) / (count + adjustment)
    return float(np.clip(min(less, greater) * 2, 0.0, 1.0))


def _mean_difference(difference: np.ndarray, swapped: np.ndarray) -> np.ndarray:
    """Per assignment (a row of SWAPPED, one flag per query), the mean of the differences, a swapped query's negated
    (y - x is exactly -(x - y)). The array is in SciPy's layout, assignments varying fastest, so the mean adds the
    queries in SciPy's order."""
    signed = np.asfortranarray(np.where(swapped, -difference, difference))
    return np.mean(signed, axis=-1)


def _every_swap(queries: int, batch: int | None):
    """Every assignment of swaps, in blocks (their order does not change a count)."""
    total = 2 ** queries
    block = min(batch or total, EXACT_BLOCK)
    bits = np.arange(queries, dtype=np.int64)
    for start in range(0, total, block):
        codes = np.arange(start, min(start + block, total), dtype=np.int64)
        yield ((codes[:, None] >> bits) & 1).astype(bool)


def _random_swaps(queries: int, trials: int, batch: int | None, seed: int | None):
    """SciPy's random assignments: the generator's ``permuted`` of every query's index pair, block by block."""
    rng = np.random.default_rng(seed)
    block = min(batch or trials, trials)
    indices = np.tile(np.arange(2), (block, queries, 1))
    for start in range(0, trials, block):
        permuted = rng.permuted(indices, axis=-1)[:min(block, trials - start)]
        yield permuted[:, :, 0] == 1
