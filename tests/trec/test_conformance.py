"""trec_eval 10's own test suite (fixtures/trec_eval/), through sqlrank.evaluate:
every numeric line must match to the printed four decimals (counts exactly). (sqlrank
trec_eval's byte-for-byte output is tested in test_trec_eval.py.)"""
from __future__ import annotations

import pytest

import sqlrank
from sqlrank.measures.conventions import resolve_conventions
from conftest import conformance_file

def to_measure(trec_name: str) -> str | None:
    """The sqlrank measure for a trec_eval output name (gm_map's per-query value is AP's)."""
    if trec_name in ("runid", "relstring") or trec_name.startswith("relstring_"):
        return None
    if trec_name == "num_q":
        return "NumQ"
    return str(sqlrank.parse_measures(trec_name)[0])


def read_out(path):
    """(measure, query, printed value) for each line of a built measure."""
    rows = []
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        measure = to_measure(name.strip())
        if measure is not None:
            rows.append((measure, qid, value))
    return rows


def check(out_name, qrels_name, run_name, rel=1, slices=None, **conventions):
    expected = read_out(conformance_file(out_name))
    qrels, run = conformance_file(qrels_name), conformance_file(run_name)
    measures = sorted({m for m, _, _ in expected})
    assert len(measures) >= 10
    per_query = sqlrank.evaluate(qrels, run, measures, per_query=True, rel=rel, slices=slices, **conventions)
    summary = sqlrank.evaluate(qrels, run, measures, rel=rel, slices=slices, **conventions)
    resolved = resolve_conventions(rel=rel, **conventions)
    name_of = {m: sqlrank.parse_measures(m)[0].resolve(resolved).shown for m in measures}
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
    assert check("out.test", "qrels.test", "results.test") >= 29


def test_ir_measures_names_reach_the_trec_eval_measures():
    got = sqlrank.evaluate(conformance_file("qrels.test"), conformance_file("results.test"),
                           "Bpref infAP RBP(p=0.9) SetF IPrec@0.5 GMAP Rprec_mult@1.0 IPrecAvg Unj@10")
    printed = {line.split("\t")[0].strip(): line.split("\t")[2]
               for line in conformance_file("out.test.a").read_text().splitlines()}
    trec = ["bpref", "infAP", "rbp", "set_F", "iprec_at_recall_0.50", "gm_map", "Rprec_mult_1.00", "11pt_avg",
            "unj_10"]
    assert [f"{v:.4f}" for v in got.value] == [printed[name] for name in trec]


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


def test_out_test_aqc_in_slices_of_queries():
    # slices=3: three statements of one to two queries each, then the summary over all of them
    # (means, sums for the num_* counts, gm_map's geometric mean, -c's zero for topic 302).
    check("out.test.aqc", "qrels.test", "results.trunc", missing_queries="zero", slices=3)


def test_comment_test_in_slices_of_queries():
    with pytest.warns(sqlrank.SqlrankWarning, match="270 run queries have no judgments"):
        check("out.comment.test", "qrels.comment.test", "results.comment.test", slices=7)


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
