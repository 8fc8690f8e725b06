"""Measure names: both syntaxes, canonical forms that parse back, clear errors."""
from __future__ import annotations

import subprocess
import sys
import warnings

import pandas as pd
import duckdb
import pytest

import sqlrank
from sqlrank import Measure, MeasureError, parse_measures
from sqlrank.measures.registry import FAMILIES
from sqlrank.measures.params import TREC_CUTOFFS


def names(spec):
    return [str(m) for m in parse_measures(spec)]


@pytest.mark.parametrize("spec, expected", [
    ("nDCG@10", ["nDCG@10"]),
    ("AP(rel=2)@100", ["AP(rel=2)@100"]),
    ("P@5", ["P@5"]),
    ("ndcg_cut.10", ["nDCG@10"]),
    ("ndcg_cut_10", ["nDCG@10"]),
    ("P.5,10", ["P@5", "P@10"]),
    ("map", ["AP"]),
    ("map_cut.5,1000", ["AP@5", "AP@1000"]),
    ("recip_rank", ["RR"]),
    ("RR@10", ["RR@10"]),
    ("Rprec", ["Rprec"]),
    ("recall.1000", ["R@1000"]),
    ("success.1,5", ["Success@1", "Success@5"]),
    ("num_q num_ret num_rel num_rel_ret", ["NumQ", "NumRet", "NumRel", "NumRelRet"]),
    ("NumRel(rel=2)", ["NumRel(rel=2)"]),
    ("ndcg", ["nDCG"]),
    ("dcg", ["DCG"]),
    ("DCG@6 CG@5", ["DCG@6", "CG@5"]),
    ("MAP MRR ndcg@10 Recall@5", ["AP", "RR", "nDCG@10", "R@5"]),
    ("success", ["Success@1", "Success@5", "Success@10"]),
    ("nDCG@10 nDCG@10", ["nDCG@10"]),
    ("  AP   P@10\tnDCG@5\n", ["AP", "P@10", "nDCG@5"]),
])
def test_parse(spec, expected):
    assert names(spec) == expected


def test_bare_cutoff_measures_take_trec_eval_defaults():
    assert names("P") == [f"P@{k}" for k in TREC_CUTOFFS]
    assert names("ndcg_cut") == [f"nDCG@{k}" for k in TREC_CUTOFFS]


EXAMPLE_PARAMS = {"rel": [0, 3, 0.5], "gain": [{1: 3, 2: 9.5}, "exponential"], "p": [0.8], "beta": [0.5], "a": [2.0],
                  "b": [-2.0], "c": [0.5], "d": [1.0], "num_docs": [1000], "levels": [(0.25, 0.5)],
                  "relative": [True], "discount": ["jarvelin", "flat", {1: 1.0, 3: 0.25}], "log_base": [10.0, "e"], "ideal": ["run", "perfect"],
                  "ap_denominator": ["retrieved_relevant", "min_num_rel_cutoff"],
                  "tie_break": ["doc_id_asc", "expected", "input_rank"], "judged_only": [True], "depth": [100],
                  "missing_queries": ["zero"], "base": [10.0, "e"], "similarity": ["features"], "tail": [5.0, 0.25],
                  "weight": ["positives", "impressions"], "nonrelevant": ["retrieved"], "no_nonrelevant": ["one"],
                  "nonpositive_scores": ["nonrelevant"], "unjudged_queries": ["zero"], "denominator": ["retrieved"],
                  "formula": ["original"], "source": ["human"], "group": ["women", 1], "browse": ["rbp", "jarvelin"], "target": ["relevant"],
                  "js": ["divergence"], "js_base": ["e", 10.0], "stop": ["ntcir"], "eq": [9, 10, 11], "max_rel": [3, 3.5], "T": [2.5, 0.5], "K": [10],
                  "variant": ["a"], "one_item": ["similar"]}


def examples(param, name):
    """Values to try for a parameter: the table's, else one next to its default (a new family's own)."""
    if name in EXAMPLE_PARAMS:
        return EXAMPLE_PARAMS[name]
    default = param.default
    assert default is not None and not isinstance(default, tuple), f"give EXAMPLE_PARAMS an example of {name}"
    return [not default] if isinstance(default, bool) else [default + 1] if isinstance(default, int) else [default / 2]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_canonical_names_parse_back(family):
    spec = FAMILIES[family]
    k = {"rank": 7, "fraction": 0.25, "multiple": 1.5}[spec.cutoff_kind]
    cutoffs = [None] if spec.cutoff == "none" else ([k] if spec.cutoff == "required" else [None, k])
    variants = [{}] + [{name: value} for name in spec.params for value in examples(spec.params[name], name)]
    for cutoff in cutoffs:
        for params in variants:
            m = Measure(family, cutoff, params)
            assert parse_measures(str(m)) == [m], str(m)


def test_resolve_shows_only_non_default_params():
    assert str(Measure("P", 10).resolve(2)) == "P(rel=2)@10"
    assert str(Measure("P", 10).resolve(1)) == "P@10"
    assert str(Measure("P", 10, {"rel": 3}).resolve(2)) == "P(rel=3)@10"
    assert str(Measure("nDCG", 10).resolve(2)) == "nDCG@10"
    assert str(Measure("RBP", None, {"p": 0.9}).resolve(1)) == "RBP"
    assert str(Measure("RBP", None, {"p": 0.8}).resolve(1)) == "RBP(p=0.8)"


@pytest.mark.parametrize("spec, expected", [
    ("iprec_at_recall..10,.20", ["IPrec@0.1", "IPrec@0.2"]),
    ("iprec_at_recall_0.10", ["IPrec@0.1"]),
    ("IPrec@0.5", ["IPrec@0.5"]),
    ("Rprec_mult.5.0,0.2", ["Rprec_mult@5.0", "Rprec_mult@0.2"]),
    ("ndcg_cut.10,20,23.4", ["nDCG@10", "nDCG@20", "nDCG@23"]),
    ("ndcg.1=3,2=9,4=4.5", ["nDCG(gain={1:3.0,2:9.0,4:4.5})"]),
    ("nDCG(gain={1: 3, 2: 9})@10", ["nDCG(gain={1:3.0,2:9.0})@10"]),
    ("rbp.p=0.95", ["RBP(p=0.95)"]),
    ("RBP(p=0.8)", ["RBP(p=0.8)"]),
    ("set_F.0.5", ["SetF(beta=0.5)"]),
    ("SetF", ["SetF"]),
    ("utility.2,-1,0,0", ["Utility(a=2.0)"]),
    ("11pt_avg..25,.5,.75", ["IPrecAvg(levels=(0.25,0.5,0.75))"]),
    ("11pt_avg", ["IPrecAvg"]),
    ("bpref infAP gm_map gm_bpref binG G Rndcg ndcg_rel", ["Bpref", "infAP", "GMAP", "GMBpref", "binG", "G",
                                                           "Rndcg", "nDCG_rel"]),
    ("set_P set_relative_P set_recall set_map num_nonrel_judged_ret rbp_resid",
     ["SetP", "SetP(relative=True)", "SetR", "SetAP", "NumNonRelJudgedRet", "RBPResid"]),
    ("unj", ["Unj@5", "Unj@10", "Unj@20"]),
    ("relative_P.5", ["relative_P@5"]),
])
def test_parse_trec_eval_measures(spec, expected):
    assert names(spec) == expected


@pytest.mark.parametrize("spec, message", [
    ("nDGC@10", "did you mean 'nDCG'"),
    ("Presision@5", "did you mean"),
    ("P@0", "positive integer"),
    ("P@-1", "bad cutoff"),
    ("P@x", "bad cutoff"),
    ("P@1.5", "bad cutoff"),
    ("P(2)@5", "must be named"),
    ("AP(gain=1)", "no parameter 'gain'"),
    ("AP(rel=-1)", "rel must be a number >= 0 (1, 2, 0.5, ...), not -1"),
    ("AP(rel='high')", "rel must be a number >= 0 (1, 2, 0.5, ...), not 'high'"),
    ("AP(rel=True)", "rel must be a number >= 0 (1, 2, 0.5, ...), not True"),
    ("nDCG(gain=quadratic)@10", "gain must be one of linear, exponential"),
    ("nDCG(discount=log3)", "discount must be one of log, jarvelin"),
    ("nDCG(log_base=1)", "log_base must be a number > 1"),
    ("Entropy(base=1)@10", "base of Entropy must be a number > 1 or e, not 1"),
    ("Entropy(base=inf)@10", "base of Entropy must be a number > 1 or e"),
    ("nDCG(ideal=best)", "ideal must be one of qrels, run, perfect"),
    ("AP(ap_denominator=R)", "ap_denominator must be one of"),
    ("P(tie_break=random)@5", "tie_break must be one of"),
    ("P(depth=0)@5", "depth must be a positive integer"),
    ("AP(gain=exponential)", "AP has no parameter 'gain'"),
    ("IPrec@1.5", "must be <= 1"),
    ("RBP(p=1)", "must be < 1"),
    ("nDCG(gain={-1: 2})", "labels must be numbers >= 0"),
    ("nDCG(gain=3)", "gain must be linear, exponential, signed or a mapping"),
    ("set_F.1,2", "one parameter"),
    ("utility.1,2", "four coefficients"),
    ("NumQ@5", "takes no cutoff"),
    ("ndcg_cut.", "no cutoff after the dot"),
    ("ndcg_cut.ten", "bad cutoff 'ten'"),
    ("map.5", "takes no parameters"),
    ("", "no measure given"),
    ("x" * 300, "longer than"),
])
def test_errors(spec, message):
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_measures(spec)


def test_a_mean_over_other_queries_than_were_evaluated_says_over_how_many(tmp_path):
    # By hand: AP is 1 for q1 and 0 for q2; q3 has no results, so AP skips it (mean 1/2) and
    # AP(missing_queries=zero) scores it 0 (mean 1/3, over 3 queries).
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1 t\nq2 Q0 d2 1 1 t\n")
    measures = "AP AP(missing_queries=zero)"
    segments = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "kind": ["a", "b", "b"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # q3 has no results
        for per_query in (False, True):
            frame = sqlrank.evaluate(str(qrels), str(run), measures, per_query=per_query)
            assert frame.attrs["num_queries"] == 2
            assert frame.attrs["queries"] == {"AP": 2, "AP(missing_queries=zero)": 3}, per_query
        summary = sqlrank.evaluate(str(qrels), str(run), measures)
        assert summary.value.tolist() == [0.5, 1 / 3]
        by_kind = sqlrank.evaluate(str(qrels), str(run), measures, queries=segments, by="kind")
        assert by_kind.attrs["queries"] == {"AP": 2, "AP(missing_queries=zero)": 3}
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(qrels), str(run), "-m", measures],
                          capture_output=True, text=True)
    assert "queries: 2\nAP(missing_queries=zero): mean over 3 queries\n" in done.stdout, done.stdout


def test_measures_keep_the_name_they_were_asked_by():
    measures = parse_measures("HR@10 Success@10 P.5,10 ndcg_cut.10 MAP")
    assert [m.label for m in measures] == ["HR@10", None, None, "ndcg_cut.10", "MAP"]
    assert [str(m) for m in measures] == ["Success@10", "P@5", "P@10", "nDCG@10", "AP"]
    assert Measure("Success", 10).label is None and Measure("Success", 10) == measures[0]  # equal, whatever the name


def test_results_name_measures_as_asked_and_say_what_they_are(tmp_path):
    # By hand: q1 ranks d1 (relevant) first, q2 ranks d3 (not relevant) then d2 (relevant):
    # HR@1 = (1 + 0) / 2; RR = (1 + 1/2) / 2; recbole's MAP@2 divides by min(R, 2): (1 + 1/2) / 2.
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run.write_text("q1 Q0 d1 1 2 t\nq2 Q0 d3 1 2 t\nq2 Q0 d2 2 1 t\n")
    frame = sqlrank.evaluate(str(qrels), str(run), "HR@1 mrr MAP@2", preset="recbole")
    assert frame.measure.tolist() == ["HR@1", "mrr", "MAP@2"]
    assert frame.value.tolist() == [0.5, 0.75, 0.75]
    assert frame.attrs["measures"] == {"HR@1": "Success@1", "mrr": "RR",
                                       "MAP@2": "AP(ap_denominator=min_num_rel_cutoff)@2"}
    # one measure asked by two names (and two more): computed once, a row under every name asked, none lost
    per_query = sqlrank.evaluate(str(qrels), str(run), "HR@1 Success@1 map AP", per_query=True)
    assert per_query.measure.tolist() == ["HR@1", "Success@1", "map", "AP"] * 2
    assert per_query.value.tolist() == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.5, 0.5]
    statement = per_query.attrs["sql"]  # computes each once, and gives its value a row under every name asked
    assert "\n-- canonical: HR@1 = Success@1, map = AP\n" in statement
    assert "(1, 'HR@1')" in statement and "(2, 'Success@1')" in statement
    assert statement.count(" AS success_at_1") == 2  # once per query, once in the summary
    rows = duckdb.connect().execute(statement).fetchall()  # per query, then the summary (query_id NULL)
    assert [row for row in rows if row[0] is not None] == list(per_query.itertuples(index=False, name=None))
    statement = sqlrank.render(str(qrels), str(run), "HR@1")  # names its rows so: WHERE measure = 'HR@1' finds them
    assert "(1, 'HR@1')" in statement and "\n-- canonical: HR@1 = Success@1\n" in statement
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(qrels), str(run), "-m", "HR@1 MRR NDCG@2",
                           "--preset", "recbole"], capture_output=True, text=True)
    assert done.stdout.splitlines()[2].split() == ["HR@1", "0.5000"], done.stdout
    assert "\ncanonical: HR@1 = Success@1, MRR = RR\n" in done.stdout, done.stdout  # NDCG@2 is nDCG@2
    other = tmp_path / "other"
    other.write_text("q1 Q0 d1 1 2 u\nq2 Q0 d2 1 2 u\n")  # HR@1 1 and 1, RR 1 and 1
    compared = subprocess.run([sys.executable, "-m", "sqlrank", "compare", str(qrels), str(run), str(other), "-m",
                               "HR@1 mrr", "--fail-if", "Success@1 < -0.1"], capture_output=True, text=True)
    lines = compared.stdout.splitlines()
    assert [line.split()[:3] for line in lines[2:4]] == [["HR@1", "run", "0.5000"], ["other", "1.0000", "+0.5000"]]
    assert "canonical: HR@1 = Success@1, mrr = RR" in lines and compared.returncode == 0, compared.stdout
    gate = subprocess.run([sys.executable, "-m", "sqlrank", "compare", str(qrels), str(other), str(run), "-m", "HR@1",
                           "--fail-if", "Success@1 < -0.1"], capture_output=True, text=True)
    assert gate.returncode == 1 and "sqlrank: fail: Success@1 of run" in gate.stderr, gate.stderr  # either name


@pytest.mark.parametrize("labels, lengths, expected", [
    ([[0, 1, 1, 0, 1], [1, 1, 0, 0, 0]], [5, 4], [3.333333333, 1.5]),  # test_arp
    ([[1, 1, 1, 1, 1], [1, 1, 1, 1, 1]], [5, 4], [3.0, 2.5]),  # test_arp_all_relevant
    ([[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]], [5, 4], [0.0, 0.0]),  # test_arp_no_relevant
])
def test_average_relevant_position_equals_pytorchltr(labels, lengths, expected):
    """pytorchltr's own tests (rjagerman/pytorchltr, tests/evaluation/test_arp.py): two lists scored [10, 5, 2, 3, 4]
    and [5, 6, 4, 2, 5.5], the second cut to its first 4 documents (n), their labels and expected arp, to the
    test's approx (1e-6 relative)."""
    import warnings

    scores = [[10.0, 5.0, 2.0, 3.0, 4.0], [5.0, 6.0, 4.0, 2.0, 5.5]]
    rows = [(f"q{q}", f"d{d}", labels[q][d], scores[q][d]) for q in range(2) for d in range(lengths[q])]
    qrels = pd.DataFrame([r[:3] for r in rows], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, d, _, s in rows], columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sqlrank.evaluate(qrels, run, "AvgRelPos", per_query=True)
    assert got.value.tolist() == pytest.approx(expected, rel=1e-6)


def test_percentile_rank_equals_recpack_and_a_name_asked_twice_is_not_remembered():
    """RecPack's own test (LienM/recpack, recpack/tests/test_metrics/test_percentile_ranking.py, test_perc_ranking):
    labels 5, 1, 2, 4 of items 0, 2, 3, 7, all ten items ranked 0..9: (5 * 0 + 1 * 0.2 + 2 * 0.3 + 4 * 0.7) / 12.
    A statement rendered with two names of one measure (two rows) is not the one served when it is asked by one:
    the cache of rendered statements keys on every name."""
    qrels = pd.DataFrame({"query_id": "u0", "doc_id": ["i0", "i2", "i3", "i7"], "relevance": [5, 1, 2, 4]})
    run = pd.DataFrame({"query_id": "u0", "doc_id": [f"i{k}" for k in range(10)],
                        "score": [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]})
    expected = (5 * 0.0 + 1 * 0.2 + 2 * 0.3 + 4 * 0.7) / (5 + 1 + 2 + 4)
    both = sqlrank.evaluate(qrels, run, "PercentileRank percentile_ranking")
    assert both.measure.tolist() == ["PercentileRank", "percentile_ranking"]
    assert both.value.tolist() == pytest.approx([expected] * 2, abs=1e-12)
    one = sqlrank.evaluate(qrels, run, "PercentileRank")
    assert one.measure.tolist() == ["PercentileRank"] and one.value[0] == pytest.approx(expected, abs=1e-12)
    # an item the run does not rank sits at the end (percentile 1): i7 left out of a ranking of nine
    shorter = sqlrank.evaluate(qrels, run[run.doc_id != "i7"], "PercentileRank")
    assert shorter.value[0] == pytest.approx((1 * 2 / 9 + 2 * 3 / 9 + 4 * 1.0) / 12, abs=1e-12)


def test_weighted_recall_equals_pyg():
    """PyTorch Geometric's own test (pyg-team/pytorch_geometric, test/metrics/test_link_pred_metric.py, test_recall):
    top 2 [1, 0], [1, 2], [0, 2] of nodes 0, 1, 2; labelled edges (0, 0) 4, (0, 1) 1, (0, 2) 2, (2, 2) 3, (2, 1) 0.5;
    LinkPredRecall(k=2, weighted=True) is 0.5 * (5 / 7 + 3 / 3.5) (node 1, without labels, left out), and unweighted
    0.5 * (2 / 3 + 0.5): every labelled edge relevant, R(rel=0.5)@2 here."""
    import warnings

    qrels = pd.DataFrame({"query_id": [0, 0, 0, 2, 2], "doc_id": [0, 1, 2, 2, 1], "relevance": [4.0, 1.0, 2.0, 3.0, 0.5]})
    run = pd.DataFrame({"query_id": [0, 0, 1, 1, 2, 2], "doc_id": [1, 0, 1, 2, 0, 2], "score": [2.0, 1.0] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sqlrank.evaluate(qrels, run, "WeightedRecall@2 R(rel=0.5)@2")
    assert got.value.tolist() == pytest.approx([0.5 * (5.0 / 7.0 + 3.0 / 3.5), 0.5 * (2 / 3 + 0.5)], abs=1e-12)


@pytest.mark.parametrize("labels, expected", [
    ([], 0.0), ([0], 0.0), ([2], 0.0), ([0, 0, 0], 0.0), ([4, 2, 0], 1.0), ([1, 2.5, 4], -1.0), ([4, 4, 2], 2 / 3),
    ([2, 4, 1, 2], 1 / 6),
])
def test_kendall_tau_a_equals_pyltr(labels, expected):
    """pyltr's own test (jma127/pyltr, pyltr/metrics/tests/test_kendall.py): the labels of a ranking, top first, and
    its tau-a (pairs of equal labels count in the denominator); an empty list or one document scores 0. The first
    query's ranking is the case (the empty list: a judged query the run does not answer, with missing_queries=zero);
    a second query keeps the evaluation from being empty."""
    rows = [("q", f"d{i}", label, float(len(labels) - i)) for i, label in enumerate(labels)] + [("z", "d", 1, 1.0)]
    qrels = pd.DataFrame([r[:3] for r in rows] + [("q", "unretrieved", 0)], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, d, _, s in rows], columns=["query_id", "doc_id", "score"])
    got = sqlrank.evaluate(qrels, run, "KendallTau(variant=a)", per_query=True, missing_queries="zero")
    assert got.set_index("query_id").value["q"] == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_b_equals_scipy_on_generated_rankings():
    """scipy.stats.kendalltau (tau-b) of each query's ranks and labels, on generated rankings of 1 to 30 documents
    with tied labels, unjudged (label 0) and negative labels, at every cutoff and without; tau-a checked against
    the pairs counted in Python. Where scipy has no value (fewer than two documents, every label equal) sqlrank
    says 0."""
    import numpy as np
    from scipy.stats import kendalltau

    rng = np.random.default_rng(7)
    qrels, run = [], []
    for q in range(40):
        n = int(rng.integers(1, 31))
        for d in range(n):
            run.append((f"q{q}", f"d{d}", float(rng.normal())))
            if rng.random() < 0.8:
                qrels.append((f"q{q}", f"d{d}", int(rng.integers(-1, 4))))
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    got = sqlrank.evaluate(qrels, run, "KendallTau KendallTau@5 KendallTau(variant=a)@10", per_query=True)
    labels = dict(zip(zip(qrels.query_id, qrels.doc_id), qrels.relevance))
    for (q, measure), value in got.set_index(["query_id", "measure"]).value.items():
        ranking = run[run.query_id == q].sort_values(["score", "doc_id"], ascending=False)
        cut = {"KendallTau": None, "KendallTau@5": 5, "KendallTau(variant=a)@10": 10}[measure]
        top = [labels.get((q, d), 0) for d in ranking.doc_id][:cut]
        if measure.startswith("KendallTau(variant=a)"):
            s = sum(np.sign(a - b) for i, a in enumerate(top) for b in top[i + 1:])
            expected = s / (len(top) * (len(top) - 1) / 2) if len(top) > 1 else 0.0
        else:
            tau = kendalltau(-np.arange(len(top)), top).statistic if len(top) > 1 else float("nan")
            expected = 0.0 if np.isnan(tau) else tau
        assert value == pytest.approx(expected, abs=1e-9), (q, measure)


def test_no_relevant_one_and_error_equal_torcheval_empty_target_action(tmp_path):
    """TorchEval's own test (pytorch/torcheval, tests/metrics/ranking/test_retrieval_precision.py,
    test_retrieval_precision_empty_target_action): scores [0.2, 0.3], targets [0, 0], k=2: "neg" 0, "pos" 1, "err"
    raises. no_relevant=zero, one and error; skip leaves the query out (the other query's value alone)."""
    qrels = pd.DataFrame({"query_id": ["q", "q", "z"], "doc_id": ["a", "b", "a"], "relevance": [0, 0, 1]})
    run = pd.DataFrame({"query_id": ["q", "q", "z", "z"], "doc_id": ["a", "b", "a", "b"], "score": [0.2, 0.3, 1, 2]})
    values = {}
    for action in ("zero", "one", "skip"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = sqlrank.evaluate(qrels, run, "P@2 nDCG RR AUC NumRet", per_query=True, no_relevant=action)
        values[action] = got.set_index(["query_id", "measure"]).value
    assert [values["zero"]["q", m] for m in ("P@2", "nDCG", "RR")] == [0, 0, 0]
    assert [values["one"]["q", m] for m in ("P@2", "nDCG", "RR")] == [1, 1, 1]
    assert values["one"]["q", "NumRet"] == 2 and pd.isna(values["one"]["q", "AUC"])  # a count; AUC has no value
    assert "q" not in values["skip"].index.get_level_values(0) and values["skip"]["z", "P@2"] == 0.5
    with pytest.raises(sqlrank.InputError, match="1 evaluated queries have no judgment >= 1 .* e.g. 'q' "
                                                 r"\(no_relevant=error\)"):
        sqlrank.evaluate(qrels, run, "P@2", no_relevant="error")
    listed = pd.DataFrame({"query_id": ["q", "z"]})
    with pytest.raises(sqlrank.InputError, match="1 queries of the query table have no judgment >= 1"):
        sqlrank.evaluate(qrels, run, "P@2", no_relevant="error", queries=listed)
    qrels.assign(iteration=0)[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        tmp_path / "q.qrels", sep=" ", header=False, index=False)
    run.assign(q0="Q0", rank=1, tag="t")[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
        tmp_path / "r.run", sep=" ", header=False, index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"),
                           "-m", "P@2", "--no-relevant", "error"], capture_output=True, text=True)
    assert done.returncode == 1 and "e.g. 'q' (no_relevant=error)" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
