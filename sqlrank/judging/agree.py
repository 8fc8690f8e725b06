"""Agreement between two sets of judgments of the same queries (``sqlrank agree``): over the
documents both judged, Cohen's kappa (unweighted, or with linear or quadratic weights for grades),
the confusion matrix and the observed agreement, overall and per query, and how many documents only
one side judged. DuckDB pairs and counts the judgments (sql/agree.sql); kappa is computed here from
the counts, as scikit-learn's cohen_kappa_score computes it from its confusion matrix."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import InputError, OptionError
from ..inputs.load import load
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import render_template

WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True)
class Agreement:
    """``confusion``: labels of A as rows, of B as columns, documents both judged; ``per_query``: per
    query the documents both judged, those only one side judged, the observed agreement and kappa (over
    the labels that query's pairs have, as kappa of those pairs alone)."""

    kappa: float
    observed: float  # the share of documents both judged that have the same label on both sides
    pairs: int  # documents both judged
    only_a: int  # documents only A judged
    only_b: int
    confusion: pd.DataFrame
    per_query: pd.DataFrame
    weights: str | None
    binary: int | float | None


def kappa(confusion: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of a confusion matrix (rows: one rater's labels, columns: the other's, in the same
    order of labels); weights over the labels' positions: none (disagreement 1), linear (|i - j|) or
    quadratic ((i - j)^2). NaN where the expected disagreement is 0 (one label everywhere)."""
    total = confusion.sum()
    if total == 0:
        return math.nan
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / total
    i, j = np.indices(confusion.shape)
    weight = {None: (i != j).astype(float), "linear": np.abs(i - j).astype(float),
              "quadratic": ((i - j) ** 2).astype(float)}[weights]
    disagreement = (weight * expected).sum()
    return math.nan if disagreement == 0 else float(1 - (weight * confusion).sum() / disagreement)


def agree(qrels_a: Any, qrels_b: Any, binary: int | None = None, weights: str | None = None,
          qrels_format: str | None = None, qrels_columns: dict | None = None, labels: Any = None,
          **options: Any) -> Agreement:
    """The agreement of two sets of judgments (files, DataFrames or tables, read as any qrels are). ``labels``:
    only these (after ``binary``), in this order: a document either side gave another label is left out, as
    scikit-learn's cohen_kappa_score(labels=...) leaves it out."""
    listed = check_labels(labels)
    if weights not in WEIGHTS:
        raise OptionError(f"weights={weights!r} is not one of none, linear, quadratic")
    if binary is not None and (isinstance(binary, bool) or not isinstance(binary, (int, float))
                               or not math.isfinite(binary)):
        raise OptionError(f"binary={binary!r} must be a number: the lowest label that counts as relevant")
    engine = session_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of agree")
    with session(engine.pop("connection", None), **engine) as (con, registry):
        a = load(qrels_a, "qrels", con, registry, qrels_format, qrels_columns)
        b = load(qrels_b, "qrels", con, registry, qrels_format, qrels_columns)
        rows = con.execute(render_template(DUCKDB, "agree.sql", a_sql=a.sql(), b_sql=b.sql(), binary=binary)).df()
    return _agreement(rows, weights, binary, f"{a.label} and {b.label}", listed)


def check_labels(labels: Any) -> list | None:
    """The labels agreement is computed over, in their order: distinct numbers, at least one."""
    if labels is None:
        return None
    listed = [labels] if isinstance(labels, (int, float)) else list(labels) if isinstance(labels, (list, tuple)) else None
    if not listed or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) for x in listed):
        raise OptionError(f"labels={labels!r} must be a list of numbers (labels=[0, 1]; --labels 0,1)")
    values = _values(pd.Series(listed, dtype=float))
    if len(set(values)) != len(values):
        raise OptionError(f"labels={labels!r} names a label twice")
    return values


def _agreement(rows: pd.DataFrame, weights: str | None, binary: int | None, what: str,
               listed: list | None = None) -> Agreement:
    both = rows[rows.label_a.notna() & rows.label_b.notna()]
    if listed is not None:  # only pairs whose both labels are listed (scikit-learn's labels=)
        both = both[[a in listed and b in listed for a, b in zip(_values(both.label_a), _values(both.label_b))]]
        rows = pd.concat([rows[rows.label_a.isna() | rows.label_b.isna()], both])
    if both.empty:
        raise InputError(f"{what}: no document is judged on both sides" + (
            f" with labels among {', '.join(f'{x:g}' for x in listed)}" if listed is not None else
            "; ids are compared as exact strings"))
    labels = listed or sorted(set(_values(both.label_a)) | set(_values(both.label_b)))
    confusion = _matrix(both, labels)
    only = rows[rows.label_a.isna() | rows.label_b.isna()]
    per_query = []
    for query, group in rows.groupby("query_id", sort=True):
        paired = group[group.label_a.notna() & group.label_b.notna()]  # its own labels, as kappa of its pairs alone
        matrix = _matrix(paired, listed or sorted(set(_values(paired.label_a)) | set(_values(paired.label_b))))
        per_query.append({"query_id": query, "pairs": int(matrix.sum()),
                          "only_a": int(group.loc[group.label_b.isna(), "pairs"].sum()),
                          "only_b": int(group.loc[group.label_a.isna(), "pairs"].sum()),
                          "observed": float(np.trace(matrix) / matrix.sum()) if matrix.sum() else math.nan,
                          "kappa": kappa(matrix, weights)})
    return Agreement(kappa(confusion, weights), float(np.trace(confusion) / confusion.sum()), int(confusion.sum()),
                     int(only.loc[only.label_b.isna(), "pairs"].sum()), int(only.loc[only.label_a.isna(), "pairs"].sum()),
                     pd.DataFrame(confusion, index=pd.Index(labels, name="a"), columns=pd.Index(labels, name="b")),
                     pd.DataFrame(per_query), weights, binary)


def _values(labels: pd.Series) -> list:
    """Labels as the categories kappa compares: whole numbers as ints (2, not 2.0), real ones as they are (0.7)."""
    return [int(x) if float(x).is_integer() else float(x) for x in labels]


def _matrix(pairs: pd.DataFrame, labels: list) -> np.ndarray:
    at = {label: k for k, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for a, b, count in zip(_values(pairs.label_a), _values(pairs.label_b), pairs["pairs"]):
        matrix[at[a], at[b]] += int(count)
    return matrix


def agreement_text(result: Agreement, per_query: bool = False) -> str:
    """The agreement as the command line prints it."""
    weighting = result.weights or "unweighted"
    lines = [f"judged by both: {result.pairs}; only the first: {result.only_a}; only the second: {result.only_b}",
             f"kappa ({weighting}{', labels >= ' + str(result.binary) + ' as 1' if result.binary is not None else ''}): "
             + (f"{result.kappa:.4f}" if not math.isnan(result.kappa) else _undefined(result)),
             f"observed agreement: {result.observed:.4f}", "", "confusion (rows: first, columns: second):"]
    matrix = result.confusion
    cells = [["label", *(f"{c:g}" for c in matrix.columns)]] + [[f"{label:g}", *map(str, row)] for label, row in
                                                       zip(matrix.index, matrix.to_numpy())]
    widths = [max(len(row[k]) for row in cells) for k in range(len(cells[0]))]
    lines += ["  ".join(f"{cell:>{width}}" for cell, width in zip(row, widths)) for row in cells]
    if per_query:
        frame = result.per_query
        lines += ["", "query_id  pairs  only_a  only_b  observed   kappa"]
        lines += [f"{q:<8}  {p:>5}  {a:>6}  {b:>6}  {o:>8.4f}  {'undefined' if math.isnan(k) else f'{k:.4f}':>6}"
                  for q, p, a, b, o, k in
                  frame[["query_id", "pairs", "only_a", "only_b", "observed", "kappa"]].itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _undefined(result: Agreement) -> str:
    """Why kappa has no value: no document both judged, or chance agreement of 1 (both gave one label throughout)."""
    if not result.pairs:
        return "undefined (no document was judged by both)"
    return ("undefined (both sides gave every document they judged the same one label, so chance agreement is 1 "
            "and kappa = (observed - chance) / (1 - chance) divides by 0; the observed agreement below says how "
            "often they agree)")
