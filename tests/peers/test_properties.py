"""Property tests: on generated qrels and runs (ties, ids repeated across queries, unicode and
white space in ids, queries on one side only, all-zero and negative labels, huge and tiny
scores, +-inf), sqlrank gives the values of the pure-Python model in tests/support/model.py, for every
measure the model has under every convention combination hypothesis draws.

SQLRANK_PROPERTY_EXAMPLES sets how many cases (default 1000; CI runs the default)."""
from __future__ import annotations

import math
import os

import duckdb
import pandas as pd
import pytest

import sqlrank
from support import model
from conftest import close, peer

pytestmark = pytest.mark.slow  # a property search over generated inputs (about 70 s)

hypothesis = peer("hypothesis")
st = hypothesis.strategies

EXAMPLES = int(os.environ.get("SQLRANK_PROPERTY_EXAMPLES", "1000"))
IDS = st.text(alphabet=st.sampled_from(list("ab01 \tZé中-/'\"")), min_size=1, max_size=3)
SCORES = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, -1.0]),
                   st.sampled_from([1e300, -1e300, 1e-300, -1e-300, math.inf, -math.inf, 5e-324]),
                   st.floats(min_value=-10, max_value=10, allow_nan=False, width=32))
LABELS = st.sampled_from([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4])


@st.composite
def data(draw):
    queries = draw(st.lists(IDS, min_size=1, max_size=4, unique=True))
    qrels, run = {}, {}
    for q in queries:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            docs = draw(st.lists(IDS, min_size=1, max_size=6, unique=True))
            all_zero = draw(st.booleans()) and draw(st.booleans())
            qrels[q] = {d: 0 if all_zero else draw(LABELS) for d in docs}
        if side != "qrels":
            pool = list(qrels.get(q, {})) + draw(st.lists(IDS, min_size=1, max_size=6))
            docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8, unique=True))
            run[q] = {d: draw(SCORES) for d in docs}
    if not qrels or not run or not set(qrels) & set(run):
        first = queries[0]
        qrels.setdefault(first, {"d": 1})
        run.setdefault(first, {"d": 1.0})
    return qrels, run


CONVENTIONS = st.fixed_dictionaries({
    "tie_break": st.sampled_from(["trec_eval", "doc_id_asc"]),
    "rel": st.sampled_from([0, 1, 2]),
    "missing_queries": st.sampled_from(["skip", "zero"]),
    "judged_only": st.booleans(),
    "depth": st.sampled_from([None, None, 1, 3]),
    "gain": st.sampled_from(["linear", "exponential", {0: 0.5, 1: 3.0, 2: 9.0}]),
    "discount": st.sampled_from(["log", "jarvelin"]),
    "log_base": st.sampled_from([2, math.e, 10]),
    "ideal": st.sampled_from(["qrels", "run", "perfect"]),
    "ap_denominator": st.sampled_from(["num_rel", "retrieved_relevant", "min_num_rel_cutoff"]),
})
MEASURES = [(f, k) for f in ("P", "R", "Success", "relative_P", "AP", "RR", "nDCG", "DCG", "CG", "Unj")
            for k in (1, 3)] + [(f, None) for f in ("AP", "RR", "Rprec", "nDCG", "DCG", "CG", "Bpref", "NumRet",
                                                    "NumRel", "NumRelRet", "SetP", "SetR")]


def _frames(qrels: dict, run: dict):
    q = pd.DataFrame([(qid, d, label) for qid, docs in qrels.items() for d, label in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame([(qid, d, score) for qid, docs in run.items() for d, score in docs.items()],
                     columns=["query_id", "doc_id", "score"])
    return q, r


@pytest.fixture(scope="module")
def connection():
    con = duckdb.connect(config={"threads": 1})
    yield con
    con.close()


@hypothesis.settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(data(), CONVENTIONS)
def test_sqlrank_equals_the_model(connection, case, conventions):
    qrels, run = case
    names = [f"{f}@{k}" if k else f for f, k in MEASURES]
    q, r = _frames(qrels, run)
    frame = sqlrank.evaluate(q, r, names, per_query=True, connection=connection, **conventions)
    per_query = {query: list(rows.value) for query, rows in frame.groupby("query_id", sort=False)}
    assert all(len(values) == len(MEASURES) for values in per_query.values())  # in the order asked
    for position, (family, k) in enumerate(MEASURES):
        expected_values = model.evaluate(qrels, run, family, k, conventions)
        assert set(expected_values) == set(per_query), (family, k)
        for query, expected in expected_values.items():
            actual = per_query[query][position]
            assert close(actual, expected, 1e-12, rel=1e-12), \
                (family, k, query, actual, expected, conventions, qrels, run)
