"""Every command's --help: it prints, and every argument has help text (as sqlite-utils' test_docs.py
checks its CLI); the messages argparse formats come out as meant (no "%%")."""
from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from sqlrank.cli.parser import build_parser
from sqlrank.cli.trec_eval import trec_eval_parser


def parsers():
    top = build_parser()
    found = [("sqlrank", top)]
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                found.append((f"sqlrank {name}", trec_eval_parser() if name == "trec_eval" else parser))
    return found


def test_every_command_is_walked():
    names = {name for name, _ in parsers()}
    assert names >= {"sqlrank eval", "sqlrank trec_eval", "sqlrank compare", "sqlrank report", "sqlrank check",
                     "sqlrank explain", "sqlrank gsb", "sqlrank sql", "sqlrank install", "sqlrank dbt",
                     "sqlrank measures", "sqlrank agree", "sqlrank overlap", "sqlrank pool"}


@pytest.mark.parametrize("name, parser", parsers(), ids=[name for name, _ in parsers()])
def test_every_argument_has_help(name, parser):
    missing = [action.option_strings[0] if action.option_strings else action.metavar or action.dest
               for action in parser._actions
               if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
               and (not action.help or action.help == argparse.SUPPRESS)]
    assert not missing, f"{name}: no help text for {', '.join(missing)}"


@pytest.mark.parametrize("name", [name for name, _ in parsers()])
def test_help_prints(name):
    done = subprocess.run([sys.executable, "-m", "sqlrank", *name.split()[1:], "--help"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "usage:" in done.stdout and "%%" not in done.stdout and "%(" not in done.stdout


def test_every_command_that_reads_qrels_and_runs_takes_the_same_input_options():
    wanted = {"--qrels-format", "--run-format", "--qrels-columns", "--run-columns", "--database"}
    for name, parser in parsers():
        options = {s for action in parser._actions for s in action.option_strings}
        if name in ("sqlrank eval", "sqlrank sql", "sqlrank check", "sqlrank compare", "sqlrank report",
                    "sqlrank explain"):
            assert wanted <= options, f"{name} lacks {wanted - options}"
        own = {"sqlrank agree": {"--qrels-format", "--qrels-columns"}, "sqlrank overlap": {"--run-format", "--run-columns"},
               "sqlrank pool": {"--run-format", "--run-columns", "--qrels-format", "--qrels-columns"}}
        assert own.get(name, set()) <= options, f"{name} lacks {own[name] - options}"
        if name not in ("sqlrank", "sqlrank install", "sqlrank dbt"):
            assert "-o" in options, f"{name} has no -o"


def test_the_formats_table_of_the_usage_page_is_the_parser_s():
    """docs/usage.md's table of every command's -f formats and the -o extensions that choose them is drawn from the
    parser: a format added to a command and not to the page fails here."""
    from conftest import ROOT
    from sqlrank.cli.paths import EXTENSIONS, formats_markdown

    table = formats_markdown(build_parser())
    assert table in (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].strip("| `"): line for line in table.splitlines()[2:]}
    assert {"eval", "compare", "report", "pool", "history", "overlap", "agree", "meta", "check", "explain"} <= set(rows)
    for name, line in rows.items():  # every extension listed does choose that format
        for extension in EXTENSIONS:
            listed = f"`{extension}`" in line.split(" | ")[2]
            assert listed == (EXTENSIONS[extension] in line.split(" | ")[1].split(", ")), (name, extension)


def test_a_command_line_builds_its_commands_parser_alone_the_same():
    """sqlrank COMMAND builds COMMAND's parser only (the others cost 20 to 30 ms): the same parser, option for
    option and word for word of its help, as the one among all; a word that is no command builds them all, so that
    argparse names the choices."""
    everything = {name.split()[-1]: parser for name, parser in parsers()[1:] if name != "sqlrank trec_eval"}
    for name, parser in everything.items():
        (subparsers,) = [a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction)]
        assert list(subparsers.choices) == [name]
        assert subparsers.choices[name].format_help() == parser.format_help()
    (subparsers,) = [a for a in build_parser("evl")._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(subparsers.choices) == set(everything) | {"trec_eval"}
