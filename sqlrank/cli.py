"""The command line: ``sqlrank eval QRELS RUN -m "nDCG@10 AP P@10"``.

Results go to stdout (or, with -o, to a file written atomically), warnings and errors to
stderr. A user mistake gives a one-line error and exit status 1, never a traceback.
"""
from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from .conventions import (AP_DENOMINATORS, CORRECTIONS, DISCOUNTS, GAINS, IDEALS, MISSING_QUERIES, NO_RELEVANT,
                          DUPLICATE_DOCUMENTS, NONPOSITIVE_SCORES, TESTS, TIE_BREAKS, UNJUDGED_QUERIES)
from .errors import MeasureError, OptionError, SqlrankError
from .measures import FAMILIES
from .presets import PRESETS
from .progress import configure, forget
from .outputs import refuse_inputs, write_output
from .results import OUTPUT_FORMATS, overall_label
from .sources import FORMATS
from .templates import DIALECTS

EXIT_ERROR = 1


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as argparse does, but no usage dump
        self.exit(2, f"sqlrank: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sqlrank",
        description="Evaluate ranked results against relevance judgments, in SQL, with named conventions.",
    )
    parser.add_argument("--version", action="version", version=f"sqlrank {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    ev = commands.add_parser(
        "eval", help="evaluate a run against qrels",
        description="Evaluate RUN against QRELS. Files are TREC text, CSV/TSV with a header or Parquet "
                    "(TREC and CSV/TSV also .gz); the format comes from the file name unless given.",
        epilog="measures: " + ", ".join(FAMILIES) + " in ir_measures syntax (nDCG@10, AP(rel=2)@100, P@5) "
               "or trec_eval syntax (ndcg_cut.10, P.5,10, map, recip_rank).")
    ev.add_argument("qrels", metavar="QRELS", help="relevance judgments: query_id, doc_id, relevance")
    ev.add_argument("run", metavar="RUN", help="ranked results: query_id, doc_id, score")
    add_evaluation_arguments(ev)
    ev.add_argument("-q", "--per-query", action="store_true", help="one value per query and measure")
    ev.add_argument("-f", "--format", choices=OUTPUT_FORMATS, default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of the Python DataFrame")
    ev.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    ev.add_argument("--strict", action="store_true",
                    help="fail (exit 1, nothing written) instead of warning about what can change a number")
    ev.add_argument("--engine", choices=("duckdb", "spark", "postgres", "datafusion", "clickhouse"), default="duckdb",
                    help="where the statement runs: DuckDB (default), a local Spark session (pip install "
                         "'sqlrank[spark]'; needs Java 17+), the PostgreSQL database at --dsn (pip install "
                         "'sqlrank[postgres]'; QRELS and RUN are its tables, or files copied into temporary tables) "
                         "DataFusion (pip install 'sqlrank[datafusion]') or ClickHouse (chDB, pip install "
                         "'sqlrank[clickhouse]') in this process")
    ev.add_argument("--dsn", metavar="URL",
                    help="with --engine postgres: the database, e.g. postgresql://user@host:5432/db or "
                         "postgresql://user@/db?host=/var/run/postgresql")
    ev.add_argument("--slices", type=int, metavar="N",
                    help="evaluate the queries in N groups, one after another, so that each step holds "
                         "1/N of the run (for runs far larger than memory; default 1)")
    ev.set_defaults(handler=_eval)
    sq = commands.add_parser(
        "sql", help="print the SQL statement of an evaluation (DuckDB or Spark SQL)",
        description="Print the exact statement sqlrank eval runs for these arguments, reading QRELS and RUN "
                    "themselves (files, or table names); pasted into a DuckDB shell (or spark.sql) it returns the "
                    "rows of sqlrank eval -f csv: query_id, measure, value with -q, else measure, value.")
    sq.add_argument("qrels", metavar="QRELS", help="relevance judgments: a file or a table name")
    sq.add_argument("run", metavar="RUN", help="ranked results: a file or a table name")
    add_evaluation_arguments(sq)
    sq.add_argument("-q", "--per-query", action="store_true", help="one row per query and measure")
    sq.add_argument("--dialect", choices=DIALECTS, default="duckdb",
                    help="duckdb (default), spark, postgres, datafusion, clickhouse, trino, bigquery or snowflake "
                         "(all but the first two read tables: name them, with --database for their columns)")
    sq.add_argument("-o", "--output", metavar="FILE", help="write the SQL to FILE (atomically) instead of stdout")
    sq.set_defaults(handler=_sql)
    ins = commands.add_parser(
        "install", help="create sqlrank's table macros in a DuckDB database file, for plain SQL",
        description="Create table macros in schema sqlrank of DB_FILE (made if absent): sqlrank.evaluate(qrels, run, "
                    "measures) and sqlrank.evaluate_per_query(...) for the installed measures (trec_eval's usual "
                    "cutoffs, and -m), and per family with a cutoff parameter: sqlrank.ndcg(qrels, run, k), "
                    "sqlrank.p, sqlrank.recall, sqlrank.ap(qrels, run), ... run and qrels are table or view names.")
    ins.add_argument("database", metavar="DB_FILE", help="the DuckDB database file")
    ins.add_argument("-m", "--measures", action="append", metavar="MEASURES",
                     help="more measures for sqlrank.evaluate (e.g. -m 'nDCG@7 RBP(p=0.8)')")
    ins.add_argument("--print", action="store_true", dest="print_sql",
                     help="print the CREATE statements instead of running them")
    ins.add_argument("--force", action="store_true",
                     help="replace functions of the same names that sqlrank did not create (each is named); by "
                          "default they are left as they are, and nothing is changed")
    ins.set_defaults(handler=_install)
    ck = commands.add_parser(
        "check", help="a data-quality report on qrels and runs: what could change a number",
        description="Check QRELS and each RUN for duplicates, conflicting labels, queries on one side only, "
                    "queries without relevant documents, ties across cutoffs, a rank column that disagrees with "
                    "the scores, unjudged documents in the top k, ids that differ only by white space or leading "
                    "zeros, and the label histogram; with --history or --items, a recommender's inputs too.")
    ck.add_argument("qrels", metavar="QRELS", help="relevance judgments: query_id, doc_id, relevance")
    ck.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs: query_id, doc_id, score")
    ck.add_argument("-m", "--measures", action="append", metavar="MEASURES",
                    help="count ties at these measures' cutoffs (default: 5, 10, 20, 100, 1000)")
    ck.add_argument("-l", "--rel", type=int, metavar="N", help="minimum relevant label (default 1)")
    ck.add_argument("--strict", action="store_true", help="exit 1 when anything found can change a number")
    ck.add_argument("-f", "--format", choices=("table", "json", "csv"), default="table",
                    help="output layout (default: table); json and csv have one record per finding")
    ck.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    ck.add_argument("--history", metavar="FILE",
                    help="a recommender's training interactions (user, item): recommendations the user has seen, "
                         "users without history, items outside the catalog")
    ck.add_argument("--items", metavar="FILE", help="the item catalog (an item column): recommended items outside it")
    add_input_arguments(ck)
    ck.set_defaults(handler=_check)
    co = commands.add_parser(
        "compare", help="compare runs with a baseline: means, deltas, paired tests, GSB",
        description="Compare each RUN with the first (the baseline) per measure over the queries evaluated "
                    "for every run: mean, delta, wins/ties/losses, a two-sided paired test, the p-value adjusted "
                    "over all comparisons, a 95% confidence interval of the mean difference and an effect size.")
    add_comparison_arguments(co)
    co.add_argument("-f", "--format", choices=COMPARE_FORMATS, default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of sqlrank.compare()")
    co.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    co.set_defaults(handler=_compare)
    rp = commands.add_parser(
        "report", help="a comparison as one self-contained HTML page (or Markdown, LaTeX)",
        description="Write the comparison of sqlrank compare as an HTML page with the table, significance marks, "
                    "per-query difference plots, score distributions and per-segment tables (no scripts, nothing "
                    "fetched), or as a Markdown or LaTeX table for papers.")
    add_comparison_arguments(rp)
    rp.add_argument("-f", "--format", choices=("html", "markdown", "latex"), default="html",
                    help="html (default): the page with plots; markdown or latex: the tables only")
    rp.add_argument("-o", "--output", metavar="FILE", required=True, help="the report file (written atomically)")
    rp.set_defaults(handler=_report)
    gs = commands.add_parser(
        "gsb", help="GSB = (good - bad) / (good + same + bad) from side-by-side verdicts",
        description="Count side-by-side verdicts of a new system against the current one (column verdict: "
                    "good/same/bad or G/S/B, any case), overall and per value of --by.")
    gs.add_argument("verdicts", metavar="VERDICTS", help="CSV, TSV or Parquet with a verdict column")
    gs.add_argument("--by", metavar="COLUMN", help="also count per value of this column (e.g. query_id)")
    gs.add_argument("-f", "--format", choices=("table", "csv", "tsv", "json"), default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of sqlrank.gsb()")
    gs.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    gs.set_defaults(handler=_gsb)
    ex = commands.add_parser(
        "explain", help="which conventions reproduce a number; what makes two presets differ",
        description="With --target: try every combination of the conventions that apply to the measure and "
                    "list those that reproduce the number (within half a unit of its last printed decimal, or "
                    "--tolerance). With --between: walk from one set of conventions to another, one convention "
                    "at a time, and show how much each step moves the value, per query and in the mean.")
    ex.add_argument("qrels", metavar="QRELS", help="relevance judgments: query_id, doc_id, relevance")
    ex.add_argument("run", metavar="RUN", help="ranked results: query_id, doc_id, score")
    add_input_arguments(ex)
    ex.add_argument("-m", "--measure", required=True, help="one measure, e.g. nDCG@10")
    what = ex.add_mutually_exclusive_group(required=True)
    what.add_argument("--target", help="the number to reproduce, as printed (its decimals set the precision)")
    what.add_argument("--between", nargs=2, metavar=("FROM", "TO"),
                      help="two presets, or preset=NAME,field=value,... settings")
    ex.add_argument("--tolerance", type=float, help="with --target: accept |value - target| <= this")
    ex.add_argument("--query", help="with --target: reproduce this query's value instead of the mean")
    ex.add_argument("--run-id", metavar="NAME",
                    help="the run to explain, where RUN holds runs stored together (a run_id column)")
    ex.add_argument("--all", action="store_true", help="with --target: list every match, not the ten simplest")
    ex.add_argument("-f", "--format", choices=("table", "csv"), default="table",
                    help="output layout (default: table); csv has every combination's value in full precision")
    ex.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    ex.set_defaults(handler=_explain)
    dbt = commands.add_parser(
        "dbt", help="write a dbt package: the evaluation as macros per adapter, a model and input tests",
        description="Write (or add to) a dbt package in DIR: macro sqlrank.NAME(qrels, run) with the evaluation's "
                    "SQL for dbt-duckdb and dbt-postgres, a table model NAME on ref(var('sqlrank_qrels')) and "
                    "ref(var('sqlrank_run')) (rows query_id, measure, value), and a test that the inputs repeat "
                    "no document. Add the folder to your project's packages.yml (local: DIR), set the two vars, "
                    "then dbt run and dbt test.")
    dbt.add_argument("folder", metavar="DIR", help="the package's folder (made if absent)")
    dbt.add_argument("-m", "--measures", action="append", required=True, metavar="MEASURES",
                     help='measures, separated by spaces; repeatable (e.g. -m "nDCG@10 AP P@10")')
    dbt.add_argument("--name", default="evaluation",
                     help="the evaluation's name: its macro, model and test (default: evaluation)")
    dbt.add_argument("--force", action="store_true",
                     help="replace files in DIR that sqlrank did not write (by default they are left as they are, "
                          "and nothing is written)")
    add_convention_arguments(dbt)
    dbt.set_defaults(handler=_dbt)
    ms = commands.add_parser(
        "measures", help="list the measures: names, trec_eval names, parameters, definitions",
        description="List every measure family sqlrank computes: its names (ir_measures syntax, other spellings, "
                    "trec_eval's), its own parameters with their defaults (besides the conventions), how it is "
                    "averaged over queries, and its definition.")
    ms.add_argument("-f", "--format", choices=("table", "markdown", "csv", "json"), default="table",
                    help="output layout (default: table; markdown is the table of docs/measures.md)")
    ms.add_argument("-o", "--output", metavar="FILE", help="write the list to FILE (atomically) instead of stdout")
    ms.set_defaults(handler=_measures)
    commands.add_parser("trec_eval", add_help=False, help="trec_eval's command line and output, computed in SQL "
                        "(sqlrank trec_eval --help)")
    return parser


def add_evaluation_arguments(parser: argparse.ArgumentParser) -> None:
    """Measures, input layout, segments, conventions and engine flags: shared by eval, compare, report."""
    parser.add_argument("-m", "--measures", action="append", required=True, metavar="MEASURES",
                        help='measures, separated by spaces; repeatable (e.g. -m "nDCG@10 AP P@10")')
    add_input_arguments(parser)
    seg = parser.add_argument_group("query table")
    seg.add_argument("--queries", metavar="FILE",
                     help="query table (CSV, TSV or Parquet) with a query_id (or user_id) column: alone, the queries to "
                          "evaluate, every one (0 where neither run nor qrels has it); with --by, attributes to group by")
    seg.add_argument("--by", metavar="COLUMN", help="results overall and per value of this column of --queries")
    rec = parser.add_argument_group("recommenders: inputs of the measures beyond accuracy")
    rec.add_argument("--history", metavar="FILE",
                     help="training interactions (user, item columns named as in the run): popularity, novelty, "
                          "co-occurrence similarity, --remove-seen")
    rec.add_argument("--remove-seen", action="store_true", dest="remove_seen",
                     help="leave each user's --history items out of the run before it is ranked and cut at k")
    rec.add_argument("--items", metavar="FILE", help="the item catalog (an item column): coverage and Gini")
    rec.add_argument("--item-features", metavar="FILE", dest="item_features",
                     help="an item column and a category (text) or features (a list of numbers) column: "
                          "similarity=features")
    add_convention_arguments(parser)
    add_engine_arguments(parser)


def add_convention_arguments(parser: argparse.ArgumentParser) -> None:
    """The convention flags (eval, compare, report, sql, dbt)."""
    conv = parser.add_argument_group("conventions (defaults: trec_eval's)")
    conv.add_argument("-l", "--rel", type=int, metavar="N",
                      help="minimum label that counts as relevant (default 1; nDCG ignores it)")
    conv.add_argument("--missing-queries", choices=MISSING_QUERIES,
                      help="qrels queries without results: skip them (default) or score them 0 (trec_eval -c)")
    conv.add_argument("-c", dest="missing_queries", action="store_const", const="zero",
                      help="same as --missing-queries zero")
    conv.add_argument("--unjudged-queries", choices=UNJUDGED_QUERIES,
                      help="run queries without judgments: skip them (default) or score them 0 (Spark MLlib, "
                           "Elasticsearch)")
    conv.add_argument("--no-relevant", choices=NO_RELEVANT,
                      help="queries (users) without a judgment >= --rel: score them 0 (default, trec_eval) or skip "
                           "them (RecBole, Microsoft Recommenders)")
    conv.add_argument("-J", "--judged-only", action="store_true", default=None,
                      help="drop unjudged retrieved documents and re-rank (trec_eval -J)")
    conv.add_argument("-M", "--depth", type=int, metavar="N", help="keep the top N documents per query (trec_eval -M)")
    conv.add_argument("--unjudged-label", type=int, metavar="N",
                      help="the label of retrieved documents without a judgment (Elasticsearch's unknown_doc_rating); "
                           "default: none, they are unjudged")
    conv.add_argument("--duplicate-documents", choices=DUPLICATE_DOCUMENTS,
                      help="a document ranked twice for a query: refuse (default), or rows: rank every row, counting "
                           "a relevant document as often as it is listed (ranx, Microsoft Recommenders)")
    conv.add_argument("--nonpositive-scores", choices=NONPOSITIVE_SCORES,
                      help="rank (default), or nonrelevant: documents scored <= 0 are never relevant (TorchMetrics)")
    conv.add_argument("--trec-eval-version", type=int, choices=(9, 10), dest="trec_eval_version",
                      help="10 (default), or 9: 32-bit float scores and floor(x*R+0.9) recall levels, as pytrec_eval")
    conv.add_argument("--preset", choices=sorted(PRESETS), help="another tool's conventions (default: trec_eval)")
    conv.add_argument("--tie-break", choices=TIE_BREAKS, help="order of tied scores (default trec_eval: doc_id desc)")
    conv.add_argument("--gain", type=_gain, metavar="GAIN",
                      help="linear (default), exponential (2^label - 1), or LABEL=GAIN pairs such as 1=3,2=9")
    conv.add_argument("--discount", type=_discount, metavar="DISCOUNT",
                      help="log: 1/log_b(i+1) (default); jarvelin: 1 up to rank b, then 1/log_b(i); or RANK=WEIGHT "
                           "pairs such as 1=1,2=0.5 (a rank left out weighs 0)")
    conv.add_argument("--log-base", type=_log_base, metavar="B", help="base b of the discount: 2 (default), e, 10, ...")
    conv.add_argument("--ideal", choices=IDEALS, help="nDCG's ideal ranking: qrels (default), run, perfect")
    conv.add_argument("--ap-denominator", choices=AP_DENOMINATORS,
                      help="AP divides by num_rel (default), retrieved_relevant or min_num_rel_cutoff")
    conv.add_argument("--conventions", metavar="LINE", type=_conventions_line,
                      help="a conventions line as sqlrank prints it (or part of one), pasted back: the same numbers; "
                           "the flags above override it")


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """How QRELS and RUN are read: formats, column names, a DuckDB database file (eval, compare,
    report, sql, check, explain)."""
    parser.add_argument("--qrels-format", choices=FORMATS, help="format of QRELS (default: from the file name)")
    parser.add_argument("--run-format", choices=FORMATS, help="format of the runs (default: from the file name)")
    parser.add_argument("--qrels-columns", metavar="MAP", type=_mapping,
                        help="column names of QRELS, e.g. query_id=qid,doc_id=docno,relevance=label; relevance= "
                             "(empty): implicit feedback, every listed pair is relevant (label 1)")
    parser.add_argument("--run-columns", metavar="MAP", type=_mapping,
                        help="column names of the runs, e.g. query_id=user_id,doc_id=item_id,score=pred")
    add_database_argument(parser)


def add_database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database", metavar="DB_FILE",
                        help="a DuckDB database file in which QRELS and RUN may be table or view names "
                             "(opened read-only)")


@contextmanager
def database_options(args: argparse.Namespace, options: dict) -> Iterator[dict]:
    """The options with connection= the DuckDB database file of --database (read-only, with the
    resource flags applied to it), closed at the end; the options unchanged without --database."""
    if not getattr(args, "database", None):
        yield options
        return
    import duckdb

    from .engine import engine_config
    from .errors import duckdb_reason

    if not os.path.isfile(args.database):
        raise OptionError(f"{args.database}: no such DuckDB database file")
    config = engine_config(options.pop("memory_limit", None), options.pop("temp_directory", None),
                           options.pop("threads", None))
    progress = options.pop("progress", False)
    try:
        connection = duckdb.connect(args.database, read_only=True, config=config)
    except duckdb.Error as exc:
        raise OptionError(f"{args.database}: cannot open it as a DuckDB database: {duckdb_reason(exc)}") from None
    try:
        configure(connection, progress)
        yield {**options, "connection": connection}
    finally:
        forget(connection)
        connection.close()


def evaluation_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of sqlrank.evaluate() (and compare()) from the shared flags."""
    return dict(qrels_format=args.qrels_format, run_format=args.run_format,
                qrels_columns=args.qrels_columns, run_columns=args.run_columns, queries=args.queries, by=args.by,
                history=args.history, items=args.items, item_features=args.item_features,
                remove_seen=args.remove_seen, **convention_options(args), **engine_arguments(args))


def convention_options(args: argparse.Namespace) -> dict:
    """The conventions and preset given by add_convention_arguments' flags (None: not given), over
    those of a pasted --conventions line."""
    flags = dict(rel=args.rel, missing_queries=args.missing_queries, no_relevant=args.no_relevant,
                 unjudged_queries=args.unjudged_queries, unjudged_label=args.unjudged_label,
                 nonpositive_scores=args.nonpositive_scores, duplicate_documents=args.duplicate_documents,
                 judged_only=args.judged_only, depth=args.depth, trec_eval_version=args.trec_eval_version,
                 preset=args.preset, tie_break=args.tie_break, gain=args.gain, discount=args.discount,
                 log_base=args.log_base, ideal=args.ideal, ap_denominator=args.ap_denominator)
    pasted = args.conventions or {}
    return {**flags, **{key: value for key, value in pasted.items() if flags.get(key) is None}}


def _conventions_line(text: str) -> dict:
    from .conventions import parse_conventions

    try:
        return parse_conventions(text)
    except SqlrankError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


COMPARE_FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


def add_comparison_arguments(parser: argparse.ArgumentParser) -> None:
    """The inputs and options of compare and report."""
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgments: query_id, doc_id, relevance")
    parser.add_argument("runs", metavar="RUN", nargs="+",
                        help="two or more runs, the first the baseline; a table of runs stored together (a run_id "
                             "column) stands for its runs, in run id order")
    add_evaluation_arguments(parser)
    group = parser.add_argument_group("comparison")
    group.add_argument("--names", type=lambda text: text.split(","), metavar="A,B,...",
                       help="names of the runs in the output (default: their file names, or run ids)")
    group.add_argument("--baseline", metavar="NAME", help="the run the others are compared with (default: the first)")
    group.add_argument("--test", choices=TESTS, default="t",
                       help="paired test: t (default), wilcoxon, sign, permutation (randomization), bootstrap")
    group.add_argument("--correction", choices=CORRECTIONS, default="none",
                       help="adjust p-values over all comparisons: none (default), bonferroni, holm, bh")
    group.add_argument("--trials", type=int, default=10_000, metavar="N",
                       help="resamples of the permutation and bootstrap tests (default 10000)")
    group.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of those resamples (default 0)")
    group.add_argument("--gsb", action="store_true",
                       help="add good/same/bad counts of queries and GSB = (good - bad) / queries")
    group.add_argument("--tolerance", type=float, default=0.0, metavar="X",
                       help="a query is a tie (same) when its values differ by at most X (default 0)")


def add_engine_arguments(parser):
    """The resource flags of the command lines (sqlrank eval, sqlrank trec_eval)."""
    group = parser.add_argument_group("engine")
    group.add_argument("--memory-limit", metavar="SIZE",
                       help="DuckDB's memory limit, e.g. 4GB (default: 80%% of RAM); larger work spills to disk")
    group.add_argument("--temp-directory", metavar="DIR",
                       help="where spilled data goes (default: .tmp in the working directory)")
    group.add_argument("--threads", type=int, metavar="N", help="worker threads (default: all cores)")
    return group


def engine_arguments(args) -> dict[str, Any]:
    """session() options from parsed command-line flags. Steps longer than a second show a labelled
    progress line on standard error when that is a terminal (sqlrank.progress); never in a pipe
    or a file."""
    return dict(memory_limit=args.memory_limit, temp_directory=args.temp_directory, threads=args.threads,
                progress=sys.stderr.isatty())


class _TrecEvalParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        self.exit(2, f"sqlrank trec_eval: error: {message} (see sqlrank trec_eval --help)\n")


def trec_eval_parser(prog: str = "sqlrank trec_eval") -> argparse.ArgumentParser:
    """trec_eval 10's command line."""
    p = _TrecEvalParser(prog=prog, description="trec_eval 10, computed in SQL: same options, measures and output.",
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
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the output to FILE (atomically, once complete) instead of stdout (not in trec_eval)")
    add_engine_arguments(p).add_argument(
        "--slices", type=int, metavar="N",
        help="evaluate the queries in N groups, one after another (default: one group per 3.5 million run lines, "
             "which keeps memory below trec_eval's own)")
    return p


def trec_eval_options(argv: Sequence[str]):
    """The options of `sqlrank trec_eval ARGS` (a trec_eval.Options)."""
    from .trec_eval import KIND, PREFS_FORMATS, Options, request_measure

    args = trec_eval_parser().parse_args(argv)
    if args.format not in ("qrels", "qrels_jg") + PREFS_FORMATS:
        hint = " (trec_results is the -T results format)" if args.format == "trec_results" else ""
        raise SqlrankError(f"unknown -R format {args.format!r}; trec_eval's judgment formats are qrels (the "
                           f"default), qrels_jg, prefs, qrels_prefs{hint}")
    if args.results_format != "trec_results":
        raise SqlrankError(f"unknown -T format {args.results_format!r}; trec_eval's only results format is trec_results")
    options = Options(args.qrels, args.run, args.per_query, args.complete, args.no_summary, args.judged_only,
                      args.depth, args.rel, args.num_docs, args.zscores, args.version,
                      groups=args.format == "qrels_jg",
                      prefs=args.format if args.format in PREFS_FORMATS else None, engine=engine_arguments(args),
                      slices=args.slices, output=args.output)
    for spec in args.measures or ["official"]:
        request_measure(options.measures, spec)
    kinds = {KIND[name] for name in options.measures} - {"special"}
    if options.prefs and kinds - {"prefs"}:
        raise MeasureError(f"-R {options.prefs} reads preference judgments: only the prefs_* measures apply "
                           f"(-m all_prefs), not {sorted(n for n in options.measures if KIND[n] not in ('prefs', 'special'))}")
    if not options.prefs and "prefs" in kinds:
        raise MeasureError("the prefs_* measures need preference judgments: add -R prefs or -R qrels_prefs")
    return options


def _comparison(args: argparse.Namespace):
    from .comparison import compare_result

    with database_options(args, evaluation_options(args)) as options:
        result = compare_result(args.qrels, args.runs, " ".join(args.measures), test=args.test,
                                correction=args.correction, trials=args.trials, seed=args.seed, gsb=args.gsb,
                                tolerance=args.tolerance, names=args.names, baseline=args.baseline, **options)
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    return result


def _sql(args: argparse.Namespace) -> int:
    from .evaluation import render

    options = evaluation_options(args)
    if not args.database:
        for name in ("memory_limit", "temp_directory", "threads", "progress"):
            options.pop(name)
    with database_options(args, options) as options:
        text = render(args.qrels, args.run, " ".join(args.measures), args.per_query, dialect=args.dialect,
                      **options)
    write_output(text.rstrip("\n") + (";\n" if args.dialect == "duckdb" else "\n"), args.output)
    return 0


def _install(args: argparse.Namespace) -> int:
    from .macros import install_file, install_statements

    measures = " ".join(args.measures) if args.measures else None
    if args.print_sql:
        write_output("".join(statement + ";\n\n" for statement in install_statements(measures)), None)
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = install_file(args.database, measures, force=args.force)
    for warning in caught:
        print(f"sqlrank: warning: {warning.message}", file=sys.stderr)
    print(f"sqlrank: created {len(names)} macros in {args.database}: {', '.join(names)}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from .checks import check, check_error, findings_frame

    with database_options(args, {}) as options:
        findings = check(args.qrels, args.runs, " ".join(args.measures) if args.measures else None, rel=args.rel,
                         history=args.history, items=args.items, qrels_format=args.qrels_format,
                         run_format=args.run_format,
                         qrels_columns=args.qrels_columns, run_columns=args.run_columns, **options)
    if args.format == "json":
        text = json.dumps([asdict(f) | {"problem": f.problem} for f in findings], indent=2, ensure_ascii=False) + "\n"
    elif args.format == "csv":
        text = _frame_text(findings_frame(findings), "csv")
    else:
        lines, current = [], None
        for f in findings:
            if f.input != current:
                lines.append(("" if current is None else "\n") + f.input)
                current = f.input
            status = "FAIL" if f.problem else ("ok" if f.count == 0 or not f.changes_numbers else "info")
            status = "info" if not f.changes_numbers else status
            lines.append(f"  {status:<4}  {f.check:<52}  {f.message}")
        problems = sum(f.problem for f in findings)
        lines.append(f"\n{problems} findings can change a number" + (" (--strict fails on them)" if problems else ""))
        text = "\n".join(lines) + "\n"
    write_output(text, args.output)
    error = check_error(findings)
    if args.strict and error is not None:
        print(f"sqlrank: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    return 0


def _compare(args: argparse.Namespace) -> int:
    from . import reports as report

    result = _comparison(args)
    if args.format in ("csv", "tsv", "json"):
        text = _frame_text(result.table, args.format)
    elif args.format == "markdown":
        text = report.markdown(result, args.gsb)
    elif args.format == "latex":
        text = report.latex(result, args.gsb)
    else:
        text = report.text_table(result, args.gsb)
    write_output(text, args.output)
    return 0


def _report(args: argparse.Namespace) -> int:
    from . import reports as report

    result = _comparison(args)
    page = {"html": report.html_page, "markdown": report.markdown, "latex": report.latex}[args.format]
    write_output(page(result, args.gsb), args.output)
    print(f"sqlrank: wrote {args.output}", file=sys.stderr)
    return 0


def _frame_text(frame, fmt: str) -> str:
    """A DataFrame as CSV/TSV (floats in full precision: the shortest text that reads back the
    same, as sqlrank eval -f csv) or JSON records."""
    if fmt == "json":
        return frame.to_json(orient="records", indent=2, double_precision=15) + "\n"
    return frame.to_csv(index=False, sep="," if fmt == "csv" else "\t", float_format=lambda v: repr(float(v)),
                        lineterminator="\n")


def _gsb(args: argparse.Namespace) -> int:
    from .comparison import gsb_frame

    frame = gsb_frame(args.verdicts, args.by)
    for message in frame.attrs["warnings"]:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    if args.format in ("csv", "tsv", "json"):
        text = _frame_text(frame, args.format)
    else:
        header = list(frame.columns)
        overall = overall_label(frame[args.by] if args.by else [])
        rows = [[overall if v is None or v != v else str(v) for v in row[:-1]] + [f"{row[-1]:+.4f}"]
                for row in frame.itertuples(index=False)]
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        lines = ["  ".join(f"{x:{'<' if i == 0 and args.by else '>'}{w}}" for i, (x, w) in enumerate(zip(r, widths)))
                 for r in [header, ["-" * w for w in widths]] + rows]
        text = "\n".join(line.rstrip() for line in lines) + "\n"
    write_output(text, args.output)
    return 0


def _mapping(text: str) -> dict[str, str]:
    mapping = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if key.strip() == "relevance" and sep and not value.strip():
            mapping["relevance"] = None  # implicit feedback: every listed pair is relevant
            continue
        if not sep or not key.strip() or not value.strip():
            raise argparse.ArgumentTypeError(f"expected NAME=COLUMN pairs separated by commas, got {text!r}")
        mapping[key.strip()] = value.strip()
    return mapping


def _named_or_pairs(names: tuple, example: str):
    """An argument type: one of ``names``, or KEY=NUMBER pairs as a mapping {int: float}."""
    def parse(text: str):
        if text in names:
            return text
        try:
            return {int(k): float(v) for k, v in (_mapping(text)).items()}
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(f"expected {', '.join(names)} or {example}, got {text!r}") from None
    return parse


_gain = _named_or_pairs(GAINS, "LABEL=GAIN pairs such as 1=3,2=9")
_discount = _named_or_pairs(DISCOUNTS, "RANK=WEIGHT pairs such as 1=1,2=0.5")


def _log_base(text: str):
    if text == "e":
        return "e"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 1 or e, got {text!r}") from None


def _version() -> str:
    from .version import __version__
    return __version__


def _eval(args: argparse.Namespace) -> int:
    from .evaluation import evaluate_result
    from .results import format_result

    options = evaluation_options(args)
    if args.engine != "duckdb":  # DuckDB's resource flags do not apply; the engine has its own configuration
        for name, default in (("memory_limit", None), ("temp_directory", None), ("threads", None)):
            if options.pop(name) is not default:
                raise OptionError(f"--{name.replace('_', '-')} is a DuckDB setting; it does not apply with "
                                  f"--engine {args.engine}")
        options.pop("progress")
    if args.dsn is not None and args.engine != "postgres":
        raise OptionError("--dsn is the PostgreSQL database of --engine postgres; add --engine postgres")
    if args.dsn is not None:
        options["dsn"] = args.dsn
    if args.database and args.engine != "duckdb":
        raise OptionError(f"--database is a DuckDB database file; it does not apply with --engine {args.engine}")
    with database_options(args, options) as options:
        result = evaluate_result(args.qrels, args.run, " ".join(args.measures), args.per_query, engine=args.engine,
                                 slices=args.slices, strict=args.strict, printable=False, **options)  # never shown
    text = format_result(result, args.format)
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    write_output(text, args.output)
    return 0


def _dbt(args: argparse.Namespace) -> int:
    from .dbt import write_package

    written = write_package(args.folder, " ".join(args.measures), args.name, force=args.force,
                            **convention_options(args))
    print(f"sqlrank: wrote {len(written)} files of the dbt package in {args.folder}: {args.name}", file=sys.stderr)
    return 0


def _measures(args: argparse.Namespace) -> int:
    import csv
    import io
    import json

    from .registry import listing, markdown_table

    rows = listing()
    if args.format == "markdown":
        text = markdown_table()
    elif args.format == "json":
        text = json.dumps(rows, indent=2) + "\n"
    elif args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = out.getvalue()
    else:
        text = "".join(f"{row['measure']}\n    {row['definition']}\n"
                       + "".join(f"    {key}: {row[key]}\n" for key in ("also", "trec_eval", "parameters", "averaged")
                                 if row[key])
                       for row in rows)
    write_output(text, args.output)
    return 0


def _explain(args: argparse.Namespace) -> int:
    import warnings

    from . import explain

    inputs = dict(qrels_format=args.qrels_format, run_format=args.run_format, qrels_columns=args.qrels_columns,
                  run_columns=args.run_columns)
    with warnings.catch_warnings(), database_options(args, inputs) as options:
        warnings.simplefilter("ignore")
        if args.target is not None:
            frame = explain.reproduce(args.qrels, args.run, args.measure, args.target, args.tolerance, args.query,
                                      run_id=args.run_id, **options)
        else:
            frame = explain.attribute(args.qrels, args.run, args.measure, *args.between, run_id=args.run_id, **options)
    if args.format == "csv":
        write_output(frame.to_csv(index=False), args.output)
        return 0
    if args.target is not None:
        matches = frame[frame.matches]
        shown = matches if args.all else matches.head(10)
        lines = [f"{len(matches)} of {frame.attrs['tried']} convention combinations give {args.target} "
                 f"(within {frame.attrs['tolerance']:.2g}){', simplest first' if len(matches) else ''}:"]
        lines += [f"  {row.measure:<60} {row.value:.6f}" for row in shown.itertuples()]
        if len(matches) > len(shown):
            lines.append(f"  ... {len(matches) - len(shown)} more (--all)")
        if not len(matches):
            lines += ["closest:"] + [f"  {row.measure:<60} {row.value:.6f}" for row in frame.head(5).itertuples()]
        write_output("\n".join(lines) + "\n", args.output)
        return 0
    wide = frame.pivot(index="query_id", columns="convention", values="delta")[frame.convention.unique()]
    start = frame[frame.step == 1].set_index("query_id")["before"]
    end = frame[frame.step == frame.step.max()].set_index("query_id")["after"]
    order = sorted((q for q in wide.index if q != "all"), key=lambda q: q.encode("utf-8")) + ["all"]
    header = ["query_id", "from"] + [f"+ {c}" for c in wide.columns] + ["= to"]
    rows = [[q, _cell(start.get(q))] + [_cell(wide.at[q, c], signed=True) for c in wide.columns] + [_cell(end.get(q))]
            for q in order]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    text = [f"from {frame.attrs['start']} to {frame.attrs['end']}:"]
    text += ["  ".join(f"{c:>{w}}" if i else f"{c:<{w}}" for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [header] + rows]
    text.append("(a query evaluated on one side only shows an empty cell where it enters or leaves)")
    write_output("\n".join(text) + "\n", args.output)
    return 0


def _cell(value, signed: bool = False) -> str:
    if value is None or value != value:
        return ""
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _trec_eval(argv: Sequence[str]) -> int:
    from . import trec_eval

    options = trec_eval_options(argv)
    refuse_inputs(options.output, [options.qrels, options.run, options.zscores])
    if options.output is None:
        trec_eval.run(options, sys.stdout)
    else:
        text = io.StringIO()
        trec_eval.run(options, text)
        write_output(text.getvalue(), options.output)
    return 0


INPUT_ARGUMENTS = ("qrels", "run", "runs", "queries", "history", "items", "item_features", "verdicts", "database",
                   "zscores")


def input_files(args: Any) -> list[str]:
    """Every file a command reads, by its argument names: no output may be one of them."""
    names = []
    for name in INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        names += value if isinstance(value, list) else [value]
    return [name for name in names if isinstance(name, str)]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["trec_eval"]:  # its own trec_eval-style options
        handler, args = _trec_eval, argv[1:]
    else:
        parsed = build_parser().parse_args(argv)
        handler, args = parsed.handler, parsed
    previous = signal.signal(signal.SIGTERM, _terminated)  # unwind, so that DuckDB removes its spill files
    try:
        if not isinstance(args, list):
            refuse_inputs(getattr(args, "output", None), input_files(args))
        return handler(args)
    except _Terminated:
        return _stopped("terminated", 128 + signal.SIGTERM)
    except RuntimeError as exc:  # Ctrl-C or SIGTERM inside DuckDB: it stops the query and says so
        if "interrupted" not in str(exc).lower():
            raise
        terminated = _Terminated.received
        print(f"sqlrank: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)
    except SqlrankError as exc:
        print(f"sqlrank: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:  # a file named where the system names one; never an empty name before the colon
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"sqlrank: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return _stopped("interrupted", 130)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(word: str, status: int) -> int:
    """A signal's one line and exit status. After a statement was cancelled in a database client
    (interruption.py), the process ends here: ADBC's driver frees the cancelled statement's memory
    twice when Python tears down (an abort, 'double free or corruption', half the time), and the
    server has dropped the statement and the session's temporary tables already."""
    print(f"sqlrank: {word}", file=sys.stderr)
    from .interruption import cancelled

    if cancelled():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


class _Terminated(BaseException):
    """SIGTERM, raised where Python (or DuckDB's check for signals) next looks."""

    received = False


def _terminated(signum, frame) -> None:
    _Terminated.received = True
    raise _Terminated()


if __name__ == "__main__":
    sys.exit(main())
