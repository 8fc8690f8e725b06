"""Inputs: find, read (in DuckDB) and validate qrels and runs.

Every input becomes a ``Source``: SQL that yields ``query_id VARCHAR, doc_id VARCHAR`` and
``relevance INTEGER`` (qrels) or ``score DOUBLE`` (run). Files are read by DuckDB itself;
Python only decides the reader and, when something is wrong, says where.
"""
from __future__ import annotations

import glob as globlib
import itertools
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import duckdb

from .errors import InputError, OptionError, duckdb_reason
from .progress import step
from .templates import call_macro, current_dialect, quote_ident

FORMATS = ("trec", "csv", "tsv", "parquet", "csv-noheader", "tsv-noheader")
DELIMITED = ("csv", "tsv", "csv-noheader", "tsv-noheader")  # -noheader: no header line, columns by position
GROUP_SEPARATOR = "\x1f"  # joins query and judgment group in trec_eval's qrels_jg format
KINDS = {"qrels": "relevance", "run": "score"}
_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_UNSUPPORTED = {".json", ".jsonl", ".ndjson", ".xlsx", ".xls", ".arrow", ".feather", ".ipc", ".orc",
                ".avro", ".zip", ".bz2", ".xz", ".zst", ".7z", ".tar", ".h5", ".hdf5", ".pkl", ".pickle",
                ".db", ".duckdb", ".sqlite"}
_TEXT_TYPES = ("VARCHAR",)
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                  "UINTEGER", "UBIGINT", "UHUGEINT")
_FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL")
TREC_LAYOUT = {"qrels": "query_id iteration doc_id relevance", "run": "query_id Q0 doc_id rank score tag"}

# Inputs that are tables of another engine, read by name: a Spark view or table, a PostgreSQL table,
# a table of a DataFusion context.
ENGINE_TABLES = ("spark", "postgres", "datafusion", "clickhouse")

@dataclass
class Source:
    """One validated input, ready to be read by the evaluation statement."""

    kind: str  # "qrels" or "run"
    label: str  # what error messages call it: a path, "DataFrame", a table name
    format: str  # trec, csv, tsv, parquet, dataframe, relation, table
    reader: str = ""  # FROM-clause expression (tabular formats)
    path: str | None = None
    columns: dict[str, str] = field(default_factory=dict)
    value_type: str = "VARCHAR"  # type of the relevance or score column as read
    groups: bool = False  # TREC qrels_jg: query ids carry the judgment group (column 2)
    split: str = "regex"  # TREC text: "space", "tab" or "regex" (any white space)
    lines: str = "csv"  # TREC text: lines from DuckDB's CSV reader, or "text": the file split at line feeds
    ranks: bool = True  # a TREC run's rank column (column 4) is read; False: NULL, for evaluations that never use it
    table: str | None = None  # the temporary table the file was read into once, if any
    parts: tuple[str, ...] = ()  # a table's name: [catalog.][schema.]table
    run_from_file: bool = False  # runs stored together, one file each: run_id is the file's name
    score_from_rank: bool = False  # a rank-only run: its "score" column is the rank (1 = best), negated
    boolean_labels: bool = False  # qrels labels written true/false (text): 1 and 0
    implicit: bool = False  # implicit feedback: no label column, every listed pair has label 1
    rows: int | None = None  # how many rows validation counted
    query_name: str | None = None  # a copy's: what the input it was made of calls its query ids (user_id)
    seen: str | None = None  # remove_seen: SQL of (query_id, doc_id) pairs (the history) left out of a typed run
    warnings: list[str] = field(default_factory=list)  # what was noticed while reading it

    @property
    def per_run(self) -> bool:
        """Several runs in one input: query keys are run_id || chr(31) || query_id."""
        return self.kind == "run" and bool(self.columns.get("run_id"))

    @property
    def rescannable(self) -> bool:
        """Reading it again gives the same rows: a file, sqlrank's copy of one, a DataFrame. A
        relation or view may not (USING SAMPLE, random()), so a statement reads those once."""
        return self.format in ("trec", "parquet", "dataframe") + DELIMITED

    @property
    def query_label(self) -> str | None:
        """The name the input gives its query ids (user_id), if it names them otherwise."""
        name = self.query_name or self.columns.get("query_id")
        if self.format.endswith("-noheader") or name in (None, "query_id"):
            return None
        return name

    @property
    def value_name(self) -> str:
        return KINDS[self.kind]

    def sql(self, mode: str = "typed") -> str:
        """The input as SQL: from the temporary table when it was read once, else from the source."""
        if self.table is not None and mode in ("typed", "raw"):
            return self._unseen(call_macro("_macros/inputs.sql", "materialized", self.table, self.kind, mode,
                                           self.score_from_rank, self.boolean_labels).strip(), mode)
        return self.source_sql(mode)

    def source_sql(self, mode: str = "typed") -> str:
        """The input as SQL that reads the file (or table) itself: what users can run elsewhere,
        in the dialect being rendered (templates.dialect)."""
        return self._unseen(self._read_sql(mode), mode)

    def _unseen(self, sql: str, mode: str) -> str:
        """A typed run without the pairs in ``seen`` (remove_seen); anything else as it is."""
        if self.seen is None or mode != "typed":
            return sql
        return call_macro("_macros/inputs.sql", "unseen", sql, self.seen).strip()

    def _read_sql(self, mode: str) -> str:
        """The input as its source reads it, in the dialect being rendered."""
        path = (spark_path if current_dialect() == "spark" else duckdb_path)(self.path) if self.path else self.path
        if self.format == "trec":
            return call_macro("_macros/inputs.sql", "trec", path, self.kind, mode, self.groups,
                              self.split, self.lines, self.ranks).strip()
        reader = self.reader
        if self.format in ENGINE_TABLES:  # a view or table in the Spark session or the PostgreSQL database
            reader = call_macro("_macros/inputs.sql", "table", self.parts).strip()
        elif current_dialect() != "duckdb":
            if current_dialect() != "spark" and self.format != "table":
                raise OptionError(f"{self.label}: the {current_dialect()} statement reads tables, not files; give "
                                  f"table names (--engine {current_dialect()} copies files into temporary tables)")
            if self.format == "parquet":
                reader = call_macro("_macros/inputs.sql", "read_parquet", path, self.run_from_file).strip()
            elif self.format == "table":
                reader = call_macro("_macros/inputs.sql", "table", self.parts).strip()
            elif self.format in DELIMITED:
                raise OptionError(f"{self.label}: Spark SQL cannot read a CSV header inside a query; load it as a "
                                  f"table or view first (spark.read.csv(path, header=True).createOrReplaceTempView"
                                  f"(name)) and give that name, or use Parquet")
            else:
                raise OptionError(f"{self.label}: a {self.format} exists only in this Python process; for SQL to run "
                                  f"elsewhere give a file path or a table name")
        if self.implicit:
            reader = f"(SELECT *, 1 AS {quote_ident(IMPLICIT)} FROM {reader}) AS implicit_feedback"
        return call_macro("_macros/inputs.sql", "tabular", reader, self.columns, self.kind, mode,
                          self.run_from_file, self.score_from_rank, self.boolean_labels).strip()

    def where(self, position: int) -> str:
        if self.format == "trec":
            return f"{self.label}:{position}"
        if self.format in ("csv", "tsv"):
            return f"{self.label}:{position + 1}"  # line 1 is the header
        if self.format in DELIMITED:
            return f"{self.label}:{position}"
        return f"{self.label} (row {position})"


class Registry:
    """Names registered in a connection for in-memory inputs; removed on close."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self.names: list[str] = []
        self.tables: list[str] = []
        self._counter = itertools.count(1)
        self._copies: str | None = None  # the compressed in-memory database copies are kept in, once attached

    def name(self, kind: str) -> str:
        return f"sqlrank_{kind}_{os.getpid()}_{id(self)}_{next(self._counter)}"

    def materialize(self, sql: str, kind: str) -> str:
        """Read once into a table (dropped on close) that the statements read as a temporary view.

        The table lives in an in-memory database that DuckDB compresses (ATTACH ':memory:' (COMPRESS),
        DuckDB 1.3 and later; a plain temporary table before): dictionaries, FSST and bit packing keep
        a 10M-line TREC run in about 100 MB instead of 390 MB, for 0.6 s of compression. Beyond the
        memory limit DuckDB spills it to disk either way."""
        name = self.name(kind)
        if self._copies is None:
            self._copies = self.name("copies")
            try:
                self.con.execute(f"ATTACH ':memory:' AS {quote_ident(self._copies)} (COMPRESS)")
            except duckdb.Error:  # an older DuckDB: uncompressed temporary tables
                self._copies = ""
        if not self._copies:
            self.con.execute(f"CREATE TEMP TABLE {quote_ident(name)} AS {sql}")
        else:
            stored = f"{quote_ident(self._copies)}.{quote_ident(name)}"
            self.con.execute(f"CREATE TABLE {stored} AS {sql}")
            self.con.execute(f"CHECKPOINT {quote_ident(self._copies)}")  # compresses what was just written
            self.con.execute(f"CREATE TEMP VIEW {quote_ident(name)} AS SELECT * FROM {stored}")
        self.tables.append(name)
        return name

    def drop(self, name: str) -> None:
        if self._copies:
            self.con.execute(f"DROP VIEW IF EXISTS {quote_ident(name)}")
            self.con.execute(f"DROP TABLE IF EXISTS {quote_ident(self._copies)}.{quote_ident(name)}")
        else:
            self.con.execute(f"DROP TABLE IF EXISTS {quote_ident(name)}")
        self.tables.remove(name)

    def register(self, obj: Any, kind: str) -> str:
        name = self.name(kind)
        if isinstance(obj, duckdb.DuckDBPyRelation):
            obj.create_view(name, replace=True)
        else:
            self.con.register(name, obj)
        self.names.append(name)
        return name

    def close(self) -> None:
        for name in list(self.tables):
            try:
                self.drop(name)
            except duckdb.Error:
                pass
        for name in self.names:
            try:
                self.con.unregister(name)
            except duckdb.Error:
                pass
            try:
                self.con.execute(f"DROP VIEW IF EXISTS {quote_ident(name)}")
            except duckdb.Error:
                pass
        self.names.clear()
        if self._copies:
            try:
                self.con.execute(f"DETACH {quote_ident(self._copies)}")
            except duckdb.Error:
                pass
        self._copies = None


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


def duckdb_path(path: str) -> str:
    """A path for DuckDB's readers, which expand globs: a file that exists as written has its glob
    characters put in brackets (run[1].txt is that file, not run1.txt); a pattern is left a pattern.
    DuckDB expands no glob in a path holding a backslash, so such a path is left as it is."""
    if "\\" in path or not os.path.exists(path):
        return path
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in path)


def spark_path(path: str) -> str:
    """A path for Spark's file sources, which always expand Hadoop globs: a file that exists as
    written has its glob characters escaped; a pattern (no such file) is left a pattern."""
    if not os.path.exists(path):
        return path
    return "".join("\\" + ch if ch in "\\*?[]{}" else ch for ch in path)


def load(obj: Any, kind: str, con: duckdb.DuckDBPyConnection, registry: Registry,
         format: str | None = None, columns: Mapping[str, str] | None = None, groups: bool = False,
         allow_duplicates: bool = False, ranks: bool = True) -> Source:
    """Turn a path, DataFrame, DuckDB relation or table name into a validated ``Source``.

    groups=True reads TREC qrels with judgment groups in column 2 (trec_eval's qrels_jg).
    allow_duplicates=True skips the duplicate check (sqlrank check counts them itself).
    ranks=False leaves a TREC run's rank column out of sqlrank's copy (it reads as NULL): for
    evaluations that never use it, as trec_eval's (its ties are broken by document id); parsing and
    compressing 10M ranks costs about 0.2 s."""
    if kind not in KINDS:
        raise ValueError(kind)
    mapping = column_mapping(kind, columns)
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown {kind} format {format!r}; choose one of {', '.join(FORMATS)}")
    source = _locate(obj, kind, con, registry, format, mapping)
    if groups:
        if source.format != "trec":
            raise InputError(f"{source.label}: judgment groups are read from TREC qrels_jg text only")
        source.groups = True
    if source.path is None or source.format == "parquet":  # in the database already, or cheap to scan again
        validate(source, con, allow_duplicates)
        return source
    if source.format == "trec":
        source.split = _guess_split(source.path, kind)
        source.ranks = ranks
    _read_once(source, con, registry)
    try:
        validate(source, con, allow_duplicates)
    except _Irregular:  # some line is not split by the single character: read again, any white space
        registry.drop(source.table)
        source.split = "regex"
        _read_once(source, con, registry)
        validate(source, con, allow_duplicates)
    return source


class _Irregular(Exception):
    """A TREC file read with the fast single-character split has a line that needs the regex."""


def _read_once(source: Source, con: duckdb.DuckDBPyConnection, registry: Registry) -> None:
    try:
        with step(con, f"reading {source.label}"):
            source.table = registry.materialize(source.source_sql("raw"), source.kind)
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
IMPLICIT = "sqlrank_implicit_label"  # the label column sqlrank adds to implicit feedback (always 1)


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
        return "DataFrame", "dataframe", quote_ident(registry.register(obj, kind)), ()
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        if format is None and not os.path.exists(text) and _is_table(con, text):
            parts = tuple(text.split("."))
            return f"table {text}", "table", call_macro("_macros/inputs.sql", "table", parts).strip(), parts
        return None
    raise InputError(f"cannot read {noun} from a {type(obj).__name__}: pass a file path, a pandas DataFrame, "
                     f"a DuckDB relation or a table name")


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
        if os.path.getsize(path) == 0:
            raise InputError(f"{path}: the {kind} file is empty")
        probe = path
    fmt = format or detect_format(probe)
    absolute = path if pattern else os.path.abspath(path)
    if fmt in ("csv", "tsv"):
        _require_distinct_header(probe, fmt)
    if fmt != "parquet" and not pattern:
        _require_short_last_line(path)
    if fmt == "trec":
        if mapping != {c: c for c in mapping}:
            raise InputError(f"{path}: TREC {kind} files have fixed columns ({TREC_LAYOUT[kind]}); "
                             f"column mappings apply to CSV, TSV, Parquet and tables")
        return Source(kind, path, "trec", path=absolute)
    return _tabular(Source(kind, path, fmt, reader=_file_reader(duckdb_path(absolute), fmt), path=absolute), con,
                    mapping)


MAX_LINE = 2_000_000  # DuckDB's max_line_size: a longer line is an error, or at the end of a file lost


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


def _require_distinct_header(path: str, fmt: str) -> None:
    """DuckDB renames a repeated header name (score, score_1): which one was meant is unknown."""
    import csv
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            header = next(csv.reader(handle, delimiter="\t" if fmt == "tsv" else ","), [])
    except (OSError, EOFError, csv.Error):
        return  # DuckDB reports what is wrong with the file
    seen: dict[str, int] = {}
    for number, name in enumerate(header, 1):
        if name in seen:
            raise InputError(f"{path}:1: the header names column {name!r} twice (columns {seen[name]} and {number}); "
                             f"rename one of them so that sqlrank reads the one you mean")
        seen[name] = number


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


def map_table_columns(source: Source, available: list[str], per_run: bool = False) -> None:
    """A table another engine reads in place (PostgreSQL, ClickHouse, DataFusion, Spark), its columns
    found as in a file (map_usual_columns), every mapped column there, and a run's column named rank
    (with per_run, run_id too) used without being mapped."""
    types = dict.fromkeys(available)
    map_usual_columns(source, source.columns, types)
    missing = [(canonical, actual) for canonical, actual in source.columns.items() if actual not in types]
    if missing:
        raise InputError(missing_columns_message(source.label, source.kind, missing, available))
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


def table_counts_sql(source: Source) -> str:
    """What require_complete_rows checks of a table another engine reads where it is (Spark,
    PostgreSQL, ClickHouse, DataFusion), as one query in the dialect being rendered: rows without
    an id, rows without a value (NULL or NaN), all rows, distinct (query, document) pairs."""
    typed, value = source.source_sql(), source.value_name
    nan = call_macro("_macros/dialect.sql", "is_nan", value)
    return f"""
        SELECT SUM(CASE WHEN query_id IS NULL OR doc_id IS NULL THEN 1 ELSE 0 END) AS missing_ids,
               SUM(CASE WHEN {value} IS NULL OR {nan} THEN 1 ELSE 0 END) AS missing_values,
               count(*) AS total_rows,
               (SELECT count(*) FROM (SELECT DISTINCT query_id, doc_id FROM ({typed}) AS d) AS pairs) AS distinct_pairs
        FROM ({typed}) AS typed"""


def require_complete_rows(source: Source, missing_ids: int | None, missing_values: int | None, rows: int,
                          pairs: int) -> None:
    """The counts of a table another engine validated in place (table_counts_sql): every row has
    both ids and a value (not NaN), no (query, document) pair repeats, and there is a row at all.
    The sums are NULL (None) for a table without rows."""
    if missing_ids:
        raise InputError(f"{source.label}: {missing_ids} rows have no query_id or doc_id")
    if missing_values:
        raise InputError(f"{source.label}: {missing_values} rows have no {source.value_name} (NULL or NaN)")
    if rows != pairs:
        raise InputError(f"{source.label}: {rows - pairs} rows repeat a (query_id, doc_id) pair; each document "
                         f"may appear once per query")
    if not rows:
        raise InputError(f"{source.label}: the table has no rows")


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
    elif base not in _TEXT_TYPES + _INTEGER_TYPES + _FLOAT_TYPES and not base.startswith("DECIMAL"):
        raise InputError(f"{source.label}: column {mapping[source.value_name]!r} ({source.value_name}) has type "
                         f"{value_type}; it must hold numbers")
    source.value_type = "DECIMAL" if base.startswith("DECIMAL") else base
    for canonical in ("query_id", "doc_id"):
        id_type = types[mapping[canonical]]
        if id_type.split("(")[0] in _FLOAT_TYPES + ("DECIMAL",):
            raise InputError(f"{source.label}: column {mapping[canonical]!r} ({canonical}) is {id_type}; ids must be "
                             f"text or integers so that they compare exactly; store them as strings")
    return source


def missing_columns_message(label: str, kind: str, missing: list[tuple[str, str]], columns: list[str]) -> str:
    """Every column a mapping names that the input lacks, the columns it has, and how to map them."""
    names = ", ".join(repr(actual) if actual == canonical else f"{actual!r} (for {canonical})"
                      for canonical, actual in missing)
    hints = []
    for canonical, actual in missing:
        close = [c for c in columns if c.lower() == actual.lower()]
        if close:
            hints.append(f"did you mean {close[0]!r} for {canonical}? Column names are case-sensitive")
    unmapped = [canonical for canonical, actual in missing if actual == canonical]
    if unmapped:
        pairs = ",".join(f"{canonical}=NAME" for canonical in unmapped)
        python = ", ".join(f"{canonical!r}: 'NAME'" for canonical in unmapped)
        hints.append(f"map {'it' if len(unmapped) == 1 else 'them'} with --{kind}-columns {pairs} "
                     f"({kind}_columns={{{python}}} in Python)")
    hints += [f"check the mapping {canonical}={actual}" for canonical, actual in missing if actual != canonical]
    if kind == "qrels" and "relevance" in dict(missing):
        hints.append("or relevance= for implicit feedback: every listed pair is relevant")
    return (f"{label}: no column{'s' if len(missing) > 1 else ''} {names} (columns: {', '.join(columns) or 'none'}); "
            + "; ".join(hints))


# ---------------------------------------------------------------- validation

def validate(source: Source, con: duckdb.DuckDBPyConnection, allow_duplicates: bool = False) -> None:
    """Check what would make a number wrong; raise an InputError that says where.

    One pass, as cheap as it gets: it sorts a 64-bit hash of each (query, document) pair and
    counts neighbours that are equal, which finds every duplicate (two copies of a pair share their
    hash) faster than grouping the strings; a row that fails a check has no hash and is counted
    apart. Only when something looks wrong is the source read again: each kind of bad row counted
    and the first located by line number, and duplicates confirmed on the exact ids (a hash
    collision alone is not an error). With allow_duplicates, the pass only counts."""
    raw = source.sql("raw")
    problems = _problem_conditions(source)
    if source.format == "trec" and source.split != "regex":
        problems = {"irregular": ("bad_fields", None), **problems}
    per_check = ", ".join(["count(*)"] + [f"count(*) FILTER (WHERE {cond})" for cond, _ in problems.values()])
    count_per_check = f"SELECT {per_check} FROM ({raw}) AS checked"
    try:
        if allow_duplicates:
            with step(con, f"checking {source.label}"):
                total, *bad = con.execute(count_per_check).fetchall()[0]
            duplicated = False
        else:
            failing = " OR ".join(f"({cond})" for cond, _ in problems.values())
            with step(con, f"checking {source.label} and looking for repeated documents"):
                total, failed, repeats = con.execute(checked_pairs_sql(raw, failing)).fetchall()[0]
            bad = [0] * len(problems)
            if failed:  # which checks: the slow path, taken only for a bad input
                total, *bad = con.execute(count_per_check).fetchall()[0]
            duplicated = not failed and repeats > 0
    except duckdb.Error as exc:
        raise InputError(f"{source.label}: cannot read the {source.kind}: {duckdb_reason(exc)}") from None
    if not total:
        raise InputError(f"{source.label}: the {source.kind} has no data rows")
    source.rows = total
    for (name, (cond, message)), count in zip(problems.items(), bad):
        if not count:
            continue
        if name == "irregular":
            raise _Irregular()
        found = con.execute(
            f"SELECT * FROM ({source.sql('numbered')}) AS checked WHERE {cond} ORDER BY position LIMIT 1"
        ).fetchall()[0]
        cols = [d[0] for d in con.description]
        record = dict(zip(cols, found))
        more = f" ({count} rows in all)" if count > 1 else ""
        raise InputError(f"{source.where(record['position'])}: {message(record)}{more}")
    if duplicated:
        report_duplicates(source, con, raw)
    if source.kind == "qrels" and source.value_type in _TEXT_TYPES and source.format != "trec":
        source.boolean_labels = con.execute(
            f"SELECT count(*) FILTER (WHERE lower(trim(relevance)) IN ('true', 'false')) > 0 FROM ({raw}) AS labels"
        ).fetchall()[0][0]


def checked_pairs_sql(rows_sql: str, failing: str) -> str:
    """Validation's one pass: (rows, rows where `failing` holds, rows that share their hash with
    the row before). A failing row's pair is NULL: it is left out of the comparison and counted."""
    return (f"SELECT count(*), count(*) FILTER (WHERE pair IS NULL), count(*) FILTER (WHERE pair = previous) "
            f"FROM (SELECT pair, LAG(pair) OVER (ORDER BY pair) AS previous "
            f"FROM (SELECT CASE WHEN {failing} THEN NULL ELSE hash(query_id, doc_id) END AS pair "
            f"FROM ({rows_sql}) AS checked) AS pairs) AS sorted")


def _problem_conditions(source: Source) -> dict[str, tuple[str, Any]]:
    kind, value = source.kind, source.value_name
    checks: dict[str, tuple[str, Any]] = {}
    layout = TREC_LAYOUT[kind]
    if source.format == "trec":
        if kind == "run":
            checks["malformed"] = ("bad_fields", lambda r: (
                f"malformed run line: expected 6 fields '{layout}', found {r['field_count']}: {r['line']!r}; "
                f"fix the line, or name the format with --run-format if this is not a TREC run"))
        else:
            checks["malformed"] = ("bad_fields", lambda r: (
                f"malformed qrels line: expected 4 fields '{layout}', found {r['field_count']}: {r['line']!r}; "
                f"fix the line, or name the format with --qrels-format if this is not TREC qrels"))
    col = source.columns.get
    if source.per_run:
        checks["bad_run_id"] = ("run_id IS NULL OR run_id = '' OR contains(run_id, chr(31))", lambda r: (
            f"empty run_id (column {col('run_id')!r}) or one holding the character chr(31); every row of runs "
            f"stored together needs the name of its run"))
    for canonical in ("query_id", "doc_id"):
        name = col(canonical, canonical)
        checks[f"null_{canonical}"] = (f"{canonical} IS NULL OR {canonical} = ''", lambda r, c=canonical, n=name: (
            f"empty {c} (column {n!r}); every row needs a query and a document id"))
    vname = col(value, value)
    if kind == "run":
        if source.value_type in _TEXT_TYPES:
            checks["bad_score"] = ("TRY_CAST(score AS DOUBLE) IS NULL", lambda r: (
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
    else:
        if source.value_type == "BOOLEAN":
            cond = "relevance IS NULL"
        elif source.value_type in _TEXT_TYPES:
            cond = (r"relevance IS NULL OR NOT (regexp_full_match(relevance, '[+-]?[0-9]{1,9}') "
                    r"OR lower(trim(relevance)) IN ('true', 'false'))")
        elif source.value_type in _INTEGER_TYPES:
            cond = "relevance IS NULL OR abs(relevance) > 999999999"
        else:
            cond = ("relevance IS NULL OR NOT isfinite(CAST(relevance AS DOUBLE)) "
                    "OR CAST(relevance AS DOUBLE) <> round(CAST(relevance AS DOUBLE)) OR abs(relevance) > 999999999")
        checks["bad_relevance"] = (cond, lambda r: (
            f"relevance {r['relevance']!r} (column {vname!r}) for document {r['doc_id']!r} of query "
            f"{r['query_id']!r} is not an integer label; relevance labels are whole numbers such as 0, 1, 2 (or true and false)"))
    return checks


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
    if source.groups:
        base, group = query_id.split(GROUP_SEPARATOR, 1)
        query_id = f"{base}' judgment group '{group}"
    positions = [r[0] for r in con.execute(
        f"SELECT position FROM ({source.sql('numbered')}) AS checked WHERE query_id = $1 AND doc_id = $2 "
        f"ORDER BY position LIMIT 2", [dup[0], doc_id]).fetchall()]
    where = source.where(positions[0]) if positions else source.label
    also = f" (again at {source.where(positions[1])})" if len(positions) > 1 else ""
    more = f"; {pairs - 1} more duplicated pairs" if pairs > 1 else ""
    what = "judged" if source.kind == "qrels" else "ranked"
    raise InputError(
        f"{where}: document {doc_id!r} is {what} {copies} times for query {query_id!r}{also}{more}; each "
        f"(query, document) pair must appear once: remove the duplicates (trec_eval stops on them too)")




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
        label = ".".join(parts) or label
    else:
        path = label = os.fspath(obj)
        if not os.path.exists(path) and not any(ch in path for ch in "*?["):
            raise InputError(f"{path}: no such {what} file")
        fmt = format or detect_format(path)
        if fmt == "trec":
            raise InputError(f"{path}: a {what} is read from CSV, TSV (with a header) or Parquet; "
                             f"name the file .csv, .tsv or .parquet")
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
