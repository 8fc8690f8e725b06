"""Validation of a located input: one pass that finds what would make a number wrong (an empty
id, a score that is no number, a label that is no integer, a (query, document) pair twice) and
an error that says where; and the same checks of a table another engine reads in place."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import duckdb

from ..errors import LABEL_LIMIT, InputError, duckdb_reason
from ..progress import step
from ..rendering.dialects import DUCKDB, Dialect
from ..rendering.sqltext import call_macro
from .ids import odd_id
from .source import GROUP_SEPARATOR, INTEGER_TYPES, TEXT_TYPES, TREC_LAYOUT, Source


@dataclass(frozen=True)
class Validation:
    """What validating an input found: its rows, whether its labels are written true/false, how many
    document ids may not be in their normal form (inputs/ids.py), or that a TREC file read with the fast
    single-character split has a line that needs the regex (``irregular``: nothing else was checked)."""

    rows: int = 0
    boolean_labels: bool = False
    irregular: bool = False
    whole_labels: bool = False  # judgments whose every label is a whole number (read as integers)
    odd_ids: int | None = None  # rows whose document id odd_id holds for (a run's: beyond ASCII only)


def validate(source: Source, con: duckdb.DuckDBPyConnection, allow_duplicates: bool = False,
             odd_ids: bool = True) -> Validation:
    """Check what would make a number wrong; raise an InputError that says where.

    One pass, as cheap as it gets: it sorts a 64-bit hash of each (query, document) pair and
    counts neighbours that are equal, which finds every duplicate (two copies of a pair share their
    hash) faster than grouping the strings; a row that fails a check has no hash and is counted
    apart. Only when something looks wrong is the source read again: each kind of bad row counted
    and the first located by line number, and duplicates confirmed on the exact ids (a hash
    collision alone is not an error). With allow_duplicates, the pass only counts. With odd_ids, it
    also counts the document ids that may not be in their normal form (inputs/ids.py)."""
    raw = source.sql("raw")
    problems = _problem_conditions(source)
    if source.format == "trec" and source.split != "regex":
        problems = {"irregular": ("bad_fields", None), **problems}
    fractional = fractional_labels(source)
    # counted on the way, by name: the labels with a fraction, and the document ids the near-id check would look at
    counted = {"fractions": fractional,
               "odd_ids": odd_id("doc_id", beyond_ascii_only=source.kind == "run") if odd_ids else None}
    counted = {name: cond for name, cond in counted.items() if cond}
    counts = ["count(*)"] + [f"count(*) FILTER (WHERE {cond})" for cond, _ in problems.values()]
    count_per_check = f"SELECT {', '.join(counts)} FROM ({raw}) AS checked"
    try:
        if allow_duplicates:  # the same pass counts what is counted on the way
            tallied = counts + [f"count(*) FILTER (WHERE {cond})" for cond in counted.values()]
            with step(con, f"checking {source.label}"):
                total, *rest = con.execute(f"SELECT {', '.join(tallied)} FROM ({raw}) AS checked").fetchall()[0]
            bad, tallies = rest[:len(problems)], rest[len(problems):]
            duplicated = False
        else:
            rows, key, failing = pass_rows(source, problems)
            with step(con, f"checking {source.label} and looking for repeated documents"):
                total, failed, repeats, *tallies = con.execute(
                    checked_pairs_sql(rows, failing, list(counted.values()), key)).fetchall()[0]
            bad = [0] * len(problems)
            if failed:  # which checks: the slow path, taken only for a bad input
                total, *bad = con.execute(count_per_check).fetchall()[0]
            duplicated = not failed and repeats > 0
    except duckdb.Error as exc:
        raise InputError(f"{source.label}: cannot read the {source.kind}: {duckdb_reason(exc)}") from None
    if not total and source.kind not in ("qrels", "run"):  # empty judgments or runs: evaluated where defined
        raise InputError(f"{source.label}: the {source.kind} has no data rows")
    for (name, (cond, message)), count in zip(problems.items(), bad):
        if count and name == "irregular":
            return Validation(irregular=True)
        if count:
            _raise_first_failing(source, con, cond, message, count)
    if duplicated:
        report_duplicates(source, con, raw)
    tally = dict(zip(counted, tallies))
    return Validation(total, _boolean_labels(source, con, raw), whole_labels=not tally.get("fractions"),
                      odd_ids=tally.get("odd_ids"))


def _raise_first_failing(source: Source, con: duckdb.DuckDBPyConnection, cond: str, message: Any, count: int) -> None:
    """Raise the InputError of a check that count rows fail, located at the first of them by its line."""
    found = con.execute(
        f"SELECT * FROM ({source.sql('numbered')}) AS checked WHERE {cond} ORDER BY position LIMIT 1"
    ).fetchall()[0]
    record = dict(zip([d[0] for d in con.description], found))
    if source.stacked and isinstance(record.get("query_id"), str):  # where() names the run: the query alone
        record["query_id"] = record["query_id"].split(GROUP_SEPARATOR, 1)[-1]
    more = f" ({count} rows in all)" if count > 1 else ""
    raise InputError(f"{source.where(record['position'])}: {message(record)}{more}")


def deferred_pass(source: Source) -> tuple[str, int]:
    """Validation's one pass over a run whose validation was deferred (Source.deferred), for the evaluation's
    statement to read with its values: SQL of one row (rows, rows failing a check, rows sharing their hash with the
    row before, rows with an odd document id), and how many columns it has."""
    rows, key, failing = pass_rows(source, _problem_conditions(source))
    return checked_pairs_sql(rows, failing, [odd_id("doc_id", beyond_ascii_only=True)], key), 4


def pass_rows(source: Source, problems: dict[str, tuple[str, Any]]) -> tuple[str, str, str]:
    """What validation's pass reads: the raw rows, the columns whose hash keys a row, and the condition of a row that
    fails a check. Runs stored together in a table, frame or relation are read with their query ids apart from the
    run's name, and hashed by the three: the run || chr(31) || query text is not built for every row (at 200 runs x
    5,000 rows, 0.14 s where it took 0.19). A NUL byte in a run's name, which the text would hold, fails the row;
    the pass that says what is wrong reads the keyed rows."""
    failing = " OR ".join(f"({cond})" for cond, _ in problems.values())
    if source.per_run and source.table is None and source.format in ("dataframe", "relation", "table"):
        return source.source_sql(DUCKDB, "raw", keyed=False), "run_id, query_id, doc_id", \
            f"{failing} OR contains(run_id, chr(0))"
    return source.sql("raw"), "query_id, doc_id", failing


def deferred_validation(source: Source, con: duckdb.DuckDBPyConnection, row: tuple | None = None) -> Source:
    """The run as validate() leaves it, from the row of deferred_pass the statement read: validated again where a row
    fails a check or two share their hash, which says what is wrong and where (or finds a hash collision only), or
    where no statement read the row (None)."""
    if row is None or row[1] or row[2]:
        found = validate(replace(source, deferred=False), con)
        return replace(source, deferred=False, rows=found.rows, odd_ids=found.odd_ids)
    return replace(source, deferred=False, rows=row[0], odd_ids=row[3])


def _boolean_labels(source: Source, con: duckdb.DuckDBPyConnection, raw: str) -> bool:
    """Whether the labels are written true/false: text labels of judgments other than TREC text are looked at."""
    if source.kind == "qrels" and source.value_type in TEXT_TYPES and source.format != "trec":
        return con.execute(
            f"SELECT count(*) FILTER (WHERE lower(trim(relevance)) IN ('true', 'false')) > 0 FROM ({raw}) AS labels"
        ).fetchall()[0][0]
    return source.boolean_labels


def checked_pairs_sql(rows_sql: str, failing: str, counted: Sequence[str] = (), key: str = "query_id, doc_id") -> str:
    """Validation's one pass: (rows, rows where `failing` holds, rows that share their hash with
    the row before, then the rows where each `counted` condition holds). A failing row's pair is
    NULL: it is left out of the comparison and counted. Each counted condition rides in one of the
    hash's lowest bits (the sort carries nothing else); the neighbours are compared above those bits,
    so two copies of a pair are found whatever their conditions."""
    bits = len(counted)
    pair = f"hash({key})"
    if bits:
        mask = (1 << 64) - (1 << bits)  # every bit of the hash above the counted ones
        flags = " | ".join(f"CAST(CASE WHEN {condition} THEN {1 << bit} ELSE 0 END AS UBIGINT)"
                           for bit, condition in enumerate(counted))
        pair = f"({pair} & CAST({mask} AS UBIGINT)) | {flags}"
    same = f"(pair >> {bits}) = (previous >> {bits})" if bits else "pair = previous"
    flagged = "".join(f", count(*) FILTER (WHERE pair & {1 << bit} <> 0)" for bit in range(bits))
    return (f"SELECT count(*), count(*) FILTER (WHERE pair IS NULL), count(*) FILTER (WHERE {same}){flagged} "
            f"FROM (SELECT pair, LAG(pair) OVER (ORDER BY pair) AS previous "
            f"FROM (SELECT CASE WHEN {failing} THEN NULL ELSE {pair} END AS pair FROM ({rows_sql}) AS checked) AS pairs) "
            f"AS sorted")


# What a run without a score column is ranked by, and what to do when its rank column is a score.
RANKED_BY_RANK = ("the run has no score column and is ranked by its rank (1 = best); if column {column!r} is a "
                  "score (higher is better), map it with --run-columns score={column} (run_columns={{'score': "
                  "'{column}'}} in Python)")


def unnamed_run(run_id: str, dialect: Dialect) -> str:
    """Whether a row of runs stored together has no usable name (``run_id``: its text, in ``dialect``):
    none, empty, or one holding the separator of the statement's query keys."""
    return call_macro(dialect, "checks.sql", "unnamed_run", run_id)


def unnamed_run_message(column: str) -> str:
    return (f"empty run_id (column {column!r}) or one holding the character chr(31); every row of runs stored "
            f"together needs the name of its run")


def _problem_conditions(source: Source) -> dict[str, tuple[str, Any]]:
    """Each problem a row can have: {name: (SQL condition over the row, its message from the row)}."""
    checks = _line_problems(source)
    name = source.columns.get(source.value_name, source.value_name)
    checks.update(_score_problems(source, name) if source.kind == "run" else _label_problems(source, name))
    return checks


def _line_problems(source: Source) -> dict[str, tuple[str, Any]]:
    """What makes a line or row unreadable: its fields, line ends or NUL bytes in ids, no run name, no id."""
    kind, value = source.kind, source.value_name
    checks: dict[str, tuple[str, Any]] = {}
    layout = TREC_LAYOUT[kind]
    if source.format == "trec":
        if kind == "run":
            checks["malformed"] = ("bad_fields", lambda r: _separated(r["score"]) if r["field_count"] >= 6 else (
                f"malformed run line: expected 6 fields '{layout}', found {r['field_count']}: {r['line']!r}; "
                f"fix the line, or name the format with --run-format if this is not a TREC run"))
        else:
            checks["malformed"] = ("bad_fields", lambda r: (
                f"malformed qrels line: expected 4 fields '{layout}', found {r['field_count']}: {r['line']!r}; "
                f"fix the line, or name the format with --qrels-format if this is not TREC qrels"))
    col = source.columns.get
    texts = ["query_id", "doc_id"] + ([value] if source.value_type in TEXT_TYPES else [])
    if source.format in ("csv", "tsv"):
        breaks = " OR ".join(f"contains({c}, chr(10)) OR contains({c}, chr(13))" for c in texts)
        checks["line_break"] = (breaks, lambda r: (
            f"a field runs over the end of this line into the next ones ({_broken_field(r, texts)}): a double quote "
            f"(\") opens a quoted field that only a later quote closes; remove the stray quote, or quote the whole "
            f"field and double the quotes inside it (\"\")"))
    if source.format != "trec":  # TREC text with a NUL byte stops in the reader (errors.duckdb_reason)
        checks["nul"] = (" OR ".join(f"contains({c}, chr(0))" for c in texts[:2]), lambda r: (
            f"an id holds a NUL byte (\\0): query {r['query_id']!r}, document {r['doc_id']!r}; no id has one: check "
            f"that the input is what you meant, and remove the byte"))
    if source.per_run:
        checks["bad_run_id"] = (unnamed_run("run_id", DUCKDB), lambda r: unnamed_run_message(col("run_id")))
    for canonical in ("query_id", "doc_id"):
        name = col(canonical, canonical)
        empty = f"{canonical} IS NULL OR {canonical} = ''"
        if canonical == "query_id" and source.per_run:  # runs stored together key a query by its run: run chr(31) query
            # nothing after the first chr(31): substr(query_id, strpos(query_id, chr(31)) + 1) = '', at 1M rows
            # about 15 ms less (ends_with first: strpos only where the id ends in one)
            empty += " OR (ends_with(query_id, chr(31)) AND strpos(query_id, chr(31)) = length(query_id))"
        checks[f"null_{canonical}"] = (empty, lambda r, c=canonical, n=name: (
            f"empty {c} (column {n!r}); every row needs a query and a document id"))
    return checks


def _score_problems(source: Source, vname: str) -> dict[str, tuple[str, Any]]:
    """A run's scores (or ranks) that are no number, NaN, or no whole rank."""
    checks: dict[str, tuple[str, Any]] = {}
    if source.value_type in TEXT_TYPES:
        separator = "" if source.format == "trec" else " OR contains(score, '_')"  # TREC: in bad_fields
        checks["bad_score"] = ("TRY_CAST(score AS DOUBLE) IS NULL" + separator, lambda r: (
            _separated(r["score"], vname) if "_" in (r["score"] or "") else
            f"score {r['score']!r} (column {vname!r}) is not a number" if r["score"] not in (None, "") else
            f"empty score (column {vname!r}) for document {r['doc_id']!r} of query {r['query_id']!r}; every "
            f"row needs a score: fill it in or drop the row"))
        checks["nan_score"] = ("isnan(TRY_CAST(score AS DOUBLE))", lambda r: (
            f"score is NaN (column {vname!r}) for document {r['doc_id']!r} of query {r['query_id']!r}; "
            f"NaN cannot be ranked: replace it with a number"))
    else:
        checks["bad_score"] = ("score IS NULL", lambda r: (
            f"missing score (column {vname!r}) for document {r['doc_id']!r} of query {r['query_id']!r}"))
        checks["nan_score"] = ("isnan(CAST(score AS DOUBLE))", lambda r: (
            f"score is NaN (column {vname!r}) for document {r['doc_id']!r} of query {r['query_id']!r}; "
            f"NaN cannot be ranked: replace it with a number"))
    if source.score_from_rank:
        number = f"{'TRY_CAST' if source.value_type in TEXT_TYPES else 'CAST'}(score AS DOUBLE)"
        checks["bad_rank"] = (f"{number} < 0 OR {number} <> floor({number})", lambda r: (
            f"rank {r['score']!r} (column {vname!r}) for document {r['doc_id']!r} of query {r['query_id']!r} is "
            f"no whole number >= 0; {RANKED_BY_RANK.format(column=vname)}"))
    return checks


# A label as text: a decimal number (0, 2, -1, 0.7, .5, 1e-3); trec_eval's reading (atol) takes decimals only.
_REAL_TEXT = r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
_DECIMAL_TEXT = r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)"


def _label_problems(source: Source, vname: str) -> dict[str, tuple[str, Any]]:
    """Judgments whose label is no finite number within the labels' limit (trec_eval's reading: no decimal)."""
    checks: dict[str, tuple[str, Any]] = {}
    number = "CAST(relevance AS DOUBLE)"
    if source.value_type == "BOOLEAN":
        cond = "relevance IS NULL"
    elif source.value_type in TEXT_TYPES:
        pattern = _DECIMAL_TEXT if source.label_type == "atol" else _REAL_TEXT
        number = "TRY_CAST(relevance AS DOUBLE)"
        cond = (f"relevance IS NULL OR NOT (regexp_full_match(relevance, '{pattern}') AND abs({number}) <= {LABEL_LIMIT} "
                f"OR lower(trim(relevance)) IN ('true', 'false'))")
    elif source.value_type in INTEGER_TYPES:
        cond = f"relevance IS NULL OR abs(relevance) > {LABEL_LIMIT}"
    else:
        cond = f"relevance IS NULL OR NOT isfinite({number}) OR abs({number}) > {LABEL_LIMIT}"
    atol = source.label_type == "atol"
    checks["bad_relevance"] = (cond, lambda r: (
        f"relevance {r['relevance']!r} (column {vname!r}) for document {r['doc_id']!r} of query "
        f"{r['query_id']!r} is " + (f"too large for a label (at most {LABEL_LIMIT:,} either way)"
                                    if _too_large(r["relevance"]) else "not a label")
        + ("; trec_eval reads a label as an integer, the digits before any decimal point (0, 1, 2, 1.7 as 1)" if atol
           else "; relevance labels are finite numbers such as 0, 1, 2 or 0.7 (or true and false)")))
    return checks


def fractional_labels(source: Source) -> str | None:
    """SQL that holds for a valid label with a fraction (0.7; not 1.0), over the raw rows; None where the
    label's type has none (integers, booleans) or the labels are read as trec_eval reads them."""
    if source.kind != "qrels" or source.label_type == "atol" or source.value_type == "BOOLEAN" \
            or source.value_type in INTEGER_TYPES:
        return None
    if source.value_type in TEXT_TYPES:
        return r"NOT (regexp_full_match(relevance, '[+-]?[0-9]+([.]0*)?') OR lower(trim(relevance)) IN ('true', 'false'))"
    return "CAST(relevance AS DOUBLE) <> round(CAST(relevance AS DOUBLE))"


def _too_large(label: Any) -> bool:
    """A whole number beyond the labels sqlrank takes (a uint64 column, 9999999999 in text)."""
    try:
        number = float(label)
    except (TypeError, ValueError):
        return False
    return number == number and abs(number) > LABEL_LIMIT and (abs(number) == float("inf") or number == round(number))


def _separated(score: str, column: str = "score") -> str:
    """A score written with a digit separator (1_0): DuckDB's cast reads 10, trec_eval's atof 1."""
    return (f"score {score!r} (column {column!r}) holds a digit separator (_), which readers take differently "
            f"(10 or 1 for 1_0); write the number without it")


def _broken_field(record: dict, columns: list[str]) -> str:
    """The first field of a row that holds a line end, as its text begins."""
    for column in columns:
        value = record.get(column)
        if isinstance(value, str) and ("\n" in value or "\r" in value):
            head = value.replace("\r\n", "\n").split("\n")
            return f"{column} {head[0]!r} continues with {len(head) - 1} more line{'s' if len(head) > 2 else ''}"
    return "a field"


def report_duplicates(source: Source, con: duckdb.DuckDBPyConnection, raw: str) -> None:
    """Raise the error for the first (query, document) pair that raw (SQL of query_id, doc_id rows)
    holds more than once; return when none does (a hash collision only)."""
    found = con.execute(
        f"SELECT query_id, doc_id, count(*) AS copies, count(*) OVER () AS pairs FROM ({raw}) AS checked "
        f"GROUP BY query_id, doc_id HAVING count(*) > 1 ORDER BY query_id, doc_id LIMIT 1").fetchall()
    if not found:
        return  # only a hash collision: every (query, document) pair is distinct
    dup = found[0]
    query_id, doc_id, copies, pairs = dup
    shown = repr(query_id)
    if source.per_run and GROUP_SEPARATOR in query_id:  # runs stored together: the run and its query
        run_id, query = query_id.split(GROUP_SEPARATOR, 1)
        shown = f"{query!r} of run {run_id!r}"
    elif GROUP_SEPARATOR in query_id:  # the query and its judgment group (a subtopic)
        base, group = query_id.split(GROUP_SEPARATOR, 1)
        shown = f"{base!r}, {source.group_noun} {group!r}"
    positions = [r[0] for r in con.execute(
        f"SELECT position FROM ({source.sql('numbered')}) AS checked WHERE query_id = $1 AND doc_id = $2 "
        f"ORDER BY position LIMIT 2", [dup[0], doc_id]).fetchall()]
    where = source.where(positions[0]) if positions else source.label
    also = f" (again at {source.where(positions[1])})" if len(positions) > 1 else ""
    more = f"; {pairs - 1} more duplicated pairs" if pairs > 1 else ""
    what = "judged" if source.kind == "qrels" else "ranked"
    raise InputError(
        f"{where}: document {doc_id!r} is {what} {copies} times for query {shown}{also}{more}; each "
        f"(query, document) pair must appear once: remove the duplicates (trec_eval stops on them too)"
        + ("; or rank every row with duplicate_documents=rows, as ranx and Microsoft Recommenders count them"
           if source.kind == "run" else ""))


# Column types (Arrow's and Spark's names) whose values can have a fraction: a label there is checked
# to be a whole number, as the engine's CAST to an integer would truncate or round 1.5 without a word.
# Type names (as engines spell them, lower case) of text, and of columns that can hold a fraction
_TEXT_TYPE_NAMES = ("string", "utf8", "char", "text")
_FRACTIONAL_TYPES = ("float", "double", "decimal", "numeric", "real") + _TEXT_TYPE_NAMES


def may_have_fractions(type_name: str) -> bool:
    return any(name in type_name.lower() for name in _FRACTIONAL_TYPES)


def table_counts_sql(source: Source, dialect: Dialect, column_types: dict[str, str] | None = None) -> str:
    """What require_complete_rows checks of a table another engine reads where it is (Spark,
    PostgreSQL, ClickHouse, DataFusion), as one query in ``dialect``: rows without
    an id, rows without a value (NULL or NaN), all rows, distinct (query, document) pairs, and
    judgments whose label is no whole number (1.5, NaN; true and false are 1 and 0), where its type in
    ``column_types`` (the table's, as the engine names them) can hold one; or, in a run ranked by its
    rank, ranks that are no whole number >= 0; and in runs stored together, rows whose run_id is
    missing, empty or holds the separator chr(31) of the statement's query keys."""
    label_type = (column_types or {}).get(source.columns.get("relevance"))
    fraction = ("rank" if source.score_from_rank else
                "label" if source.kind == "qrels" and not source.implicit and label_type and may_have_fractions(label_type)
                else None)
    table = call_macro(dialect, "_macros/inputs.sql", "table", source.parts).strip()
    return call_macro(dialect, "checks.sql", "table_counts", source.source_sql(dialect), source.value_name, table,
                      fraction, source.columns.get("relevance"), source.boolean_labels,
                      source.columns["run_id"] if source.per_run else None)


def label_range_sql(source: Source, dialect: Dialect, column_types: dict[str, str] | None) -> str | None:
    """For judgments in a table another engine reads where it is, whose label column is a number type
    that can hold what no label is (NaN, Infinity, 9999999999: float, decimal, 64-bit integers), one
    query in ``dialect`` counting those labels, read as they are stored (the statement's
    cast to a 32-bit integer would stop with the engine's own error, naming no table or column): (count,
    an example). None where nothing needs checking. Fractions (1.5) are table_counts_sql's."""
    label_type = (column_types or {}).get(source.columns.get("relevance"))
    if source.kind != "qrels" or source.implicit or not label_type:
        return None
    lowered = label_type.lower()
    if any(name in lowered for name in _TEXT_TYPE_NAMES) or "bool" in lowered or lowered in ("int", "int32", "integer"):
        return None
    table = call_macro(dialect, "_macros/inputs.sql", "table", source.parts).strip()
    return call_macro(dialect, "checks.sql", "label_range", table, source.columns["relevance"], LABEL_LIMIT)


def require_labels_in_range(source: Source, count: int | None, example: str | None) -> None:
    """The counts of label_range_sql: an error naming the table, the column and an example label."""
    if count:
        labels = "1 label is" if count == 1 else f"{count} labels are"
        raise InputError(f"{source.label}: {labels} NaN, infinite or beyond -{LABEL_LIMIT:,} to {LABEL_LIMIT:,} "
                         f"(column {source.columns['relevance']!r}, e.g. {example}); relevance labels are finite numbers "
                         f"such as 0, 1, 2 or 0.7: fix them, or map them as you mean them to count")


def require_complete_rows(source: Source, missing_ids: int | None, missing_values: int | None, rows: int,
                          pairs: int, not_whole: int | None = 0, bad_run_ids: int | None = 0) -> Source:
    """The counts of a table another engine validated in place (table_counts_sql): every row of runs
    stored together names its run, every row has both ids and a value (not NaN), every rank (in a run
    ranked by it) is a whole number, no (query, document) pair repeats, and there is a row at all.
    The sums are NULL (None) for a table without rows. Returns the source, its labels read as integers
    where every one is whole (``not_whole`` counts those with a fraction, 0.7), else as real numbers."""
    if bad_run_ids:
        raise InputError(f"{source.label}: {bad_run_ids} rows have an {unnamed_run_message(source.columns['run_id'])}")
    if missing_ids:
        raise InputError(f"{source.label}: {missing_ids} rows have no query_id or doc_id")
    if missing_values:
        raise InputError(f"{source.label}: {missing_values} rows have no {source.value_name} (NULL or NaN)")
    if not_whole and source.score_from_rank:
        column = source.columns["score"]
        raise InputError(f"{source.label}: {not_whole} {'rank is' if not_whole == 1 else 'ranks are'} no whole number "
                         f">= 0; {RANKED_BY_RANK.format(column=column)}")
    if rows != pairs:
        raise InputError(f"{source.label}: {rows - pairs} rows repeat a (query_id, doc_id) pair; each document "
                         f"may appear once per query")
    if not rows:
        raise InputError(f"{source.label}: the table has no rows")
    if source.kind != "qrels" or source.label_type == "atol":
        return source
    return replace(source, label_type="real" if not_whole else "integer")
