"""``sqlrank trec_eval``: trec_eval's own command line (its flags, as trec_eval 10 reads them)."""
from __future__ import annotations

import argparse
import io
from typing import Sequence

from ..errors import MeasureError, SqlrankError
from ..results.writer import STDOUT, refuse_inputs, write_output
from .options import add_engine_arguments, engine_arguments


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
        help="evaluate the queries in N groups, one after another (default: one group per 2.5 million run lines, "
             "which keeps memory below trec_eval's own)")
    return p


def trec_eval_options(argv: Sequence[str]):
    """The options of `sqlrank trec_eval ARGS` (a trec_eval.Options)."""
    from ..trec.trec_eval import KIND, PREFS_FORMATS, Options, request_measure

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


def trec_eval_command(argv: Sequence[str]) -> int:
    from ..trec import trec_eval

    options = trec_eval_options(argv)
    refuse_inputs(options.output, [options.qrels, options.run, options.zscores])
    if options.output is None:
        trec_eval.run(options, STDOUT)
        STDOUT.flush()
    else:
        text = io.StringIO()
        trec_eval.run(options, text)
        write_output(text.getvalue(), options.output)
    return 0
