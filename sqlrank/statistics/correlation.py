"""Kendall's tau-b of two lists of values in plain Python (what scipy.stats.kendalltau computes by default), so that
a command that ranks a handful of systems (sqlrank meta) needs no SciPy import, which costs it half a second.

tau_b = (C - D) / sqrt((P - T_a)(P - T_b)): C and D the concordant and discordant pairs, P = n(n - 1)/2 all pairs,
T_a and T_b the pairs tied in each list (a pair tied in both counts in T_a and T_b and in neither C nor D). NaN where
a list is all ties or has fewer than two values, as SciPy's. Every pair is looked at: O(n^2) for the dozens of runs
a comparison holds."""
from __future__ import annotations

import math
from typing import Sequence


def kendall_tau_b(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two equally long lists (scipy.stats.kendalltau(a, b).statistic)."""
    if len(a) != len(b):
        raise ValueError("kendall_tau_b takes two lists of the same length")
    n = len(a)
    concordant = discordant = tied_a = tied_b = 0
    for i in range(n):
        for j in range(i + 1, n):
            da, db = a[i] - a[j], b[i] - b[j]
            tied_a += da == 0
            tied_b += db == 0
            if da * db > 0:
                concordant += 1
            elif da * db < 0:
                discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_a) * (pairs - tied_b))
    return (concordant - discordant) / denominator if denominator else math.nan
