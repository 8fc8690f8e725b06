"""The measure registry: one declarative entry per measure family, and nothing else.

Each entry says what a family is called (ir_measures name, other spellings, trec_eval names with
their place and kind in trec_eval's output), what it takes (parameters with their checks and
defaults, the cutoff rule), how it is computed (``sql/measures/<name>.sql``, the shared steps it
reads, whether ``tie_break=expected`` has an exact form), how it is averaged over queries, the
DuckDB macros ``sqlrank install`` makes for it, and a one-line definition. Parsing
(``measures.py``), rendering (``templates.py``), trec_eval's output (``trec_eval.py``), the
macros (``macros.py``), ``sqlrank measures`` and the measure table of docs/measures.md all read it.
"""
from __future__ import annotations

from typing import Any

from ..errors import MeasureError
from .family import Family, Trec
from .params import (
    CONVENTION_PARAMS,
    EVALUATION_PARAMS,
    R_MULTIPLES,
    RECALL_LEVELS,
    SUCCESS_CUTOFFS,
    TREC_CUTOFFS,
    UNJ_CUTOFFS,
    Param,
    boolean,
    choice,
    integer,
    group_name,
    label,
    levels,
    log_base,
    real,
    source_name,
)


def _entry(name: str, definition: str, params: tuple = (), reads: tuple = (), **kw: Any) -> Family:
    """A Family whose params are named: convention fields by name, others as (name, Param).
    Every family also takes the conventions that decide the ranking and the query set."""
    resolved = dict((p, CONVENTION_PARAMS[p]) if isinstance(p, str) else p for p in params)
    resolved.update({p: CONVENTION_PARAMS[p] for p in EVALUATION_PARAMS})
    return Family(name, definition, resolved, reads=frozenset(reads), **kw)


_P = Param(real(0.0, 1.0, open_low=True, open_high=True), 0.9, "number in (0, 1)")


def _nerr_equation(value: Any, what: str) -> int:
    """NERR's equation in Azzopardi, Mackenzie & Moffat (ICTIR 2021): 8, 9, 10 or 11."""
    if isinstance(value, bool) or value not in (8, 9, 10, 11):
        raise MeasureError(f"{what} must be 8, 9, 10 or 11 (the paper's equation), not {value!r}")
    return int(value)


_T = Param(real(0.0, open_low=True), 1.0, "number > 0")  # C/W/L: the gain a user wants (INSQ, BPM)
_ALPHA = ("alpha", Param(real(0.0, 1.0, open_high=True), 0.5, "number in [0, 1)"))  # diversity: redundancy
_BETA = ("beta", Param(_P.check, 0.5, "number in (0, 1)"))  # NRBP: patience
NDEVAL_CUTOFFS = (5, 10, 20)  # the cutoffs ndeval reports
# The diversity measures read subtopic judgments through the family step "intents"; no exact form of tied scores.
_INTENTS = ("intents",)
_DIVERSITY = {"tie_expected": False, "labels": "relevant"}
SIMILARITIES = ("cooccurrence", "features")
# A query's weight in GAUC: its judged retrieved documents (impressions, when none is given), or its relevant ones.
# No default value, so that an explicit GAUC(weight=impressions) stays in the name and a preset cannot change it.
GAUC_WEIGHTS = ("impressions", "positives")


# Item-item similarity of the diversity measures: cosine over users who interacted with both items
# (history), or cosine of the items' feature vectors (categories: 0/1 vectors).
_SIMILARITY = ("similarity", Param(choice(SIMILARITIES), "cooccurrence", "cooccurrence or features"))
_GAINS = ("gain", "discount", "log_base")
# Fairness of exposure: the attention a rank gets (browse=log: 1 / log2(rank + 1), as DCG; rbp: p^(rank - 1)).
# jarvelin: 1 / log2(max(rank, 2)), rank 1 as rank 2 (TREC Fair Ranking 2022's discount).
_BROWSE = [("browse", Param(choice(("log", "rbp", "jarvelin")), "log", "log, rbp or jarvelin")),
           ("p", Param(_P.check, 0.5, "number in (0, 1)"))]
AWRF_TARGETS = ("uniform", "relevant", "file")
_TARGET = ("target", Param(choice(AWRF_TARGETS), "uniform", "uniform, relevant or file"))
# AWRF's distance to the target: 1 - the Jensen-Shannon distance (js=distance, the square root of the divergence) or
# 1 - the divergence itself (js=divergence, TREC Fair Ranking 2022), its logarithms in base js_base (2, or e: scipy's).
_JS = [("js", Param(choice(("distance", "divergence")), "distance", "distance or divergence")),
       ("js_base", Param(log_base, 2.0, "number > 1 or e"))]
_FAIRNESS = {"tie_expected": False, "inputs": ("groups",), "labels": "all",
             "stated": (("browse", None), ("p", ("browse", "rbp")))}  # the browsing model is in every name
# Expected exposure: the patience of the user who reads each sampled ranking (expeval's default 0.5).
_EXPOSURE = [("p", Param(_P.check, 0.5, "number in (0, 1)"))]
_EXPECTED = ("expected",)
_STOCHASTIC = {"tie_expected": False, "labels": "none"}
# The short head of APLT and ACLT: the most popular items that together hold this share of the interactions.
_HEAD_SHARE = ("head_share", Param(real(0.0, 1.0, open_low=True), 0.8, "number in (0, 1]"))

REGISTRY: tuple[Family, ...] = (
    _entry("P", "precision: relevant documents in the top k, divided by k (denominator=retrieved: by the documents "
           "in the top k when fewer are retrieved, as Elasticsearch's precision over its hits)",
           ["rel", ("denominator", Param(choice(("cutoff", "retrieved")), "cutoff", "cutoff or retrieved"))],
           reads_when=(("denominator", "retrieved", "retrieved_count"),),
           aliases=("precision",), cutoff="required", default_cutoffs=TREC_CUTOFFS,
           trec=(Trec("P", 11, "cut"),), macros=(("p", True),), labels="relevant", reference="trec_eval m_P.c"),
    _entry("R", "recall: relevant documents in the top k, divided by all relevant (R)", ["rel"], ["judgments"],
           aliases=("recall",), cutoff="required", default_cutoffs=TREC_CUTOFFS,
           trec=(Trec("recall", 13, "cut"),), macros=(("recall", True),), labels="relevant",
           reference="trec_eval m_recall.c"),
    _entry("Hits", "hits: the number of relevant documents in the top k (all retrieved without k), averaged over "
           "queries (ranx's hits)", ["rel"], cutoff="optional", labels="relevant",
           reference="ranx metrics.hits"),
    _entry("FallOut", "fall-out: the non-relevant documents in the top k, divided by all of the query's; non-relevant "
           "means judged with 0 <= label < rel (nonrelevant=retrieved: every retrieved document not relevant, unjudged "
           "ones too, as TorchMetrics sees only the documents passed); a query without any scores 0 "
           "(no_nonrelevant=one: 1, as TorchMetrics' RetrievalFallOut by default)",
           ["rel", ("nonrelevant", Param(choice(("judged", "retrieved")), "judged", "judged or retrieved")),
            ("no_nonrelevant", Param(choice(("zero", "one")), "zero", "zero or one"))], ["judgments", "all_retrieved"],
           aliases=("fall_out",), reference="Salton & McGill (1983); TorchMetrics RetrievalFallOut"),
    _entry("Success", "1 if any relevant document is in the top k, else 0", ["rel"],
           aliases=("hit_rate", "hitrate", "hr", "hit"), cutoff="required", default_cutoffs=SUCCESS_CUTOFFS,
           trec=(Trec("success", 29, "cut"),), macros=(("success", True),), labels="relevant",
           reference="trec_eval m_success.c"),
    _entry("relative_P", "relevant documents in the top k, divided by min(k, R)", ["rel"], ["judgments"],
           cutoff="required", default_cutoffs=TREC_CUTOFFS, trec=(Trec("relative_P", 28, "cut"),),
           labels="relevant", reference="trec_eval m_rel_P.c"),
    _entry("AP", "average precision: mean of the precision at each relevant document, over R",
           ["rel", "ap_denominator"], ["judgments"], aliases=("map",), default_cutoffs=TREC_CUTOFFS,
           trec=(Trec("map", 5), Trec("map_cut", 27, "cut")), macros=(("ap_at", True), ("ap", False)),
           labels="relevant", tie_block=True, reference="trec_eval m_map.c, m_map_cut.c; with tie_break=block "
           "scikit-learn's average_precision_score"),
    _entry("LRAP", "label ranking average precision (scikit-learn's label_ranking_average_precision_score): AP with "
           "each tie group whole above its documents (the relevant up to the group's end over its last rank), over R; "
           "1 without a relevant judgment", ["rel"], ["judgments", "all_retrieved"], cutoff="none", labels="relevant",
           aliases=("label_ranking_average_precision",), tie_block=True,
           reference="scikit-learn, sklearn/metrics/_ranking.py"),
    _entry("LabelRankingLoss", "scikit-learn's label_ranking_loss: the share of (relevant, non-relevant retrieved) pairs "
           "in the wrong order, a tie counting as wrong, an unretrieved relevant document below every retrieved one "
           "(lower is better; 0 without both)", ["rel"], ["judgments", "all_retrieved"], cutoff="none",
           aliases=("label_ranking_loss",), tie_block=True, reference="scikit-learn, sklearn/metrics/_ranking.py"),
    _entry("Compat", "compatibility: the rank-biased overlap (persistence p) of the ranking with the ideal ranking of "
           "the relevant judgments (by label, then by the run's score), to the longer's depth, over the ideal's with "
           "itself (normalize=True) or as it is; 0 without a relevant judgment",
           ["rel", ("p", Param(_P.check, 0.95, "number in (0, 1)")), ("normalize", Param(boolean, True, "True or False"))],
           ["compat", "all_retrieved"], cutoff="none", tie_expected=False, aliases=("compatibility",),
           reference="Clarke, Vtyurina & Smucker, Assessing top-k preferences (TOIS 2021); ir_measures' Compat"),
    _entry("GMAP", "AP, averaged over queries by the geometric mean of max(AP, 1e-5)", ["rel"], ["judgments"],
           cutoff="none", aggregate="geometric", trec=(Trec("gm_map", 6),), labels="relevant",
           reference="trec_eval m_gm_map.c"),
    _entry("YAAP", "yet another AP: ln((1 + S) / (1 + R - S)), S = sum of the precision at each relevant",
           ["rel"], ["judgments"], cutoff="none", trec=(Trec("yaap", 53),), tie_expected=False,
           labels="relevant", reference="trec_eval m_yaap.c"),
    _entry("RR", "reciprocal rank of the first relevant document", ["rel"], aliases=("mrr", "recip_rank"),
           trec=(Trec("recip_rank", 9),), macros=(("rr_at", True), ("rr", False)),
           labels="relevant", reference="trec_eval m_recip_rank.c"),
    _entry("Rprec", "precision at rank R (the number of relevant documents)", ["rel"],
           ["judgments", "judgments_in_ranking"], aliases=("r-prec",), cutoff="none", trec=(Trec("Rprec", 7),),
           macros=(("rprec", False),), labels="relevant", reference="trec_eval m_Rprec.c"),
    _entry("Rprec_mult", "precision at rank floor(x * R + 0.9)", ["rel"], ["judgments", "judgments_in_ranking"],
           cutoff="required", cutoff_kind="multiple", default_cutoffs=R_MULTIPLES,
           trec=(Trec("Rprec_mult", 16, "cut"),), labels="relevant", reference="trec_eval m_Rprec_mult.c"),
    _entry("IPrec", "interpolated precision at recall level x (max precision at recall >= x)", ["rel"],
           ["judgments", "interpolated"], cutoff="required", cutoff_kind="fraction",
           default_cutoffs=RECALL_LEVELS, trec=(Trec("iprec_at_recall", 10, "cut"),), tie_expected=False,
           labels="relevant", reference="trec_eval m_iprec_at_recall.c"),
    _entry("IPrecAvg", "mean interpolated precision over recall levels (11-point average)",
           ["rel", ("levels", Param(levels, RECALL_LEVELS, "recall levels"))],
           ["judgments", "interpolated"], cutoff="none", trec=(Trec("11pt_avg", 18, "params"),),
           trec_params="levels", tie_expected=False, labels="relevant", reference="trec_eval m_11pt_avg.c"),
    _entry("Bpref", "binary preference: 1 - judged non-relevant above each relevant, over R (unjudged skipped); the "
           "non-relevant above count over min(R, N) as trec_eval, or over R (formula=original: Buckley & Voorhees' "
           "formula, TF-Ranking's use_trec_version=False)",
           ["rel", ("formula", Param(choice(("trec_eval", "original")), "trec_eval", "trec_eval or original"))],
           ["judgments", "judgments_in_ranking"], cutoff="none", trec=(Trec("bpref", 8),), tie_expected=False,
           macros=(("bpref", False),), reference="Buckley & Voorhees (SIGIR 2004); trec_eval m_bpref.c"),
    _entry("GMBpref", "Bpref, averaged over queries by the geometric mean of max(bpref, 1e-5)", ["rel"],
           ["judgments", "judgments_in_ranking"], cutoff="none", aggregate="geometric",
           trec=(Trec("gm_bpref", 15),), tie_expected=False, reference="trec_eval m_gm_bpref.c"),
    _entry("infAP", "inferred AP (Yilmaz and Aslam): AP estimated from a sampled pool", ["rel"], ["judgments"],
           cutoff="none", trec=(Trec("infAP", 14),), tie_expected=False,
           reference="Yilmaz & Aslam (CIKM 2006); trec_eval m_infap.c"),
    _entry("binG", "binary G: sum over relevant of 1 / log2(2 + non-relevant above), over R", ["rel"],
           ["judgments"], cutoff="none", trec=(Trec("binG", 19),), tie_expected=False,
           reference="trec_eval m_binG.c"),
    _entry("nDCG", "DCG divided by the DCG of the ideal ranking of all judgments (cut at k)", [*_GAINS, "ideal"],
           ["ideal"],
           aliases=("ndcg",), default_cutoffs=TREC_CUTOFFS, trec=(Trec("ndcg", 23, "params"), Trec("ndcg_cut", 26, "cut")),
           trec_params="gains", macros=(("ndcg", True), ("ndcg_all", False)),
           labels="gain", reference="Jarvelin & Kekalainen (2002); trec_eval m_ndcg.c, m_ndcg_cut.c"),
    _entry("DCG", "discounted cumulative gain: sum of gain / log2(rank + 1); gain = the label, 0 for labels <= 0 and "
           "unjudged documents", _GAINS,
           trec=(Trec("dcg", 21, "params"),), trec_params="gains", macros=(("dcg", True),),
           labels="gain", reference="Jarvelin & Kekalainen (2002); trec_eval m_dcg.c"),
    _entry("IdealDCG", "DCG of the ideal ranking of all judgments", [*_GAINS, "ideal"], ["ideal"],
           trec=(Trec("ideal_dcg", 22, "params"),), trec_params="gains", labels="none",
           reference="trec_eval m_ideal_dcg.c"),
    _entry("CG", "cumulative gain: sum of the gains of the retrieved documents", ["gain"], macros=(("cg", True),),
           labels="gain", reference="Jarvelin & Kekalainen (2002)"),
    _entry("AvgRelPos", "average relevant position: the retrieved documents' ranks averaged with their gains as "
           "weights, sum(gain * rank) / sum(gain) (lower is better; 0 without a gain)", ["gain"], tie_expected=False,
           labels="gain", aliases=("arp_position", "average_relevant_position"),
           reference="pytorchltr, pytorchltr/evaluation/arp.py (its arp)"),
    _entry("PercentileRank", "expected percentile rank: the judged documents' percentiles (rank - 1) / n in the "
           "ranking (1 where it lacks them), averaged with their gains as weights (lower is better)", ["gain"],
           ["judgments", "all_retrieved"], cutoff="none", tie_expected=False, labels="gain",
           aliases=("percentile_ranking", "expected_percentile_rank"),
           reference="Hu, Koren & Volinsky (ICDM 2008); RecPack, recpack/metrics/percentile_ranking.py"),
    _entry("WeightedRecall", "recall weighed by gains: the gains of the top k over the gains of all judgments",
           ["gain"], ["judgments"], cutoff="required", tie_expected=False, labels="gain", aliases=("weighted_recall",),
           reference="PyTorch Geometric, torch_geometric/metrics/link_pred.py (LinkPredRecall(weighted=True))"),
    _entry("KendallTau", "Kendall's rank correlation of the ranking (top k) with the retrieved documents' labels "
           "(unjudged: 0): (C - D) over the pairs, C and D the pairs the ranking orders as the labels or against them; "
           "tau-b (variant=b, scipy's kendalltau) over sqrt(P (P - T)), T the pairs of equal labels; tau-a (variant=a, "
           "pyltr's KendallTau) over all P pairs; 0 with fewer than two documents or no pair of different labels",
           [("variant", Param(choice(("a", "b")), "b", "a or b"))], ["all_retrieved", "pairs"], tie_expected=False,
           aliases=("kendall_tau", "kendall"),
           reference="Kendall (1938, 1945); scipy.stats.kendalltau (tau-b); pyltr, pyltr/metrics/kendall.py (tau-a)"),
    _entry("Personalization", "personalization: 1 - the share of its top k a user has in common with another user "
           "(|top k of u & top k of v| / k), averaged over the other users with recommendations; the users' mean is "
           "the mean over every pair of users (PyG's LinkPredPersonalization, recmetrics' personalization)", (),
           ["all_retrieved", "personalized"], cutoff="required", tie_expected=False, labels="none", partial=True,
           aliases=("personalisation",),
           reference="Zhou et al. (PNAS 2010); PyTorch Geometric, torch_geometric/metrics/link_pred.py; recmetrics"),
    _entry("nDCG_rel", "nDCG averaged at each relevant document (trec_eval ndcg_rel)", ["gain"],
           ["ideal", "ideal_positions", "graded"], cutoff="none",
           trec=(Trec("ndcg_rel", 24, "params"),), trec_params="gains", tie_expected=False,
           reference="trec_eval m_ndcg_rel.c"),
    _entry("Rndcg", "nDCG averaged at the ranks where the ideal gain changes (0 when R = 0)", ["gain", "rel"],
           ["judgments", "retrieved_count", "ideal", "ideal_positions", "rndcg"], cutoff="none",
           trec=(Trec("Rndcg", 25, "params"),), trec_params="gains", tie_expected=False,
           reference="trec_eval m_Rndcg.c"),
    _entry("G", "normalized gain G (trec_eval, experimental)", ["gain"],
           ["ideal", "ideal_positions", "graded"], cutoff="none", trec=(Trec("G", 20, "params"),),
           trec_params="gains", tie_expected=False, reference="trec_eval m_G.c"),
    _entry("ERR", "expected reciprocal rank: sum over ranks i of R_i / i * prod_{j<i} (1 - R_j), "
           "R = (2^label - 1) / 2^max_rel; stop=ntcir: R = gain / (the gain of max_rel + 1), as NTCIREVAL",
           [("max_rel", Param(label, 4, "a number > 0")),
            ("stop", Param(choice(("exponential", "ntcir")), "exponential", "exponential or ntcir")), "gain"],
           tie_expected=False, macros=(("err", True),), label_limit="max_rel",
           reference="Chapelle, Metzler, Zhang & Grinspan (CIKM 2009); gdeval.pl of the TREC Web track"),
    _entry("RBP", "rank-biased precision (1 - p) * sum of gain * p^(rank - 1), gains rescaled to [0, 1] (a gain map's: "
           "by its largest gain, as NTCIREVAL)", [("p", _P), "gain"],
           ["judgments_in_ranking"], cutoff="none", trec=(Trec("rbp", 54, "params"),), trec_params="gains_p",
           reference="Moffat & Zobel (2008); trec_eval m_rbp.c"),
    _entry("INSQ", "C/W/L INSQ: expected gain per document read of a user who reads on with probability "
           "((i + 2T - 1) / (i + 2T))^2 past rank i (gains label / max_rel, 1000 ranks)",
           [("T", _T), ("max_rel", Param(label, 1, "a number > 0"))], ["all_retrieved"], cutoff="none",
           tie_expected=False, label_limit="max_rel", labels="gain",
           reference="Moffat, Bailey, Scholer & Thomas (ADCS 2015); cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019)"),
    _entry("INST", "C/W/L INST: expected gain per document read of a user who reads on past rank i with probability "
           "((i + 2T - G_i - 1) / (i + 2T - G_i))^2, G_i the gain so far (gains label / max_rel, 1000 ranks)",
           [("T", _T), ("max_rel", Param(label, 1, "a number > 0"))], ["all_retrieved", "inst"], cutoff="none",
           tie_expected=False, label_limit="max_rel", labels="gain",
           reference="Moffat, Bailey, Scholer & Thomas (ADCS 2015); cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019)"),
    _entry("BPM", "C/W/L BPM (static): the mean gain of the documents a user reads until gain T is reached or K "
           "documents are read (gains label / max_rel, 1000 ranks)",
           [("T", _T), ("K", Param(integer(1, 1000), 1000, "an integer from 1 to 1000")),
            ("max_rel", Param(label, 1, "a number > 0"))],
           ["all_retrieved"], cutoff="none", tie_expected=False, label_limit="max_rel", labels="gain",
           reference="Zhang, Liu, Li, Zhang, Xu & Ma (SIGIR 2017); cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019)"),
    _entry("NERR", "C/W/L NERR, not (but nearly) ERR: expected gain per document read of a user who reads on past "
           "rank i with probability (1 - g_i) times 1 (eq=8), i / (i + 1) (eq=9), p (eq=10) or ((i + 2T - 1) / "
           "(i + 2T))^2 (eq=11); eq 8 and 9 stop at rank k (gains label / max_rel, 1000 ranks)",
           [("eq", Param(_nerr_equation, 8, "8, 9, 10 or 11")), ("p", _P), ("T", _T),
            ("max_rel", Param(label, 1, "a number > 0"))], ["all_retrieved"], tie_expected=False,
           label_limit="max_rel", labels="gain", stated=(("eq", None), ("p", ("eq", 10)), ("T", ("eq", 11))),
           reference="Azzopardi, Mackenzie & Moffat (ICTIR 2021); cwl_eval, ruler/measures/cwl_nerr.py"),
    # Intent-aware (diversity) measures: judgments per subtopic of a query (ndeval's qrels), relevant at label >= rel.
    _entry("alpha_nDCG", "alpha-nDCG: alpha-DCG of the top k (a document's gain: the sum over the subtopics it is relevant "
           "to of (1 - alpha)^(documents above relevant to that subtopic), discounted by 1/log2(rank + 1)) over that of "
           "the ideal ranking built greedily from the judgments", ["rel", _ALPHA], _INTENTS,
           cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY, reference="Clarke et al. (SIGIR 2008); ndeval"),
    _entry("alpha_DCG", "alpha-DCG of the top k over that of an ideal ranking where every document is relevant to every "
           "subtopic (ndeval's collection-independent normalisation)", ["rel", _ALPHA], _INTENTS,
           cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY, reference="Clarke et al. (SIGIR 2008); ndeval"),
    _entry("ERR_IA", "intent-aware ERR: the sum over ranks i <= k of the alpha-gain at i over i, over that of a ranking "
           "where every document is relevant to every subtopic", ["rel", _ALPHA], _INTENTS, aliases=("err-ia",),
           cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY,
           reference="Chapelle, Metzler, Zhang & Grinspan (CIKM 2009); ndeval"),
    _entry("nERR_IA", "intent-aware ERR of the top k over that of the greedy ideal ranking", ["rel", _ALPHA], _INTENTS,
           aliases=("nerr-ia",), cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY,
           reference="Chapelle, Metzler, Zhang & Grinspan (CIKM 2009); ndeval"),
    _entry("NRBP", "novelty- and rank-biased precision: (1 - (1 - alpha) beta) / S * sum over the ranking of the "
           "alpha-gain at i times beta^(i - 1), S the subtopics with a relevant document", ["rel", _ALPHA, _BETA],
           _INTENTS, cutoff="none", **_DIVERSITY, reference="Clarke, Kolla & Vechtomova (ICTIR 2009); ndeval"),
    _entry("nNRBP", "NRBP over that of the greedy ideal ranking", ["rel", _ALPHA, _BETA], _INTENTS, cutoff="none",
           **_DIVERSITY, reference="Clarke, Kolla & Vechtomova (ICTIR 2009); ndeval"),
    _entry("P_IA", "intent-aware precision: the mean over the S subtopics of P@k with that subtopic's judgments",
           ["rel"], _INTENTS, aliases=("p-ia",), cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY,
           reference="Agrawal, Gollapudi, Halverson & Ieong (WSDM 2009); ndeval"),
    _entry("AP_IA", "intent-aware AP: the mean over the S subtopics of AP with that subtopic's judgments", ["rel"],
           _INTENTS, aliases=("map_ia", "map-ia"), cutoff="none", **_DIVERSITY,
           reference="Agrawal, Gollapudi, Halverson & Ieong (WSDM 2009); ndeval"),
    _entry("StRecall", "subtopic recall: the share of the S subtopics with a relevant document in the top k", ["rel"],
           _INTENTS, aliases=("strec", "s-recall"), cutoff="required", default_cutoffs=NDEVAL_CUTOFFS, **_DIVERSITY,
           reference="Zhai, Cohen & Lafferty (SIGIR 2003); ndeval"),
    _entry("RBPResid", "RBP residual: the mass RBP leaves to unjudged documents and the tail", [("p", _P)],
           ["retrieved_count"], cutoff="none", trec=(Trec("rbp_resid", 55),), trec_params="p",
           reference="trec_eval m_rbp_resid.c"),
    _entry("Unj", "fraction of the top k not judged (absent from the qrels or negative)", (), ["retrieved_count"],
           cutoff="required", default_cutoffs=UNJ_CUTOFFS, trec=(Trec("unj", 56, "cut"),),
           macros=(("unjudged", True),), reference="trec_eval m_unjudged.c"),
    _entry("Judged", "fraction of the top k that has a judgment (any label, negative ones too), divided by k or by "
           "the documents retrieved when fewer (ir_measures' Judged; 1 - Unj@k where no label is negative and k "
           "documents are retrieved); source=NAME: the judgments of that source alone, of judgments merged from "
           "several", [("source", Param(source_name, None, "a judgment source's name"))], ["all_retrieved"],
           cutoff="optional", labels="all",
           reference="ir_measures Judged (judged_provider.py); MacAvaney & Soldaini (2023)"),
    _entry("SetP", "num_rel_ret / num_ret (relative=True: / min(num_ret, R))",
           ["rel", ("relative", Param(boolean, False, "True or False"))], ["judgments", "retrieved_count"],
           cutoff="none", trec=(Trec("set_P", 30), Trec("set_relative_P", 31, params=(("relative", True),))),
           reference="trec_eval m_set_P.c, m_set_rel_P.c"),
    _entry("SetR", "num_rel_ret / R", ["rel"], ["judgments", "retrieved_count"], cutoff="none",
           trec=(Trec("set_recall", 32),), reference="trec_eval m_set_recall.c"),
    _entry("SetAP", "num_rel_ret^2 / (num_ret * R)", ["rel"], ["judgments", "retrieved_count"], cutoff="none",
           trec=(Trec("set_map", 33),), reference="trec_eval m_set_map.c"),
    _entry("SetF", "(beta + 1) * P * R / (beta * P + R) on the whole retrieved set (beta unsquared)",
           ["rel", ("beta", Param(real(0.0, open_low=True), 1.0, "number > 0"))], ["judgments", "retrieved_count"],
           cutoff="none", trec=(Trec("set_F", 34, "params"),), trec_params="beta", reference="trec_eval m_set_F.c"),
    _entry("Utility", "a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret",
           ["rel", ("a", Param(real(), 1.0, "number")), ("b", Param(real(), -1.0, "number")),
            ("c", Param(real(), 0.0, "number")), ("d", Param(real(), 0.0, "number")),
            ("num_docs", Param(integer(0), 0, "integer >= 0"))], ["judgments", "retrieved_count"], cutoff="none",
           trec=(Trec("utility", 17, "params"),), trec_params="coefficients", reference="trec_eval m_utility.c"),
    _entry("NumQ", "number of queries evaluated", cutoff="none", aggregate="sum", integer=True,
           trec=(Trec("num_q", 1, "special"),), labels="none", reference="trec_eval m_num_q.c"),
    _entry("NumRet", "number of documents retrieved", (), ["retrieved_count"], cutoff="none", aggregate="sum",
           integer=True, trec=(Trec("num_ret", 2),), macros=(("num_ret", False),), labels="none",
           reference="trec_eval m_num_ret.c"),
    _entry("NumRel", "number of relevant documents in the judgments (R)", ["rel"], ["judgments"], cutoff="none",
           aggregate="sum", integer=True, trec=(Trec("num_rel", 3),), macros=(("num_rel", False),),
           labels="none", reference="trec_eval m_num_rel.c"),
    _entry("NumRelRet", "number of relevant documents retrieved", ["rel"], cutoff="none", aggregate="sum",
           integer=True, trec=(Trec("num_rel_ret", 4),), macros=(("num_rel_ret", False),),
           labels="relevant", reference="trec_eval m_num_rel_ret.c"),
    _entry("NumNonRelJudgedRet", "retrieved documents judged non-relevant (0 <= label < rel)", ["rel"],
           cutoff="none", aggregate="sum", integer=True, trec=(Trec("num_nonrel_judged_ret", 35),),
           reference="trec_eval m_num_nonrel_judged_ret.c"),
    # Click logs: how well the scores order the judged items a query (user) was shown.
    _entry("AUC", "area under the ROC curve of the retrieved judged documents: the share of (relevant, judged "
           "non-relevant) pairs whose relevant document ranks higher; empty without both", ["rel"], cutoff="none",
           aliases=("roc_auc", "uauc"), partial=True, scores_no_relevant=False,
           reference="Hanley & McNeil (1982); per user as in GAUC (Zhou et al., KDD 2018); sklearn roc_auc_score with "
           "tie_break=expected"),
    _entry("Accuracy", "the share of (relevant, not relevant) pairs of the top k whose relevant document ranks higher, "
           "unjudged documents not relevant (ir_measures' Accuracy); empty without a relevant document in the top k, "
           "1 without another", ["rel"], ["all_retrieved"], partial=True, scores_no_relevant=False, tie_expected=False,
           reference="ir_measures, providers/accuracy_provider.py"),
    _entry("GAUC", "AUC per query, averaged with each query weighted by its retrieved judged documents (a user's "
           "impressions) or, with weight=positives, its relevant ones (clicks): sum(AUC w) / sum(w) over the queries "
           "with an AUC", ["rel", ("weight", Param(choice(GAUC_WEIGHTS), None, "impressions or positives"))],
           cutoff="none", aliases=("group_auc",), aggregate="weighted", partial=True, scores_no_relevant=False,
           reference="Zhou et al., DIN (KDD 2018): weighted by impressions or clicks; RecBole GAUC: by positives"),
    _entry("GlobalAUC", "area under one ROC curve of the retrieved judged documents of all queries together: the "
           "share of (relevant, judged non-relevant) pairs across queries whose relevant document scores higher, "
           "equal scores 1/2; one value over all queries, none per query", ["rel"], ["all_retrieved", "pooled"],
           cutoff="none", aliases=("global_auc", "ctr_auc"), aggregate="catalog", scores_no_relevant=False,
           reference="Fawcett (2006); RecBole AUC; sklearn roc_auc_score over all rows"),
    # Recommenders, beyond accuracy: items recommended in the top k (all retrieved without a cutoff).
    _entry("Coverage", "distinct items in the top k of all users, divided by the catalog's size (the items of "
           "--items and --history)", (), ["all_retrieved", "catalog"], aliases=("itemcoverage", "catalog_coverage"),
           aggregate="catalog", tie_expected=False, inputs=("catalog",),
           reference="Shani & Gunawardana (2011) catalog coverage; RecBole ItemCoverage; Microsoft Recommenders "
                     "catalog_coverage"),
    _entry("Gini", "Gini index of how often each catalog item is in the top k of all users (0: all equally, "
           "near 1: a few items)", (), ["all_retrieved", "catalog"], aliases=("giniindex", "gini_index"),
           aggregate="catalog", tie_expected=False, inputs=("catalog",), reference="RecBole GiniIndex"),
    _entry("Entropy", "Shannon entropy -sum p log_base p of the items' shares p of all top-k recommendations "
           "(per_item=True: divided by the number of distinct items, as RecBole)",
           [("base", Param(log_base, 2.0, "number > 1 or e")), ("per_item", Param(boolean, False, "True or False"))],
           ["all_retrieved", "catalog"], aliases=("shannonentropy", "shannon_entropy", "distributional_coverage"),
           aggregate="catalog", tie_expected=False,
           reference="Shani & Gunawardana (2011); Microsoft Recommenders distributional_coverage (base 2); "
                     "RecBole ShannonEntropy (base=e, per_item=True)"),
    _entry("Novelty", "mean self-information -log2(interactions of the item / all interactions) of all top-k "
           "recommendations (items without history add 0)", (), ["all_retrieved", "catalog"],
           aggregate="catalog", tie_expected=False, inputs=("history",),
           reference="Castells, Vargas & Wang (2011); Microsoft Recommenders novelty"),
    _entry("AvgPop", "mean number of history interactions of the items in the user's top k",
           (), ["all_retrieved", "popularity"], aliases=("averagepopularity", "average_popularity", "arp"),
           tie_expected=False, inputs=("history",), partial=True, reference="RecBole AveragePopularity"),
    _entry("IPSHitRate", "the hits of the user's top k, each weighted by its item's inverse propensity (all "
           "interactions of the history over the item's, at most ip_cap; 0 for an item without), summed per user",
           ["rel", ("ip_cap", Param(real(0.0, open_low=True), 10000.0, "number > 0"))], ["all_retrieved", "popularity"],
           aliases=("ips_hit_rate", "ipshitratek"), tie_expected=False, inputs=("history",), labels="relevant",
           reference="RecPack, recpack/metrics/ips.py (IPSHitRateK)"),
    _entry("TailPct", "share of the user's top k in the long tail: items with at most `tail` interactions "
           "(tail > 1), or the least popular fraction `tail` of the catalog (tail <= 1)",
           [("tail", Param(real(0.0, open_low=True), 0.1, "number > 0"))], ["all_retrieved", "popularity"],
           aliases=("tailpercentage", "tail_percentage"), tie_expected=False, inputs=("history",), partial=True,
           reference="RecBole TailPercentage (tail_ratio)"),
    # Stochastic rankings: several sampled rankings of a query (a sample column), each rank's exposure p^(rank - 1).
    _entry("EE_D", "expected exposure disparity: the sum over documents of their expected exposure squared (a rank's "
           "exposure p^(rank - 1), averaged over the query's sampled rankings: a run with a sample column)", _EXPOSURE,
           _EXPECTED, **_STOCHASTIC, reference="Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval"),
    _entry("EE_R", "expected exposure relevance: the sum over documents of their expected exposure times their target "
           "exposure (the relevant documents by grade, best first, each grade's m documents sharing the exposure of "
           "their m ranks; 0 for the others)", _EXPOSURE, _EXPECTED, **_STOCHASTIC,
           reference="Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval"),
    _entry("EE_L", "expected exposure loss: the squared distance between the documents' expected and target exposure "
           "(EE_D - 2 EE_R + the target's squared norm)", _EXPOSURE, _EXPECTED, **_STOCHASTIC,
           reference="Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval"),
    _entry("APLT", "average percentage of long-tail items: the share of the user's top k in the long tail, the catalog "
           "items outside the short head (the most popular items, most first then by item id, until they hold "
           "head_share of the history's interactions)", [_HEAD_SHARE], ["all_retrieved", "popularity"],
           aliases=("average_percentage_of_long_tail_items",), tie_expected=False, inputs=("history",), partial=True,
           reference="Abdollahpouri, Burke & Mobasher (FLAIRS 2019); Elliot APLT"),
    _entry("ACLT", "average coverage of long-tail items: how many of the user's top k are in the long tail (as APLT)",
           [_HEAD_SHARE], ["all_retrieved", "popularity"], aliases=("average_coverage_of_long_tail_items",),
           tie_expected=False, inputs=("history",), partial=True,
           reference="Abdollahpouri, Burke & Mobasher (FLAIRS 2019); Elliot ACLT"),
    # Fairness of exposure: groups of documents (--groups); a document in n groups gives each 1/n of its exposure.
    _entry("Exposure", "the share of the top k's exposure (the attention of its ranks, browse=log|rbp) that the documents "
           "of group G get; without group=, one measure per group of the groups table",
           [("group", Param(group_name, None, "a group's name")), *_BROWSE], ["all_retrieved", "exposure"], **_FAIRNESS,
           reference="Singh & Joachims (KDD 2018), exposure of a group; FairRankTune EXP"),
    _entry("ExposureGini", "Gini coefficient of the exposure the groups get in the top k (0: every group the same; "
           "groups without exposure count)", _BROWSE, ["all_retrieved", "exposure"], partial=True, **_FAIRNESS,
           reference="Gini (1912) over the groups' exposure"),
    _entry("AWRF", "attention-weighted rank fairness: 1 - the Jensen-Shannon distance (js=divergence: divergence; "
           "logarithms base js_base, 2) between the groups' shares of the top k's exposure and a target: uniform over "
           "the groups, (target=relevant) the groups' shares of the query's relevant documents, or (target=file) the "
           "shares of --targets; TREC Fair Ranking 2022's with the trec_fair_2022 preset",
           ["rel", _TARGET, *_BROWSE, *_JS], ["all_retrieved", "exposure"],
           partial=True, **_FAIRNESS,
           reference="Sapiezynski, Zeng, Robertson, Mislove & Wilson (WWW 2019); TREC Fair Ranking 2022 "
                     "(fair-trec/trec2022-fair-public, wptrec/metrics/awrf.py)"),
    _entry("AWRF_nDCG", "AWRF@k times nDCG@k (TREC Fair Ranking 2022's measure with the trec_fair_2022 preset)",
           [*_GAINS, "ideal", "rel", _TARGET, *_BROWSE, *_JS], ["ideal", "all_retrieved", "exposure"], partial=True,
           **_FAIRNESS, reference="TREC Fair Ranking 2022 overview (Ekstrand et al.); wptrec/metrics/awrf.py"),
    _entry("ILD", "intra-list diversity: 1 - mean similarity of the pairs of items in the user's top k; a user with "
           "one item is left out (one_item=similar: ILD 0, the item as similar as can be to itself, LensKit's ILS 1)",
           [_SIMILARITY, ("one_item", Param(choice(("skip", "similar")), "skip", "skip or similar"))],
           ["all_retrieved", "similar"], aliases=("diversity", "intra_list_diversity"),
           tie_expected=False, partial=True, inputs_when=(("similarity", "cooccurrence", "history"),),
           reference="Ziegler et al. (2005); Microsoft Recommenders diversity; LensKit ILS (one_item=similar)"),
    _entry("Serendipity", "mean over the user's top k of relevance * (1 - mean similarity to the user's history "
           "items)", ["rel", _SIMILARITY], ["all_retrieved", "similar"], tie_expected=False, inputs=("history",),
           partial=True,
           reference="Zhang et al. (2012); Microsoft Recommenders serendipity"),
)

FAMILIES: dict[str, Family] = {f.name: f for f in REGISTRY}
