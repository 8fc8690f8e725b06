"""The value types of measure parameters (integer, real, levels, boolean, a choice, a convention)
and ``Param``: a family's parameter with its default and its description; the cutoffs trec_eval
reports by default."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ConventionError, MeasureError
from .conventions import CHECKS, RANKING_FIELDS

# trec_eval's default parameter lists, used when a measure is named without them.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


# ----------------------------------------------------------------- parameter kinds

def integer(minimum: int, maximum: int | None = None) -> Callable[[Any, str], int]:
    def check(value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (maximum and value > maximum):
            limits = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            raise MeasureError(f"{what} must be an integer {limits}, not {value!r}")
        return value
    return check


def real(low: float | None = None, high: float | None = None, open_low: bool = False,
         open_high: bool = False) -> Callable[[Any, str], float]:
    def check(value: Any, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise MeasureError(f"{what} must be a finite number, not {value!r}")
        value = float(value)
        if low is not None and (value < low or (open_low and value == low)):
            raise MeasureError(f"{what} must be {'>' if open_low else '>='} {low:g}, not {value:g}")
        if high is not None and (value > high or (open_high and value == high)):
            raise MeasureError(f"{what} must be {'<' if open_high else '<='} {high:g}, not {value:g}")
        return value
    return check


def label(value: Any, what: str) -> int | float:
    """A label bound such as ERR's max_rel: a number > 0 (labels are real numbers), an int where it is whole."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise MeasureError(f"{what} must be a number > 0 (4, 3.5, ...), not {value!r}")
    return int(value) if isinstance(value, float) and value.is_integer() else value


def source_name(value: Any, what: str) -> str:
    """The name of a judgment source (Judged(source=human)): letters, digits and _."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise MeasureError(f"{what} must be the name of a judgment source (human, llm, ...), not {value!r}")
    return value


def group_name(value: Any, what: str) -> str:
    """A group of documents (Exposure(group=women), Exposure(group='Local news')): a group's name is data, any
    text of one line (quoted in a measure's name where it is no plain word); a number is its digits (group=1)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    if not isinstance(value, str) or not value or len(value) > 200 or re.search(r"[\x00-\x1f\x7f]", value):
        raise MeasureError(f"{what} must be a group's name (one line of text: women, g1, 2, 'Local news'), "
                           f"not {value!r}")
    return value


def convention(name: str) -> Callable[[Any, str], Any]:
    """A convention field used as a measure parameter: the same values, the same checks."""
    def check(value: Any, what: str) -> Any:
        try:
            return CHECKS[name](value)
        except ConventionError as exc:
            raise MeasureError(f"{exc} (in {what.split(' of ', 1)[-1]})") from None
    return check


def levels(value: Any, what: str) -> tuple[float, ...]:
    if isinstance(value, (int, float)):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not value:
        raise MeasureError(f"{what} must be a list of recall levels such as (0.25, 0.5, 0.75), not {value!r}")
    return tuple(real(0.0, 1.0)(v, f"a level of {what}") for v in value)


def boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise MeasureError(f"{what} must be True or False, not {value!r}")
    return value


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its check and its default (None: from the conventions)."""

    check: Callable[[Any, str], Any]
    default: Any = None
    kind: str = "convention"  # how `sqlrank measures` names it: convention, integer, number, ...


# Convention fields as parameters: None means "from the evaluation's conventions".
CONVENTION_PARAMS = {name: Param(convention(name)) for name in
                     ("rel", "gain", "discount", "log_base", "ideal", "ap_denominator", *RANKING_FIELDS,
                      "missing_queries", "unjudged_queries")}
EVALUATION_PARAMS = (*RANKING_FIELDS, "missing_queries", "unjudged_queries")  # every family takes these


def choice(options: tuple[str, ...]) -> Callable[[Any, str], str]:
    def check(value: Any, what: str) -> str:
        if value not in options:
            raise MeasureError(f"{what} must be one of {', '.join(options)}, not {value!r}")
        return value
    return check


def log_base(value: Any, what: str) -> float:
    """A logarithm's base, checked as the log_base convention is (a number > 1, or e)."""
    try:
        return CHECKS["log_base"](value)
    except ConventionError:
        raise MeasureError(f"{what} must be a number > 1 or e, not {value!r}") from None
