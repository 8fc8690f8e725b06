"""Rows of documents (a pool, a fused run) as the bytes or text of a file: CSV or TSV with every number printed so that
it reads back exactly, Parquet; and the check that their ids can be written as TREC text at all."""
from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING

from ..errors import OptionError

if TYPE_CHECKING:
    import pandas as pd


def table_file(frame: "pd.DataFrame", format: str) -> str | bytes:
    """``frame`` as CSV or TSV text (floats as repr: exact), or as Parquet bytes (any other ``format``)."""
    if format in ("csv", "tsv"):
        return frame.to_csv(index=False, sep="," if format == "csv" else "\t", lineterminator="\n",
                            float_format=lambda v: repr(float(v)))
    plain = frame.copy(deep=False)
    plain.attrs = {}  # what made the rows (statements, trials, tables) is no part of the file pandas writes them to
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "rows.parquet")
        plain.to_parquet(path, index=False)
        with open(path, "rb") as handle:
            return handle.read()


def require_trec_ids(frame: "pd.DataFrame", what: str) -> None:
    """TREC text splits its fields at white space: an id holding some (or none at all) would not read back, in sqlrank
    or trec_eval. ``what``: the file, "TREC qrels" or "a TREC run"."""
    for column, noun in (("query_id", "query"), ("doc_id", "document")):
        odd = frame[column].astype(str).map(lambda text: not text or any(ch.isspace() for ch in text))
        if odd.any():
            raise OptionError(f"the {noun} id {frame[column][odd].iloc[0]!r} holds white space (or is empty), which "
                              f"{what} cannot hold: no TREC reader would read it back; write it as CSV, TSV or Parquet "
                              f"(-o FILE.csv, -f csv)")
