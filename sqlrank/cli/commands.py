"""The subcommands of ``sqlrank``: each reads its parsed arguments, calls the library and prints
or writes what it returns (eval, sql, install, check, compare, report, gsb, explain, dbt,
measures)."""
from __future__ import annotations

import argparse
import sys
import warnings

from ..errors import OptionError
from ..results.formats import overall_label
from ..results.writer import write_output
from .judging import neighbours_output, prediction_powered_output, reference_sql
from .options import EXIT_ERROR, database_options, evaluation_options, where_options
from .paths import frame_text, named_sources, write_statement


def _comparison(args: argparse.Namespace, details: int = 0):
    from ..comparing.ppi_comparison import comparison

    qrels, runs = args.qrels, args.runs
    if qrels is None or not runs and not args.qrels_sources:
        raise OptionError("give QRELS and one or more RUN (two or more runs, or a table of runs stored together)")
    if (args.test or "").startswith("ppi") and (args.all_pairs or getattr(args, "record", None)):
        raise OptionError(f"--test {args.test} compares each run with the baseline by an LLM's judgments and people's; "
                          f"leave out --all-pairs and --record")
    if args.qrels_sources:  # the judgments by source (--test ppi): every positional argument is a run
        qrels, runs = named_sources(args.qrels_sources, True), [args.qrels, *args.runs]
    if (args.qrels_sources or args.gold) and not (args.test or "").startswith("ppi"):
        raise OptionError("--qrels NAME=FILE and --gold give the LLM's and the people's judgments of --test ppi; add "
                          "--test ppi (or merge the sources with sqlrank eval --qrels)")
    if args.engine != "duckdb" and (args.test or "").startswith("ppi"):
        raise OptionError(f"--test {args.test} reads the judgments of its sources on DuckDB: leave out --engine")
    with database_options(args, _engine_options(args, evaluation_options(args))) as options:
        result = comparison(qrels, runs, " ".join(args.measures), test=args.test or "t",
                            correction=args.correction, trials=args.trials, seed=args.seed, gsb=args.gsb,
                            tolerance=args.tolerance, names=args.names, baseline=args.baseline,
                            weights=args.weights, aggregate=args.aggregate, details=details, gold=args.gold, **options)
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    return result


def sql_command(args: argparse.Namespace) -> int:
    from ..evaluation import render

    if args.fuse is not None:
        from .fusing import fusion_sql_command

        return fusion_sql_command(args)
    if args.reference is not None:
        return reference_sql(args)
    if not args.measures:
        raise OptionError("sqlrank sql needs -m MEASURES (or --fuse RUN...)")
    if args.qrels is None or args.run is None:
        raise OptionError("sqlrank sql takes QRELS and RUN (or --reference EXACT RUN)")
    options = evaluation_options(args)
    if not args.database:
        for name in ("memory_limit", "temp_directory", "threads", "progress"):
            options.pop(name)
    with database_options(args, options) as options:
        text = render(args.qrels, args.run, " ".join(args.measures), args.per_query, dialect=args.dialect,
                      label_type=args.label_type, prefer=args.prefer, combine=args.combine, **options)
    return write_statement(text, args)


def install_command(args: argparse.Namespace) -> int:
    from ..export.macros import install_file, install_statements

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


def check_command(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict

    from ..diagnosing.check import check, check_error, findings_frame

    runs, qrels = args.runs, args.qrels
    if args.qrels_sources:  # --qrels gives the judgments: every positional argument is a run
        runs, qrels = ([qrels] if qrels is not None else []) + runs, named_sources(args.qrels_sources,
                                                                                  args.prefer or args.combine)
    elif qrels is None:
        raise OptionError("give QRELS and a RUN (or the judgments with --qrels, then the runs)")
    with database_options(args, {"prefer": args.prefer, "combine": args.combine}) as options:
        findings = check(qrels, runs, " ".join(args.measures) if args.measures else None, rel=args.rel,
                         history=args.history, items=args.items, groups=args.groups, qrels_format=args.qrels_format,
                         run_format=args.run_format,
                         qrels_columns=args.qrels_columns, run_columns=args.run_columns, **options)
    if args.format == "json":
        text = json.dumps([asdict(f) | {"problem": f.problem} for f in findings], indent=2, ensure_ascii=False) + "\n"
    elif args.format != "table":
        text = frame_text(findings_frame(findings), args.format)
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


def compare_command(args: argparse.Namespace) -> int:
    from ..comparing.comparison_text import latex, markdown, text_table
    from ..comparing.gate import failures, parse_rule, require_measures

    if args.paired_t is not None:
        from .paired import paired_t_command

        return paired_t_command(args)
    rules = [parse_rule(rule) for rule in args.fail_if]  # a wrong rule stops before anything is evaluated
    require_measures(rules, " ".join(args.measures))
    _check_record(args)
    if args.all_pairs and (args.test or "").startswith("ppi"):
        raise OptionError(f"--test {args.test} compares each run with the baseline; leave out --all-pairs")
    if args.all_pairs:
        if rules:
            raise OptionError("--fail-if gates a change against its baseline; leave out --all-pairs")
        return _all_pairs(args)
    result = _comparison(args)
    if args.format in ("csv", "tsv", "json"):
        text = frame_text(result.table, args.format)
    elif args.format == "markdown":
        text = markdown(result, args.gsb)
    elif args.format == "latex":
        text = latex(result, args.gsb)
    else:
        text = text_table(result, args.gsb)
    if args.format == "table" and (args.weights is not None or args.aggregate != "mean"):
        text += (f"means: the {result.table.attrs['aggregate']}" + (f" (weights: {args.weights})" if args.weights
                 is not None else "") + " of the measures whose summary is a mean; the tests test the per-query "
                 "differences\n")
    write_output(text, args.output)
    failed = failures(result.table, rules, args.alpha) if rules else []
    for line in failed:
        print(f"sqlrank: fail: {line}", file=sys.stderr)
    if not failed:  # a comparison that fails its gate is not recorded
        _record_comparison(args, result)
    return EXIT_ERROR if failed else 0


def _record_comparison(args: argparse.Namespace, result) -> None:
    """compare --record: the means of every run compared, once they were printed."""
    if args.record:
        from ..tracking.history import record_comparison

        record_comparison(args.record, result.table, result.compared, result.conventions, args.qrels, args.runs,
                          result.runs, args.tag)


def _all_pairs(args: argparse.Namespace) -> int:
    from ..comparing.compare import compare_pairs
    from ..statistics.pairs import pairs_text

    with database_options(args, _engine_options(args, evaluation_options(args))) as options:
        pairs, result = compare_pairs(args.qrels, args.runs, " ".join(args.measures), test=args.test or "tukey",
                                      correction=args.correction, trials=args.trials, seed=args.seed,
                                      alpha=args.alpha, names=args.names, baseline=args.baseline,
                                      letters=args.format not in ("csv", "tsv", "json"), **options)
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    if args.format in ("csv", "tsv", "json"):
        text = frame_text(pairs.table, args.format)
    else:
        text = pairs_text(pairs, args.format)
    write_output(text, args.output)
    _record_comparison(args, result)
    return 0


def report_command(args: argparse.Namespace) -> int:
    from ..comparing import reports as report
    from ..comparing.compare import pairs_of
    from ..statistics.pairs import TUKEY

    tukey = args.test in TUKEY
    if tukey and not args.all_pairs:
        raise OptionError(f"--test {args.test} compares every pair of runs: add --all-pairs")
    if args.all_pairs and args.format != "html":
        raise OptionError("--all-pairs adds a section to the HTML report; sqlrank compare --all-pairs -f markdown or "
                          "-f latex gives its tables")
    test, args.test = args.test, ("t" if tukey else args.test)  # the comparison with the baseline: a paired test
    result = _comparison(args, report.DEPTH if args.format == "html" else 0)
    if args.all_pairs:
        pairs = pairs_of(result, test or "tukey", "none" if tukey or test is None else args.correction, args.trials,
                         args.seed, args.alpha)
        write_output(report.html_page(result, args.gsb, pairs=pairs), args.output)
        print(f"sqlrank: wrote {args.output}", file=sys.stderr)
        return 0
    page = {"html": report.html_page, "markdown": report.markdown, "latex": report.latex}[args.format]
    write_output(page(result, args.gsb), args.output)
    print(f"sqlrank: wrote {args.output}", file=sys.stderr)
    return 0


def history_command(args: argparse.Namespace) -> int:
    from ..tracking.history import chosen, read, trend_html, trend_text

    history = chosen(read(args.file), " ".join(args.measures).split() if args.measures else None, args.file)
    fmt = args.format or ("html" if (args.output or "").lower().endswith((".html", ".htm")) else "table")
    if fmt == "html":
        text = trend_html(history)
    elif fmt != "table":
        text = frame_text(history.astype({"recorded_at": str}), fmt)
    else:
        text = trend_text(history)
    write_output(text, args.output)
    return 0


def gsb_command(args: argparse.Namespace) -> int:
    from ..comparing.compare import gsb_frame

    frame = gsb_frame(args.verdicts, args.by)
    for message in frame.attrs["warnings"]:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    if args.format != "table":
        text = frame_text(frame, args.format)
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


def eval_command(args: argparse.Namespace) -> int:
    from ..evaluation import evaluate_result
    from ..results.formats import format_result

    if args.reference is not None:
        return neighbours_output(args)
    options = _engine_options(args, evaluation_options(args))
    qrels, run = judgment_arguments(args)
    if args.prefer is not None or args.combine is not None:
        options.update(prefer=args.prefer, combine=args.combine)
    level = _ci_level(args)
    _check_record(args)
    summarised = args.weights is not None or args.aggregate != "mean"
    if summarised and args.per_query:
        raise OptionError("--weights and --aggregate summarise the per-query values; leave out -q")
    weights = _weights(args)
    if level is not None and args.ci_method.startswith("ppi"):
        return prediction_powered_output(args, qrels, run, level, options)
    if args.gold is not None:
        raise OptionError("--gold names the people's judgments of --ci LEVEL --ci-method ppi; without them it would be "
                          "read by nothing: add --ci 95 --ci-method ppi, or leave out --gold")
    with database_options(args, options) as options:
        result = evaluate_result(qrels, run, " ".join(args.measures), args.per_query or level is not None or summarised,
                                 slices=args.slices, strict=args.strict, printable=False,
                                 **options)  # never shown
    if level is not None:
        from ..statistics.uncertainty import interval_text, with_intervals

        frame = with_intervals(result.frame, result.summary, level, args.ci_method, args.trials, args.seed,
                               args.aggregate, weights)
        text = (interval_text(frame) + f"queries: {result.num_queries}\nconventions: {result.conventions.describe()}\n"
                if args.format == "table" else frame_text(frame, args.format))
    elif summarised:
        from ..statistics.aggregate import aggregate_text, aggregated

        if args.format == "trec":
            raise OptionError("trec_eval's layout has means only; use -f table, csv, tsv or json with --weights or "
                              "--aggregate")
        frame = aggregated(result.frame, result.summary, args.aggregate, weights)
        text = (aggregate_text(frame, args.weights) + f"queries: {result.num_queries}\nconventions: "
                f"{result.conventions.describe()}\n" if args.format == "table" else frame_text(frame, args.format))
    else:
        text, frame = (frame_text(result.frame, args.format) if args.format in ("markdown", "latex") else
                       format_result(result, args.format)), None
    for message in result.warnings:
        print(f"sqlrank: warning: {message}", file=sys.stderr)
    write_output(text, args.output)
    if args.record:  # what was printed, once it was
        from ..tracking.history import record_evaluation, summary_label

        record_evaluation(args.record, result, qrels, run, args.tag, frame, summary_label(args.aggregate, args.weights))
    return 0


def _engine_options(args: argparse.Namespace, options: dict) -> dict:
    """The options of eval, compare or report with its engine's (where_options): DuckDB's resource flags refused
    elsewhere."""
    if args.engine != "duckdb":  # DuckDB's resource flags do not apply; the engine has its own configuration
        for name, default in (("memory_limit", None), ("temp_directory", None), ("threads", None)):
            if options.pop(name) is not default:
                raise OptionError(f"--{name.replace('_', '-')} is a DuckDB setting; it does not apply with "
                                  f"--engine {args.engine}")
        options.pop("progress")
    options.update(where_options(args))
    if args.database and args.engine != "duckdb":
        raise OptionError(f"--database is a DuckDB database file; it does not apply with --engine {args.engine}")
    return options


def _check_record(args: argparse.Namespace) -> None:
    """--record's history and --tag, before anything is evaluated."""
    if getattr(args, "record", None) is None and getattr(args, "tag", None) is None:
        return  # nothing to check: the history's module (and pandas) stays unimported
    from ..tracking.history import check_record

    check_record(getattr(args, "record", None), getattr(args, "tag", None))


def _weights(args: argparse.Namespace):
    """The query weights of --weights (read and checked before anything is evaluated), or None."""
    if args.weights is None:
        return None
    from ..statistics.aggregate import check_aggregate, read_weights

    check_aggregate(args.aggregate, True)
    return read_weights(args.weights)


def _ci_level(args: argparse.Namespace) -> float | None:
    """--ci 95 as the level 0.95 (checked before anything is evaluated), or None."""
    if args.ci is None:
        if args.ci_method != "t":  # a method of no interval would change nothing, or (ppi) merge the sources instead
            raise OptionError(f"--ci-method {args.ci_method} is how --ci's interval is computed: add --ci 95")
        return None
    if args.per_query:
        raise OptionError("--ci describes the means over queries; leave out -q")
    if args.format == "trec":
        raise OptionError("trec_eval's layout has no place for intervals; use -f table, csv, tsv or json with --ci")
    from ..statistics.uncertainty import check_interval

    level = args.ci / 100 if args.ci > 1 else args.ci
    check_interval(level, args.ci_method, args.trials, args.seed)
    return level


def judgment_arguments(args: argparse.Namespace) -> tuple:
    """(qrels, run) from QRELS RUN [RUN ...], or from --qrels given once or more and RUN [RUN ...] (argparse
    puts the first RUN in args.qrels then); several runs are a list, evaluated run by run."""
    runs = list(args.run)
    if args.qrels_sources:
        runs = ([args.qrels] if args.qrels is not None else []) + runs
        qrels = named_sources(args.qrels_sources, args.prefer or args.combine)
    elif args.qrels is None:
        raise OptionError("give QRELS and RUN (or the judgments with --qrels, then RUN)")
    else:
        qrels = args.qrels
    if not runs:
        raise OptionError("give the RUN to evaluate (after QRELS, or after the --qrels sources)")
    return qrels, runs[0] if len(runs) == 1 else runs


def measures_command(args: argparse.Namespace) -> int:
    import csv
    import io
    import json

    from ..measures.listing import listing, markdown_table

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


def explain_command(args: argparse.Namespace) -> int:
    import warnings

    from ..diagnosing import explain

    inputs = dict(qrels_format=args.qrels_format, run_format=args.run_format, qrels_columns=args.qrels_columns,
                  run_columns=args.run_columns)
    with warnings.catch_warnings(), database_options(args, inputs) as options:
        warnings.simplefilter("ignore")
        if args.target is not None:
            found = explain.reproduction(args.qrels, args.run, args.measure, args.target, args.tolerance, args.query,
                                         run_id=args.run_id, **options)
            if args.format == "table":
                write_output(found.text(args.target, args.all), args.output)
                return 0
            frame = found.frame()
        else:
            frame = explain.attribute(args.qrels, args.run, args.measure, *args.between, run_id=args.run_id, **options)
    if args.format != "table":
        write_output(frame_text(frame, args.format), args.output)
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
