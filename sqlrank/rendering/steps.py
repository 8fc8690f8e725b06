"""The steps of one statement: the rankings, gains, discounts and ideal rankings its measures
need (``StepPlan``), each measure's template context and the columns its template adds to each
step, and the column names of the measures."""
from __future__ import annotations

import re

from ..measures.conventions import DEFAULTS, FIELD_NAMES, RANKING_FIELDS
from ..measures.family import FAMILY_STEPS
from ..measures.registry import FAMILIES
from ..measures.resolve import check_tie_break
from .dialects import Dialect, number_key
from .sqltext import call_macro, step_columns

# ------------------------------------------------------------ the evaluation statement

_RESERVED = {"dcg", "cg", "ideal_dcg", "num_ret", "rank", "gain", "score", "relevance", "query_id", "doc_id",
             "position", "measure", "value", "point", "queries", "num_queries", "segment", "run_id",
             # the statement's own steps: ClickHouse resolves a column named as a step (Judged's judged) to the step
             "qrels", "run", "judgments", "judged", "ranked", "retrieved", "tie", "running", "ideal", "perfect",
             "per_query", "summary", "evaluated_queries", "numbered_qrels", "run_ranked", "retrieved_counts"}
# A measure template's steps (sql/measures/<family>.sql): each a macro listing its columns, one per line.
#   judgments  per-query aggregates over all judgments      judged   per retrieved document, from its label
#   ranked     windows over the ranking (OVER ranking)       tie      windows over tie groups (OVER tie)
#   running    running sums (OVER running)                   retrieved  per-query aggregates over the ranking
#   ideal      per-query aggregates over the ideal ranking   perfect  over positions 1..k of the perfect ranking
#   interpolated, graded, rndcg: per-query aggregates of the family steps of the same names
# and value, the measure's value from those columns.
STEPS = ("judgments", "judged", "ranked", "tie", "running", "retrieved", "ideal", "perfect", "listed", "ordered",
         "catalog", *FAMILY_STEPS)


# The column that a one-value step (catalog, pooled) is grouped by, with results per "segment" or per
# "run" (runs stored together).
GROUP_KEYS = {"segment": "segment", "run": "run_id"}


class StepPlan:
    """Python decides: which rankings, gains, discounts and ideal rankings the measures need."""

    def __init__(self, conventions, dialect: Dialect, grouped: str | None = None):
        self.dialect = dialect
        self.score = dialect.score(conventions.trec_eval_version)
        self.grouped = grouped  # "segment", "run" (GROUP_KEYS): one-value measures get a row per group
        self.rankings: dict = {}
        self.gains: dict = {}
        self.discounts: dict = {}
        self.ideals: dict = {}
        self.sparse: dict = {}  # ranking key -> whether it is a ranking of judged documents only
        self.least_label: dict = {}  # ranking key -> the judgment labels its join keeps, (label, strict) (None: all)

    def ranking(self, tie_break: str, judged_only: bool, depth, nonpositive_scores: str = "rank") -> dict:
        key = (tie_break, judged_only, depth, nonpositive_scores)
        if key not in self.rankings:
            sfx = "" if not self.rankings else f"_r{len(self.rankings)}"
            self.rankings[key] = {
                "sfx": sfx, "order": self.dialect.ranking_order(tie_break, self.score), "tie_key": self.score,
                "expected": tie_break == "expected", "block": tie_break == "block", "input_rank": tie_break == "input_rank",
                "judged_only": judged_only, "depth": depth, "nonpositive_nonrelevant": nonpositive_scores == "nonrelevant",
                "judged": [], "ranked": [], "outer": [],
                "running": False, "ties": False, "retrieved": [], "join_judgments": False, "ctes": [],
                "measures": [], "step_columns": {}, "popularity": False, "listed": [], "ordered": [], "catalog": [],
                "sparse": False, "counts": False, "least_label": None,
            }
        return self.rankings[key]

    def gain(self, value) -> dict:
        if value not in self.gains:
            if value == "linear":
                spec = {"sfx": "", "kind": "linear", "map": None}
            elif value == "exponential":
                spec = {"sfx": "_exp", "kind": "exponential", "map": None}
            elif value == "signed":
                spec = {"sfx": "_signed", "kind": "signed", "map": None}
            else:
                spec = {"sfx": f"_g{sum(1 for g in self.gains if isinstance(g, tuple)) + 1}", "kind": "map",
                        "map": list(value)}
            self.gains[value] = spec
        return self.gains[value]

    def discount(self, kind, base: float) -> dict:
        """A discount: log or jarvelin with its base, or a tuple of (rank, weight) pairs."""
        key = (kind, base)
        if key not in self.discounts:
            mapped = isinstance(kind, tuple)
            self.discounts[key] = {"key": "" if key == ("log", 2.0) else f"_d{len(self.discounts) + 1}",
                                   "kind": "map" if mapped else kind, "base": base,
                                   "map": list(kind) if mapped else None}
        return self.discounts[key]

    def ideal(self, source: str, gain: dict, ranking: str) -> dict:
        name = "ideal" + gain["sfx"] if source == "qrels" else "ideal_run" + gain["sfx"] + ranking
        if name not in self.ideals:
            self.ideals[name] = {"name": name, "source": source, "gain": gain, "ranking": ranking,
                                 "detail": False, "columns": []}
        return self.ideals[name]


def ranking_key(measure) -> tuple:
    """The conventions that decide a measure's ranking (RANKING_FIELDS), in that order."""
    return tuple(measure.param(name) for name in RANKING_FIELDS)


def measure_context(measure, column: str, plan: StepPlan, version: int) -> dict:
    """What a family template needs to know of one (resolved) measure, and its steps' columns."""
    spec = measure.spec
    check_tie_break(measure)
    plan.dialect.check(measure)
    key = ranking_key(measure)
    ranking = plan.ranking(*key)
    ranking["sparse"] = plan.sparse.get(key, False)
    ranking["least_label"] = plan.least_label.get(key)
    v = ranking["sfx"]
    context = {
        "family": measure.family,
        "level": measure.relevance_level,
        "cutoff": measure.cutoff,
        "cut_key": re.sub(r"[^0-9]", "_", str(measure.cutoff)),
        "column": column,
        "count_column": None,  # set where the summary counts the queries with a value (render_evaluation)
        "weight_column": None,  # set for a measure averaged with weights (render_evaluation)
        "name": measure.shown,  # the name its rows carry: as asked
        "aggregate": spec.aggregate,
        "version": version,
        "expected": ranking["expected"],
        "block": ranking["block"],
        "ranking": v,
        "ranked": f"ranked{v}",
        "retrieved": f"retrieved{v}",
        "missing_queries": measure.param("missing_queries"),
        # a measure that may have no value (ILD of fewer than two items) scores 0 where the run has no ranking at all,
        # under missing_queries=zero, as every other measure does (RecPack's ILD of a user without recommendations)
        "zero_when_unanswered": spec.partial and spec.aggregate != "catalog" and
                                measure.param("missing_queries") == "zero",
        "unjudged_queries": measure.param("unjudged_queries"),
        "sparse": ranking["sparse"],
        "group_key": GROUP_KEYS.get(plan.grouped) if spec.aggregate == "catalog" else None,
    }
    for name in spec.params:
        if name not in context:
            context[name] = measure.param(name)
        elif context[name] != measure.param(name):  # a parameter named like a context key would be ignored
            raise RuntimeError(f"parameter {name} of {measure.family} is named like a key of its template context")
    for name in FIELD_NAMES:  # conventions a family does not take keep trec_eval's value
        context.setdefault(name, getattr(DEFAULTS, name))
    _add_shared_steps(context, measure, plan)
    context["score"] = ranking["tie_key"]  # the score as ranked (32-bit with trec_eval_version=9)
    context["steps"] = {step: step_columns(call_macro(plan.dialect, spec.template, step, context),
                                           f"{spec.template} ({step})") for step in STEPS}
    context["value"] = " ".join(call_macro(plan.dialect, spec.template, "value", context).split())
    if not context["value"]:
        raise RuntimeError(f"template {spec.template} has no macro value")
    if spec.aggregate == "weighted":
        context["weight"] = " ".join(call_macro(plan.dialect, spec.template, "weight", context).split())
        if not context["weight"]:
            raise RuntimeError(f"template {spec.template} has no macro weight (its aggregate is weighted)")
    return context


def _add_shared_steps(context: dict, measure, plan: StepPlan) -> None:
    """The gain, discount and ideal ranking a measure reads (shared with other measures that read the
    same), and the names of the family steps it may add columns to."""
    spec, v = measure.spec, context["ranking"]
    gain = plan.gain(measure.param("gain") if "gain" in spec.params else "linear")
    context["gain"] = gain
    context["disc"] = plan.discount(measure.param("discount") if "discount" in spec.params else "log",
                                    measure.param("log_base") if "log_base" in spec.params else 2.0)
    ideal_kind = measure.param("ideal") if "ideal" in spec.params else "qrels"
    ideal = plan.ideal("run" if ideal_kind == "run" else "qrels", gain, v)
    if "ideal_positions" in spec.reads:
        ideal["detail"] = True
    cut = f"_top_{measure.cutoff}" if measure.cutoff is not None else ""
    context["ideal"] = {"kind": ideal_kind, "spec": ideal["name"],
                        "column": f"{ideal['name']}_dcg{context['disc']['key']}{cut}"}
    cut_name = f"top_{measure.cutoff}" if measure.cutoff is not None else "all"
    context["step_names"] = {"interpolated": f"iprec_{number_key(context['level'])}{v}", "graded": f"graded{gain['sfx']}{v}",
                             "rndcg": f"rndcg{gain['sfx']}{v}",
                             "similar": f"similar_{context.get('similarity')}_{cut_name}{v}",
                             "pooled": f"pooled_{number_key(context['level'])}{v}",  # GlobalAUC has no cutoff
                             "inst": f"inst_{number_key(context.get('T', 1))}_{number_key(context.get('max_rel', 1))}{v}",
                             "intents": f"intents_{number_key(context['level'])}_{number_key(context.get('alpha', 0.5))}{v}",
                             "expected": f"expected_{number_key(context.get('p', 0.5))}_{cut_name}{v}",
                             "pairs": f"pairs{v}",
                             "compat": f"compat_{number_key(context.get('p', 0.95))}_{number_key(context['level'])}{v}",
                             "personalized": f"personalized_{cut_name}{v}",
                             "exposure": f"exposure_{context.get('browse')}_{number_key(context.get('p', 0.5))}_"
                                         f"{number_key(context['level'])}_{cut_name}{v}"}


def require_distinct_step_columns(contexts: list, columns: set) -> None:
    """A step column must not be named as another measure's column: ClickHouse sees a SELECT's aliases
    in its own expressions, so a value reading the step column would read that measure instead (a
    step may compute the measure's own column: Coverage's catalog step)."""
    for context in contexts:
        others = columns - {context["column"]}
        for step, named in context["steps"].items():
            if step in ("similar", "pooled"):  # columns of a CTE of their own, read qualified (step.column)
                continue
            for step_column in named:
                if step_column.name in others:
                    raise RuntimeError(f"{FAMILIES[context['family']].template}: step column {step_column.name} is "
                                       f"also the name of a measure's column; rename the step column")


def one_row_steps(ranking: dict) -> list[str]:
    """The steps of a ranking that are one row for all queries (a row per group with GROUP_KEYS):
    the catalog step and the family steps of ONE_ROW_STEPS."""
    return (["catalog" + ranking["sfx"]] if ranking["catalog"] else []) + \
        [cte["name"] for cte in ranking["ctes"] if cte["one_row"]]


def add_new(lines: list, new: list) -> None:
    lines.extend(line for line in new if line not in lines)


def sparse(measures: list) -> bool:
    """Whether the measures of one ranking need only its judged documents (with their ranks among
    all retrieved documents, and per-query counts of the retrieved): then unjudged documents are
    ranked and dropped before the running counts and aggregates, which run over about a tenth of
    the rows. Not with judged_only (the ranking is then of judged documents anyway),
    tie_break=expected or block (tie groups count unjudged documents), nonpositive_scores=nonrelevant
    (labels depend on scores), measures that read every retrieved
    document (the registry's "all_retrieved"), or nDCG's perfect ideal without cutoff (it sums
    the discounts of every retrieved position)."""
    for m in measures:
        spec = FAMILIES[m.family]
        if m.param("judged_only") or m.param("tie_break") in ("expected", "block") or "all_retrieved" in spec.reads \
                or m.param("nonpositive_scores") != "rank":
            return False
        ideal = m.param("ideal") if "ideal" in spec.params else "qrels"
        if ideal == "perfect" and m.cutoff is None and m.family in ("nDCG", "IdealDCG"):
            return False
    return True


def least_label(measures: list) -> tuple[int | float, bool] | None:
    """The lowest judgment labels any of a sparse ranking's measures reads (the registry's labels), as
    (label, strict): the labels > label (strict) or >= label; None when one reads every judged document
    (judged non-relevant ones count) or none reads any. A label outside adds nothing to any value: it
    is not relevant at any measure's rel, and its gain is 0 (labels <= 0, unless a gain mapping gives
    label 0 one). Labels may be real numbers (0.5 has a gain): gains keep every label > 0."""
    least = None
    for m in measures:
        labels = FAMILIES[m.family].labels
        if labels == "all":
            return None
        if labels == "relevant":
            bound = (m.relevance_level, False)
        elif labels == "gain":
            gain = m.param("gain")
            bound = (0, not (isinstance(gain, tuple) and any(lab == 0 and value != 0 for lab, value in gain)))
        else:
            continue
        least = bound if least is None else min(least, bound)  # the lower label; at a tie, >= keeps more than >
    return least


def column_name(name: str, taken: set) -> str:
    """A plain SQL column name for a measure: ``nDCG@10`` -> ``ndcg_at_10``."""
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower().replace("@", "_at_")).strip("_") or "measure"
    if slug in _RESERVED or slug[0].isdigit():
        slug += "_value"
    slug = slug[:60]
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}_{n}", n + 1
    return candidate
