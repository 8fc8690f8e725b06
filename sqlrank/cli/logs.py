"""The command line of what logs hold: sqlrank clicks (an impression log turned into judgments by a click model)."""
from __future__ import annotations

import argparse

from ..errors import OptionError
from ..inputs.source import FORMATS
from ..rendering.dialects import DIALECTS
from .options import add_where_arguments, mapping_argument, where_options
from .paths import rows_format, write_rows, write_statement


def add_clicks_command(commands) -> None:
    from ..logs.names import MODELS

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
                    help="EM's iterations at the most (pbm, ubm, dbn; default 50; PyClick runs 5)")
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
    add_where_arguments(cl)
    cl.add_argument("--dialect", choices=list(DIALECTS), metavar="DIALECT",
                    help="print the statement of a counting model (ctr, coec, cm, dcm, sdbn) for DIALECT instead of "
                         "running it: duckdb reads LOG, a file; the others read LOG as that database's table")
    cl.set_defaults(handler=clicks_command)


def clicks_command(args: argparse.Namespace) -> int:
    from ..logs.clicks import clicks
    from ..results.rows_file import require_trec_ids, table_file

    if args.dialect is not None:
        from ..logs.clicks import render_clicks

        refuse_engine_with_dialect(args)
        return write_statement(render_clicks(args.log, args.model, min_sessions=args.min_sessions, prior=args.prior,
                                             dialect=args.dialect, log_columns=args.log_columns,
                                             log_format=args.log_format), args)
    fmt = rows_format(args, "Parquet judgments go")
    frame = clicks(args.log, args.model, iterations=args.iterations, tolerance=args.tolerance,
                   min_sessions=args.min_sessions, prior=args.prior, log_columns=args.log_columns,
                   log_format=args.log_format, **where_options(args))
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


def add_counterfactual_command(commands) -> None:
    from ..logs.names import ESTIMATORS

    cf = commands.add_parser(
        "counterfactual", help="what a new ranking would have earned, estimated from logged traffic (IPS, DR, ...)",
        description="Estimate the value of NEW_RUN (a ranking per query) from logged traffic with the logging policy's "
                    "propensities (one row per result shown: session_id, query_id, doc_id, position, reward, propensity; "
                    "rips reads prefix_propensity, sips slate_propensity), per session, by the estimators: "
                    + "; ".join(f"{k}: {v}" for k, v in ESTIMATORS.items())
                    + ". Each with a percentile bootstrap interval over sessions. A new run that puts documents where "
                      "the log never shows them is an error that says their share.")
    cf.add_argument("log", metavar="LOG", help="the logged traffic: CSV, TSV or Parquet")
    cf.add_argument("run", metavar="NEW_RUN", help="the new ranking: a run (TREC, CSV, Parquet)")
    cf.add_argument("--estimator", action="append", choices=list(ESTIMATORS), metavar="E",
                    help=f"an estimator (repeatable; default ips): {', '.join(ESTIMATORS)}")
    cf.add_argument("--rewards", metavar="FILE", help="the reward model of dm and dr: query_id, doc_id, position, estimate")
    cf.add_argument("--ci", type=float, default=95, metavar="LEVEL", help="the interval's level in percent (default 95)")
    cf.add_argument("--trials", type=int, default=10000, metavar="N", help="bootstrap resamples (default 10000)")
    cf.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    cf.add_argument("--tie-break", choices=("trec_eval", "doc_id_asc", "input_rank"), default="trec_eval",
                    help="order of the new run's tied scores (default trec_eval: document id descending)")
    cf.add_argument("--log-columns", metavar="MAP", type=mapping_argument, help="the log's column names, e.g. reward=click")
    cf.add_argument("--log-format", choices=FORMATS, help="format of the log (default: from the file name)")
    cf.add_argument("--run-format", choices=FORMATS, help="format of NEW_RUN (default: from the file name)")
    cf.add_argument("--run-columns", metavar="MAP", type=mapping_argument, help="column names of NEW_RUN")
    cf.add_argument("-f", "--format", choices=("table", "csv", "tsv", "json", "markdown", "latex"), default="table",
                    help="output layout (default: table)")
    cf.add_argument("-o", "--output", metavar="FILE", help="write the estimates to FILE (atomically) instead of stdout")
    add_where_arguments(cf)
    cf.add_argument("--dialect", choices=list(DIALECTS), metavar="DIALECT",
                    help="print the statement for DIALECT instead of running it: one row, each estimator's mean over "
                         "sessions (NULL where the new run fills slots the log never shows), no interval; duckdb reads "
                         "the files, the others read LOG, NEW_RUN and --rewards as that database's tables")
    cf.set_defaults(handler=counterfactual_command)


def counterfactual_command(args: argparse.Namespace) -> int:
    from ..logs.counterfactual import counterfactual
    from ..results.formats import aligned_lines
    from ..results.writer import write_output
    from .paths import frame_text

    if args.dialect is not None:
        from ..logs.counterfactual import render_counterfactual

        refuse_engine_with_dialect(args)
        return write_statement(render_counterfactual(
            args.log, args.run, args.estimator or ["ips"], rewards=args.rewards, tie_break=args.tie_break,
            dialect=args.dialect, log_columns=args.log_columns, log_format=args.log_format, run_format=args.run_format,
            run_columns=args.run_columns), args)
    if not 0 < args.ci < 100:
        raise OptionError(f"--ci {args.ci:g}: a level in percent between 0 and 100 (95)")
    frame = counterfactual(args.log, args.run, args.estimator or ["ips"], rewards=args.rewards, ci=args.ci / 100,
                           trials=args.trials, seed=args.seed, tie_break=args.tie_break, log_columns=args.log_columns,
                           log_format=args.log_format, run_format=args.run_format, run_columns=args.run_columns,
                           **where_options(args))
    if args.format != "table":
        write_output(frame_text(frame, args.format), args.output)
        return 0
    rows = [[name, f"{v:.4f}", f"[{lo:.4f}, {hi:.4f}]", str(n)]
            for name, v, lo, hi, n in frame.itertuples(index=False)]
    lines = aligned_lines(["estimator", "estimate", f"{args.ci:g}% CI", "sessions"], rows)
    write_output("\n".join(lines) + "\n", args.output)
    return 0


def refuse_engine_with_dialect(args: argparse.Namespace) -> None:
    if args.engine != "duckdb" or args.dsn is not None:
        raise OptionError("--dialect prints the statement and runs nothing; --engine and --dsn say where to run it: give "
                          "one or the other")

