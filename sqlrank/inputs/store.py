"""What sqlrank keeps in its DuckDB connection: the ``Registry`` of the names it registers
(DataFrames, copies, temporary tables) and drops at the end, and the inputs it reads once into a
copy (TREC text, Parquet of many small row groups) rather than scanning them again."""
from __future__ import annotations

import itertools
import os
from dataclasses import replace
from typing import Any

import duckdb

from ..errors import InputError, duckdb_reason
from ..progress import step
from ..rendering.dialects import DUCKDB
from .source import Source, duckdb_path


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

    def materialize(self, sql: str, kind: str, ordered: bool = True) -> str:
        """Read once into a table (dropped on close) that the statements read as a temporary view.

        The table lives in an in-memory database that DuckDB compresses (ATTACH ':memory:' (COMPRESS),
        DuckDB 1.3 and later; a plain temporary table before): dictionaries, FSST and bit packing keep
        a 10M-line TREC run in about 100 MB instead of 390 MB, for 0.6 s of compression. Beyond the
        memory limit DuckDB spills it to disk either way. ordered=False lets DuckDB store the rows in the
        order its threads read them (a Parquet file of many small row groups copies 3x faster)."""
        if not ordered:
            previous = self.con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
            self.con.execute("SET preserve_insertion_order = false")
            try:
                return self.materialize(sql, kind)
            finally:
                self.con.execute(f"SET preserve_insertion_order = {'true' if previous else 'false'}")
        name = self.name(kind)
        if self._copies is None:
            self._copies = self.name("copies")
            try:
                self.con.execute(f"ATTACH ':memory:' AS {DUCKDB.ident(self._copies)} (COMPRESS)")
            except duckdb.Error:  # an older DuckDB: uncompressed temporary tables
                self._copies = ""
        if not self._copies:
            self.con.execute(f"CREATE TEMP TABLE {DUCKDB.ident(name)} AS {sql}")
        else:
            stored = f"{DUCKDB.ident(self._copies)}.{DUCKDB.ident(name)}"
            self.con.execute(f"CREATE TABLE {stored} AS {sql}")
            self.con.execute(f"CHECKPOINT {DUCKDB.ident(self._copies)}")  # compresses what was just written
            self.con.execute(f"CREATE TEMP VIEW {DUCKDB.ident(name)} AS SELECT * FROM {stored}")
        self.tables.append(name)
        return name

    def drop(self, name: str) -> None:
        if self._copies:
            self.con.execute(f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
            self.con.execute(f"DROP TABLE IF EXISTS {DUCKDB.ident(self._copies)}.{DUCKDB.ident(name)}")
        else:
            self.con.execute(f"DROP TABLE IF EXISTS {DUCKDB.ident(name)}")
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
                self.con.execute(f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
            except duckdb.Error:
                pass
        self.names.clear()
        if self._copies:
            try:
                self.con.execute(f"DETACH {DUCKDB.ident(self._copies)}")
            except duckdb.Error:
                pass
        self._copies = None


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
