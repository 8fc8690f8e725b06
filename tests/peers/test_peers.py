"""The other tools' own test cases (fixtures/peers/<tool>.json): each case's inputs and expected value
as the tool's test file states them, evaluated with the tool's preset (and the conventions the case
names), within the tolerance the tool's test uses. A case marked unsupported must still disagree or
fail: when sqlrank learns to reproduce it, the mark has to go."""
from __future__ import annotations

import ast
import json
import math
import operator
import warnings

import pandas as pd
import pytest

import sqlrank
from sqlrank.measures.names import named_alike
from conftest import FIXTURES

PEERS = FIXTURES / "peers"
PRESET = {"elasticsearch": "elasticsearch", "torchmetrics": "torchmetrics", "spark_mllib": "spark_mllib",
          "sklearn": "sklearn", "ranx": "ranx", "ir_measures": "ir_measures", "pytrec_eval": "pytrec_eval",
          "recbole": "recbole", "ms_recommenders": "ms_recommenders", "gdeval": "gdeval", "tf_ranking": "tf_ranking",
          "trectools": "trec_eval", "ntcireval": "trec_eval"}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv, ast.Pow: operator.pow}
_FUNCTIONS = {"log2": math.log2, "log10": math.log10, "log": math.log}


def number(text) -> float:
    """An expected value as the tool's test writes it: a number, or arithmetic of numbers and logarithms
    ('4 / 5', '3/log2(4)')."""
    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS \
                and len(node.args) == 1 and not node.keywords:
            return _FUNCTIONS[node.func.id](value(node.args[0]))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise ValueError(f"not arithmetic: {text!r}")
    return float(text) if not isinstance(text, str) else float(value(ast.parse(text, mode="eval").body))


def tables(case: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The case's judgments and run as tables: hits in rank order get descending scores; rows are
    (query, document, score) as listed. A case with a query is that query's value, else the mean."""
    qrels = [(q, d, label) for q, docs in case["judgments"].items() for d, label in docs.items()]
    if "hits" in case:
        run = [(q, d, float(len(docs) - i)) for q, docs in case["hits"].items() for i, d in enumerate(docs)]
    elif "rows" in case:  # rows as the test lists them, a document possibly more than once
        run = [(q, d, float(s)) for q, d, s in case["rows"]]
    else:
        run = [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()]
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]).astype({"relevance": "int64"}),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]).astype({"score": "float64"}))


def outcomes(tool: str, cases: list[dict]) -> list[tuple[bool, str]]:
    """Whether sqlrank gives each case's value, and what it gave: the cases on the same inputs, preset
    and conventions in one evaluation (each alone where that one fails, so that an error is its own)."""
    groups: dict = {}
    for position, case in enumerate(cases):
        key = json.dumps([case.get(k) for k in ("judgments", "run", "hits", "rows", "conventions", "preset", "queries")],
                         sort_keys=True)
        groups.setdefault(key, []).append(position)
    results: list = [None] * len(cases)
    for numbers in groups.values():
        try:
            values = evaluated(tool, [cases[n] for n in numbers])
        except sqlrank.SqlrankError:
            values = None
        for n in numbers:
            if values is None:
                try:
                    got = evaluated(tool, [cases[n]])[0]
                except sqlrank.SqlrankError as exc:
                    results[n] = (False, f"error: {exc}")
                    continue
            else:
                got = values[numbers.index(n)]
            if got is None:
                results[n] = (False, f"no value for query {cases[n].get('query')!r}")
            else:
                results[n] = (abs(got - number(cases[n]["expected"])) <= cases[n]["tolerance"], repr(got))
    return results


def evaluated(tool: str, cases: list[dict]) -> list[float | None]:
    """The values of cases that share their inputs, preset and conventions: each case's query, or the mean."""
    first = cases[0]
    qrels, run = tables(first)
    options = dict(first.get("conventions", {}), preset=first.get("preset", PRESET[tool]))
    if isinstance(options.get("gain"), dict):  # JSON names a gain map's labels as text
        options["gain"] = {number(label): value for label, value in options["gain"].items()}
    if "queries" in first:  # the queries the tool's request names, as a query table
        options["queries"] = pd.DataFrame({"query_id": first["queries"]})
    measures = list(dict.fromkeys(case["measure"] for case in cases))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = sqlrank.evaluate(qrels, run, measures, **options)
        per_query = sqlrank.evaluate(qrels, run, measures, per_query=True, **options) \
            if any("query" in case for case in cases) else None
    means = dict(zip(summary.measure, summary.value))  # rows named as asked: the first name of a measure asked twice
    shown = {case["measure"]: next((row for row in means if named_alike(case["measure"], row)), None) for case in cases}
    values = {} if per_query is None else {(r.query_id, r.measure): r.value for r in per_query.itertuples()}
    return [values.get((case["query"], shown[case["measure"]])) if "query" in case else means.get(shown[case["measure"]])
            for case in cases]


def suites():
    return sorted(PEERS.glob("*.json"))


@pytest.mark.parametrize("path", suites(), ids=[p.stem for p in suites()])
def test_peer_suite(path, capsys):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {"tool", "repository", "licence", "cases"} <= set(data), path
    agree, unsupported, wrong = 0, [], []
    for case, (ok, got) in zip(data["cases"], outcomes(path.stem, data["cases"])):
        assert {"test", "path", "measure", "judgments", "expected", "tolerance"} <= set(case), case
        if "unsupported" in case:
            assert not ok, f"{case['test']} now agrees ({got}): remove its 'unsupported' mark"
            unsupported.append(case["test"])
        elif ok:
            agree += 1
        else:
            wrong.append(f"{case['test']} ({case['measure']}): expected {case['expected']}, sqlrank {got}")
    with capsys.disabled():
        print(f"\n{data['tool']}: {len(data['cases'])} cases, {agree} agree, {len(unsupported)} unsupported"
              + "".join(f"\n  unsupported: {name}" for name in unsupported))
    assert not wrong, "\n".join(wrong)
