"""What an input is once located: a ``Source``, the SQL that reads it typed (``query_id VARCHAR,
doc_id VARCHAR`` and ``relevance`` or ``score DOUBLE``) with what validation learnt of
it, and the ``Registry`` of the names an evaluation puts in a DuckDB connection."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import duckdb

from ..errors import OptionError
from ..rendering.dialects import DUCKDB, Dialect
from ..rendering.sqltext import call_macro

FORMATS = ("trec", "csv", "tsv", "parquet", "csv-noheader", "tsv-noheader")
DELIMITED = ("csv", "tsv", "csv-noheader", "tsv-noheader")  # -noheader: no header line, columns by position
GROUP_SEPARATOR = "\x1f"  # joins query and judgment group in trec_eval's qrels_jg format
KINDS = {"qrels": "relevance", "run": "score"}
TEXT_TYPES = ("VARCHAR",)
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "UHUGEINT")
FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL")
TREC_LAYOUT = {"qrels": "query_id iteration doc_id relevance", "run": "query_id Q0 doc_id rank score tag"}

# Inputs that are tables of another engine, read by name: a Spark view or table, a PostgreSQL table,
# a table of a DataFusion context.
ENGINE_TABLES = ("spark", "postgres", "datafusion", "clickhouse", "sqlite")
IMPLICIT = "sqlrank_implicit_label"  # the label column sqlrank adds to implicit feedback (always 1)


@dataclass(frozen=True)
class Source:
    """One validated input, ready to be read by the evaluation statement. Frozen: what reading and
    validating it learn makes a new Source (inputs/load.py)."""

    kind: str  # "qrels" or "run"
    label: str  # what error messages call it: a path, "DataFrame", a table name
    format: str  # trec, csv, tsv, parquet, dataframe, relation, table
    reader: str = ""  # FROM-clause expression (tabular formats)
    path: str | None = None
    columns: dict[str, str] = field(default_factory=dict)
    value_type: str = "VARCHAR"  # type of the relevance or score column as read
    groups: bool = False  # TREC qrels_jg: query ids carry the judgment group (column 2)
    group_noun: str = "judgment group"  # what errors call column 2 of such qrels (diversity qrels: subtopic)
    split: str = "regex"  # TREC text: "space", "tab" or "regex" (any white space)
    # TREC text: lines from DuckDB's CSV reader, "text": the file split at line feeds, or "fields": the fields split
    # by the CSV reader (a file of single separators only, inputs/store.plain_fields)
    lines: str = "csv"
    ranks: bool = True  # a TREC run's rank column (column 4) is read; False: NULL, for evaluations that never use it
    table: str | None = None  # the temporary table the file was read into once, if any
    parts: tuple[str, ...] = ()  # a table's name: [catalog.][schema.]table
    run_from_file: bool = False  # runs stored together, one file each: run_id is the file's name
    score_from_rank: bool = False  # a rank-only run: its "score" column is the rank (1 = best), negated
    boolean_labels: bool = False  # qrels labels written true/false (text): 1 and 0
    # qrels labels: "real" (read as DOUBLE: 0.7 stays 0.7; what an input no validation proved whole is read as),
    # "integer" (every label a whole number: read as INTEGER), or "atol" (trec_eval's reading: the digits before
    # any decimal point, 1.7 is 1)
    label_type: str = "real"
    implicit: bool = False  # implicit feedback: no label column, every listed pair has label 1
    rows: int | None = None  # how many rows validation counted
    # validation's count of the rows whose document id may not be in its normal form (inputs/ids.odd_id; a run's:
    # beyond ASCII only): where it is 0, the evaluation's near-id check reads nothing; None: not counted
    odd_ids: int | None = None
    query_name: str | None = None  # a copy's: what the input it was made of calls its query ids (user_id)
    seen: str | None = None  # remove_seen: SQL of (query_id, doc_id) pairs (the history) left out of a typed run
    only_run: str | None = None  # runs stored together read as one of them (one_run): its rows, ids unkeyed
    warnings: tuple[str, ...] = ()  # what was noticed while reading it
    run_order: tuple[str, ...] = ()  # several runs given as a list or dict: their names in the order given
    query_type: str = "VARCHAR"  # the type of the query id column as read (a table's BIGINT): what results give back
    # validation left to the evaluation's statement, which reads the run's checks with its values (in-memory runs and
    # tables: evaluation.run_plan validates again, to say what is wrong and where, only when they find something)
    deferred: bool = False
    stacked: tuple[tuple[str, int], ...] = ()  # runs stacked into one frame: each one's name and rows, in order
    # a table of another database with a second key (subtopic, sample, source) read as one judgment or ranking per
    # query: the macro of _macros/inputs.sql that makes it so (per_document, first_sample, merged_sources), its arguments
    derived: tuple = ()

    def warned(self, message: str) -> Source:
        """The same input, with one more thing noticed while reading it."""
        return replace(self, warnings=self.warnings + (message,))

    @property
    def keyed(self) -> bool:
        """The rows as read carry their run in the query key: run_id || chr(31) || query_id."""
        return self.kind == "run" and bool(self.columns.get("run_id"))

    @property
    def per_run(self) -> bool:
        """Several runs in one input, evaluated together (not one of them read alone: one_run)."""
        return self.keyed and self.only_run is None

    @property
    def rescannable(self) -> bool:
        """Reading it again gives the same rows: a file, sqlrank's copy of one, a DataFrame. A
        relation or view may not (USING SAMPLE, random()), so a statement reads those once."""
        return self.format in ("trec", "parquet", "dataframe") + DELIMITED

    @property
    def integer_ids(self) -> bool:
        """Its query ids were integers (as read; a statement compares them as text): results list them so, 2 before 10."""
        return self.query_type in INTEGER_TYPES

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
            sql = self._unseen(DUCKDB, call_macro(DUCKDB, "_macros/inputs.sql", "materialized", self.table, self.kind, mode,
                                                  self.score_from_rank, self.boolean_labels,
                                                  self.label_type).strip(), mode)
        else:
            sql = self.source_sql(DUCKDB, mode)
        if self.only_run is None:
            return sql
        if mode != "typed":
            raise ValueError("one run of runs stored together is read typed only")
        return call_macro(DUCKDB, "_macros/inputs.sql", "unkeyed_runs", sql, self.only_run).strip()

    def one_run(self, run_id: str) -> Source:
        """Runs stored together read as the one whose run_id is ``run_id``: its typed rows, their query
        ids without the run's key (what sqlrank check looks at run by run)."""
        return replace(self, only_run=run_id, label=f"{self.label} (run {run_id!r})")

    def each_run(self, con: duckdb.DuckDBPyConnection) -> list[Source]:
        """This run, or each of runs stored together read alone (one_run), in the order of their run ids."""
        if not self.per_run:
            return [self]
        key = call_macro(DUCKDB, "_macros/dialect.sql", "before_separator", "query_id")
        names = con.execute(f"SELECT DISTINCT {key} AS run_id FROM ({self.sql()}) AS runs ORDER BY run_id").fetchall()
        return [self.one_run(name) for name, in names]

    def source_sql(self, dialect: Dialect, mode: str = "typed", keyed: bool = True) -> str:
        """The input as SQL that reads the file (or table) itself, in ``dialect``: what users can run
        elsewhere. keyed=False: runs stored together read from a table, frame or relation with their query ids
        apart from their run_id column (validation's pass, pair_key)."""
        sql = self._read_sql(dialect, mode, keyed)
        if self.derived:
            if mode != "typed":
                raise ValueError("a table read with a second key is read typed only")
            sql = call_macro(dialect, "_macros/inputs.sql", self.derived[0], sql, *self.derived[1:]).strip()
        return self._unseen(dialect, sql, mode)

    def _unseen(self, dialect: Dialect, sql: str, mode: str) -> str:
        """A typed run without the pairs in ``seen`` (remove_seen); anything else as it is."""
        if self.seen is None or mode != "typed":
            return sql
        return call_macro(dialect, "_macros/inputs.sql", "unseen", sql, self.seen, self.keyed).strip()

    def _read_sql(self, dialect: Dialect, mode: str, keyed: bool = True) -> str:
        """The input as its source reads it, in ``dialect``."""
        name = dialect.kind  # a variant reads its inputs as its family does
        path = (spark_path if name == "spark" else duckdb_path)(self.path) if self.path else self.path
        if name not in ("duckdb", "spark") and self.format not in ENGINE_TABLES + ("table",):
            copies = (f" (--engine {name} copies files into temporary tables)" if not dialect.printed_only else
                      " (load the files there first, or evaluate them with sqlrank eval)")
            raise OptionError(f"{self.label}: the {dialect.name} statement reads tables, not files; give table "
                              f"names{copies}")
        if self.format == "trec":
            return call_macro(dialect, "_macros/inputs.sql", "trec", path, self.kind, mode, self.groups,
                              self.split, self.lines, self.ranks, self.label_type).strip()
        reader = self.reader
        if self.format in ENGINE_TABLES:  # a view or table in the Spark session or the PostgreSQL database
            reader = call_macro(dialect, "_macros/inputs.sql", "table", self.parts).strip()
        elif name != "duckdb":
            if self.format == "parquet":
                reader = call_macro(dialect, "_macros/inputs.sql", "read_parquet", path, self.run_from_file).strip()
            elif self.format == "table":
                reader = call_macro(dialect, "_macros/inputs.sql", "table", self.parts).strip()
            elif self.format in DELIMITED:
                raise OptionError(f"{self.label}: Spark SQL cannot read a CSV header inside a query; load it as a "
                                  f"table or view first (spark.read.csv(path, header=True).createOrReplaceTempView"
                                  f"(name)) and give that name, or use Parquet")
            else:
                raise OptionError(f"{self.label}: a {self.format} exists only in this Python process; for SQL to run "
                                  f"elsewhere give a file path or a table name")
        if self.implicit:
            reader = f"(SELECT *, 1 AS {dialect.ident(IMPLICIT)} FROM {reader}) AS implicit_feedback"
        return call_macro(dialect, "_macros/inputs.sql", "tabular", reader, self.columns, self.kind, mode,
                          self.run_from_file, self.score_from_rank, self.boolean_labels, self.label_type, keyed).strip()

    def where(self, position: int) -> str:
        """Where row ``position`` (1 = the first data row) is: a file's line, or a table's row."""
        if self.format == "trec":
            return f"{self.label}:{position}"
        if self.format in DELIMITED:
            header = not self.format.endswith("-noheader")
            line = physical_line(self.path, self.format, position, header) if self.path else None
            return f"{self.label}:{line or position + header}"
        for name, rows in self.stacked:  # a row of one of several runs stacked: that run's own row
            if position <= rows:
                return f"run {name!r} (row {position})"
            position -= rows
        return f"{self.label} (row {position})"


def physical_line(path: str, fmt: str, position: int, header: bool) -> int | None:
    """The line of a CSV or TSV file on which data row ``position`` starts, counting the lines that
    quoted fields hold and blank lines (a row is not a line then); None where the file cannot be read so."""
    import csv
    import gzip

    if not os.path.isfile(path):
        return None
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t" if fmt.startswith("tsv") else ",")
            rows, start = -1 if header else 0, 1
            for row in reader:
                if row:
                    rows += 1
                    if rows == position:
                        return start
                start = reader.line_num + 1
    except (OSError, EOFError, csv.Error):
        return None
    return None


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


def named_columns(canonical: str, usual: tuple[str, ...], *inputs: Source) -> tuple[str, ...]:
    """The column names to look for in another table of the same data (a history, a query table):
    the names the inputs give that column first (user_id when mapped query_id=user_id), then the
    usual ones."""
    own = [s.columns.get(canonical) for s in inputs if not s.format.endswith("-noheader")]
    return tuple(dict.fromkeys([name for name in own if name] + list(usual)))
