"""The command line of what logs hold: sqlrank clicks (an impression log turned into judgments by a click model)."""
from __future__ import annotations

import argparse

from ..errors import OptionError
from ..inputs.source import FORMATS
from .options import mapping_argument
from .paths import write_rows


def add_clicks_command(commands) -> None:
    from ..logs.clicks import MODELS

    cl = commands.add_parser(
        "clicks", help="judgments from an impression log by a click model: CTR, COEC, cascade, DCM, SDBN, PBM, UBM",
        description="Turn an impression log (one row per result shown: session_id, query_id, doc_id, position, clicked) "
                    "into real-valued judgments by a click model, with the impressions behind each: "
                    + "; ".join(f"{m.name}: {m.about}" for m in MODELS.values())
                    + ". Written as TREC qrels (query 0 doc label), or CSV, TSV or Parquet rows query_id, doc_id, "
                      "relevance, sessions, clicks (-o FILE.csv); any measure then reads them.")
    cl.add_argument("log", metavar="LOG", help="the impression log: CSV, TSV or Parquet (a header with the columns)")
    cl.add_argument("--model", default="pbm", choices=list(MODELS), help="the click model (default: pbm)")
    cl.add_argument("--iterations", type=int, default=50, metavar="N",
                    help="EM's iterations at the most (pbm, ubm; default 50; PyClick runs 5)")
    cl.add_argument("--tolerance", type=float, default=1e-9, metavar="T",
                    help="EM stops once no parameter moves more than T (default 1e-9; 0: every iteration)")
    cl.add_argument("--prior", choices=("pyclick", "none"), default="pyclick",
                    help="pyclick (default): PyClick's estimates, (k + 1) / (n + 2) by counting, EM's (1 + sum) / (5 + n) "
                         "from 1/5; none: the plain ratios, EM from 0.5")
    cl.add_argument("--min-sessions", type=int, default=1, metavar="N",
                    help="leave out the documents estimated from fewer than N impressions (default 1)")
    cl.add_argument("--log-columns", metavar="MAP", type=mapping_argument,
                    help="the log's column names, e.g. session_id=sid,query_id=q,doc_id=url,position=rank,clicked=click")
    cl.add_argument("--log-format", choices=FORMATS, help="format of the log (default: from the file name)")
    cl.add_argument("-f", "--format", choices=("trec", "csv", "tsv", "parquet"),
                    help="output format (default: from -o's name, else TREC qrels)")
    cl.add_argument("-o", "--output", metavar="FILE",
                    help="write the judgments to FILE (atomically; a line of counts goes to stdout) instead of stdout")
    cl.set_defaults(handler=clicks_command)


def clicks_command(args: argparse.Namespace) -> int:
    from ..fusing.output import run_format
    from ..logs.clicks import clicks
    from ..results.rows_file import require_trec_ids, table_file
    from ..results.writer import refuse_inputs

    refuse_inputs(args.output, [args.log])
    fmt = run_format(args.output, args.format)
    if fmt == "parquet" and args.output in (None, "-"):
        raise OptionError("Parquet judgments go to a file: give -o FILE.parquet")
    frame = clicks(args.log, args.model, iterations=args.iterations, tolerance=args.tolerance,
                   min_sessions=args.min_sessions, prior=args.prior, log_columns=args.log_columns,
                   log_format=args.log_format)
    if fmt == "trec":
        require_trec_ids(frame, "TREC qrels")
        data = "".join(f"{q} 0 {d} {float(r)!r}\n" for q, d, r in zip(frame.query_id, frame.doc_id, frame.relevance))
    else:
        data = table_file(frame, fmt)
    ran = f", {frame.attrs['iterations']} EM iterations" if frame.attrs["iterations"] else ""
    summary = (f"clicks: {len(frame)} judgments of {frame.query_id.nunique()} queries by {args.model} "
               f"(prior {args.prior}{ran}) from {int(frame.sessions.sum()) if len(frame) else 0} impressions\n")
    write_rows(data, args.output, summary)
    return 0
