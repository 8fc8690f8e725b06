"""Where an input is: a file (its format from its name), a pattern, a DataFrame, a relation or a
table; Parquet of many small row groups and text files read once into sqlrank's copy."""
from __future__ import annotations

import os
from typing import Any, Callable

from dataclasses import replace

import duckdb

from ..errors import InputError, duckdb_reason
from ..progress import step
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro
from .columns import require_distinct_names
from .source import Source, duckdb_path
from .store import Registry

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


FRAGMENTED_ROWS = 1000  # Parquet files whose row groups hold fewer rows than this on average are copied once


def fragmented(source: Source, con: duckdb.DuckDBPyConnection) -> bool:
    """A Parquet file (or files) of many small row groups, which DuckDB reads slowly (3 s for 50,000
    groups of one row, where the rows alone take milliseconds): each scan of the evaluation would pay
    that again, so it is read once into sqlrank's copy, as text files are. The footers say so cheaply."""
    try:
        rows, groups = con.execute("SELECT sum(num_rows), sum(num_row_groups) FROM parquet_file_metadata(?)",
                                   [duckdb_path(source.path)]).fetchall()[0]
    except duckdb.Error:
        return False  # DuckDB's reader reports what is wrong with the file
    return bool(groups) and groups > 100 and rows < FRAGMENTED_ROWS * groups


def read_once(source: Source, con: duckdb.DuckDBPyConnection, registry: Registry) -> Source:
    """The source read once into a table of sqlrank's, which the evaluation then reads."""
    try:
        with step(con, f"reading {source.label}"):
            return replace(source, table=registry.materialize(source.source_sql(DUCKDB, "raw"), source.kind,
                                                              ordered=source.format != "parquet"))
    except duckdb.Error as exc:
        reason = duckdb_reason(exc)
        if not (source.format == "trec" and source.lines == "csv" and "reached an invalid state" in str(exc)
                and not source.path.lower().endswith(".gz")):
            raise InputError(f"{source.label}: cannot read the {source.kind}: {reason}") from None
        # DuckDB's CSV reader ends a line at a lone carriage return; trec_eval takes it for white space
        return read_once(replace(source, lines="text", split="regex"), con, registry)


def guess_split(path: str, kind: str, sample: int = 200, budget: int = 1 << 20) -> str:
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


def registered_source(obj: Any, kind: str, noun: str, con: duckdb.DuckDBPyConnection, registry: Registry,
                format: str | None) -> tuple[str, str, str, tuple[str, ...]] | None:
    """A DuckDB relation, a DataFrame (both registered in the connection) or a table name, as
    (label, format, reader, table name parts); None for a path. ``noun`` names it in errors."""
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return "DuckDB relation", "relation", DUCKDB.ident(registry.register(obj, kind)), ()
    if is_dataframe(obj):
        require_distinct_names(f"{noun} DataFrame" if noun != kind else "DataFrame", [str(c) for c in obj.columns])
        return "DataFrame", "dataframe", DUCKDB.ident(registry.register(obj, kind)), ()
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        refuse_file_and_table(obj, format, lambda name: _is_table(con, name), "the DuckDB database")
        if format is None and not os.path.exists(text) and _is_table(con, text):
            parts = tuple(text.split("."))
            return f"table {text}", "table", call_macro(DUCKDB, "_macros/inputs.sql", "table", parts).strip(), parts
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


def file_reader(path: str, fmt: str) -> str:
    """The FROM-clause reader of a Parquet, CSV or TSV file (or pattern)."""
    if fmt == "parquet":
        return call_macro(DUCKDB, "_macros/inputs.sql", "read_parquet", path).strip()
    return call_macro(DUCKDB, "_macros/inputs.sql", "read_csv", path, "tab" if fmt.startswith("tsv") else "comma",
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
