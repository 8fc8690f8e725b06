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
    raw, label, mapping = _read(obj, con, registry, COLUMNS, columns, format, "impression log")
    _check(con, raw, label, mapping, [CLICKED])
    return (f"SELECT session_id, query_id, doc_id, CAST(position AS BIGINT) AS position, "
            f"CAST(CAST(clicked AS DOUBLE) AS BIGINT) AS clicked FROM ({raw}) AS log")


def traffic_sql(obj: Any, con, registry, columns: dict | None = None, format: str | None = None,
                optional: tuple[str, ...] = ()) -> str:
    """Logged traffic (counterfactual estimates) as SQL: the log's columns with reward (a number) and propensity (the
    logging policy's probability of showing the document at that position, in (0, 1]), and of the ``optional`` ones
    asked for (slate_propensity, prefix_propensity), checked as log_sql checks a log, the propensities in (0, 1]."""
    wanted = ("session_id", "query_id", "doc_id", "position", "reward", "propensity", *optional)
    raw, label, mapping = _read(obj, con, registry, wanted, columns, format, "logged traffic")
    checks = [("TRY_CAST(reward AS DOUBLE) IS NULL OR isnan(TRY_CAST(reward AS DOUBLE))",
               "the reward {4!r} of document {2!r} in session {0!r} is no number")]
    for at, name in enumerate(("propensity", *optional), 5):  # the row: session, query, doc, position, reward, ...
        checks.append((f"TRY_CAST({name} AS DOUBLE) IS NULL OR NOT (TRY_CAST({name} AS DOUBLE) > 0 "
                       f"AND TRY_CAST({name} AS DOUBLE) <= 1)",
                       f"the {name} {{{at}!r}} of document {{2!r}} at position {{3}} in session {{0!r}} is not in (0, 1]: a "
                       f"logging policy's probability of what it showed is above 0 and at most 1"))
    _check(con, raw, label, mapping, checks, value="reward", extra=("propensity", *optional))
    rest = "".join(f", CAST({name} AS DOUBLE) AS {name}" for name in ("propensity", *optional))
    return (f"SELECT session_id, query_id, doc_id, CAST(position AS BIGINT) AS position, CAST(reward AS DOUBLE) AS reward"
            f"{rest} FROM ({raw}) AS log")


CLICKED = ("TRY_CAST(clicked AS DOUBLE) IS NULL OR TRY_CAST(clicked AS DOUBLE) NOT IN (0, 1)",
           "clicked is {4!r} for document {2!r} in session {0!r}: write 1 (clicked) or 0 (shown, not clicked)")


def _read(obj: Any, con, registry, wanted: tuple[str, ...], columns: dict | None, format: str | None,
          what: str) -> tuple[str, str, dict]:
    """The table's rows with the wanted columns under their canonical names (text ids), its label, the mapping."""
    mapping = {c: c for c in wanted}
    for key, value in (columns or {}).items():
        if key not in wanted:
            raise OptionError(f"log_columns: {key!r} is not one of {', '.join(wanted)}")
        mapping[key] = value
    table = load_table(obj, what, con, registry, tuple(mapping.values()), format)

    def quoted(name: str) -> str:
        return '"' + mapping[name].replace('"', '""') + '"'

    text = {"session_id", "query_id", "doc_id"}
    raw = ", ".join(f"CAST({quoted(c)} AS VARCHAR) AS {c}" if c in text else f"{quoted(c)} AS {c}" for c in wanted)
    return f"SELECT {raw} FROM {table.reader}", table.label, mapping


def _check(con, raw: str, label: str, mapping: dict, more: list, value: str = "clicked", extra: tuple = ()) -> None:
    """The first row of each fault, as an error (``more``: the checks of the value columns)."""
    shown = ", ".join((value, *extra))
    missing = " OR ".join(f"{c} IS NULL" for c in (value, *extra))
    checks = [
        (f"session_id IS NULL OR query_id IS NULL OR doc_id IS NULL OR position IS NULL OR {missing}",
         "a value is missing (NULL) in session {0!r}, position {3}: every result needs its session, query, document, "
         f"position, {shown}"),
        ("TRY_CAST(position AS DOUBLE) IS NULL OR TRY_CAST(position AS DOUBLE) < 1 "
         "OR TRY_CAST(position AS DOUBLE) <> FLOOR(TRY_CAST(position AS DOUBLE))",
         "the position {3!r} of document {2!r} in session {0!r} is no whole number >= 1 (1 is the top of the page)"),
        *more,
    ]
    for condition, message in checks:
        row = first_row(con, f"SELECT session_id, query_id, doc_id, position, {shown} FROM ({raw}) AS log "
                          f"WHERE {condition} LIMIT 1")
        if row is not None:
            raise InputError(f"{label}: {message.format(*row)} (columns: {_named(mapping)})")
    twice = first_row(con, f"SELECT session_id, position, min(doc_id), max(doc_id), count(*) FROM ({raw}) AS log "
                        f"GROUP BY session_id, position HAVING count(*) > 1 LIMIT 1")
    if twice is not None:
        raise InputError(f"{label}: session {twice[0]!r} shows {twice[4]} results at position {twice[1]} ({twice[2]!r}, "
                         f"{twice[3]!r}): a session is one result page, one result per position; give each page its "
                         f"own session id")
    mixed = first_row(con, f"SELECT session_id, min(query_id), max(query_id) FROM ({raw}) AS log GROUP BY session_id "
                        f"HAVING count(DISTINCT query_id) > 1 LIMIT 1")
    if mixed is not None:
        raise InputError(f"{label}: session {mixed[0]!r} holds the queries {mixed[1]!r} and {mixed[2]!r}: a session here "
                         f"is one result page of one query; give each page its own session id")
    empty = first_row(con, f"SELECT count(*) FROM ({raw}) AS log")[0]
    if not empty:
        raise InputError(f"{label}: the log has no rows")


def _named(mapping: dict) -> str:
    return ", ".join(f"{k}={v}" if k != v else k for k, v in mapping.items())


def model_sql(obj: Any, con, registry, format: str | None = None) -> str:
    """A reward model (dm, dr): query_id, doc_id, position, estimate (a number), one row per slot."""
    raw, label, _ = _read(obj, con, registry, ("query_id", "doc_id", "position", "estimate"), None, format, "reward model")
    bad = first_row(con, f"SELECT query_id, doc_id, position, estimate FROM ({raw}) AS model WHERE TRY_CAST(estimate AS DOUBLE) "
                      f"IS NULL OR TRY_CAST(position AS BIGINT) IS NULL LIMIT 1")
    if bad is not None:
        raise InputError(f"{label}: the estimate {bad[3]!r} of document {bad[1]!r} at position {bad[2]!r} of query "
                         f"{bad[0]!r} is no number (or its position no whole number)")
    twice = first_row(con, f"SELECT query_id, doc_id, position FROM ({raw}) AS model GROUP BY ALL HAVING count(*) > 1 "
                        f"LIMIT 1")
    if twice is not None:
        raise InputError(f"{label}: document {twice[1]!r} at position {twice[2]} of query {twice[0]!r} has two estimates")
    return (f"SELECT query_id, doc_id, CAST(position AS BIGINT) AS position, CAST(estimate AS DOUBLE) AS estimate "
            f"FROM ({raw}) AS model")


def first_row(con, sql: str) -> tuple | None:
    """The first row of a query (fetched whole: a DuckDB result left unfinished blocks the connection)."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None
