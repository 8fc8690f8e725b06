"""The fusion methods and normalisations, by name: what each takes (weights, parameters, judgments to
train on) and what it reads of a run (its scores or only its ranks). A method string such as
``rrf(k=20)`` or ``probfuse(n_segments=10)`` is parsed here into a validated ``Fusion`` before any SQL is
rendered; sql/fusion/fuse.sql holds each method's formula. Names and defaults are ranx's."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..errors import OptionError


@dataclass(frozen=True)
class Param:
    name: str
    default: float | int | None
    kind: str  # "number" (a real number), "count" (a whole number >= 1)
    low: float | None = None  # inclusive bounds where given
    high: float | None = None
    about: str = ""


@dataclass(frozen=True)
class Method:
    name: str
    family: str  # "scores": reads the normalised scores; "ranks": only the positions; "pairs": pairwise votes
    about: str
    params: tuple[Param, ...] = ()
    weighted: bool = False  # takes one weight per run
    trained: bool = False  # estimates its probabilities from judgments (qrels=)
    source: str = ""


K, GAMMA, SIGMA, PHI = (Param("k", 60, "number", 0, None, "the constant added to each rank"),
                        Param("gamma", None, "number", None, None, "the exponent of the number of runs"),
                        Param("sigma", 0.01, "number", 0, 1, "added to the number of runs inside the logarithm"),
                        Param("phi", None, "number", 0, 1, "the persistence of rank-biased centroids"))
SEGMENTS = Param("n_segments", None, "count", 1, None, "the segments each ranking is cut into")
WINDOW = Param("w", None, "count", 0, None, "the positions on either side that the window averages")

METHODS: dict[str, Method] = {m.name: m for m in (
    Method("sum", "scores", "CombSUM: the sum of the scores (0 where a run does not rank the document)",
           source="Fox and Shaw 1994"),
    Method("max", "scores", "CombMAX: the highest score", source="Fox and Shaw 1994"),
    Method("min", "scores", "CombMIN: the lowest score", source="Fox and Shaw 1994"),
    Method("med", "scores", "CombMED: the median of the scores of the runs that rank the document",
           source="Fox and Shaw 1994"),
    Method("anz", "scores", "CombANZ: the sum over the number of runs that rank the document", source="Fox and Shaw 1994"),
    Method("mnz", "scores", "CombMNZ: the sum times the number of runs that rank the document", source="Fox and Shaw 1994"),
    Method("gmnz", "scores", "CombGMNZ: the sum times that number to the power gamma", (GAMMA,),
           source="Joon Ho Lee 1997"),
    Method("wsum", "scores", "weighted sum of the scores", weighted=True, source="Bartell et al. 1994"),
    Method("wmnz", "scores", "weighted CombMNZ: the sum of the scores times the sum of the weights of the runs that "
           "rank the document", weighted=True, source="Wu 2012"),
    Method("mixed", "scores", "the weighted sum times the square root of the number of runs that rank the document",
           weighted=True, source="Wu 2012"),
    Method("rrf", "ranks", "reciprocal rank fusion: the sum of 1 / (k + rank)", (K,), source="Cormack et al. 2009"),
    Method("isr", "ranks", "inverse square rank: the sum of 1 / rank^2 times the number of runs", source="Mourao et al. 2014"),
    Method("log_isr", "ranks", "the sum of 1 / rank^2 times ln(number of runs)", source="Mourao et al. 2014"),
    Method("logn_isr", "ranks", "the sum of 1 / rank^2 times ln(number of runs + sigma)", (SIGMA,),
           source="Mourao et al. 2014"),
    Method("rbc", "ranks", "rank-biased centroids: the sum of (1 - phi) phi^(rank - 1)", (PHI,),
           source="Bailey et al. 2017"),
    Method("bordafuse", "ranks", "Borda count: N - rank + 1 points (N: the query's candidates), a run's unranked "
           "documents sharing the rest equally", source="Aslam and Montague 2001"),
    Method("w_bordafuse", "ranks", "weighted Borda count", weighted=True, source="Aslam and Montague 2001"),
    Method("condorcet", "pairs", "Condorcet fusion: 1 + the documents each one beats by majority of the runs (a tie "
           "counts half)", source="Montague and Aslam 2002"),
    Method("w_condorcet", "pairs", "weighted Condorcet fusion: the majority by the runs' weights", weighted=True,
           source="Montague and Aslam 2002"),
    Method("posfuse", "ranks", "the probability that a document at the rank is relevant, estimated per run",
           trained=True, source="Lillis et al. 2006"),
    Method("probfuse", "ranks", "ProbFuse: each segment's probability of relevance over its number", (SEGMENTS,),
           trained=True, source="Lillis et al. 2006"),
    Method("segfuse", "scores", "SegFuse: the segment's probability of relevance times (score + 1), segments of "
           "5, 10, 20, ... 2560 ranks", trained=True, source="Shokouhi 2007"),
    Method("slidefuse", "ranks", "SlideFuse: the probabilities of relevance averaged over a window of ranks", (WINDOW,),
           trained=True, source="Lillis et al. 2008"),
    Method("mapfuse", "ranks", "MAPFuse: the run's MAP over the rank", trained=True, source="Lillis et al. 2010"),
    Method("bayesfuse", "ranks", "BayesFuse: the sum of the log odds of relevance at each rank", trained=True,
           source="Aslam and Montague 2001"),
)}
ALIASES = {"combsum": "sum", "combmax": "max", "combmin": "min", "combmed": "med", "combanz": "anz",
           "combmnz": "mnz", "combgmnz": "gmnz", "comb_sum": "sum", "comb_max": "max", "comb_min": "min",
           "comb_med": "med", "comb_anz": "anz", "comb_mnz": "mnz", "comb_gmnz": "gmnz", "borda": "bordafuse",
           "weighted_bordafuse": "w_bordafuse", "weighted_condorcet": "w_condorcet", "weighted_sum": "wsum"}
NORMS = {
    "none": "the scores as given",
    "min-max": "(score - min) / (max - min), per run and query",
    "min-max-inverted": "(max - score) / (max - min): a lower score is better",
    "max": "score / max",
    "sum": "(score - min) / (sum - min x n)",
    "zmuv": "(score - mean) / standard deviation (zero mean, unit variance)",
    "rank": "1 - (rank - 1) / n",
    "borda": "1 - (rank - 1) / N over the query's N candidates; the documents a run does not rank share the rest",
}
NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max", "min_max_inverted": "min-max-inverted", "zscore": "zmuv",
                "z-score": "zmuv", "z_score": "zmuv"}
# what ranx's denominators never fall below
EPSILON = 1e-9


@dataclass(frozen=True)
class Fusion:
    """A validated fusion: the method, its parameters (all of them, defaults filled in), the normalisation,
    the runs' weights (one per run, or none)."""

    method: Method
    params: dict = field(default_factory=dict)
    norm: str = "min-max"
    weights: tuple[float, ...] | None = None

    @property
    def name(self) -> str:
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in self.params.items())
        return f"{self.method.name}({shown})" if shown else self.method.name

    def describe(self) -> str:
        weights = f", weights {', '.join(_shown(w) for w in self.weights)}" if self.weights else ""
        return f"{self.name}, norm {self.norm}{weights}"


def _shown(value: float) -> str:
    return repr(value) if isinstance(value, float) and not float(value).is_integer() else str(int(value)) \
        if isinstance(value, (int, float)) and float(value).is_integer() else repr(value)


SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def method_named(name: str) -> Method:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in METHODS:
        raise OptionError(f"unknown fusion method {name!r}; choose one of {', '.join(METHODS)}")
    return METHODS[key]


def parse_fusion(method: str, params: dict | None = None, norm: str | None = "min-max",
                 weights: object = None, runs: int | None = None) -> Fusion:
    """METHOD ("rrf", "rrf(k=20)") with PARAMS (a dict, as ranx's), NORM and WEIGHTS, checked: every
    parameter known and in range, the weights finite, one per run."""
    if not isinstance(method, str):
        raise OptionError(f"method {method!r} must be a name such as 'rrf' or 'rrf(k=20)'")
    found = SPEC.match(method)
    if found is None:
        raise OptionError(f"method {method!r} must be a name such as 'rrf' or 'rrf(k=20)'")
    spec = method_named(found.group(1))
    given = dict(_parsed_params(found.group(2), method)) if found.group(2) else {}
    for key, value in (params or {}).items():
        if key in given:
            raise OptionError(f"the parameter {key} is given twice, in {method!r} and in params")
        given[key] = value
    known = {p.name: p for p in spec.params}
    for key in given:
        if key not in known:
            takes = f"takes {', '.join(known)}" if known else "takes no parameter"
            raise OptionError(f"{spec.name} has no parameter {key!r}: it {takes}")
    values = {p.name: _checked(spec, p, given.get(p.name, p.default)) for p in spec.params}
    return Fusion(spec, values, _norm(norm), _weights(spec, weights, runs))


def _parsed_params(text: str, method: str):
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise OptionError(f"{method!r}: a parameter is written name=value, e.g. rrf(k=20)")
        try:
            yield key.strip(), float(value)
        except ValueError:
            raise OptionError(f"{method!r}: {key.strip()}={value.strip()!r} is not a number") from None


def _checked(method: Method, p: Param, value):
    if value is None:
        raise OptionError(f"{method.name} needs its parameter {p.name} ({p.about}), e.g. {method.name}({p.name}=...); "
                          f"or choose it with optimize=")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OptionError(f"{method.name}'s {p.name} {value!r} must be a finite number")
    if p.kind == "count":
        if float(value) != int(value):
            raise OptionError(f"{method.name}'s {p.name} {value!r} must be a whole number")
        value = int(value)
    if (p.low is not None and value < p.low) or (p.high is not None and value > p.high) \
            or (p.kind == "count" and p.low is not None and value < p.low):
        bounds = (f"between {p.low:g} and {p.high:g}" if p.high is not None else f">= {p.low:g}")
        raise OptionError(f"{method.name}'s {p.name} {value!r} must be {bounds}")
    return value


def _norm(norm: str | None) -> str:
    if norm is None:
        return "none"
    if not isinstance(norm, str):
        raise OptionError(f"norm {norm!r} must be one of {', '.join(NORMS)}")
    key = NORM_ALIASES.get(norm.lower(), norm.lower())
    if key not in NORMS:
        raise OptionError(f"unknown normalisation {norm!r}; choose one of {', '.join(NORMS)}")
    return key


def _weights(method: Method, weights, runs: int | None) -> tuple[float, ...] | None:
    if weights is None:
        if method.weighted:
            raise OptionError(f"{method.name} weighs the runs: give weights, one per run (--weights 0.7 0.3), or "
                              f"choose them with optimize=")
        return None
    if not method.weighted:
        raise OptionError(f"{method.name} takes no weights; the weighted methods are "
                          f"{', '.join(m.name for m in METHODS.values() if m.weighted)}")
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__iter__"):
        raise OptionError(f"weights {weights!r} must be a list of numbers, one per run")
    values = list(weights)
    for w in values:
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
            raise OptionError(f"the weight {w!r} must be a finite number")
    if runs is not None and len(values) != runs:
        raise OptionError(f"{len(values)} weight{'s' if len(values) != 1 else ''} for {runs} runs: give one per run, "
                          f"in the runs' order")
    return tuple(float(w) for w in values)
