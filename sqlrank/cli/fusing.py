"""The command line of rank fusion: sqlrank fuse (the fused run, written as a run file) and the fusion
arguments sqlrank sql --fuse shares (the statement printed for a dialect)."""
from __future__ import annotations

import argparse

from ..errors import OptionError
from ..inputs.source import FORMATS
from .paths import rows_format, write_rows, write_statement
from .options import add_convention_arguments, add_where_arguments, convention_options, mapping_argument


def add_fusion_arguments(parser) -> None:
    """The method, its normalisation and weights (fuse, and sql --fuse)."""
    from ..fusing.methods import METHODS, NORMS

    group = parser.add_argument_group("fusion")
    group.add_argument("--method", default="rrf", metavar="METHOD",
                       help="the fusion method, with its parameters: rrf (default; rrf(k=20)), "
                            f"{', '.join(m for m in METHODS if m != 'rrf')} (their parameters: gmnz(gamma=0.5), "
                            "logn_isr(sigma=0.01), rbc(phi=0.8), probfuse(n_segments=10), slidefuse(w=5))")
    group.add_argument("--norm", default="min-max", choices=list(NORMS),
                       help="how each run's scores are normalised per query first (default min-max, as ranx)")
    group.add_argument("--weights", nargs="+", type=float, metavar="W",
                       help="one weight per run, in their order (wsum, wmnz, mixed, w_bordafuse, w_condorcet)")


def add_fuse_command(commands) -> None:
    fu = commands.add_parser(
        "fuse", help="fuse runs into one: RRF, CombSUM/MNZ, weighted sums, Borda, Condorcet, ProbFuse, ... (ranx's)",
        description="Fuse the runs of the same queries into one run by every method and normalisation of ranx, in one "
                    "SQL statement: RRF, ISR, log-ISR, RBC, CombSUM, CombMNZ, CombMAX, CombMIN, CombMED, CombANZ, "
                    "CombGMNZ, weighted sums (wsum, wmnz, mixed), Borda and Condorcet (weighted too), and the trained "
                    "PosFuse, ProbFuse, SegFuse, SlideFuse, MAPFuse and BayesFuse (--qrels: the training queries' "
                    "judgments). --optimize MEASURE chooses the weights or the parameter on --qrels by ranx's grid. "
                    "Written as a TREC run (query Q0 doc rank score tag), or CSV, TSV or Parquet (-o FILE.csv).")
    fu.add_argument("runs", nargs="+", metavar="RUN", help="the runs to fuse (files, or one table of runs stored "
                                                          "together with a run_id column)")
    add_fusion_arguments(fu)
    fu.add_argument("--qrels", metavar="QRELS", help="judgments: what the trained methods estimate from, and what "
                                                      "--optimize chooses on")
    fu.add_argument("--optimize", metavar="MEASURE",
                    help="choose the weights (weighted methods) or the parameter (rrf's k, gmnz's gamma, logn_isr's "
                         "sigma, rbc's phi, probfuse's n_segments, slidefuse's w) on --qrels by ranx's grid, on this "
                         "measure under the conventions below (--preset ranx: ranx's)")
    fu.add_argument("--run-format", choices=FORMATS, help="format of the runs (default: from the file names)")
    fu.add_argument("--run-columns", metavar="MAP", type=mapping_argument,
                    help="column names of the runs, e.g. query_id=qid,doc_id=docno,score=sim")
    fu.add_argument("--qrels-format", choices=FORMATS, help="format of --qrels (default: from the file name)")
    fu.add_argument("--qrels-columns", metavar="MAP", type=mapping_argument,
                    help="column names of --qrels, e.g. query_id=qid,doc_id=docno,relevance=label")
    fu.add_argument("-f", "--format", choices=("trec", "csv", "tsv", "parquet"),
                    help="output format (default: from -o's name, else a TREC run)")
    fu.add_argument("--tag", default="sqlrank", help="the TREC run's tag column (default: sqlrank)")
    fu.add_argument("-o", "--output", metavar="FILE",
                    help="write the fused run to FILE (atomically; a line of counts goes to stdout) instead of stdout")
    add_convention_arguments(fu)
    add_where_arguments(fu)
    fu.set_defaults(handler=fuse_command)


def fusion_inputs(args: argparse.Namespace) -> dict:
    """fuse()'s arguments from the fusion flags; the input tie-break and depth from the conventions' flags."""
    tie_break = args.tie_break or "trec_eval"
    if tie_break not in ("trec_eval", "doc_id_asc", "input_rank"):
        raise OptionError(f"--tie-break {tie_break} ranks the runs to fuse how? choose trec_eval, doc_id_asc or input_rank")
    return dict(method=args.method, norm=args.norm, weights=args.weights, tie_break=tie_break, depth=args.depth)


def fuse_command(args: argparse.Namespace) -> int:
    from ..fusing.api import fuse
    from ..fusing.output import run_output
    from .options import where_options

    fmt = rows_format(args, "a Parquet run goes")
    conventions = {k: v for k, v in convention_options(args).items() if v is not None and k not in ("depth", "tie_break")}
    if conventions and not args.optimize:
        raise OptionError("the conventions are for --optimize: what the measure that chooses the weights reads")
    frame = fuse(args.runs, qrels=args.qrels, optimize=args.optimize, run_format=args.run_format,
                 run_columns=args.run_columns, qrels_format=args.qrels_format, qrels_columns=args.qrels_columns,
                 **fusion_inputs(args), **conventions, **where_options(args))
    summary = fused_summary(frame, args.optimize)
    data = run_output(frame, fmt, args.tag)
    write_rows(data, args.output, summary)
    return 0


def fused_summary(frame, optimize: str | None) -> str:
    """A line or two: what was fused, how, into how many documents; what optimize chose, on what."""
    runs = frame.attrs["runs"]
    queries = frame.query_id.nunique()
    line = (f"fused {len(runs)} runs ({', '.join(runs)}) by {frame.attrs['fusion']}: {len(frame)} documents for "
            f"{queries} quer{'ies' if queries != 1 else 'y'}\n")
    if optimize:
        trials = frame.attrs["trials"]
        chosen = frame.attrs["optimized"]
        shown = " ".join(f"{k}={v:g}" if not isinstance(v, list) else f"{k}={','.join(f'{w:g}' for w in v)}"
                         for k, v in chosen.items())
        line += f"chosen on {optimize}: {shown} (mean {trials[optimize].max():.4f}, best of {len(trials)} settings)\n"
    return line


def fusion_sql_command(args: argparse.Namespace) -> int:
    """sqlrank sql --fuse RUN...: the fusion's statement in --dialect, reading the files or that database's tables."""
    from ..fusing.api import render_fusion

    if args.run is not None or args.measures:
        raise OptionError("with --fuse, give the runs after --fuse (and QRELS only for a trained method); -m is for "
                          "an evaluation")
    text = render_fusion(args.fuse, qrels=args.qrels, dialect=args.dialect, run_format=args.run_format,
                         run_columns=args.run_columns, qrels_format=args.qrels_format, qrels_columns=args.qrels_columns,
                         **fusion_inputs(args))
    return write_statement(text, args)
