"""Measures as small declarative objects, parsed from ir_measures or trec_eval names.

``parse_measures("nDCG@10 AP(rel=2)@100 P.5,10 map")`` gives ``Measure`` objects whose ``str()``
is the canonical, re-parseable name (``nDCG@10``, ``AP(rel=2)@100``, ``P@5``, ``P@10``, ``AP``).
Each family declares its parameters and how to validate them; nothing else reaches SQL.
"""
from __future__ import annotations

import ast
import warnings
import difflib
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .conventions import CHECKS, DEFAULTS, RANKING_FIELDS, Conventions
from .errors import ConventionError, MeasureError

# trec_eval's default parameter lists, used when a measure is named without them.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

MAX_NAME_LENGTH = 200


# ----------------------------------------------------------------- parameter kinds

def _integer(minimum: int) -> Callable[[Any, str], int]:
    def check(value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise MeasureError(f"{what} must be an integer >= {minimum}, not {value!r}")
        return value
    return check


def _real(low: float | None = None, high: float | None = None, open_low: bool = False,
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


def _convention(name: str) -> Callable[[Any, str], Any]:
    """A convention field used as a measure parameter: the same values, the same checks."""
    def check(value: Any, what: str) -> Any:
        try:
            return CHECKS[name](value)
        except ConventionError as exc:
            raise MeasureError(f"{exc} (in {what.split(' of ', 1)[-1]})") from None
    return check


def _levels(value: Any, what: str) -> tuple[float, ...]:
    if isinstance(value, (int, float)):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not value:
        raise MeasureError(f"{what} must be a list of recall levels such as (0.25, 0.5, 0.75), not {value!r}")
    return tuple(_real(0.0, 1.0)(v, f"a level of {what}") for v in value)


def _boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise MeasureError(f"{what} must be True or False, not {value!r}")
    return value


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its check and its default (None: from the conventions)."""

    check: Callable[[Any, str], Any]
    default: Any = None


# Convention fields as parameters: None means "from the evaluation's conventions".
CONVENTION_PARAMS = {name: Param(_convention(name)) for name in
                     ("rel", "gain", "discount", "log_base", "ideal", "ap_denominator", *RANKING_FIELDS,
                      "missing_queries")}
EVALUATION_PARAMS = (*RANKING_FIELDS, "missing_queries")  # every family takes these


@dataclass(frozen=True)
class Family:
    """What a measure family is: its parameters, cutoff rule, aggregation and SQL template."""

    name: str
    template: str
    description: str
    params: dict[str, Param]
    cutoff: str = "optional"  # "none", "optional" or "required"
    cutoff_kind: str = "rank"  # "rank" (positive integer), "fraction" (0..1), "multiple" (>= 0)
    default_cutoffs: tuple = ()  # required cutoffs: when named without; optional: trec_eval's cut name
    aggregate: str = "mean"  # "mean", "sum" (counts) or "geometric" (gm_map, gm_bpref)
    integer: bool = False
    trec_name: str | None = None  # trec_eval name without cutoff (``map``, ``ndcg``)
    trec_cut_name: str | None = None  # trec_eval name with cutoffs (``map_cut``, ``ndcg_cut``)


def _family(name, template, description, params=(), **kw) -> Family:
    """A Family whose params are named: convention fields by name, others as (name, Param).
    Every family also takes the conventions that decide the ranking and the query set."""
    resolved = dict((p, CONVENTION_PARAMS[p]) if isinstance(p, str) else p for p in params)
    resolved.update({p: CONVENTION_PARAMS[p] for p in EVALUATION_PARAMS})
    return Family(name, template, description, resolved, **kw)


FAMILIES: dict[str, Family] = {f.name: f for f in (
    _family("P", "precision_recall", "precision: relevant documents in the top k, divided by k",
            ["rel"], cutoff="required", default_cutoffs=TREC_CUTOFFS, trec_cut_name="P"),
    _family("R", "precision_recall", "recall: relevant documents in the top k, divided by all relevant (R)",
            ["rel"], cutoff="required", default_cutoffs=TREC_CUTOFFS, trec_cut_name="recall"),
    _family("Success", "precision_recall", "1 if any relevant document is in the top k, else 0",
            ["rel"], cutoff="required", default_cutoffs=SUCCESS_CUTOFFS, trec_cut_name="success"),
    _family("relative_P", "precision_recall", "relevant documents in the top k, divided by min(k, R)",
            ["rel"], cutoff="required", default_cutoffs=TREC_CUTOFFS, trec_cut_name="relative_P"),
    _family("AP", "ap", "average precision: mean of the precision at each relevant document, over R",
            ["rel", "ap_denominator"], default_cutoffs=TREC_CUTOFFS, trec_name="map", trec_cut_name="map_cut"),
    _family("GMAP", "ap", "AP, averaged over queries by the geometric mean of max(AP, 1e-5)",
            ["rel"], cutoff="none", aggregate="geometric", trec_name="gm_map"),
    _family("YAAP", "ap", "yet another AP: ln((1 + S) / (1 + R - S)), S = sum of the precision at each relevant",
            ["rel"], cutoff="none", trec_name="yaap"),
    _family("RR", "rr", "reciprocal rank of the first relevant document", ["rel"], trec_name="recip_rank"),
    _family("Rprec", "precision_recall", "precision at rank R (the number of relevant documents)",
            ["rel"], cutoff="none", trec_name="Rprec"),
    _family("Rprec_mult", "precision_recall", "precision at rank floor(x * R + 0.9)",
            ["rel"], cutoff="required", cutoff_kind="multiple", default_cutoffs=R_MULTIPLES,
            trec_cut_name="Rprec_mult"),
    _family("IPrec", "iprec", "interpolated precision at recall level x (max precision at recall >= x)",
            ["rel"], cutoff="required", cutoff_kind="fraction", default_cutoffs=RECALL_LEVELS,
            trec_cut_name="iprec_at_recall"),
    _family("IPrecAvg", "iprec", "mean interpolated precision over recall levels (11-point average)",
            ["rel", ("levels", Param(_levels, RECALL_LEVELS))], cutoff="none", trec_name="11pt_avg"),
    _family("Bpref", "bpref", "binary preference: 1 - judged non-relevant above each relevant, over R",
            ["rel"], cutoff="none", trec_name="bpref"),
    _family("GMBpref", "bpref", "Bpref, averaged over queries by the geometric mean of max(bpref, 1e-5)",
            ["rel"], cutoff="none", aggregate="geometric", trec_name="gm_bpref"),
    _family("infAP", "bpref", "inferred AP (Yilmaz and Aslam): AP estimated from a sampled pool",
            ["rel"], cutoff="none", trec_name="infAP"),
    _family("binG", "ndcg", "binary G: sum over relevant of 1 / log2(2 + non-relevant above), over R",
            ["rel"], cutoff="none", trec_name="binG"),
    _family("nDCG", "ndcg", "DCG divided by the DCG of the ideal ranking of all judgments",
            ["gain", "discount", "log_base", "ideal"], default_cutoffs=TREC_CUTOFFS, trec_name="ndcg", trec_cut_name="ndcg_cut"),
    _family("DCG", "ndcg", "discounted cumulative gain: sum of gain / log2(rank + 1)",
            ["gain", "discount", "log_base"], trec_name="dcg"),
    _family("IdealDCG", "ndcg", "DCG of the ideal ranking of all judgments",
            ["gain", "discount", "log_base", "ideal"], trec_name="ideal_dcg"),
    _family("CG", "ndcg", "cumulative gain: sum of the gains of the retrieved documents", ["gain"]),
    _family("nDCG_rel", "ndcg_variants", "nDCG averaged at each relevant document (trec_eval ndcg_rel)",
            ["gain"], cutoff="none", trec_name="ndcg_rel"),
    _family("Rndcg", "ndcg_variants", "nDCG averaged at the ranks where the ideal gain changes (0 when R = 0)",
            ["gain", "rel"], cutoff="none", trec_name="Rndcg"),
    _family("G", "ndcg_variants", "normalized gain G (trec_eval, experimental)", ["gain"], cutoff="none",
            trec_name="G"),
    _family("RBP", "rbp", "rank-biased precision (1 - p) * sum of gain * p^(rank - 1)",
            [("p", Param(_real(0.0, 1.0, open_low=True, open_high=True), 0.9))], cutoff="none",
            trec_name="rbp"),
    _family("RBPResid", "rbp", "RBP residual: the mass RBP leaves to unjudged documents and the tail",
            [("p", Param(_real(0.0, 1.0, open_low=True, open_high=True), 0.9))], cutoff="none",
            trec_name="rbp_resid"),
    _family("Unj", "counts", "fraction of the top k not judged (absent from the qrels or negative)",
            cutoff="required", default_cutoffs=UNJ_CUTOFFS, trec_cut_name="unj"),
    _family("SetP", "set", "num_rel_ret / num_ret (relative=True: / min(num_ret, R))",
            ["rel", ("relative", Param(_boolean, False))], cutoff="none", trec_name="set_P"),
    _family("SetR", "set", "num_rel_ret / R", ["rel"], cutoff="none", trec_name="set_recall"),
    _family("SetAP", "set", "num_rel_ret^2 / (num_ret * R)", ["rel"], cutoff="none", trec_name="set_map"),
    _family("SetF", "set", "(beta + 1) * P * R / (beta * P + R) on the whole retrieved set (beta unsquared)",
            ["rel", ("beta", Param(_real(0.0, open_low=True), 1.0))], cutoff="none", trec_name="set_F"),
    _family("Utility", "set", "a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret",
            ["rel", ("a", Param(_real(), 1.0)), ("b", Param(_real(), -1.0)), ("c", Param(_real(), 0.0)),
             ("d", Param(_real(), 0.0)), ("num_docs", Param(_integer(0), 0))], cutoff="none",
            trec_name="utility"),
    _family("NumQ", "counts", "number of queries evaluated", cutoff="none", aggregate="sum", integer=True,
            trec_name="num_q"),
    _family("NumRet", "counts", "number of documents retrieved", cutoff="none", aggregate="sum",
            integer=True, trec_name="num_ret"),
    _family("NumRel", "counts", "number of relevant documents in the judgments (R)", ["rel"],
            cutoff="none", aggregate="sum", integer=True, trec_name="num_rel"),
    _family("NumRelRet", "counts", "number of relevant documents retrieved", ["rel"], cutoff="none",
            aggregate="sum", integer=True, trec_name="num_rel_ret"),
    _family("NumNonRelJudgedRet", "counts", "retrieved documents judged non-relevant (0 <= label < rel)",
            ["rel"], cutoff="none", aggregate="sum", integer=True, trec_name="num_nonrel_judged_ret"),
)}

# Other spellings people use for the same families (matched case-insensitively).
ALIASES = {
    "precision": "P", "recall": "R", "map": "AP", "mrr": "RR", "recip_rank": "RR",
    "ndcg": "nDCG", "hit_rate": "Success", "hitrate": "Success", "r-prec": "Rprec",
}
_BY_LOWER = {name.lower(): name for name in FAMILIES}
_BY_LOWER.update(ALIASES)

_TREC_PLAIN = {f.trec_name: f.name for f in FAMILIES.values() if f.trec_name}
# trec_eval names that are a family with a parameter set.
_TREC_VARIANTS = {"set_relative_P": ("SetP", (("relative", True),))}
_TREC_CUT = {f.trec_cut_name: f.name for f in FAMILIES.values() if f.trec_cut_name}


@dataclass(frozen=True)
class Measure:
    """One measure: a family, an optional cutoff and explicit parameters (sorted name, value pairs).

    A parameter that is not given takes its value from the evaluation's conventions (``rel``)
    or the family's default.
    """

    family: str
    cutoff: int | float | None = None
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        spec = FAMILIES.get(self.family)
        if spec is None:
            raise MeasureError(f"unknown measure family {self.family!r}{_suggest(self.family)}")
        if self.cutoff is not None:
            if spec.cutoff == "none":
                raise MeasureError(f"{self.family} takes no cutoff (drop the '@{self.cutoff}')")
            object.__setattr__(self, "cutoff", _check_cutoff(self.cutoff, spec))
        elif spec.cutoff == "required":
            example = {"rank": 10, "fraction": 0.5, "multiple": 1.0}[spec.cutoff_kind]
            raise MeasureError(f"{self.family} needs a cutoff, for example {self.family}@{example}")
        checked = {}
        for name, value in dict(self.params).items():
            param = spec.params.get(name)
            if param is None:
                if name == "rel":
                    raise MeasureError(
                        f"{self.family} takes no 'rel' parameter: its gains are the raw relevance labels")
                allowed = ", ".join(spec.params) or "none"
                raise MeasureError(f"{self.family} has no parameter {name!r} (allowed: {allowed})")
            value = param.check(value, f"{name} of {self.family}")
            if value != param.default or param.default is None:  # RBP(p=0.9) is RBP
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
    def rel(self) -> int | None:
        return dict(self.params).get("rel")

    @property
    def relevance_level(self) -> int:
        return 1 if self.rel is None else self.rel

    def __str__(self) -> str:
        params = ",".join(f"{k}={_format_value(v)}" for k, v in _display_order(self.params))
        params = f"({params})" if params else ""
        cutoff = f"@{_format_value(self.cutoff)}" if self.cutoff is not None else ""
        return f"{self.family}{params}{cutoff}"

    def resolve(self, conventions: Conventions | int) -> "Measure":
        """This measure with the evaluation's conventions filled in where it sets none of its own.
        The name keeps what differs from trec_eval's conventions (an int is a relevance level)."""
        if isinstance(conventions, int):
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
        return Measure(self.family, self.cutoff, tuple(params.items()))


_ORDER = ("rel", "gain", "discount", "log_base", "ideal", "ap_denominator", "tie_break", "judged_only", "depth",
          "missing_queries")


def _display_order(params: tuple) -> list:
    """Conventions first in a fixed order, then the family's own parameters by name."""
    return sorted(params, key=lambda kv: (_ORDER.index(kv[0]) if kv[0] in _ORDER else len(_ORDER), kv[0]))


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
    return str(value)


def _check_cutoff(value: Any, spec: Family) -> int | float:
    what = f"cutoff of {spec.name}"
    if spec.cutoff_kind == "rank":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise MeasureError(f"bad cutoff: the {what} must be a positive integer, not {value!r}")
        return value
    if spec.cutoff_kind == "fraction":
        return _real(0.0, 1.0)(value, f"the {what} (a recall level)")
    return _real(0.0)(value, f"the {what} (a multiple of R)")


# ------------------------------------------------------------------------- parsing

def parse_measures(spec: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names; a string may hold several, separated by white space.

    >>> [str(m) for m in parse_measures("nDCG@10 P.5,10 map")]
    ['nDCG@10', 'P@5', 'P@10', 'AP']
    """
    items = [spec] if isinstance(spec, (str, Measure)) else list(spec)
    measures: list[Measure] = []
    for item in items:
        if isinstance(item, Measure):
            measures.append(item)
        elif isinstance(item, str):
            for word in split_words(item):
                measures.extend(parse_measure(word))
        else:
            raise MeasureError(f"a measure must be a name or a Measure, not {type(item).__name__}")
    if not measures:
        raise MeasureError("no measure given; try for example -m 'nDCG@10 AP P@10'")
    unique: list[Measure] = []
    for m in measures:
        if m not in unique:
            unique.append(m)
    return unique


def parse_measure(text: str) -> list[Measure]:
    """Parse one measure name; trec_eval names without a cutoff may give several measures."""
    name = text.strip()
    if not name:
        raise MeasureError("empty measure name")
    if len(name) > MAX_NAME_LENGTH:
        raise MeasureError(f"measure name is longer than {MAX_NAME_LENGTH} characters: {name[:40]!r}...")
    trec = parse_trec_measure(name)
    if trec is not None:
        return trec
    return _parse_ir_measures(name)


def split_words(text: str) -> list[str]:
    words, depth, current = [], 0, []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch.isspace() and depth <= 0:
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


_TREC_RE = re.compile(r"^([A-Za-z_0-9]+?)(?:\.(.*))?$")
_TREC_UNDERSCORE_RE = re.compile(r"^([A-Za-z_]+?)_([0-9]+(?:\.[0-9]+)?)$")
_NUMBER_RE = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def parse_trec_measure(name: str) -> list[Measure] | None:
    """trec_eval syntax (``ndcg_cut.10,20``, ``P_5``, ``map``, ``ndcg.1=3,2=9``), or None if not one."""
    m = _TREC_UNDERSCORE_RE.match(name)
    if m and m.group(1) in _TREC_CUT:  # P_5, ndcg_cut_10, iprec_at_recall_0.10 (as trec_eval prints them)
        family = FAMILIES[_TREC_CUT[m.group(1)]]
        return [Measure(family.name, _trec_cutoff(m.group(2), family, name))]
    m = _TREC_RE.match(name)
    if not m:
        return None
    base, params = m.group(1), m.group(2)
    if base in _TREC_VARIANTS and params is None:
        family, params = _TREC_VARIANTS[base]
        return [Measure(family, None, params)]
    if base not in _TREC_CUT and base not in _TREC_PLAIN:
        if params is not None and "(" not in name and "@" not in name:
            raise MeasureError(f"unknown trec_eval measure {base!r}{_suggest(base)}")
        return None
    if params is None:
        if base in FAMILIES:  # P, Rprec, G, binG ...: the ir_measures path handles defaults
            return None
        if base in _TREC_PLAIN:
            return [Measure(_TREC_PLAIN[base])]
        family = FAMILIES[_TREC_CUT[base]]
        return [Measure(family.name, k) for k in family.default_cutoffs]
    if base in _TREC_CUT:
        family = FAMILIES[_TREC_CUT[base]]
        cutoffs = [p for p in params.split(",") if p]
        if not cutoffs:
            raise MeasureError(f"no cutoff after the dot in {name!r}; write for example {base}.10")
        return [Measure(family.name, _trec_cutoff(c, family, name)) for c in cutoffs]
    return [Measure(_TREC_PLAIN[base], None, _trec_params(FAMILIES[_TREC_PLAIN[base]], params, name))]


def _trec_cutoff(text: str, family: Family, name: str) -> int | float:
    if not _NUMBER_RE.match(text):
        raise MeasureError(f"bad cutoff {text!r} in {name!r}: cutoffs are numbers, as in {family.trec_cut_name}.10")
    value = _finite(text, name)
    if family.cutoff_kind == "rank":
        if value < 1:
            raise MeasureError(f"bad cutoff {text!r} in {name!r}: cutoffs are positive integers")
        return int(value)  # trec_eval truncates: ndcg_cut.23.4 is ndcg_cut_23
    return value


def _finite(text: str, name: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise MeasureError(f"{text!r} in {name!r} is too large for a number (it must be finite)")
    return value


def _trec_params(family: Family, params: str, name: str) -> tuple:
    """Free parameter lists: ``ndcg.1=3,2=9``, ``rbp.p=0.95``, ``set_F.0.5``, ``utility.2,-1,0,0``."""
    parts = [p for p in params.split(",") if p]
    if not parts:
        raise MeasureError(f"no parameters after the dot in {name!r}")
    if family.name in ("nDCG", "DCG", "IdealDCG", "nDCG_rel", "Rndcg", "G", "RBP"):
        gains, p = {}, None
        for part in parts:
            key, sep, value = part.partition("=")
            if not sep or not _NUMBER_RE.match(value):
                raise MeasureError(f"bad parameter {part!r} in {name!r}: write label=gain, as in ndcg.1=3,2=9")
            if key == "p" and family.name == "RBP":
                p = _finite(value, name)
            elif re.fullmatch(r"[+-]?[0-9]+", key):
                gains[int(key)] = _finite(value, name)
            else:
                raise MeasureError(f"bad parameter {part!r} in {name!r}: the label must be an integer")
        out = []
        if gains:
            out.append(("gain", gains))
        if p is not None:
            out.append(("p", p))
        return tuple(out)
    numbers = []
    for part in parts:
        if not _NUMBER_RE.match(part):
            raise MeasureError(f"bad parameter {part!r} in {name!r}: expected numbers separated by commas")
        numbers.append(_finite(part, name))
    if family.name == "SetF":
        if len(numbers) != 1:
            raise MeasureError(f"set_F takes one parameter, beta, in {name!r}")
        return (("beta", numbers[0]),)
    if family.name == "Utility":
        if len(numbers) != 4:
            raise MeasureError(f"utility takes four coefficients, as in utility.1,-1,0,0, in {name!r}")
        return tuple(zip("abcd", numbers))
    if family.name == "IPrecAvg":
        return (("levels", tuple(numbers)),)
    if family.name == "RBPResid":
        return (("p", numbers[0]),)
    raise MeasureError(f"{family.trec_name} takes no parameters in trec_eval syntax ({name!r})")


def _parse_ir_measures(name: str) -> list[Measure]:
    try:  # parsed as an expression tree, never evaluated; Python's own warnings about it are not ours
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(name, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise MeasureError(f"cannot parse measure {name!r}; write for example nDCG@10, AP(rel=2)@100 "
                           f"or ndcg_cut.10{_suggest(name)}") from None
    cutoff = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff_node, tree = tree.right, tree.left
        if isinstance(cutoff_node, ast.Call):
            raise MeasureError(f"bad cutoff in {name!r}: parameters go before the cutoff, as in "
                               f"nDCG(gain=exponential)@10")
        if not (isinstance(cutoff_node, ast.Constant) and type(cutoff_node.value) in (int, float)):
            raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be a number")
        cutoff = cutoff_node.value
    kwargs: dict[str, object] = {}
    if isinstance(tree, ast.Call):
        if tree.args:
            raise MeasureError(f"parameters must be named in {name!r}, as in AP(rel=2)")
        for kw in tree.keywords:
            if kw.arg is None:
                raise MeasureError(f"cannot parse parameters of {name!r}")
            kwargs[kw.arg] = _literal(kw.value, name)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise MeasureError(f"cannot parse measure {name!r}; write for example nDCG@10 or AP(rel=2)@100")
    family = FAMILIES[_family_name(tree.id)]
    if family.name == "NumRet" and "rel" in kwargs:  # ir_measures spells NumRelRet as NumRet(rel=1)
        family = FAMILIES["NumRelRet"]
    if cutoff is not None and family.cutoff_kind == "rank" and type(cutoff) is not int:
        raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be a positive integer")
    params = tuple(kwargs.items())
    try:
        if cutoff is None and family.cutoff == "required":
            return [Measure(family.name, k, params) for k in family.default_cutoffs]
        return [Measure(family.name, cutoff, params)]
    except MeasureError as exc:
        raise MeasureError(f"{exc} (in {name!r})") from None


def _literal(node: ast.AST, name: str) -> object:
    if isinstance(node, ast.Name) and node.id not in ("True", "False", "None"):
        return node.id
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        raise MeasureError(f"parameter values must be numbers, words or {{label: gain}} maps in {name!r}") from None


def _family_name(word: str) -> str:
    if word in FAMILIES:
        return word
    found = _BY_LOWER.get(word.lower())
    if found is None:
        raise MeasureError(f"unknown measure {word!r}{_suggest(word)}")
    return found


def trec_name(measure: Measure) -> str | None:
    """The name trec_eval prints for a measure with trec_eval's parameters, or None."""
    spec = measure.spec
    if measure.cutoff is not None:
        if spec.trec_cut_name is None:
            return None
        if spec.cutoff_kind == "rank":
            return f"{spec.trec_cut_name}_{measure.cutoff}"
        return f"{spec.trec_cut_name}_{measure.cutoff:.2f}"
    for name, (family, params) in _TREC_VARIANTS.items():
        if measure.family == family and measure.params == params:
            return name
    return spec.trec_name


def known_names() -> list[str]:
    names = set(FAMILIES) | set(_TREC_PLAIN) | set(_TREC_CUT) | set(ALIASES) | set(_TREC_VARIANTS)
    return sorted(names)


def _suggest(word: str) -> str:
    head = re.split(r"[@(.]", word, maxsplit=1)[0]
    lowered = {n.lower(): n for n in known_names()}
    lowered.update({n.lower(): n for n in FAMILIES})  # show nDCG rather than ndcg
    close = difflib.get_close_matches(head.lower(), list(lowered), n=3, cutoff=0.5)
    if not close:
        return f"; known measures: {', '.join(FAMILIES)}"
    return "; did you mean " + " or ".join(repr(lowered[c]) for c in close) + "?"
