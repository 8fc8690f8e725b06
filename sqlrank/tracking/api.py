"""sqlrank.history: the rows of a history file."""
from __future__ import annotations


def history(path: str):
    """Every row of a history written with record= (or --record): evaluation, recorded_at, tag, command, run,
    measure, value, queries, conventions, and each input's name, rows and SHA-256; oldest first."""
    from .history import read

    return read(path)
