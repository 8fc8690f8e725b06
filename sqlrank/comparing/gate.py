"""A regression gate for CI (``sqlrank compare QRELS BASE NEW --fail-if RULE``): rules over a comparison's
table, each parsed and checked before anything is evaluated; a rule that holds for a run fails the
build (exit status 1) with one line saying which measure, which run, by how much and the p-value.

Rules (the measure as compare names it, or any name of it: ndcg_cut.10 is nDCG@10):
    "nDCG@10 < -0.01"          the run's mean minus the baseline's (delta) is below -0.01
    "nDCG@10 < -2%"            the delta relative to the baseline's mean is below -2 %
    "AP mean < 0.25"           the run's own mean is below 0.25
    "AP significant-worse"     lower than the baseline's with an adjusted p-value below alpha (0.05)
    "AP significant-better"    higher, likewise (a rule that a change must not be a surprise, say)
Operators: <, <=, >, >=. Rules read the overall rows (not those of segments) of every run but the
baseline.
"""
from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

from ..errors import MeasureError, OptionError
from ..measures.names import named_alike, parse_measures

_OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_RULE = re.compile(r"^\s*(?P<measure>\S+)\s+(?:(?P<kind>delta|mean)\s+)?(?P<op><=|>=|<|>)\s*"
                   r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(?P<percent>%?)\s*$")
_SIGNIFICANT = re.compile(r"^\s*(?P<measure>\S+)\s+significant-(?P<direction>worse|better)\s*$")


@dataclass(frozen=True)
class Rule:
    """One --fail-if rule, parsed: on ``measure`` (canonical), ``kind`` delta, relative, mean or
    significant; for the first three an operator and a threshold, for significant a direction."""

    text: str
    measure: str
    kind: str
    op: str = ""
    threshold: float = math.nan
    direction: str = ""


def parse_rule(text: str) -> Rule:
    """A rule from its text; an OptionError that shows the forms when it is none of them."""
    found = _SIGNIFICANT.match(text)
    if found:
        return Rule(text, _measure(found["measure"], text), "significant", direction=found["direction"])
    found = _RULE.match(text)
    if not found:
        raise OptionError(f"--fail-if {text!r}: not a rule; write for example \"nDCG@10 < -0.01\", \"nDCG@10 < -2%\", "
                          f"\"AP mean < 0.25\" or \"AP significant-worse\"")
    number = float(found["number"])
    kind = "relative" if found["percent"] else found["kind"] or "delta"
    if kind == "relative" and found["kind"] == "mean":
        raise OptionError(f"--fail-if {text!r}: a percentage is relative to the baseline's mean; drop 'mean'")
    return Rule(text, _measure(found["measure"], text), kind, found["op"], number / 100 if found["percent"] else number)


def _measure(name: str, text: str) -> str:
    try:
        parsed = parse_measures(name)
    except MeasureError as exc:
        raise OptionError(f"--fail-if {text!r}: {exc}") from None
    if len(parsed) != 1:
        raise OptionError(f"--fail-if {text!r}: {name} is {len(parsed)} measures; name one (with its cutoff)")
    return str(parsed[0])


def require_measures(rules: list[Rule], measures: str) -> None:
    """Every rule's measure is one of those asked (by any of its names): checked before anything is evaluated."""
    asked = [m.shown for m in parse_measures(measures)]
    for rule in rules:
        if not any(named_alike(rule.measure, name) for name in asked):
            raise OptionError(f"--fail-if {rule.text!r}: {rule.measure} is not compared; add it to -m (compared: "
                              f"{', '.join(asked)})")


def failures(table: pd.DataFrame, rules: list[Rule], alpha: float = 0.05) -> list[str]:
    """One line per rule that holds for a run (none: the gate passes). ``table``: compare's table."""
    if not 0 < alpha < 1:
        raise OptionError(f"alpha {alpha!r} must be between 0 and 1 (0.05)")
    overall = table[table["segment"].isna()] if "segment" in table.columns else table
    measures = list(dict.fromkeys(overall["measure"]))
    lines = []
    for rule in rules:
        named = next((name for name in measures if named_alike(rule.measure, name)), None)  # as asked, or another name
        if named is None:
            raise OptionError(f"--fail-if {rule.text!r}: {rule.measure} is not compared; add it to -m (compared: "
                              f"{', '.join(measures)})")
        rows = overall[overall["measure"] == named]
        base = rows.iloc[0]
        if rule.kind == "relative" and base["mean"] == 0:
            raise OptionError(f"--fail-if {rule.text!r}: the baseline {base['run']}'s mean {rule.measure} is 0, so a "
                              f"change relative to it is undefined; write the rule as a change (\"{rule.measure} "
                              f"{rule.op} 0.01\") or as a mean (\"{rule.measure} mean {rule.op} 0.01\")")
        for row in rows.iloc[1:].itertuples(index=False):
            line = _holds(rule, row, base["mean"], alpha)
            if line:
                lines.append(f"{rule.measure} of {row.run}: {line} (rule: {rule.text.strip()})")
    return lines


def _holds(rule: Rule, row, base_mean: float, alpha: float) -> str | None:
    """What makes the rule hold for this run, in words, or None."""
    p = f"p = {row.p_value:.4g}" + ("" if row.p_value_adjusted == row.p_value else f", adjusted {row.p_value_adjusted:.4g}")
    needed = {"significant": (row.delta, row.p_value_adjusted), "delta": (row.delta,), "mean": (row.mean,),
              "relative": (row.delta, base_mean)}[rule.kind]
    if any(value is None or value != value for value in needed):  # no estimate (NaN, NA): the rule cannot pass
        return (f"cannot be decided: the comparison has no {'mean' if rule.kind == 'mean' else 'difference'} of it for "
                f"this run (an empty row: too few queries, or no estimate of this measure), and a gate that cannot "
                f"be decided fails")
    if rule.kind == "significant":
        worse = row.delta < 0
        if (rule.direction == "worse") == worse and row.p_value_adjusted < alpha:
            return f"{'worse' if worse else 'better'} than the baseline by {row.delta:+.4f}, {p} < {alpha:g}"
        return None
    value = {"delta": row.delta, "mean": row.mean,
             "relative": row.delta / base_mean if rule.kind == "relative" else math.nan}[rule.kind]
    if math.isnan(value) or not _OPERATORS[rule.op](value, rule.threshold):
        return None
    shown = {"delta": f"delta {value:+.4f}", "mean": f"mean {value:.4f}", "relative": f"delta {value:+.2%}"}[rule.kind]
    limit = f"{rule.threshold:+.2%}" if rule.kind == "relative" else f"{rule.threshold:g}"
    return f"{shown} {rule.op} {limit} ({p})"
