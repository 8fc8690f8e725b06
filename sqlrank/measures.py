"""Measures as small declarative objects, parsed from ir_measures or trec_eval names.

``parse_measures("nDCG@10 AP(rel=2)@100 P.5,10 map")`` gives ``Measure`` objects whose ``str()``
is the canonical, re-parseable name (``nDCG@10``, ``AP(rel=2)@100``, ``P@5``, ``P@10``, ``AP``).
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import Iterable

from .errors import MeasureError

# trec_eval's default cutoff lists, used when a cutoff measure is named without one.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)

MAX_NAME_LENGTH = 200


@dataclass(frozen=True)
class Family:
    """What a measure family is: its parameters, cutoff rule, aggregation and SQL template."""

    name: str
    template: str
    description: str
    params: tuple[str, ...] = ()
    cutoff: str = "optional"  # "none", "optional" or "required"
    default_cutoffs: tuple[int, ...] = ()
    aggregate: str = "mean"  # "mean" over queries, or "sum" for counts
    integer: bool = False
    trec_name: str | None = None  # trec_eval name without cutoff (``map``, ``ndcg``)
    trec_cut_name: str | None = None  # trec_eval name with cutoff (``map_cut``, ``ndcg_cut``)
    rows_need_num_rel: bool = False


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("P", "precision_recall", "precision: relevant documents in the top k, divided by k",
               params=("rel",), cutoff="required", default_cutoffs=TREC_CUTOFFS, trec_cut_name="P"),
        Family("R", "precision_recall", "recall: relevant documents in the top k, divided by all relevant (R)",
               params=("rel",), cutoff="required", default_cutoffs=TREC_CUTOFFS, trec_cut_name="recall"),
        Family("Success", "precision_recall", "1 if any relevant document is in the top k, else 0",
               params=("rel",), cutoff="required", default_cutoffs=SUCCESS_CUTOFFS, trec_cut_name="success"),
        Family("AP", "ap", "average precision: mean of the precision at each relevant document, over R",
               params=("rel",), trec_name="map", trec_cut_name="map_cut"),
        Family("RR", "rr", "reciprocal rank of the first relevant document",
               params=("rel",), trec_name="recip_rank"),
        Family("Rprec", "precision_recall", "precision at rank R (the number of relevant documents)",
               params=("rel",), cutoff="none", trec_name="Rprec", rows_need_num_rel=True),
        Family("nDCG", "ndcg", "DCG divided by the DCG of the ideal ranking of all judgments",
               trec_name="ndcg", trec_cut_name="ndcg_cut"),
        Family("DCG", "ndcg", "discounted cumulative gain: sum of gain / log2(rank + 1)", trec_name="dcg"),
        Family("CG", "ndcg", "cumulative gain: sum of the gains of the retrieved documents"),
        Family("NumQ", "counts", "number of queries evaluated", cutoff="none", aggregate="sum",
               integer=True, trec_name="num_q"),
        Family("NumRet", "counts", "number of documents retrieved", cutoff="none", aggregate="sum",
               integer=True, trec_name="num_ret"),
        Family("NumRel", "counts", "number of relevant documents in the judgments (R)", params=("rel",),
               cutoff="none", aggregate="sum", integer=True, trec_name="num_rel"),
        Family("NumRelRet", "counts", "number of relevant documents retrieved", params=("rel",),
               cutoff="none", aggregate="sum", integer=True, trec_name="num_rel_ret"),
    )
}

# Other spellings people use for the same families (matched case-insensitively).
ALIASES = {
    "precision": "P", "recall": "R", "map": "AP", "mrr": "RR", "recip_rank": "RR",
    "ndcg": "nDCG", "hit_rate": "Success", "hitrate": "Success", "r-prec": "Rprec",
}
_BY_LOWER = {name.lower(): name for name in FAMILIES}
_BY_LOWER.update(ALIASES)

_TREC_PLAIN = {f.trec_name: f.name for f in FAMILIES.values() if f.trec_name}
_TREC_CUT = {f.trec_cut_name: f.name for f in FAMILIES.values() if f.trec_cut_name}


@dataclass(frozen=True)
class Measure:
    """One measure: a family, an optional cutoff and explicit parameters.

    A parameter left as None takes its value from the evaluation's conventions.
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None

    def __post_init__(self) -> None:
        spec = FAMILIES.get(self.family)
        if spec is None:
            raise MeasureError(f"unknown measure family {self.family!r}{_suggest(self.family)}")
        if self.cutoff is not None:
            if spec.cutoff == "none":
                raise MeasureError(f"{self.family} takes no cutoff (drop the '@{self.cutoff}')")
            _check_positive_int(self.cutoff, f"cutoff of {self.family}")
        elif spec.cutoff == "required":
            raise MeasureError(f"{self.family} needs a cutoff, for example {self.family}@10")
        if self.rel is not None:
            if "rel" not in spec.params:
                raise MeasureError(
                    f"{self.family} takes no 'rel' parameter: its gains are the raw relevance labels")
            if isinstance(self.rel, bool) or not isinstance(self.rel, int) or self.rel < 0:
                raise MeasureError(f"rel must be an integer >= 0, not {self.rel!r} (in {self.family})")

    @property
    def spec(self) -> Family:
        return FAMILIES[self.family]

    def __str__(self) -> str:
        params = f"(rel={self.rel})" if self.rel is not None else ""
        cutoff = f"@{self.cutoff}" if self.cutoff is not None else ""
        return f"{self.family}{params}{cutoff}"

    def resolve(self, rel: int) -> "Measure":
        """This measure with conventions filled in; a default ``rel`` is left out of the name."""
        if "rel" not in self.spec.params:
            return self
        level = self.rel if self.rel is not None else rel
        return Measure(self.family, self.cutoff, None if level == 1 else level)

    @property
    def relevance_level(self) -> int:
        return 1 if self.rel is None else self.rel


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
            for word in _split_words(item):
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
    trec = _parse_trec(name)
    if trec is not None:
        return trec
    return _parse_ir_measures(name)


def _split_words(text: str) -> list[str]:
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


_TREC_RE = re.compile(r"^([A-Za-z_]+)(?:\.([0-9,]*))?$")
_TREC_UNDERSCORE_RE = re.compile(r"^([A-Za-z_]+?)_([0-9]+)$")


def _parse_trec(name: str) -> list[Measure] | None:
    m = _TREC_UNDERSCORE_RE.match(name)
    if m and m.group(1) in _TREC_CUT:  # P_5, ndcg_cut_10 (as trec_eval prints them)
        return [Measure(_TREC_CUT[m.group(1)], int(m.group(2)))]
    m = _TREC_RE.match(name)
    if not m:
        if "." in name and "(" not in name and "@" not in name:
            base = name.split(".", 1)[0]
            if base in _TREC_CUT or base in _TREC_PLAIN:
                raise MeasureError(
                    f"bad trec_eval parameters in {name!r}: expected positive integer cutoffs "
                    f"such as {base}.5,10")
        return None
    base, params = m.group(1), m.group(2)
    if params is None:
        if base in _TREC_PLAIN and base not in FAMILIES:
            return [Measure(_TREC_PLAIN[base])]
        if base in _TREC_CUT and base not in FAMILIES:
            family = FAMILIES[_TREC_CUT[base]]
            if family.cutoff == "required":
                return [Measure(family.name, k) for k in family.default_cutoffs]
            return [Measure(family.name, k) for k in TREC_CUTOFFS]
        return None
    if base not in _TREC_CUT:
        if base in _TREC_PLAIN or base in FAMILIES:
            raise MeasureError(f"{base} takes no parameters in trec_eval syntax ({name!r})")
        raise MeasureError(f"unknown trec_eval measure {base!r}{_suggest(base)}")
    cutoffs = [p for p in params.split(",") if p]
    if not cutoffs:
        raise MeasureError(f"no cutoff after the dot in {name!r}; write for example {base}.10")
    return [Measure(_TREC_CUT[base], _to_cutoff(c, name)) for c in cutoffs]


def _parse_ir_measures(name: str) -> list[Measure]:
    try:
        tree = ast.parse(name, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise MeasureError(f"cannot parse measure {name!r}; write for example nDCG@10, AP(rel=2)@100 "
                           f"or ndcg_cut.10{_suggest(name)}") from None
    cutoff = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        cutoff_node, tree = tree.right, tree.left
        if not (isinstance(cutoff_node, ast.Constant) and type(cutoff_node.value) is int):
            raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be a positive integer")
        cutoff = cutoff_node.value
        if cutoff < 1:
            raise MeasureError(f"bad cutoff in {name!r}: the cutoff after '@' must be a positive integer")
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
    family = _family_name(tree.id)
    unknown = set(kwargs) - set(FAMILIES[family].params)
    if "rel" in unknown:
        raise MeasureError(f"{family} takes no 'rel' parameter: its gains are the raw relevance labels ({name!r})")
    if unknown:
        allowed = ", ".join(FAMILIES[family].params) or "none"
        raise MeasureError(f"{family} has no parameter {sorted(unknown)[0]!r} (allowed: {allowed}) in {name!r}")
    rel = kwargs.get("rel")
    spec = FAMILIES[family]
    if cutoff is None and spec.cutoff == "required":
        return [Measure(family, k, rel) for k in spec.default_cutoffs]  # type: ignore[arg-type]
    return [Measure(family, cutoff, rel)]  # type: ignore[arg-type]


def _literal(node: ast.AST, name: str) -> object:
    if isinstance(node, ast.Name):
        return node.id
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        raise MeasureError(f"parameter values must be numbers or words in {name!r}") from None


def _family_name(word: str) -> str:
    if word in FAMILIES:
        return word
    found = _BY_LOWER.get(word.lower())
    if found is None:
        raise MeasureError(f"unknown measure {word!r}{_suggest(word)}")
    return found


def _to_cutoff(text: str, name: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise MeasureError(f"bad cutoff {text!r} in {name!r}: cutoffs are positive integers")
    return int(text)


def _check_positive_int(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MeasureError(f"{what} must be a positive integer, not {value!r}")


def known_names() -> list[str]:
    names = set(FAMILIES) | set(_TREC_PLAIN) | set(_TREC_CUT) | set(ALIASES)
    return sorted(names)


def _suggest(word: str) -> str:
    head = re.split(r"[@(.]", word, maxsplit=1)[0]
    lowered = {n.lower(): n for n in known_names()}
    lowered.update({n.lower(): n for n in FAMILIES})  # show nDCG rather than ndcg
    close = difflib.get_close_matches(head.lower(), list(lowered), n=3, cutoff=0.5)
    if not close:
        return f"; known measures: {', '.join(FAMILIES)}"
    return "; did you mean " + " or ".join(repr(lowered[c]) for c in close) + "?"
