"""Every file a command reads, writes to or keeps, from its parsed arguments: the one list the output
writer checks, so that no output (-o, --record) replaces a file the command reads or keeps.

Patterns are expanded as the readers expand them (``runs/*.parquet`` is every file it matches), a
``NAME=FILE`` source is its file, and a database (--dsn of --engine sqlite, --database) is a file of
the command like any input."""
from __future__ import annotations

import sys

import argparse
import glob
import os
from typing import Any

from ..errors import OptionError
from ..inputs.merge import source_names
from ..results.writer import refuse_inputs

# the arguments that name files the command reads or keeps, whatever the command
READ = ("qrels", "qrels_a", "qrels_b", "run", "run_a", "run_b", "runs", "judged", "qrels_sources", "queries", "history",
        "items", "item_features", "groups", "targets", "verdicts", "file", "database", "zscores", "weights", "dsn", "log",
        "rewards")
KEPT = ("record",)  # files a command appends to: kept, never replaced by an output


def command_paths(args: Any, names: tuple[str, ...] = READ + KEPT) -> list[str]:
    """The files named by these arguments of ARGS, patterns expanded, NAME=FILE sources as their files."""
    paths: list[str] = []
    for name in names:
        value = getattr(args, name, None)
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text and text != "-":
                paths += _files(text)
    return list(dict.fromkeys(paths))


def refuse_clobbers(args: Any) -> None:
    """Stop before anything is read when -o names a file the command reads or keeps, or --record one it reads."""
    refuse_inputs(getattr(args, "output", None), command_paths(args))
    refuse_inputs(getattr(args, "record", None), command_paths(args, READ), "--record")


def _files(text: str) -> list[str]:
    """The files TEXT names: itself, the files a pattern matches, the file of a NAME=FILE source."""
    if os.path.exists(text):
        return [text]
    found = [text]
    if any(ch in text for ch in "*?["):
        found += sorted(glob.glob(text, recursive=True))
    name, eq, path = text.partition("=")
    if eq and name.isidentifier():
        found += _files(path)
    return found


# What an output file's name says of its format; -o FILE chooses -f by it wherever the command has that format.
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".md": "markdown", ".markdown": "markdown", ".tex": "latex",
              ".html": "html", ".htm": "html", ".parquet": "parquet"}


# Compressions an output's name may end in: gzip is written (sqlrank reads it back), the others are refused.
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4", ".snappy")


def choose_format(args: Any, choices: tuple[str, ...], argv: list[str]) -> None:
    """-o FILE's extension as -f, where the command has that format and -f is not given; -f given and naming another
    format than the file's is an error saying both (a CSV file of a text table would mislead whoever opens it). A name
    that says a format or a compression the command does not write (eval -o e.parquet) is refused before anything is
    read; FILE.gz is written gzip-compressed, its format from the name before .gz (pool -o pool.csv.gz)."""
    path = getattr(args, "output", None)
    if not isinstance(path, str) or path == "-":
        return
    stem, compression = os.path.splitext(path.lower())
    if compression not in COMPRESSIONS:
        stem, compression = path.lower(), ""
    named = EXTENSIONS.get(os.path.splitext(stem)[1])
    _refuse_misnamed(path, args.command, choices, named, compression)
    if named is None or named not in choices:
        return
    given = any(token in ("-f", "--format") or token.startswith("--format=") or
                (token.startswith("-f") and not token.startswith("--")) for token in argv)
    if given and args.format != named:
        raise OptionError(f"-f {args.format} and -o {path} disagree: the file's name says {named}; leave out -f (the "
                          f"name chooses), or give the file a name for {args.format}")
    args.format = named


def _refuse_misnamed(path: str, command: str, choices: tuple[str, ...], named: str | None, compression: str) -> None:
    """An output name that says what the command would not write: a compression other than gzip, a compressed
    Parquet file, a format the command has no -f for (Parquet, whatever the command: its output is text)."""
    if compression and compression != ".gz":
        raise OptionError(f"-o {path}: sqlrank writes gzip (.gz), not {compression[1:]}; name the file .gz, or leave "
                          f"the compression out")
    if named == "parquet" and compression:
        raise OptionError(f"-o {path}: Parquet compresses itself; name the file .parquet")
    if named is not None and choices and named not in choices or named == "parquet" and not choices:
        offered = f" (-f {', '.join(choices)})" if choices else ""
        raise OptionError(f"-o {path}: the name says {named}, which sqlrank {command} does not write{offered}; give the "
                          f"file a name for what it writes")


def format_choices(parser: argparse.ArgumentParser, command: str) -> tuple[str, ...]:
    """The formats -f of COMMAND takes (none where it has no -f)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return next((tuple(a.choices) for a in action.choices[command]._actions if a.dest == "format" and a.choices),
                        ())
    return ()


TABLE_FORMATS = ("csv", "tsv", "json", "markdown", "latex")  # what -f gives of any command's table


def formats_markdown(parser: argparse.ArgumentParser) -> str:
    """Every command's -f formats and the -o extensions that choose one of them (choose_format), as a Markdown table:
    docs/usage.md's, drawn from the parser itself (tests/cli/test_help.py keeps the page equal to it)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    lines = ["| command | `-f` | `-o FILE` chooses `-f` by its extension |", "|---|---|---|"]
    for name, command in commands.items():
        if not any(a.dest == "output" for a in command._actions):
            continue
        formats = format_choices(parser, name)
        chosen = [f"`{extension}`" for extension, fmt in EXTENSIONS.items() if fmt in formats]
        lines.append(f"| `{name}` | {', '.join(formats) or 'none'} | {', '.join(chosen) or 'none (its own layout)'} |")
    return "\n".join(lines) + "\n"


def frame_text(frame, fmt: str) -> str:
    """A DataFrame as CSV/TSV (floats in full precision: the shortest text that reads back the
    same, as sqlrank eval -f csv), JSON records, or a Markdown or LaTeX table (numbers to 4 decimals,
    right-aligned; empty cells for missing values)."""
    if fmt == "json":
        return frame.to_json(orient="records", indent=2, double_precision=15) + "\n"
    if fmt in ("markdown", "latex"):
        return _document_table(frame, fmt)
    return frame.to_csv(index=False, sep="," if fmt == "csv" else "\t", float_format=lambda v: repr(float(v)),
                        lineterminator="\n")


def _document_table(frame, fmt: str) -> str:
    import math

    from ..results.formats import latex_text, markdown_row

    numeric = [str(frame[c].dtype).startswith(("float", "int", "Int", "Float")) for c in frame.columns]

    def cell(value: Any, number: bool) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return ""
        text = f"{value:.4f}" if number and isinstance(value, float) else str(value)
        return text if fmt == "markdown" else latex_text(text)

    rows = [[cell(v, n) for v, n in zip(record, numeric)] for record in frame.itertuples(index=False)]
    header = [str(c) for c in frame.columns]
    if fmt == "markdown":
        rule = ["---:" if n else "---" for n in numeric]
        return "".join(markdown_row(cells) + "\n" for cells in [header, rule, *rows])
    lines = ["\\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}", "\\toprule",
             " & ".join(latex_text(h) for h in header) + " \\\\", "\\midrule",
             *(" & ".join(cells) + " \\\\" for cells in rows), "\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def named_sources(texts: list[str], merged: bool) -> dict[str, str] | str:
    """Judgment sources given as [NAME=]FILE (--qrels, once or more; meta's two): {name: file}, a name from the
    file's name where none is given (the names of all of them told apart as inputs/merge.source_names tells them:
    qrels.human.txt and qrels.llm.csv are qrels_human and qrels_llm), or the one file when it is a single source and
    nothing says to merge."""
    given: list[tuple[str | None, str]] = []
    for text in texts:
        name, eq, path = text.partition("=")
        given.append((name, path) if eq and name.isidentifier() and not os.path.exists(text) else (None, text))
    unnamed = [path for name, path in given if name is None]
    automatic = iter(source_names(unnamed)) if unnamed else iter(())
    named: dict[str, str] = {}
    for name, path in given:
        name = name if name is not None else next(automatic)
        if name in named:
            raise OptionError(f"two judgment sources are both called {name!r}; name them: NAME=FILE (--qrels NAME=FILE)")
        named[name] = path
    return named if len(named) > 1 or merged else next(iter(named.values()))


def rows_format(args: Any, what: str) -> str:
    """The format of rows a command writes as a file of its own kind (a pool, a fused run, judgments): -f, or what -o's
    name chose (choose_format), else TREC text; Parquet goes to a file only (``what``: "a Parquet pool goes")."""
    fmt = args.format or "trec"
    if fmt == "parquet" and args.output in (None, "-"):
        raise OptionError(f"{what} to a file: give -o FILE.parquet")
    return fmt


def write_statement(text: str, args) -> int:
    """A printed statement (sqlrank sql and the commands' --dialect), to stdout or -o (atomically), ended by a semicolon
    for DuckDB's shell."""
    from ..results.writer import write_output

    write_output(text.rstrip("\n") + (";\n" if args.dialect == "duckdb" else "\n"), args.output)
    return 0


def write_rows(data: str | bytes, output: str | None, summary: str) -> None:
    """Rows a command writes (a pool, a fused run) to standard output with the summary on standard error, or to the
    file -o names with the summary on standard output."""
    from ..results.writer import write_file, write_output

    if output in (None, "-"):
        write_output(data, output)
        print(summary, end="", file=sys.stderr)
    else:
        write_file(output, data)
        write_output(summary, None)
