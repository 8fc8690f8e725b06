"""Differential tests against pytrec_eval-terrier (trec_eval's C code) on generated data."""
from __future__ import annotations

import math
import re

import pandas as pd

import pytest

import sqlrank
from sqlrank.measures.conventions import resolve_conventions
from sqlrank.measures.registry import FAMILIES
from conftest import close, peer
from support.generate import generate, long_rankings, to_dicts

pytrec_eval = peer("pytrec_eval")

TREC_MEASURES = {"map", "P", "recall", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "success", "map_cut",
                 "num_ret", "num_rel", "num_rel_ret", "num_q"}
PLAIN = {"map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec", "num_ret": "NumRet",
         "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "num_q": "NumQ"}
CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}


def sqlrank_name(trec_name: str) -> str:
    if trec_name in PLAIN:
        return PLAIN[trec_name]
    base, k = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", trec_name).groups()
    return f"{CUT[base]}@{k}"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_per_query_values_match_pytrec_eval(seed, rel, judged_only):
    qrels, run = generate(seed)
    qrels_dict, run_dict = to_dicts(qrels, run)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, TREC_MEASURES, relevance_level=rel,
                                               judged_docs_only_flag=judged_only)
    expected = evaluator.evaluate(run_dict)
    trec_names = sorted(next(iter(expected.values())))
    if rel != 1:  # pytrec_eval's num_rel ignores the relevance level (a known defect)
        trec_names.remove("num_rel")
    names = [sqlrank_name(n) for n in trec_names]
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(qrels, run, names, per_query=True, rel=rel, judged_only=judged_only)
    resolved = resolve_conventions(rel=rel, judged_only=judged_only)
    canonical = {n: sqlrank.parse_measures(n)[0].resolve(resolved).shown for n in names}
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    assert set(got.query_id) == set(expected), "evaluated queries differ"
    mismatches, compared = [], 0
    for qid, measures in expected.items():
        for trec_name, name in zip(trec_names, names):
            compared += 1
            ours = values[(qid, canonical[name])]
            if not close(ours, measures[trec_name]):
                mismatches.append(f"{qid!r} {trec_name}: pytrec_eval {measures[trec_name]!r}, sqlrank {ours!r}")
    assert compared > 5000
    assert not mismatches, f"{len(mismatches)} of {compared} differ:\n" + "\n".join(mismatches[:20])


def test_values_are_the_same_under_a_small_memory_limit(tmp_path):
    """380,000 run rows in 60 MB of DuckDB memory on one thread: the engine options reach DuckDB
    (10 MB is refused with a clear error, so the limit is real; 20 MB was, until the judgments of the
    evaluated queries were materialized once, after which about 3 runs in 10 fit in it) and the values
    do not change."""
    qrels, run = generate(4, n_queries=2000, max_docs=400)
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    files = (str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"))
    with pytest.raises(sqlrank.SqlrankError, match="Out of Memory.*--memory-limit"):
        sqlrank.evaluate(*files, "AP", memory_limit="10MB", threads=1)
    expected = pytrec_eval.RelevanceEvaluator(*to_dicts(qrels, run)[:1], {"map", "ndcg_cut.10", "P.10"}).evaluate(
        to_dicts(qrels, run)[1])
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(*files, "AP nDCG@10 P@10", per_query=True, memory_limit="60MB", threads=1,
                               temp_directory=tmp_path / "spill")
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    assert len(values) == 3 * len(expected) > 5000
    for qid, measures in expected.items():
        for trec_name, name in (("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10")):
            assert close(values[(qid, name)], measures[trec_name]), (qid, name)


def test_slices_of_queries_give_pytrec_eval_values_and_means(monkeypatch):
    """slices=5: five statements, each over the queries of one hash slice; per-query values and
    the means over all queries are pytrec_eval's."""
    import sqlrank.rendering.prepared as planner

    qrels, run = generate(5)
    expected = pytrec_eval.RelevanceEvaluator(to_dicts(qrels, run)[0], {"map", "ndcg_cut.10", "P.10",
                                                                         "num_rel_ret"}).evaluate(to_dicts(qrels, run)[1])
    statements, filled, templates = [], [], set()
    render, fill_in = planner.render_evaluation, planner.fill_in

    def rendered(*a, **k):
        statements.append(a[4])
        text = render(*a, **k)
        if a[4] == "slice":
            templates.add(text)
        return text
    monkeypatch.setattr(planner, "render_evaluation", rendered)
    monkeypatch.setattr(planner, "fill_in", lambda *a: a[0] in templates and filled.append(a) or fill_in(*a))
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(qrels, run, "AP nDCG@10 P@10 NumRelRet", per_query=True, slices=5)
        summary = sqlrank.evaluate(qrels, run, "AP nDCG@10 P@10 NumRelRet", slices=5)
    # each evaluation's slice statement is rendered once, and each of its five slices filled in
    assert statements.count("slice") == 2 and len(filled) == 10
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    names = (("map", "AP"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"), ("num_rel_ret", "NumRelRet"))
    assert len(values) == 4 * len(expected)
    for qid, measures in expected.items():
        for trec_name, name in names:
            assert close(values[(qid, name)], measures[trec_name]), (qid, name)
    means = dict(zip(summary.measure, summary.value))
    assert list(summary.measure) == ["AP", "nDCG@10", "P@10", "NumRelRet"]
    for trec_name, name in names:
        column = [m[trec_name] for m in expected.values()]
        wanted = sum(column) if name == "NumRelRet" else sum(column) / len(column)
        assert close(means[name], wanted), name


@pytest.mark.parametrize("groups", [False, True])
def test_a_slice_statement_is_the_statement_rendered_over_the_slice(groups):
    # rendered once with stand-ins for its inputs, then filled in per slice: the same text as the
    # statement rendered over each slice's inputs
    import duckdb

    from sqlrank.inputs.source import GROUP_SEPARATOR
    from sqlrank.inputs.store import Registry
    from sqlrank.plan import plan
    from sqlrank.rendering.dialects import DUCKDB
    from sqlrank.rendering.sqltext import call_macro, render_slice

    qrels, run = generate(3)
    if groups:
        qrels = qrels.assign(query_id=qrels.query_id + GROUP_SEPARATOR + "g1")
    con = duckdb.connect()
    registry = Registry(con)
    p = plan(qrels, run, "AP nDCG@10 P@10 RR", "per_query", con, registry, slices=3, printable=False)
    p = p if not groups else p.__class__(**{**p.__dict__, "statement": p.statement.__class__(
        **{**p.statement.__dict__, "groups": True, "sliced": {}})})
    run_sql = p.run.sql()
    if groups:
        run_sql = call_macro(DUCKDB, "_macros/inputs.sql", "run_per_group", run_sql).strip()
    for with_counts in (False, True):
        for index in range(3):
            direct = p.statement._render(DUCKDB, render_slice(p.qrels.sql(), 3, index), render_slice(run_sql, 3, index),
                                         None, "slice" if with_counts else "per_query")
            assert p.slice_sql(index, with_counts) == direct
    registry.close()


def test_slices_summarize_measures_over_different_queries():
    """In slices, a measure that scores the judged queries the run lacks 0 (missing_queries=zero)
    beside one that skips them: each mean over its own queries, each count said, per query and
    in the summary alone (which the slices give without their per-query rows)."""
    qrels, run = generate(6)
    judged, ranked = to_dicts(qrels, run)
    expected = pytrec_eval.RelevanceEvaluator(judged, {"map"}).evaluate(ranked)
    missing = judged.keys() - ranked.keys()
    assert missing and expected
    with pytest.warns(sqlrank.SqlrankWarning):
        summary = sqlrank.evaluate(qrels, run, "AP AP(missing_queries=zero)", slices=4)
        per_query = sqlrank.evaluate(qrels, run, "AP AP(missing_queries=zero)", slices=4, per_query=True)
    total = sum(m["map"] for m in expected.values())
    wanted = {"AP": (total / len(expected), len(expected)),
              "AP(missing_queries=zero)": (total / (len(expected) + len(missing)), len(expected) + len(missing))}
    for frame in (summary, per_query):
        assert frame.attrs["queries"] == {name: count for name, (_, count) in wanted.items()}
    for name, (mean, _) in wanted.items():
        assert close(summary.set_index("measure").value[name], mean), name
        rows = per_query[per_query.measure == name]
        assert len(rows) == wanted[name][1] and close(rows.value.mean(), mean), name


ALL_PYTREC = sorted(set(pytrec_eval.supported_measures) - {"relstring", "runid"})
GEOMETRIC = {"gm_map", "gm_bpref"}  # pytrec_eval gives ln(max(value, 1e-5)) per query


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_pytrec_eval_measure_with_trec_eval_version_9(seed, rel, judged_only):
    qrels, run = generate(seed, n_queries=200, near_ties=True)
    qrels_dict, run_dict = to_dicts(qrels, run)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(ALL_PYTREC), relevance_level=rel,
                                               judged_docs_only_flag=judged_only)
    expected = evaluator.evaluate(run_dict)
    trec_names = sorted(next(iter(expected.values())))
    if rel != 1:
        trec_names.remove("num_rel")
    measures = [sqlrank.parse_measures(n)[0] for n in trec_names]
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(qrels, run, measures, per_query=True, rel=rel, judged_only=judged_only,
                               trec_eval_version=9)
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    resolved = resolve_conventions(rel=rel, judged_only=judged_only, trec_eval_version=9)
    names = [m.resolve(resolved).shown for m in measures]
    assert len(trec_names) >= 90 and set(got.query_id) == set(expected)
    assert_same_values(expected, values, trec_names, names)


def assert_same_values(expected: dict, values: dict, trec_names: list, names: list) -> None:
    """pytrec_eval's per-query values (expected[qid][trec_name]) equal sqlrank's (values[(qid, name)])."""
    mismatches = []
    for qid, row in expected.items():
        for trec_name, name in zip(trec_names, names):
            ours = values[(qid, name)]
            if trec_name.split("_")[0] == "gm":
                ours = math.log(max(ours, 1e-5))
            if math.isnan(row[trec_name]) and row["num_ret"] == 0 and trec_name.startswith(("iprec", "11pt")):
                # -J left no document: trec_eval divides 0 by 0; sqlrank scores an empty ranking 0
                assert ours == 0.0
                continue
            if not close(ours, row[trec_name]):
                mismatches.append(f"{qid!r} {trec_name}: pytrec_eval {row[trec_name]!r}, sqlrank {ours!r}")
    assert not mismatches, f"{len(mismatches)} differ:\n" + "\n".join(mismatches[:20])


LABELLED = [n for n in ALL_PYTREC if FAMILIES[sqlrank.parse_measures(n)[0].family].labels != "all"]


@pytest.mark.parametrize("rel", [1, 2, 3])  # pytrec_eval refuses 0; rel=0 is in the next test
def test_measures_of_relevant_documents_only_match_pytrec_eval(rel):
    """Measures that read only relevant documents (or those with a gain), alone in their ranking: the
    label join keeps only the judgments from the lowest label they read (the registry's labels), and
    on data with negative, 0 and graded labels the values are still pytrec_eval's."""
    qrels, run = generate(6, n_queries=200, near_ties=True)
    qrels_dict, run_dict = to_dicts(qrels, run)
    expected = pytrec_eval.RelevanceEvaluator(qrels_dict, set(LABELLED), relevance_level=rel).evaluate(run_dict)
    trec_names = sorted(next(iter(expected.values())))
    if rel != 1:
        trec_names.remove("num_rel")
    measures = [sqlrank.parse_measures(n)[0] for n in trec_names]
    assert {m.family for m in measures} >= {"AP", "GMAP", "nDCG", "P", "R", "RR", "Rprec", "IPrec", "IPrecAvg"}
    statement = sqlrank.render(qrels, run, measures, per_query=True, rel=rel, trec_eval_version=9)
    assert "WHERE numbered_qrels.relevance > 0\n" in statement  # nDCG's gains: every label > 0 (0.5 has one)
    with pytest.warns(sqlrank.SqlrankWarning):
        got = sqlrank.evaluate(qrels, run, measures, per_query=True, rel=rel, trec_eval_version=9)
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    resolved = resolve_conventions(rel=rel, trec_eval_version=9)
    assert_same_values(expected, values, trec_names, [m.resolve(resolved).shown for m in measures])


def test_label_0_is_kept_when_a_measure_reads_it():
    """A gain mapping that gives label 0 a gain, or rel=0: those documents count, so the label join
    keeps label 0. By hand: d1 (label 0, gain 1) at rank 1, d2 unjudged, d3 (label -1, gain 0) at
    rank 3, d4 (label 2, gain 3) at rank 4: DCG = 1 / log2(2) + 3 / log2(5); with rel=0, d1 and d4
    are relevant: P@4 = 2 / 4, RR = 1; with rel=1 only d4: RR = 1 / 4."""
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d1", "d3", "d4"], "relevance": [0, -1, 2]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "d2", "d3", "d4"], "score": [4.0, 3.0, 2.0, 1.0]})
    value = sqlrank.evaluate(qrels, run, "DCG(gain={0:1,2:3}) P@4").value[0]
    assert close(value, 1 + 3 / math.log2(5))
    assert "WHERE numbered_qrels.relevance >= 0\n" in sqlrank.render(qrels, run, "DCG(gain={0:1,2:3})")
    assert close(sqlrank.evaluate(qrels, run, "DCG").value[0], 2 / math.log2(5))
    assert list(sqlrank.evaluate(qrels, run, "P(rel=0)@4 RR(rel=0) RR").value) == [0.5, 1.0, 0.25]
    assert "WHERE numbered_qrels.relevance >= 0\n" in sqlrank.render(qrels, run, "RR(rel=0)")


def test_version_10_ranks_near_ties_apart():
    qrels = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["d1", "d2"], "score": [1.00000001, 1.0]})
    # docs/trec_eval_semantics.md E1d: trec_eval 10 compares doubles (RR 1), version 9 32-bit floats (a tie, d2 first: RR 0.5)
    assert sqlrank.evaluate(qrels, run, "RR").value[0] == 1.0
    assert sqlrank.evaluate(qrels, run, "RR", trec_eval_version=9).value[0] == 0.5


def test_generated_data_has_the_hard_cases():
    qrels, run = generate(1)
    scores = run.groupby("query_id")["score"]
    assert (scores.nunique() < scores.count()).mean() > 0.5, "most queries should have ties"
    assert (qrels.relevance < 0).any() and (qrels.relevance >= 4).any()
    assert set(qrels.query_id) - set(run.query_id) and set(run.query_id) - set(qrels.query_id)
    assert {"1", "01"} & set(qrels.query_id) or any("/" in q for q in qrels.query_id)
    judged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    assert judged.relevance.isna().mean() > 0.2, "many retrieved documents should be unjudged"


# Sums whose doubles are trec_eval's, bit for bit: the per-document terms added in rank order, the queries' values in
# query order (as trec_eval's C loops add them).
TO_THE_BIT = ["map", "ndcg", "ndcg_cut.10", "ndcg_cut.100", "P.10", "recall.100", "recip_rank", "Rprec", "bpref",
              "infAP", "binG", "G"]


def test_values_are_trec_eval_s_doubles_on_every_run():
    # DuckDB's SUM adds in the order its threads deliver the rows: per-query G, nDCG, nDCG@100 and binG values
    # (258 of these 3,000) and every mean differed from pytrec_eval's, and from one run to the next, in the last
    # bit. Added in rank order and in query order, they are the same on every run, and exactly pytrec_eval's.
    qrels, run = long_rankings(7, n_queries=250, n_docs=1200)
    qrels_dict, run_dict = to_dicts(qrels, run)
    expected = pytrec_eval.RelevanceEvaluator(qrels_dict, set(TO_THE_BIT)).evaluate(run_dict)
    trec_names = sorted(next(iter(expected.values())))
    measures = [sqlrank.parse_measures(n)[0] for n in trec_names]
    names = [m.resolve(resolve_conventions(trec_eval_version=9)).shown for m in measures]
    queries = sorted(expected)
    means = {}
    for trec_name, name in zip(trec_names, names):
        total = 0.0
        for qid in queries:  # trec_eval's summary: each query's value added in query order
            total += expected[qid][trec_name]
        means[name] = total / len(queries)
    for _ in range(2):
        got = sqlrank.evaluate(qrels, run, measures, per_query=True, trec_eval_version=9, threads=2)
        values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
        differ = [f"{qid} {trec_name}: pytrec_eval {expected[qid][trec_name]!r}, sqlrank {values[(qid, name)]!r}"
                  for qid in queries for trec_name, name in zip(trec_names, names)
                  if values[(qid, name)] != expected[qid][trec_name]]
        assert not differ, f"{len(differ)} differ:\n" + "\n".join(differ[:10])
        summary = sqlrank.evaluate(qrels, run, measures, trec_eval_version=9, threads=2)
        assert dict(zip(summary.measure, summary.value)) == means
