"""An impression log read and checked: one row per result shown, with its session (one result page of one query),
query, document, the position it was shown at (1 the top) and whether it was clicked. Columns are named as given
(``columns={"session_id": "sid", ...}``). What would make a click model's estimate wrong is an error that says
which session and position, and how to fix it."""
from __future__ import annotations

from typing import Any

from ..errors import InputError, OptionError
from ..inputs.load import load_table

COLUMNS = ("session_id", "query_id", "doc_id", "position", "clicked")


def log_sql(obj: Any, con, registry, columns: dict | None = None, format: str | None = None) -> str:
    """The log as SQL with the canonical columns (session_id, query_id, doc_id text; position, clicked whole numbers),
    checked: nothing missing, positions whole numbers >= 1, clicks 0 or 1 (or true/false), one result per position of a
    session, one query per session."""
    mapping = {c: c for c in COLUMNS}
    for key, value in (columns or {}).items():
        if key not in COLUMNS:
            raise OptionError(f"log_columns: {key!r} is not one of {', '.join(COLUMNS)}")
        mapping[key] = value
    table = load_table(obj, "impression log", con, registry, tuple(mapping.values()), format)

    def quoted(name: str) -> str:
        return '"' + mapping[name].replace('"', '""') + '"'

    raw = (f"SELECT CAST({quoted('session_id')} AS VARCHAR) AS session_id, CAST({quoted('query_id')} AS VARCHAR) AS query_id, "
           f"CAST({quoted('doc_id')} AS VARCHAR) AS doc_id, {quoted('position')} AS position, "
           f"{quoted('clicked')} AS clicked FROM {table.reader}")
    _check(con, raw, table.label, mapping)
    return (f"SELECT session_id, query_id, doc_id, CAST(position AS BIGINT) AS position, "
            f"CAST(CAST(clicked AS DOUBLE) AS BIGINT) AS clicked FROM ({raw}) AS log")


def _check(con, raw: str, label: str, mapping: dict) -> None:
    """The first row of each fault, as an error."""
    checks = [
        ("session_id IS NULL OR query_id IS NULL OR doc_id IS NULL OR position IS NULL OR clicked IS NULL",
         "a value is missing (NULL) in session {0!r}, position {3}: every result needs its session, query, document, "
         "position and click"),
        ("TRY_CAST(position AS DOUBLE) IS NULL OR TRY_CAST(position AS DOUBLE) < 1 "
         "OR TRY_CAST(position AS DOUBLE) <> FLOOR(TRY_CAST(position AS DOUBLE))",
         "the position {3!r} of document {2!r} in session {0!r} is no whole number >= 1 (1 is the top of the page)"),
        ("TRY_CAST(clicked AS DOUBLE) IS NULL OR TRY_CAST(clicked AS DOUBLE) NOT IN (0, 1)",
         "clicked is {4!r} for document {2!r} in session {0!r}: write 1 (clicked) or 0 (shown, not clicked)"),
    ]
    for condition, message in checks:
        row = con.execute(f"SELECT session_id, query_id, doc_id, position, clicked FROM ({raw}) AS log "
                          f"WHERE {condition} LIMIT 1").fetchone()
        if row is not None:
            raise InputError(f"{label}: {message.format(*row)} (columns: {_named(mapping)})")
    twice = con.execute(f"SELECT session_id, position, min(doc_id), max(doc_id), count(*) FROM ({raw}) AS log "
                        f"GROUP BY session_id, position HAVING count(*) > 1 LIMIT 1").fetchone()
    if twice is not None:
        raise InputError(f"{label}: session {twice[0]!r} shows {twice[4]} results at position {twice[1]} ({twice[2]!r}, "
                         f"{twice[3]!r}): a session is one result page, one result per position; give each page its "
                         f"own session id")
    mixed = con.execute(f"SELECT session_id, min(query_id), max(query_id) FROM ({raw}) AS log GROUP BY session_id "
                        f"HAVING count(DISTINCT query_id) > 1 LIMIT 1").fetchone()
    if mixed is not None:
        raise InputError(f"{label}: session {mixed[0]!r} holds the queries {mixed[1]!r} and {mixed[2]!r}: a session here "
                         f"is one result page of one query; give each page its own session id")
    empty = con.execute(f"SELECT count(*) FROM ({raw}) AS log").fetchone()[0]
    if not empty:
        raise InputError(f"{label}: the log has no rows")


def _named(mapping: dict) -> str:
    return ", ".join(f"{k}={v}" if k != v else k for k, v in mapping.items())
