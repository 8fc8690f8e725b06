"""What sqlrank keeps in its DuckDB connection: the ``Registry`` of the names it registers
(DataFrames, copies, temporary tables) and drops at the end, and the inputs it reads once into a
copy (TREC text, Parquet of many small row groups) rather than scanning them again."""
from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import weakref
from dataclasses import replace
from typing import Any

import duckdb

from ..errors import InputError, duckdb_reason
from ..progress import step
from ..rendering.dialects import DUCKDB
from .source import Source, duckdb_path


class Registry:
    """Names registered in a connection for in-memory inputs, and sqlrank's copies of inputs read once;
    removed on close. SPILL: the folder the copies' temporary folder is made in (the user's
    temp_directory), else the system's temporary folder."""

    def __init__(self, con: duckdb.DuckDBPyConnection, spill: str | None = None):
        self.con = con
        self.names: list[str] = []
        self.tables: list[str] = []
        self._counter = itertools.count(1)
        self._spill = spill
        self._copies: str | None = None  # the database the copies are kept in, once attached
        self._folder: str | None = None  # the temporary folder of its file and of the Parquet copies, once made
        self._files: dict[str, str] = {}  # a copy kept as a Parquet file: its view's name -> its path
        self._temporary: set[str] = set()  # copies kept as plain temporary tables (small inputs)
        self._owner: _Owner | None = None  # the descriptor whose lock says the folder's process is alive

    def name(self, kind: str) -> str:
        return f"sqlrank_{kind}_{os.getpid()}_{id(self)}_{next(self._counter)}"

    def materialize(self, sql: str, kind: str, ordered: bool = True, plain: bool = False, small: bool = False) -> str:
        """Read once into a copy (removed on close) that the statements read as a temporary view.

        plain=True (rows of text, numbers and booleans: TREC text read once) writes an uncompressed Parquet
        file in sqlrank's temporary folder: no compression to compute, which for a 10M-line run takes a
        third of the CPU seconds of the reading (200 MB of temporary disk where DuckDB's own compression
        takes 80 MB). Otherwise the copy is a table in a database file there, which DuckDB compresses as
        it writes each group of rows (dictionaries, FSST, bit packing), so that the uncompressed rows are
        never all held at once. Where no temporary folder can be made: an in-memory database that DuckDB
        compresses on CHECKPOINT, else a plain temporary table. ordered=False lets DuckDB store the rows
        in the order its threads read them (a Parquet file of many small row groups copies 3x faster). small=True
        (an input of a few megabytes) makes a plain temporary table: no folder, file or compression to set up."""
        if not ordered:
            previous = self.con.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
            self.con.execute("SET preserve_insertion_order = false")
            try:
                return self.materialize(sql, kind, plain=plain, small=small)
            finally:
                self.con.execute(f"SET preserve_insertion_order = {'true' if previous else 'false'}")
        name = self.name(kind)
        if small:
            self.con.execute(f"CREATE TEMP TABLE {DUCKDB.ident(name)} AS {sql}")
            self._temporary.add(name)
        elif plain and self._make_folder():
            path = os.path.join(self._folder, f"{name}.parquet")
            self._files[name] = path
            self.con.execute(f"COPY ({sql}) TO {DUCKDB.literal(path)} (FORMAT parquet, COMPRESSION uncompressed)")
            reader = f"read_parquet({DUCKDB.literal(path)})"
            self.con.execute(f"CREATE TEMP VIEW {DUCKDB.ident(name)} AS SELECT * FROM {reader}")
        else:
            if self._copies is None:
                self._copies = self._attach(self.name("copies"))
            if not self._copies:
                self.con.execute(f"CREATE TEMP TABLE {DUCKDB.ident(name)} AS {sql}")
            else:
                stored = f"{DUCKDB.ident(self._copies)}.{DUCKDB.ident(name)}"
                self.con.execute(f"CREATE TABLE {stored} AS {sql}")
                self.con.execute(f"CHECKPOINT {DUCKDB.ident(self._copies)}")  # compresses what is not yet
                self.con.execute(f"CREATE TEMP VIEW {DUCKDB.ident(name)} AS SELECT * FROM {stored}")
        self.tables.append(name)
        return name

    def _make_folder(self) -> bool:
        """sqlrank's temporary folder, made once: whether there is one."""
        if self._folder is None:
            try:
                remove_orphans(self._spill or tempfile.gettempdir())
                self._folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=self._spill)
                self._owner = _own(self._folder)
            except OSError:
                self._folder = ""
            else:  # removed on close, or, for a registry never closed, when it is collected or Python exits
                weakref.finalize(self, _remove_own_folder, self._folder, os.getpid(), self._owner)
        return bool(self._folder)

    def _attach(self, name: str) -> str:
        """Attach the database the copies are kept in: a file in the temporary folder, else in memory
        (compressed); "" where neither can be attached (an older DuckDB)."""
        if self._make_folder():
            try:
                path = os.path.join(self._folder, "copies.duckdb")
                self.con.execute(f"ATTACH {DUCKDB.literal(path)} AS {DUCKDB.ident(name)}")
                return name
            except duckdb.Error:
                pass
        try:
            self.con.execute(f"ATTACH ':memory:' AS {DUCKDB.ident(name)} (COMPRESS)")
            return name
        except duckdb.Error:
            return ""

    def drop(self, name: str) -> None:
        if name in self._files:
            self.con.execute(f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
            os.remove(self._files.pop(name))
        elif self._copies and name not in self._temporary:
            self.con.execute(f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
            self.con.execute(f"DROP TABLE IF EXISTS {DUCKDB.ident(self._copies)}.{DUCKDB.ident(name)}")
        else:  # a plain temporary table: a small input's, or any copy where no database could be attached
            self.con.execute(f"DROP TABLE IF EXISTS {DUCKDB.ident(name)}")
        self._temporary.discard(name)
        self.tables.remove(name)

    def register(self, obj: Any, kind: str) -> str:
        name = self.name(kind)
        if isinstance(obj, duckdb.DuckDBPyRelation):
            obj.create_view(name, replace=True)  # a temporary view of the connection it belongs to
            if not self.con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name]).fetchall()[0][0]:
                try:  # of another connection: its view goes again, and the caller names the connection
                    obj.query("sqlrank_relation", f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
                except duckdb.Error:
                    pass
                raise InputError(f"a DuckDB relation ({kind}) is read in the connection it belongs to: pass "
                                 f"connection=con, the connection that made it (duckdb.default_connection() for "
                                 f"duckdb.sql's)")
        else:
            self.con.register(name, obj)
        self.names.append(name)
        return name

    def mark(self) -> tuple[int, int]:
        """How much is registered and copied now: release(mark) lets go of what comes after."""
        return len(self.names), len(self.tables)

    def release(self, mark: tuple[int, int] = (0, 0)) -> None:
        """Drop the copies made and unregister the names registered since ``mark`` (an Evaluator's run, once
        evaluated; everything, by default)."""
        names, tables = mark
        for name in self.tables[tables:]:
            try:
                self.drop(name)
            except (duckdb.Error, OSError):
                pass
        for name in self.names[names:]:
            try:
                self.con.unregister(name)
            except duckdb.Error:
                pass
            try:
                self.con.execute(f"DROP VIEW IF EXISTS {DUCKDB.ident(name)}")
            except duckdb.Error:
                pass
        del self.names[names:]

    def close(self) -> None:
        self.release()
        if self._copies:
            try:
                self.con.execute(f"DETACH {DUCKDB.ident(self._copies)}")
            except duckdb.Error:
                pass
        self._copies = None
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
            _let_go(self._owner)
        self._folder, self._files, self._owner = None, {}, None


def _remove_own_folder(folder: str, pid: int, owner: _Owner | None) -> None:
    """Remove a temporary folder, from the process that made it (not from a child forked off it, which
    would take it away from its parent at its exit)."""
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)
        _let_go(owner)


# sqlrank's temporary folders: FOLDER_PREFIX and a random part, each holding OWNER, a file its process keeps an
# exclusive lock of while it lives. The system lets go of that lock when the process ends, however it ends
# (SIGKILL, the OOM killer), so that the next sqlrank finds the folders of processes that no longer exist and
# removes them; a lock, not a process id, tells (a process of another PID namespace sharing the folder is alive).
FOLDER_PREFIX = "sqlrank-"
OWNER = ".owner"


class _Owner:
    """The descriptor of a folder's owner file, holding its lock; closed once (a descriptor number closed twice
    would close whatever file has it by then)."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


def _own(folder: str) -> _Owner:
    """Take the lock of FOLDER's owner file, for as long as the returned owner is open."""
    try:
        import fcntl
    except ImportError:  # Windows: a killed process's folder stays
        return _Owner(None)
    fd = os.open(os.path.join(folder, OWNER), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return _Owner(fd)


def _let_go(owner: _Owner | None) -> None:
    if owner is not None:
        owner.close()


def remove_orphans(parent: str) -> None:
    """Remove the temporary folders in PARENT of sqlrank processes that ended without removing theirs."""
    try:
        import fcntl
        entries = [e for e in os.scandir(parent) if e.name.startswith(FOLDER_PREFIX) and e.is_dir(follow_symlinks=False)]
    except (ImportError, OSError):
        return
    for entry in entries:
        try:
            fd = os.open(os.path.join(entry.path, OWNER), os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:  # no owner file (made a moment ago, or by an older sqlrank): left alone
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its process holds it: alive
            os.close(fd)
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        os.close(fd)


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
                                                              ordered=source.format != "parquet",
                                                              plain=source.format == "trec", small=_small(source)))
    except duckdb.Error as exc:
        if source.lines == "fields":  # some line has another number of fields: its lines, split by sqlrank
            return read_once(replace(source, lines="csv"), con, registry)
        reason = duckdb_reason(exc)
        if not (source.format == "trec" and source.lines == "csv" and "reached an invalid state" in str(exc)
                and not source.path.lower().endswith(".gz")):
            raise InputError(f"{source.label}: cannot read the {source.kind}: {reason}") from None
        # DuckDB's CSV reader ends a line at a lone carriage return; trec_eval takes it for white space
        return read_once(replace(source, lines="text", split="regex"), con, registry)


SMALL_INPUT = 8 << 20  # bytes on disk: an input read once into a plain temporary table, held in memory


def _small(source: Source) -> bool:
    """Whether the source is a file of at most SMALL_INPUT bytes (a few megabytes, its rows held in memory at
    little cost)."""
    try:
        return bool(source.path) and os.path.isfile(source.path) and os.path.getsize(source.path) <= SMALL_INPUT
    except (OSError, TypeError):
        return False


def guess_split(path: str, kind: str, sample: int = 200, budget: int = 1 << 20) -> str:
    """Look at the first lines (at most `budget` bytes, however long or blank the lines): single
    tabs or single spaces throughout, or anything else."""
    import gzip
    import itertools

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
    kept = (line.rstrip("\r") for line in text if not line.startswith("#"))
    lines = list(itertools.islice((line for line in kept if line), sample))  # the first SAMPLE, not every line read
    for split, char in (("tab", "\t"), ("space", " ")):
        others = set(" \t\v\f") - {char}
        fields = [line.split(char) for line in lines]
        if lines and all("" not in f and (len(f) == want if kind == "qrels" else len(f) >= want)
                         and not others & set(line) for f, line in zip(fields, lines)):
            return split
    return "regex"


def plain_fields(path: str, split: str) -> bool:
    """Whether DuckDB's CSV reader may split a TREC file's fields itself (lines "fields"): a file on
    disk (not gzip) holding no white space but the separator and line feeds (no tab, vertical tab, form
    feed, carriage return or, split at tabs, space), which trec_eval would take as separators too, and no
    NUL byte. Looking for five bytes with memchr costs about 0.15 s for 400 MB; what else could be
    irregular (empty fields, comment lines, other numbers of fields) the reading finds itself."""
    if path.lower().endswith(".gz") or split == "regex":
        return False
    others = [b"\t" if split == "space" else b" ", b"\v", b"\f", b"\r", b"\0"]  # NUL: the lines' reader says where
    try:
        with open(path, "rb") as handle:  # in pieces: a memory map would count the whole file as sqlrank's memory
            while piece := handle.read(1 << 24):
                if any(byte in piece for byte in others):
                    return False
    except OSError:
        return False
    return True
