"""sqlrank check and eval --strict: a crafted data set whose every problem is counted by hand,
and the tie counts against pandas on generated data."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from sqlrank.diagnosing.check import check
from conftest import FIXTURES
from support.generate import generate

# By hand: q1 has d1 judged twice (labels 1 and 0: conflicting); q2 twice the same label;
# q3 has only label 0 (no relevant document); q4 is judged but not in the run; the run has
# d5 twice for q1, query 'q5' not judged and ' 5' ... see below.
QRELS = """q1 0 d1 1
q1 0 d1 0
q1 0 d2 2
q2 0 d3 1
q2 0 d3 1
q3 0 d4 0
q4 0 d9 1
7 0 d1 1
"""
# ranks 1-3 of q1 have scores 3, 2, 2 (a tie across rank 2), q1's rank column disagrees with the
# scores (rank 1 has score 1); '07' matches the judged query '7' only after removing a zero;
# q5 is not judged; d5 appears twice in q2.
RUN = """q1 Q0 d0 1 1 t
q1 Q0 d1 2 3 t
q1 Q0 d2 3 2 t
q1 Q0 d3 4 2 t
q2 Q0 d3 1 5 t
q2 Q0 d5 2 4 t
q2 Q0 d5 3 3 t
q3 Q0 d4 1 1 t
q5 Q0 d1 1 1 t
07 Q0 d1 1 1 t
"""


@pytest.fixture()
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def test_every_check_counts_what_was_planted(files):
    qrels, run = files
    found = {f.check: f for f in check(qrels, [run], "P@2 nDCG@3")}
    assert found["duplicate judgments"].count == 2 and found["conflicting labels"].count == 1
    assert found["queries without relevant documents"].count == 1  # q3
    assert found["label histogram"].message == "labels 0: 2, 1: 5, 2: 1"
    assert found["duplicate documents"].count == 1  # q2 / d5
    assert found["queries only in the run"].count == 2  # q5, 07
    assert found["queries only in the qrels"].count == 2  # q4, 7
    assert found["ids that differ only by white space, zeros or Unicode"].count == 1  # 07 ~ 7
    assert found["ties at cutoff 2"].count == 1 and found["ties at cutoff 3"].count == 0  # q1: 3, 2, 2, 1
    assert found["rank column disagrees with the scores"].count == 1  # q1
    assert not found["label histogram"].problem and not found["unjudged documents in the top k"].problem


def test_check_cli_strict_and_json(files):
    qrels, run = files
    done = subprocess.run([sys.executable, "-m", "sqlrank", "check", qrels, run, "-f", "json"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"check", "input", "count", "changes_numbers", "message", "problem"} <= set(report[0])
    strict = subprocess.run([sys.executable, "-m", "sqlrank", "check", qrels, run, "--strict"], capture_output=True,
                            text=True)
    assert strict.returncode == 1 and "--strict" in strict.stderr and "FAIL" in strict.stdout


def test_clean_data_passes_strict(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    done = subprocess.run([sys.executable, "-m", "sqlrank", "check", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"),
                           "--strict"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"),
                           "-m", "P@1 AP", "--strict"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""


def test_eval_warns_and_strict_fails_without_writing(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\nq2 0 a 1\n")
    (tmp_path / "r.txt").write_text("01 Q0 a 1 2 t\nq2 Q0 a 1 1 t\nq2 Q0 b 2 1 t\n")
    args = [sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "P@1"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0
    assert "ranks 1 and 2 have the same score" in done.stderr and "e.g. '01' ~ '1'" in done.stderr
    out = tmp_path / "out.csv"
    done = subprocess.run(args + ["--strict", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 1 and not out.exists() and "Traceback" not in done.stderr


def test_tie_counts_match_pandas():
    qrels, run = generate(53, n_queries=200)
    expected = {}
    for k in (1, 3, 10):
        count = 0
        for _, rows in run.groupby("query_id"):
            scores = sorted(rows.score, reverse=True)
            count += len(scores) > k and scores[k - 1] == scores[k]
        expected[k] = count
    found = {f.check: f.count for f in check(qrels, [run], "P@1 P@3 P@10")}
    assert {k: found[f"ties at cutoff {k}"] for k in (1, 3, 10)} == expected
    assert all(expected.values())


def test_a_full_spill_disk_is_a_clear_error(tmp_path):
    """DuckDB's own cap on the spill folder stands in for a small disk: the evaluation stops with
    one line saying what to do, not a crash."""
    import duckdb

    qrels, run = generate(59, n_queries=3000, max_docs=60)
    con = duckdb.connect()
    for setting in ("SET memory_limit = '20MB'", "SET threads = 1", f"SET temp_directory = '{tmp_path}'",
                    "SET max_temp_directory_size = '1MB'"):
        con.execute(setting)
    with pytest.raises(sqlrank.InputError, match="the spill space is full"):
        sqlrank.evaluate(qrels, run, "AP nDCG@10 P@5 Bpref", per_query=True, connection=con)


@pytest.mark.parametrize("slices", [1, 3])
def test_tie_counts_at_shallow_and_deep_cutoffs_match_pandas(slices):
    # Cutoffs up to 100 come from the counting pass, deeper ones from a second pass only where some
    # query is longer; queries of 1 to 259 documents with scores from a few values tie everywhere.
    import duckdb
    import numpy as np

    from sqlrank.diagnostics import count_ties

    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 261, size=60)
    run = pd.DataFrame({"query_id": np.repeat([f"q{i}" for i in range(len(lengths))], lengths),
                        "doc_id": [f"d{j}" for n in lengths for j in range(n)],
                        "score": rng.integers(0, 40, size=int(lengths.sum())) / 4})
    cutoffs = [1, 3, 10, 100, 101, 150, 230, 259, 1000]
    expected = []
    for k in cutoffs:
        count = 0
        for _, rows in run.groupby("query_id"):
            scores = sorted(rows.score, reverse=True)
            count += len(scores) > k and scores[k - 1] == scores[k]
        expected.append(count)
    con = duckdb.connect()
    con.register("run_rows", run)
    assert count_ties(con, "SELECT * FROM run_rows", cutoffs, slices) == (expected, len(run))
    assert all(expected[:-2]) and expected[-2:] == [0, 0]  # the longest query has 259 documents


def test_a_tie_in_a_run_ranked_by_its_rank_column_is_called_a_tie_of_ranks(tmp_path):
    (tmp_path / "clicks.csv").write_text("user_id,item_id\nu1,i2\n")
    (tmp_path / "top.csv").write_text("user_id,item_id,rank\nu1,i1,1\nu1,i2,1\nu1,i3,2\n")
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "clicks.csv"),
                           str(tmp_path / "top.csv"), "-m", "HR@1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "ranks 1 and 2 have the same rank in the run's rank column, so @1 values depend" in done.stderr
    done = subprocess.run([sys.executable, "-m", "sqlrank", "check", str(tmp_path / "clicks.csv"),
                           str(tmp_path / "top.csv"), "-m", "HR@1"], capture_output=True, text=True)
    assert "in 1 of 1 users the items at ranks 1 and 2 have the same rank: @1 values" in done.stdout  # its words


def test_a_recommenders_inputs_are_checked_with_history_and_items(tmp_path):
    """By hand: u1 was recommended i1 (seen in its history), i2, i9 (in no catalog); u2 has no history."""
    (tmp_path / "clicks.csv").write_text("user_id,item_id\nu1,i2\nu2,i1\n")
    (tmp_path / "top.csv").write_text("user_id,item_id,score\nu1,i1,3\nu1,i2,2\nu1,i9,1\nu2,i1,2\nu2,i3,1\n")
    (tmp_path / "history.csv").write_text("user_id,item_id\nu1,i1\nu3,i4\n")
    (tmp_path / "items.csv").write_text("item_id\ni1\ni2\ni3\n")
    args = [sys.executable, "-m", "sqlrank", "check", str(tmp_path / "clicks.csv"), str(tmp_path / "top.csv"),
            "-f", "json", "--history", str(tmp_path / "history.csv")]
    done = subprocess.run(args + ["--items", str(tmp_path / "items.csv")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = {f["check"]: f for f in json.loads(done.stdout)}
    assert found["recommended items outside the catalog"]["count"] == 1
    assert "e.g. 'i9'; Gini stops on them" in found["recommended items outside the catalog"]["message"]
    assert found["recommendations the user has seen"]["count"] == 1
    assert "e.g. 'u1 / i1'; --remove-seen leaves them out" in found["recommendations the user has seen"]["message"]
    cold = found["users without history"]
    assert cold["count"] == 1 and cold["message"].startswith("1 of 2 users of the run have no interaction in the "
                                                             "history, e.g. 'u2'") and not cold["problem"]
    done = subprocess.run(args, capture_output=True, text=True)  # the catalog: the history's items i1, i4
    found = {f["check"]: f for f in json.loads(done.stdout)}
    assert found["recommended items outside the catalog"]["count"] == 3  # i2, i3, i9
    done = subprocess.run(args[:-2] + ["--items", str(tmp_path / "items.csv")], capture_output=True, text=True)
    assert [f["check"] for f in json.loads(done.stdout) if "catalog" in f["check"] or "history" in f["check"]] == \
        ["recommended items outside the catalog"]


def _normal(doc: str) -> str:
    return doc.strip(" \t\r\n").lstrip("0") or "0"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_checks_equal_pandas_on_generated_data(seed):
    """Duplicates, ids near the judged ones, the rank column against the scores and the share of judged
    documents at shallow and deep cutoffs (queries longer and shorter than them), against plain Python."""
    import random

    rng = random.Random(seed)
    spellings = lambda d: rng.choice([d, d, d, d, f" {d}", f"{d} ", f"0{d}", f"00{d}", f"\t{d}"])  # noqa: E731
    qrels_rows, run_rows = [], []
    for q in range(40):
        qid = f"q{q}"
        docs = [str(rng.randrange(1, 400)) for _ in range(rng.choice([3, 150, 260]))]
        for d in set(rng.sample(docs, min(len(docs), 60))):
            qrels_rows.append((qid, spellings(d), rng.choice([0, 1, 2])))
        for rank, d in enumerate(docs, 1):
            run_rows.append((qid, spellings(d), float(rng.randrange(20)), rank))
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]).drop_duplicates(["query_id", "doc_id"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score", "rank"])
    found = {f.check: f for f in check(qrels, [run], "P@5 P@20 P@100 P@200 P@1000")}

    sizes = run.groupby(["query_id", "doc_id"]).size()
    assert found["duplicate documents"].count == int((sizes > 1).sum()) > 0
    judged = set(zip(qrels.query_id, qrels.doc_id))
    near = {(q, rd, qd) for q, rd in set(zip(run.query_id, run.doc_id)) for qq, qd in judged
            if qq == q and rd != qd and _normal(rd) == _normal(qd) and (q, rd) not in judged}
    assert found["ids that differ only by white space, zeros or Unicode"].count == len(near) > 0
    inverted = 0
    for _, rows in run.groupby("query_id"):
        scores = rows.sort_values(["rank", "doc_id"]).score.tolist()
        inverted += any(b > a for a, b in zip(scores, scores[1:]))
    assert found["rank column disagrees with the scores"].count == inverted
    shares = {}
    for k in (5, 20, 100, 200, 1000):
        per_query = []
        for q, rows in run[run.query_id.isin(set(qrels.query_id))].groupby("query_id"):
            top = sorted(zip(rows.score, rows.doc_id), key=lambda pair: (pair[0], pair[1].encode()), reverse=True)[:k]
            per_query.append(sum((q, d) in judged for _, d in top) / len(top))
        shares[k] = sum(per_query) / len(per_query)
    printed = dict(re.findall(r"Judged@(\d+) ([0-9.]+)", found["unjudged documents in the top k"].message))
    assert {int(k): float(v) for k, v in printed.items()}.keys() == shares.keys()
    assert all(abs(float(printed[str(k)]) - share) <= 0.0005 + 1e-12 for k, share in shares.items())  # 3 decimals
    import duckdb

    from sqlrank.diagnosing.check import judged_shares

    con = duckdb.connect()
    con.register("qrels_frame", qrels)
    con.register("run_frame", run)
    got = judged_shares(con, "SELECT * FROM qrels_frame", "SELECT * FROM run_frame", list(shares))
    assert all(abs(value - shares[k]) < 1e-12 for value, k in zip(got, shares)), (got, shares)


def test_runs_stored_together_are_checked_run_by_run():
    """A table of several runs (run_id) is checked as each run on its own: the same findings as the
    run's own file, where the keyed query ids ('baseline<chr(31)>q01') once matched no judged query."""
    from conftest import FIXTURES

    compare = FIXTURES / "compare"
    qrels = str(compare / "qrels.txt")
    together = check(qrels, [str(compare / "runs.parquet")])
    names = ["baseline", "rerank", "rerank_v2"]
    alone = check(qrels, [str(compare / f"{name}.run") for name in names])
    qrels_findings = [f for f in alone if f.input == qrels]
    assert [f for f in together if f.input == qrels] == qrels_findings
    for name in names:
        ours = [f for f in together if f.input == f"{compare / 'runs.parquet'} (run {name!r})"]
        theirs = [f for f in alone if f.input == str(compare / f"{name}.run")
                  and f.check != "rank column disagrees with the scores"]  # TREC text has ranks, the table none
        assert len(ours) == len(theirs) > 5
        assert [(f.check, f.count, f.message) for f in ours] == [(f.check, f.count, f.message) for f in theirs]
    assert not any("\x1f" in f.message for f in together)
    recsys = FIXTURES / "recsys"
    unfiltered = pd.read_parquet(recsys / "unfiltered.parquet")
    stored = pd.concat([unfiltered.assign(run_id="a"), unfiltered.assign(run_id="b")], ignore_index=True)
    options = dict(qrels_columns={"relevance": "clicked"}, history=str(recsys / "history.parquet"),
                   items=str(recsys / "items.csv"))
    one = {f.check: f.count for f in check(str(recsys / "clicks.csv"), [unfiltered], **options)
           if f.input == "DataFrame"}
    for run_id in ("a", "b"):
        found = {f.check: f.count for f in check(str(recsys / "clicks.csv"), [stored], **options)
                 if f.input == f"DataFrame (run {run_id!r})"}
        assert found == one and found["recommendations the user has seen"] > 0


def test_recommender_data_is_checked_in_its_own_words(capsys):
    """Judgments with user_id and item_id columns: the report speaks of users, items and interactions, and users
    without a relevant held-out interaction (the rule there) are information, not a finding --strict fails on."""
    from sqlrank.cli.main import main

    clicks, predictions = (str(FIXTURES / "recsys" / name) for name in ("clicks.csv", "predictions.parquet"))
    assert main(["check", clicks, predictions, "--qrels-columns", "relevance=clicked"]) == 0
    out = capsys.readouterr().out
    assert "info  users without relevant items" in out and "36 of 200 users have no item labelled >= 1" in out
    assert "every (user, item) pair once" in out and "users only in the run" in out
    assert " queries " not in out and "documents" not in out
    demo = [str(FIXTURES / "demo" / name) for name in ("qrels.test", "results.test")]
    assert main(["check", *demo]) == 0
    assert "queries" in capsys.readouterr().out  # IR data keeps its words
