"""``sqlrank trec_eval``: trec_eval 10's command line and output, computed by sqlrank's SQL.

Same options, measure names and nicknames, same measure order, number formatting and
per-query order, so that its output can replace trec_eval's byte for byte.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..engines.duckdb import DuckDBEngine, session
from ..errors import InputError, MeasureError
from ..inputs.load import load
from ..inputs.source import GROUP_SEPARATOR, Source
from ..inputs.validate import report_duplicates
from ..measures.conventions import resolve_conventions
from ..measures.family import GEOMETRIC_FLOOR
from ..measures.measure import Measure
from ..measures.names import parse_measure
from ..measures.registry import REGISTRY
from ..plan import MAX_SLICES, plan
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro, render_template
from .trec_files import RunFile, read_zscores, run_id_of, run_label, zscore

# trec_eval's measures in the order it computes and prints them (measures.c, version 10): the
# registry's trec_eval names, and those that are not a measure family of their own here.
# kind: "cut" (a list of cutoffs, one line each), "params" (one line, free parameters), "plain",
# "special" (runid, num_q, relstring), "prefs" (preference judgments).
_OTHERS = [("runid", 0, "special"), ("relstring", 12, "special"),
           *((name, 36 + i, "prefs") for i, name in enumerate((
               "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
               "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
               "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"))),
           ("map_avgjg", 50, "plain"), ("P_avgjg", 51, "cut"), ("Rprec_mult_avgjg", 52, "cut")]
ORDER = [(name, kind) for name, _, kind in sorted(
    [*_OTHERS, *((t.name, t.order, t.kind) for family in REGISTRY for t in family.trec)], key=lambda e: e[1])]
KIND = dict(ORDER)
NICKNAMES = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"],
    "qrels_jg": ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"],
    "prefs": ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"],
}
NICKNAMES["all_prefs"] = ["runid", "num_q"] + [name for name, kind in ORDER if kind == "prefs"]
PREFS_MEASURES = NICKNAMES["all_prefs"][2:]
JUDGMENT_GROUP_MEASURES = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
ALL_ONLY = {"runid", "num_q", "gm_map", "gm_bpref"}
QUERY_ONLY = {"relstring"}
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
          "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}

PREFS_FORMATS = ("prefs", "qrels_prefs")
# Run lines per slice: ranking 2.5M lines at a time keeps the whole process below trec_eval's own peak (it holds
# every line), at no more time than one statement; at 10M lines, -m all_trec peaks at 0.70 GB (3.5M: 0.77-0.90 GB
# from run to run, trec_eval 0.90 GB) in the same time (bench/trec_eval_speed.py, bench/NOTES.md).
SLICE_ROWS = 2_500_000
NUM_REL_RECOUNT = Measure("NumRel", None, {"rel": 1})


@dataclass
class Line:
    """One output line's measure: the name trec_eval prints and what computes it."""

    name: str
    trec: str  # the trec_eval measure it belongs to
    measure: Measure | None = None  # None for runid, num_q, relstring


@dataclass
class Options:
    qrels: str
    run: str
    per_query: bool = False
    complete: bool = False
    no_summary: bool = False
    judged_only: bool = False
    depth: int | None = None
    rel: int = 1
    num_docs: int = 0
    zscores: str | None = None
    version: int = 10
    groups: bool = False  # -R qrels_jg
    prefs: str | None = None  # -R prefs or -R qrels_prefs
    measures: dict[str, str | None] = field(default_factory=dict)
    engine: dict = field(default_factory=dict)  # session() options: memory_limit, temp_directory, threads
    slices: int | None = None  # groups of queries evaluated one after another; None: one per SLICE_ROWS run lines
    output: str | None = None  # a file written atomically instead of standard output


def request_measure(requested: dict[str, str | None], spec: str) -> None:
    if spec in NICKNAMES:
        for name in NICKNAMES[spec]:
            requested.setdefault(name, None)
        return
    name, dot, params = spec.partition(".")
    if name not in KIND:
        parse_measure(spec)  # raises the "did you mean" error for unknown names
        raise MeasureError(f"{spec!r} is not a trec_eval measure; sqlrank trec_eval takes trec_eval's names "
                           f"(use sqlrank eval for ir_measures names)")
    if dot and KIND[name] in ("plain", "special") and name != "relstring":
        raise MeasureError(f"trec_eval measure {name} takes no parameters ({spec!r})")
    requested[name] = params if dot else None


def expand(options: Options) -> list[Line]:
    """The output lines, in trec_eval's order."""
    lines: list[Line] = []
    for trec, kind in ORDER:
        if trec not in options.measures:
            continue
        params = options.measures[trec]
        if kind == "special":
            label = trec if trec != "relstring" or params is None else f"relstring_{params}"
            lines.append(Line(label, trec))
            continue
        if kind == "prefs":
            lines.append(Line(trec, trec))
            continue
        base = JUDGMENT_GROUP_MEASURES.get(trec, trec)
        spec = base if params is None else f"{base}.{params}"
        measures = parse_measure(spec)
        if kind == "cut":
            measures = sorted(measures, key=lambda m: m.cutoff)
            seen = set()
            for m in measures:
                label = (f"{trec}_{m.cutoff}" if isinstance(m.cutoff, int) else f"{trec}_{m.cutoff:.2f}")
                if label not in seen:
                    seen.add(label)
                    lines.append(Line(label, trec, m))
        else:
            (m,) = measures
            if trec == "utility" and options.num_docs:
                m = Measure(m.family, m.cutoff, dict(m.params) | {"num_docs": options.num_docs})
            lines.append(Line(trec if params is None else f"{trec}_{params}", trec, m))
    return lines


def run(options: Options, out) -> None:
    lines = expand(options)
    measures = [line.measure for line in lines if line.measure is not None]
    if "num_rel" in options.measures and options.complete and options.rel != 1:
        measures.append(NUM_REL_RECOUNT)  # trec_eval -c recounts the summary (see below)
    conventions = dict(rel=options.rel, missing_queries="zero" if options.complete else "skip",
                       judged_only=options.judged_only, depth=options.depth, trec_eval_version=options.version)
    with RunFile(options.run) as run_path, session(None, **options.engine) as (con, registry):
        evaluate = _evaluate_prefs if options.prefs else _evaluate
        values, relstrings, runid = evaluate(options, lines, measures, run_path, con, registry, conventions)
    _print(options, lines, measures, values, relstrings, runid, out, resolve_conventions(**conventions))


def _require_rows(*sources: Source) -> None:
    """trec_eval stops on a qrels or run file without data lines (sqlrank eval evaluates them where
    the values are defined)."""
    for source in sources:
        if not source.rows:
            raise InputError(f"{source.label}: the {source.kind} has no data rows")


def _evaluate(options: Options, lines: list[Line], measures: list[Measure], run_path: str, con, registry,
              conventions: dict) -> tuple[tuple[list[str], dict], dict, str | None]:
    """The qrels measures: (query ids, each measure's values in their order), relstrings and the run id."""
    qrels = load(options.qrels, "qrels", con, registry, groups=options.groups, atol=True, odd_ids=False)
    # trec_eval cuts each query at -M before it looks for duplicates: a copy below the cut is dropped.
    # It never reads the run's rank column (ties go by document id): ranks=False leaves it out of the copy.
    run_source = load(run_path, "run", con, registry, allow_duplicates=options.depth is not None, ranks=False,
                      label=run_label(options.run), odd_ids=False)
    _require_rows(qrels, run_source)
    resolved_conventions = resolve_conventions(**conventions)
    if options.depth is not None:
        _require_no_duplicates_within(run_source, options.depth, resolved_conventions, con)
    if not options.complete:
        _require_all_qrels_queries(qrels, run_source, con)
    engine = DuckDBEngine(con)
    slices = options.slices if options.slices is not None else max(1, min(MAX_SLICES, -(-(run_source.rows or 0)
                                                                                 // SLICE_ROWS)))
    p = plan(qrels, run_source, measures or [Measure("NumQ")], "per_query", con, registry, printable=False,
             slices=slices, **conventions)
    # (query ids, values per measure); judgment groups are averaged per query from the rows
    values = pivot(average_judgment_groups(engine.per_query(p))) if options.groups else engine.per_query_columns(p)
    relstrings = {}
    if "relstring" in options.measures and options.per_query:
        length = int(float(options.measures["relstring"] or 10))
        p = plan(qrels, run_source, [], "relstring", con, registry, relstring_length=max(length, 0),
                 printable=False, slices=slices, **conventions)
        relstrings = dict(engine.per_query(p))  # in slices, as the measures: one slice's ranking held at a time
    runid = run_id_of(run_source, con) if "runid" in options.measures else None
    return values, relstrings, runid


def average_judgment_groups(rows: list) -> list:
    """(query + GROUP_SEPARATOR + group, measure, value) rows -> (query, measure, mean over its groups).

    trec_eval adds the groups' values in its order of the groups (their names' bytes, as it sorts
    them) and divides by their number.
    """
    groups: dict = {}
    for qid, measure, value in sorted(rows, key=lambda row: row[0].partition(GROUP_SEPARATOR)[2].encode("utf-8")):
        groups.setdefault((qid.partition(GROUP_SEPARATOR)[0], measure), []).append(value)
    return [(qid, measure, add_in_order(v) / len(v)) for (qid, measure), v in groups.items()]


def _evaluate_prefs(options: Options, lines: list[Line], measures: list[Measure], run_path: str, con, registry,
                    conventions: dict) -> tuple[tuple[list[str], dict], dict, str | None]:
    """Preference measures: read the judgments once, validate them, run sql/prefs.sql."""
    layout = options.prefs
    path = options.qrels
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such preference judgments file")
    table = registry.materialize(call_macro(DUCKDB, "_macros/inputs.sql", "prefs", path, layout, "raw").strip(), "prefs")
    fields = 5 if layout == "prefs" else 4
    shape = "qid jg jsg docno rel_level" if layout == "prefs" else "qid jg docno rel_level"
    bad = con.execute(f"SELECT count(*) FILTER (WHERE field_count <> {fields}), "
                      f"count(*) FILTER (WHERE TRY_CAST(rel_level AS DOUBLE) IS NULL OR isnan(TRY_CAST(rel_level AS DOUBLE))), "
                      f"count(*) FROM {DUCKDB.ident(table)}").fetchall()[0]
    if bad[2] == 0:
        raise InputError(f"{path}: the preference judgments have no data lines")
    if bad[0] or bad[1]:
        cond = f"field_count <> {fields}" if bad[0] else "TRY_CAST(rel_level AS DOUBLE) IS NULL"
        position, line = con.execute(
            f"SELECT position, line FROM ({call_macro(DUCKDB, '_macros/inputs.sql', 'prefs', path, layout, 'numbered')}) "
            f"AS lines WHERE {cond} ORDER BY position LIMIT 1").fetchall()[0]
        what = f"expected {fields} fields '{shape}'" if bad[0] else "the relevance level is not a number"
        raise InputError(f"{path}:{position}: malformed -R {layout} line: {what}: {line.strip()!r}")
    run_source = load(run_path, "run", con, registry, ranks=False, label=run_label(options.run), odd_ids=False)
    _require_rows(run_source)
    prefs_sql = (f"SELECT query_id, jg, jsg, doc_id, CAST(rel_level AS DOUBLE) AS rel_level "
                 f"FROM {DUCKDB.ident(table)}")
    if not options.complete:
        missing = con.execute(
            f"SELECT count(*), min(query_id) FROM (SELECT DISTINCT query_id FROM {DUCKDB.ident(table)} "
            f"EXCEPT SELECT DISTINCT query_id FROM ({run_source.sql()}) AS run) AS missing").fetchall()[0]
        if missing[0]:
            raise InputError(f"{missing[0]} queries of the preference judgments have no results in the run, e.g. "
                             f"{missing[1]!r}; trec_eval 10 stops here too. Pass -c to score them 0")
    resolved = resolve_conventions(**conventions)
    sql = render_template(DUCKDB, "prefs.sql", prefs_sql=prefs_sql, run_sql=run_source.sql(),
                          missing_queries=resolved.missing_queries, depth=resolved.depth,
                          score_order=DUCKDB.score(resolved.trec_eval_version),
                          measure_names=PREFS_MEASURES)
    runid = run_id_of(run_source, con) if "runid" in options.measures else None
    return pivot(DuckDBEngine(con).rows(sql).rows), {}, runid


def pivot(rows: list) -> tuple[list[str], dict[str, list[float]]]:
    """(query_id, measure, value) rows as columns: the query ids in the order of their bytes (trec_eval's
    order), and each measure's values in that order."""
    by_measure: dict[str, dict[str, float]] = {}
    for qid, measure, value in rows:
        by_measure.setdefault(measure, {})[qid] = value
    queries = sorted({qid for column in by_measure.values() for qid in column}, key=lambda q: q.encode("utf-8"))
    return queries, {measure: [column[qid] for qid in queries] for measure, column in by_measure.items()}


def _print(options: Options, lines: list[Line], measures: list[Measure], values: tuple[list[str], dict],
           relstrings: dict, runid: str | None, out, conventions) -> None:
    names = {str(m): m.resolve(conventions).shown for m in measures}  # as the statement names its rows
    queries, columns = values  # columns: measure -> its value for each query, in the order of queries
    zscores = read_zscores(options.zscores) if options.zscores else None
    keys = {id(line): names[str(line.measure)] if line.measure is not None else line.trec for line in lines}

    def value(line: Line, at: int) -> float:
        found = columns[keys[id(line)]][at]
        return found if zscores is None else zscore(zscores, queries[at], line.name, found)

    def per_query(line: Line) -> list[float]:
        found = columns[keys[id(line)]]
        if line.trec in ("gm_map", "gm_bpref"):
            found = [math.log(max(v, GEOMETRIC_FLOOR)) for v in found]
        if zscores is not None:
            found = [zscore(zscores, qid, line.name, v) for qid, v in zip(queries, found)]
        return found

    text: list[str] = []  # written out a piece at a time: -q prints a line per measure and query

    def write(pending: int = 1 << 16) -> None:
        if len(text) >= pending:
            out.write("".join(t + "\n" for t in text))
            text.clear()

    if options.per_query:
        for at, qid in enumerate(queries):
            write()
            for line in lines:
                if line.trec in ALL_ONLY:
                    continue
                if line.trec == "relstring":
                    text.append(f"{line.name:<22}\t{qid}\t'{relstrings.get(qid, '')}'")
                    continue
                text.append(_format(line.name, qid, value(line, at), line.trec, zscores is not None))
    if not options.no_summary:
        for line in lines:
            if line.trec in QUERY_ONLY:
                continue
            if line.trec == "runid":
                text.append(f"{'runid':<22}\tall\t{runid}")
                continue
            if line.trec == "num_q":
                text.append(_format("num_q", "all", len(queries), "num_q", zscores is not None))
                continue
            per = per_query(line)
            if line.trec in ("gm_map", "gm_bpref"):
                total = math.exp(add_in_order(per) / len(per)) if per else 0.0
            elif line.trec in COUNTS:
                total = sum(per)
                if line.trec == "num_rel" and options.complete and options.rel != 1 and zscores is None:
                    recount = columns[names[str(NUM_REL_RECOUNT)]]  # trec_eval 10 -c: rel > 0 recount
                    total = sum(recount)
            else:
                total = add_in_order(per) / len(per) if per else 0.0
            text.append(_format(line.name, "all", total, line.trec, zscores is not None))
    write(0)


def add_in_order(values: list[float]) -> float:
    """The values added one by one, as trec_eval's C loop adds each query's value to the summary.

    Python 3.12's ``sum`` of floats compensates rounding errors, so it can differ from that loop in
    the last bit, and a mean that sits on a 4-decimal rounding tie (P.10 over 16 queries: k/160)
    would then print another last digit.
    """
    total = 0.0
    for value in values:
        total += value
    return total


def _format(name: str, qid: str, value: float, trec: str, z: bool) -> str:
    """trec_eval's "%-22s\t%s\t%6.4f" (counts "%ld"); with -Z a 'Z' goes before the padded name."""
    if z:
        return f"Z{name:<22}\t{qid}\t{value:6.4f}"
    if trec in COUNTS:
        return f"{name:<22}\t{qid}\t{int(round(value))}"
    return f"{name:<22}\t{qid}\t{value:6.4f}"


def _require_all_qrels_queries(qrels: Source, run: Source, con) -> None:
    base = "split_part(query_id, chr(31), 1)" if qrels.groups else "query_id"
    missing = con.execute(
        f"SELECT count(*), min(query_id) FROM (SELECT DISTINCT {base} AS query_id FROM ({qrels.sql()}) AS qrels "
        f"EXCEPT SELECT DISTINCT query_id FROM ({run.sql()}) AS run) AS missing").fetchall()[0]
    if missing[0]:
        raise InputError(
            f"{missing[0]} qrels queries have no results in the run ({run.label}), e.g. {missing[1]!r}; trec_eval 10 "
            f"stops here too. Pass -c to score them 0 and average over all qrels queries")


def _require_no_duplicates_within(run: Source, depth: int, conventions, con) -> None:
    """Duplicates among the top `depth` documents of a query (in trec_eval's order) stop it."""
    order = DUCKDB.ranking_order("trec_eval", DUCKDB.score(conventions.trec_eval_version))
    top = (f"SELECT query_id, doc_id FROM (SELECT query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY query_id "
           f"ORDER BY {order}) AS rank FROM ({run.sql()}) AS run) AS ranked WHERE rank <= {int(depth)}")
    report_duplicates(run, con, top)
