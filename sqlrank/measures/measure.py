"""``Measure``: one measure as a value (family, cutoff, parameters), printed by its canonical
name; the names a family is known by, and the suggestion for an unknown one."""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from ..errors import MeasureError
from .conventions import CHECKS, DEFAULTS, Conventions
from .family import Family
from .params import real
from .registry import FAMILIES

MAX_MEASURES = 1000  # measures in one evaluation: 1,000 P@k take about 1 s, 10,000 took 38 s
MAX_NAME_LENGTH = 200

# Other spellings people use for the same families (matched case-insensitively).
ALIASES = {alias: f.name for f in FAMILIES.values() for alias in f.aliases}

TREC_PLAIN = {t.name: f.name for f in FAMILIES.values() for t in f.trec if t.kind != "cut" and not t.params}
# trec_eval names that are a family with a parameter set.
TREC_VARIANTS = {t.name: (f.name, t.params) for f in FAMILIES.values() for t in f.trec if t.params}
TREC_CUT = {t.name: f.name for f in FAMILIES.values() for t in f.trec if t.kind == "cut"}


@dataclass(frozen=True)
class Measure:
    """One measure: a family, an optional cutoff and explicit parameters (sorted name, value pairs).

    A parameter that is not given takes its value from the evaluation's conventions (``rel``)
    or the family's default.
    """

    family: str
    cutoff: int | float | None = None
    params: tuple[tuple[str, Any], ...] = ()
    label: str | None = field(default=None, compare=False, repr=False)  # the name it was asked by: HR@10
    aliases: tuple[str, ...] = field(default=(), compare=False, repr=False)  # other names it was asked by: Success@10

    def __post_init__(self) -> None:
        spec = FAMILIES.get(self.family)
        if spec is None:
            raise MeasureError(f"unknown measure family {self.family!r}{suggest(self.family)}")
        if self.cutoff is not None:
            if spec.cutoff == "none":
                raise MeasureError(f"{self.family} takes no cutoff (drop the '@{self.cutoff}')")
            object.__setattr__(self, "cutoff", _check_cutoff(self.cutoff, spec))
        elif spec.cutoff == "required":
            example = {"rank": 10, "fraction": 0.5, "multiple": 1.0}[spec.cutoff_kind]
            raise MeasureError(f"{self.family} needs a cutoff, for example {self.family}@{example}")
        checked = {}
        given = dict(self.params)
        stated = {name for name, when in spec.stated  # kept at their default (the browsing model of fairness)
                  if when is None or given.get(when[0], spec.params[when[0]].default) == when[1]}
        for name, value in given.items():
            param = spec.params.get(name)
            if param is None:
                if name == "rel":
                    raise MeasureError(
                        f"{self.family} takes no 'rel' parameter: its gains are the raw relevance labels")
                allowed = ", ".join(spec.params) or "none"
                raise MeasureError(f"{self.family} has no parameter {name!r} (allowed: {allowed})")
            value = param.check(value, f"{name} of {self.family}")
            if value != param.default or param.default is None or name in stated:  # RBP(p=0.9) is RBP
                checked[name] = value
        object.__setattr__(self, "params", tuple(sorted(checked.items())))

    @property
    def spec(self) -> Family:
        return FAMILIES[self.family]

    def param(self, name: str) -> Any:
        """The parameter's value: given, else the family's default, else trec_eval's convention."""
        given = dict(self.params)
        if name in given:
            return given[name]
        if name not in self.spec.params:  # a convention this family does not take
            return getattr(DEFAULTS, name) if name in CHECKS else None
        default = self.spec.params[name].default
        return getattr(DEFAULTS, name) if default is None and name in CHECKS else default

    @property
    def shown(self) -> str:
        """The name results give it: as it was asked (HR@10, MAP@10), else its canonical name (str)."""
        return self.label or str(self)

    @property
    def rel(self) -> int | float | None:
        return dict(self.params).get("rel")

    @property
    def relevance_level(self) -> int | float:
        return 1 if self.rel is None else self.rel

    def __str__(self) -> str:
        params = ",".join(f"{k}={_format_value(v)}" for k, v in _display_order(self.params))
        params = f"({params})" if params else ""
        cutoff = f"@{_format_value(self.cutoff)}" if self.cutoff is not None else ""
        return f"{self.family}{params}{cutoff}"

    def resolve(self, conventions: Conventions | int) -> "Measure":
        """This measure with the evaluation's conventions filled in where it sets none of its own.
        The name keeps what differs from trec_eval's conventions (an int is a relevance level)."""
        if isinstance(conventions, (int, float)):
            conventions = Conventions(rel=conventions)
        given = dict(self.params)
        params = {}
        for name, param in self.spec.params.items():
            if name in given:
                value = given[name]
            elif name in CHECKS:
                value = getattr(conventions, name)
            else:
                continue
            default = getattr(DEFAULTS, name) if name in CHECKS else param.default
            if value != default:
                params[name] = value
        values = {**{name: param.default for name, param in self.spec.params.items()}, **given}
        for name, when in self.spec.stated:  # stated even at its default (browse=log)
            if when is None or values.get(when[0]) == when[1]:
                params[name] = values[name]
        return replace(self, params=tuple(params.items()))


_ORDER = ("rel", "gain", "discount", "log_base", "ideal", "ap_denominator", "tie_break", "judged_only", "depth",
          "nonpositive_scores", "missing_queries", "unjudged_queries")


def counted(measures: list[Measure]) -> set[str]:
    """The (resolved) measures whose mean may be over fewer queries than were evaluated, by the names results give:
    families with no value for some queries (AUC where a user has one class), and every measure
    when they evaluate different query sets (missing_queries or unjudged_queries set per measure); not those with one
    value over all queries together (Coverage). The summary says over how many queries each is."""
    mixed = len({(m.param("missing_queries"), m.param("unjudged_queries")) for m in measures}) > 1
    return {m.shown for m in measures
            if (mixed or FAMILIES[m.family].partial) and FAMILIES[m.family].aggregate != "catalog"}


def named_as_asked(measures: Iterable[Measure]) -> list[Measure]:
    """Each measure, and after it each other name it was asked by (HR@10 Success@10: both), so that every name asked
    has its values; the statement computes the measure once."""
    return [Measure(m.family, m.cutoff, m.params, name) if m.aliases else m
            for m in measures for name in (m.label, *m.aliases)]


def renamed(measures: Iterable[Measure]) -> str | None:
    """What the names results give the measures asked by other names stand for, canonically, for a result's text:
    'HR@10 = Success@10, map = AP', the other names a measure was asked by too (None when every name asked is
    canonical, up to case)."""
    pairs = [f"{name} = {m}" for m in measures for name in (m.label, *m.aliases)
             if name and name.lower() != str(m).lower()]
    return ", ".join(pairs) if pairs else None


def _display_order(params: tuple) -> list:
    """Conventions first in a fixed order, then the family's own parameters by name."""
    return sorted(params, key=lambda kv: (_ORDER.index(kv[0]) if kv[0] in _ORDER else len(_ORDER), kv[0]))


# Words that are values, as sqlrank prints conventions (judged_only=false, depth=none) and ir_measures
# and JSON spell them: a text that spells one is printed quoted
WORD_VALUES = {"true": True, "false": False, "none": None, "null": None}


def _format_value(value: Any) -> str:
    if isinstance(value, float) and value == math.e:
        return "e"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(int(value)) + ".0" if value.is_integer() and abs(value) < 1e16 else repr(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{k}:{_format_value(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "(" + ",".join(_format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, str) and not (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*|[0-9]+", value)
                                       and value.lower() not in WORD_VALUES):
        return repr(value)  # a group's name such as 'Local news' or 'none': quoted, so that it reads back
    return str(value)


def _check_cutoff(value: Any, spec: Family) -> int | float:
    what = f"cutoff of {spec.name}"
    if spec.cutoff_kind == "rank":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise MeasureError(f"bad cutoff: the {what} must be a positive integer, not {value!r}")
        return value
    if spec.cutoff_kind == "fraction":
        return real(0.0, 1.0)(value, f"the {what} (a recall level)")
    return real(0.0)(value, f"the {what} (a multiple of R)")


def known_names() -> list[str]:
    names = set(FAMILIES) | set(TREC_PLAIN) | set(TREC_CUT) | set(ALIASES) | set(TREC_VARIANTS)
    return sorted(names)


def suggest(word: str) -> str:
    head = re.split(r"[@(.]", word, maxsplit=1)[0]
    lowered = {n.lower(): n for n in known_names()}
    lowered.update({n.lower(): n for n in FAMILIES})  # show nDCG rather than ndcg
    close = difflib.get_close_matches(head.lower(), list(lowered), n=3, cutoff=0.5)
    if not close:
        return f"; known measures: {', '.join(FAMILIES)}"
    return "; did you mean " + " or ".join(repr(lowered[c]) for c in close) + "?"
