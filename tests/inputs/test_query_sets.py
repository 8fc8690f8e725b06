"""Which queries an evaluation counts: those on both sides (the default), qrels queries the run misses
(missing_queries=zero), run queries without judgments (unjudged_queries=zero), exactly the queries a
query table lists, and what an empty input leaves."""
from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

import sqlrank
from conftest import close
from support.generate import generate
from sqlrank.cli.main import main

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@20", "Bpref", "Success@3"]


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(83, n_queries=40)  # queries on both sides and in the qrels only
    run = pd.concat([run, pd.DataFrame({"query_id": ["only_run"] * 3, "doc_id": ["a", "b", "c"],
                                        "score": [3.0, 2.0, 2.0]})], ignore_index=True)
    assert set(run.query_id) - set(qrels.query_id) and set(qrels.query_id) - set(run.query_id)
    return qrels, run


def per_query(qrels, run, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)
        frame = sqlrank.evaluate(qrels, run, MEASURES, per_query=True, **options)
    return {(r.query_id, r.measure.split("(")[0].split("@")[0] + ("@" + r.measure.split("@")[1] if "@" in r.measure
                                                                   else "")): r.value for r in frame.itertuples()}


def test_each_rule_adds_the_queries_of_one_side_and_scores_them_0(data):
    qrels, run = data
    both = set(qrels.query_id) & set(run.query_id)
    base = per_query(qrels, run)
    for options, extra in (({"missing_queries": "zero"}, set(qrels.query_id) - both),
                           ({"unjudged_queries": "zero"}, set(run.query_id) - both),
                           ({"missing_queries": "zero", "unjudged_queries": "zero"},
                            (set(qrels.query_id) | set(run.query_id)) - both)):
        values = per_query(qrels, run, **options)
        assert {q for q, _ in values} == both | extra, options
        assert all(values[key] == 0 for key in values if key[0] in extra), options
        assert all(close(values[key], base[key], 1e-12) for key in base), options


def test_a_query_table_lists_exactly_the_queries_evaluated(data):
    qrels, run = data
    judged = sorted(set(qrels.query_id))
    # every judged query listed: the queries of missing_queries=zero (trec_eval -c), value for value
    listed = per_query(qrels, run, queries=pd.DataFrame({"query_id": judged}))
    assert listed == per_query(qrels, run, missing_queries="zero")
    # a subset, and a query on neither side, which scores 0 and counts in the mean
    some = judged[:5] + ["nowhere"]
    with pytest.warns(sqlrank.SqlrankWarning, match="1 listed queries have neither results nor judgments"):
        summary = sqlrank.evaluate(qrels, run, "AP NumQ", queries=pd.DataFrame({"query_id": some}))
    alone = per_query(qrels, run, queries=pd.DataFrame({"query_id": some}))
    assert {q for q, _ in alone} == set(some) and alone[("nowhere", "AP")] == 0
    assert close(summary.value[0], sum(alone[(q, "AP")] for q in some) / len(some), 1e-12) and summary.value[1] == 6
    # the same in slices, and whatever missing_queries and unjudged_queries say
    sliced = per_query(qrels, run, queries=pd.DataFrame({"query_id": some}), slices=3)
    assert sliced == alone
    spark = per_query(qrels, run, queries=pd.DataFrame({"query_id": some}), preset="spark_mllib")
    assert {q for q, _ in spark} == set(some)


def test_a_query_table_s_errors(tmp_path, monkeypatch, capsys):
    qrels, run = generate(5, n_queries=4)
    with pytest.raises(sqlrank.InputError, match="lists no query"):
        sqlrank.evaluate(qrels, run, "AP", queries=pd.DataFrame({"query_id": pd.Series([], dtype=str)}))
    with pytest.raises(sqlrank.InputError, match="no query id column"):
        sqlrank.evaluate(qrels, run, "AP", queries=pd.DataFrame({"topic": ["1"]}))
    with pytest.raises(sqlrank.OptionError, match="cannot be printed for postgres"):
        sqlrank.render(qrels, run, "AP", queries=pd.DataFrame({"query_id": ["1"]}), dialect="postgres")
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n")
    (tmp_path / "topics.csv").write_text("query_id\n1\n3\n")
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "q.txt", "r.txt", "-m", "AP NumQ", "--queries", "topics.csv"]) == 0
    out, err = capsys.readouterr()
    assert re.search(r"^AP +0.5000$", out, re.M) and "queries: 2" in out
    assert "1 listed queries have neither results nor judgments and score 0, e.g. '3'" in err
    assert "1 run queries are not in the query table and are not evaluated, e.g. '2'" in err


@pytest.mark.parametrize("side", ["run", "qrels"])
def test_an_empty_input_is_evaluated_where_its_values_are_defined(tmp_path, monkeypatch, capsys, side):
    files = {"qrels.txt": "1 0 a 1\n2 0 b 1\n", "run.txt": "1 Q0 a 1 1 t\n3 Q0 c 1 1 t\n"}
    files[f"{side}.txt"] = ""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "header.csv").write_text("query_id,doc_id,score\n" if side == "run" else "query_id,doc_id,relevance\n")
    monkeypatch.chdir(tmp_path)
    rule = "--missing-queries" if side == "run" else "--unjudged-queries"
    for empty in (f"{side}.txt", "header.csv"):
        args = ["qrels.txt", empty] if side == "run" else [empty, "run.txt"]
        assert main(["eval", *args, "-m", "AP P@5"]) == 1
        out, err = capsys.readouterr()
        assert out == "" and f"the {side} ({empty}) has no data rows" in err and rule.strip("-").replace("-", "_") in err
        assert main(["eval", *args, "-m", "AP P@5", rule, "zero"]) == 0
        out, err = capsys.readouterr()
        assert "queries: 2" in out and out.count("0.0000") == 2, out
