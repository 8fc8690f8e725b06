"""Arguments shared by several subcommands (inputs, measures, conventions, engines, comparisons)
and their reading into the library's options."""
from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from ..engines.base import ENGINES
from ..errors import InputError, OptionError, SqlrankError
from ..inputs.columns import column_map
from ..inputs.source import FORMATS
from ..measures.conventions import (
    AP_DENOMINATORS,
    CORRECTIONS,
    DISCOUNTS,
    DUPLICATE_DOCUMENTS,
    GAINS,
    IDEALS,
    MISSING_QUERIES,
    NO_RELEVANT,
    NONPOSITIVE_SCORES,
    TESTS,
    TIE_BREAKS,
    UNJUDGED_QUERIES,
)
from ..measures.presets import PRESETS
from ..progress import configure, forget

EXIT_ERROR = 1


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, as argparse does, but no usage dump
        self.exit(2, f"sqlrank: error: {message} (see {self.prog} --help)\n")


def add_evaluation_arguments(parser: argparse.ArgumentParser, measures_required: bool = True) -> None:
    """Measures, input layout, segments, conventions and engine flags: shared by eval, compare, report."""
    parser.add_argument("-m", "--measures", action="append", required=measures_required, metavar="MEASURES",
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
    rec.add_argument("--groups", metavar="FILE",
                     help="the documents' groups, of the fairness measures (Exposure, ExposureGini, AWRF): a document "
                          "(doc_id or item_id) and a group column, a row per group of a document")
    rec.add_argument("--targets", metavar="FILE",
                     help="the groups' target shares of AWRF(target=file): a group and a share column, and a query_id "
                          "column where the targets differ by query")
    add_convention_arguments(parser)
    add_engine_arguments(parser)


def add_convention_arguments(parser: argparse.ArgumentParser) -> None:
    """The convention flags (eval, compare, report, sql, dbt)."""
    conv = parser.add_argument_group("conventions (defaults: trec_eval's)")
    conv.add_argument("-l", "--rel", type=label_argument, metavar="N",
                      help="minimum label that counts as relevant (default 1; a real number such as 0.5 too; nDCG "
                           "ignores it)")
    conv.add_argument("--missing-queries", choices=MISSING_QUERIES,
                      help="qrels queries without results: skip them (default) or score them 0 (trec_eval -c)")
    conv.add_argument("-c", dest="missing_queries", action="store_const", const="zero",
                      help="same as --missing-queries zero")
    conv.add_argument("--unjudged-queries", choices=UNJUDGED_QUERIES,
                      help="run queries without judgments: skip them (default) or score them 0 (Spark MLlib, "
                           "Elasticsearch)")
    conv.add_argument("--no-relevant", choices=NO_RELEVANT,
                      help="queries (users) without a judgment >= --rel: score them 0 (default, trec_eval), skip "
                           "them (RecBole, Microsoft Recommenders), score them 1 in measures of relevance (one: "
                           "TorchMetrics' empty_target_action=pos) or refuse them (error)")
    conv.add_argument("-J", "--judged-only", action="store_true", default=None,
                      help="drop unjudged retrieved documents and re-rank (trec_eval -J)")
    conv.add_argument("-M", "--depth", type=int, metavar="N", help="keep the top N documents per query (trec_eval -M)")
    conv.add_argument("--unjudged-label", type=label_argument, metavar="N",
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
    conv.add_argument("--gain", type=gain_argument, metavar="GAIN",
                      help="linear (default), exponential (2^label - 1), or LABEL=GAIN pairs such as 1=3,2=9")
    conv.add_argument("--discount", type=discount_argument, metavar="DISCOUNT",
                      help="log: 1/log_b(i+1) (default); jarvelin: 1 up to rank b, then 1/log_b(i); or RANK=WEIGHT "
                           "pairs such as 1=1,2=0.5 (a rank left out weighs 0)")
    conv.add_argument("--log-base", type=log_base_argument, metavar="B", help="base b of the discount: 2 (default), e, 10, ...")
    conv.add_argument("--ideal", choices=IDEALS, help="nDCG's ideal ranking: qrels (default), run, perfect")
    conv.add_argument("--ap-denominator", choices=AP_DENOMINATORS,
                      help="AP divides by num_rel (default), retrieved_relevant or min_num_rel_cutoff")
    conv.add_argument("--conventions", metavar="LINE", type=conventions_line_argument,
                      help="a conventions line as sqlrank prints it (or part of one), pasted back: the same numbers; "
                           "the flags above override it")


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """How QRELS and RUN are read: formats, column names, a DuckDB database file (eval, compare,
    report, sql, check, explain)."""
    parser.add_argument("--qrels-format", choices=FORMATS, help="format of QRELS (default: from the file name)")
    parser.add_argument("--run-format", choices=FORMATS, help="format of the runs (default: from the file name)")
    parser.add_argument("--qrels-columns", metavar="MAP", type=mapping_argument,
                        help="column names of QRELS, e.g. query_id=qid,doc_id=docno,relevance=label; relevance= "
                             "(empty): implicit feedback, every listed pair is relevant (label 1)")
    parser.add_argument("--run-columns", metavar="MAP", type=mapping_argument,
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

    from ..engines.duckdb import OFFLINE, engine_config
    from ..errors import duckdb_reason

    if not os.path.isfile(args.database):
        raise OptionError(f"{args.database}: no such DuckDB database file")
    config = engine_config(options.pop("memory_limit", None), options.pop("temp_directory", None),
                           options.pop("threads", None))
    progress = options.pop("progress", False)
    try:
        connection = duckdb.connect(args.database, read_only=True, config={**config, **OFFLINE})
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
                history=args.history, items=args.items, item_features=args.item_features, groups=args.groups,
                targets=args.targets,
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


def conventions_line_argument(text: str) -> dict:
    from ..measures.conventions import parse_conventions

    try:
        return parse_conventions(text)
    except SqlrankError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


COMPARE_FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


def add_comparison_arguments(parser: argparse.ArgumentParser) -> None:
    """The inputs and options of compare and report."""
    parser.add_argument("qrels", metavar="QRELS", nargs="?", help="relevance judgments: query_id, doc_id, relevance")
    parser.add_argument("runs", metavar="RUN", nargs="*",
                        help="two or more runs, the first the baseline; a table of runs stored together (a run_id "
                             "column) stands for its runs, in run id order")
    add_evaluation_arguments(parser)
    group = parser.add_argument_group("comparison")
    group.add_argument("--names", type=lambda text: text.split(","), metavar="A,B,...",
                       help="names of the runs in the output (default: their file names, or run ids)")
    group.add_argument("--baseline", metavar="NAME", help="the run the others are compared with (default: the first)")
    group.add_argument("--test", choices=TESTS,
                       help="paired test: t (default), wilcoxon, sign, permutation (randomization), bootstrap; with "
                            "--all-pairs also tukey (its default) and randomized-tukey; with an LLM's judgments and "
                            "people's (--qrels NAME=FILE twice) ppi (prediction-powered, PPI++) or ppi-untuned")
    group.add_argument("--qrels", action="append", dest="qrels_sources", metavar="NAME=QRELS",
                       help="with --test ppi: the LLM's judgments and the people's, named (every positional argument "
                            "is then a run)")
    group.add_argument("--gold", metavar="NAME", help="with --test ppi: the judgment source people made (default: human)")
    group.add_argument("--correction", choices=CORRECTIONS, default="none",
                       help="adjust p-values over all comparisons: none (default), bonferroni, holm, bh")
    group.add_argument("--trials", type=int, default=10_000, metavar="N",
                       help="resamples of the permutation and bootstrap tests (default 10000)")
    group.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of those resamples (default 0)")
    group.add_argument("--all-pairs", action="store_true", dest="all_pairs",
                       help="compare every pair of runs, not each with the baseline: --test tukey (Tukey's HSD, as "
                            "ranx), randomized-tukey (Carterette's, paired) or a paired test with --correction; runs "
                            "lettered a, b, ... with the letters of the runs each is significantly better than")
    group.add_argument("--gsb", action="store_true",
                       help="add good/same/bad counts of queries and GSB = (good - bad) / queries")
    group.add_argument("--tolerance", type=float, default=0.0, metavar="X",
                       help="a query is a tie (same) when its values differ by at most X (default 0)")
    gate = parser.add_argument_group("regression gate (exit status 1 when a rule holds for a run)")
    gate.add_argument("--fail-if", action="append", default=[], metavar="RULE", dest="fail_if",
                      help='a rule, repeatable: "nDCG@10 < -0.01" (delta), "nDCG@10 < -2%%" (relative), "AP mean '
                           '< 0.25", "AP significant-worse" (adjusted p-value below --alpha)')
    gate.add_argument("--alpha", type=float, default=0.05, metavar="A",
                      help="the significance level of significant-worse and significant-better, and of --all-pairs' "
                           "letters (default 0.05)")


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


def mapping_argument(text: str) -> dict[str, str | None]:
    """A column mapping on the command line (query_id=topic,doc_id=docno), read as Python reads the same text."""
    try:
        return column_map(text)
    except InputError:
        raise argparse.ArgumentTypeError(f"expected NAME=COLUMN pairs separated by commas, got {text!r}") from None


def label_argument(text: str) -> int | float:
    """A label or relevance level on the command line: a number (2, 0.5), an int where it is whole."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (0, 1, 2, 0.5, ...), got {text!r}") from None
    return int(value) if value.is_integer() else value


def labels_argument(text: str) -> list:
    """Labels on the command line: numbers separated by commas (0,1)."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected labels separated by commas (0,1), got {text!r}")
    return [label_argument(part) for part in parts]


def _named_or_pairs(names: tuple, example: str, key=int):
    """An argument type: one of ``names``, or KEY=NUMBER pairs as a mapping {key: float}."""
    def parse(text: str):
        if text in names:
            return text
        try:
            return {key(k): float(v) for k, v in (mapping_argument(text)).items()}
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(f"expected {', '.join(names)} or {example}, got {text!r}") from None
    return parse


gain_argument = _named_or_pairs(GAINS, "LABEL=GAIN pairs such as 1=3,2=9", key=label_argument)
discount_argument = _named_or_pairs(DISCOUNTS, "RANK=WEIGHT pairs such as 1=1,2=0.5")


def log_base_argument(text: str):
    if text == "e":
        return "e"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 1 or e, got {text!r}") from None


def version_text() -> str:
    from ..version import __version__
    return __version__


def add_merge_arguments(parser) -> None:
    """--prefer and --combine: how the judgments of one table with a source column are merged."""
    parser.add_argument("--prefer", metavar="NAMES",
                        help="judgments of several sources in one table with a source column (--qrels-columns "
                             "source=NAME): the first of these sources (comma-separated) that judged a document gives "
                             "its label (the others after them, by name)")
    parser.add_argument("--combine", choices=("mean", "max", "min"),
                        help="judgments of several sources in one table with a source column: the mean, highest or "
                             "lowest label of the sources that judged a document")


def add_reference_arguments(parser) -> None:
    """eval --reference: an approximate search measured against exact search, without judgments."""
    ann = parser.add_argument_group("an approximate search against exact search (no judgments)")
    ann.add_argument("--reference", metavar="EXACT",
                     help="the exact search's neighbours (a run); RUN, the approximate search, is then the only "
                          "positional argument; measures: Recall@k (by distances, tolerance=1e-3 or epsilon=X), "
                          "DistanceRatio@k")
    ann.add_argument("--distances", action="store_true",
                     help="with --reference: the scores are distances, lower nearer (default: similarities)")


def where_options(args: argparse.Namespace) -> dict[str, Any]:
    """--engine and --dsn as evaluate's options: none on DuckDB; engine=, with dsn= (PostgreSQL) or sqlite= (SQLite)."""
    if args.dsn is not None and args.engine not in ("postgres", "sqlite"):
        raise OptionError("--dsn is the database of --engine postgres (a URL) or --engine sqlite (a file); add "
                          "--engine postgres or --engine sqlite")
    where: dict[str, Any] = {} if args.engine == "duckdb" else {"engine": args.engine}
    if args.dsn is not None:
        where["sqlite" if args.engine == "sqlite" else "dsn"] = args.dsn
    return where


def add_where_arguments(parser) -> None:
    """--engine and --dsn: where the statements run (eval, compare, report, meta)."""
    parser.add_argument("--engine", choices=ENGINES, default="duckdb",
                        help="where the statement runs: DuckDB (default), a local Spark session (pip install "
                             "'sqlrank[spark]'; needs Java 17+), the PostgreSQL database at --dsn (pip install "
                             "'sqlrank[postgres]'; QRELS and RUN are its tables, or files copied into temporary tables), "
                             "DataFusion (pip install 'sqlrank[datafusion]'), ClickHouse (chDB, pip install "
                             "'sqlrank[clickhouse]') or SQLite (Python's own sqlite3; the database file at --dsn, or one "
                             "in memory) in this process")
    parser.add_argument("--dsn", metavar="URL",
                        help="with --engine postgres: the database, e.g. postgresql://user@host:5432/db or "
                             "postgresql://user@/db?host=/var/run/postgresql; with --engine sqlite: a database file "
                             "whose tables QRELS and RUN may name")
