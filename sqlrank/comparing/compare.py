"""Comparison: several runs against one baseline, per measure (and per segment), with paired
tests, corrections for multiple comparisons, and GSB.

The per-query values come from sqlrank's SQL evaluation of each run (the judgments are read
once); the statistics are computed here from those values (see ``statistics``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from ..engines.duckdb import DuckDBEngine, session, session_options
from ..errors import InputError, OptionError, require_tolerance
from ..evaluation import ELSEWHERE, run_plan
from ..inputs.load import load, load_table
from ..inputs.merge import input_names
from ..inputs.source import Source, physical_line
from ..measures.conventions import resolve_conventions
from ..measures.family import GEOMETRIC_FLOOR
from ..measures.measure import renamed
from ..measures.names import parse_measures
from ..measures.registry import FAMILIES
from ..plan import conventions_of, plan, segments_sql
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import render_template
from ..statistics import moments
from ..statistics.aggregate import check_aggregate, read_weights, reweighted
from .evaluated_runs import RECALL_LEVELS, Details, Runs, evaluate_elsewhere, named_runs, summary_values, untested
from ..statistics.pairs import TUKEY, AllPairs, all_pairs, check_pairs
from ..statistics.significance import adjust, check_test, paired_test

COLUMNS = ["measure", "run", "mean", "delta", "wins", "ties", "losses", "p_value", "p_value_adjusted",
           "ci_low", "ci_high", "effect_size"]
GSB_COLUMNS = ["good", "same", "bad", "gsb"]
VERDICTS = {"good": "good", "g": "good", "same": "same", "s": "same", "bad": "bad", "b": "bad"}


@dataclass
class Comparison:
    """What compare() computed: the table, and what it was computed from (for reports). The table is ``rows`` (a
    dict of its ``columns`` each) and the paired per-query values ``score_rows`` (query_id, run, measure, value:
    those with a value in every run); ``table`` and ``scores`` are them as DataFrames, built when first asked for,
    so that the command line prints a comparison without pandas. ``frame``: a table built as a DataFrame (weighted
    or other summaries, a prediction-powered comparison), its rows read from it."""

    rows: list[dict]
    columns: list[str]
    score_rows: list[tuple]
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
    renamed: str | None = None  # what the measures asked by other names are, canonically (measures.renamed)
    untested: list[str] = field(default_factory=list)  # one value per run (Coverage) or weighted (GAUC): no test
    details: Details | None = None  # for the report: each run's precision-recall curve and top documents
    judgment_sources: dict | None = None  # test ppi: {"llm": name, "gold": name} (comparing/ppi_comparison.py)
    frame: Any = None

    @cached_property
    def table(self) -> pd.DataFrame:
        """The comparison's table: the columns of its layout, counts as nullable integers."""
        if self.frame is not None:
            return self.frame
        import pandas as pd

        table = pd.DataFrame.from_records(self.rows, columns=self.columns)
        for column in ("wins", "ties", "losses", "good", "same", "bad", "num_queries"):
            if column in table:
                table[column] = table[column].astype("Int64")
        return table

    @cached_property
    def scores(self) -> pd.DataFrame:
        import pandas as pd

        scores = pd.DataFrame(self.score_rows, columns=["query_id", "run", "measure", "value"])
        scores["value"] = scores["value"].astype("float64")
        return scores


def framed(table: pd.DataFrame, score_rows: list[tuple], **rest: Any) -> Comparison:
    """A Comparison of a table built as a DataFrame, its rows read from it."""
    return Comparison(table.to_dict("records"), list(table.columns), score_rows, frame=table, **rest)


def compare_result(qrels: Any, runs: Any, measures: Any, *, test: str = "t", correction: str = "none",
                   trials: int = 10_000, seed: int | None = 0, gsb: bool = False, tolerance: float = 0.0,
                   names: list[str] | None = None, baseline: str | None = None, queries: Any = None,
                   by: str | None = None, weights: Any = None, aggregate: str = "mean", details: int = 0,
                   gold: str | None = None, **options: Any) -> Comparison:
    """Every run evaluated and compared with the baseline. ``weights`` (query_id -> weight) or ``aggregate``:
    the plain means and their deltas summarised so (statistics/aggregate.py); the tests test the per-query
    differences. ``details=k``: also each run's precision-recall curve and top k documents (a report's).
    ``test="ppi"`` and ``gold``: ppi_comparison.comparison() computes those."""
    check_test(test, trials, seed)
    if test.startswith("ppi") or gold is not None:  # ppi_comparison.comparison() decides
        raise OptionError("gold= (--gold) names the people's judgments of a prediction-powered comparison: add "
                          "test='ppi' (--test ppi)")
    check_aggregate(aggregate, weights is not None)
    query_weights = read_weights(weights) if weights is not None else None  # read and checked before evaluating
    if test in TUKEY:
        raise OptionError(f"--test {test} compares every pair of runs: add --all-pairs (pairs='all' in Python)")
    adjust([], correction)
    require_tolerance(tolerance)
    runs_ = _evaluate_runs(qrels, runs, measures, names, baseline, queries, by, options, details)
    labels, untested = runs_.labels, runs_.untested
    names_ = [m.shown for m in runs_.measures]
    scores = [(query, label, measure, value) for label, rows in zip(labels, runs_.frames)
              for query, measure, value in rows if measure not in untested]
    common = _common_queries(runs_)
    num_common = len(common) or min(runs_.evaluated)
    value = {(query, measure, label): value for query, label, measure, value in scores if query in common}
    complete = sorted({query for query, _, _ in value})  # the compared queries, in order
    tested = [name for name in names_ if name not in untested]
    valued = {measure: {query for query in complete if all(_is_value(value.get((query, measure, label)))
                                                           for label in labels)} for measure in tested}
    compared = {measure: len(has) for measure, has in valued.items()}
    for measure, count in compared.items():
        if count == 0:
            runs_.warnings.append(f"{measure}: no query has a value in every run, so it is not compared")
        elif count < len(complete):
            runs_.warnings.append(f"{measure}: {len(complete) - count} of the {len(complete)} queries have no value "
                                  f"in some run and are left out of its comparison")
    groups = [(None, complete)]
    if runs_.segments is not None:
        for segment, ids in runs_.segments.groupby("segment", sort=True)["query_id"]:
            members = set(ids)
            rows = [query for query in complete if query in members]
            if rows:
                groups.append((segment, rows))
    aggregates = {m.shown: FAMILIES[m.family].aggregate for m in runs_.measures}
    records = [record for segment, rows in groups for measure in names_
               for record in _records(runs_, segment, rows, measure, num_common, valued, value, aggregates[measure],
                                      (test, trials, seed, tolerance))]
    columns, rows = _table(records, labels, untested, correction, runs_.segments is not None, gsb)
    kept = [row for row in scores if row[0] in valued.get(row[2], ())]  # each measure's queries valued in every run
    compared.update(dict.fromkeys(untested, 0))  # no per-query values: no plot of differences
    rest = dict(segments=runs_.segments, runs=labels, measures=names_, conventions=runs_.conventions, test=test,
                correction=correction, num_queries=num_common, warnings=runs_.warnings, removed_seen=runs_.removed_seen,
                compared=compared, renamed=renamed(runs_.measures), untested=untested, details=runs_.details)
    result = Comparison(rows, columns, kept, **rest)
    if query_weights is not None or aggregate != "mean":
        return framed(reweighted(result.table, result.scores, runs_.segments, aggregate, query_weights), kept, **rest)
    return result


def _summary(result) -> list[tuple[str, float]]:
    """(measure, value) of an evaluation's summary, as its DataFrame has them (a value None: NaN)."""
    return summary_values(result.summary_table.picked("measure", "value"))


def _is_value(value: Any) -> bool:
    """A per-query value: not missing (None) and a number (not NaN)."""
    return value is not None and value == value


def compare_pairs(qrels: Any, runs: Any, measures: Any, *, test: str = "tukey", correction: str = "none",
                  trials: int = 10_000, seed: int | None = 0, alpha: float = 0.05, letters: bool = True,
                  **options: Any) -> tuple[AllPairs, Comparison]:
    """Every pair of runs (statistics/pairs.py), from compare's paired per-query values and means."""
    check_test(test, trials, seed)
    adjust([], correction)
    result = compare_result(qrels, runs, measures, test="t", trials=trials, seed=seed, **options)
    return pairs_of(result, test, correction, trials, seed, alpha, letters), result


def pairs_of(result: Comparison, test: str = "tukey", correction: str = "none", trials: int = 10_000,
             seed: int | None = 0, alpha: float = 0.05, letters: bool = True) -> AllPairs:
    """Every pair of a comparison's runs, from its paired per-query values and overall means."""
    check_pairs(result.runs, test, correction, alpha)
    overall = result.table[result.table["segment"].isna()] if "segment" in result.table else result.table
    tested = [m for m in result.measures if m not in result.untested]
    return all_pairs(result.scores, overall[["measure", "run", "mean"]], result.runs, tested, test, correction,
                     trials, seed, alpha, letters)


def _evaluate_runs(qrels: Any, runs: Any, measures: Any, names: list[str] | None, baseline: str | None,
                   queries: Any, by: str | None, options: dict[str, Any], details: int = 0) -> Runs:
    """Each run (each of runs stored together under its run id) evaluated per query, the qrels read once; on another
    engine (engine=, dsn=, spark=, datafusion=, sqlite=) there (evaluated_runs.evaluate_elsewhere)."""
    elsewhere = {name: options.pop(name) for name in ELSEWHERE if name in options}
    if any(value != "duckdb" if name == "engine" else value is not None for name, value in elsewhere.items()):
        return evaluate_elsewhere(qrels, runs, measures, names, baseline, queries, by, {**options, **elsewhere},
                                  details)
    inputs, objects = input_names(runs)
    engine = session_options(options)
    warnings: list[str] = []
    frames, summaries, evaluated = [], {}, []
    with session(engine.pop("connection", None), **engine) as (con, registry):
        qrels_source = load(qrels, "qrels", con, registry, options.pop("qrels_format", None),
                            options.pop("qrels_columns", None))
        sql = segments_sql(queries, by, con, registry, qrels_source)
        segments = con.execute(sql).df() if sql is not None else None
        loaded = []  # each input's run, or each of its runs stored together under its run id
        conventions = resolve_conventions(options.get("preset"), **conventions_of(options))
        for name, run in zip(inputs, objects):
            source = load(run, "run", con, registry, options.get("run_format"), options.get("run_columns"),
                          allow_duplicates=conventions.duplicate_documents == "rows")
            loaded += [(one.only_run or name, one) for one in source.each_run(con)]
        sources = named_runs(loaded, names, baseline)
        listed = {"queries": queries} if by is None else {}  # a query table alone: the queries evaluated
        asked, curve = _with_curve(measures, details, listed.get("queries"))
        curves: dict[str, list[float]] = {}
        for label, run_source in sources.items():  # printable=False: a comparison prints no statement, none rendered
            result = run_plan(plan(qrels_source, run_source, asked, "both", con, registry, **listed,
                                   printable=False, **options), DuckDBEngine(con), True)
            if curve is not None:
                result, curves[label] = _without_curve(result, curve)
            warnings += [f"{label}: {w}" for w in result.warnings]
            frames.append(result.values().picked("query_id", "measure", "value"))
            evaluated.append(result.num_queries)
            summaries[label] = {(None, measure): value  # (segment, measure): the run's value, overall first
                                for measure, value in _summary(result)}
        untested_names = untested(result.measures)  # shown per run with its difference, but no paired test
        if segments is not None and untested_names:  # their values per segment: a statement per run with segments
            for label, run_source in sources.items():  # read and validated once, above
                per_segment = run_plan(plan(qrels_source, run_source, " ".join(untested_names), "summary", con,
                                            registry, queries=queries, by=by, printable=False, **options),
                                       DuckDBEngine(con), True)
                rows = per_segment.frame[per_segment.frame["segment"].notna()]
                summaries[label].update({(segment, measure): value for segment, measure, value
                                         in zip(rows["segment"], rows["measure"], rows["value"])})
        shown = _details(con, registry, qrels_source, sources, options, details, curves or None) if details else None
    return Runs(list(sources), frames, summaries, result.measures, result.conventions.describe(), untested_names,
                segments, warnings, result.removed_seen, evaluated, shown)


def _details(con, registry, qrels: Source, runs: dict[str, Source], options: dict[str, Any], depth: int,
             curves: dict[str, list[float]] | None = None) -> Details:
    """Each run's mean interpolated precision at the 11 recall levels (as sqlrank eval computes IPrec@x, under the
    same conventions; ``curves`` where the runs' own statements computed them) and its top ``depth`` documents per
    query with their labels."""
    rankings: dict[tuple[str, str], list[tuple]] = {}
    if curves is None:
        curves = {}
        for label, run in runs.items():
            curve = run_plan(plan(qrels, run, CURVE, "summary", con, registry, printable=False, **options),
                             DuckDBEngine(con), False)
            curves[label] = [value for _, value in _summary(curve)]
    tie_break = options.get("tie_break") if options.get("tie_break") in ("doc_id_asc", "input_rank") else "trec_eval"
    for label, run in runs.items():
        for query, rank, doc, relevance in con.execute(render_template(
                DUCKDB, "ranked.sql", run_sql=run.sql(), qrels_sql=qrels.sql(), order=DUCKDB.ranking_order(tie_break, "score"),
                depth=depth, keyed=False)).fetchall():
            rankings.setdefault((str(query), label), []).append((rank, doc, relevance))
    return Details(curves, rankings, depth)


CURVE = " ".join(f"IPrec@{level}" for level in RECALL_LEVELS)  # a report's precision-recall curve


def _with_curve(measures: Any, details: int, queries: Any) -> tuple[Any, list | None]:
    """The measures each run's statement computes, and the curve's among them, where that statement computes the curve
    with the measures compared (one statement per run, not two): a report of measures that hold no IPrec themselves,
    whose statements evaluate every query (``queries``: the query table they are limited to, without segments; the
    curve's mean is over every query). Else the measures as given and None: the curve has statements of its own."""
    if not details or queries is not None:
        return measures, None
    asked = parse_measures(measures)
    if any(m.family == "IPrec" for m in asked):
        return measures, None
    curve = parse_measures(CURVE)
    return [*asked, *curve], curve


def _without_curve(result, curve: list) -> tuple[Any, list[float]]:
    """A run's evaluation without the curve's measures, and the curve: their means in the order of CURVE."""
    names = {m.shown for m in curve}
    means = dict(_summary(result))

    def kept(rows):
        at = rows.columns.index("measure")
        return replace(rows, rows=[row for row in rows.rows if row[at] not in names])
    return (replace(result, table=kept(result.table), summary_table=kept(result.summary_table),
                    measures=[m for m in result.measures if m.shown not in names]),
            [means[m.shown] for m in curve])


def _common_queries(runs: Runs) -> set:
    """The queries every run evaluated (the others warned about); an error when there is none."""
    evaluated = [{row[0] for row in rows if row[0] is not None} for rows in runs.frames]  # not a value over all users
    if not any(evaluated):  # measures over all users only: the queries each run evaluated, no per-query pairs
        return set()
    common = set.intersection(*evaluated)
    dropped = sorted(set.union(*evaluated) - common)
    if dropped:
        untested_note = (f" ({', '.join(runs.untested)}: each run's value over all its own queries)"
                         if runs.untested else "")
        runs.warnings.append(f"{len(dropped)} queries are evaluated for some runs only and are left out of the "
                             f"comparison{untested_note}, e.g. {dropped[0]!r}; score missing queries 0 with "
                             f"missing_queries='zero' (-c) to keep them")
    if not common:
        raise InputError("no query is evaluated for every run, so there is nothing to compare pairwise")
    return common


def _records(runs: Runs, segment: Any, rows: list, measure: str, num_common: int, valued: dict, value: dict,
             aggregate: str, testing: tuple) -> list[dict]:
    """The rows of one measure in one segment (None: all queries; ``rows``: its compared queries, in order): each run
    against the first. ``value``: (query_id, measure, run) -> the per-query value."""
    labels = runs.labels
    if measure in runs.untested:
        key = (segment, measure)
        if not all(key in runs.summaries[label] for label in labels):
            return []
        base = runs.summaries[labels[0]][key]
        return [{"segment": segment, "num_queries": num_common if segment is None else len(rows),
                 "measure": measure, "run": label, "mean": runs.summaries[label][key],
                 "delta": math.nan if label == labels[0] else runs.summaries[label][key] - base}
                for label in labels]
    paired = [query for query in rows if query in valued[measure]]

    def values(label: str) -> list[float]:
        return [math.nan if x is None else float(x) for x in (value[(query, measure, label)] for query in paired)]
    base = values(labels[0])
    return [_row(segment, len(paired), measure, label, values(label), base, label == labels[0], aggregate, *testing)
            for label in labels]


def _table(records: list[dict], labels: list[str], untested: list[str], correction: str, segmented: bool,
           gsb: bool) -> tuple[list[str], list[dict]]:
    """The comparison's columns and rows: p-values corrected over every comparison, the columns of its layout (a
    value a row has none of: None for a count, NaN for a number)."""
    compared = [r for r in records if r["run"] != labels[0] and r["measure"] not in untested]
    for record, adjusted in zip(compared, adjust([r.get("p_value", math.nan) for r in compared], correction)):
        record["p_value_adjusted"] = adjusted
    columns = (["segment", "num_queries"] if segmented else []) + COLUMNS + (GSB_COLUMNS if gsb else [])
    counts = {"wins", "ties", "losses", "good", "same", "bad", "num_queries", "segment", "measure", "run"}
    return columns, [{c: r.get(c, None if c in counts else math.nan) for c in columns} for r in records]


def _row(segment, count, measure, label, values, base, is_baseline, aggregate, test, trials, seed, tolerance):
    mean = _mean(values, aggregate) if count else math.nan
    row: dict[str, Any] = {"segment": segment, "num_queries": count, "measure": measure, "run": label,
                           "mean": mean}
    if is_baseline or not count:  # no query has a value in every run: nothing to test
        return row
    diff = [v - b for v, b in zip(values, base)]
    wins, ties, losses = outcomes(diff, tolerance)
    outcome = paired_test(values, base, test, trials, seed)
    row.update(delta=mean - _mean(base, aggregate), wins=wins, ties=ties, losses=losses, p_value=outcome.p_value,
               ci_low=outcome.ci_low, ci_high=outcome.ci_high, effect_size=outcome.effect_size,
               good=wins, same=ties, bad=losses, gsb=(wins - losses) / len(diff))
    return row


def outcomes(diff: Sequence[float], tolerance: float) -> tuple[int, int, int]:
    """Wins, ties and losses of per-query differences: a difference within ``tolerance`` is a tie."""
    wins, losses = int(sum(d > tolerance for d in diff)), int(sum(d < -tolerance for d in diff))
    return wins, len(diff) - wins - losses, losses


def _mean(values: list[float], aggregate: str) -> float:
    """The mean as sqlrank eval reports it: geometric (each value at least GEOMETRIC_FLOOR, as trec_eval)
    for GMAP and GMBpref, arithmetic otherwise (for counts too: the mean per query)."""
    if aggregate == "geometric":  # numpy's log and exp, as eval's mean
        import numpy as np

        return float(np.exp(np.mean(np.log(np.maximum(values, GEOMETRIC_FLOOR)))))
    return moments.mean(values)


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
        sql = render_template(DUCKDB, "gsb.sql", reader=table.reader, by=by)
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
