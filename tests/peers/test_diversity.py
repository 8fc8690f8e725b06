"""The intent-aware (diversity) measures equal pyndeval (PyPI; ndeval 4.5's C code, the TREC Web track's
evaluator) per query to 1e-9, on generated subtopic judgments: graded labels (negative ones too), documents
relevant to several subtopics, judged documents relevant to none, tied scores, unjudged documents, queries
without any relevant subtopic and queries on one side only; under ndeval's defaults and two other settings of
rel, alpha and beta. pyndeval ranks tied scores by document id ascending (tie_break=doc_id_asc). Two of ndeval's
values are not taken as they are, each for a reason stated where it is compared: ERR-IA@1 and alpha-DCG@1
(ndeval leaves them unnormalised) and nNRBP without a relevant subtopic (ndeval's 0/0)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

import sqlrank
from conftest import peer
from support.generate import subtopic_judgments
from sqlrank.errors import InputError

TOLERANCE = 1e-9
SETTINGS = [(1, 0.5, 0.5), (2, 0.25, 0.75), (1, 0.75, 0.25)]  # (rel, alpha, beta): ndeval's defaults first
CUTOFFS = (1, 2, 3, 5, 10, 20)
NDEVAL = {"alpha_nDCG": "alpha-nDCG", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
          "P_IA": "P-IA", "StRecall": "strec"}


@pytest.fixture(scope="module")
def data():
    return subtopic_judgments()


def subtopic_counts(qrels: pd.DataFrame, rel: int) -> dict[str, int]:
    """S per query: its subtopics with a document labelled >= rel (what ndeval calls actualSubtopics)."""
    relevant = qrels[qrels.relevance >= rel]
    return relevant.groupby("query_id").subtopic.nunique().to_dict()


def ndeval_values(qrels: pd.DataFrame, run: pd.DataFrame, rel: int, alpha: float, beta: float) -> dict:
    pyndeval = peer("pyndeval")
    names = [f"{m}@{k}" for m in NDEVAL.values() for k in CUTOFFS] + ["NRBP", "nNRBP", "MAP-IA"]
    evaluator = pyndeval.RelevanceEvaluator(list(qrels.itertuples(index=False, name=None)), names,
                                            relevance_level=rel, alpha=alpha, beta=beta)
    return evaluator.evaluate(list(run.itertuples(index=False, name=None)))


def asked(rel: int, alpha: float, beta: float) -> dict[str, str]:
    """ndeval's name -> the sqlrank measure asked for it."""
    names = {f"{ndeval}@{k}": f"{family}(alpha={alpha})@{k}" if family.startswith(("alpha", "ERR", "nERR")) else
             f"{family}@{k}" for family, ndeval in NDEVAL.items() for k in CUTOFFS}
    return {**names, "NRBP": f"NRBP(alpha={alpha},beta={beta})", "nNRBP": f"nNRBP(alpha={alpha},beta={beta})",
            "MAP-IA": "AP_IA"}


@pytest.mark.parametrize("rel, alpha, beta", SETTINGS)
def test_equals_ndeval(data, tmp_path, rel, alpha, beta):
    qrels, run = data
    expected = ndeval_values(qrels, run, rel, alpha, beta)
    assert len(expected) >= 35
    path = tmp_path / "diversity.qrels"  # TREC text: the subtopic in column 2, as ndeval reads it
    path.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.itertuples(index=False)))
    names = asked(rel, alpha, beta)
    frame = sqlrank.evaluate(str(path), run, list(names.values()), per_query=True, rel=rel, tie_break="doc_id_asc")
    printed = dict(zip(names, frame.measure.unique()))  # the result's measures in the order asked
    got = {(row.query_id, row.measure): row.value for row in frame.itertuples() if row.query_id is not None}
    assert {q for q, _ in got} == set(expected)
    counts = subtopic_counts(qrels, rel)
    compared = 0
    for query, values in expected.items():
        for name, value in values.items():
            if name in ("ERR-IA@1", "alpha-DCG@1") and counts.get(query):
                value /= counts[query]  # ndeval leaves its normalisation out at rank 1 (its loop starts at rank 2)
            if name == "nNRBP" and math.isnan(value):
                assert not counts.get(query)  # 0/0: no subtopic has a relevant document; sqlrank says 0
                value = 0.0
            assert got[query, printed[name]] == pytest.approx(value, abs=TOLERANCE), (query, name, rel, alpha, beta)
            compared += 1
    assert compared > 1400


def test_tables_read_like_trec_text(data, tmp_path):
    """A subtopic column of a DataFrame or CSV (or another name mapped to subtopic) gives what TREC text's second
    column gives; every other measure reads each document's highest label over its subtopics."""
    qrels, run = data
    names = ["alpha_nDCG@10", "nERR_IA@5", "NRBP", "AP_IA", "StRecall@10", "P@5", "nDCG@10"]
    path = tmp_path / "q.txt"
    path.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.itertuples(index=False)))
    expected = sqlrank.evaluate(str(path), run, names, per_query=True)
    csv = tmp_path / "intents.csv"
    qrels.rename(columns={"subtopic": "intent"}).to_csv(csv, index=False)
    for given, columns in ((qrels, None), (str(csv), {"subtopic": "intent"})):
        frame = sqlrank.evaluate(given, run, names, per_query=True, qrels_columns=columns)
        pd.testing.assert_frame_equal(frame.reset_index(drop=True), expected.reset_index(drop=True), check_exact=False,
                                      atol=1e-12)
    collapsed = qrels.groupby(["query_id", "doc_id"], as_index=False).relevance.max()
    plain = sqlrank.evaluate(collapsed, run, ["P@5", "nDCG@10"], per_query=True)
    mine = expected[expected.measure.isin(["P@5", "nDCG@10"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, plain.reset_index(drop=True), check_exact=False, atol=1e-12)


def test_bad_subtopic_judgments(tmp_path):
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    twice = tmp_path / "twice.txt"
    twice.write_text("1 s1 a 1\n1 s2 a 1\n1 s1 a 0\n")
    with pytest.raises(InputError, match=r"twice.txt:1: .* query .1., subtopic .s1. \(again at .*twice.txt:3\)"):
        sqlrank.evaluate(str(twice), run, "alpha_nDCG@5")
    with pytest.raises(InputError, match="no subtopic column.*subtopic=NAME"):
        sqlrank.evaluate(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}), run, "P_IA@5")
    missing = pd.DataFrame({"query_id": ["1"], "subtopic": [None], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match="1 rows have no subtopic"):
        sqlrank.evaluate(missing, run, "StRecall@5")
    with pytest.raises(sqlrank.OptionError, match="a table of the database the postgres statement runs in: give its "
                                                  "name"):
        sqlrank.render(str(twice), run, "NRBP", dialect="postgres")


def test_several_runs_evaluate_as_each_alone(data, tmp_path):
    """Runs evaluated together (the judgments per subtopic keyed by run) give each run's values alone."""
    qrels, run = data
    other = run.assign(score=-run.score)
    names = "alpha_nDCG@10 NRBP AP_IA StRecall@5"
    together = sqlrank.evaluate(qrels, {"a": run, "b": other}, names, per_query=True)
    for name, alone in (("a", run), ("b", other)):
        expected = sqlrank.evaluate(qrels, alone, names, per_query=True)
        mine = together[together.run_id == name].drop(columns="run_id").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, expected.reset_index(drop=True), check_exact=False, atol=1e-12)
