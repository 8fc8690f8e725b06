"""The parsers of the commands that ship an evaluation elsewhere: sql (the statement), install (DuckDB table
macros) and dbt (a package), and dbt's handler."""
from __future__ import annotations

import argparse
import sys

from ..rendering.dialects import DIALECTS
from .commands import install_command, sql_command
from .fusing import add_fusion_arguments
from .options import (add_convention_arguments, add_evaluation_arguments, add_merge_arguments,
                      add_reference_arguments, convention_options)


def add_sql_command(commands) -> None:
    sq = commands.add_parser(
        "sql", help="print the SQL statement of an evaluation, for DuckDB or another engine (--dialect)",
        description="Print the exact statement sqlrank eval runs for these arguments, reading QRELS and RUN "
                    "themselves (files, or table names); pasted into a DuckDB shell (or spark.sql) it returns the "
                    "rows of sqlrank eval -f csv: query_id, measure, value with -q, else measure, value. With --fuse "
                    "RUN..., the statement of sqlrank fuse: the fused run's rows query_id, doc_id, score, rank.")
    sq.add_argument("qrels", metavar="QRELS", nargs="?",
                    help="relevance judgments: a file or a table name (with --fuse, of a trained method)")
    sq.add_argument("run", metavar="RUN", nargs="?", help="ranked results: a file or a table name (with --reference, "
                                                          "QRELS is the approximate search's run and RUN is left out)")
    add_evaluation_arguments(sq, measures_required=False)
    add_reference_arguments(sq)
    sq.add_argument("--fuse", nargs="+", metavar="RUN", help="print the fusion of these runs (files or table names) "
                                                            "instead, by --method, --norm and --weights")
    add_fusion_arguments(sq)
    sq.add_argument("-q", "--per-query", action="store_true", help="one row per query and measure")
    sq.add_argument("--dialect", choices=DIALECTS, default="duckdb",
                    help="duckdb (default), spark, postgres, datafusion, clickhouse, sqlite, trino, bigquery, "
                         "snowflake, redshift or databricks (all but duckdb, spark and databricks read tables: name "
                         "them, dataset.table; their columns "
                         "are query_id, doc_id, relevance and score, or --qrels-columns and --run-columns, or read "
                         "from --database)")
    add_merge_arguments(sq)
    sq.add_argument("--label-type", choices=("integer", "real"), dest="label_type",
                    help="the type of a named table's labels, for another dialect without --database (default: "
                         "real, read as DOUBLE)")
    sq.add_argument("-o", "--output", metavar="FILE", help="write the SQL to FILE (atomically) instead of stdout")
    sq.set_defaults(handler=sql_command)


def add_install_command(commands) -> None:
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
    ins.set_defaults(handler=install_command)


def add_dbt_command(commands) -> None:
    dbt = commands.add_parser(
        "dbt", help="write a dbt package: the evaluation as macros per adapter, models and input tests",
        description="Write (or add to) a dbt package in DIR: macros sqlrank.NAME(qrels, run) and "
                    "sqlrank.NAME_summary with the evaluation's SQL for the adapters duckdb, postgres, redshift, "
                    "snowflake, bigquery, spark, databricks, trino and clickhouse; table models NAME (query_id, "
                    "measure, value; run_id first for runs stored together) and NAME_summary on the inputs the vars "
                    "sqlrank_NAME_qrels (else sqlrank_qrels) and sqlrank_NAME_run name (the default evaluation: else "
                    "sqlrank_run; columns: var('sqlrank_columns')); NAME_comparison (t statistics against the var "
                    "sqlrank_baseline's run); a test of the inputs; the generic test sqlrank.one_row_per_document. With "
                    "--init, DIR becomes a starter project (profiles.yml, dbt_project.yml); with --demo, one that dbt "
                    "build runs as it is on dbt-duckdb, with the demo's seeds.")
    dbt.add_argument("folder", metavar="DIR", help="the package's folder (made if absent)")
    dbt.add_argument("-m", "--measures", action="append", required=True, metavar="MEASURES",
                     help='measures, separated by spaces; repeatable (e.g. -m "nDCG@10 AP P@10")')
    dbt.add_argument("--name", default="evaluation",
                     help="the evaluation's name: its macros, models and test (default: evaluation)")
    dbt.add_argument("--init", action="store_true",
                     help="make DIR a starter project: dbt_project.yml with a profile and the vars to set, profiles.yml "
                          "(dbt-duckdb; the other adapters in comments)")
    dbt.add_argument("--demo", action="store_true",
                     help="a starter project (--init) with the demo's judgments and results as seeds, the vars set to "
                          "them: dbt build runs it as it is")
    dbt.add_argument("--label-type", choices=("integer", "real"), default=None,
                     help="the judgments' labels: real (read as DOUBLE, the default) or integer")
    dbt.add_argument("--force", action="store_true",
                     help="replace files in DIR that sqlrank did not write (by default they are left as they are, "
                          "and nothing is written)")
    add_merge_arguments(dbt)
    add_convention_arguments(dbt)
    dbt.set_defaults(handler=dbt_command)


def dbt_command(args: argparse.Namespace) -> int:
    from ..export.dbt import write_package, written_lines

    written = write_package(args.folder, " ".join(args.measures), args.name, force=args.force, init=args.init,
                            label_type=args.label_type, prefer=args.prefer, combine=args.combine, demo=args.demo,
                            **convention_options(args))
    print("\n".join(written_lines(args.folder, args.name, written, args.init or args.demo)), file=sys.stderr)
    return 0
