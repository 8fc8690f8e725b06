"""An impression log read and checked: one row per result shown, with its session (one result page of one query),
query, document, the position it was shown at (1 the top) and whether it was clicked; logged traffic (with rewards
and propensities) and a reward model alike. Columns are named as given (``columns={"session_id": "sid", ...}``).
What would make an estimate wrong is an error that says which session and position, and how to fix it. A file or
DataFrame is read and checked by DuckDB (and copied into another engine); another engine's table is checked there,
in its dialect (logs/where.py)."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import InputError, OptionError
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro
from .where import Place

COLUMNS = ("session_id", "query_id", "doc_id", "position", "clicked")
TEXT = ("session_id", "query_id", "doc_id")


def log_sql(obj: Any, place: Place, columns: dict | None = None, format: str | None = None) -> str:
    """The log as SQL of the place's dialect with the canonical columns (session_id, query_id, doc_id text; position,
    clicked whole numbers), checked: nothing missing, positions whole numbers >= 1, clicks 0 or 1 (or true/false), one
    result per position of a session, one query per session."""
    read = _read(obj, place, COLUMNS, columns, format, "impression log")
    clicked = read.number("clicked")
    read.check([(f"{clicked} IS NULL OR {clicked} NOT IN (0, 1)",
                 "clicked is {4!r} for document {2!r} in session {0!r}: write 1 (clicked) or 0 (shown, not clicked)")])
    return read.canonical("log", f"CAST({clicked} AS BIGINT) AS clicked")


def traffic_sql(obj: Any, place: Place, columns: dict | None = None, format: str | None = None,
                optional: tuple[str, ...] = ()) -> str:
    """Logged traffic (counterfactual estimates) as SQL: the log's columns with reward (a number) and propensity (the
    logging policy's probability of showing the document at that position, in (0, 1]), and of the ``optional`` ones
    asked for (slate_propensity, prefix_propensity), checked as log_sql checks a log, the propensities in (0, 1]."""
    wanted = ("session_id", "query_id", "doc_id", "position", "reward", "propensity", *optional)
    read = _read(obj, place, wanted, columns, format, "logged traffic")
    reward, double = read.number("reward"), read.dialect.type("DOUBLE")
    nan = call_macro(read.dialect, "_macros/dialect.sql", "is_nan", reward)
    checks = [(f"{reward} IS NULL OR {nan}", "the reward {4!r} of document {2!r} in session {0!r} is no number")]
    for at, name in enumerate(("propensity", *optional), 5):  # the row: session, query, doc, position, reward, ...
        value = read.number(name)
        checks.append((f"{value} IS NULL OR NOT ({value} > 0 AND {value} <= 1)",
                       f"the {name} {{{at}!r}} of document {{2!r}} at position {{3}} in session {{0!r}} is not in (0, 1]: a "
                       f"logging policy's probability of what it showed is above 0 and at most 1"))
    read.check(checks)
    rest = ", ".join(f"CAST({read.number(name)} AS {double}) AS {name}" for name in ("reward", "propensity", *optional))
    return read.canonical("traffic", rest)


def model_sql(obj: Any, place: Place, format: str | None = None) -> str:
    """A reward model (dm, dr): query_id, doc_id, position, estimate (a number), one row per slot."""
    read = _read(obj, place, ("query_id", "doc_id", "position", "estimate"), None, format, "reward model")
    estimate, position = read.number("estimate"), read.number("position")
    bad = read.first(f"SELECT query_id, doc_id, position, estimate FROM ({read.raw}) AS model WHERE {estimate} IS NULL "
                     f"OR {position} IS NULL OR {position} <> FLOOR({position}) LIMIT 1")
    if bad is not None:
        raise InputError(f"{read.label}: the estimate {bad[3]!r} of document {bad[1]!r} at position {bad[2]!r} of query "
                         f"{bad[0]!r} is no number (or its position no whole number)")
    twice = read.first(f"SELECT query_id, doc_id, position FROM ({read.raw}) AS model GROUP BY query_id, doc_id, position "
                       f"HAVING count(*) > 1 LIMIT 1")
    if twice is not None:
        raise InputError(f"{read.label}: document {twice[1]!r} at position {twice[2]} of query {twice[0]!r} has two estimates")
    return read.canonical("model", f"CAST({estimate} AS {read.dialect.type('DOUBLE')}) AS estimate", log=False)


class _Read:
    """A table's rows with the wanted columns under their canonical names (ids as text, values as stored), where they
    are read (``own``: another engine's table, checked there), their label and mapping."""

    def __init__(self, place: Place, raw: str, label: str, mapping: dict, types: dict | None, own: bool, what: str):
        self.place, self.raw, self.label, self.mapping, self.what = place, raw, label, mapping, what
        self.types, self.own = types, own

    @property
    def dialect(self):
        """The dialect the rows are read and checked in: the other engine's for its table, else DuckDB's."""
        return self.place.dialect if self.own else DUCKDB

    def number(self, name: str) -> str:
        """The canonical column ``name`` as a number (DuckDB tries the cast; another engine's must hold numbers)."""
        types = None if self.types is None else {name: self.types[self.mapping[name]]}
        return self.place.number(name, types, self.label, self.what)

    def first(self, sql: str) -> tuple | None:
        """The first row of a query where the rows are read (fetched whole: an unfinished DuckDB result blocks)."""
        rows = self.place.rows(sql) if self.own else self.place.con.execute(sql).fetchall()
        return rows[0] if rows else None

    def check(self, more: list[tuple[str, str]]) -> None:
        """The first row of each fault, as an error (``more``: the checks of the value columns)."""
        value, *extra = [c for c in self.mapping if c not in TEXT and c != "position"]
        shown = ", ".join((value, *extra))
        missing = " OR ".join(f"{c} IS NULL" for c in (value, *extra))
        position = self.number("position")
        checks = [
            (f"session_id IS NULL OR query_id IS NULL OR doc_id IS NULL OR position IS NULL OR {missing}",
             "a value is missing (NULL) in session {0!r}, position {3}: every result needs its session, query, "
             f"document, position, {shown}"),
            (f"{position} IS NULL OR {position} < 1 OR {position} <> FLOOR({position})",
             "the position {3!r} of document {2!r} in session {0!r} is no whole number >= 1 (1 is the top of the page)"),
            *more,
        ]
        for condition, message in checks:
            row = self.first(f"SELECT session_id, query_id, doc_id, position, {shown} FROM ({self.raw}) AS log "
                             f"WHERE {condition} LIMIT 1")
            if row is not None:
                raise InputError(f"{self.label}: {message.format(*row)} (columns: {_named(self.mapping)})")
        self._check_pages()

    def _check_pages(self) -> None:
        twice = self.first(f"SELECT session_id, position, min(doc_id), max(doc_id), count(*) FROM ({self.raw}) AS log "
                           f"GROUP BY session_id, position HAVING count(*) > 1 LIMIT 1")
        if twice is not None:
            raise InputError(f"{self.label}: session {twice[0]!r} shows {twice[4]} results at position {twice[1]} "
                             f"({twice[2]!r}, {twice[3]!r}): a session is one result page, one result per position; give "
                             f"each page its own session id")
        mixed = self.first(f"SELECT session_id, min(query_id), max(query_id) FROM ({self.raw}) AS log GROUP BY session_id "
                           f"HAVING count(DISTINCT query_id) > 1 LIMIT 1")
        if mixed is not None:
            raise InputError(f"{self.label}: session {mixed[0]!r} holds the queries {mixed[1]!r} and {mixed[2]!r}: a "
                             f"session here is one result page of one query; give each page its own session id")
        if not self.first(f"SELECT count(*) FROM ({self.raw}) AS log")[0]:
            raise InputError(f"{self.label}: the log has no rows")

    def canonical(self, kind: str, values: str, log: bool = True) -> str:
        """The checked rows as the place's SQL: ids, position as a whole number, then ``values``; a file or DataFrame
        read by DuckDB is copied into another engine."""
        ids = "session_id, query_id, doc_id" if log else "query_id, doc_id"
        sql = f"SELECT {ids}, CAST({self.number('position')} AS BIGINT) AS position, {values} FROM ({self.raw}) AS {kind}"
        return sql if self.own else self.place.copied(kind, sql)


def _read(obj: Any, place: Place, wanted: tuple[str, ...], columns: dict | None, format: str | None,
          what: str) -> _Read:
    mapping = _mapping(wanted, columns)
    table, own = place.table(obj, what, tuple(mapping.values()), format)
    dialect = place.dialect if own else DUCKDB
    text = call_macro(dialect, "_macros/dialect.sql", "text")
    columns = {c: dialect.ident(mapping[c]) for c in wanted}
    raw = ", ".join(f"CAST({columns[c]} AS {text}) AS {c}" if c in TEXT else f"{columns[c]} AS {c}" for c in wanted)
    return _Read(place, f"SELECT {raw} FROM {table.reader}", table.label, mapping, table.types if own else None, own,
                 what)


def _mapping(wanted: tuple[str, ...], columns: dict | None) -> dict:
    """Each canonical column and the input's name for it (``columns`` renames some)."""
    mapping = {c: c for c in wanted}
    for key, value in (columns or {}).items():
        if key not in wanted:
            raise OptionError(f"log_columns: {key!r} is not one of {', '.join(wanted)}")
        mapping[key] = value
    return mapping


def _named(mapping: dict) -> str:
    return ", ".join(f"{k}={v}" if k != v else k for k, v in mapping.items())


def declared_sql(obj: Any, place: Place, dialect, reader: Callable[..., str], wanted: tuple[str, ...],
                 named: dict | None, what: str, **options: Any) -> str:
    """An input of a statement printed for ``dialect``: on DuckDB, the file read and checked as ``reader`` reads it;
    for another dialect, that database's table by name (read and checked nowhere here), its columns cast as the
    checked rows are (ids text, position a whole number, the values numbers)."""
    if dialect.name == "duckdb":
        return reader(obj, place, **options)
    import os

    from ..inputs.locate import table_parts

    if not isinstance(obj, str) or os.path.exists(obj):
        raise OptionError(f"the {what} of a statement printed for {dialect} is a table of that database: give its name "
                          f"([catalog.][schema.]table), not a file or a DataFrame")
    mapping = _mapping(wanted, named)
    text, double = call_macro(dialect, "_macros/dialect.sql", "text"), dialect.type("DOUBLE")
    cast = {c: text for c in TEXT} | {"position": "BIGINT", "clicked": "BIGINT"}
    listed = ", ".join(f"CAST({dialect.ident(mapping[c])} AS {cast.get(c, double)}) AS {c}" for c in wanted)
    return f"SELECT {listed} FROM {call_macro(dialect, '_macros/inputs.sql', 'table', table_parts(obj)).strip()}"
