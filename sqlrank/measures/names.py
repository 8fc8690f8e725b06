"""Measures as small declarative objects, parsed from ir_measures or trec_eval names.

``parse_measures("nDCG@10 AP(rel=2)@100 P.5,10 map")`` gives ``Measure`` objects whose ``str()``
is the canonical, re-parseable name (``nDCG@10``, ``AP(rel=2)@100``, ``P@5``, ``P@10``, ``AP``).
Each family declares its parameters and how to validate them; nothing else reaches SQL.
"""
from __future__ import annotations

import ast
import math
import re
import warnings
from dataclasses import replace
from typing import Iterable

from ..errors import MeasureError
from .family import Family
from .measure import (ALIASES, MAX_MEASURES, MAX_NAME_LENGTH, TREC_CUT, TREC_PLAIN, TREC_VARIANTS, WORD_VALUES, Measure,
                      suggest)
from .registry import FAMILIES

_BY_LOWER = {name.lower(): name for name in FAMILIES}
_BY_LOWER.update(ALIASES)
# ir_measures' names of a family with a parameter set (its SetRelP is trec_eval's set_relative_P).
_IR_MEASURES_VARIANTS = {"setrelp": ("SetP", {"relative": True}),
                         "ncg": ("nDCG", {"discount": "flat"}),  # normalised cumulative gain: CG@k / ideal CG@k
                         **{f"nerr{eq}": ("NERR", {"eq": eq}) for eq in (8, 9, 10, 11)}}  # cwl_eval's NERR-EQ8..11


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


def named_alike(name: str, other: str) -> bool:
    """Two names of one measure: spelled the same, or parsed alike (HR@10 and Success@10, MAP@10 and AP@10), so that
    a result's rows named as asked are found by either name."""
    if name == other:
        return True
    try:
        first, second = parse_measures(name), parse_measures(other)
    except MeasureError:
        return False
    return len(first) == len(second) == 1 and first[0] == second[0]


def one_name(name: str) -> str:
    """The canonical name of the one measure NAME stands for (map and AP: AP; HR@10: Success@10), NAME itself where
    it is no measure's or names several (P.5,10), so that values recorded under either name are one series."""
    try:
        parsed = parse_measures(name)
    except MeasureError:
        return name
    return str(parsed[0]) if len(parsed) == 1 else name


def distinct(measures: Iterable[Measure]) -> list[Measure]:
    """Each measure once (asked twice, as HR@10 and Success@10: by the first name, the others its aliases)."""
    unique: dict[Measure, Measure] = {}
    for m in measures:
        first = unique.setdefault(m, m)  # equal measures hash alike whatever their label
        if first is not m:
            names = [n for n in (m.shown, *m.aliases) if n != first.shown and n not in first.aliases]
            if names:
                unique[m] = replace(first, aliases=first.aliases + tuple(dict.fromkeys(names)))
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
    if m and m.group(1) in TREC_CUT:  # P_5, ndcg_cut_10, iprec_at_recall_0.10 (as trec_eval prints them)
        family = FAMILIES[TREC_CUT[m.group(1)]]
        return [Measure(family.name, _trec_cutoff(m.group(2), family, name))]
    m = _TREC_RE.match(name)
    if not m:
        return None
    base, params = m.group(1), m.group(2)
    if base in TREC_VARIANTS and params is None:
        family, params = TREC_VARIANTS[base]
        return [Measure(family, None, params)]
    if base not in TREC_CUT and base not in TREC_PLAIN:
        if params is not None and "(" not in name and "@" not in name:
            raise MeasureError(f"unknown trec_eval measure {base!r}{suggest(base)}")
        return None
    if params is None:
        if base in FAMILIES:  # P, Rprec, G, binG ...: the ir_measures path handles defaults
            return None
        if base in TREC_PLAIN:
            return [Measure(TREC_PLAIN[base])]
        family = FAMILIES[TREC_CUT[base]]
        return [Measure(family.name, k) for k in family.default_cutoffs]
    if base in TREC_CUT:
        family = FAMILIES[TREC_CUT[base]]
        cutoffs = [p for p in params.split(",") if p]
        if not cutoffs:
            raise MeasureError(f"no cutoff after the dot in {name!r}; write for example {base}.10")
        return [Measure(family.name, _trec_cutoff(c, family, name)) for c in cutoffs]
    return [Measure(TREC_PLAIN[base], None, _trec_params(FAMILIES[TREC_PLAIN[base]], params, name))]


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
                           f"or ndcg_cut.10{suggest(name)}") from None
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
    if family.name == "BPM" and cutoff is not None:  # ir_measures' BPM(T=1,max_rel=1)@20: the user reads K = 20
        if "K" in kwargs and kwargs["K"] != cutoff:
            raise MeasureError(f"{name!r} gives BPM's depth twice (K={kwargs['K']} and @{cutoff}): give one")
        kwargs, cutoff = {**kwargs, "K": cutoff}, None
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


def _literal(node: ast.AST, name: str) -> object:
    if isinstance(node, ast.Name) and node.id.lower() in WORD_VALUES:
        return WORD_VALUES[node.id.lower()]
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
        raise MeasureError(f"unknown measure {word!r}{suggest(word)}")
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
    for name, (family, params) in TREC_VARIANTS.items():
        if measure.family == family and measure.params == params:
            return name
    return spec.trec_name
