"""Where a fusion runs: DuckDB on the files and DataFrames, or another engine (PostgreSQL, ClickHouse, DataFusion,
SQLite, Spark) on copies of them or its own tables, as an evaluation does. Either gives the fused rows as a
pandas DataFrame; an optimisation fuses every setting of its grid in one statement and evaluates them together
(fusing/optimize.py)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import OptionError
from ..evaluation import engine_elsewhere
from ..inputs.load import load
from .statement import check_judgments, fusion_sql, read_runs
from .methods import parse_fusion
from .output import finished


def fused_frame(runs: Any, spec: tuple, qrels: Any, optimize: str | None, tie_break: str, depth: int | None,
                formats: tuple, conventions: dict, resources: dict) -> pd.DataFrame:
    """The fused run (query_id, doc_id, score, rank) of ``spec`` (method, params, norm, weights), on the engine that
    ``resources`` names; with optimize=, the best setting's, the trials in attrs."""
    method, params, norm, weights = spec
    if optimize is None:
        check_judgments(parse_fusion(method, params, norm, weights), qrels)
    elif qrels is None:
        raise OptionError(f"optimize={optimize!r} chooses on judgments: give qrels= (--qrels QRELS), the judgments of "
                          f"training queries")
    run_format, run_columns, qrels_format, qrels_columns = formats
    given = {k: resources.pop(k, None) for k in ("spark", "datafusion", "sqlite")}
    other = engine_elsewhere(resources.pop("engine", "duckdb"), resources.pop("dsn", None), given, resources)
    if other is not None:
        if optimize is not None:
            other.close()
            raise OptionError("optimize= runs on DuckDB: choose the weights there, then fuse with them on the engine")
        try:
            with session(None) as (con, registry):
                read = read_runs(runs, lambda obj: other.source(obj, "run", con, registry, run_format, run_columns),
                                 lambda sql: other.rows(sql).rows, other.dialect)
                qrels_sql = None if qrels is None else \
                    other.source(qrels, "qrels", con, registry, qrels_format, qrels_columns).source_sql(other.dialect)
                fusion = parse_fusion(method, params, norm, weights, len(read.sql))
                sql = fusion_sql(read, [fusion], tie_break, depth, qrels_sql, other.dialect)
                got = other.rows(sql)
        finally:
            other.close()
        return finished(pd.DataFrame.from_records(got.rows, columns=list(got.columns)), read, fusion, sql)
    engine = session_options(resources)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        read = read_runs(runs, lambda obj: load(obj, "run", con, registry, run_format, run_columns,
                                                ranks=tie_break == "input_rank"),
                         lambda sql: con.execute(sql).fetchall())
        qrels_sql = None if qrels is None else load(qrels, "qrels", con, registry, qrels_format, qrels_columns).sql()
        if optimize is not None:
            from .optimize import optimized

            return optimized(read, spec, qrels, qrels_sql, optimize, tie_break, depth, conventions, con,
                             (qrels_format, qrels_columns))
        fusion = parse_fusion(method, params, norm, weights, len(read.sql))
        sql = fusion_sql(read, [fusion], tie_break, depth, qrels_sql)
        return finished(con.execute(sql).df(), read, fusion, sql)
