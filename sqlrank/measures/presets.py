"""Presets: each tool's conventions as one named bundle (preset="ranx", --preset ranx).

A preset sets conventions for the whole evaluation and, where a tool computes one measure
family differently from the others, for that family. What the caller sets explicitly wins,
and a measure's own parameters win over everything. Sources: each tool's own code and
documentation, checked against the libraries where they install (tests/peers/test_presets.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ConventionError


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    conventions: dict[str, Any] = field(default_factory=dict)
    families: dict[str, dict[str, Any]] = field(default_factory=dict)  # family -> conventions and parameters
    notes: str = ""


# TREC Fair Ranking 2022's AWRF: the divergence in nats, the discount 1/log2(max(i, 2)), each query's own target.
_TREC_FAIR = {"js": "divergence", "js_base": "e", "browse": "jarvelin", "target": "file"}

PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("trec_eval", "trec_eval 10 (the default): score desc, ties by doc_id desc; linear gain, "
           "1/log2(i+1); ideal from all judgments; AP over R; queries in both qrels and run."),
    Preset("trec_eval_c", "trec_eval 10 with -c: qrels queries missing from the run score 0 and count "
           "in every mean.", {"missing_queries": "zero"}),
    Preset("pytrec_eval", "pytrec_eval-terrier 0.5: trec_eval 9's code: scores compared as 32-bit floats, "
           "recall levels to ranks by floor(x R + 0.9); queries in both qrels and run.",
           {"trec_eval_version": 9}),
    Preset("ir_measures", "ir_measures 0.4 with its default pytrec_eval provider: trec_eval 9's code, and "
           "qrels queries missing from the run score 0.", {"trec_eval_version": 9, "missing_queries": "zero"},
           {"Judged": {"tie_break": "doc_id_asc"},
            **{family: {"tie_break": "doc_id_asc"} for family in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP",
                                                               "nNRBP", "P_IA", "AP_IA", "StRecall")}},
           notes="Judged@k comes from ir_measures' own provider: tied scores by document id ascending, negative "
                 "labels judged (unlike trec_eval's unj); the diversity measures from its pyndeval provider, tied "
                 "scores by document id ascending too."),
    Preset("ranx", "ranx 0.3 (make_comparable=True): linear gain, ideal from all judgments cut at k, AP over "
           "R, qrels queries missing from the run score 0.", {"missing_queries": "zero"},
           notes="ranx orders tied scores by an unstable sort (the order depends on dict insertion), which "
                 "no convention reproduces; its ndcg with a relevance level also zeroes lower labels' gains, "
                 "and it treats negative labels as judged non-relevant (bpref 0.25 where trec_eval says 0.5)."),
    Preset("sklearn", "scikit-learn 1.9 ndcg_score/dcg_score: ties averaged over all their orders, the label as the "
           "gain (a negative label's negative: signed), 1/log2(i+1), the ideal from the labels of the documents "
           "passed (the retrieved ones); average_precision_score per query: a tie group whole above each of its "
           "documents (tie_break=block, no cutoff), over the relevant documents passed.",
           {"tie_break": "expected", "ideal": "run"},
           {"nDCG": {"gain": "signed"}, "DCG": {"gain": "signed"},
            "AP": {"tie_break": "block", "ap_denominator": "retrieved_relevant"}},
           notes="Only nDCG, DCG, AP, LRAP and LabelRankingLoss exist there; other measures keep trec_eval's "
                 "conventions with ties averaged. "
                 "scikit-learn 1.9's ndcg_score refuses negative labels (dcg_score takes them); sqlrank's nDCG "
                 "takes them as its older releases did, the ideal ranking ending in the negative gains."),
    Preset("torchmetrics", "TorchMetrics retrieval (1.7.4 and later): nDCG tie-averaged with the ideal from the "
           "targets passed (the retrieved documents); AP divides by the relevant documents retrieved (within top_k); "
           "documents scored <= 0 are never relevant in AP, P, R and RR (their R still counts them); other measures "
           "rank ties like torch.topk.", {"ideal": "run", "ap_denominator": "retrieved_relevant"},
           {"nDCG": {"tie_break": "expected"}, "DCG": {"tie_break": "expected"},
            "AP": {"nonpositive_scores": "nonrelevant"}, "P": {"nonpositive_scores": "nonrelevant"},
            "R": {"nonpositive_scores": "nonrelevant"}, "RR": {"nonpositive_scores": "nonrelevant"},
            "FallOut": {"no_nonrelevant": "one", "nonrelevant": "retrieved"}},
           notes="torch.topk's order among tied scores is not specified; sqlrank uses trec_eval's there. TorchMetrics "
                 "before 1.7.4 (its pull request #3160) ranked documents scored <= 0 like any other: add "
                 "nonpositive_scores=rank to reproduce those versions."),
    Preset("elasticsearch", "Elasticsearch _rank_eval: DCG with gain 2^r - 1 and 1/log2(i+1), ideal from all "
           "ratings; precision over the hits returned (P denominator=retrieved); a rated query without hits, and "
           "a query without ratings, score 0 and count in the mean.",
           {"gain": "exponential", "missing_queries": "zero", "unjudged_queries": "zero"},
           {"P": {"denominator": "retrieved"}},
           notes="Its unknown_doc_rating is unjudged_label here, which also puts those documents in the ideal ranking "
                 "(Elasticsearch's ideal DCG reads the ratings only: its nDCG can exceed 1 with it); its nDCG "
                 "truncates the ideal to the number of hits returned (elasticsearch#154362), which equals sqlrank's "
                 "ideal cut at k whenever k hits are returned."),
    Preset("spark_mllib", "Spark MLlib RankingMetrics (3.4+ with relevance values): gain 2^r - 1, MAP over "
           "|ground truth|, MAP@k over min(|ground truth|, k); every ground-truth document is relevant "
           "whatever its value (rel=0); queries with no predictions, and queries with an empty ground truth, score 0.",
           {"gain": "exponential", "ap_denominator": "min_num_rel_cutoff", "rel": 0, "missing_queries": "zero",
            "unjudged_queries": "zero"},
           notes="Graded ideal DCG follows the order the user supplies the ground truth in (not sorted); "
                 "sqlrank sorts it, as the ideal should be."),
    Preset("recbole", "RecBole: binary relevance; NDCG ideal of min(|R|, K) ones (the judgments' ideal cut at "
           "K); MAP@K over min(|R|, K); users without a positive item left out; GAUC weighs users by their "
           "positive items and averages the ranks of tied scores.",
           {"ap_denominator": "min_num_rel_cutoff", "no_relevant": "skip"},
           {"GAUC": {"weight": "positives", "tie_break": "expected"}},
           notes="RecBole's AUC is one AUC over every (user, item) pair: sqlrank's GlobalAUC (its AUC is per "
                 "user). RecBole's GAUC and AUC count every scored item that is not positive as negative: give "
                 "those items label 0 in the qrels (sqlrank leaves unjudged ones out)."),
    Preset("ms_recommenders", "Microsoft Recommenders: map over all relevant, map_at_k over min(R, k); nDCG "
           "with natural log (cancels in nDCG); users in both truth and predictions, none without a positive.",
           {"ap_denominator": "min_num_rel_cutoff", "log_base": "e", "no_relevant": "skip"},
           notes="ndcg_at_k's default score_type 'binary' gives every truth row gain 1 (use binary labels or a "
                 "gain mapping); score_type='raw' is the preset's linear gain. It counts an item listed twice for a "
                 "user twice: duplicate_documents=rows."),
    Preset("tf_ranking", "TF-Ranking metrics (metrics_impl): each list's items are its judged documents; DCG and "
           "nDCG with gain 2^r - 1 and 1/log2(i+1), the ideal from the list's labels; precision over min(topn, list "
           "size); labels > 0 relevant (graded ones too).", {"gain": "exponential", "ideal": "run"},
           {"P": {"denominator": "retrieved"}},
           notes="Items labelled -1 are padding: leave them out of both inputs. Its gain_fn is a gain map here; its "
                 "rank_discount_fn is a discount mapping {rank: weight}. Its bpref with use_trec_version=False is "
                 "Bpref(formula=original)."),
    Preset("gdeval", "gdeval.pl (TREC Web track): nDCG with gain 2^r - 1 and 1/log2(i+1), ideal from all "
           "judgments.", {"gain": "exponential"}),
    Preset("trec_fair_2022", "TREC Fair Ranking 2022 (wptrec/metrics/awrf.py): AWRF is 1 - the Jensen-Shannon "
           "divergence (natural logarithms, scipy's jensenshannon squared) between the groups' shares of the "
           "attention 1/log2(max(i, 2)) of the grouped documents and each query's target (--targets); AWRF_nDCG "
           "multiplies it by nDCG with the same discount, the ideal of min(k, R) relevant documents.", {},
           {"AWRF": dict(_TREC_FAIR), "AWRF_nDCG": {**_TREC_FAIR, "discount": "jarvelin", "log_base": 2}},
           notes="The track computes its discounts in 32-bit floats (numpy 'f4'), so its values differ from these "
                 "from about the 7th digit. Its qrels list the relevant pages: give them label 1. Its runs hold at "
                 "most 500 pages per topic: AWRF_nDCG@500. FairRankTune's AWRF is another measure (each group's "
                 "mean attention 100 p (1 - p)^(rank - 1) per item, combined by a ratio or difference), not this "
                 "one."),
)}


# Every preset is checked against the cases of its tool's own test suite, as the tool's repository states
# them (fixtures/peers/<tool>.json, tests/peers/test_peers.py); those of scikit-learn, ir_measures, ranx,
# TorchMetrics and pytrec_eval also against the installed library, per query (tests/peers/test_presets.py).


def get_preset(name: str) -> Preset:
    if name not in PRESETS:
        import difflib
        close = difflib.get_close_matches(name, list(PRESETS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConventionError(f"unknown preset {name!r}{hint} (presets: {', '.join(PRESETS)})")
    return PRESETS[name]


def preset_conventions(name: str) -> dict[str, Any]:
    return dict(get_preset(name).conventions)


def preset_family_conventions(name: str | None, family: str) -> dict[str, Any]:
    return dict(get_preset(name).families.get(family, {})) if name else {}
