"""The C/W/L user models INST, INSQ, BPM and NERR (eq 8 to 11) equal cwl_eval (PyPI cwl-eval, the framework's own code) per query to
1e-9: its Ranking of each query's gains (label / max_rel; unjudged documents as missing, which cwl_eval counts
as 0), 1000 ranks, unit costs, expected utility per document. Generated graded labels (negative ones gain 0),
ties, unjudged documents, one-sided queries and a run longer than 1000 documents."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import peer
from support.generate import generate

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(31, n_queries=80)
    long = pd.DataFrame({"query_id": "long", "doc_id": [f"x{i}" for i in range(1200)],
                         "score": [1200.0 - i for i in range(1200)]})
    judged = pd.DataFrame({"query_id": "long", "doc_id": [f"x{i}" for i in range(0, 1200, 7)], "relevance": 2})
    return pd.concat([qrels, judged], ignore_index=True), pd.concat([run, long], ignore_index=True)


def gains_by_query(qrels: pd.DataFrame, run: pd.DataFrame, max_rel: float) -> dict[str, np.ndarray]:
    labels = {(q, d): r for q, d, r in qrels.itertuples(index=False)}
    out = {}
    for q, group in run.groupby("query_id"):
        if not any(key[0] == q for key in labels):
            continue
        docs = sorted(zip(group.doc_id, group.score), key=lambda x: x[0].encode(), reverse=True)
        order = [d for d, _ in sorted(docs, key=lambda x: -x[1])]
        out[q] = np.array([np.nan if (q, d) not in labels else max(labels[q, d], 0) / max_rel for d in order])
    return out


@pytest.mark.parametrize("name, make", [
    ("INST(max_rel=4)", lambda m: m.cwl_inst.INSTCWLMetric(1.0)),
    ("INST(T=3,max_rel=4)", lambda m: m.cwl_inst.INSTCWLMetric(3.0)),
    ("INST(T=0.5,max_rel=4)", lambda m: m.cwl_inst.INSTCWLMetric(0.5)),
    ("INSQ(max_rel=4)", lambda m: m.cwl_insq.INSQCWLMetric(1.0)),
    ("INSQ(T=2.5,max_rel=4)", lambda m: m.cwl_insq.INSQCWLMetric(2.5)),
    ("BPM(max_rel=4)", lambda m: m.cwl_bpm.BPMCWLMetric(1.0, 1000)),
    ("BPM(T=2,K=10,max_rel=4)", lambda m: m.cwl_bpm.BPMCWLMetric(2.0, 10)),
    ("BPM(T=0.75,K=3,max_rel=4)", lambda m: m.cwl_bpm.BPMCWLMetric(0.75, 3)),
    # Not (but nearly) ERR, ir_measures' spellings: cwl_eval's NERR-EQ8..11 (its TestCwlEval.test_measures names them)
    ("NERR8(max_rel=4)@10", lambda m: m.cwl_nerr.NERReq8CWLMetric(10)),
    ("NERR8(max_rel=4)@2000", lambda m: m.cwl_nerr.NERReq8CWLMetric(2000)),
    ("NERR9(max_rel=4)@5", lambda m: m.cwl_nerr.NERReq9CWLMetric(5)),
    ("NERR9(max_rel=4)@1000", lambda m: m.cwl_nerr.NERReq9CWLMetric(1000)),
    ("NERR10(max_rel=4)", lambda m: m.cwl_nerr.NERReq10CWLMetric(0.9)),
    ("NERR10(p=0.5,max_rel=4)", lambda m: m.cwl_nerr.NERReq10CWLMetric(0.5)),
    ("NERR11(max_rel=4)", lambda m: m.cwl_nerr.NERReq11CWLMetric(1.0)),
    ("NERR11(T=2.5,max_rel=4)", lambda m: m.cwl_nerr.NERReq11CWLMetric(2.5)),
])
def test_equals_cwl_eval(data, name, make):
    peer("cwl")
    import importlib

    measures = type("measures", (), {n: importlib.import_module(f"cwl.ruler.measures.{n}")
                                     for n in ("cwl_inst", "cwl_insq", "cwl_bpm", "cwl_nerr")})
    ranking = importlib.import_module("cwl.ruler.ranking")
    qrels, run = data
    frame = sqlrank.evaluate(qrels, run, name, per_query=True)
    gains = gains_by_query(qrels, run, 4)
    assert set(frame.query_id) == set(gains) and len(gains) > 60
    for row in frame.itertuples(index=False):
        g = gains[row.query_id]
        expected = make(measures).measure(ranking.Ranking(row.query_id, g, np.full(len(g), np.nan)))
        assert math.isclose(row.value, expected, rel_tol=0, abs_tol=TOLERANCE), (row, expected)


def test_labels_above_max_rel_are_refused(data):
    qrels, run = data
    with pytest.raises(sqlrank.InputError, match=r"above max_rel=1 of INSQ; give the highest label"):
        sqlrank.evaluate(qrels, run, "INSQ")
