"""The public functions of diagnosing: sqlrank.check and sqlrank.explain."""
from __future__ import annotations

from typing import Any

from ..errors import OptionError


def check(qrels: Any, runs: Any, measures: Any = None, **options: Any):
    """What in the data can change a number (``sqlrank check``): a DataFrame of findings with the
    columns check, input, count, changes_numbers, message. ``runs``: one run or a list; ``measures``
    set the cutoffs whose ties are counted; ``rel``, ``history``, ``items``, ``groups``, the input options of
    evaluate(), and several judgment sources (``qrels`` a list or dict, ``prefer``, ``combine``)."""
    from .check import check as checks
    from .check import findings_frame

    many = isinstance(runs, (list, tuple))
    return findings_frame(checks(qrels, list(runs) if many else [runs], measures, **options))


def explain(qrels: Any, run: Any, measure: Any, target: float | str | None = None, between: tuple | None = None,
            **options: Any):
    """Which conventions reproduce a number (``target``: the value as printed, e.g. "0.7512"; a DataFrame
    of measure, value, matches, best first), or how each convention that differs between two presets
    moves a value, query by query (``between=("trec_eval", "ranx")``; query_id, step, convention, before,
    after, delta). Options: ``tolerance``, ``query``, ``run_id`` and those of evaluate()."""
    from . import explain as explaining

    if (target is None) == (between is None):
        raise OptionError("give target= (a value to reproduce) or between=(start, end), one of them")
    if target is not None:
        return explaining.reproduce(qrels, run, measure, target, **options)
    return explaining.attribute(qrels, run, measure, *between, **options)
