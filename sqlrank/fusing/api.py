"""Rank fusion (``sqlrank.fuse``, ``sqlrank fuse``): several runs of the same queries fused into one by one statement
(fusing/statement.py), on DuckDB or another engine (fusing/engine.py). Every method and normalisation of ranx, their
formulas ranx's (fusing/methods.py); the trained methods estimate their probabilities from judgments in the same
statement; ``optimize=`` chooses parameters or weights on judgments by ranx's grid (fusing/optimize.py)."""
from __future__ import annotations

from typing import Any, Sequence

from ..errors import OptionError
from .engine import fused_frame
from .output import in_kind
from .statement import check_ranking, render_fusion

__all__ = ["fuse", "render_fusion"]
RESOURCES = ("engine", "dsn", "spark", "datafusion", "sqlite", "connection", "memory_limit", "threads", "temp_directory",
             "progress")


def fuse(runs: Any, method: str = "rrf", norm: str | None = "min-max", weights: Sequence[float] | None = None,
         params: dict | None = None, qrels: Any = None, optimize: str | None = None, tie_break: str = "trec_eval",
         depth: int | None = None, run_format: str | None = None, run_columns: dict | None = None,
         qrels_format: str | None = None, qrels_columns: dict | None = None, **options: Any):
    """The runs fused into one: a DataFrame query_id, doc_id, score, rank per query by fused score (a dict
    {query: {doc: score}} where the runs are such dicts). ``runs``: two or more (a list, or a dict {name: run}), or one
    table of runs stored together (run_id). ``method`` and ``norm`` are ranx's names (``"rrf(k=20)"``, or params=
    {"k": 20}); ``weights``: one per run, in their order, for the weighted methods. ``qrels``: the judgments a trained
    method (posfuse, probfuse, segfuse, slidefuse, mapfuse, bayesfuse) estimates from. ``optimize="nDCG@10"``: the
    parameters or weights chosen by ranx's grid on ``qrels`` (with the measure's conventions: preset=, ...); what was
    chosen and every trial in ``frame.attrs``. ``depth``: each query's top ``depth``. ``engine=``, ``dsn=``, ...: the
    statement runs in another engine, as evaluate's."""
    resources = {k: options.pop(k) for k in list(options) if k in RESOURCES}
    if options and optimize is None:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of fuse (a measure's conventions are for optimize=)")
    check_ranking(tie_break, depth)
    frame = fused_frame(runs, (method, params, norm, weights), qrels, optimize, tie_break, depth,
                        (run_format, run_columns, qrels_format, qrels_columns), options, resources)
    return in_kind(frame, runs)
