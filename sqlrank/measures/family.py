"""``Family``: what the registry says of one measure family (parameters, cutoff rule, the shared
steps it reads, trec_eval names, aggregate, extra inputs); the steps a family may read."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .params import Param

# The shared steps of an evaluation a family may read (besides its ranking of retrieved documents):
STEPS = {
    "judgments": "per-query counts over all judgments (R), in its value",
    "judgments_in_ranking": "the same counts inside its per-query aggregates (Rprec: the top R)",
    "all_retrieved": "every retrieved document, judged or not (no ranking of judged documents only)",
    "retrieved_count": "how many documents each query retrieved (a ranking of judged documents only reads it "
                       "from per-query counts)",
    "ideal": "the ideal ranking's per-query DCG and gains",
    "ideal_positions": "the ideal ranking position by position",
    "interpolated": "the interpolated precision at each relevant document",
    "graded": "each retrieved document with a gain, beside the ideal document at its rank",
    "rndcg": "the ratio DCG / ideal DCG where the ideal gain changes",
    "popularity": "each recommended item's interactions in the history and place in the catalog by popularity",
    "catalog": "how often each item is in the top k of all queries, aggregated over the catalog",
    "similar": "the similarity of recommended items to each other and to the user's history",
    "pooled": "the judged documents of every query counted per score, for one ROC curve over them all",
    "inst": "INST's chance of reading on at each rank, multiplied down the ranking",
    "expected": "each document's exposure averaged over a query's sampled rankings, beside its target exposure",
    "exposure": "each group's exposure in the top k under a browsing model, and its share of the relevant documents",
    "pairs": "every pair of retrieved documents of a query, the higher ranked one first, with both labels",
    "compat": "the ranking beside the ideal ranking of the relevant judgments: their overlap at every depth",
    "personalized": "how many users have each item in their top k, and how many users have a top k (per run)",
    "intents": "the subtopic judgments: each retrieved document's gain over the subtopics it is relevant to, and the "
               "ideal ranking chosen greedily from them",
}
# Extra inputs a family reads besides qrels and run (recommender measures beyond accuracy):
# history (training interactions), catalog (the items of --items and of the history), and
# item_features (categories or feature vectors, for similarity=features), groups (the groups of
# documents of the fairness measures) and targets (their target shares, for AWRF(target=file)).
INPUTS = ("history", "catalog", "item_features", "groups", "targets")
# The retrieved judged documents a family's value reads from its ranking: all of them (judged
# non-relevant ones count: Bpref, infAP, ...), the relevant ones only (labels >= rel), those with a
# gain other than 0, or none (its value comes from per-query counts). When every measure of a
# ranking of judged documents only reads relevant or gain documents, the label join keeps the
# judgments at or above the lowest such label (templates.least_label): at 10M run rows, less than
# half of them.
LABELS = {"all": "every judged document", "relevant": "judged documents with labels >= rel",
          "gain": "judged documents whose gain is not 0", "none": "no document of the ranking"}
# The steps that are CTEs of their own, rendered by sql/evaluation/<step>.sql.
FAMILY_STEPS = ("interpolated", "graded", "rndcg", "similar", "pooled", "inst", "intents", "exposure", "expected",
                "pairs", "personalized", "compat")
# Those of them with one row for the whole evaluation (no query_id): cross-joined to every query's row.
ONE_ROW_STEPS = ("pooled",)
TREC_KINDS = ("plain", "cut", "params", "special")
TREC_PARAMS = ("gains", "gains_p", "p", "beta", "coefficients", "levels")


@dataclass(frozen=True)
class Trec:
    """A trec_eval name of a family: its place in trec_eval's output (measures.c, version 10),
    how it prints (plain: one line; cut: one line per cutoff; params: one line, free parameters;
    special: num_q), and the family's parameters it stands for (set_relative_P)."""

    name: str
    order: int
    kind: str = "plain"
    params: tuple = ()


GEOMETRIC_FLOOR = 1e-5  # aggregate "geometric": each value at least this (trec_eval's gm_map, gm_bpref)


@dataclass(frozen=True)
class Family:
    """What a measure family is; see the module's doc. ``name`` is also its template's file name."""

    name: str
    definition: str
    params: dict[str, Param] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()  # other spellings, matched case-insensitively
    cutoff: str = "optional"  # "none", "optional" or "required"
    cutoff_kind: str = "rank"  # "rank" (positive integer), "fraction" (0..1), "multiple" (>= 0)
    default_cutoffs: tuple = ()  # the cutoffs of a name without one (required cutoffs, or trec_eval's cut name)
    aggregate: str = "mean"  # over queries: "mean", "sum" (counts), "geometric" (gm_map, gm_bpref),
    # "weighted" (by the template's weight per query: GAUC), or "catalog": one value over all queries'
    # recommendations together (coverage), none per query
    integer: bool = False  # counts print as integers
    trec: tuple[Trec, ...] = ()
    trec_params: str | None = None  # the syntax of its free parameters in trec_eval names (TREC_PARAMS)
    reads: frozenset = frozenset()  # shared steps it reads (STEPS)
    reads_when: tuple[tuple[str, Any, str], ...] = ()  # (parameter, value, step): a step read with that value
    tie_expected: bool = True  # tie_break=expected has an exact (closed) form
    tie_block: bool = False  # tie_break=block is read: a tie group whole above each of its documents
    macros: tuple[tuple[str, bool], ...] = ()  # DuckDB macros of `sqlrank install`: (name, takes the cutoff)
    label_limit: str | None = None  # the parameter no judgment label may exceed (checked before evaluating)
    reference: str = ""  # where the definition comes from
    inputs: tuple[str, ...] = ()  # extra inputs it reads (INPUTS)
    inputs_when: tuple[tuple[str, Any, str], ...] = ()  # (parameter, value, input): an input read with that value
    labels: str = "all"  # the retrieved judged documents its value reads (LABELS)
    partial: bool = False  # some evaluated queries can have no value (AUC with one class): the summary counts them
    scores_no_relevant: bool = True  # a judged query without a relevant label has a value (0 with no_relevant=zero)
    # parameters its printed name states even at their default: (parameter, None or (other parameter, value): only
    # when the other has that value); the browsing model of the fairness measures
    stated: tuple[tuple[str, tuple | None], ...] = ()

    def __post_init__(self) -> None:
        """A registry entry's own mistakes stop the import (checked under python -O too)."""
        wrong = [what for what, ok in (
            (f"labels {self.labels!r}", self.labels in LABELS),
            (f"cutoff {self.cutoff!r}", self.cutoff in ("none", "optional", "required")),
            (f"cutoff_kind {self.cutoff_kind!r}", self.cutoff_kind in ("rank", "fraction", "multiple")),
            (f"aggregate {self.aggregate!r}", self.aggregate in ("mean", "sum", "geometric", "weighted", "catalog")),
            (f"inputs {set(self.inputs) - set(INPUTS)}", set(self.inputs) <= set(INPUTS)),
            ("an inputs_when input",
             all(name in INPUTS and param in self.params for param, _, name in self.inputs_when)),
            (f"reads {set(self.reads) - set(STEPS)}", set(self.reads) <= set(STEPS)),
            ("a reads_when step", all(step in STEPS and param in self.params for param, _, step in self.reads_when)),
            ("a trec kind", all(t.kind in TREC_KINDS for t in self.trec)),
            (f"trec_params {self.trec_params!r}", self.trec_params in (None, *TREC_PARAMS))) if not ok]
        if wrong:
            raise ValueError(f"registry entry {self.name}: unknown {', '.join(wrong)}")

    @property
    def beyond_accuracy(self) -> bool:
        """A recommender measure beyond accuracy: it reads extra inputs, is one value over all
        recommendations, or compares recommended items with each other (catalog.py)."""
        return bool(self.inputs or self.inputs_when) or self.aggregate == "catalog" or "similar" in self.reads

    def inputs_for(self, values: Any) -> tuple[str, ...]:
        """The extra inputs a measure of this family reads, ``values`` its parameters' values (a mapping)."""
        return self.inputs + tuple(name for param, value, name in self.inputs_when if values.get(param) == value)

    def reads_for(self, values: Any) -> frozenset:
        """The steps a measure of this family reads, ``values`` its parameters' values (a mapping)."""
        return self.reads | {step for param, value, step in self.reads_when if values.get(param) == value}

    @property
    def scores_one(self) -> bool:
        """Whether no_relevant=one gives it 1 where a query has no relevant judgment: a mean of a value read from the
        relevant documents or their gains that has a value there (not AUC, nor counts, nor one value over all users)."""
        return (self.labels in ("relevant", "gain") and self.scores_no_relevant
                and self.aggregate in ("mean", "geometric"))

    @property
    def intent_aware(self) -> bool:
        """A diversity measure: it reads judgments per subtopic of a query (inputs/keyed.py)."""
        return "intents" in self.reads

    @property
    def sampled(self) -> bool:
        """An expected exposure measure: it reads a query's sampled rankings (inputs/keyed.py)."""
        return "expected" in self.reads

    @property
    def template(self) -> str:
        return f"measures/{self.name}.sql"

    @property
    def trec_name(self) -> str | None:
        """trec_eval's name without a cutoff (``map``, ``ndcg``)."""
        return next((t.name for t in self.trec if t.kind != "cut" and not t.params), None)

    @property
    def trec_cut_name(self) -> str | None:
        """trec_eval's name with cutoffs (``map_cut``, ``ndcg_cut``)."""
        return next((t.name for t in self.trec if t.kind == "cut"), None)
