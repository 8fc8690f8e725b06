"""``sqlrank trec_eval``: trec_eval 10's command line and output, computed by sqlrank's SQL.

Same options, measure names and nicknames, same measure order, number formatting and
per-query order, so that its output can replace trec_eval's byte for byte.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Sequence

import duckdb

from .conventions import resolve_conventions
from .engine import add_engine_arguments, engine_arguments, resolve_measures, session
from .errors import InputError, MeasureError, SqlrankError, duckdb_reason
from .inputs import GROUP_SEPARATOR, Source, load, report_duplicates
from .measures import Measure, parse_measure
from .templates import call_macro, quote_ident, ranking_order, render_evaluation, render_template, score_expression

# trec_eval's measures in the order it computes and prints them (measures.c, version 10).
# kind: "cut" (a list of cutoffs, one line each), "params" (one line, free parameters), "plain".
ORDER = [
    ("runid", "special"), ("num_q", "special"), ("num_ret", "plain"), ("num_rel", "plain"),
    ("num_rel_ret", "plain"), ("map", "plain"), ("gm_map", "plain"), ("Rprec", "plain"), ("bpref", "plain"),
    ("recip_rank", "plain"), ("iprec_at_recall", "cut"), ("P", "cut"), ("relstring", "special"),
    ("recall", "cut"), ("infAP", "plain"), ("gm_bpref", "plain"), ("Rprec_mult", "cut"),
    ("utility", "params"), ("11pt_avg", "params"), ("binG", "plain"), ("G", "params"), ("dcg", "params"),
    ("ideal_dcg", "params"), ("ndcg", "params"), ("ndcg_rel", "params"), ("Rndcg", "params"),
    ("ndcg_cut", "cut"), ("map_cut", "cut"), ("relative_P", "cut"), ("success", "cut"), ("set_P", "plain"),
    ("set_relative_P", "plain"), ("set_recall", "plain"), ("set_map", "plain"), ("set_F", "params"),
    ("num_nonrel_judged_ret", "plain"),
    ("prefs_num_prefs_poss", "prefs"), ("prefs_num_prefs_ful", "prefs"), ("prefs_num_prefs_ful_ret", "prefs"),
    ("prefs_simp", "prefs"), ("prefs_pair", "prefs"), ("prefs_avgjg", "prefs"), ("prefs_avgjg_Rnonrel", "prefs"),
    ("prefs_simp_ret", "prefs"), ("prefs_pair_ret", "prefs"), ("prefs_avgjg_ret", "prefs"),
    ("prefs_avgjg_Rnonrel_ret", "prefs"), ("prefs_simp_imp", "prefs"), ("prefs_pair_imp", "prefs"),
    ("prefs_avgjg_imp", "prefs"),
    ("map_avgjg", "plain"), ("P_avgjg", "cut"),
    ("Rprec_mult_avgjg", "cut"), ("yaap", "plain"), ("rbp", "params"), ("rbp_resid", "plain"),
    ("unj", "cut"),
]
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
MISSING_ZSCORE = -1000000.0
MIN_GEO_MEAN = 1e-5
PREFS_FORMATS = ("prefs", "qrels_prefs")
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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        self.exit(2, f"sqlrank trec_eval: error: {message} (see sqlrank trec_eval --help)\n")


def build_parser(prog: str = "sqlrank trec_eval") -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="trec_eval 10, computed in SQL: same options, measures and output.",
                epilog="Nicknames: official (default), set, all_trec, qrels_jg, prefs, all_prefs. "
                       "Measure parameters as in trec_eval: "
                       "-m P.5,10 -m ndcg_cut.10 -m ndcg.1=3,2=9 -m utility.2,-1,0,0 -m relstring.20.")
    p.add_argument("qrels", metavar="QRELS", help="qrels file (any format sqlrank reads)")
    p.add_argument("run", metavar="RUN", help="run file, or - for standard input")
    p.add_argument("-q", action="store_true", dest="per_query", help="also print each query's values")
    p.add_argument("-c", action="store_true", dest="complete",
                   help="average over all qrels queries; those missing from the run score 0")
    p.add_argument("-n", action="store_true", dest="no_summary", help="no summary (the 'all' lines)")
    p.add_argument("-J", action="store_true", dest="judged_only", help="only judged documents, re-ranked")
    p.add_argument("-M", type=int, dest="depth", metavar="N", help="only the top N documents per query")
    p.add_argument("-l", type=int, dest="rel", default=1, metavar="N", help="relevant means label >= N (default 1)")
    p.add_argument("-N", type=int, dest="num_docs", default=0, metavar="N", help="documents in the collection (utility)")
    p.add_argument("-m", action="append", dest="measures", metavar="MEASURE[.PARAMS]",
                   help="a measure or nickname; repeatable (default: official)")
    p.add_argument("-R", dest="format", default="qrels", metavar="FORMAT",
                   help="judgments format: qrels (default), qrels_jg (judgment groups in column 2), "
                        "prefs (qid jg jsg docno level), qrels_prefs (qrels read as preferences)")
    p.add_argument("-T", dest="results_format", default="trec_results", metavar="FORMAT",
                   help="results format: trec_results (the only one, as in trec_eval)")
    p.add_argument("-Z", dest="zscores", metavar="FILE", help="print z-scores against this table of means and stddevs")
    p.add_argument("--trec-eval-version", type=int, choices=(9, 10), default=10, dest="version",
                   help="10 (default), or 9 to reproduce pytrec_eval and trec_eval 9.x")
    add_engine_arguments(p)
    return p


def parse_options(argv: Sequence[str]) -> Options:
    args = build_parser().parse_args(argv)
    if args.format not in ("qrels", "qrels_jg") + PREFS_FORMATS:
        hint = " (trec_results is the -T results format)" if args.format == "trec_results" else ""
        raise SqlrankError(f"unknown -R format {args.format!r}; trec_eval's judgment formats are qrels (the "
                           f"default), qrels_jg, prefs, qrels_prefs{hint}")
    if args.results_format != "trec_results":
        raise SqlrankError(f"unknown -T format {args.results_format!r}; trec_eval's only results format is trec_results")
    options = Options(args.qrels, args.run, args.per_query, args.complete, args.no_summary, args.judged_only,
                      args.depth, args.rel, args.num_docs, args.zscores, args.version,
                      groups=args.format == "qrels_jg",
                      prefs=args.format if args.format in PREFS_FORMATS else None, engine=engine_arguments(args))
    for spec in args.measures or ["official"]:
        _request(options.measures, spec)
    kinds = {KIND[name] for name in options.measures} - {"special"}
    if options.prefs and kinds - {"prefs"}:
        raise MeasureError(f"-R {options.prefs} reads preference judgments: only the prefs_* measures apply "
                           f"(-m all_prefs), not {sorted(n for n in options.measures if KIND[n] not in ('prefs', 'special'))}")
    if not options.prefs and "prefs" in kinds:
        raise MeasureError("the prefs_* measures need preference judgments: add -R prefs or -R qrels_prefs")
    return options


def _request(requested: dict[str, str | None], spec: str) -> None:
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
    with _run_file(options.run) as run_path, session(None, **options.engine) as (con, registry):
        evaluate = _evaluate_prefs if options.prefs else _evaluate
        rows, relstrings, runid = evaluate(options, lines, measures, run_path, con, registry, conventions)
    _print(options, lines, measures, rows, relstrings, runid, out, resolve_conventions(**conventions))


def _evaluate(options: Options, lines: list[Line], measures: list[Measure], run_path: str, con, registry,
              conventions: dict) -> tuple[list, dict, str | None]:
    """The qrels measures: (query_id, measure, value) rows, relstrings and the run id."""
    qrels = load(options.qrels, "qrels", con, registry, groups=options.groups)
    # trec_eval cuts each query at -M before it looks for duplicates: a copy below the cut is dropped.
    run_source = load(run_path, "run", con, registry, allow_duplicates=options.depth is not None)
    resolved_conventions = resolve_conventions(**conventions)
    if options.depth is not None:
        _require_no_duplicates_within(run_source, options.depth, resolved_conventions, con)
    if not options.complete:
        _require_all_qrels_queries(qrels, run_source, con)
    resolved = resolve_measures(measures or [Measure("NumQ")], resolved_conventions)
    run_sql = run_source.sql()
    if options.groups:
        run_sql = call_macro("_macros/inputs.sql", "run_per_group", run_sql).strip()
    reread = qrels.rescannable and run_source.rescannable
    sql = render_evaluation(qrels.sql(), run_sql, resolved, resolved_conventions, "per_query", reread_inputs=reread)
    try:
        rows = con.execute(sql).fetchall()  # (query_id, measure, value)
    except duckdb.Error as exc:
        raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None
    relstrings = {}
    if "relstring" in options.measures and options.per_query:
        length = int(float(options.measures["relstring"] or 10))
        sql = render_evaluation(qrels.sql(), run_sql, [], resolved_conventions, "relstring", max(length, 0),
                                reread_inputs=reread)
        relstrings = dict(con.execute(sql).fetchall())
    runid = _runid(run_source, con) if "runid" in options.measures else None
    if options.groups:  # average over the judgment groups of each query
        groups: dict = {}
        for qid, measure, value in rows:
            groups.setdefault((qid.split(GROUP_SEPARATOR, 1)[0], measure), []).append(value)
        rows = [(qid, measure, sum(v) / len(v)) for (qid, measure), v in groups.items()]
    return rows, relstrings, runid


def _evaluate_prefs(options: Options, lines: list[Line], measures: list[Measure], run_path: str, con, registry,
                    conventions: dict) -> tuple[list, dict, str | None]:
    """Preference measures: read the judgments once, validate them, run sql/prefs.sql."""
    layout = options.prefs
    path = options.qrels
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such preference judgments file")
    table = registry.materialize(call_macro("_macros/inputs.sql", "prefs", path, layout, "raw").strip(), "prefs")
    fields = 5 if layout == "prefs" else 4
    shape = "qid jg jsg docno rel_level" if layout == "prefs" else "qid jg docno rel_level"
    bad = con.execute(f"SELECT count(*) FILTER (WHERE field_count <> {fields}), "
                      f"count(*) FILTER (WHERE TRY_CAST(rel_level AS DOUBLE) IS NULL OR isnan(TRY_CAST(rel_level AS DOUBLE))), "
                      f"count(*) FROM {quote_ident(table)}").fetchall()[0]
    if bad[2] == 0:
        raise InputError(f"{path}: the preference judgments have no data lines")
    if bad[0] or bad[1]:
        cond = f"field_count <> {fields}" if bad[0] else "TRY_CAST(rel_level AS DOUBLE) IS NULL"
        position, line = con.execute(
            f"SELECT position, line FROM ({call_macro('_macros/inputs.sql', 'prefs', path, layout, 'numbered')}) "
            f"AS lines WHERE {cond} ORDER BY position LIMIT 1").fetchall()[0]
        what = f"expected {fields} fields '{shape}'" if bad[0] else "the relevance level is not a number"
        raise InputError(f"{path}:{position}: malformed -R {layout} line: {what}: {line.strip()!r}")
    run_source = load(run_path, "run", con, registry)
    prefs_sql = (f"SELECT query_id, jg, jsg, doc_id, CAST(rel_level AS DOUBLE) AS rel_level "
                 f"FROM {quote_ident(table)}")
    if not options.complete:
        missing = con.execute(
            f"SELECT count(*), min(query_id) FROM (SELECT DISTINCT query_id FROM {quote_ident(table)} "
            f"EXCEPT SELECT DISTINCT query_id FROM ({run_source.sql()}) AS run) AS missing").fetchall()[0]
        if missing[0]:
            raise InputError(f"{missing[0]} queries of the preference judgments have no results in the run, e.g. "
                             f"{missing[1]!r}; trec_eval 10 stops here too. Pass -c to score them 0")
    resolved = resolve_conventions(**conventions)
    sql = render_template("prefs.sql", prefs_sql=prefs_sql, run_sql=run_source.sql(),
                          missing_queries=resolved.missing_queries, depth=resolved.depth,
                          score_order=score_expression(resolved.trec_eval_version),
                          measure_names=PREFS_MEASURES)
    runid = _runid(run_source, con) if "runid" in options.measures else None
    try:
        return con.execute(sql).fetchall(), {}, runid
    except duckdb.Error as exc:
        raise InputError(f"evaluation failed in DuckDB: {duckdb_reason(exc)}") from None


def _print(options: Options, lines: list[Line], measures: list[Measure], rows: list, relstrings: dict,
           runid: str | None, out, conventions) -> None:
    names = {str(m): str(m.resolve(conventions)) for m in measures}
    values = {(qid, measure): value for qid, measure, value in rows}
    queries = sorted({qid for qid, _, _ in rows}, key=lambda q: q.encode("utf-8"))
    zscores = _read_zscores(options.zscores) if options.zscores else None

    def value(line: Line, qid: str) -> float:
        v = values[(qid, names[str(line.measure)] if line.measure is not None else line.trec)]
        if line.trec in ("gm_map", "gm_bpref"):
            v = math.log(max(v, MIN_GEO_MEAN))
        return _zscore(zscores, qid, line.name, v) if zscores is not None else v

    text = []
    if options.per_query:
        for qid in queries:
            for line in lines:
                if line.trec in ALL_ONLY:
                    continue
                if line.trec == "relstring":
                    text.append(f"{line.name:<22}\t{qid}\t'{relstrings.get(qid, '')}'")
                    continue
                text.append(_format(line.name, qid, value(line, qid), line.trec, zscores is not None))
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
            per = [value(line, q) for q in queries]
            if line.trec in ("gm_map", "gm_bpref"):
                total = math.exp(sum(per) / len(per)) if per else 0.0
            elif line.trec in COUNTS:
                total = sum(per)
                if line.trec == "num_rel" and options.complete and options.rel != 1 and zscores is None:
                    recount = names[str(NUM_REL_RECOUNT)]  # trec_eval 10 -c: rel > 0 recount
                    total = sum(values[(q, recount)] for q in queries)
            else:
                total = sum(per) / len(per) if per else 0.0
            text.append(_format(line.name, "all", total, line.trec, zscores is not None))
    out.write("".join(t + "\n" for t in text))


def _format(name: str, qid: str, value: float, trec: str, z: bool) -> str:
    """trec_eval's "%-22s\t%s\t%6.4f" (counts "%ld"); with -Z a 'Z' goes before the padded name."""
    if z:
        return f"Z{name:<22}\t{qid}\t{value:6.4f}"
    if trec in COUNTS:
        return f"{name:<22}\t{qid}\t{int(round(value))}"
    return f"{name:<22}\t{qid}\t{value:6.4f}"


def _zscore(zscores: dict, qid: str, name: str, value: float) -> float:
    entry = zscores.get(qid, {}).get(name)
    if entry is None:
        return MISSING_ZSCORE
    mean, stddev = entry
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def _read_zscores(path: str) -> dict:
    """``qid measure mean stddev`` lines; a small table, so read in Python."""
    table: dict = {}
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the z-score file: {exc.strerror}") from None
    with handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 4:
                raise InputError(f"{path}:{number}: expected 'qid measure mean stddev', found {len(fields)} fields")
            try:
                mean, stddev = float(fields[2]), float(fields[3])
            except ValueError:
                raise InputError(f"{path}:{number}: mean and stddev must be numbers: {line.strip()!r}") from None
            table.setdefault(fields[0], {})[fields[1]] = (mean, stddev)
    return table


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
    order = ranking_order("trec_eval", score_expression(conventions.trec_eval_version))
    top = (f"SELECT query_id, doc_id FROM (SELECT query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY query_id "
           f"ORDER BY {order}) AS rank FROM ({run.sql()}) AS run) AS ranked WHERE rank <= {int(depth)}")
    report_duplicates(run, con, top)


def _runid(run: Source, con) -> str:
    """The run tag of the last data line, as trec_eval prints it; the file name for other formats."""
    if run.format != "trec":
        return os.path.splitext(os.path.basename(run.label))[0]
    if not run.path.lower().endswith(".gz"):
        line = _last_data_line(run.path)
        if line is not None:
            return line.split()[5]
    row = con.execute(f"SELECT line FROM ({run.sql('numbered')}) AS lines ORDER BY position DESC LIMIT 1").fetchall()[0]
    return row[0].split()[5]


def _last_data_line(path: str, block: int = 1 << 16) -> str | None:
    """The last line that is neither blank nor a comment, read from the end of the file."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        tail = b""
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            tail = handle.read(end - start) + tail
            end = start
            lines = tail.split(b"\n")
            for raw in reversed(lines[1:] if start > 0 else lines):
                text = raw.decode("utf-8", errors="replace").strip()
                if text and not text.startswith("#"):
                    return text
    return None


class _run_file:
    """The run path; standard input ('-') is first copied to a temporary file, unparsed."""

    def __init__(self, path: str):
        self.path, self.tmp = path, None

    def __enter__(self) -> str:
        if self.path != "-":
            return self.path
        fd, self.tmp = tempfile.mkstemp(prefix="sqlrank-stdin-", suffix=".run")
        with os.fdopen(fd, "wb") as handle:
            shutil.copyfileobj(sys.stdin.buffer, handle)
        return self.tmp

    def __exit__(self, *exc) -> None:
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)


def main(argv: Sequence[str]) -> int:
    options = parse_options(argv)
    run(options, sys.stdout)
    return 0
