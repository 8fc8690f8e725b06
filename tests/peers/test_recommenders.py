"""Recommender evaluation: the worked examples of RecBole's and Microsoft Recommenders' own tests
(fixtures/recommenders/<case>/, values derived in derive.py), per-user accuracy on generated data
against a pure-Python reference of their formulas, and recommender inputs (implicit feedback,
boolean labels, users without positives, the user's column names, extra inputs)."""
from __future__ import annotations

import csv
import json
import math
import random
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import sqlrank
from support.tiers import tiered
from conftest import FIXTURES, close, peer, peer_python
from support.generate import generate, to_dicts

CASES = sorted(p for p in (FIXTURES / "recommenders").iterdir() if p.is_dir())


def _trec_order(scores: dict) -> list:
    """Documents in trec_eval's order: score descending, ties by document id descending (bytes)."""
    return sorted(sorted(scores, key=lambda d: d.encode(), reverse=True), key=lambda d: -scores[d])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_library_worked_examples(case):
    options = json.loads((case / "options.json").read_text())
    measures = options.pop("measures")
    for name in ("history", "items", "item_features"):
        if name in options:
            options[name] = case / options[name]
    per_user = sqlrank.evaluate(case / "qrels.csv", case / "run.csv", measures, per_query=True, **options)
    summary = sqlrank.evaluate(case / "qrels.csv", case / "run.csv", measures, **options)
    user_column = options["run_columns"]["query_id"]
    assert user_column in per_user.columns  # ids are called as the inputs call them
    shown = dict(zip(measures, summary.measure))  # a preset's conventions show in the name: nDCG(log_base=e)@10
    assert len(shown) == len(summary) == len(measures)
    with open(case / "expected.tsv", newline="") as f:
        expected = list(csv.DictReader(f, delimiter="\t"))
    assert expected
    for row in expected:
        name = shown[row["measure"]]
        if row["user"] == "all":
            got = summary.loc[summary.measure == name, "value"]
        else:
            got = per_user.loc[(per_user.measure == name) & (per_user[user_column] == row["user"]), "value"]
        assert len(got) == 1, f"{case.name}: no value for {row['measure']} of {row['user']}"
        value = float(got.iloc[0])
        assert math.isclose(value, float(row["value"]), rel_tol=1e-12, abs_tol=1e-12), (case.name, row, value)
        if row["source_value"]:  # the library's own number, within its test's tolerance
            tolerance = float(row["tolerance"])  # relative (pytest.approx) or absolute (atol), as the test asserts
            assert math.isclose(value, float(row["source_value"]), rel_tol=tolerance, abs_tol=tolerance), \
                (case.name, row, value)


def test_every_case_is_documented():
    assert {c.name for c in CASES} >= {"recbole_catalog", "recbole_popularity",
                                       "ms_recommenders_beyond", "ms_recommenders_accuracy"}
    for case in CASES:
        assert (case / "NOTE.md").read_text().startswith("Source:"), case


def test_feature_vectors_equal_categories():
    """Item features as vectors (a list column) give the cosine the 0/1 category rows give."""
    case = FIXTURES / "recommenders" / "ms_recommenders_beyond"
    options = json.loads((case / "options.json").read_text())
    categories = pd.read_csv(case / "features.csv")
    vectors = pd.DataFrame({"ItemId": sorted(set(categories.ItemId))})
    vectors["features"] = [np.array([1.0 if f"f{p}" in set(categories.category[categories.ItemId == i]) else 0.0
                                     for p in range(5)]) for i in vectors.ItemId]
    measures = "ILD(similarity=features) Serendipity(similarity=features)"
    common = dict(qrels_columns=options["qrels_columns"], run_columns=options["run_columns"],
                  history=case / "history.csv", per_query=True)
    a = sqlrank.evaluate(case / "qrels.csv", case / "run.csv", measures, item_features=vectors, **common)
    b = sqlrank.evaluate(case / "qrels.csv", case / "run.csv", measures, item_features=case / "features.csv", **common)
    pd.testing.assert_frame_equal(a, b)
    assert a.value.notna().all()


# ---------------------------------------------------------------- generated data vs. a reference

def _generated(seed: int):
    """Users with graded or implicit feedback, ties, unjudged items, and users without positives."""
    rng = random.Random(seed)
    qrels, run = [], []
    for u in range(60):
        user = f"u{u:02d}"
        items = rng.sample(range(40), rng.randint(3, 25))
        for item in items[:rng.randint(1, len(items))]:
            label = 0 if u % 7 == 0 else rng.choice([0, 0, 1, 2, 3])  # every 7th user: no positive
            qrels.append((user, f"i{item:02d}", label))
        for item in rng.sample(range(40), rng.randint(1, 20)):
            run.append((user, f"i{item:02d}", float(rng.randint(0, 6))))  # many ties
    return (pd.DataFrame(qrels, columns=["user_id", "item_id", "rating"]),
            pd.DataFrame(run, columns=["user_id", "item_id", "score"]))


def _reference(qrels, run, k, rel=1):
    """RecBole's formulas (tests/metrics), one user at a time: binary relevance (label >= rel), ties
    ordered as sqlrank's default tie-break (item id descending), users without positives left out."""
    positives = {}
    for user, item, label in qrels.itertuples(index=False):
        if label >= rel:
            positives.setdefault(user, set()).add(item)
    values = {}
    for user, rows in run.groupby("user_id"):
        if user not in positives:
            continue
        ranked = [item for item, _ in sorted(zip(rows.item_id, rows.score), key=lambda r: (r[1], r[0]), reverse=True)]
        hits = [item in positives[user] for item in ranked[:k]]
        n = len(positives[user])
        first = next((i + 1 for i, h in enumerate(hits) if h), None)
        values[user] = {
            f"HR@{k}": float(any(hits)), f"P@{k}": sum(hits) / k, f"R@{k}": sum(hits) / n,
            f"RR@{k}": 1 / first if first else 0.0,
            f"AP@{k}": sum(sum(hits[:i + 1]) / (i + 1) for i, h in enumerate(hits) if h) / min(n, k),
            f"nDCG@{k}": sum(h / math.log2(i + 2) for i, h in enumerate(hits))
            / sum(1 / math.log2(i + 2) for i in range(min(n, k))),
        }
    return values


K = 5
NAMES = [f"HR@{K}", f"P@{K}", f"R@{K}", f"RR@{K}", f"AP@{K}", f"nDCG@{K}"]
COLUMNS = dict(qrels_columns={"query_id": "user_id", "doc_id": "item_id", "relevance": "rating"},
               run_columns={"query_id": "user_id", "doc_id": "item_id"})


def _assert_equals_reference(qrels, run, expected, **options):
    """RecBole's measures at K per user and their means, evaluated by sqlrank (preset recbole) on
    _generated's data, equal the reference values ``expected`` (per user, by name)."""
    binary = qrels.assign(rating=(qrels.rating >= 1).astype(int))
    got = sqlrank.evaluate(binary, run, NAMES, per_query=True, preset="recbole", **COLUMNS, **options)
    summary = sqlrank.evaluate(binary, run, NAMES, preset="recbole", **COLUMNS, **options)
    asked = dict(zip(summary.measure, NAMES))  # shown as Success@5, AP(ap_denominator=min_num_rel_cutoff)@5
    assert set(got.user_id) == set(expected)  # users without positives are left out
    assert len(got) == len(expected) * len(NAMES)
    for row in got.itertuples(index=False):
        want = expected[row.user_id][asked[row.measure]]
        assert math.isclose(row.value, want, rel_tol=1e-9, abs_tol=1e-12), (row, want)
    for shown, name in asked.items():
        mean = sum(v[name] for v in expected.values()) / len(expected)
        assert math.isclose(summary.set_index("measure").value[shown], mean, rel_tol=1e-9, abs_tol=1e-12)
    return got


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_per_user_accuracy_equals_recbole_formulas(seed):
    qrels, run = _generated(seed)
    got = _assert_equals_reference(qrels, run, _reference(qrels, run, K))
    # the same users with every positive pair listed (implicit feedback: no label column)
    implicit = qrels[qrels.rating >= 1][["user_id", "item_id"]]
    again = sqlrank.evaluate(implicit, run, NAMES, per_query=True, preset="recbole", **{
        "qrels_columns": {"query_id": "user_id", "doc_id": "item_id"}, "run_columns": COLUMNS["run_columns"]})
    pd.testing.assert_frame_equal(again, got)


# ---------------------------------------------------------------- remove_seen: history items left out

def _with_history(seed: int):
    """_generated's data and a history per user: some of the items the run recommends (for some users
    all of them), items it never recommends, and repeated interactions."""
    qrels, run = _generated(seed)
    rng = random.Random(seed + 100)
    history = []
    for user, rows in run.groupby("user_id"):
        items = list(rows.item_id)
        count = min(len(items), rng.choice([0, 1, 2, len(items) // 2, len(items)]))
        history += [(user, item) for item in rng.sample(items, count)]
        history += [(user, f"i{n:02d}") for n in rng.sample(range(40, 60), 2)]
    history += history[:7]
    return qrels, run, pd.DataFrame(history, columns=["user_id", "item_id"])


def _unseen(run, history):
    """The run without the history's (user, item) pairs, filtered by pandas: the reference."""
    seen = set(zip(history.user_id, history.item_id))
    unseen = run[[pair not in seen for pair in zip(run.user_id, run.item_id)]]
    assert 0 < len(unseen) < len(run) and set(unseen.user_id) < set(run.user_id)  # the data tests what it should
    return unseen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_remove_seen_equals_the_formulas_on_the_run_without_the_history(seed):
    qrels, run, history = _with_history(seed)
    expected = _reference(qrels, _unseen(run, history), K)
    _assert_equals_reference(qrels, run, expected, history=history, remove_seen=True)


def test_remove_seen_equals_pytrec_eval_on_the_run_without_the_history():
    """trec_eval's conventions over whole rankings (AP, nDCG, recall below the cut): every rank after
    a removed item moves up."""
    pytrec_eval = peer("pytrec_eval")
    qrels, run, history = _with_history(4)
    judged, ranked = {}, {}
    for user, item, label in qrels.itertuples(index=False):
        judged.setdefault(user, {})[item] = int(label)
    for user, item, score in _unseen(run, history).itertuples(index=False):
        ranked.setdefault(user, {})[item] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map", "ndcg", "P", "recip_rank", "recall"})
    expected = {user: {"AP": v["map"], "nDCG": v["ndcg"], "P@5": v["P_5"], "RR": v["recip_rank"],
                       "R@10": v["recall_10"]} for user, v in evaluator.evaluate(ranked).items()}
    got = sqlrank.evaluate(qrels, run, "AP nDCG P@5 RR R@10", per_query=True, history=history, remove_seen=True,
                           **COLUMNS)
    assert set(got.user_id) == set(expected)
    for row in got.itertuples(index=False):
        assert close(row.value, expected[row.user_id][row.measure], 1e-12), (row, expected[row.user_id])
    # the same run twice in one table (run_id): each run's users lose their own history's items
    stored = pd.concat([run.assign(run_id="a"), run.assign(run_id="b")], ignore_index=True)
    both = sqlrank.evaluate(qrels, stored, "AP nDCG P@5 RR R@10", per_query=True, history=history, remove_seen=True,
                            **COLUMNS)
    assert len(both) == 2 * len(got) and set(both.run_id) == {"a", "b"}
    for row in both.itertuples(index=False):
        assert close(row.value, expected[row.user_id][row.measure], 1e-12), (row, expected[row.user_id])


def test_remove_seen_is_said_and_checked(tmp_path):
    qrels, run, history = _with_history(5)
    with pytest.raises(sqlrank.OptionError, match="remove-seen: needs the history of interactions"):
        sqlrank.evaluate(qrels, run, "P@5", remove_seen=True, **COLUMNS)
    with pytest.raises(sqlrank.OptionError, match="remove_seen='yes' must be True or False"):
        sqlrank.evaluate(qrels, run, "P@5", history=history, remove_seen="yes", **COLUMNS)
    with pytest.warns(sqlrank.SqlrankWarning, match="history is read by the measures beyond accuracy .* and by "
                                                     "remove-seen; none is asked for, so it is not read"):
        unread = sqlrank.evaluate(qrels, run, "P@5", history=history, **COLUMNS)  # one configuration serves both
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert unread.equals(sqlrank.evaluate(qrels, run, "P@5", **COLUMNS))
    with pytest.raises(sqlrank.OptionError, match="a printed spark statement cannot read it"):
        sqlrank.render(qrels, run, "P@5", dialect="spark", history=history, remove_seen=True, **COLUMNS)
    # a history that shares no pair with the run (ids written otherwise) is a warning, not a silent no-op
    for measures in ("P@5", "AP"):  # counted by the tie check, or on its own without a cutoff
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sqlrank.evaluate(qrels, run, measures, history=history, remove_seen=True, **COLUMNS)
        assert not [w for w in caught if "remove-seen" in str(w.message)]
        with pytest.warns(sqlrank.SqlrankWarning, match="remove-seen left out no prediction: none of the run's "
                                                         f"{len(run)} .user, item. pairs is in the history"):
            sqlrank.evaluate(qrels, run, measures, history=history.assign(item_id="x" + history.item_id),
                             remove_seen=True, **COLUMNS)
    # compared with the run pandas filtered: the same values for every user, under remove_seen both
    table = sqlrank.compare(qrels, {"all": run, "unseen": _unseen(run, history)}, "P@5 AP", history=history,
                            remove_seen=True, **COLUMNS)
    assert (table[table.run == "unseen"][["wins", "losses"]] == 0).all().all()
    assert (table[table.run == "unseen"]["delta"] == 0).all()
    # the command line: the option, and what the result says about it
    for name, frame in (("qrels", qrels), ("run", run), ("history", history)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    out = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"),
                          "-m", "P@5", "--qrels-columns", "relevance=rating", "--history", str(tmp_path / "history.csv"),
                          "--remove-seen", "--no-relevant", "skip"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    expected = _reference(qrels, _unseen(run, history), K)
    assert out.stdout.splitlines()[2].split() == ["P@5", f"{sum(v['P@5'] for v in expected.values()) / len(expected):.4f}"]
    assert "remove-seen: each user's history items were left out of the run before ranking" in out.stdout


def test_users_without_positives_are_a_named_convention():
    qrels = pd.DataFrame({"user_id": ["a", "a", "b"], "item_id": ["x", "y", "z"], "clicked": [True, False, False]})
    run = pd.DataFrame({"user_id": ["a", "a", "b"], "item_id": ["y", "x", "z"], "score": [2.0, 1.0, 3.0]})
    columns = dict(qrels_columns={"query_id": "user_id", "doc_id": "item_id", "relevance": "clicked"},
                   run_columns={"query_id": "user_id", "doc_id": "item_id"})
    with pytest.warns(sqlrank.SqlrankWarning, match="no_relevant=skip"):
        zero = sqlrank.evaluate(qrels, run, "nDCG@2 RR", **columns).set_index("measure").value
    skip = sqlrank.evaluate(qrels, run, "nDCG@2 RR", no_relevant="skip", **columns).set_index("measure").value
    assert zero["RR"] == pytest.approx(0.25) and skip["RR"] == pytest.approx(0.5)
    assert skip["nDCG@2"] == pytest.approx(1 / math.log2(3))
    assert sqlrank.evaluate(qrels, run, "RR", preset="recbole", **columns).value[0] == pytest.approx(0.5)


def test_two_column_judgments_are_implicit_feedback(tmp_path):
    (tmp_path / "clicks.csv").write_text("user_id,item_id\nu1,a\nu1,b\nu2,c\n")
    (tmp_path / "pred.csv").write_text("user_id,item_id,score\nu1,a,3\nu1,c,2\nu2,c,1\n")
    columns = dict(qrels_columns={"query_id": "user_id", "doc_id": "item_id"},
                   run_columns={"query_id": "user_id", "doc_id": "item_id"})
    got = sqlrank.evaluate(tmp_path / "clicks.csv", tmp_path / "pred.csv", "P@2 R@2", per_query=True, **columns)
    assert list(got.columns) == ["user_id", "measure", "value"]
    assert got.value.tolist() == [0.5, 0.5, 0.5, 1.0]
    # a third column that is not mapped is not taken for labels: the error says how to map it
    (tmp_path / "ratings.csv").write_text("user_id,item_id,rating\nu1,a,1\n")
    with pytest.raises(sqlrank.InputError, match="relevance= for implicit feedback"):
        sqlrank.evaluate(tmp_path / "ratings.csv", tmp_path / "pred.csv", "P@2", **columns)


def test_a_statement_printed_for_another_engine_reads_the_extra_inputs_as_its_tables():
    """The other engines evaluate them (tests/engines/test_engines.py, test_postgres.py, test_spark.py) with the
    extra inputs copied in; a printed statement reads them as tables of its database, by name (their values:
    tests/rendering/test_sql.py), and a file there is refused with what to give instead."""
    folder = FIXTURES / "recsys"
    for dialect in ("postgres", "spark", "trino"):
        with pytest.raises(sqlrank.OptionError, match=f"the history of a statement printed for {dialect} is a table "
                                                      f"of that database: give its name"):
            sqlrank.render("clicks", "predictions", "Coverage@10 HR@10", dialect=dialect,
                           history=str(folder / "history.parquet"), qrels_columns={"relevance": "clicked"})
        text = sqlrank.render("clicks", "predictions", "Coverage@10 HR@10", dialect=dialect, history="shop.seen",
                              qrels_columns={"relevance": "clicked"})
        quote = "`" if dialect == "spark" else '"'
        assert f"FROM {quote}shop{quote}.{quote}seen{quote}" in text


def test_command_line_recommender_evaluation(tmp_path):
    case = FIXTURES / "recommenders" / "ms_recommenders_beyond"
    out = subprocess.run(
        [sys.executable, "-m", "sqlrank", "eval", str(case / "qrels.csv"), str(case / "run.csv"), "-m",
         "Coverage ILD Novelty Serendipity", "-q", "--history", str(case / "history.csv"),
         "--qrels-columns", "query_id=UserId,doc_id=ItemId,relevance=Relevance",
         "--run-columns", "query_id=UserId,doc_id=ItemId"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["UserId", "Coverage", "ILD", "Novelty", "Serendipity"]
    assert lines[2].split() == ["1", "0.2929", "0.3639"]  # per user: no catalog-wide values
    assert lines[5].split() == ["all", "0.8000", "0.4310", "2.8333", "0.4341"]
    missing = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(case / "qrels.csv"), str(case / "run.csv"),
                              "-m", "Novelty", "--qrels-columns", "query_id=UserId,doc_id=ItemId,relevance=Relevance",
                              "--run-columns", "query_id=UserId,doc_id=ItemId"], capture_output=True, text=True)
    assert missing.returncode == 1 and "--history FILE" in missing.stderr and "Traceback" not in missing.stderr


# ---------------------------------------------------------------- Microsoft Recommenders itself

RECOMMENDERS_SCRIPT = r"""
import json, sys
import numpy as np
import pandas as pd
from recommenders.evaluation import python_evaluation as pe
folder = sys.argv[1]
read = lambda name, **kw: pd.read_csv(f"{folder}/{name}.csv", **kw)
truth = read("clicks")
positives = truth[truth.clicked == 1][["user_id", "item_id"]].assign(rating=1)
pred, train = read("predictions"), read("history")
features = read("features")
features = pd.DataFrame({"item_id": features.item_id, "features": [np.array(json.loads(v)) for v in features.vector]})
kw = dict(col_user="user_id", col_item="item_id")
out = {}
for k in (3, 10):
    out[f"P@{k}"] = pe.precision_at_k(positives, pred, col_prediction="score", k=k, **kw)
    out[f"R@{k}"] = pe.recall_at_k(positives, pred, col_prediction="score", k=k, **kw)
    out[f"nDCG@{k}"] = pe.ndcg_at_k(positives, pred, col_prediction="score", k=k, **kw)
    out[f"MAP@{k}"] = pe.map_at_k(positives, pred, col_prediction="score", k=k, **kw)
reco = pred.merge(truth[["user_id", "item_id", "clicked"]], how="left").fillna({"clicked": 0})
reco = reco.rename(columns={"clicked": "relevance"})[["user_id", "item_id", "relevance"]]
out["Coverage"] = pe.catalog_coverage(train, reco, **kw)
out["Entropy"] = pe.distributional_coverage(train, reco, **kw)
out["Novelty"] = pe.novelty(train, reco, **kw)
for name, sim, extra in (("", "item_cooccurrence_count", {}),
                         ("(similarity=features)", "item_feature_vector", {"item_feature_df": features})):
    users = pe.user_diversity(train, reco, item_sim_measure=sim, col_sim="sim", **extra, **kw)
    out["ILD" + name] = dict(zip(users.user_id.astype(str), users.user_diversity))
    users = pe.user_serendipity(train, reco, item_sim_measure=sim, col_sim="sim", col_relevance="relevance",
                                **extra, **kw)
    out["Serendipity" + name] = dict(zip(users.user_id.astype(str), users.user_serendipity))
print(json.dumps(out))
"""


def _recommenders_python() -> str:
    return peer_python("SQLRANK_RECOMMENDERS_PYTHON", "Microsoft Recommenders needs pandas < 3: set "
                       "SQLRANK_RECOMMENDERS_PYTHON to a Python that has it (.ci/run makes one: pip install 'pandas<3' "
                       "numpy scikit-learn scipy; pip install --no-deps recommenders)")


@pytest.mark.parametrize("seed", [11, 12])
def test_equals_microsoft_recommenders_on_generated_data(tmp_path, seed):
    """Accuracy means (users in both truth and predictions, none without a click) and the measures
    beyond accuracy per user, against Recommenders' python_evaluation run on the same files."""
    python = _recommenders_python()
    rng = random.Random(seed)
    items = list(range(60))
    clicks, predictions, history, vectors = [], [], [], []
    for item in items:
        vectors.append((item, json.dumps([float(rng.random() < 0.4) for _ in range(6)] + [1.0])))
    for user in range(80):
        pool = rng.sample(items, 26)
        recommended, seen = pool[:rng.randint(4, 14)], pool[20:20 + rng.randint(1, 6)]
        scores = rng.sample(range(1000), len(recommended))  # no tied scores: Recommenders' order is pandas'
        predictions += [(user, item, score / 100) for item, score in zip(recommended, scores)]
        labelled = rng.sample(recommended, rng.randint(1, min(5, len(recommended)))) + [pool[19]]
        clicks += [(user, item, int(rng.random() < 0.5)) for item in labelled]
        if not any(c for u, i, c in clicks if u == user):
            clicks[-1] = (user, labelled[-1], 1)  # every user has a positive: both tools see the same users
        history += [(user, item) for item in seen]
    frames = {"clicks": pd.DataFrame(clicks, columns=["user_id", "item_id", "clicked"]),
              "predictions": pd.DataFrame(predictions, columns=["user_id", "item_id", "score"]),
              "history": pd.DataFrame(history, columns=["user_id", "item_id"]),
              "features": pd.DataFrame(vectors, columns=["item_id", "vector"])}
    for name, frame in frames.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    done = subprocess.run([python, "-c", RECOMMENDERS_SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout.splitlines()[-1])

    item_features = frames["features"].assign(features=[np.array(json.loads(v)) for v in frames["features"].vector])
    options = dict(qrels_columns={"relevance": "clicked"}, history=frames["history"],
                   item_features=item_features[["item_id", "features"]], preset="ms_recommenders")
    names = [f"{f}@{k}" for k in (3, 10) for f in ("P", "R", "nDCG", "MAP")]
    beyond = ["Coverage", "Entropy", "Novelty", "ILD", "Serendipity", "ILD(similarity=features)",
              "Serendipity(similarity=features)"]
    sliced = sqlrank.evaluate(frames["clicks"], frames["predictions"], names + beyond, slices=3, **options)
    summary = sqlrank.evaluate(frames["clicks"], frames["predictions"], names + beyond, **options)
    per_user = sqlrank.evaluate(frames["clicks"], frames["predictions"], beyond[3:], per_query=True, **options)
    for name, value in zip(names + beyond, sliced.value):  # in slices of users: the same means
        want = theirs[name]  # a mean, or per user (ILD, Serendipity): their mean
        want = sum(want.values()) / len(want) if isinstance(want, dict) else want
        assert math.isclose(value, want, rel_tol=1e-9, abs_tol=1e-12), name
    shown = dict(zip(names + beyond, summary.measure))
    means = summary.set_index("measure").value
    for name in names + beyond[:3]:
        assert math.isclose(means[shown[name]], theirs[name], rel_tol=1e-9, abs_tol=1e-12), (name, means[shown[name]])
    for name in beyond[3:]:
        ours = per_user[per_user.measure == name].set_index("user_id").value.dropna()
        ours.index = ours.index.astype(str)  # integer ids come back as integers; JSON keys are text
        assert set(ours.index) == set(theirs[name]), name  # ILD: users with two items or more
        for user, value in theirs[name].items():
            assert math.isclose(ours[user], value, rel_tol=1e-9, abs_tol=1e-12), (name, user, ours[user], value)
        assert math.isclose(means[shown[name]], sum(theirs[name].values()) / len(theirs[name]), rel_tol=1e-9)


# ---------------------------------------------------------------- AUC per user against scikit-learn

@pytest.mark.parametrize("seed", tiered([1, 2, 3]))
@pytest.mark.parametrize("rel", [1, 2])
def test_auc_per_query_equals_scikit_learn(seed, rel, tmp_path):
    """On generated data (ties, unjudged and negative labels, queries on one side only): sklearn's
    roc_auc_score of each query's retrieved judged documents (labels >= 0); GAUC, their mean weighted
    by the query's judged documents (with weight=positives, its relevant ones). With tie_break=expected
    pairs of equal score count 1/2, as sklearn counts them; with the default tie-break, sklearn is
    given trec_eval's order (score, then document id descending) as the score."""
    metrics = peer("sklearn.metrics")
    qrels, run = generate(seed)
    judged, ranked = to_dicts(qrels, run)
    expected, ordered, impressions, positives = {}, {}, {}, {}
    for query in judged.keys() & ranked.keys():
        docs = [d for d in ranked[query] if judged[query].get(d, -1) >= 0]
        labels = [int(judged[query][d] >= rel) for d in docs]
        if 0 < sum(labels) < len(labels):  # AUC needs both classes; sqlrank leaves the value empty
            impressions[query] = len(docs)  # GAUC's weight (Zhou et al. 2018): the user's impressions
            positives[query] = sum(labels)  # or the user's clicks (RecBole's GAUC)
            expected[query] = metrics.roc_auc_score(labels, [ranked[query][d] for d in docs])
            order = _trec_order(ranked[query])
            place = {d: i for i, d in enumerate(order)}
            ordered[query] = metrics.roc_auc_score(labels, [-place[d] for d in docs])
    assert len(expected) > 100 and any(expected[q] != ordered[q] for q in expected)  # ties that matter
    for tie_break, want in (("expected", expected), ("trec_eval", ordered)):
        got = sqlrank.evaluate(qrels, run, "AUC", rel=rel, tie_break=tie_break, per_query=True)
        values = got.dropna(subset=["value"]).set_index("query_id").value
        assert set(values.index) == set(want), tie_break
        for query, value in values.items():
            assert close(value, want[query], 1e-12), (tie_break, query, value, want[query])
        summary = sqlrank.evaluate(qrels, run, "AUC P@5 GAUC", rel=rel, tie_break=tie_break)
        assert close(summary.value[0], sum(want.values()) / len(want), 1e-12)
        weighted = sum(want[q] * impressions[q] for q in want) / sum(impressions.values())
        assert close(summary.value[2], weighted, 1e-12) and not close(weighted, summary.value[0], 1e-6)
        by_clicks = sqlrank.evaluate(qrels, run, "GAUC(weight=positives)", rel=rel, tie_break=tie_break).value[0]
        clicked = sum(want[q] * positives[q] for q in want) / sum(positives.values())
        assert close(by_clicks, clicked, 1e-12) and not close(clicked, weighted, 1e-6)
        # the mean is over the queries with both classes, and says so (P@5 is over every query)
        evaluated = len(judged.keys() & ranked.keys())
        assert summary.attrs["queries"] == dict(zip(summary.measure, [len(want), evaluated, len(want)]))
        gauc = sqlrank.evaluate(qrels, run, "GAUC", rel=rel, tie_break=tie_break, per_query=True)
        assert gauc.value.equals(got.value)  # per query, GAUC is the query's AUC
        assert list(got.attrs["queries"].values()) == [len(want)]  # counted from the per-query rows
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    text = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"),
                           "-m", "AUC", "--rel", str(rel)], capture_output=True, text=True)
    shown = "AUC" if rel == 1 else f"AUC(rel={rel})"
    assert f"queries: {evaluated}\n{shown}: mean over the {len(want)} of these that have a value\n" in text.stdout


def test_gauc_is_refused_where_its_weights_cannot_follow():
    qrels, run = generate(1)
    with pytest.raises(sqlrank.OptionError, match="GAUC: a mean that weighs each query is computed in one statement"):
        sqlrank.evaluate(qrels, run, "GAUC", slices=2)
    compared = sqlrank.compare(qrels, [run, run.assign(score=-run.score)], "AUC GAUC")  # GAUC: not tested
    gauc = compared[compared.measure == "GAUC"]
    assert gauc.p_value.isna().all() and gauc.wins.isna().all()
    assert close(gauc["mean"].iloc[1], sqlrank.evaluate(qrels, run.assign(score=-run.score), "GAUC").value[0])


def test_compare_shows_the_measures_over_all_users_per_run_untested(tmp_path):
    """Coverage and Gini (one value over all users) and GAUC (a weighted mean) have no per-query pairs
    to test: compare shows each run's value and the difference, leaves them out of the correction
    over comparisons and says so. Coverage by hand with pandas."""
    recsys = FIXTURES / "recsys"
    predictions = pd.read_parquet(recsys / "predictions.parquet")
    other = predictions.assign(score=predictions.score * (1 + (predictions.item_id.str[1:].astype(int) % 7) / 20))
    options = dict(qrels_columns={"relevance": "clicked"}, items=recsys / "items.csv")
    frame = sqlrank.compare(recsys / "clicks.csv", {"a": predictions, "b": other}, "NDCG@10 Coverage@10 Gini@10 GAUC",
                            correction="holm", **options)
    assert list(frame.measure) == ["NDCG@10"] * 2 + ["Coverage@10"] * 2 + ["Gini@10"] * 2 + ["GAUC"] * 2
    ndcg = frame[frame.measure == "NDCG@10"].iloc[1]
    assert ndcg.p_value == ndcg.p_value_adjusted  # Holm over the one tested comparison
    users = set(pd.read_csv(recsys / "clicks.csv").user_id)
    items = len(pd.read_csv(recsys / "items.csv"))
    for row, run in zip(frame[frame.measure == "Coverage@10"].itertuples(), (predictions, other)):
        top = run[run.user_id.isin(users)].sort_values(["user_id", "score", "item_id"], ascending=[True, False, False])
        assert close(row.mean, top.groupby("user_id").head(10).item_id.nunique() / items)
    untested = frame[frame.measure != "NDCG@10"]
    assert untested.p_value.isna().all() and untested.wins.isna().all()
    for measure in ("Coverage@10", "Gini@10", "GAUC"):
        a, b = frame[frame.measure == measure]["mean"]
        assert close(frame[frame.measure == measure].delta.iloc[1], b - a)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "compare", str(recsys / "clicks.csv"),
                           str(recsys / "predictions.parquet"), str(recsys / "predictions.parquet"), "-m", "Coverage@10",
                           "--qrels-columns", "relevance=clicked", "--items", str(recsys / "items.csv"), "--names", "a,b"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "not tested: Coverage@10 (one value per run" in done.stdout and "test: paired" not in done.stdout
    page = tmp_path / "report.html"
    sqlrank.report(recsys / "clicks.csv", {"a": predictions, "b": other}, "NDCG@10 Coverage@10", str(page), **options)
    text = page.read_text()
    assert "not tested: Coverage@10" in text and text.count("<svg") == 3  # nDCG@10: differences, distribution; curves

    # Per segment (users.csv's activity): each run's Coverage over the segment's users alone, by hand.
    activity = pd.read_csv(recsys / "users.csv")
    by = sqlrank.compare(recsys / "clicks.csv", {"a": predictions, "b": other}, "NDCG@10 Coverage@10 GAUC",
                         queries=recsys / "users.csv", by="activity", **options)
    for segment, members in activity.groupby("activity").user_id:
        rows = by[(by.segment == segment) & (by.measure == "Coverage@10")]
        assert list(rows.run) == ["a", "b"] and rows.num_queries.iloc[0] == len(users & set(members))
        for row, run in zip(rows.itertuples(), (predictions, other)):
            top = run[run.user_id.isin(users & set(members))].sort_values(
                ["user_id", "score", "item_id"], ascending=[True, False, False])
            assert close(row.mean, top.groupby("user_id").head(10).item_id.nunique() / items), (segment, row.run)
        assert len(by[(by.segment == segment) & (by.measure == "GAUC")]) == 2
    sqlrank.report(recsys / "clicks.csv", {"a": predictions, "b": other}, "NDCG@10 Coverage@10", str(page),
                   queries=recsys / "users.csv", by="activity", **options)
    assert page.read_text().count("Coverage@10") > text.count("Coverage@10")  # its rows per segment too


def test_the_no_relevant_warning_is_for_measures_that_score_those_queries(tmp_path):
    # u2 clicked nothing: P@1 scores it 0 (no_relevant=zero), so the warning says so; AUC has no value
    # for it (one class), which the summary says instead, so AUC alone gets no such warning.
    qrels, run = tmp_path / "qrels.csv", tmp_path / "run.csv"
    qrels.write_text("query_id,doc_id,relevance\nu1,a,1\nu1,b,0\nu2,a,0\nu2,b,0\n")
    run.write_text("query_id,doc_id,score\nu1,a,2\nu1,b,1\nu2,a,2\nu2,b,1\n")
    for measures, warned in (("AUC GAUC", False), ("AUC P@1", True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = sqlrank.evaluate(str(qrels), str(run), measures)
        said = any("have no document labelled >= 1" in str(w.message) for w in caught)
        assert said == warned, (measures, [str(w.message) for w in caught])
        assert frame.value[0] == 1.0 and frame.attrs["queries"]["AUC"] == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rel", [1, 2])
def test_global_auc_equals_scikit_learn_over_all_rows(seed, rel):
    """GlobalAUC pools the retrieved judged documents (labels >= 0) of every evaluated query (both
    sides) into one roc_auc_score, ties 1/2, under any tie-break; with depth=10, each query's top 10
    in trec_eval's order (score, then document id descending). One value, none per query."""
    metrics = peer("sklearn.metrics")
    qrels, run = generate(seed)
    judged, ranked = to_dicts(qrels, run)
    pooled = {None: ([], []), 10: ([], [])}
    for query in judged.keys() & ranked.keys():
        order = _trec_order(ranked[query])
        for cutoff, (labels, scores) in pooled.items():
            for doc in order[:cutoff]:
                if judged[query].get(doc, -1) >= 0:
                    labels.append(int(judged[query][doc] >= rel))
                    scores.append(ranked[query][doc])
    want = [metrics.roc_auc_score(*pooled[cutoff]) for cutoff in (None, 10)]
    for tie_break in ("trec_eval", "doc_id_asc", "expected"):
        got = sqlrank.evaluate(qrels, run, "GlobalAUC", rel=rel, tie_break=tie_break)
        assert close(got.value[0], want[0], 1e-12), tie_break
    assert close(sqlrank.evaluate(qrels, run, "GlobalAUC", rel=rel, depth=10).value[0], want[1], 1e-12)
    per_query = sqlrank.evaluate(qrels, run, "GlobalAUC", rel=rel, per_query=True)  # no value per query: the overall
    assert len(per_query) == 1 and per_query.query_id.isna().all() and close(per_query.value[0], want[0], 1e-12)


def test_global_auc_by_hand(tmp_path):
    # u1: a (clicked, 3), b (2); u2: c (3), d (clicked, 1). Pooled pairs (clicked, not): (a, b) 1,
    # (a, c) equal scores 1/2, (d, b) 0, (d, c) 0: GlobalAUC 1.5 / 4. Per user: AUC 1 and 0, mean 1/2.
    qrels, run = tmp_path / "qrels.csv", tmp_path / "run.csv"
    qrels.write_text("query_id,doc_id,relevance\nu1,a,1\nu1,b,0\nu2,c,0\nu2,d,1\n")
    run.write_text("query_id,doc_id,score\nu1,a,3\nu1,b,2\nu2,c,3\nu2,d,1\n")
    frame = sqlrank.evaluate(str(qrels), str(run), "GlobalAUC AUC ctr_auc(depth=1)")
    assert frame.value.tolist() == [0.375, 0.5, 0.5]  # the top 1 of each pools a and c: (a, c) 1/2


def test_gauc_weights_are_counts_that_can_be_asked_beside_it():
    """docs/recommenders.md: per user, GAUC's weights are NumRelRet + NumNonRelJudgedRet (impressions) or
    NumRelRet (weight=positives); weighting the per-user rows by them gives the summary's GAUC."""
    qrels, run = FIXTURES / "recsys" / "clicks.csv", FIXTURES / "recsys" / "predictions.parquet"
    measures, columns = "GAUC GAUC(weight=positives) NumRelRet NumNonRelJudgedRet", {"relevance": "clicked"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # users without a click
        per_user = sqlrank.evaluate(qrels, run, measures, per_query=True, qrels_columns=columns)
        summary = sqlrank.evaluate(qrels, run, measures, qrels_columns=columns).value
    rows = per_user.pivot(index="user_id", columns="measure", values="value").dropna(subset=["GAUC"])
    impressions = rows.NumRelRet + rows.NumNonRelJudgedRet
    assert close(summary[0], (rows.GAUC * impressions).sum() / impressions.sum(), 1e-12)
    assert close(summary[1], (rows["GAUC(weight=positives)"] * rows.NumRelRet).sum() / rows.NumRelRet.sum(), 1e-12)
    assert (round(summary[0], 4), summary[1]) == (0.7462, 0.75)


@pytest.mark.parametrize("engine", ["duckdb", "datafusion"])
def test_recommended_items_outside_the_catalog(engine):
    """A catalog (--items) without some recommended items: Gini's positions among the catalog's n
    items no longer hold (an error, never a number); coverage counts every distinct item of the top
    k over the catalog's size and passes 1 (as Microsoft Recommenders' catalog_coverage can), with a
    warning that says how many items are missing. Coverage by hand with pandas."""
    recsys = FIXTURES / "recsys"
    predictions = pd.read_parquet(recsys / "predictions.parquet")
    items = pd.read_csv(recsys / "items.csv")
    third = items.iloc[: len(items) // 3]
    options = dict(qrels_columns={"relevance": "clicked"}, items=third)
    if engine == "datafusion":
        peer("datafusion")  # skipped without DataFusion (a failure where CI requires the peers)
        options["engine"] = "datafusion"
    with pytest.raises(sqlrank.InputError, match=r"\d+ items of the run are not in the catalog .*; Gini@10 ranks "
                                                 r"every recommended item among the catalog's items: give every item "
                                                 r"with --items"):
        sqlrank.evaluate(recsys / "clicks.csv", recsys / "predictions.parquet", "Gini@10", **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = sqlrank.evaluate(recsys / "clicks.csv", recsys / "predictions.parquet", "Coverage@10", **options)
    outside = set(predictions.item_id) - set(third.item_id)
    assert any(str(w.message).startswith(f"{len(outside)} items of the run are not in the catalog") for w in caught)
    top = predictions.sort_values(["user_id", "score", "item_id"], ascending=[True, False, False])
    evaluated = set(pd.read_csv(recsys / "clicks.csv").user_id) & set(predictions.user_id)
    top10 = top[top.user_id.isin(evaluated)].groupby("user_id").head(10)
    assert close(got.value[0], top10.item_id.nunique() / len(third)) and got.value[0] > 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sqlrank.evaluate(recsys / "clicks.csv", recsys / "predictions.parquet", "Coverage@10 Gini@10",
                         **{**options, "items": items})
    assert not [w for w in caught if "catalog" in str(w.message)]


def test_float_ids_in_the_extra_inputs_are_refused():
    """As in the run and the judgments: a user or item id of a float type (1.0) would not match the
    run's 1 as text; the error names the input and the column."""
    clicks = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 12]})
    run = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [10, 13, 11, 12, 14], "score": [5, 4, 3, 2, 1]})
    history = pd.DataFrame({"user_id": [1, 2], "item_id": [13, 14]})
    assert list(sqlrank.evaluate(clicks, run, "P@1 R@2", history=history, remove_seen=True).value) == [1.0, 1.0]
    for column, role in (("user_id", "user id"), ("item_id", "item id")):
        with pytest.raises(sqlrank.InputError, match=rf"history DataFrame: column '{column}' \({role}\) is DOUBLE; "
                                                     r"ids must be text or integers"):
            sqlrank.evaluate(clicks, run, "P@1", history=history.astype({column: float}), remove_seen=True)
    with pytest.raises(sqlrank.InputError, match=r"item catalog DataFrame: column 'item_id' \(item id\) is DOUBLE"):
        sqlrank.evaluate(clicks, run, "Coverage@2", items=history[["item_id"]].astype(float))


ONE_VALUE = ["Coverage@5", "Gini@5", "Entropy@5", "Novelty@5", "GlobalAUC", "AvgPop@5"]


def _one_value_inputs(seed: int) -> tuple:
    """Generated judgments and run (ties, unjudged and negative labels, users on one side only), a
    history of 3 interactions per user among half of the items, and a catalog of every item."""
    qrels, run = generate(seed)
    rng = random.Random(seed)
    items = sorted(set(run.doc_id) | {"never-recommended"})
    history = pd.DataFrame([(user, rng.choice(items[: len(items) // 2])) for user in sorted(set(run.query_id))
                            for _ in range(3)], columns=["query_id", "doc_id"])
    return qrels, run, history, items


def _one_value_formulas(judged: dict, ranked: dict, users: set, items: list, history: pd.DataFrame) -> dict:
    """The measures of ONE_VALUE over ``users`` in plain Python: their top 5s in trec_eval's order
    (score, then document id descending); RecBole's Gini over the catalog's n items, Recommenders'
    entropy (base 2) and novelty (an item without history adds 0), sklearn's roc_auc_score over
    the retrieved judged documents (labels >= 0), AvgPop the mean over users of their top 5's
    mean interactions."""
    metrics = peer("sklearn.metrics")
    popularity, k = history.doc_id.value_counts().to_dict(), 5
    order = {user: _trec_order(ranked[user]) for user in users}
    top = [doc for user in users for doc in order[user][:k]]
    counts = {doc: top.count(doc) for doc in set(top)}
    n, shares = len(items), [c / len(top) for c in counts.values()]
    ascending = sorted([0] * (n - len(counts)) + list(counts.values()))
    pooled = [(int(judged[user][doc] >= 1), ranked[user][doc]) for user in users for doc in order[user]
              if judged[user].get(doc, -1) >= 0]
    interactions = sum(popularity.values())
    return {
        "Coverage@5": len(counts) / n,
        "Gini@5": sum((2 * i - n - 1) * c for i, c in enumerate(ascending, 1)) / (n * len(top)),
        "Entropy@5": -sum(p * math.log2(p) for p in shares),
        "Novelty@5": sum(-math.log2(popularity[d] / interactions) if d in popularity else 0 for d in top) / len(top),
        "GlobalAUC": metrics.roc_auc_score(*zip(*pooled)),
        "AvgPop@5": sum(sum(popularity.get(d, 0) for d in order[u][:k]) / len(order[u][:k]) for u in users) / len(users),
    }


@pytest.mark.parametrize("seed", [4, 5])
def test_measures_over_all_users_per_segment_equal_their_formulas_over_its_users(seed):
    """With segments, each measure that is one value over all users (Coverage, Gini, Entropy,
    Novelty, GlobalAUC) is that value over the segment's users alone, and a per-user mean
    (AvgPop) the mean over them, from the evaluated users (both sides) of each segment
    (_one_value_formulas). The catalog and the items' popularity stay those of every user. A
    user in two segments, users in none, a segment without evaluated users."""
    qrels, run, history, items = _one_value_inputs(seed)
    judged, ranked = to_dicts(qrels, run)
    rng = random.Random(seed)
    users = sorted(judged.keys() | ranked.keys())
    segments = pd.DataFrame([(user, rng.choice("abc")) for user in users if rng.random() < 0.9]
                            + [(users[0], "a"), (users[0], "b"), ("not-a-user", "d")],
                            columns=["query_id", "segment"]).drop_duplicates()
    evaluated = judged.keys() & ranked.keys()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # queries on one side, segments without users
        frame = sqlrank.evaluate(qrels, run, ONE_VALUE, history=history, items=pd.DataFrame({"doc_id": items}),
                                 queries=segments, by="segment")
    groups = {None: evaluated} | {name: evaluated & set(rows.query_id) for name, rows in segments.groupby("segment")}
    assert set(frame.segment.dropna()) == {name for name, group in groups.items() if name and group}  # not "d"
    for name, group in groups.items():
        if not group:
            continue
        rows = frame[frame.segment.isna()] if name is None else frame[frame.segment == name]
        got = rows.set_index("measure").value
        assert rows.num_queries.iloc[0] == len(group)
        for measure, want in _one_value_formulas(judged, ranked, group, items, history).items():
            assert close(got[measure], want, 1e-9), (name, measure, got[measure], want)


@pytest.mark.parametrize("seed,slices", [(4, 3), (5, 7)])
def test_measures_over_all_users_in_slices_equal_their_formulas(seed, slices):
    """Evaluated in slices of users (for runs larger than memory), Coverage, Gini, Entropy and
    Novelty are still one value over every user's recommendations: each slice's items' counts are
    summed before them. Beside them a per-user mean (AvgPop) and a second ranking (Gini under
    another tie-break, which may reorder the top 5s); GlobalAUC's one ROC curve is refused."""
    qrels, run, history, items = _one_value_inputs(seed)
    judged, ranked = to_dicts(qrels, run)
    options = dict(history=history, items=pd.DataFrame({"doc_id": items}), slices=slices)
    measures = [name for name in ONE_VALUE if name != "GlobalAUC"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # queries on one side
        frame = sqlrank.evaluate(qrels, run, measures + ["Gini(tie_break=doc_id_asc)@5"], **options)
        per_user = sqlrank.evaluate(qrels, run, measures, per_query=True, **options)
    got = frame.set_index("measure").value
    for measure, want in _one_value_formulas(judged, ranked, judged.keys() & ranked.keys(), items, history).items():
        if measure in measures:
            assert close(got[measure], want, 1e-9), (measure, got[measure], want)
    doc_id_asc = {user: sorted(docs.items(), key=lambda pair: (-pair[1], pair[0])) for user, docs in ranked.items()}
    top = [doc for user in judged.keys() & doc_id_asc.keys() for doc, _ in doc_id_asc[user][:5]]
    counts = sorted([0] * (len(items) - len(set(top))) + [top.count(doc) for doc in set(top)])
    gini = sum((2 * i - len(items) - 1) * c for i, c in enumerate(counts, 1)) / (len(items) * len(top))
    assert close(got["Gini(tie_break=doc_id_asc)@5"], gini, 1e-9)
    coverage = per_user[per_user.measure == "Coverage@5"]  # one value over all users (query_id empty), none per user
    assert len(coverage) == 1 and coverage.query_id.isna().all() and close(coverage.value.iloc[0], got["Coverage@5"], 1e-12)
    assert close(per_user[per_user.measure == "AvgPop@5"].value.mean(), got["AvgPop@5"], 1e-12)
    with pytest.raises(sqlrank.OptionError, match="GlobalAUC: one ROC curve over the documents of every query is "
                                                  "computed in one statement; leave out slices="):
        sqlrank.evaluate(qrels, run, ["Coverage@5", "GlobalAUC"], **options)


def test_a_segment_of_users_without_recommendations_has_coverage_zero():
    """With missing_queries=zero, a segment whose users are judged but have no recommendation is
    evaluated: its Coverage is 0 (no item recommended), the measures undefined without any
    recommendation (Gini, Entropy, Novelty, GlobalAUC) have no value, where Coverage had none too."""
    qrels, run, history, items = _one_value_inputs(6)
    judged, ranked = to_dicts(qrels, run)
    unranked = sorted(judged.keys() - ranked.keys())
    assert unranked
    segments = pd.DataFrame({"query_id": unranked + sorted(ranked)[:5],
                             "segment": ["none"] * len(unranked) + ["some"] * 5})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # queries on one side
        frame = sqlrank.evaluate(qrels, run, ONE_VALUE, history=history, items=pd.DataFrame({"doc_id": items}),
                                 queries=segments, by="segment", missing_queries="zero")
    frame["family"] = frame.measure.str.extract(r"^(\w+)", expand=False)  # Coverage(missing_queries=zero)@5
    none = frame[frame.segment == "none"].set_index("family").value
    assert frame[frame.segment == "none"].num_queries.iloc[0] == len(unranked)
    assert none["Coverage"] == 0
    for family in ("Gini", "Entropy", "Novelty", "GlobalAUC"):
        assert math.isnan(none[family]), (family, none[family])
    assert frame[(frame.segment == "some") & (frame.family == "Coverage")].value.iloc[0] > 0


@pytest.mark.parametrize("seed", [6, 7])
def test_measures_over_all_users_per_run_stored_together_equal_their_formulas(seed):
    """Runs stored together (a run_id column): each run's one-value measures over its own
    recommendations (_one_value_formulas), where they were refused; Serendipity and ILD, which
    read the user's history by user id, equal each run evaluated alone."""
    qrels, run, history, items = _one_value_inputs(seed)
    rng = random.Random(seed)
    other = run.assign(score=[score + rng.choice((0, 0, 0.125, -0.25)) for score in run.score])
    stored = pd.concat([run.assign(run_id="a"), other.assign(run_id="b")], ignore_index=True)
    options = dict(history=history, items=pd.DataFrame({"doc_id": items}))
    similar = ["ILD@5", "Serendipity@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # queries on one side
        frame = sqlrank.evaluate(qrels, stored, ONE_VALUE + similar, **options)
        for run_id, rows in (("a", run), ("b", other)):
            judged, ranked = to_dicts(qrels, rows)
            got = frame[frame.run_id == run_id].set_index("measure").value
            want = _one_value_formulas(judged, ranked, judged.keys() & ranked.keys(), items, history)
            for measure in ONE_VALUE:
                assert close(got[measure], want[measure], 1e-9), (run_id, measure, got[measure], want[measure])
            alone = sqlrank.evaluate(qrels, rows, similar, **options).set_index("measure").value
            for measure in similar:
                assert close(got[measure], alone[measure], 1e-12), (run_id, measure)


def test_ild_of_a_user_without_recommendations_under_missing_queries_zero_as_recpack():
    """RecPack's own test (LienM/recpack, recpack/tests/test_metrics/test_diversity.py, test_ildK, with the X_true,
    X_pred and item_features fixtures of its conftest.py): users 0, 2 and 3 have test items, only 0 and 2 have
    recommendations; items 0, 2, 4 have feature 0 and 1, 3 feature 1. IntraListDiversityK(2) is 1/3: user 0's top 2
    (items 0, 2) 0, user 2's (4, 3) 1, user 3 without recommendations 0. sqlrank left user 3 out even with
    missing_queries=zero (1/2), and asked for a --history that ILD(similarity=features) does not read."""
    qrels = pd.DataFrame({"user_id": [0, 0, 2, 2, 2, 3], "item_id": [0, 2, 0, 1, 3, 1], "relevance": 1})
    run = pd.DataFrame({"user_id": [0, 0, 0, 2, 2, 2], "item_id": [0, 2, 3, 1, 3, 4],
                        "score": [0.3, 0.2, 0.1, 0.23, 0.3, 0.5]})
    features = pd.DataFrame({"item_id": [0, 1, 2, 3, 4], "category": ["0", "1", "0", "1", "0"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zero = sqlrank.evaluate(qrels, run, "ILD(similarity=features)@2", item_features=features,
                                missing_queries="zero")
        skip = sqlrank.evaluate(qrels, run, "ILD(similarity=features)@2", item_features=features)
    assert zero.value[0] == pytest.approx(1 / 3, abs=1e-12) and skip.value[0] == pytest.approx(1 / 2, abs=1e-12)


@pytest.mark.parametrize("categories, ils", [
    ([["a"], ["a"], ["a"]], 1.0),  # test_ils_identical_items
    ([["a"], ["b"], ["c"]], 0.0),  # test_ils_orthogonal_items
    ([["a"], ["a"], ["b"]], 1 / 3),  # test_ils_partial_overlap
    ([["a"]], 1.0),  # test_ils_single_item
    ([["a"], ["a"]], 1.0),  # test_ils_two_items_similar
    ([["a"], ["b"]], 0.0),  # test_ils_two_items_different
])
def test_ild_with_one_item_similar_is_one_minus_lenskit_ils(categories, ils):
    """LensKit's own tests (lenskit/lkpy, tests/eval/test_ils.py): a list's items with their 0/1 category vectors and
    intra_list_similarity; ILD(similarity=features, one_item=similar) is 1 - ILS, a one-item list's ILS being 1.
    Without one_item=similar a user with one item has no ILD (left out of the mean, Microsoft Recommenders)."""
    run = pd.DataFrame({"user_id": "u", "item_id": [f"i{n}" for n in range(len(categories))],
                        "score": [float(10 - n) for n in range(len(categories))]})
    qrels = pd.DataFrame({"user_id": ["u", "v"], "item_id": ["i0", "i0"], "relevance": 1})
    run = pd.concat([run, pd.DataFrame({"user_id": ["v"] * 2, "item_id": ["i0", "x"], "score": [2.0, 1.0]})])
    features = pd.DataFrame([(f"i{n}", c) for n, cats in enumerate(categories) for c in cats] + [("x", "z")],
                            columns=["item_id", "category"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sqlrank.evaluate(qrels, run, "ILD(similarity=features,one_item=similar) ILD(similarity=features)",
                               item_features=features, per_query=True)
    values = got.set_index(["user_id", "measure"]).value
    assert values["u", "ILD(similarity=features,one_item=similar)"] == pytest.approx(1 - ils, abs=1e-12)
    if len(categories) == 1:
        assert pd.isna(values.get(("u", "ILD(similarity=features)")))
    else:
        assert values["u", "ILD(similarity=features)"] == pytest.approx(1 - ils, abs=1e-12)


@pytest.mark.parametrize("lists, k, expected", [
    ([[0, 1, 2, 3], [2, 1, 0, 4], [1, 0, 2, 5]], 4, 0.25),  # PyG's test_personalization
    ([["1", "2", "C", "D"], ["4", "3", "m", "X"], ["7", "B", "t", "X"]], 4, 1 - (0 + 0 + 0.25) / 3),  # recmetrics'
])
def test_personalization_equals_pyg_and_recmetrics(lists, k, expected):
    """PyTorch Geometric's own test (pyg-team/pytorch_geometric, test/metrics/test_link_pred_metric.py,
    test_personalization: three users' top 4, 0.25) and recmetrics' (statisticianinstilettos/recmetrics,
    tests/test_metrics.py, test_personalization: 0.916 to two places), each user's list ranked as given."""
    run = pd.DataFrame([(f"u{u}", str(item), float(10 - r)) for u, items in enumerate(lists) for r, item in enumerate(items)],
                       columns=["query_id", "doc_id", "score"])
    qrels = run[["query_id", "doc_id"]].assign(relevance=1)
    got = sqlrank.evaluate(qrels, run, f"Personalization@{k}")
    assert got.value[0] == pytest.approx(expected, abs=1e-12)


def test_personalization_equals_the_mean_over_pairs_of_users_on_generated_lists():
    """On generated top lists (popular items shared often, some users with fewer than k items, one run of two stored
    together), the mean over every pair of users of 1 - |shared items| / k, counted in Python, per run; one user
    alone has no value; slices and segments are refused."""
    import itertools

    rng = np.random.default_rng(5)
    popularity = np.linspace(2, 0.1, 40) / np.linspace(2, 0.1, 40).sum()
    rows = []
    for run_id in ("a", "b"):
        for u in range(30):
            items = rng.choice(40, size=int(rng.integers(1, 9)), replace=False, p=popularity)
            rows += [(run_id, f"u{u}", f"i{i}", float(10 - r)) for r, i in enumerate(items)]
    runs = pd.DataFrame(rows, columns=["run_id", "query_id", "doc_id", "score"])
    qrels = runs[["query_id", "doc_id"]].drop_duplicates().assign(relevance=1)
    got = sqlrank.evaluate(qrels, runs, "Personalization@5 Personalization@3").set_index(["run_id", "measure"]).value
    for run_id, k in itertools.product(("a", "b"), (5, 3)):
        ranked = runs[runs.run_id == run_id].sort_values(["query_id", "score"], ascending=[True, False])
        tops = [set(group.doc_id[:k]) for _, group in ranked.groupby("query_id")]
        expected = np.mean([1 - len(a & b) / k for a, b in itertools.combinations(tops, 2)])
        assert got[run_id, f"Personalization@{k}"] == pytest.approx(expected, abs=1e-12)
    alone = runs[(runs.run_id == "a") & (runs.query_id == "u0")].drop(columns="run_id")
    assert pd.isna(sqlrank.evaluate(qrels, alone, "Personalization@5").value[0])
    one_run = runs[runs.run_id == "a"].drop(columns="run_id")
    with pytest.raises(sqlrank.OptionError, match="each user is compared with every other user"):
        sqlrank.evaluate(qrels, one_run, "Personalization@5", slices=2)
    segments = pd.DataFrame({"query_id": [f"u{u}" for u in range(30)], "market": ["x", "y"] * 15})
    with pytest.raises(sqlrank.OptionError, match="evaluate each segment alone"):
        sqlrank.evaluate(qrels, one_run, "Personalization@5", queries=segments, by="market")


@pytest.mark.parametrize("judged_users, expected", [([0, 0, 2, 2, 2], 12.5 / 2), ([0, 0, 2, 2, 2, 3], 15 / 3)])
def test_ips_hit_rate_equals_recpacks_own_tests(judged_users, expected):
    """RecPack's own tests (LienM/recpack, recpack/tests/test_metrics/test_ips.py, test_IPSHitRate and
    test_IPSHitRate_no_reco, with the X_true, X_true_unrecommended_user and X_pred fixtures of its conftest.py): the
    propensities fitted on the test interactions themselves (here the history), K = 2. User 3 has a test item and no
    recommendation: 0 in RecPack's mean, so missing_queries=zero."""
    items = [0, 2, 0, 1, 3, 1][:len(judged_users)]
    qrels = pd.DataFrame({"user_id": judged_users, "item_id": items, "relevance": 1})
    run = pd.DataFrame({"user_id": [0, 0, 0, 2, 2, 2], "item_id": [0, 2, 3, 1, 3, 4],
                        "score": [0.3, 0.2, 0.1, 0.23, 0.3, 0.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)
        got = sqlrank.evaluate(qrels, run, "IPSHitRate@2", history=qrels, missing_queries="zero")
    assert got.value[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_ips_hit_rate_equals_its_formula_on_generated_data(seed):
    """Per user, the sum over the relevant items of the top k of min(|history| / interactions of the item, ip_cap), an
    item without interactions 0, counted in Python on a generated history with popular and unseen items; graded labels
    with rel=2; the mean over the users both sides have."""
    rng = random.Random(seed)
    items = [f"i{n}" for n in range(30)]
    history = pd.DataFrame([(f"h{n}", rng.choice(items[:20] + items[:5] * 4)) for n in range(200)],
                           columns=["query_id", "doc_id"])
    qrels = pd.DataFrame([(f"u{u}", i, rng.choice((0, 1, 2))) for u in range(25) for i in rng.sample(items, 8)],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(f"u{u}", i, float(rng.randint(0, 5))) for u in range(25) for i in rng.sample(items, 12)],
                       columns=["query_id", "doc_id", "score"])
    counts = history.doc_id.value_counts().to_dict()
    labels = {(r.query_id, r.doc_id): r.relevance for r in qrels.itertuples()}
    for k, level, cap in ((5, 1, 10000.0), (10, 2, 10000.0), (10, 1, 12.0)):
        name = f"IPSHitRate({'rel=2,' if level == 2 else ''}{'ip_cap=12' if cap == 12 else ''})@{k}".replace(",)", ")")
        name = name.replace("()", "")
        got = sqlrank.evaluate(qrels, run, name, history=history, per_query=True, tie_break="doc_id_asc")
        values = got.set_index("query_id").value
        for user, rows in run.groupby("query_id"):
            top = rows.sort_values(["score", "doc_id"], ascending=[False, True]).doc_id[:k]
            want = sum(min(len(history) / counts[d], cap) for d in top
                       if labels.get((user, d), 0) >= level and counts.get(d, 0) > 0)
            assert values[user] == pytest.approx(want, abs=1e-9), (name, user)
        assert (values > 0).sum() >= 10
