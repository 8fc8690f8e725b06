"""Other summaries of the per-query values than their mean (``--weights FILE``, ``--aggregate``): a weighted
mean (each query's weight from a table of query_id and weight: its traffic, its importance), or the
median, the geometric mean (each value at least 1e-5, as trec_eval's gm_map), the minimum or the maximum.
Only measures whose summary is a plain mean over queries are summarised so; the others (GMAP's geometric
mean, a weighted GAUC, a value over the whole catalog) keep their own."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from ..engines.duckdb import session
from ..errors import InputError, OptionError
from ..inputs.load import load_table
from ..measures.family import GEOMETRIC_FLOOR
from ..measures.names import parse_measures
from ..measures.registry import FAMILIES
from ..results.formats import aligned_lines

AGGREGATES = ("mean", "median", "gmean", "min", "max")


def check_aggregate(aggregate: str, weighted: bool) -> None:
    if aggregate not in AGGREGATES:
        raise OptionError(f"aggregate={aggregate!r} is not one of {', '.join(AGGREGATES)}")
    if weighted and aggregate != "mean":
        raise OptionError(f"weights give weighted means; aggregate={aggregate} takes none (leave one out)")


def read_weights(obj: Any) -> pd.Series:
    """query_id -> weight from a CSV, TSV or Parquet file or a DataFrame with those two columns (a weight is
    a finite number >= 0; a query listed twice is an error), or from a dict {query_id: weight}."""
    import numpy as np
    import pandas as pd

    if isinstance(obj, dict):
        frame = pd.DataFrame({"query_id": [str(q) for q in obj], "weight": list(obj.values())})
        label = "weights"
    else:
        with session(None) as (con, registry):
            table = load_table(obj, "weights", con, registry, ("query_id", "weight"))
            frame = con.execute(f"SELECT CAST(query_id AS VARCHAR) AS query_id, TRY_CAST(weight AS DOUBLE) AS weight, "
                                f"CAST(weight AS VARCHAR) AS written FROM {table.reader}").df()
            label = table.label
        bad = frame[frame.weight.isna() & frame.written.notna()]
        if len(bad):
            raise InputError(f"{label}: weight {bad.written.iloc[0]!r} of query {bad.query_id.iloc[0]!r} is not a number")
        separated = frame[frame.written.str.contains("_", regex=False, na=False)]
        if len(separated):  # DuckDB's cast reads 1_0 as 10, as Python's int() does; a weight is a number as written
            raise InputError(f"{label}: weight {separated.written.iloc[0]!r} of query {separated.query_id.iloc[0]!r} "
                             f"holds a digit separator (_), which readers take differently (10 or 1 for 1_0); write "
                             f"the number without it")
    weights = pd.to_numeric(frame.weight, errors="coerce")
    wrong = frame[weights.isna() | ~np.isfinite(weights.fillna(0)) | (weights < 0)]
    if len(wrong):
        written = wrong.written.iloc[0] if "written" in wrong else _as_written(wrong.weight.iloc[0])
        raise InputError(f"{label}: the weight of query {wrong.query_id.iloc[0]!r} is {written}; weights are finite "
                         f"numbers >= 0")
    twice = frame.query_id[frame.query_id.duplicated()]
    if len(twice):
        raise InputError(f"{label}: query {twice.iloc[0]!r} has two weights; give each query one")
    return pd.Series(weights.to_numpy(dtype=float), index=frame.query_id.to_numpy(), name=label)


def _as_written(value: Any) -> str:
    """A weight of a dict as its user wrote it: -1, 0.5, 'x' (never np.float64(-1.0))."""
    import numpy as np

    if isinstance(value, (np.generic, float, int)) and not isinstance(value, bool):
        number = float(value)
        return str(int(number)) if number.is_integer() else repr(number)
    return repr(value)


def summarise(values: np.ndarray, aggregate: str = "mean", weights: np.ndarray | None = None) -> float:
    """One summary of per-query values."""
    import numpy as np

    if not len(values):
        return math.nan
    if weights is not None:  # weights_of's, scaled to a largest of 1: weights of 1e308 add up without overflowing
        total = weights.sum()
        return float(np.dot(values, weights) / total) if total > 0 else math.nan
    if aggregate == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(values, GEOMETRIC_FLOOR)))))
    return float({"mean": np.mean, "median": np.median, "min": np.min, "max": np.max}[aggregate](values))


def weights_of(queries: pd.Index | np.ndarray, weights: pd.Series) -> np.ndarray:
    """The weights of these queries, every one of which must have one."""
    missing = [q for q in queries if q not in weights.index]
    if missing:
        raise InputError(f"{len(missing)} evaluated quer{'y has' if len(missing) == 1 else 'ies have'} no weight, e.g. "
                         f"{missing[0]!r}; give every query a weight (0 leaves it out of the means)")
    chosen = weights.loc[list(queries)].to_numpy(dtype=float)
    if len(chosen) and not chosen.any():
        raise InputError(f"{weights.name or 'weights'}: every evaluated query has the weight 0, so a weighted mean has "
                         f"nothing to weigh; give some query a weight above 0")
    return chosen / chosen.max() if len(chosen) else chosen  # the same means; no sum of 1e308s overflows


def plain_mean(name: str) -> bool:
    try:
        return FAMILIES[parse_measures(name)[0].family].aggregate == "mean"
    except Exception:  # a name sqlrank printed but cannot read back: its own summary rather than a wrong one
        return False


def aggregated(per_query: pd.DataFrame, summary: pd.DataFrame, aggregate: str = "mean",
               weights: pd.Series | None = None) -> pd.DataFrame:
    """The summary (measure, value[, run_id]) with each plain mean replaced by the aggregate (or the weighted
    mean) of the per-query rows (query_id, measure, value[, run_id])."""
    check_aggregate(aggregate, weights is not None)
    keys = ["run_id", "measure"] if "run_id" in summary.columns else ["measure"]
    grouped = {key if isinstance(key, tuple) else (key,): group.dropna(subset=["value"])
               for key, group in per_query.groupby(keys, sort=False)}
    values = []
    for record in summary.to_dict("records"):
        group = grouped.get(tuple(record[k] for k in keys))
        if group is None or not plain_mean(record["measure"]):
            values.append(record["value"])
            continue
        w = weights_of(group.query_id, weights) if weights is not None else None
        values.append(summarise(group.value.to_numpy(dtype=float), aggregate, w))
    frame = summary.assign(value=values)
    frame.attrs.update(summary.attrs, aggregate="weighted mean" if weights is not None else aggregate)
    return frame


def reweighted(table: pd.DataFrame, scores: pd.DataFrame, segments: pd.DataFrame | None, aggregate: str = "mean",
               weights: pd.Series | None = None) -> pd.DataFrame:
    """compare's table with each plain mean (and its delta from the baseline's) the aggregate, or weighted mean, of
    the paired per-query values ``scores`` (query_id, run, measure, value), overall and per segment. The paired
    tests still test the per-query differences, unweighted."""
    import pandas as pd

    check_aggregate(aggregate, weights is not None)
    table = table.copy()
    members = {None: None} if segments is None else {None: None, **{
        s: set(ids) for s, ids in segments.groupby("segment")["query_id"]}}
    for index, row in table.iterrows():
        if not plain_mean(row.measure):
            continue
        segment = None if "segment" not in table or pd.isna(row.get("segment")) else row.segment
        chosen = scores[(scores.measure == row.measure) & (scores.run == row.run)]
        if members.get(segment) is not None:
            chosen = chosen[chosen.query_id.isin(members[segment])]
        w = weights_of(chosen.query_id, weights) if weights is not None else None
        table.at[index, "mean"] = summarise(chosen.value.to_numpy(dtype=float), aggregate, w)
    keys = ["measure"] + (["segment"] if "segment" in table else [])
    for _, group in table.groupby(keys, dropna=False, sort=False):
        base = group["mean"].iloc[0]
        for index in group.index[1:]:
            if plain_mean(table.at[index, "measure"]):
                table.at[index, "delta"] = table.at[index, "mean"] - base
    table.attrs.update(aggregate="weighted mean" if weights is not None else aggregate)
    return table


def aggregate_text(frame: pd.DataFrame, weights_label: str | None = None) -> str:
    """The summary as the command line prints it, and what summarised the per-query values."""
    import pandas as pd

    keys = ["run_id", "measure"] if "run_id" in frame.columns else ["measure"]
    header = [*keys, "value"]
    rows = [[str(r[k]) for k in keys] + ["" if pd.isna(r["value"]) else f"{r['value']:.4f}"]
            for r in frame.to_dict("records")]
    lines = aligned_lines(header, rows, left=len(keys))
    how = frame.attrs.get("aggregate", "mean") + (f" (weights: {weights_label})" if weights_label else "")
    return "\n".join(lines + ["", f"aggregate: {how} over queries, for the measures whose summary is a mean", ""])
