"""trec_eval 10's own test suite (../shared/conformance/trec_eval): every line of a measure
built here must match to the printed four decimals (counts exactly)."""
from __future__ import annotations

import re

import pytest

import sqlrank
from conftest import conformance_file

# trec_eval output name -> sqlrank measure name, for the measures built here.
PLAIN = {"num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "map": "AP",
         "Rprec": "Rprec", "recip_rank": "RR", "ndcg": "nDCG"}
CUT = {"P": "P@{}", "recall": "R@{}", "ndcg_cut": "nDCG@{}", "map_cut": "AP@{}", "success": "Success@{}"}


def to_measure(trec_name: str) -> str | None:
    if trec_name in PLAIN:
        return PLAIN[trec_name]
    m = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", trec_name)
    if m and m.group(1) in CUT:
        return CUT[m.group(1)].format(m.group(2))
    return None


def read_out(path):
    """(measure, query, printed value) for each line of a built measure."""
    rows = []
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        measure = to_measure(name.strip())
        if measure is not None:
            rows.append((measure, qid, value))
    return rows


def check(out_name, qrels_name, run_name, rel=1, **conventions):
    expected = read_out(conformance_file(out_name))
    qrels, run = conformance_file(qrels_name), conformance_file(run_name)
    measures = sorted({m for m, _, _ in expected})
    assert len(measures) >= 10
    per_query = sqlrank.evaluate(qrels, run, measures, per_query=True, rel=rel, **conventions)
    summary = sqlrank.evaluate(qrels, run, measures, rel=rel, **conventions)
    name_of = {m: str(sqlrank.parse_measures(m)[0].resolve(rel)) for m in measures}
    got = {(r.measure, r.query_id): r.value for r in per_query.itertuples()}
    got.update({(r.measure, "all"): r.value for r in summary.itertuples()})
    mismatches = []
    for measure, qid, printed in expected:
        value = got.get((name_of[measure], qid))
        text = None if value is None else (f"{value:.0f}" if "." not in printed else f"{value:.4f}")
        if text != printed:
            mismatches.append(f"{measure} {qid}: trec_eval {printed}, sqlrank {text}")
    assert not mismatches, "\n".join(mismatches)
    return len(expected)


def test_out_test_summary():
    assert check("out.test", "qrels.test", "results.test") >= 12


def test_out_test_with_comments():
    check("out.test", "qrels.test.with-comments", "results.test")


def test_out_test_a_summary():
    check("out.test.a", "qrels.test", "results.test")


def test_out_test_aq_per_query():
    assert check("out.test.aq", "qrels.test", "results.test") > 100


def test_out_test_aql_relevance_level_2():
    # -l2: relevant means label >= 2; nDCG ignores it.
    assert check("out.test.aql", "qrels.rel_level", "results.test", rel=2) > 100


def test_out_test_aqc_missing_query_scores_zero():
    # -c: topic 302 is missing from results.trunc and scores 0.
    check("out.test.aqc", "qrels.test", "results.trunc", missing_queries="zero")


def test_out_test_aqcm_depth_100():
    check("out.test.aqcM", "qrels.test", "results.trunc", missing_queries="zero", depth=100)


def test_comment_test_rag_topics():
    # Docnos contain '#', 270 run topics have no judgments and are ignored.
    with pytest.warns(sqlrank.SqlrankWarning, match="270 run queries have no judgments"):
        check("out.comment.test", "qrels.comment.test", "results.comment.test")


def test_with_comments_equals_plain():
    plain = sqlrank.evaluate(conformance_file("qrels.test"), conformance_file("results.test"),
                             "P@10 AP nDCG NumRel", per_query=True)
    commented = sqlrank.evaluate(conformance_file("qrels.test.with-comments"), conformance_file("results.test"),
                                 "P@10 AP nDCG NumRel", per_query=True)
    assert plain.equals(commented)
