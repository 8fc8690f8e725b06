"""Measures of how alike two rankings of the same queries are, needing no judgment (``sqlrank overlap``):
an ANN index against exact search, a new ranker against the old one. Each is parsed from its name
(``RBO(p=0.9)@100``, ``Jaccard@10``) into a validated ``Similarity`` before any SQL sees it.

- RBO: rank-biased overlap (Webber, Moffat and Zobel, "A similarity measure for indefinite rankings",
  TOIS 2010) of the two rankings seen to depth k: ``kind=min`` (default) the lower bound (eq. 11, for
  lists of unequal length its generalisation: nothing unseen ever matches), ``kind=ext`` the
  extrapolated value (eq. 32, uneven lists), ``kind=residual`` the most the unseen can add (RBO_max -
  RBO_min). p: persistence (default 0.9).
- Jaccard@k: |A_k & B_k| / |A_k | B_k| of the top-k sets.
- Overlap@k: |A_k & B_k| / k: the share of the first ranking's top k that the second also has in its
  top k (recall@k of an approximate search against the exact one, the first); ``denominator=first`` divides
  by |A_k| instead (the first ranking's documents in its top k, fewer than k for a short list).
- Intersection@k: |A_k & B_r| / |B_r|, B_r the second ranking's top ``ref_k`` (its whole list by default): the
  share of the reference's list that the first ranking's top k found, RecTools' Intersection@k (its reco the first
  ranking, ref_reco the second); no value where B_r is empty. Under tie_break=input_rank the lists are cut by their
  given ranks (rank <= k, as RecTools cuts them: ranks tied at the cutoff all kept).
- Tau@k: Kendall's tau-b of the scores of the documents both top-k lists hold (score ties are ties).
- TauAP@k: Yilmaz, Aslam and Robertson's AP rank correlation (SIGIR 2008) of the second ranking's
  order against the first's, over the documents both top-k lists hold.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..errors import MeasureError

# family -> (its parameters with their defaults, whether @k is required, a one-line definition)
FAMILIES: dict[str, tuple[dict[str, Any], bool, str]] = {
    "RBO": ({"p": 0.9, "kind": "min"}, False, "rank-biased overlap of the top k (min: lower bound; ext: extrapolated; "
                                                 "residual: what the unseen can add)"),
    "Jaccard": ({}, True, "|A_k & B_k| / |A_k | B_k| of the top-k sets"),
    "Overlap": ({"denominator": "k"}, True, "|A_k & B_k| / k: the share of the first ranking's top k also in the "
                                           "second's (denominator=first: over |A_k|)"),
    "Intersection": ({"ref_k": None}, True, "|A_k & B_r| / |B_r|, B_r the second ranking's top ref_k (default: all of "
                                            "it): RecTools' Intersection@k"),
    "Tau": ({}, False, "Kendall's tau-b of the scores of the documents both top-k lists hold"),
    "TauAP": ({}, False, "AP rank correlation of the second ranking's order against the first's, over the "
                         "documents both top-k lists hold"),
}
KINDS = ("min", "ext", "residual")
DENOMINATORS = ("k", "first")  # Overlap@k over k, or over the first ranking's top-k size
_NAME = re.compile(r"^(?P<family>[A-Za-z_]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9]+))?$")


@dataclass(frozen=True)
class Similarity:
    """One validated measure of two rankings: family, cutoff k (None: the whole rankings), parameters."""

    family: str
    cutoff: int | None = None
    p: float = 0.9
    kind: str = "min"
    denominator: str = "k"  # Overlap's: k, or the first ranking's top-k size (first)
    ref_k: int | None = None  # Intersection's cut of the second ranking (None: all of it)

    def __str__(self) -> str:
        params = [f"denominator={self.denominator}"] if self.denominator != "k" else []
        params += [f"ref_k={self.ref_k}"] if self.ref_k is not None else []
        if self.family == "RBO":
            params = [f"p={self.p!r}"] if self.p != 0.9 else []
            params += [f"kind={self.kind}"] if self.kind != "min" else []
        return self.family + (f"({','.join(params)})" if params else "") + \
            (f"@{self.cutoff}" if self.cutoff is not None else "")


def parsed_once(spec: str | Iterable[str], parse: Callable[[str], Any], example: str) -> list:
    """Measures from names separated by spaces (or a list of names), each checked by ``parse``; duplicates once;
    none given is an error showing ``example``."""
    words = spec.split() if isinstance(spec, str) else [w for item in spec for w in str(item).split()]
    if not words:
        raise MeasureError(f"no measure given; for example {example}")
    parsed = [parse(word) for word in words]  # one asked by two names (recall@3 Recall@3): a row under each
    return list({(m, getattr(m, "label", None)): m for m in parsed}.values())


def parse_similarities(spec: str | Iterable[str]) -> list[Similarity]:
    """Measures of two rankings from names separated by spaces (or a list of names), each checked; duplicates once."""
    return parsed_once(spec, parse_similarity, "RBO(p=0.9)@100 Jaccard@10 Overlap@10 Tau@100 TauAP@100")


def parse_similarity(name: str) -> Similarity:
    found = _NAME.match(name.strip())
    if not found:
        raise MeasureError(f"cannot parse {name!r}; write for example RBO(p=0.9)@100, Jaccard@10 or Tau@100")
    family = {f.lower(): f for f in FAMILIES}.get(found["family"].lower())
    if family is None:
        raise MeasureError(f"unknown measure {found['family']!r} of two rankings; choose from {', '.join(FAMILIES)}")
    defaults, cutoff_required, _ = FAMILIES[family]
    cutoff = int(found["cutoff"]) if found["cutoff"] else None
    if cutoff is not None and cutoff < 1:
        raise MeasureError(f"the cutoff of {name!r} must be a positive integer")
    if cutoff is None and cutoff_required:
        raise MeasureError(f"{family} needs a cutoff, for example {family}@10")
    params = dict(defaults)
    for key, value in _params(found["params"], name).items():
        if key not in defaults:
            allowed = ", ".join(defaults) or "none"
            raise MeasureError(f"{family} has no parameter {key!r} (allowed: {allowed}) in {name!r}")
        params[key] = value
    if family == "Overlap":
        if params["denominator"] not in DENOMINATORS:
            raise MeasureError(f"denominator of Overlap must be one of {', '.join(DENOMINATORS)}, not "
                               f"{params['denominator']!r}")
        return Similarity(family, cutoff, denominator=params["denominator"])
    if family == "Intersection":
        ref_k = params["ref_k"]
        if ref_k is not None and (isinstance(ref_k, bool) or not isinstance(ref_k, int) or ref_k < 1):
            raise MeasureError(f"ref_k of Intersection is how much of the second ranking counts, a whole number >= 1 "
                               f"(left out: all of it), not {ref_k!r}")
        return Similarity(family, cutoff, ref_k=ref_k)
    if family != "RBO":
        return Similarity(family, cutoff)
    p, kind = params["p"], params["kind"]
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
        raise MeasureError(f"p of RBO must be a number in (0, 1] (0.9; 1: the average overlap), not {p!r}")
    if kind not in KINDS:
        raise MeasureError(f"kind of RBO must be one of {', '.join(KINDS)}, not {kind!r}")
    if p == 1 and kind != "min":
        raise MeasureError(f"RBO(p=1) is the average overlap of the two lists to the shorter one's depth (nothing "
                           f"unseen counts): it has no kind={kind}")
    return Similarity(family, cutoff, float(p), kind)


def _params(text: str | None, name: str) -> dict[str, Any]:
    """key=value pairs: numbers, or words (kind=ext)."""
    params: dict[str, Any] = {}
    for pair in filter(None, (part.strip() for part in (text or "").split(","))):
        key, eq, value = pair.partition("=")
        if not eq or not key.strip().isidentifier():
            raise MeasureError(f"parameters must be named in {name!r}, as in RBO(p=0.9)")
        value = value.strip()
        try:
            number = ast.literal_eval(value)
            params[key.strip()] = number if isinstance(number, (int, float)) and math.isfinite(number) else value
        except (ValueError, SyntaxError):
            params[key.strip()] = value
    return params
