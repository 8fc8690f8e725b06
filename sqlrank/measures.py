"""Measures as small declarative objects, parsed from ir_measures or trec_eval names.

``parse_measures("nDCG@10 AP(rel=2)@100 P.5,10 map")`` gives ``Measure`` objects whose ``str()``
is the canonical, re-parseable name (``nDCG@10``, ``AP(rel=2)@100``, ``P@5``, ``P@10``, ``AP``).
Each family declares its parameters and how to validate them; nothing else reaches SQL.
"""
from __future__ import annotations

import ast
import difflib
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable

from .conventions import CHECKS, DEFAULTS, Conventions
from .errors import MeasureError

from .registry import FAMILIES, Family, real

MAX_MEASURES = 1000  # measures in one evaluation: 1,000 P@k take about 1 s, 10,000 took 38 s
MAX_NAME_LENGTH = 200

# Other spellings people use for the same families (matched case-insensitively).
ALIASES = {alias: f.name for f in FAMILIES.values() for alias in f.aliases}
_BY_LOWER = {name.lower(): name for name in FAMILIES}
_BY_LOWER.update(ALIASES)

_TREC_PLAIN = {t.name: f.name for f in FAMILIES.values() for t in f.trec if t.kind != "cut" and not t.params}
# trec_eval names that are a family with a parameter set.
_TREC_VARIANTS = {t.name: (f.name, t.params) for f in FAMILIES.values() for t in f.trec if t.params}
_TREC_CUT = {t.name: f.name for f in FAMILIES.values() for t in f.trec if t.kind == "cut"}
# ir_measures' names of a family with a parameter set (its SetRelP is trec_eval's set_relative_P).
_IR_MEASURES_VARIANTS = {"setrelp": ("SetP", {"relative": True})}


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
        return Measure(self.family, self.cutoff, tuple(params.items()), self.label)


_ORDER = ("rel", "gain", "discount", "log_base", "ideal", "ap_denominator", "tie_break", "judged_only", "depth",
          "nonpositive_scores", "missing_queries", "unjudged_queries")


def counted(measures: list[Measure]) -> set[str]:
    """The (resolved) measures whose mean may be over fewer queries than were evaluated, by name:
    families with no value for some queries (AUC where a user has one class), and every measure
    when they evaluate different query sets (missing_queries or unjudged_queries set per measure); not those with one
    value over all queries together (Coverage). The summary says over how many queries each is."""
    mixed = len({(m.param("missing_queries"), m.param("unjudged_queries")) for m in measures}) > 1
    return {str(m) for m in measures
            if (mixed or FAMILIES[m.family].partial) and FAMILIES[m.family].aggregate != "catalog"}


def renamed(measures: Iterable[Measure]) -> str | None:
    """The canonical names results give the measures asked by other names, for a result's text:
    'HR@10 = Success@10, map = AP' (None when every name asked is canonical, up to case)."""
    pairs = [f"{m.label} = {m}" for m in measures if m.label and m.label.lower() != str(m).lower()]
    return ", ".join(pairs) if pairs else None


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
        return real(0.0, 1.0)(value, f"the {what} (a recall level)")
    return real(0.0)(value, f"the {what} (a multiple of R)")


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
                parsed = parse_measure(word)
                if len(parsed) == 1:  # the name it was asked by (P.5,10 names several: P@5, P@10)
                    parsed = [Measure(parsed[0].family, parsed[0].cutoff, parsed[0].params, word.strip())]
                measures.extend(parsed)
        else:
            raise MeasureError(f"a measure must be a name or a Measure, not {type(item).__name__}")
    if not measures:
        raise MeasureError("no measure given; try for example -m 'nDCG@10 AP P@10'")
    unique = distinct(measures)
    if len(unique) > MAX_MEASURES:
        raise MeasureError(f"{len(unique):,} measures in one evaluation; at most {MAX_MEASURES:,} (each is a column "
                           f"of one statement, whose planning grows faster than its width): evaluate them in "
                           f"several calls")
    return unique


def distinct(measures: Iterable[Measure]) -> list[Measure]:
    """Each measure once (asked twice, as HR@10 and Success@10: by the first name)."""
    unique: dict[Measure, Measure] = {}
    for m in measures:
        unique.setdefault(m, m)  # equal measures hash alike whatever their label
    return list(unique.values())


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
    kind = family.trec_params
    if kind in ("gains", "gains_p"):
        gains, p = {}, None
        for part in parts:
            key, sep, value = part.partition("=")
            if not sep or not _NUMBER_RE.match(value):
                raise MeasureError(f"bad parameter {part!r} in {name!r}: write label=gain, as in ndcg.1=3,2=9")
            if key == "p" and kind == "gains_p":
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
    if kind == "beta":
        if len(numbers) != 1:
            raise MeasureError(f"set_F takes one parameter, beta, in {name!r}")
        return (("beta", numbers[0]),)
    if kind == "coefficients":
        if len(numbers) != 4:
            raise MeasureError(f"utility takes four coefficients, as in utility.1,-1,0,0, in {name!r}")
        return tuple(zip("abcd", numbers))
    if kind == "levels":
        return (("levels", tuple(numbers)),)
    if kind == "p":
        return (("p", numbers[0]),)
    raise MeasureError(f"{family.trec_name} takes no parameters in trec_eval syntax ({name!r})")


def _parse_ir_measures(name: str) -> list[Measure]:
    head, at, tail = name.partition("@")
    if not head.isidentifier() and head.lower() in ALIASES:  # spellings that are no Python name: r-prec
        name = ALIASES[head.lower()] + at + tail
    try:  # parsed as an expression tree, never evaluated; Python's own warnings about it are not ours
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(name, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise MeasureError(f"cannot parse measure {name!r}; write for example nDCG@10, AP(rel=2)@100 "
                           f"or ndcg_cut.10{_suggest(name)}") from None
    if isinstance(tree, ast.Tuple):  # nDCG@10,AP
        spaced = " ".join(part.strip() for part in name.split(","))
        raise MeasureError(f"cannot parse measure {name!r}: measures are separated by spaces, not commas "
                           f"(-m {spaced!r}, or measures=[...] in Python)")
    cutoff = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff_node, tree = tree.right, tree.left
        if isinstance(cutoff_node, ast.Call):
            raise MeasureError(f"bad cutoff in {name!r}: parameters go before the cutoff, as in "
                               f"nDCG(gain=exponential)@10")
        if (isinstance(cutoff_node, ast.UnaryOp) and isinstance(cutoff_node.op, ast.USub)
                and isinstance(cutoff_node.operand, ast.Constant) and type(cutoff_node.operand.value) in (int, float)):
            raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be positive, not "
                               f"-{cutoff_node.operand.value}")
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
    if tree.id.lower() in _IR_MEASURES_VARIANTS:  # ir_measures' names of a family with a parameter set
        family_name, fixed = _IR_MEASURES_VARIANTS[tree.id.lower()]
        tree, kwargs = ast.Name(id=family_name), {**kwargs, **fixed}
    family = FAMILIES[_family_name(tree.id)]
    if family.name == "NumRet" and "rel" in kwargs:  # ir_measures spells NumRelRet as NumRet(rel=1)
        family = FAMILIES["NumRelRet"]
    if "dcg" in kwargs and "gain" in family.params:
        kwargs = _dcg_formulation(kwargs, name)
    if cutoff is not None and family.cutoff_kind == "rank" and type(cutoff) is not int:
        raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be a positive integer")
    params = tuple(kwargs.items())
    try:
        if cutoff is None and family.cutoff == "required":
            return [Measure(family.name, k, params) for k in family.default_cutoffs]
        return [Measure(family.name, cutoff, params)]
    except MeasureError as exc:  # the name as written replaces the family's name the check gave
        raise MeasureError(f"{re.sub(r' [(]in [^()]*[)]$', '', str(exc))} (in {name!r})") from None


# Words that are values, as sqlrank prints conventions (judged_only=false, depth=none) and ir_measures
# and JSON spell them
_WORD_VALUES = {"true": True, "false": False, "none": None, "null": None}


def _literal(node: ast.AST, name: str) -> object:
    if isinstance(node, ast.Name) and node.id.lower() in _WORD_VALUES:
        return _WORD_VALUES[node.id.lower()]
    if isinstance(node, ast.Name):
        return node.id
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        raise MeasureError(f"parameter values must be numbers, words or {{label: gain}} maps in {name!r}") from None


# ir_measures' nDCG(dcg=...) as sqlrank's conventions ('jarvelin': Jarvelin and Kekalainen's own discount)
DCG_FORMULATIONS = {"log2": {"gain": "linear", "discount": "log"},
                    "exp-log2": {"gain": "exponential", "discount": "log"},
                    "jarvelin": {"discount": "jarvelin"}}


def _dcg_formulation(kwargs: dict[str, object], name: str) -> dict[str, object]:
    """ir_measures' spelling dcg='log2' / 'exp-log2' (and 'jarvelin') as the gain and discount it means;
    given beside a gain or discount that says otherwise, an error."""
    formulation = kwargs.pop("dcg")
    meant = DCG_FORMULATIONS.get(formulation) if isinstance(formulation, str) else None
    if meant is None:
        raise MeasureError(f"dcg must be one of {', '.join(DCG_FORMULATIONS)} (ir_measures' spelling), not "
                           f"{formulation!r} (in {name!r})")
    for key, value in meant.items():
        if kwargs.get(key, value) != value:
            raise MeasureError(f"dcg={formulation!r} means {key}={value}, not {key}={kwargs[key]} (in {name!r})")
    return {**kwargs, **meant}


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
