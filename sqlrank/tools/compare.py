"""Comparison: several runs against one baseline, per measure (and per segment), with paired
tests, corrections for multiple comparisons, and GSB.

The per-query values come from sqlrank's SQL evaluation of each run (the judgments are read
once); the statistics are computed here from those values (see ``statistics``).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..engines.duckdb import DuckDBEngine, session, session_options
from ..errors import InputError, OptionError, require_tolerance
from ..evaluation import run_plan
from ..inputs.load import load, load_table
from ..inputs.source import Source, physical_line
from ..measures.conventions import FIELD_NAMES, resolve_conventions
from ..measures.measure import renamed
from ..measures.registry import FAMILIES
from ..plan import plan, segments_sql
from ..rendering.sqltext import render_template
from .statistics import adjust, check_test, paired_test, scipy_stats

COLUMNS = ["measure", "run", "mean", "delta", "wins", "ties", "losses", "p_value", "p_value_adjusted",
           "ci_low", "ci_high", "effect_size"]
GSB_COLUMNS = ["good", "same", "bad", "gsb"]
VERDICTS = {"good": "good", "g": "good", "same": "same", "s": "same", "bad": "bad", "b": "bad"}


@dataclass
class Comparison:
    """What compare() computed: the table, and what it was computed from (for reports)."""

    table: pd.DataFrame
    scores: pd.DataFrame  # query_id, run, measure, value: the paired per-query values (with a value in every run)
    segments: pd.DataFrame | None  # query_id, segment
    runs: list[str]
    measures: list[str]
    conventions: str
    test: str
    correction: str
    num_queries: int
    warnings: list[str] = field(default_factory=list)
    removed_seen: bool = False  # every run was evaluated without each user's history items (remove_seen)
    compared: dict[str, int] = field(default_factory=dict)  # measure -> queries with a value in every run
    renamed: str | None = None  # the canonical names of the measures asked by other names (measures.renamed)
    untested: list[str] = field(default_factory=list)  # one value per run (Coverage) or weighted (GAUC): no test


def input_names(runs: Any) -> tuple[list[str], list[Any]]:
    """The run inputs and their names: a dict's keys, else the file names without folder and suffix
    where that keeps them apart (paths otherwise, run_1, run_2, ... for what has no path)."""
    if isinstance(runs, Mapping):
        labels, objects = [str(k) for k in runs], list(runs.values())
    elif isinstance(runs, (list, tuple)):
        objects = list(runs)
        labels = [str(r) if isinstance(r, str) else f"run_{i + 1}" for i, r in enumerate(objects)]
    else:
        raise OptionError("runs must be a list of runs (paths, DataFrames, ...) or a dict of name: run")
    if not isinstance(runs, Mapping):  # file names without folder and suffix, when that keeps them apart
        stems = [os.path.splitext(os.path.basename(x))[0] if isinstance(o, str) else x
                 for x, o in zip(labels, objects)]
        if len(set(stems)) == len(stems) and all(stems):
            labels = stems
    return labels, objects


def named_runs(loaded: list[tuple[str, Source]], names: list[str] | None, baseline: str | None) -> dict[str, Source]:
    """The runs compared, by name, the baseline first: ``loaded`` holds each input's name and run, or,
    for runs stored together, each of its runs under its run id; ``names`` renames them all, in that
    order; ``baseline`` names the run the others are compared with (default: the first)."""
    labels = [label for label, _ in loaded]
    if names is not None:
        if len(names) != len(loaded):
            stored = " (runs stored together count one each)" if any(s.only_run is not None for _, s in loaded) else ""
            raise OptionError(f"{len(names)} names for {len(loaded)} runs{stored}; give one name per run")
        labels = [str(n) for n in names]
    if len(loaded) < 2:
        raise OptionError("a comparison needs at least two runs: the baseline first, then the others (or one table "
                          "of runs stored together, with a run_id column)")
    if len(set(labels)) != len(labels):
        raise OptionError(f"run names must differ: {labels}; name them with names= (--names a,b,...)")
    runs = dict(zip(labels, (source for _, source in loaded)))
    if baseline is not None:
        if baseline not in runs:
            raise OptionError(f"baseline {baseline!r} is not one of the runs: {', '.join(labels)}")
        runs = {baseline: runs.pop(baseline), **runs}
    return runs


def compare_result(qrels: Any, runs: Any, measures: Any, *, test: str = "t", correction: str = "none",
                   trials: int = 10_000, seed: int | None = 0, gsb: bool = False, tolerance: float = 0.0,
                   names: list[str] | None = None, baseline: str | None = None, queries: Any = None,
                   by: str | None = None, **options: Any) -> Comparison:
    check_test(test, trials, seed)
    adjust([], correction)
    require_tolerance(tolerance)
    scipy_stats()
    inputs, objects = input_names(runs)
    engine = session_options(options)
    warnings: list[str] = []
    frames = []
    with session(engine.pop("connection", None), **engine) as (con, registry):
        qrels_source = load(qrels, "qrels", con, registry, options.pop("qrels_format", None),
                            options.pop("qrels_columns", None))
        segments = None
        sql = segments_sql(queries, by, con, registry, qrels_source)
        if sql is not None:
            segments = con.execute(sql).df()
        loaded = []  # each input's run, or each of its runs stored together under its run id
        conventions = resolve_conventions(options.get("preset"), **{k: v for k, v in options.items() if k in FIELD_NAMES})
        for name, run in zip(inputs, objects):
            source = load(run, "run", con, registry, options.get("run_format"), options.get("run_columns"),
                          allow_duplicates=conventions.duplicate_documents == "rows")
            loaded += [(one.only_run or name, one) for one in source.each_run(con)]
        sources = named_runs(loaded, names, baseline)
        labels, summaries = list(sources), {}
        listed = {"queries": queries} if by is None else {}  # a query table alone: the queries evaluated
        for label, run_source in sources.items():
            result = run_plan(plan(qrels_source, run_source, measures, "both", con, registry, **listed, **options),
                              DuckDBEngine(con), True)
            warnings += [f"{label}: {w}" for w in result.warnings]
            frame = result.frame.assign(run=label)
            frames.append(frame)
            summaries[label] = {(None, measure): value  # (segment, measure): the run's value, overall first
                                for measure, value in zip(result.summary["measure"], result.summary["value"])}
            measure_list, conventions = result.measures, result.conventions.describe()
        # One value per run (Coverage, Gini, GlobalAUC: over all users) or a mean that weighs each query
        # differently in each run (GAUC): shown per run with its difference, but no paired test.
        untested = [str(m) for m in measure_list if FAMILIES[m.family].aggregate in ("catalog", "weighted")]
        if segments is not None and untested:  # their values per segment: a statement per run with segments
            for label, run_source in sources.items():  # read and validated once, above
                result = run_plan(plan(qrels_source, run_source, " ".join(untested), "summary", con, registry,
                                       queries=queries, by=by, **options), DuckDBEngine(con), True)
                rows = result.frame[result.frame["segment"].notna()]
                summaries[label].update({(segment, measure): value for segment, measure, value
                                         in zip(rows["segment"], rows["measure"], rows["value"])})
    names_ = [str(m) for m in measure_list]
    aggregates = {str(m): FAMILIES[m.family].aggregate for m in measure_list}
    scores = pd.concat(frames, ignore_index=True)
    scores = scores[~scores["measure"].isin(untested)]
    tested = [name for name in names_ if name not in untested]
    # A query is compared where every run evaluated it; a measure with no value for some of those
    # queries (AUC without both classes, ILD of one item) is compared over the rest, on its own.
    evaluated = [set(frame["query_id"]) for frame in frames]
    common = set.intersection(*evaluated)
    dropped = sorted(set.union(*evaluated) - common)
    if dropped:
        untested_note = (f" ({', '.join(untested)}: each run's value over all its own queries)" if untested else "")
        warnings.append(f"{len(dropped)} queries are evaluated for some runs only and are left out of the comparison"
                        f"{untested_note}, e.g. {dropped[0]!r}; score missing queries 0 with missing_queries='zero' (-c) "
                        f"to keep them")
    if not common:
        raise InputError("no query is evaluated for every run, so there is nothing to compare pairwise")
    complete = scores[scores["query_id"].isin(common)].pivot_table(
        index="query_id", columns=["measure", "run"], values="value", aggfunc="first", dropna=False)
    valued = {measure: complete[[(measure, label) for label in labels]].notna().all(axis=1) for measure in tested}
    compared = {measure: int(has.sum()) for measure, has in valued.items()}
    for measure, count in compared.items():
        if count == 0:
            warnings.append(f"{measure}: no query has a value in every run, so it is not compared")
        elif count < len(complete):
            warnings.append(f"{measure}: {len(complete) - count} of the {len(complete)} queries have no value in some "
                            f"run and are left out of its comparison")
    groups = [(None, complete)]
    if segments is not None:
        for segment, ids in segments.groupby("segment", sort=True)["query_id"]:
            rows = complete[complete.index.isin(set(ids))]
            if len(rows):
                groups.append((segment, rows))
    records = []
    for segment, rows in groups:
        for measure in names_:
            if measure in untested:
                key = (segment, measure)
                if all(key in summaries[label] for label in labels):
                    base = summaries[labels[0]][key]
                    records += [{"segment": segment, "num_queries": len(common) if segment is None else len(rows),
                                 "measure": measure, "run": label, "mean": summaries[label][key],
                                 "delta": math.nan if label == labels[0] else summaries[label][key] - base}
                                for label in labels]
                continue
            paired = rows[valued[measure].loc[rows.index]]
            base = paired[(measure, labels[0])].to_numpy(dtype=float)
            for label in labels:
                values = paired[(measure, label)].to_numpy(dtype=float)
                records.append(_row(segment, len(paired), measure, label, values, base, label == labels[0],
                                    aggregates[measure], test, trials, seed, tolerance))
    table = pd.DataFrame.from_records(records)
    for column in COLUMNS:  # a table of untested measures alone has none of the test's columns
        if column not in table:
            table[column] = np.nan
    is_comparison = (table["run"] != labels[0]) & ~table["measure"].isin(untested)
    table["p_value_adjusted"] = np.nan
    table.loc[is_comparison, "p_value_adjusted"] = adjust(table.loc[is_comparison, "p_value"].tolist(), correction)
    columns = (["segment", "num_queries"] if segments is not None else []) + COLUMNS + (GSB_COLUMNS if gsb else [])
    table = table.reindex(columns=columns)
    for column in ("wins", "ties", "losses", "good", "same", "bad", "num_queries"):
        if column in table:
            table[column] = table[column].astype("Int64")
    with_values = pd.MultiIndex.from_frame(pd.concat(  # each measure's queries with a value in every run
        [pd.DataFrame({"query_id": has.index[has], "measure": measure}) for measure, has in valued.items()]
        or [pd.DataFrame({"query_id": [], "measure": []})]))
    kept = scores[pd.MultiIndex.from_frame(scores[["query_id", "measure"]]).isin(with_values)].reset_index(drop=True)
    compared.update(dict.fromkeys(untested, 0))  # no per-query values: no plot of differences
    return Comparison(table, kept[["query_id", "run", "measure", "value"]], segments, labels, names_, conventions,
                      test, correction, len(common), warnings, result.removed_seen, compared,
                      renamed(measure_list), untested)


def _row(segment, count, measure, label, values, base, is_baseline, aggregate, test, trials, seed, tolerance):
    mean = _mean(values, aggregate) if count else math.nan
    row: dict[str, Any] = {"segment": segment, "num_queries": count, "measure": measure, "run": label,
                           "mean": mean}
    if is_baseline or not count:  # no query has a value in every run: nothing to test
        return row
    diff = values - base
    wins, losses = int(np.sum(diff > tolerance)), int(np.sum(diff < -tolerance))
    ties = len(diff) - wins - losses
    outcome = paired_test(values, base, test, trials, seed)
    row.update(delta=mean - _mean(base, aggregate), wins=wins, ties=ties, losses=losses, p_value=outcome.p_value,
               ci_low=outcome.ci_low, ci_high=outcome.ci_high, effect_size=outcome.effect_size,
               good=wins, same=ties, bad=losses, gsb=(wins - losses) / len(diff))
    return row


def _mean(values: np.ndarray, aggregate: str) -> float:
    """The mean as sqlrank eval reports it: geometric (floor 1e-5, as trec_eval) for GMAP and
    GMBpref, arithmetic otherwise (for counts too: the mean per query)."""
    if aggregate == "geometric":
        return float(np.exp(np.mean(np.log(np.maximum(values, 1e-5)))))
    return float(np.mean(values))


# ------------------------------------------------------------------- GSB from verdicts

def gsb_frame(verdicts: Any, by: str | None = None, *, format: str | None = None,
              connection: Any = None) -> pd.DataFrame:
    """Good-same-bad from side-by-side verdicts: columns [by,] good, same, bad, gsb, the overall
    row first (its ``by`` is missing), then one row per value of ``by``."""
    with session(connection) as (con, registry):
        required = ("verdict",) + ((by,) if by is not None else ())
        if by is not None and (not isinstance(by, str) or not by or "\x00" in by):
            raise OptionError(f"by={by!r} must be a column name of the verdicts")
        table = load_table(verdicts, "verdicts", con, registry, required, format)
        _check_verdicts(table, con)
        sql = render_template("gsb.sql", reader=table.reader, by=by)
        frame = con.execute(sql).df()
    for column in ("good", "same", "bad"):
        frame[column] = frame[column].astype("int64")
    counts = frame[["good", "same", "bad"]].sum(axis=1)
    ungrouped = 0 if by is None else int(counts.iloc[0] - counts.iloc[1:].sum())  # the overall row is first
    frame.attrs["sql"] = sql
    frame.attrs["warnings"] = [f"{ungrouped} verdicts have no {by} (an empty or missing value); they count in the "
                               f"overall row only"] if ungrouped else []
    return frame


def _check_verdicts(table, con) -> None:
    row = con.execute(f"""
        SELECT position, verdict, total FROM (
            SELECT row_number() OVER () AS position, CAST(verdict AS VARCHAR) AS verdict, count(*) OVER () AS total
            FROM {table.reader}
        ) AS numbered
        WHERE verdict IS NULL OR lower(trim(verdict)) NOT IN ({", ".join(repr(v) for v in VERDICTS)})
        ORDER BY position
        LIMIT 1
    """).fetchall()
    if row:
        position, verdict, _ = row[0]
        delimited = table.label.endswith((".csv", ".tsv"))
        line = physical_line(table.label, table.label[-3:], position, True) if delimited else None
        where = f"{table.label}:{line or position + 1}" if delimited else f"{table.label} (row {position})"
        raise InputError(f"{where}: verdict {verdict!r} is not good, same or bad (G, S, B; any case)")
    if not con.execute(f"SELECT count(*) FROM {table.reader}").fetchall()[0][0]:
        raise InputError(f"{table.label}: there are no verdicts")
