"""Inputs: find and read (in DuckDB) qrels, runs and plain tables.

Every input becomes a ``Source`` (sources.py): SQL that yields ``query_id VARCHAR, doc_id VARCHAR``
and ``relevance INTEGER`` (qrels) or ``score DOUBLE`` (run), validated (validation.py). Files are
read by DuckDB itself; Python only decides the reader and, when something is wrong, says where.
"""
from __future__ import annotations

import glob as globlib
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import duckdb

from .errors import InputError, duckdb_reason
from .progress import step
from .sources import (DELIMITED, FLOAT_TYPES, FORMATS, IMPLICIT, INTEGER_TYPES, KINDS, TEXT_TYPES, TREC_LAYOUT,
                      Registry, Source, duckdb_path)
from .templates import call_macro, quote_ident
from .validation import IrregularFields, validate

_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_UNSUPPORTED = {".json", ".jsonl", ".ndjson", ".xlsx", ".xls", ".arrow", ".feather", ".ipc", ".orc",
                ".avro", ".zip", ".bz2", ".xz", ".zst", ".7z", ".tar", ".h5", ".hdf5", ".pkl", ".pickle",
                ".db", ".duckdb", ".sqlite"}


def detect_format(path: str) -> str:
    """Format from the file name: .parquet, .csv, .tsv (each maybe .gz); anything else is TREC text."""
    name = os.path.basename(path).lower()
    stem, suffix = os.path.splitext(name)
    if suffix == ".gz":
        stem, suffix = os.path.splitext(stem)
        if _SUFFIXES.get(suffix) == "parquet":
            raise InputError(f"{path}: gzip-compressed Parquet is not readable; Parquet compresses itself, "
                             f"so store the .parquet file uncompressed")
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if suffix in _UNSUPPORTED:
        raise InputError(f"{path}: unknown format {suffix!r}; sqlrank reads TREC text, CSV/TSV with a header "
                         f"and Parquet (each but Parquet also .gz); convert the file or name its format "
                         f"with --qrels-format/--run-format")
    return "trec"



def load(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry,
         format: str | None = None, columns: Mapping[str, str] | None = None, groups: bool = False,
         allow_duplicates: bool = False, ranks: bool = True, label: str | None = None) -> Source:
    """Turn a path, DataFrame, DuckDB relation or table name into a validated ``Source``.

    groups=True reads TREC qrels with judgment groups in column 2 (trec_eval's qrels_jg).
    allow_duplicates=True skips the duplicate check (sqlrank check counts them itself).
    ranks=False leaves a TREC run's rank column out of sqlrank's copy (it reads as NULL): for
    evaluations that never use it, as trec_eval's (its ties are broken by document id); parsing and
    compressing 10M ranks costs about 0.2 s. LABEL: what errors call the input, where its path is
    sqlrank's own copy (standard input)."""
    if kind not in KINDS:
        raise ValueError(kind)
    mapping = column_mapping(kind, columns)
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown {kind} format {format!r}; choose one of {', '.join(FORMATS)}")
    source = _locate(obj, kind, con, registry, format, mapping)
    if label is not None:
        source.label = label
    if groups:
        if source.format != "trec":
            raise InputError(f"{source.label}: judgment groups are read from TREC qrels_jg text only")
        source.groups = True
    if source.path is None or (source.format == "parquet" and not _fragmented(source, con)):  # cheap to scan again
        validate(source, con, allow_duplicates)
        return source
    if source.format == "trec":
        source.split = _guess_split(source.path, kind)
        source.ranks = ranks
    _read_once(source, con, registry)
    try:
        validate(source, con, allow_duplicates)
    except IrregularFields:  # some line is not split by the single character: read again, any white space
        registry.drop(source.table)
        source.split = "regex"
        _read_once(source, con, registry)
        validate(source, con, allow_duplicates)
    return source



FRAGMENTED_ROWS = 1000  # Parquet files whose row groups hold fewer rows than this on average are copied once


def _fragmented(source: Source, con: duckdb.DuckDBPyConnection) -> bool:
    """A Parquet file (or files) of many small row groups, which DuckDB reads slowly (3 s for 50,000
    groups of one row, where the rows alone take milliseconds): each scan of the evaluation would pay
    that again, so it is read once into sqlrank's copy, as text files are. The footers say so cheaply."""
    try:
        rows, groups = con.execute("SELECT sum(num_rows), sum(num_row_groups) FROM parquet_file_metadata(?)",
                                   [duckdb_path(source.path)]).fetchall()[0]
    except duckdb.Error:
        return False  # DuckDB's reader reports what is wrong with the file
    return bool(groups) and groups > 100 and rows < FRAGMENTED_ROWS * groups


def _read_once(source: Source, con: duckdb.DuckDBPyConnection, registry: Registry) -> None:
    try:
        with step(con, f"reading {source.label}"):
            source.table = registry.materialize(source.source_sql("raw"), source.kind,
                                                ordered=source.format != "parquet")
    except duckdb.Error as exc:
        reason = duckdb_reason(exc)
        if not (source.format == "trec" and source.lines == "csv" and "reached an invalid state" in str(exc)
                and not source.path.lower().endswith(".gz")):
            raise InputError(f"{source.label}: cannot read the {source.kind}: {reason}") from None
        # DuckDB's CSV reader ends a line at a lone carriage return; trec_eval takes it for white space
        source.lines, source.split = "text", "regex"
        _read_once(source, con, registry)


def _guess_split(path: str, kind: str, sample: int = 200, budget: int = 1 << 20) -> str:
    """Look at the first lines (at most `budget` bytes, however long or blank the lines): single
    tabs or single spaces throughout, or anything else."""
    import gzip

    want = 4 if kind == "qrels" else 6
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            head = handle.read(budget)
    except (OSError, EOFError):
        return "regex"  # let DuckDB report what is wrong
    text = head.decode("utf-8", errors="replace").split("\n")
    if len(head) == budget:
        text = text[:-1]  # the last line may be cut
    lines = [line.rstrip("\r") for line in text if line.rstrip("\r") and not line.startswith("#")][:sample]
    for split, char in (("tab", "\t"), ("space", " ")):
        others = set(" \t\v\f") - {char}
        fields = [line.split(char) for line in lines]
        if lines and all("" not in f and (len(f) == want if kind == "qrels" else len(f) >= want)
                         and not others & set(line) for f, line in zip(fields, lines)):
            return split
    return "regex"


def column_mapping(kind: str, columns: Mapping[str, str] | None) -> dict[str, str]:
    canonical = ("query_id", "doc_id", KINDS[kind]) + (("rank", "run_id") if kind == "run" else ())
    mapping = {c: c for c in canonical if c not in ("rank", "run_id")}
    for key, value in (columns or {}).items():
        if key not in canonical:
            raise InputError(f"cannot map {kind} column {key!r}: the {kind} columns are {', '.join(canonical)} "
                             f"(write for example query_id=user_id)")
        if kind == "qrels" and key == "relevance" and value is None:
            mapping[key] = IMPLICIT  # implicit feedback: no label column, every listed pair is relevant
            continue
        if not isinstance(value, str) or not value or "\x00" in value:
            raise InputError(f"the {kind} column mapped to {key} must be a non-empty name, not {value!r}")
        mapping[key] = value
    return mapping


# Column names recommender data uses, read as query_id and doc_id when those are absent and not mapped.
RECOMMENDER_NAMES = {"query_id": "user_id", "doc_id": "item_id"}


def implicit_feedback(mapping: dict[str, str], types: Mapping[str, str]) -> bool:
    """Judgments without a label column, every listed (query, document) pair relevant: asked for
    (relevance mapped to None), or a table of exactly the two id columns and nothing else."""
    if mapping.get("relevance") == IMPLICIT:
        return True
    return mapping.get("relevance") not in types and set(types) == {mapping["query_id"], mapping["doc_id"]}


def _locate(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry,
            format: str | None, mapping: dict[str, str]) -> Source:
    found = _registered(obj, kind, kind, con, registry, format)
    if found is None:
        return _file(os.fspath(obj), kind, con, format, mapping)
    label, fmt, reader, parts = found
    return _tabular(Source(kind, label, fmt, reader=reader, parts=parts), con, mapping)


def _registered(obj: Any, kind: str, noun: str, con: duckdb.DuckDBPyConnection, registry: Registry,
                format: str | None) -> tuple[str, str, str, tuple[str, ...]] | None:
    """A DuckDB relation, a DataFrame (both registered in the connection) or a table name, as
    (label, format, reader, table name parts); None for a path. ``noun`` names it in errors."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return "DuckDB relation", "relation", quote_ident(registry.register(obj, kind)), ()
    if is_dataframe(obj):
        _require_distinct_names(f"{noun} DataFrame" if noun != kind else "DataFrame", [str(c) for c in obj.columns])
        return "DataFrame", "dataframe", quote_ident(registry.register(obj, kind)), ()
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        refuse_file_and_table(obj, format, lambda name: _is_table(con, name), "the DuckDB database")
        if format is None and not os.path.exists(text) and _is_table(con, text):
            parts = tuple(text.split("."))
            return f"table {text}", "table", call_macro("_macros/inputs.sql", "table", parts).strip(), parts
        return None
    raise InputError(f"cannot read {noun} from a {type(obj).__name__}: pass a file path, a pandas DataFrame, "
                     f"a DuckDB relation or a table name")


def refuse_file_and_table(obj: Any, format: str | None, is_table: Callable[[str], bool], database: str) -> None:
    """A name that is both a file in the working folder and a table of the database: which one is meant
    cannot be known, so neither is read (the file used to win without a word)."""
    if not isinstance(obj, (str, os.PathLike)) or format is not None:
        return
    name = os.fspath(obj)
    try:
        both = os.path.isfile(name) and os.sep not in name and name.isprintable() and is_table(name)
    except Exception:  # a name the database cannot take (not UTF-8), or a database that cannot answer
        both = False   # now: what reads the file says what is wrong
    if both:
        raise InputError(f"{name}: is both a file in {os.getcwd()} and a table of {database}; say which: "
                         f"{os.path.join('.', name)} for the file, or the table's name with its schema")


def _file_reader(path: str, fmt: str) -> str:
    """The FROM-clause reader of a Parquet, CSV or TSV file (or pattern)."""
    if fmt == "parquet":
        return call_macro("_macros/inputs.sql", "read_parquet", path).strip()
    return call_macro("_macros/inputs.sql", "read_csv", path, "tab" if fmt.startswith("tsv") else "comma",
                      not fmt.endswith("-noheader")).strip()


def is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _is_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    parts = name.split(".")
    if not 1 <= len(parts) <= 3 or not all(parts):
        return False
    rows = con.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = $1 AND ($2 IS NULL OR schema_name = $2) "
        "UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $1 AND ($2 IS NULL OR schema_name = $2)",
        [parts[-1], parts[-2] if len(parts) > 1 else None]).fetchall()
    return bool(rows)


def _file(path: str, kind: str, con: duckdb.DuckDBPyConnection, format: str | None,
          mapping: dict[str, str]) -> Source:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise InputError(f"{shown}: the file name is not valid UTF-8, and DuckDB opens UTF-8 paths only; rename the "
                         f"file (or link it under a UTF-8 name) and try again") from None
    pattern = any(ch in path for ch in "*?[") and not os.path.exists(path)  # a file's name is never a pattern
    if pattern:
        matches = sorted(globlib.glob(path, recursive=True))
        if not matches:
            raise InputError(f"{path}: no file matches this pattern")
        probe = matches[0]
    else:
        if not os.path.exists(path):
            hint = ("" if os.sep in path or "." in os.path.basename(path) else
                    ", nor a table or view of that name in the connection (tables of a DuckDB database file: "
                    "--database DB_FILE, or connection= in Python)")
            raise InputError(f"{path}: no such {kind} file{hint}")
        if os.path.isdir(path):
            raise InputError(f"{path}: is a folder; give a file or a glob such as {os.path.join(path, '*.parquet')}")
        probe = path
    fmt = format or detect_format(probe)
    if not pattern and os.path.getsize(path) == 0 and (fmt != "trec" or kind not in ("qrels", "run")):
        raise InputError(f"{path}: the {kind} file is empty" + (
            "; a delimited file needs at least its header line" if fmt in DELIMITED else ""))
    _require_text_not_parquet(probe, fmt)
    absolute = path if pattern else os.path.abspath(path)
    _require_distinct_columns(probe, fmt, con)
    if fmt != "parquet" and not pattern:
        _require_short_last_line(path)
    if fmt == "trec":
        if mapping != {c: c for c in mapping}:
            raise InputError(f"{path}: TREC {kind} files have fixed columns ({TREC_LAYOUT[kind]}); "
                             f"column mappings apply to CSV, TSV, Parquet and tables")
        return Source(kind, path, "trec", path=absolute)
    return _tabular(Source(kind, path, fmt, reader=_file_reader(duckdb_path(absolute), fmt), path=absolute), con,
                    mapping)


def unreadable_line(path: str, fmt: str) -> tuple[int, str] | None:
    """Where and why a CSV or TSV file that DuckDB cannot read goes wrong, when it is something a
    person can fix at one line: a quote opened and never closed, a line ended by a lone carriage return
    where the others end with a line feed. None when neither is found (DuckDB's own error then)."""
    import csv
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            data = handle.read().decode("utf-8", errors="replace").removeprefix("\ufeff")
    except (OSError, EOFError):
        return None
    if "\n" in data and "\r" in data.replace("\r\n", ""):
        line = data[:data.replace("\r\n", "\n\n").index("\r")].count("\n") + 1
        return line, ("this line ends with a lone carriage return (\\r) where the others end with a line feed "
                      "(\\n); convert the file's line ends (e.g. with dos2unix or tr '\\r' '\\n')")
    reader = csv.reader(data.splitlines(keepends=True), delimiter="\t" if fmt.startswith("tsv") else ",",
                        strict=True)
    start = 1
    try:
        for _ in reader:
            start = reader.line_num + 1
    except csv.Error:
        return start, ("a double quote (\") opens a quoted field here that no later quote closes; remove the stray "
                       "quote, or quote the whole field and double the quotes inside it (\"\")")
    return None


MAX_LINE = 2_000_000  # DuckDB's max_line_size: a longer line is an error, or at the end of a file lost


def _require_text_not_parquet(path: str, fmt: str) -> None:
    """A Parquet file read as text (named .txt, or --run-format trec) would give a reader's error about
    line 1; say what it is instead."""
    try:
        with open(path, "rb") as handle:
            parquet = handle.read(4) == b"PAR1"
    except OSError:
        return
    if parquet and fmt != "parquet":
        raise InputError(f"{path}: is a Parquet file (it starts with PAR1), not {fmt} text; name it .parquet or give "
                         f"the format (--qrels-format/--run-format parquet)")


def _require_short_last_line(path: str) -> None:
    """DuckDB stops on a line longer than MAX_LINE, except a last line longer than its read buffer,
    which it drops without a word; the tail of the file says whether the last line is that long."""
    if path.lower().endswith(".gz"):
        return  # no cheap way to the end of a compressed file
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - MAX_LINE - 2))
        tail = handle.read().rstrip(b"\r\n")
    if len(tail) > MAX_LINE and b"\n" not in tail:
        raise InputError(f"{path}: its last line is longer than DuckDB's limit of {MAX_LINE:,} bytes; no judgment or "
                         f"result line is that long: check that the file is what you meant")


def _require_distinct_columns(path: str, fmt: str, con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB renames a repeated column name (score, score_1) of a CSV header, a Parquet schema or a
    DataFrame: which one was meant is unknown, so a name twice is an error, whatever the format."""
    if fmt in ("csv", "tsv"):
        _require_distinct_header(path, fmt)
    elif fmt == "parquet":
        try:
            schema = con.execute("SELECT name, num_children FROM parquet_schema(?)", [duckdb_path(path)]).fetchall()
        except duckdb.Error:
            return  # DuckDB reports what is wrong with the file when it reads it
        names, at = [], 1
        while at < len(schema):  # the root's children, each followed by its own nested fields
            names.append(schema[at][0])
            at += 1 + _descendants(schema, at)
        _require_distinct_names(path, names)


def _descendants(schema: list[tuple], at: int) -> int:
    """How many rows of a flattened Parquet schema describe the fields nested under row ``at``."""
    count, following = 0, at + 1
    for _ in range(schema[at][1] or 0):
        nested = 1 + _descendants(schema, following)
        count, following = count + nested, following + nested
    return count


def _require_distinct_names(label: str, names: list[str]) -> None:
    seen: dict[str, int] = {}
    for number, name in enumerate(names, 1):
        if name in seen:
            raise InputError(f"{label}: names column {name!r} twice (columns {seen[name]} and {number}); rename one of "
                             f"them so that sqlrank reads the one you mean")
        seen[name] = number


def _require_distinct_header(path: str, fmt: str) -> None:
    """A CSV or TSV header's names, as the file spells them."""
    import csv
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            header = next(csv.reader(handle, delimiter="\t" if fmt == "tsv" else ","), [])
    except (OSError, EOFError, csv.Error):
        return  # DuckDB reports what is wrong with the file
    _require_distinct_names(f"{path}:1", header)


RANK_NAMES = ("rank", "rnk", "ranking", "position", "pos")


def map_usual_columns(source: Source, mapping: dict[str, str], types: dict[str, Any]) -> None:
    """What an input means without a mapping saying so: recommender data's user_id and item_id for
    query_id and doc_id, a run ranked by its rank column, judgments without a label column as
    implicit feedback (a label column IMPLICIT is then added to ``types``)."""
    for canonical, usual in RECOMMENDER_NAMES.items():
        if mapping[canonical] == canonical and canonical not in types and usual in types:
            mapping[canonical] = usual
    if source.kind == "run":
        read_rank_only(source, mapping, types)
    elif implicit_feedback(mapping, types):
        source.implicit = True
        mapping["relevance"] = IMPLICIT
        types[IMPLICIT] = "INTEGER"


def read_rank_only(source: Source, mapping: dict[str, str], types: Mapping[str, Any]) -> None:
    """A run with a rank column (1 = best) and no score, as most recommenders' top-k output is,
    ranks by the rank; a score mapped to a column named like a rank is warned about."""
    rank = mapping.get("rank", "rank")
    if mapping["score"] == "score" and "score" not in types and rank in types:
        mapping["score"] = rank
        source.score_from_rank = True
    elif mapping["score"] != "score" and mapping["score"].lower().strip("_ ").rsplit("_", 1)[-1] in RANK_NAMES:
        source.warnings.append(
            f"{source.label}: the score is column {mapping['score']!r}, named like a rank; higher scores rank first, "
            f"so a rank (1 = best) ranks backwards: map it with rank={mapping['score']} instead of score= (a run "
            f"with a rank column and no score ranks by the rank)")


def map_table_columns(source: Source, column_types: Mapping[str, str], per_run: bool = False) -> None:
    """A table another engine reads in place (PostgreSQL, ClickHouse, DataFusion, Spark), its columns
    (with their types, in the engine's or Arrow's names) found as in a file (map_usual_columns), every
    mapped column there, ids of exact types, and a run's column named rank (with per_run, run_id too)
    used without being mapped."""
    available = list(column_types)
    types = dict(column_types)
    map_usual_columns(source, source.columns, types)
    missing = [(canonical, actual) for canonical, actual in source.columns.items() if actual not in types]
    if missing:
        raise InputError(missing_columns_message(source.label, source.kind, missing, available))
    require_exact_ids(source, types)
    defaults = ("rank", "run_id") if per_run else ("rank",)
    for name in defaults if source.kind == "run" else ():
        if name not in source.columns and name in available:
            source.columns[name] = name


def read_boolean_labels(source: Source, count: Callable[[str], int]) -> None:
    """Judgments in a table another engine reads in place whose labels are written true or false
    (a recommender's clicked column, as text or booleans) are 1 and 0, as in a file DuckDB reads:
    ``count`` runs the query that tells, in the dialect being rendered."""
    if source.kind != "qrels" or source.implicit:
        return
    table = call_macro("_macros/inputs.sql", "table", source.parts).strip()
    text = call_macro("_macros/dialect.sql", "text")
    label = f"lower(trim(CAST({quote_ident(source.columns['relevance'])} AS {text})))"
    source.boolean_labels = count(f"SELECT count(*) FROM {table} AS labels WHERE {label} IN ('true', 'false')") > 0


def positional_mapping(kind: str, mapping: dict[str, str]) -> dict[str, str]:
    """A headerless file's columns are column0, column1, ...: unless mapped otherwise, they hold
    query_id, doc_id and the relevance (qrels) or score (run), in that order."""
    order = ("query_id", "doc_id", KINDS[kind])
    return {c: f"column{order.index(c)}" if c in order and a == c else a for c, a in mapping.items()}


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _require_header(source: Source, names: list[str]) -> None:
    """A CSV whose first line is data (a column named 0.5) would lose that row and be read wrong."""
    numbers = [name for name in names if _NUMBER.fullmatch(name.strip())]
    if numbers:
        headerless = source.format + "-noheader"
        raise InputError(
            f"{source.label}:1: the first line looks like data, not a header (columns: {', '.join(names)}; "
            f"{numbers[0]!r} is a number); add a header line such as query_id,doc_id,{source.value_name}, or read the "
            f"file as headerless with --{source.kind}-format {headerless} ({source.kind}_format={headerless!r}): "
            f"columns query_id, doc_id, {source.value_name} in that order, or mapped by position with "
            f"--{source.kind}-columns {source.value_name}=column2")


def _tabular(source: Source, con: duckdb.DuckDBPyConnection, mapping: dict[str, str]) -> Source:
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {source.reader}").fetchall()
    except duckdb.Error as exc:
        where = unreadable_line(source.path, source.format) if source.path and source.format in DELIMITED else None
        if where is not None:
            raise InputError(f"{source.label}:{where[0]}: {where[1]}") from None
        raise InputError(f"{source.label}: cannot read it as {source.format}: {duckdb_reason(exc)}") from None
    types = {row[0]: row[1] for row in described}
    if source.format in ("csv", "tsv"):
        _require_header(source, list(types))
    elif source.format in DELIMITED:
        mapping = positional_mapping(source.kind, mapping)
    if mapping.get("run_id") == "filename" and "filename" not in types:
        if source.format != "parquet":
            raise InputError(f"{source.label}: run_id=filename (one run per file) works with Parquet files")
        source.run_from_file = True
        source.reader = call_macro("_macros/inputs.sql", "read_parquet", source.path, True).strip()
        types["filename"] = "VARCHAR"
    map_usual_columns(source, mapping, types)
    missing = [(canonical, actual) for canonical, actual in mapping.items() if actual not in types]
    if missing:
        raise InputError(missing_columns_message(source.label, source.kind, missing, list(types)))
    if source.kind == "run" and "rank" not in mapping and "rank" in types:
        mapping["rank"] = "rank"  # used only by tie_break=input_rank
    if source.kind == "run" and "run_id" not in mapping and "run_id" in types:
        mapping["run_id"] = "run_id"  # runs stored together (also hive folders run_id=...)
    source.columns = mapping
    value_type = types[mapping[source.value_name]]
    base = value_type.split("(")[0]
    if base == "BOOLEAN" and source.kind == "qrels":  # clicked / not clicked: labels 1 and 0
        pass
    elif base not in TEXT_TYPES + INTEGER_TYPES + FLOAT_TYPES and not base.startswith("DECIMAL"):
        raise InputError(f"{source.label}: column {mapping[source.value_name]!r} ({source.value_name}) has type "
                         f"{value_type}; it must hold numbers")
    source.value_type = "DECIMAL" if base.startswith("DECIMAL") else base
    require_exact_ids(source, types)
    return source


# Number types whose values are not exact as text (DuckDB's, Arrow's and Spark's names, upper case).
_INEXACT_TYPES = FLOAT_TYPES + ("DECIMAL", "DECIMAL128", "DECIMAL256", "HALFFLOAT", "NUMERIC")


# Types that hold several values (DuckDB's, Arrow's and Spark's spellings, upper case): an id of one
# would be compared as its text ('[d1]'), matching nothing.
_NESTED_PREFIXES = ("STRUCT", "MAP", "UNION", "LIST", "LARGE_LIST", "FIXED_SIZE_LIST", "ARRAY", "MAP<", "ROW(")


def require_exact_id(label: str, column: str, role: str, type_name: str | None) -> None:
    """Ids are compared as text: a float id (1.0 or 1, 0.30000000000000004) has no one spelling, and a
    list, struct or map is no one id."""
    upper = (type_name or "").strip().upper()
    if upper.endswith("]") or upper.startswith(_NESTED_PREFIXES):
        raise InputError(f"{label}: column {column!r} ({role}) is {type_name}, which holds several values; an id must "
                         f"be one text or integer value per row: unnest or pick the element you mean first")
    if upper.split("(")[0] in _INEXACT_TYPES:
        raise InputError(f"{label}: column {column!r} ({role}) is {type_name}; ids must be text or integers so that "
                         f"they compare exactly; store them as strings")


def require_exact_ids(source: Source, types: Mapping[str, str | None]) -> None:
    for canonical in ("query_id", "doc_id"):
        require_exact_id(source.label, source.columns[canonical], canonical, types.get(source.columns[canonical]))


# Column names that usually mean a canonical column, compared without case, spaces, '-' or '_' (a
# suggestion in the error; a column is only ever read under a name the user gives or the canonical one).
LIKELY_NAMES = {
    "query_id": ("query_id", "qid", "query", "queryid", "topic", "topic_id", "user_id", "user", "uid"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "document", "document_id", "pid", "passage_id", "item_id",
               "item", "iid"),
    "relevance": ("relevance", "rel", "label", "grade", "judgment", "judgement", "qrel", "relevance_label",
                  "rating", "clicked", "click"),
    "score": ("score", "sim", "similarity", "prediction", "pred", "rating", "probability"),
    "run_id": ("run_id", "run", "runid", "system", "tag", "model"),
}


def _likely_column(canonical: str, columns: list[str], taken: set[str]) -> str | None:
    """The input's column that a usual name for ``canonical`` matches (case, spaces, '-', '_' aside)."""
    def plain(name: str) -> str:
        return "".join(ch for ch in name.lower() if ch not in " -_")
    by_plain = {plain(c): c for c in reversed(columns)}  # the first of columns that read alike
    for name in LIKELY_NAMES.get(canonical, (canonical,)):
        found = by_plain.get(plain(name))
        if found is not None and found not in taken:
            return found
    return None


def missing_columns_message(label: str, kind: str, missing: list[tuple[str, str]], columns: list[str]) -> str:
    """Every column a mapping names that the input lacks, the columns it has, and how to map them:
    one mapping to paste, with the input's columns that look meant (NAME where none does)."""
    names = ", ".join(repr(actual) if actual == canonical else f"{actual!r} (for {canonical})"
                      for canonical, actual in missing)
    hints = []
    unmapped = [canonical for canonical, actual in missing if actual == canonical]
    if len(columns) == 1 and any(sep in columns[0] for sep in ";|\t"):
        sep = next(sep for sep in ";\t|" if sep in columns[0])
        shown = "tabs" if sep == "\t" else repr(sep)
        fix = (f"name the format with --{kind}-format tsv ({kind}_format='tsv' in Python)" if sep == "\t" else
               "save it with commas, or as Parquet")
        hints.append(f"its header reads as one column: the file looks separated by {shown}, and CSV files are read "
                     f"with commas (TSV with tabs); {fix}")
    elif unmapped:
        taken = {actual for canonical, actual in missing if actual != canonical}
        guesses = {}
        for canonical in unmapped:
            guesses[canonical] = _likely_column(canonical, columns, taken) or "NAME"
            taken.add(guesses[canonical])
        pairs = ",".join(f"{canonical}={guess}" for canonical, guess in guesses.items())
        python = ", ".join(f"{canonical!r}: {guess!r}" for canonical, guess in guesses.items())
        case = any(guess != "NAME" and guess.lower() == canonical.lower() for canonical, guess in guesses.items())
        hints.append(("column names are case-sensitive: " if case else "")
                     + f"map {'it' if len(unmapped) == 1 else 'them'} with --{kind}-columns {pairs} "
                     f"({kind}_columns={{{python}}} in Python)")
    for canonical, actual in missing:
        if actual == canonical:
            continue
        close = [c for c in columns if c.lower() == actual.lower()]
        hint = f"; did you mean {close[0]!r}? Column names are case-sensitive" if close else ""
        hints.append(f"check the mapping {canonical}={actual}{hint}")
    if kind == "qrels" and "relevance" in dict(missing) and len(columns) > 1:
        hints.append("or relevance= for implicit feedback: every listed pair is relevant")
    return (f"{label}: no column{'s' if len(missing) > 1 else ''} {names} (columns: {', '.join(columns) or 'none'}); "
            + "; ".join(hints))


# ---------------------------------------------------------------- plain tables

@dataclass
class Table:
    """A plain table read by DuckDB: query attributes (segments) or side-by-side verdicts."""

    label: str
    reader: str  # FROM-clause expression
    types: dict[str, str]


def load_table(obj: Any, what: str, con: duckdb.DuckDBPyConnection, registry: Registry,
               required: tuple[str, ...], format: str | None = None) -> Table:
    """A CSV/TSV/Parquet file, DataFrame, DuckDB relation or table name with the columns
    ``required`` (exact names). ``what`` names it in messages ("query table", "verdicts")."""
    found = _registered(obj, what.replace(" ", "_"), f"a {what}", con, registry, format)
    if found is not None:
        label, _, reader, parts = found
        label = ".".join(parts) or f"{what} {label}"  # history DataFrame
    else:
        path = label = os.fspath(obj)
        if not os.path.exists(path) and not any(ch in path for ch in "*?["):
            raise InputError(f"{path}: no such {what} file")
        fmt = format or detect_format(path)
        if fmt == "trec":
            raise InputError(f"{path}: a {what} is read from CSV, TSV (with a header) or Parquet; "
                             f"name the file .csv, .tsv or .parquet")
        if os.path.exists(path):
            _require_distinct_columns(path, fmt, con)
        reader = _file_reader(duckdb_path(os.path.abspath(path)) if os.path.exists(path) else path, fmt)
    try:
        types = {row[0]: row[1] for row in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()}
    except duckdb.Error as exc:
        raise InputError(f"{label}: cannot read the {what}: {duckdb_reason(exc)}") from None
    for column in required:
        if column not in types:
            close = [c for c in types if c.lower() == column.lower()]
            hint = f"; did you mean {close[0]!r}? Column names are case-sensitive" if close else ""
            raise InputError(f"{label}: the {what} has no column {column!r} (columns: {', '.join(types) or 'none'})"
                             f"{hint}")
    return Table(label, reader, types)
