"""The argument parser of ``sqlrank``: one function per subcommand."""
from __future__ import annotations

import argparse

from ..inputs.source import FORMATS
from ..measures.registry import FAMILIES
from ..results.formats import OUTPUT_FORMATS
from .commands import (
    check_command,
    compare_command,
    eval_command,
    explain_command,
    gsb_command,
    history_command,
    measures_command,
    report_command,
)
from .exports import add_dbt_command, add_install_command, add_sql_command
from .paths import TABLE_FORMATS
from .fusing import add_fuse_command
from .logs import add_clicks_command, add_counterfactual_command
from .judging import agree_command, meta_command, overlap_command, pool_command
from .options import (
    add_where_arguments,
    label_argument,
    labels_argument,
    mapping_argument,
    COMPARE_FORMATS,
    Parser,
    add_comparison_arguments,
    add_evaluation_arguments,
    add_input_arguments,
    add_reference_arguments,
    version_text,
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; of COMMAND alone where it names one (the command line's first word: building
    the parsers of all of them costs a command 20 to 30 ms), the others left out of it."""
    parser = Parser(
        prog="sqlrank",
        description="Evaluate ranked results against relevance judgments, in SQL, with named conventions.",
    )
    parser.add_argument("--version", action="version", version=f"sqlrank {version_text()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    adders = {"eval": add_eval_command, "sql": add_sql_command, "install": add_install_command,
              "check": add_check_command, "compare": add_compare_command, "report": add_report_command,
              "gsb": add_gsb_command, "agree": add_agree_command, "overlap": add_overlap_command,
              "pool": add_pool_command, "fuse": add_fuse_command, "clicks": add_clicks_command,
              "counterfactual": add_counterfactual_command, "meta": add_meta_command, "history": add_history_command,
              "explain": add_explain_command, "dbt": add_dbt_command, "measures": add_measures_command}
    for name, add in adders.items():
        if command not in adders or name == command:
            add(commands)
    if command not in adders:
        commands.add_parser("trec_eval", add_help=False, help="trec_eval's command line and output, computed in SQL "
                            "(sqlrank trec_eval --help)")
    return parser


def add_eval_command(commands) -> None:
    ev = commands.add_parser(
        "eval", help="evaluate a run against qrels",
        description="Evaluate RUN against QRELS. Files are TREC text, CSV/TSV with a header or Parquet "
                    "(TREC and CSV/TSV also .gz); the format comes from the file name unless given.",
        epilog="measures: " + ", ".join(FAMILIES) + " in ir_measures syntax (nDCG@10, AP(rel=2)@100, P@5) "
               "or trec_eval syntax (ndcg_cut.10, P.5,10, map, recip_rank).")
    ev.add_argument("qrels", metavar="QRELS", nargs="?",
                    help="relevance judgments: query_id, doc_id, relevance (left out when --qrels gives them)")
    ev.add_argument("run", metavar="RUN", nargs="*",
                    help="ranked results: query_id, doc_id, score; several: results per run, each named by its "
                         "file name")
    src = ev.add_argument_group("several judgment sources")
    src.add_argument("--qrels", action="append", dest="qrels_sources", metavar="[NAME=]QRELS",
                     help="one source of judgments (human, LLM grades, ...), named by its file name or NAME; given "
                          "more than once, the sources are merged (RUN is then the only positional argument)")
    src.add_argument("--prefer", metavar="NAMES",
                     help="merge by preference: the first of these sources (comma-separated) that judged a document "
                          "gives its label, the others fill the holes (default: the order of --qrels); also for one "
                          "QRELS with a source column")
    src.add_argument("--combine", choices=("mean", "max", "min"),
                     help="merge by the mean, highest or lowest label of the sources that judged a document")
    add_evaluation_arguments(ev)
    ev.add_argument("-q", "--per-query", action="store_true", help="one value per query and measure")
    ev.add_argument("-f", "--format", choices=OUTPUT_FORMATS + ("markdown", "latex"), default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of the Python DataFrame")
    ev.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    add_reference_arguments(ev)
    ci = ev.add_argument_group("uncertainty of the means")
    ci.add_argument("--ci", type=float, metavar="LEVEL",
                    help="a confidence interval of every mean, at LEVEL percent (95), with the per-query std")
    ci.add_argument("--ci-method", choices=("t", "percentile", "basic", "bca", "ppi", "ppi-untuned"), default="t",
                    help="t (Student's t interval; default), a bootstrap over queries: percentile, basic or bca; or "
                         "prediction-powered with an LLM's judgments and people's (--qrels NAME=FILE twice): ppi "
                         "(PPI++, tuned) or ppi-untuned")
    ci.add_argument("--gold", metavar="NAME",
                    help="with --ci-method ppi: the judgment source people made (default: human)")
    ci.add_argument("--trials", type=int, default=10_000, metavar="N", help="bootstrap resamples (default 10000)")
    ci.add_argument("--seed", type=int, default=0, metavar="S", help="the bootstrap's random seed (default 0)")
    add_aggregate_arguments(ev)
    add_record_arguments(ev)
    ev.add_argument("--strict", action="store_true",
                    help="fail (exit 1, nothing written) instead of warning about what can change a number")
    add_where_arguments(ev)
    ev.add_argument("--slices", type=int, metavar="N",
                    help="evaluate the queries in N groups, one after another, so that each step holds "
                         "1/N of the run (for runs far larger than memory; default 1)")
    ev.set_defaults(handler=eval_command)


def add_check_command(commands) -> None:
    ck = commands.add_parser(
        "check", help="a data-quality report on qrels and runs: what could change a number",
        description="Check QRELS and each RUN for duplicates, conflicting labels, queries on one side only, "
                    "queries without relevant documents, ties across cutoffs, a rank column that disagrees with "
                    "the scores, unjudged documents in the top k, ids that differ only by white space or leading "
                    "zeros, and the label histogram; with --history or --items, a recommender's inputs too.")
    ck.add_argument("qrels", metavar="QRELS", nargs="?",
                    help="relevance judgments: query_id, doc_id, relevance (left out when --qrels gives them)")
    ck.add_argument("runs", metavar="RUN", nargs="+", help="one or more runs: query_id, doc_id, score")
    ck.add_argument("--qrels", action="append", dest="qrels_sources", metavar="[NAME=]QRELS",
                    help="one source of judgments; given more than once, the sources are merged as eval merges them "
                         "and the report counts each source's judgments")
    ck.add_argument("--prefer", metavar="NAMES", help="merge by preference: the first of these sources that judged a "
                                                      "document gives its label (default: the order of --qrels)")
    ck.add_argument("--combine", choices=("mean", "max", "min"), help="merge by the mean, highest or lowest label")
    ck.add_argument("-m", "--measures", action="append", metavar="MEASURES",
                    help="count ties at these measures' cutoffs (default: 5, 10, 20, 100, 1000)")
    ck.add_argument("-l", "--rel", type=label_argument, metavar="N", help="minimum relevant label (default 1)")
    ck.add_argument("--strict", action="store_true", help="exit 1 when anything found can change a number")
    ck.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); the others have one record per finding")
    ck.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    ck.add_argument("--history", metavar="FILE",
                    help="a recommender's training interactions (user, item): recommendations the user has seen, "
                         "users without history, items outside the catalog")
    ck.add_argument("--items", metavar="FILE", help="the item catalog (an item column): recommended items outside it")
    ck.add_argument("--groups", metavar="FILE",
                    help="the documents' groups of the fairness measures (a document and a group column): retrieved "
                         "documents in no group, documents in several, documents of no run or judgment")
    add_input_arguments(ck)
    ck.set_defaults(handler=check_command)


def add_compare_command(commands) -> None:
    co = commands.add_parser(
        "compare", help="compare runs with a baseline: means, deltas, paired tests, GSB",
        description="Compare each RUN with the first (the baseline) per measure over the queries evaluated "
                    "for every run: mean, delta, wins/ties/losses, a two-sided paired test, the p-value adjusted "
                    "over all comparisons, a 95% confidence interval of the mean difference and an effect size.")
    add_comparison_arguments(co)
    add_where_arguments(co)
    co.add_argument("--paired-t", metavar="TABLE", dest="paired_t",
                    help="no QRELS or RUN: read the comparison computed in the warehouse (dbt's NAME_comparison model: "
                         "run_id, baseline, measure, queries, mean_difference, sd_difference, t_statistic, "
                         "degrees_of_freedom) from TABLE of --engine duckdb (--dsn FILE.duckdb, or a Parquet or CSV "
                         "file), postgres or sqlite, and add p-values, adjusted p-values, intervals and effect sizes")
    co.add_argument("-f", "--format", choices=COMPARE_FORMATS, default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of sqlrank.compare()")
    co.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    add_record_arguments(co)
    add_aggregate_arguments(co)
    co.set_defaults(handler=compare_command)


def add_report_command(commands) -> None:
    rp = commands.add_parser(
        "report", help="a comparison as one self-contained HTML page (or Markdown, LaTeX)",
        description="Write the comparison of sqlrank compare as an HTML page with the table, significance marks, "
                    "per-query difference plots, score distributions and per-segment tables (no scripts, nothing "
                    "fetched), or as a Markdown or LaTeX table for papers.")
    add_comparison_arguments(rp)
    add_where_arguments(rp)
    rp.add_argument("-f", "--format", choices=("html", "markdown", "latex"), default="html",
                    help="html (default): the page with plots; markdown or latex: the tables only")
    rp.add_argument("-o", "--output", metavar="FILE", required=True, help="the report file (written atomically)")
    add_aggregate_arguments(rp)
    rp.set_defaults(handler=report_command)


def add_gsb_command(commands) -> None:
    gs = commands.add_parser(
        "gsb", help="GSB = (good - bad) / (good + same + bad) from side-by-side verdicts",
        description="Count side-by-side verdicts of a new system against the current one (column verdict: "
                    "good/same/bad or G/S/B, any case), overall and per value of --by.")
    gs.add_argument("verdicts", metavar="VERDICTS", help="CSV, TSV or Parquet with a verdict column")
    gs.add_argument("--by", metavar="COLUMN", help="also count per value of this column (e.g. query_id)")
    gs.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of sqlrank.gsb()")
    gs.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    gs.set_defaults(handler=gsb_command)


def add_agree_command(commands) -> None:
    ag = commands.add_parser(
        "agree", help="agreement of two sets of judgments: Cohen's kappa, the confusion matrix",
        description="Compare two sets of judgments of the same queries (two assessors, or LLM grades against "
                    "human ones) over the documents both judged: Cohen's kappa, the observed agreement and the "
                    "confusion matrix, overall and per query (-q), and how many documents only one side judged.")
    ag.add_argument("qrels_a", metavar="QRELS_A", help="the first judgments: query_id, doc_id, relevance")
    ag.add_argument("qrels_b", metavar="QRELS_B", help="the second judgments, read the same way")
    ag.add_argument("--weights", choices=("none", "linear", "quadratic"), default="none",
                    help="kappa's weights over the grades (their positions in order): none (default: any "
                         "difference disagrees), linear (|i - j|) or quadratic ((i - j)^2)")
    ag.add_argument("--binary", type=label_argument, metavar="REL",
                    help="threshold the labels first: REL and above count 1, the rest 0")
    ag.add_argument("--labels", metavar="L,L,...", type=labels_argument, help="only these labels, in this order: "
                    "a document either side labelled otherwise is left out (scikit-learn's labels=)")
    ag.add_argument("-q", "--per-query", action="store_true", help="also the agreement of each query")
    ag.add_argument("--qrels-format", choices=FORMATS, help="format of both inputs (default: from the file names)")
    ag.add_argument("--qrels-columns", metavar="MAP", type=mapping_argument,
                    help="column names of both inputs, e.g. query_id=qid,doc_id=docno,relevance=label")
    ag.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); csv, tsv, json, markdown or latex: the kappa and counts, or "
                         "with -q the per-query rows")
    ag.add_argument("-o", "--output", metavar="FILE", help="write the agreement to FILE (atomically) instead of stdout")
    ag.set_defaults(handler=agree_command)


def add_ranking_arguments(parser) -> None:
    """How the runs of overlap and pool are read and ranked: ties, format, column names."""
    parser.add_argument("--tie-break", choices=("trec_eval", "doc_id_asc", "input_rank"), default="trec_eval",
                        help="order of equal scores before the top k is taken: trec_eval (document id descending; "
                             "default), doc_id_asc, or input_rank (the runs' rank column)")
    parser.add_argument("--run-format", choices=FORMATS, help="format of the runs (default: from the file names)")
    parser.add_argument("--run-columns", metavar="MAP", type=mapping_argument,
                        help="column names of the runs, e.g. query_id=qid,doc_id=docno,score=sim")


def add_overlap_command(commands) -> None:
    ov = commands.add_parser(
        "overlap", help="how alike two rankings are, without judgments: RBO, Jaccard, Overlap, Kendall's tau",
        description="Compare two runs of the same queries without judgments (an ANN index against exact search, a new "
                    "ranker against the old): rank-biased overlap (RBO; kind=ext, kind=residual), Jaccard@k, Overlap@k, "
                    "Kendall's tau-b (Tau@k) and tau_AP (TauAP@k); per query (-q) and their mean.")
    ov.add_argument("run_a", metavar="RUN_A", help="the first ranking (the reference: exact search)")
    ov.add_argument("run_b", metavar="RUN_B", help="the second ranking, read the same way")
    ov.add_argument("-m", "--measures", required=True, metavar="MEASURES",
                    help='measures separated by spaces, e.g. "RBO(p=0.9)@100 Jaccard@10 Overlap@10 Tau@100 TauAP@100"')
    ov.add_argument("-q", "--per-query", action="store_true", help="the values of each query, not their mean")
    ov.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); csv/tsv/json have the columns of sqlrank.overlap()")
    add_ranking_arguments(ov)
    ov.add_argument("-o", "--output", metavar="FILE", help="write the comparison to FILE (atomically) instead of stdout")
    ov.set_defaults(handler=overlap_command)


def add_pool_command(commands) -> None:
    po = commands.add_parser(
        "pool", help="the documents to judge next: depth-k pooling, or a budget by RRF or RBP weight",
        description="Pool runs for the next round of judging: every run's top K per query (--depth K, TREC "
                    "depth-k pooling), or the N documents per query with the highest reciprocal-rank-fusion or RBP "
                    "weight over the runs (--method rrf|rbp --budget N), leaving out what --qrels already judge. "
                    "Written as TREC qrels with the label -1 (pooled, not judged yet), or as CSV, TSV, Parquet, "
                    "JSON, Markdown or LaTeX rows query_id, doc_id, weight (-o FILE.csv, .tsv, .parquet, .json, .md, "
                    ".tex).")
    po.add_argument("runs", nargs="+", metavar="RUN", help="the runs to pool (files, globs of files)")
    po.add_argument("--depth", type=int, metavar="K",
                    help="the top K of every run per query (required for --method depth; with rrf or rbp, only "
                         "the top K of each run is fused)")
    po.add_argument("--method", choices=("depth", "rrf", "rbp"), default="depth",
                    help="depth (default): the union of the top K; rrf: sum of 1/(k + rank); rbp: sum of "
                         "(1 - p) p^(rank - 1), the highest first")
    po.add_argument("--budget", type=int, metavar="N", help="documents per query to pool (rrf and rbp)")
    po.add_argument("--rrf-k", type=float, default=60, metavar="K", help="RRF's constant k (default 60)")
    po.add_argument("--rbp-p", type=float, default=0.8, metavar="P", help="RBP's persistence p (default 0.8)")
    po.add_argument("--qrels", action="append", default=[], dest="judged", metavar="QRELS",
                    help="judgments whose documents are left out (give it once per file)")
    add_ranking_arguments(po)
    po.add_argument("--qrels-format", choices=FORMATS, help="format of --qrels (default: from the file names)")
    po.add_argument("--qrels-columns", metavar="MAP", type=mapping_argument,
                    help="column names of --qrels, e.g. query_id=qid,doc_id=docno,relevance=label")
    po.add_argument("-f", "--format", choices=("trec", "csv", "tsv", "parquet", "json", "markdown", "latex"),
                    help="output format (default: from -o's name, else TREC qrels): the pool's rows query_id, doc_id, "
                         "weight")
    po.add_argument("-o", "--output", metavar="FILE",
                    help="write the pool to FILE (atomically; it then prints one line of counts) instead of stdout")
    po.set_defaults(handler=pool_command)


def add_meta_command(commands) -> None:
    me = commands.add_parser(
        "meta", help="do two sets of judgments rank the systems alike; each measure's discriminative power",
        description="Meta-evaluation: the runs ranked by each measure under QRELS_A and under QRELS_B (human and LLM "
                    "judgments, two assessors), Kendall's tau-b and tau_AP between the two rankings, the pairs of runs "
                    "they order differently, and each measure's discriminative power under each (Sakai 2006: the share "
                    "of pairs of runs a paired test finds different).")
    me.add_argument("qrels_a", metavar="QRELS_A", help="the reference judgments (human ones), named by their file "
                    "name or as NAME=FILE")
    me.add_argument("qrels_b", metavar="QRELS_B", help="the judgments put to the test (an LLM's)")
    me.add_argument("runs", metavar="RUN", nargs="+", help="three or more runs (named by their file names)")
    me.add_argument("-m", "--measures", action="append", required=True, metavar="MEASURES",
                    help='measures separated by spaces; repeatable (e.g. -m "nDCG@10 P@10 AP")')
    me.add_argument("--test", choices=("permutation", "bootstrap", "t", "wilcoxon", "sign"), default="permutation",
                    help="the paired test of the discriminative power: permutation (randomisation; default), bootstrap, "
                         "t, wilcoxon, sign")
    me.add_argument("--trials", type=int, default=1000, metavar="N", help="resamples of the test (default 1000)")
    me.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of those resamples (default 0)")
    me.add_argument("--alpha", type=float, default=0.05, metavar="A", help="significance level (default 0.05)")
    me.add_argument("--rankings", action="store_true", help="also each measure's ranking of the runs under both")
    me.add_argument("--names", type=lambda text: text.split(","), metavar="A,B,...",
                    help="names of the runs in the output (default: their file names)")
    me.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); csv and json: one row per measure")
    me.add_argument("--qrels-format", choices=FORMATS, help="format of both judgments (default: from the file names)")
    me.add_argument("--qrels-columns", metavar="MAP", type=mapping_argument,
                    help="column names of both judgments, e.g. query_id=qid,doc_id=docno,relevance=label")
    me.add_argument("--run-format", choices=FORMATS, help="format of the runs (default: from the file names)")
    me.add_argument("--run-columns", metavar="MAP", type=mapping_argument,
                    help="column names of the runs, e.g. query_id=qid,doc_id=docno,score=sim")
    me.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE (atomically) instead of stdout")
    add_where_arguments(me)
    me.set_defaults(handler=meta_command)


def add_aggregate_arguments(parser) -> None:
    """--weights and --aggregate (eval, compare)."""
    group = parser.add_argument_group("summaries other than the mean")
    group.add_argument("--weights", metavar="FILE",
                       help="query weights (CSV, TSV or Parquet with query_id and weight: traffic, importance): "
                            "weighted means instead of means")
    group.add_argument("--aggregate", choices=("mean", "median", "gmean", "min", "max"), default="mean",
                       help="how the per-query values are summarised (default mean; gmean floors values at 1e-5)")


def add_record_arguments(parser) -> None:
    """--record and --tag (eval, compare)."""
    group = parser.add_argument_group("history")
    group.add_argument("--record", metavar="FILE",
                       help="append these means, with their inputs' names, rows and content hashes, the conventions "
                            "and the time, to a history FILE (.parquet or .duckdb; sqlrank history FILE shows it)")
    group.add_argument("--tag", metavar="TEXT", help="a label of this evaluation in the history (a commit, a model)")


def add_history_command(commands) -> None:
    hi = commands.add_parser(
        "history", help="the values recorded with --record, per measure over time",
        description="Print a history written by eval --record or compare --record: per measure, every value "
                    "recorded, oldest first, with its change from the same run's previous one; or, with -o FILE.html "
                    "(or -f html), one page that plots them.")
    hi.add_argument("file", metavar="FILE", help="the history (.parquet or .duckdb)")
    hi.add_argument("-m", "--measures", action="append", metavar="MEASURES", help="only these measures (as recorded)")
    hi.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS, "html"),
                    help="output layout (default: table, or html for -o FILE.html); csv and json: every recorded row")
    hi.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    hi.set_defaults(handler=history_command)


def add_explain_command(commands) -> None:
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
    ex.add_argument("-f", "--format", choices=("table", *TABLE_FORMATS), default="table",
                    help="output layout (default: table); the others have every combination's value (csv, tsv and "
                         "json in full precision)")
    ex.add_argument("-o", "--output", metavar="FILE", help="write the results to FILE (atomically) instead of stdout")
    ex.set_defaults(handler=explain_command)


def add_measures_command(commands) -> None:
    ms = commands.add_parser(
        "measures", help="list the measures: names, trec_eval names, parameters, definitions",
        description="List every measure family sqlrank computes: its names (ir_measures syntax, other spellings, "
                    "trec_eval's), its own parameters with their defaults (besides the conventions), how it is "
                    "averaged over queries, and its definition.")
    ms.add_argument("-f", "--format", choices=("table", "markdown", "csv", "json"), default="table",
                    help="output layout (default: table; markdown is the table of docs/measures.md)")
    ms.add_argument("-o", "--output", metavar="FILE", help="write the list to FILE (atomically) instead of stdout")
    ms.set_defaults(handler=measures_command)

