"""sqlrank: ranking evaluation as readable SQL, run in DuckDB where the data lives.

>>> import sqlrank
>>> sqlrank.evaluate("qrels.txt", "run.parquet", "nDCG@10 AP P@10")   # doctest: +SKIP
"""
from __future__ import annotations

import warnings as _warnings
from typing import Any

__version__ = "0.1.0"

from .conventions import Conventions  # noqa: E402
from .errors import ConventionError, InputError, MeasureError, OptionError, SqlrankError  # noqa: E402
from .measures import Measure, parse_measures  # noqa: E402

__all__ = [
    "evaluate", "render", "parse_measures", "Measure", "Conventions",
    "SqlrankError", "InputError", "MeasureError", "ConventionError", "OptionError", "SqlrankWarning",
]


class SqlrankWarning(UserWarning):
    """Something that does not stop an evaluation but may change how to read it."""


def evaluate(qrels: Any, run: Any, measures: Any, per_query: bool = False, **options: Any):
    """Evaluate a run against qrels and return a pandas DataFrame.

    qrels, run: a file path or glob (TREC text, CSV/TSV with a header, Parquet; .gz), a pandas
        DataFrame, a DuckDB relation, or a table name in ``connection``.
    measures: names such as ``"nDCG@10 AP P@10"``, ``["ndcg_cut.10", "map"]`` or Measure objects.
    per_query: columns ``query_id, measure, value`` instead of ``measure, value``.
    options: ``connection``, ``qrels_format``/``run_format`` (trec, csv, tsv, parquet),
        ``qrels_columns``/``run_columns`` (e.g. ``{"query_id": "user_id"}``), and conventions
        (``rel``, ``missing_queries``, ``judged_only``, ``depth``, ...). Engine options for a
        private connection: ``memory_limit`` (e.g. "4GB"; larger work spills to disk),
        ``temp_directory`` (where it spills), ``threads``, ``progress`` (DuckDB's progress bar);
        ``slices=N`` evaluates the queries in N groups, one statement each, for runs far larger
        than memory.

    ``frame.attrs["sql"]`` holds the statement, reading your files (sqlrank runs it on the copy of
    each file it read and validated once); ``frame.attrs["conventions"]`` the conventions.
    """
    from .engine import evaluate_result

    result = evaluate_result(qrels, run, measures, per_query, **options)
    for message in result.warnings:
        _warnings.warn(message, SqlrankWarning, stacklevel=2)
    frame = result.frame
    frame.attrs["sql"] = result.sql  # with per_query=True it also returns the summary rows (query_id NULL)
    frame.attrs["conventions"] = result.conventions.describe()
    return frame


def render(qrels: Any, run: Any, measures: Any, per_query: bool = False, **options: Any) -> str:
    """The SQL statement of this evaluation (inputs are validated). With per_query=True it returns
    ``query_id, measure, value`` rows ordered by query; otherwise ``measure, value`` rows."""
    from .engine import session_options, plan, session

    engine = session_options(options)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        output = "per_query" if per_query else "summary"
        return plan(qrels, run, measures, output, con, registry, **options).text
