"""The fused rows as sqlrank gives them (pandas types, whole-number query ids where the runs' are), in the kind the runs
came in (a DataFrame, a Polars frame, a dict {query: {doc: score}}), and as
the text or bytes of a run file: TREC (query Q0 doc rank score tag), CSV, TSV or Parquet."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import InputError
from ..evaluation import integer_ids
from ..inputs.locate import is_nested_dict
from ..results.rows_file import require_trec_ids, table_file

COLUMNS = ["query_id", "doc_id", "score", "rank"]


def in_kind(frame: pd.DataFrame, runs: Any) -> Any:
    """``frame`` as the runs were given: dicts of dicts (pytrec_eval's, ranx's) as one, Polars frames as one, else
    the pandas DataFrame (files, tables, pandas frames)."""
    objects = list(runs.values()) if isinstance(runs, dict) and not is_nested_dict(runs) else \
        list(runs) if isinstance(runs, (list, tuple)) else [runs]
    if objects and all(is_nested_dict(obj) for obj in objects):
        fused: dict = {}
        for query, doc, score in zip(frame.query_id.astype(str), frame.doc_id, frame.score):
            fused.setdefault(query, {})[doc] = float(score)
        return fused
    if objects and all(type(obj).__module__.split(".")[0] == "polars" for obj in objects):
        import polars as pl

        return pl.from_pandas(frame)
    return frame


def run_output(frame: pd.DataFrame, format: str, tag: str = "sqlrank") -> str | bytes:
    """The fused run as a TREC run (its scores printed exactly, repr), CSV or TSV text, or Parquet bytes."""
    if format == "trec":
        require_trec_ids(frame, "a TREC run")
        return "".join(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n"
                       for q, d, r, s in zip(frame.query_id, frame.doc_id, frame["rank"], frame.score))
    return table_file(frame, format)


def finished(frame: pd.DataFrame, read: Any, fusion: Any, sql: str) -> pd.DataFrame:
    """The fused rows with pandas types, their query ids whole numbers where every run's are, and what made them."""
    if frame.empty:
        raise InputError("the fused run is empty: the runs rank no document")
    frame = frame[COLUMNS].astype({"query_id": str, "doc_id": str, "score": "float64", "rank": "int64"})
    if read.integer_ids:
        frame = integer_ids(frame)
    frame = frame.reset_index(drop=True)
    frame.attrs.update(sql=sql, runs=list(read.names), fusion=fusion.describe())
    return frame
