"""Conventions: every choice that changes a number, named, validated and printed.

The defaults are trec_eval's (version 10), except that queries missing from the run are
skipped, as trec_eval 9, pytrec_eval and most libraries do (trec_eval 10 stops instead).
Each field can be set for a whole evaluation (keyword argument, CLI flag, preset) or for one
measure inside its name (``nDCG(gain=exponential)@10``); the measure's own setting wins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import LABEL_LIMIT, ConventionError

TIE_BREAKS = ("trec_eval", "doc_id_asc", "input_rank", "expected", "block")
GAINS = ("linear", "exponential", "signed")
SIGNED_GAINS = ("DCG", "nDCG", "IdealDCG")  # the families whose sums take a negative gain as it is (scikit-learn's)
DISCOUNTS = ("log", "jarvelin", "flat")
IDEALS = ("qrels", "run", "perfect")
AP_DENOMINATORS = ("num_rel", "retrieved_relevant", "min_num_rel_cutoff")
MISSING_QUERIES = ("skip", "zero")
UNJUDGED_QUERIES = ("skip", "zero")
NONPOSITIVE_SCORES = ("rank", "nonrelevant")
DUPLICATE_DOCUMENTS = ("refuse", "rows")
NO_RELEVANT = ("zero", "skip", "one", "error")
TREC_EVAL_VERSIONS = (9, 10)
# How sqlrank compare judges a difference (sqlrank/statistics.py): the paired test and the
# correction for many comparisons. Named here so that the command line starts without numpy.
# tukey and randomized-tukey compare all pairs; ppi and ppi-untuned read an LLM's judgments and people's (statistics/ppi.py)
TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey", "randomized-tukey", "ppi", "ppi-untuned")
CORRECTIONS = ("none", "bonferroni", "holm", "bh")


def _choice(name: str, options: tuple) -> Any:
    def check(value: Any) -> Any:
        if value not in options:
            raise ConventionError(f"{name} must be one of {', '.join(map(str, options))}, not {value!r}")
        return value
    return check


def _mapping_or_choice(name: str, options: tuple, key: str, value_name: str, least: int, real_keys: bool = False) -> Any:
    """A check: one of ``options``, or a mapping {key: value_name} with integer keys >= ``least`` (or,
    with real_keys, finite numbers >= ``least``: labels such as 0.5) and finite numbers, as sorted
    (key, float) pairs."""
    def check(value: Any) -> Any:
        if isinstance(value, str):
            return _choice(name, options)(value)
        items = value.items() if isinstance(value, dict) else value
        try:
            pairs = tuple(sorted((k, v) for k, v in items))
        except (TypeError, ValueError):
            raise ConventionError(f"{name} must be {', '.join(options[:-1])}, {options[-1]} or a mapping "
                                  f"{{{key}: {value_name}}}, not {value!r}") from None
        if not pairs:
            raise ConventionError(f"{name} mapping is empty; give at least one {key}: {value_name} pair")
        for k, v in pairs:
            kinds = (int, float) if real_keys else int
            if isinstance(k, bool) or not isinstance(k, kinds) or not math.isfinite(k) or k < least:
                what = "numbers" if real_keys else "integers"
                raise ConventionError(f"{name} mapping {key}s must be {what} >= {least}, not {k!r}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ConventionError(f"the {value_name} of {key} {k} must be a finite number, not {v!r}")
        return tuple((whole(k), float(v)) for k, v in pairs)
    return check


# gain: 'linear', 'exponential', 'signed' (the label, negatives too), or {label: gain} for labels >= 0 (others keep
# gain = label);
# discount: 'log', 'jarvelin', or {rank: weight} for ranks >= 1 (a rank it leaves out weighs 0).
check_gain = _mapping_or_choice("gain", GAINS, "label", "gain", 0, real_keys=True)
check_discount = _mapping_or_choice("discount", DISCOUNTS, "rank", "weight", 1)


def check_log_base(value: Any) -> float:
    if value == "e":
        return math.e
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 1:
        raise ConventionError(f"log_base must be a number > 1 (2, e, 10, ...), not {value!r}")
    return float(value)


def whole(value: int | float) -> int | float:
    """A number as an int where it is whole (2.0 is 2: P(rel=2.0) is P(rel=2)), else as it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def check_rel(value: Any) -> int | float:
    """The least label that counts as relevant: a number >= 0 (labels are real numbers: rel=0.5)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 \
            or value > LABEL_LIMIT:
        raise ConventionError(f"rel must be a number >= 0 (1, 2, 0.5, ...), not {value!r}")
    return whole(value)


def check_bool(name: str):
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise ConventionError(f"{name} must be true or false, not {value!r}")
        return value
    return check


def check_unjudged_label(value: Any) -> int | float | None:
    """None (unjudged documents stay unjudged) or the label they take (a number: 0, 1, 0.5)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not math.isfinite(value) or abs(value) > LABEL_LIMIT):
        raise ConventionError(f"unjudged_label must be none or a label (0, 1, 2, 0.5, ...), not {value!r}")
    return None if value is None else whole(value)


def check_depth(value: Any) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ConventionError(f"depth must be a positive integer or None, not {value!r}")
    return value


CHECKS = {
    "tie_break": _choice("tie_break", TIE_BREAKS),
    "gain": check_gain,
    "discount": check_discount,
    "log_base": check_log_base,
    "ideal": _choice("ideal", IDEALS),
    "ap_denominator": _choice("ap_denominator", AP_DENOMINATORS),
    "rel": check_rel,
    "missing_queries": _choice("missing_queries", MISSING_QUERIES),
    "unjudged_queries": _choice("unjudged_queries", UNJUDGED_QUERIES),
    "no_relevant": _choice("no_relevant", NO_RELEVANT),
    "judged_only": check_bool("judged_only"),
    "unjudged_label": check_unjudged_label,
    "nonpositive_scores": _choice("nonpositive_scores", NONPOSITIVE_SCORES),
    "duplicate_documents": _choice("duplicate_documents", DUPLICATE_DOCUMENTS),
    "depth": check_depth,
    "trec_eval_version": _choice("trec_eval_version", TREC_EVAL_VERSIONS),
}


@dataclass(frozen=True)
class Conventions:
    """The resolved conventions of one evaluation (defaults: trec_eval 10's).

    tie_break: order of documents with equal scores: trec_eval (doc_id descending, byte order),
        doc_id_asc, input_rank (the run's rank column), expected (the mean over all orders
        of tied documents), or block (a tie group whole above each of its documents, scikit-learn's
        thresholds: AP and the label ranking measures only, without a cutoff).
    gain: linear (the label), exponential (2^label - 1), signed (the label, a negative one too: scikit-learn's
        dcg_score; DCG, nDCG and IdealDCG only), or a mapping {label: gain}.
    discount: log (1/log_b(i+1) at every rank i), jarvelin (1 up to rank b, then 1/log_b(i)), flat
        (1 at every rank: nDCG is NCG), or a mapping {rank: weight} (any discount, rank by rank; a rank it
        leaves out weighs 0).
    log_base: b of the discount (2; e as Burges and Croft; any number > 1).
    ideal: the ideal ranking of nDCG: qrels (all judgments), run (the retrieved documents'
        labels only), perfect (every position holds the top label).
    ap_denominator: num_rel (R), retrieved_relevant (relevant retrieved within the cutoff), or
        min_num_rel_cutoff (min(R, k)).
    rel: minimum label that counts as relevant (trec_eval -l); gains ignore it.
    missing_queries: skip (evaluate queries in both qrels and run) or zero (qrels queries the
        run misses score 0, trec_eval -c).
    unjudged_queries: skip (run queries without any judgment are not evaluated, as trec_eval) or
        zero (they are evaluated, every judgment-based value 0, and count in every mean, as
        Spark MLlib's RankingMetrics and Elasticsearch's rank_eval do).
    no_relevant: zero (a query whose judgments hold no label >= rel is evaluated and scores 0
        where measures divide by R, as trec_eval), skip (left out of every mean, as RecBole and
        Microsoft Recommenders leave out users without a positive interaction), one (it scores 1 in
        every measure of relevance, as TorchMetrics' and TorchEval's empty_target_action "pos") or
        error (such a query is an error naming it: their "error"/"err").
    judged_only: drop retrieved documents without a judgment >= 0 and re-rank (trec_eval -J).
    unjudged_label: none, or the label every retrieved document without a judgment takes, as if
        the judgments gave it (Elasticsearch's unknown_doc_rating): it counts in R and in the
        ideal ranking too, so that no value leaves its range.
    nonpositive_scores: rank (a document's score only orders it) or nonrelevant (a retrieved
        document scored <= 0 is never relevant in the ranking, while R still counts its
        judgment, as TorchMetrics 1.7.4 and later in precision, recall, AP and RR).
    duplicate_documents: refuse (a document ranked twice for a query is an error) or rows (each
        row of the run is ranked on its own, a relevant document counting as often as it is
        listed, as ranx and Microsoft Recommenders count them: values can leave their range).
    depth: keep only the top N documents of each query after sorting (trec_eval -M).
    trec_eval_version: 10, or 9: 32-bit float scores and floor(x R + 0.9) recall levels, as
        trec_eval 9 and pytrec_eval.
    """

    tie_break: str = "trec_eval"
    gain: Any = "linear"
    discount: str = "log"
    log_base: float = 2.0
    ideal: str = "qrels"
    ap_denominator: str = "num_rel"
    rel: int = 1
    missing_queries: str = "skip"
    unjudged_queries: str = "skip"
    no_relevant: str = "zero"
    judged_only: bool = False
    unjudged_label: int | None = None
    nonpositive_scores: str = "rank"
    duplicate_documents: str = "refuse"
    depth: int | None = None
    trec_eval_version: int = 10

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, CHECKS[f.name](getattr(self, f.name)))

    def describe(self) -> str:
        """``tie_break=trec_eval, gain=linear, ...`` (every field, always)."""
        return ", ".join(f"{f.name}={format_value(getattr(self, f.name))}" for f in fields(self))


DEFAULTS = Conventions()
FIELD_NAMES = tuple(f.name for f in fields(Conventions))
# Conventions that apply to a whole evaluation only (the others can also be set per measure): they
# decide which queries and judgments exist and how the run is read.
EVALUATION_FIELDS = ("trec_eval_version", "no_relevant", "unjudged_label", "duplicate_documents")
# Conventions that decide the ranking itself: measures that differ in them get rankings of their own.
RANKING_FIELDS = ("tie_break", "judged_only", "depth", "nonpositive_scores")


def format_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if value == math.e:
            return "e"
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, tuple):
        return "{" + ",".join(f"{k}:{format_value(v)}" for k, v in value) + "}"
    return str(value)


def parse_conventions(line: str) -> dict[str, Any]:
    """The conventions line sqlrank prints (``tie_break=trec_eval, gain=linear, ..., depth=none``), or
    any part of it, as keyword arguments that give the same numbers: pasted back, printed values read
    as they were printed (none, true, false, e, {1:3,2:9}). Every key is a convention; each is validated
    when the evaluation resolves its conventions."""
    import re

    if not isinstance(line, str) or not line.strip():
        raise ConventionError("the conventions line is empty; paste what follows 'conventions: ' in sqlrank's output")
    out: dict[str, Any] = {}
    for part in re.split(r",\s*(?=[A-Za-z_]+\s*=)", line.strip().removeprefix("conventions:").strip()):
        key, sep, text = (piece.strip() for piece in part.partition("="))
        if not sep or key not in FIELD_NAMES:
            raise ConventionError(f"{part.strip()!r} is not a convention as sqlrank prints one (name=value); the "
                                  f"conventions are: {', '.join(FIELD_NAMES)}")
        if key in out:
            raise ConventionError(f"{key} is given twice in the conventions line")
        out[key] = _printed_value(text)
    return out


def _printed_value(text: str) -> Any:
    """A value as format_value prints it, read back."""
    if text in ("none", "true", "false"):
        return {"none": None, "true": True, "false": False}[text]
    if text.startswith("{") and text.endswith("}"):
        pairs = [item.partition(":") for item in text[1:-1].split(",") if item.strip()]
        try:
            return {int(label): float(gain) for label, _, gain in pairs}
        except ValueError:
            raise ConventionError(f"a gain map is written {{label:gain,...}}, not {text!r}") from None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def resolve_conventions(preset: str | None = None, **overrides: Any) -> Conventions:
    """A preset's conventions (default: trec_eval) plus the caller's overrides (None: keep)."""
    from .presets import preset_conventions

    unknown = [k for k in overrides if k not in FIELD_NAMES]
    if unknown:
        raise ConventionError(
            f"unknown convention {unknown[0]!r}; the conventions are: {', '.join(FIELD_NAMES)}")
    base = preset_conventions(preset) if preset is not None else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(DEFAULTS, **{**base, **given})
