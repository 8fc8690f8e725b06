"""Measures of an approximate nearest-neighbour search against exact search (``sqlrank eval --reference``), by
distances rather than ids, as ann-benchmarks measures them (its plotting/metrics.py): a returned neighbour counts
when its distance is within the k-th exact distance plus a tolerance, so that ties at the boundary (common with
quantised vectors) do not count as misses. Parsed from their names (``Recall@10``, ``Recall(epsilon=0.01)@10``,
``DistanceRatio@10``) into validated ``Neighbours`` before any SQL sees them.

- Recall@k: per query, how many of the approximate top k are at a distance <= d_k + tolerance (d_k the k-th exact
  distance; ``tolerance``, default 1e-3, ann-benchmarks' "k-nn" recall), or <= d_k (1 + epsilon) with ``epsilon``
  (its "epsilon" recall: 0.01, and "largeepsilon": 0.1), divided by k; the mean over queries.
- DistanceRatio@k: the approximate top k's distances summed over the exact top k's, rank by rank; neighbours the
  approximate search did not return (fewer than the exact top k holds, or none) are at an infinite distance, as
  ann-benchmarks pads its results; per query that ratio, over all queries the ratio of the sums (ann-benchmarks'
  "rel": infinite where the exact distances sum to less than 0.01).
With similarities (higher is nearer) Recall's tolerance is subtracted from the k-th similarity; epsilon and
DistanceRatio are relative to a distance and read distances only. Ids are not compared (an id-based recall is
``sqlrank overlap``'s Overlap@k, faiss's k-NN intersection).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from ..errors import MeasureError
from .similarity import parsed_once

FAMILIES = {"Recall": "the approximate top k within the k-th exact distance plus a tolerance, over k",
            "DistanceRatio": "the approximate top k's distances summed over the exact top k's"}
_NAME = re.compile(r"^(?P<family>[A-Za-z_]+)(?:\((?P<param>[a-z_]+)=(?P<value>[^()=,]+)\))?@(?P<cutoff>[0-9]+)$")
TOLERANCE = 1e-3  # ann-benchmarks' knn_threshold epsilon


@dataclass(frozen=True)
class Neighbours:
    """One validated measure of an approximate search: family, cutoff k, and Recall's absolute tolerance or
    relative epsilon (one of them; tolerance 1e-3 when neither is given)."""

    family: str
    cutoff: int
    tolerance: float | None = None
    epsilon: float | None = None
    label: str | None = field(default=None, compare=False)  # the name it was asked by (recall@3): its rows' name

    @property
    def shown(self) -> str:
        """The name its rows carry: as asked."""
        return self.label or str(self)

    def __str__(self) -> str:
        param = f"(epsilon={self.epsilon!r})" if self.epsilon is not None else \
            f"(tolerance={self.tolerance!r})" if self.tolerance not in (None, TOLERANCE) else ""
        return f"{self.family}{param}@{self.cutoff}"


def parse_neighbours(spec: str | Iterable[str]) -> list[Neighbours]:
    """Measures against a reference search from names separated by spaces (or a list of names), each checked;
    duplicates once."""
    return parsed_once(spec, parse_one, "Recall@10 Recall(epsilon=0.01)@10 DistanceRatio@10")


def parse_one(name: str) -> Neighbours:
    """One measure, named as asked."""
    return replace(_parse_one(name), label=name.strip())


def _parse_one(name: str) -> Neighbours:
    found = _NAME.match(name.strip())
    if not found:
        raise MeasureError(f"cannot parse {name!r} against a reference search; write for example Recall@10, "
                           f"Recall(epsilon=0.01)@10 or DistanceRatio@10 (a cutoff is required)")
    family = {f.lower(): f for f in FAMILIES}.get(found["family"].lower())
    if family is None:
        raise MeasureError(f"{name!r}: against a reference search the measures are {', '.join(FAMILIES)} "
                           f"(Recall@10, DistanceRatio@10)")
    cutoff = int(found["cutoff"])
    if cutoff < 1:
        raise MeasureError(f"{name!r}: the cutoff is a number of neighbours, 1 or more")
    param, value = found["param"], found["value"]
    if param is None:
        return Neighbours(family, cutoff, TOLERANCE if family == "Recall" else None)
    if family != "Recall" or param not in ("tolerance", "epsilon"):
        raise MeasureError(f"{name!r}: only Recall takes a parameter, tolerance=X (absolute) or epsilon=X (relative)")
    try:
        number = float(value)
    except ValueError:
        raise MeasureError(f"{name!r}: {param} must be a number, not {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise MeasureError(f"{name!r}: {param} must be a finite number >= 0")
    return Neighbours(family, cutoff, number if param == "tolerance" else None, number if param == "epsilon" else None)
