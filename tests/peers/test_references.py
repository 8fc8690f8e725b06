"""Numbers as their named references compute them, where sqlrank differed: how many queries a comparison is over
when a measure has one value over all users, and the gains RBP and ERR read (NTCIREVAL's own cases are
fixtures/peers/ntcireval.json; TREC Fair Ranking 2022's AWRF is in tests/peers/test_fairness.py)."""
from __future__ import annotations

import warnings

import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES

RECSYS = FIXTURES / "recsys"
OPTIONS = {"qrels_columns": {"query_id": "user_id", "doc_id": "item_id", "relevance": "clicked"},
           "run_columns": {"query_id": "user_id", "doc_id": "item_id"}, "items": str(RECSYS / "items.csv"),
           "preset": "recbole"}


def users_evaluated() -> int:
    """The users RecBole evaluates (no_relevant=skip): a click in the qrels and a prediction in both runs, by pandas."""
    clicks = pd.read_csv(RECSYS / "clicks.csv")
    runs = [pd.read_parquet(RECSYS / name) for name in ("predictions.parquet", "unfiltered.parquet")]
    return len(set(clicks[clicks.clicked > 0].user_id).intersection(*(set(run.user_id) for run in runs)))


@pytest.mark.parametrize("measures", ["HR@10 Coverage@10", "Coverage@10"])
def test_a_measure_over_all_users_is_not_a_query(measures):
    runs = [str(RECSYS / "predictions.parquet"), str(RECSYS / "unfiltered.parquet")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluated = sqlrank.evaluate(str(RECSYS / "clicks.csv"), runs[0], measures, **OPTIONS)
        compared = sqlrank.compare(str(RECSYS / "clicks.csv"), runs, measures, **OPTIONS)
    assert evaluated.attrs["num_queries"] == compared.attrs["num_queries"] == users_evaluated() == 164


def test_rbp_reads_an_exponential_gain_rescaled_by_the_top_label():
    # one query judged 3, 2, 1; the run ranks x (unjudged), a (3), y, b (2): (1 - p) * sum of g(l) / g(top) p^(i - 1)
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [3, 2, 1]})
    run = pd.DataFrame({"query_id": "q", "doc_id": ["x", "a", "y", "b"], "score": [4.0, 3.0, 2.0, 1.0]})
    p = 0.8
    values = sqlrank.evaluate(qrels, run, f"RBP(p={p})", gain="exponential")
    assert values.measure.tolist() == [f"RBP(p={p})"] and values.attrs["measures"] == {
        f"RBP(p={p})": f"RBP(gain=exponential,p={p})"}
    assert values.value[0] == pytest.approx((1 - p) * (7 / 7 * p + 3 / 7 * p ** 3), abs=1e-12)
    linear = sqlrank.evaluate(qrels, run, f"RBP(p={p})").value[0]
    assert linear == pytest.approx((1 - p) * (3 / 3 * p + 2 / 3 * p ** 3), abs=1e-12)


def test_err_takes_no_gain_unless_it_stops_as_ntcireval_does():
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [2, 1]})
    run = pd.DataFrame({"query_id": "q", "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    # an evaluation's gain map is nDCG's; ERR keeps Chapelle's (2^l - 1) / 2^max_rel and says no gain in its name
    values = sqlrank.evaluate(qrels, run, "ERR(max_rel=2) nDCG", gain={1: 1, 2: 5})
    err = dict(zip(values.measure, values.value))["ERR(max_rel=2)"]
    assert err == pytest.approx(1 / 4 + (1 - 1 / 4) * (3 / 4) / 2, abs=1e-12)
    with pytest.raises(sqlrank.MeasureError, match="stop=ntcir"):
        sqlrank.evaluate(qrels, run, "ERR(gain={1:1,2:5})")
    # stop=ntcir: gain / (top gain + 1), the top gain that of max_rel
    ntcir = sqlrank.evaluate(qrels, run, "ERR(stop=ntcir,max_rel=2,gain={1:1,2:5})").value[0]
    assert ntcir == pytest.approx(1 / 6 + (1 - 1 / 6) * (5 / 6) / 2, abs=1e-12)
    with pytest.raises(sqlrank.MeasureError, match="names no label 2"):
        sqlrank.evaluate(qrels, run, "ERR(stop=ntcir,max_rel=2,gain={1:1})")


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "bigquery", "trino"])
def test_implicit_feedback_printed_for_another_database(dialect):
    """Judgments without a label column (every listed pair relevant) printed for a database's own tables: the label
    is added there (1), never read from a column the table lacks; run on DuckDB tables of that shape, the Postgres
    statement gives sqlrank's own values."""
    import duckdb

    clicks = pd.read_csv(RECSYS / "clicks.csv")
    interactions = clicks[clicks.clicked > 0][["user_id", "item_id"]].reset_index(drop=True)
    predictions = pd.read_parquet(RECSYS / "predictions.parquet")
    columns = {"qrels_columns": {"query_id": "user_id", "doc_id": "item_id", "relevance": None},
               "run_columns": {"query_id": "user_id", "doc_id": "item_id"}}
    text = sqlrank.render("inter", "pred", "HR@10 nDCG@10", per_query=True, dialect=dialect, **columns)
    assert "sqlrank_implicit_label" in text.lower() and "implicit_feedback" in text  # Snowflake: upper case
    sqlglot = pytest.importorskip("sqlglot")
    sqlglot.parse_one(text, read=dialect)
    if dialect != "postgres":
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sqlrank.evaluate(interactions, predictions, "HR@10 nDCG@10", per_query=True, **columns)
    con = duckdb.connect()
    con.register("interactions", interactions)
    con.register("predictions", predictions)
    con.execute("CREATE TABLE inter AS SELECT * FROM interactions")  # user_id, item_id: no label column
    con.execute("CREATE TABLE pred AS SELECT * FROM predictions")
    got = con.execute(text).df()
    want = {(str(q), m): v for q, m, v in zip(expected.user_id, expected.measure, expected.value)}
    assert len(got) == len(want) > 300
    assert all(v == pytest.approx(want[(q, m)], abs=1e-12) for q, m, v in zip(got.query_id, got.measure, got.value))


# changyaochen/rbo, tests/test.py (test_rbo: rbo(p=1.0), rounded to 3 decimals), its non-empty cases; a query with
# no document is in no run, so its empty-list cases do not arise here.
RBO_AVERAGE_OVERLAP = [("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz", 1.0),
                       ("abcdefghijklmnopqrstuvwxyz", "abcdefg", 1.0), ("abcde", "fghij", 0.0),
                       ("abcdefg", "zcavwxy", 0.312), ("abcde", "bacde", 0.8), ("abcde", "abced", 0.95),
                       ("a", "a", 1.0), ("a", "b", 0.0)]


@pytest.mark.parametrize("first, second, expected", RBO_AVERAGE_OVERLAP)
def test_rbo_at_p_1_is_the_average_overlap(first, second, expected):
    def ranking(letters: str) -> pd.DataFrame:
        return pd.DataFrame({"query_id": "q", "doc_id": list(letters),
                             "score": [float(len(letters) - i) for i in range(len(letters))]})
    value = sqlrank.overlap(ranking(first), ranking(second), "RBO(p=1)").value[0]
    assert round(value, 3) == expected
    with pytest.raises(sqlrank.MeasureError, match="average overlap"):
        sqlrank.overlap(ranking(first), ranking(second), "RBO(p=1,kind=ext)")


def test_bpm_spelled_as_ir_measures_spells_it():
    """ir_measures' BPM(T=1,max_rel=1)@20 is the user who reads at most K = 20 documents (cwl_eval's BPM-Static)."""
    parsed = sqlrank.parse_measures("BPM(T=1,max_rel=1)@20")
    assert parsed == sqlrank.parse_measures("BPM(K=20)") and parsed[0].label == "BPM(T=1,max_rel=1)@20"
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(30)], "relevance": [i % 2 for i in range(30)]})
    run = qrels.assign(score=[30.0 - i for i in range(30)]).drop(columns="relevance")
    assert sqlrank.evaluate(qrels, run, "BPM(T=1,max_rel=1)@20").value.tolist() == \
        sqlrank.evaluate(qrels, run, "BPM(K=20)").value.tolist()
    with pytest.raises(sqlrank.MeasureError, match="depth twice"):
        sqlrank.parse_measures("BPM(K=3)@20")


def test_overlap_over_the_first_rankings_top_k_as_rectools_intersection():
    """RecTools' Intersection@k (rectools/metrics/intersection.py): Recall@k of ref_reco against reco's top k, i.e.
    |reco_k & ref_reco_k| / |reco_k| per user, written here with pandas on rankings shorter and longer than k."""
    import numpy as np

    rng = np.random.default_rng(3)
    rows_a, rows_b = [], []
    for u in range(40):
        items = [f"i{j}" for j in range(30)]
        for name, rows in (("a", rows_a), ("b", rows_b)):
            chosen = rng.choice(items, size=int(rng.integers(1, 15)), replace=False)
            rows += [(f"u{u}", item, float(len(chosen) - r)) for r, item in enumerate(chosen)]
    a = pd.DataFrame(rows_a, columns=["query_id", "doc_id", "score"])
    b = pd.DataFrame(rows_b, columns=["query_id", "doc_id", "score"])
    k = 8
    got = sqlrank.overlap(a, b, f"Overlap(denominator=first)@{k}", per_query=True)
    top = {name: frame.sort_values(["query_id", "score"], ascending=[True, False]).groupby("query_id").head(k)
           .groupby("query_id").doc_id.apply(set) for name, frame in (("a", a), ("b", b))}
    for query, value in zip(got.query_id, got.value):
        reco, ref = top["a"][query], top["b"][query]
        assert value == pytest.approx(len(reco & ref) / len(reco), abs=1e-12)
    assert len(got) == 40


def test_explain_attributes_a_gap_to_the_trec_eval_version_and_finds_it():
    """pytrec_eval computes 11pt_avg with trec_eval 9's code: explain --between trec_eval pytrec_eval attributes the gap
    to trec_eval_version (a convention of the whole evaluation), and --target with pytrec_eval's own mean finds it."""
    from conftest import peer
    from sqlrank.diagnosing.explain import attribute, reproduce

    pytrec_eval = peer("pytrec_eval")
    qrels, run = FIXTURES / "trec_eval" / "qrels.test", FIXTURES / "trec_eval" / "results.test"
    judged, ranked = {}, {}
    for line in qrels.read_text().splitlines():
        q, _, d, label = line.split()
        judged.setdefault(q, {})[d] = int(label)
    for line in run.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        ranked.setdefault(q, {})[d] = float(score)
    values = pytrec_eval.RelevanceEvaluator(judged, {"11pt_avg"}).evaluate(ranked)
    expected = sum(v["11pt_avg"] for v in values.values()) / len(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps = attribute(str(qrels), str(run), "IPrecAvg", "trec_eval", "pytrec_eval")
        found = reproduce(str(qrels), str(run), "IPrecAvg", f"{expected:.4f}")
    overall = steps[steps.query_id == "all"]
    assert overall.convention.tolist() == ["trec_eval_version=9"]
    assert overall.after.iloc[0] == pytest.approx(expected, abs=1e-12) and overall.delta.iloc[0] != 0
    assert found.measure.iloc[0] == "IPrecAvg with trec_eval_version=9" and found.matches.iloc[0]
    assert not found[found.measure == "IPrecAvg"].matches.any()


def test_coverage_of_every_users_list_with_unjudged_queries_zero():
    """Coverage is over the evaluated users' lists; unjudged_queries=zero evaluates every user of the run, so it is the
    share of the catalog in all users' top 10, counted here with pandas."""
    clicks = pd.read_csv(RECSYS / "clicks.csv")
    judged = clicks[clicks.user_id.isin(sorted(set(clicks.user_id))[:50])]
    predictions = pd.read_parquet(RECSYS / "predictions.parquet")
    items = pd.read_csv(RECSYS / "items.csv")
    options = {k: v for k, v in OPTIONS.items() if k != "preset"}
    top = predictions.sort_values(["user_id", "score", "item_id"], ascending=[True, False, False]).groupby("user_id")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluated = sqlrank.evaluate(judged, predictions, "Coverage@10", **options)
        every = sqlrank.evaluate(judged, predictions, "Coverage@10", unjudged_queries="zero", **options)
    users = set(judged.user_id) & set(predictions.user_id)
    listed = top.head(10)
    assert evaluated.value[0] == pytest.approx(listed[listed.user_id.isin(users)].item_id.nunique() / len(items), abs=1e-12)
    assert every.value[0] == pytest.approx(listed.item_id.nunique() / len(items), abs=1e-12)
    assert every.attrs["num_queries"] == predictions.user_id.nunique()


@pytest.mark.parametrize("flags, said", [
    ([], "queries: 164 (Coverage@10, Novelty@10: over these rankings, not the run's 36 others; unjudged_queries=zero "
         "no_relevant=zero count them)"),
    (["--unjudged-queries", "zero", "--no-relevant", "zero"],
     "queries: 200 (Coverage@10, Novelty@10: over every ranking of the run)")])
def test_eval_says_which_rankings_coverage_is_over(capsys, flags, said):
    """The values over all users are over the evaluated users' rankings: the output says so beside their count,
    and how to count every user's ranking (200 users in predictions.parquet, 164 with a click)."""
    from support.cli import cli

    status, out, _ = cli(capsys, "eval", str(RECSYS / "clicks.csv"), str(RECSYS / "predictions.parquet"), "-m",
                         "HR@10 Coverage@10 Novelty@10", "--qrels-columns", "relevance=clicked", "--items",
                         str(RECSYS / "items.csv"), "--history", str(RECSYS / "history.parquet"), "--preset", "recbole",
                         *flags)
    assert status == 0 and said in out.splitlines()


def test_explain_tries_trec_eval_9_where_32_bit_scores_tie():
    """Scores 1.00000001 and 1.0 differ as doubles and not as 32-bit floats, which trec_eval 9 (pytrec_eval) ranks:
    there it breaks the tie by document id (b above a) and P@1 is 0 where trec_eval 10 gives 1."""
    from sqlrank.diagnosing.explain import reproduce

    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.00000001, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = reproduce(qrels, run, "P@1", "0")
        assert sqlrank.evaluate(qrels, run, "P@1", trec_eval_version=9).value[0] == 0
    nine = found[found.measure == "P@1 with trec_eval_version=9"]
    assert len(nine) == 1 and nine.matches.all()
    assert not found[found.measure == "P@1"].matches.any()


def test_pool_in_python_is_the_commands_pool(tmp_path):
    """sqlrank.pool: the rows `sqlrank pool -o FILE.csv` writes, for one run or several and one qrels or several."""
    import subprocess
    import sys

    judging = FIXTURES / "judging"
    runs = [str(judging / "bm25.run"), str(judging / "dense.run")]
    qrels = [str(judging / "human.txt"), str(judging / "llm.csv")]
    written = tmp_path / "pool.csv"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "pool", *runs, "--depth", "30", "--qrels", qrels[0],
                           "--qrels", qrels[1], "-o", str(written)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = pd.read_csv(written, dtype={"query_id": str, "doc_id": str})
    got = sqlrank.pool(runs, depth=30, qrels=qrels)
    assert got.attrs["runs"] == 2 and len(got) == len(expected) > 0
    assert list(zip(got.query_id, got.doc_id)) == list(zip(expected.query_id, expected.doc_id))
    human = pd.read_csv(qrels[0], sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                        dtype={"query_id": str}).drop(columns="iteration")
    framed = sqlrank.pool(runs, depth=30, qrels=human)  # one set of judgments as a DataFrame
    assert framed.equals(sqlrank.pool(runs, depth=30, qrels=qrels[0]))
    one = sqlrank.pool(runs[0], depth=5)  # one run, no judgments: its top 5 of every query
    ranked = pd.read_csv(runs[0], sep=r"\s+", header=None, names=["q", "z", "d", "r", "s", "t"], dtype={"q": str})
    assert len(one) == int(ranked.groupby("q").size().clip(upper=5).sum())


def test_an_empty_label_column_name_says_how_to_ask_for_implicit_feedback():
    qrels = pd.DataFrame({"user_id": ["u"], "item_id": ["i"]})
    run = pd.DataFrame({"user_id": ["u"], "item_id": ["i"], "score": [1.0]})
    with pytest.raises(sqlrank.InputError, match="map it to None: relevance= on the command line"):
        sqlrank.evaluate(qrels, run, "P@1", qrels_columns={"relevance": ""})
    assert sqlrank.evaluate(qrels, run, "P@1", qrels_columns={"relevance": None}).value[0] == 1.0


def test_judgment_sources_named_apart_by_their_whole_file_names(tmp_path):
    """qrels.human.txt and qrels.llm.csv are both 'qrels' up to their first dot: they are named up to their last
    extension instead (qrels_human, qrels_llm), in meta and in several judgment sources alike."""
    import shutil

    judging = FIXTURES / "judging"
    human, llm = tmp_path / "qrels.human.txt", tmp_path / "qrels.llm.csv.gz"
    shutil.copy(judging / "human.txt", human)
    pd.read_csv(judging / "llm.csv").to_csv(llm, index=False)
    runs = [str(judging / f"{name}.run") for name in ("bm25", "dense", "splade")]
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "sqlrank", "meta", str(human), str(llm), *runs, "-m", "nDCG@10"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "power (qrels_human)" in done.stdout and "power (qrels_llm)" in done.stdout
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        merged = sqlrank.evaluate([str(human), str(llm)], runs[0], "nDCG@10 Judged(source=qrels_llm)@10")
    assert set(merged.attrs["judgment_sources"]) == {"qrels_human", "qrels_llm"}
