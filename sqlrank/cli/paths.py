"""Every file a command reads, writes to or keeps, from its parsed arguments: the one list the output
writer checks, so that no output (-o, --record) replaces a file the command reads or keeps.

Patterns are expanded as the readers expand them (``runs/*.parquet`` is every file it matches), a
``NAME=FILE`` source is its file, and a database (--dsn of --engine sqlite, --database) is a file of
the command like any input."""
from __future__ import annotations

import glob
import os
from typing import Any

from ..results.writer import refuse_inputs

# the arguments that name files the command reads or keeps, whatever the command
READ = ("qrels", "qrels_a", "qrels_b", "run", "run_a", "run_b", "runs", "judged", "qrels_sources", "queries", "history",
        "items", "item_features", "groups", "targets", "verdicts", "file", "database", "zscores", "weights", "dsn")
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
