"""``optimize=``: a fusion's weights or parameter chosen on judgments, by ranx's grid (optimize_fusion): every setting
fused in one statement, every fused run evaluated in one call (runs stored together), the best setting the last
of those with the highest mean (ranx keeps a later setting that equals the best)."""
from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

import numpy as np
import pandas as pd

from ..errors import OptionError
from .output import finished
from .statement import Runs, fusion_sql
from .methods import Fusion, parse_fusion

WEIGHT_STEP = 0.1
# ranx's grids: (parameter, low, high, step); whole numbers where step is an int
GRIDS = {"rrf": ("k", 10, 100, 10), "gmnz": ("gamma", 0.01, 1.0, 0.01), "logn_isr": ("sigma", 0.01, 1.0, 0.01),
         "rbc": ("phi", 0.01, 1.0, 0.01), "probfuse": ("n_segments", 1, 100, 1), "slidefuse": ("w", 1, 100, 1)}
SAME = 1e-12  # means closer than this are the same value: the later setting is kept, as ranx keeps it


def grid_values(low: float, high: float, step: float) -> list:
    """ranx's values from low to high: np.arange rounded to the step's decimals (floats), or range (whole numbers)."""
    if isinstance(step, int):
        return list(range(low, high + 1, step))
    digits = str(step)[::-1].find(".")
    return [round(float(x), digits) for x in np.arange(low, high + step, step)]


def weight_grid(runs: int, step: float = WEIGHT_STEP) -> list[tuple[float, ...]]:
    """ranx's weights: every tuple of multiples of ``step`` in [0, 1], one per run, whose float sum is 1.0."""
    values = grid_values(0, 1, step)
    return [seq for seq in product(values, repeat=runs) if sum(seq) == 1.0]


def settings(base: Fusion, runs: int) -> list[Fusion]:
    """The grid of ``base``'s method: its weights (the weighted methods) or its one parameter."""
    method = base.method
    if method.weighted:
        return [replace(base, weights=weights) for weights in weight_grid(runs)]
    if method.name not in GRIDS:
        trained = " (it is trained on the judgments as it fuses)" if method.trained else ""
        raise OptionError(f"{method.name} has no weights or parameter to choose{trained}; optimize= is for "
                          f"{', '.join(sorted({*GRIDS, 'wsum', 'wmnz', 'mixed', 'w_bordafuse', 'w_condorcet'}))}")
    name, low, high, step = GRIDS[method.name]
    return [replace(base, params={**base.params, name: value}) for value in grid_values(low, high, step)]


def optimized(read: Runs, spec: tuple, qrels: Any, qrels_sql: str, measure: str, tie_break: str, depth: int | None,
              conventions: dict, con, qrels_options: tuple) -> pd.DataFrame:
    """The fused run of the best setting on ``measure`` (one measure, with ``conventions``), what was chosen in
    attrs["optimized"], every setting's mean in attrs["trials"]."""
    from ..evaluation import evaluate_result

    method, params, norm, weights = spec
    if weights is not None:
        raise OptionError("optimize= chooses the weights: leave weights out")
    base = _base(method, params, norm, len(read.sql))
    grid = settings(base, len(read.sql))
    sql = fusion_sql(read, grid, tie_break, depth, qrels_sql if base.method.trained else None)
    frame = con.execute(sql).df() if len(grid) > 1 else con.execute(sql).df().assign(setting=1)
    stored = frame.assign(run_id=frame.setting.astype(str))[["run_id", "query_id", "doc_id", "score"]]
    qrels_format, qrels_columns = qrels_options
    result = evaluate_result(qrels, stored, measure, connection=con, qrels_format=qrels_format,
                             qrels_columns=qrels_columns, **conventions)
    values = _means(result.frame, len(grid))
    best = max(values)
    chosen = max(i for i, v in enumerate(values) if v >= best - SAME)
    fused = frame[frame.setting == chosen + 1].drop(columns="setting")
    out = finished(fused, read, grid[chosen], sql)
    out.attrs["optimized"] = _chosen(grid[chosen])
    out.attrs["trials"] = pd.DataFrame({"setting": [_chosen(f) for f in grid], measure: values})
    return out


def _base(method: str, params: dict | None, norm: str | None, runs: int) -> Fusion:
    """The method with its grid's parameter (or weights) still to choose: parsed with placeholders where needed."""
    from .methods import method_named, SPEC

    found = SPEC.match(method) if isinstance(method, str) else None
    spec = method_named(found.group(1)) if found else None
    placeholder = dict(params or {})
    if spec is not None and spec.name in GRIDS:
        placeholder.setdefault(GRIDS[spec.name][0], GRIDS[spec.name][1])
    weights = (1.0 / runs,) * runs if spec is not None and spec.weighted else None
    return parse_fusion(method, placeholder, norm, weights, runs)


def _means(summary: pd.DataFrame, settings_count: int) -> list[float]:
    values = dict(zip(summary.run_id.astype(str), summary.value.astype(float)))
    return [values.get(str(i + 1), 0.0) for i in range(settings_count)]


def _chosen(fusion: Fusion) -> dict:
    return {"weights": list(fusion.weights)} if fusion.method.weighted else dict(fusion.params)
