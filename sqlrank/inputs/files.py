"""Files read as written: TREC text and CSV/TSV/Parquet, with their columns found and every
malformed line named by its line number."""
from __future__ import annotations

import glob as globlib
import os
import re
from dataclasses import replace

import duckdb

from ..errors import InputError, duckdb_reason
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro
from .columns import (
    map_usual_columns,
    missing_columns_message,
    positional_mapping,
    require_distinct_names,
    require_exact_ids,
)
from .source import DELIMITED, FLOAT_TYPES, INTEGER_TYPES, TEXT_TYPES, TREC_LAYOUT, Source, duckdb_path


def file_source(path: str, kind: str, con: duckdb.DuckDBPyConnection, format: str | None,
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
    require_distinct_columns(probe, fmt, con)
    if fmt != "parquet" and not pattern:
        _require_short_last_line(path)
    if fmt == "trec":
        if mapping != {c: c for c in mapping}:
            raise InputError(f"{path}: TREC {kind} files have fixed columns ({TREC_LAYOUT[kind]}); "
                             f"column mappings apply to CSV, TSV, Parquet and tables")
        return Source(kind, path, "trec", path=absolute)
    return tabular_source(Source(kind, path, fmt, reader=file_reader(duckdb_path(absolute), fmt), path=absolute), con,
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


def require_distinct_columns(path: str, fmt: str, con: duckdb.DuckDBPyConnection) -> None:
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
        require_distinct_names(path, names)


def _descendants(schema: list[tuple], at: int) -> int:
    """How many rows of a flattened Parquet schema describe the fields nested under row ``at``."""
    count, following = 0, at + 1
    for _ in range(schema[at][1] or 0):
        nested = 1 + _descendants(schema, following)
        count, following = count + nested, following + nested
    return count


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
    require_distinct_names(f"{path}:1", header)


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


def tabular_source(source: Source, con: duckdb.DuckDBPyConnection, mapping: dict[str, str]) -> Source:
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
        source = replace(source, run_from_file=True,
                         reader=call_macro(DUCKDB, "_macros/inputs.sql", "read_parquet", source.path, True).strip())
        types["filename"] = "VARCHAR"
    source = map_usual_columns(source, mapping, types)
    mapping = dict(source.columns)
    missing = [(canonical, actual) for canonical, actual in mapping.items() if actual not in types]
    if missing:
        raise InputError(missing_columns_message(source.label, source.kind, missing, list(types)))
    if source.kind == "run" and "rank" not in mapping and "rank" in types:
        mapping["rank"] = "rank"  # used only by tie_break=input_rank
    if source.kind == "run" and "run_id" not in mapping and "run_id" in types:
        mapping["run_id"] = "run_id"  # runs stored together (also hive folders run_id=...)
    value_type = types[mapping[source.value_name]]
    base = value_type.split("(")[0]
    if base == "BOOLEAN" and source.kind == "qrels":  # clicked / not clicked: labels 1 and 0
        pass
    elif base not in TEXT_TYPES + INTEGER_TYPES + FLOAT_TYPES and not base.startswith("DECIMAL"):
        raise InputError(f"{source.label}: column {mapping[source.value_name]!r} ({source.value_name}) has type "
                         f"{value_type}; it must hold numbers")
    source = replace(source, columns=mapping, value_type="DECIMAL" if base.startswith("DECIMAL") else base,
                     query_type=types[mapping["query_id"]].split("(")[0])
    require_exact_ids(source, types)
    return source


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


def file_reader(path: str, fmt: str) -> str:
    """The FROM-clause reader of a Parquet, CSV or TSV file (or pattern)."""
    if fmt == "parquet":
        return call_macro(DUCKDB, "_macros/inputs.sql", "read_parquet", path).strip()
    return call_macro(DUCKDB, "_macros/inputs.sql", "read_csv", path, "tab" if fmt.startswith("tsv") else "comma",
                      not fmt.endswith("-noheader")).strip()
