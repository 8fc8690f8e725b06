"""sqlrank agree: Cohen's kappa (unweighted, linear, quadratic), the confusion matrix and the observed
agreement of two sets of judgments equal scikit-learn's cohen_kappa_score and confusion_matrix on the
same pairs (the documents both judged), overall and per query, with graded and negative labels, labels
thresholded with binary=, and documents only one side judged."""
from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import close, peer
from support.generate import generate


@pytest.fixture(scope="module")
def judgments():
    """Two assessors of the same queries: B changes a quarter of A's labels (by a grade, or anywhere),
    misses some of A's documents and judges some A did not."""
    qrels, _ = generate(11, n_queries=30)
    rng = np.random.default_rng(5)
    a = qrels.sample(frac=0.9, random_state=1).reset_index(drop=True)
    b = qrels.sample(frac=0.85, random_state=2).reset_index(drop=True)
    changed = rng.random(len(b)) < 0.25
    b.loc[changed, "relevance"] = np.clip(b.loc[changed, "relevance"] + rng.choice([-1, 1, 2], changed.sum()), -2, 4)
    extra = pd.DataFrame({"query_id": b.query_id.iloc[:20], "doc_id": [f"new{i}" for i in range(20)],
                          "relevance": rng.integers(0, 3, 20)})
    return a, pd.concat([b, extra], ignore_index=True)


def _pairs(a, b, binary=None):
    both = a.merge(b, on=["query_id", "doc_id"], suffixes=("_a", "_b"))
    if binary is not None:
        both[["relevance_a", "relevance_b"]] = (both[["relevance_a", "relevance_b"]] >= binary).astype(int)
    return both


def _sklearn_kappa(x, y, weights):
    metrics = peer("sklearn.metrics")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a query with one label everywhere: NaN, with a warning
        return metrics.cohen_kappa_score(x, y, weights=weights)


def _same(got, expected):
    return (math.isnan(got) and math.isnan(expected)) or close(got, expected)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("binary", [None, 1, 2])
def test_kappa_and_the_confusion_matrix_equal_scikit_learn(judgments, weights, binary):
    metrics = peer("sklearn.metrics")
    a, b = judgments
    both = _pairs(a, b, binary)
    got = sqlrank.agree(a, b, binary=binary, weights=weights)
    assert got.pairs == len(both)
    assert got.only_a == len(a) - len(both) and got.only_b == len(b) - len(both)
    assert close(got.kappa, _sklearn_kappa(both.relevance_a, both.relevance_b, weights))
    labels = sorted(set(both.relevance_a) | set(both.relevance_b))
    assert list(got.confusion.index) == labels == list(got.confusion.columns)
    assert (got.confusion.to_numpy() == metrics.confusion_matrix(both.relevance_a, both.relevance_b,
                                                                 labels=labels)).all()
    assert close(got.observed, float((both.relevance_a == both.relevance_b).mean()))
    for row in got.per_query.itertuples():
        mine = both[both.query_id == row.query_id]
        assert row.pairs == len(mine)
        if len(mine):
            assert _same(row.kappa, _sklearn_kappa(mine.relevance_a, mine.relevance_b, weights)), row.query_id
            assert close(row.observed, float((mine.relevance_a == mine.relevance_b).mean()))


def test_the_same_judgments_agree_fully_and_disjoint_ones_are_an_error(judgments):
    a, _ = judgments
    same = sqlrank.agree(a, a)
    assert same.kappa == 1.0 and same.observed == 1.0 and same.only_a == same.only_b == 0
    with pytest.raises(sqlrank.InputError, match="no document is judged on both sides"):
        sqlrank.agree(a, a.assign(doc_id="x" + a.doc_id))
    with pytest.raises(sqlrank.OptionError, match="weights='cubic' is not one of"):
        sqlrank.agree(a, a, weights="cubic")


def test_the_command_line_prints_the_agreement(tmp_path, judgments):
    a, b = judgments
    for name, frame in (("a.csv", a), ("b.csv", b)):
        frame.to_csv(tmp_path / name, index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "agree", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"),
                           "--weights", "linear", "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = sqlrank.agree(a, b, weights="linear")
    assert f"kappa (linear): {expected.kappa:.4f}" in done.stdout
    assert f"judged by both: {expected.pairs}; only the first: {expected.only_a}" in done.stdout
    assert "confusion (rows: first, columns: second):" in done.stdout and "query_id  pairs" in done.stdout


def test_the_output_never_replaces_either_input(tmp_path, judgments):
    a, b = judgments
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    before = (tmp_path / "b.csv").read_bytes()
    done = subprocess.run([sys.executable, "-m", "sqlrank", "agree", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"),
                           "-o", str(tmp_path / "b.csv")], capture_output=True, text=True)
    assert done.returncode == 1 and "writing the output there would replace it" in done.stderr
    assert (tmp_path / "b.csv").read_bytes() == before


@pytest.mark.parametrize("binary", [None, 0.5, 1.25])
def test_real_valued_labels_are_categories_or_thresholded(binary):
    """LLM grades averaged over prompts (0.3333, 1.6667): kappa over the values both sides use, or over the
    labels thresholded at a real binary=, as scikit-learn computes it from the same pairs."""
    metrics = peer("sklearn.metrics")
    rng = np.random.default_rng(8)
    docs = [(f"q{q}", f"d{d}") for q in range(12) for d in range(25)]
    grades = rng.integers(0, 4, (len(docs), 3))
    a = pd.DataFrame(docs, columns=["query_id", "doc_id"]).assign(relevance=grades[:, 0].astype(float))
    b = a.assign(relevance=np.round(grades.mean(axis=1), 4))
    got = sqlrank.agree(a, b, binary=binary, weights="linear")
    both = _pairs(a, b, binary)
    labels = sorted(set(both.relevance_a) | set(both.relevance_b))
    code = {label: k for k, label in enumerate(labels)}  # scikit-learn takes classes, not real numbers
    x, y = both.relevance_a.map(code), both.relevance_b.map(code)
    assert close(got.kappa, _sklearn_kappa(x, y, "linear"))
    assert list(got.confusion.index) == labels
    assert (got.confusion.to_numpy() == metrics.confusion_matrix(x, y, labels=range(len(labels)))).all()


@pytest.mark.parametrize("labels", [[0, 1], [2, 0, 1], [1], [3, -1, 0, 2]])
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_listed_labels_as_scikit_learn_lists_them(judgments, labels, weights):
    """labels=: scikit-learn's cohen_kappa_score(labels=...) and confusion_matrix(labels=...) leave out the pairs with
    another label on either side and index the matrix (the weights' positions) in the order given."""
    metrics = peer("sklearn.metrics")
    a, b = judgments
    both = _pairs(a, b)
    kept = both[both.relevance_a.isin(labels) & both.relevance_b.isin(labels)]
    got = sqlrank.agree(a, b, weights=weights, labels=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = metrics.cohen_kappa_score(both.relevance_a, both.relevance_b, weights=weights, labels=labels)
    assert got.pairs == len(kept) > 0
    assert _same(got.kappa, expected)
    assert list(got.confusion.index) == labels
    assert (got.confusion.to_numpy() == metrics.confusion_matrix(both.relevance_a, both.relevance_b,
                                                                 labels=labels)).all()


def test_listed_labels_on_the_command_line(judgments, tmp_path):
    a, b = judgments
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    a.to_csv(paths[0], index=False)
    b.to_csv(paths[1], index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "agree", *map(str, paths), "--labels", "0,1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"kappa (unweighted): {sqlrank.agree(a, b, labels=[0, 1]).kappa:.4f}" in done.stdout
    for bad in (["--labels", "0,,1"], ["--labels", "x"]):
        done = subprocess.run([sys.executable, "-m", "sqlrank", "agree", *map(str, paths), *bad], capture_output=True,
                              text=True)
        assert done.returncode != 0 and "labels" in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(sqlrank.OptionError, match="names a label twice"):
        sqlrank.agree(a, b, labels=[1, 1.0])
    with pytest.raises(sqlrank.InputError, match="with labels among 7"):
        sqlrank.agree(a, b, labels=[7])
