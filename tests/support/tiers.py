"""Matrices split across the test tiers: the first cases of a parametrized matrix run in the default tier
(python3 -m pytest), the others in the slow tier (-m slow), so that CI still runs every case."""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import pytest


def tiered(values: Sequence[Any], default: int = 1) -> list:
    """``values`` for parametrize, the first ``default`` of them in the default tier and the rest marked slow
    (a tuple is the values of several argument names)."""
    return [value if at < default else pytest.param(*(value if isinstance(value, tuple) else (value,)),
                                                     marks=pytest.mark.slow)
            for at, value in enumerate(values)]


def pairwise_first(levels: Sequence[Sequence[Any]]) -> list[tuple]:
    """Every combination of the factors' levels, ordered so that the first ones (``covering`` counts them) hold
    every pair of levels of every two factors (a greedy covering array), then the rest."""
    combos = list(itertools.product(*levels))
    wanted = {((i, a), (j, b)) for i, j in itertools.combinations(range(len(levels)), 2)
              for a in levels[i] for b in levels[j]}
    first: list[tuple] = []
    while wanted:
        best = max(combos, key=lambda c: len(pairs_of(c) & wanted))
        first.append(best)
        combos.remove(best)
        wanted -= pairs_of(best)
    return first + combos


def pairs_of(combo: tuple) -> set:
    return {((i, combo[i]), (j, combo[j])) for i, j in itertools.combinations(range(len(combo)), 2)}


def covering(levels: Sequence[Sequence[Any]]) -> int:
    """How many of pairwise_first's combinations cover every pair of levels."""
    first, wanted = 0, set().union(*map(pairs_of, itertools.product(*levels)))
    for combo in pairwise_first(levels):
        if not wanted:
            return first
        wanted -= pairs_of(combo)
        first += 1
    return first
