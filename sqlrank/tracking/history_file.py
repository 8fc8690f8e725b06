"""The history file of ``--record`` and ``sqlrank history``: read, and appended to without losing anything.

A Parquet history (``.parquet``) is written by DuckDB (nothing beyond sqlrank's own dependencies) beside
itself as ``.sqlrank-history-PID-*.parquet`` and renamed over it once complete, keeping its mode and owner;
writers take turns through an exclusive lock of ``FILE.lock``, which the holder removes as it lets go (a
writer that finds the lock file gone or replaced after taking it starts again), and the temporaries of
writers that died are removed by the next. A DuckDB history (``.duckdb``, table ``sqlrank_history``) is
appended to in one transaction, under the same lock (a writer that removed the empty log its failed commit left
would otherwise remove another writer's log too, and that writer's rows with it). A file that is no sqlrank history (another schema, another database,
an SQLite database, bytes that are neither) is refused and left as it is; a failed write (a full disk)
names the history and leaves it as it was.
"""
from __future__ import annotations

import contextlib
import glob
import os
import re
import stat
import time
import uuid
from typing import Iterator

import duckdb
import pandas as pd

from ..engines.duckdb import OFFLINE
from ..engines.sqlite import is_sqlite_file
from ..errors import OptionError, duckdb_reason
from ..rendering.dialects import DUCKDB
from ..results.writer import target

TABLE = "sqlrank_history"
MARKER = "sqlrank_history"  # the Parquet file's key-value metadata key; its value is the format's version
COLUMNS = {"evaluation": "VARCHAR", "recorded_at": "TIMESTAMP", "tag": "VARCHAR", "command": "VARCHAR",
           "run": "VARCHAR", "measure": "VARCHAR", "value": "DOUBLE", "summary": "VARCHAR", "queries": "BIGINT",
           "conventions": "VARCHAR", "qrels": "VARCHAR", "qrels_rows": "BIGINT", "qrels_sha256": "VARCHAR",
           "run_input": "VARCHAR", "run_rows": "BIGINT", "run_sha256": "VARCHAR", "sqlrank_version": "VARCHAR"}
ADDED = {"summary": "'mean'"}  # columns a history of an earlier format lacks: what its rows were
WAIT_SECONDS = 30  # how long a writer waits for another's lock before it gives up
_TEMPORARY = re.compile(r"\.sqlrank-history-([0-9]+)-[0-9a-f]+\.parquet$")


def append(path: str, rows: pd.DataFrame) -> None:
    """Append ``rows`` (the columns COLUMNS) to the history at ``path``, creating it when there is none."""
    real = target(path)
    with _locked(path, real):  # a DuckDB history too: its log is checked and tidied by one writer at a time
        (_append_duckdb if _kind(path) == "duckdb" else _append_parquet)(path, real, rows)


def check(path: str) -> None:
    """Before an evaluation: PATH can hold a history (its name), and what is there is one (or nothing is)."""
    kind = _kind(path)
    if not os.path.exists(path):
        return
    if kind == "parquet":
        with _connection() as con:
            _require_ours(path, con)
        return
    with _duckdb(path, read_only=True, wait=False):
        pass


def read(path: str) -> pd.DataFrame:
    """Every row of the history at ``path``, oldest first."""
    if not os.path.exists(path):
        raise OptionError(f"{path}: no such history file")
    order = "ORDER BY recorded_at, evaluation, "  # and the order the rows were written in
    if _kind(path) == "duckdb":
        with _duckdb(path, read_only=True) as con:
            if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [TABLE]).fetchall()[0][0]:
                return pd.DataFrame(columns=list(COLUMNS))  # a new database: no evaluation recorded yet
            return con.execute(f"SELECT {_selected(con, TABLE)} FROM {TABLE} {order} rowid").df()
    with _connection() as con:
        reader = _require_ours(path, con)
        return con.execute(f"SELECT {_selected(con, reader)} FROM {reader} {order} file_row_number").df()


def _kind(path: str) -> str:
    name = os.fspath(path).lower()
    with contextlib.suppress(OSError):  # no file yet: a new history
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):  # a FIFO would block the first read for ever; a folder or device is no history
            what = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "no regular file"
            raise OptionError(f"{path}: is {what}; a history is a regular .parquet or .duckdb file: give one to "
                              f"--record")
    with contextlib.suppress(OSError):  # no file yet: a new history
        if is_sqlite_file(path):
            raise OptionError(f"{path}: is an SQLite database, not a history; it is left as it is: give a .parquet "
                              f"or .duckdb file of its own to --record")
    if name.endswith(".duckdb") or name.endswith(".db"):
        return "duckdb"
    if name.endswith(".parquet"):
        return "parquet"
    raise OptionError(f"{path}: a history is a .parquet file or a .duckdb database; name it so")


@contextlib.contextmanager
def _connection() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(config=dict(OFFLINE))
    try:
        yield con
    finally:
        con.close()


def _selected(con: duckdb.DuckDBPyConnection, relation: str) -> str:
    """The history's columns in COLUMNS' order, those of a later format that it lacks as what they were."""
    found = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()} - {"file_row_number"}
    return ", ".join(DUCKDB.ident(c) if c in found else f"{ADDED[c]} AS {DUCKDB.ident(c)}" for c in COLUMNS)


def _require_schema(path: str, found: set[str]) -> None:
    if found != set(COLUMNS) and found != set(COLUMNS) - set(ADDED):
        missing = sorted(set(COLUMNS) - set(ADDED) - found)
        raise OptionError(f"{path}: marked as a sqlrank history, but its columns are not a history's (" +
                          (f"no {', '.join(missing)}" if missing else f"also {', '.join(sorted(found - set(COLUMNS)))}")
                          + "); it is left as it is: give another --record file")


def _require_ours(path: str, con: duckdb.DuckDBPyConnection) -> str:
    """The reader of the Parquet history at PATH, once its mark and columns say it is one."""
    reader = f"read_parquet({DUCKDB.literal(path)}, file_row_number = true)"
    try:
        keys = {bytes(row[0]) for row in con.execute("SELECT key FROM parquet_kv_metadata(?)", [path]).fetchall()}
        found = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {reader}").fetchall()} - {"file_row_number"}
    except duckdb.Error:
        raise OptionError(f"{path}: not a Parquet file; a history is refused rather than overwritten: give another "
                          f"--record file") from None
    if MARKER.encode() not in keys:
        raise OptionError(f"{path}: a Parquet file that is no sqlrank history (no {MARKER} mark); it is left as it "
                          f"is: give another --record file")
    _require_schema(path, found)
    return reader


def _append_parquet(path: str, real: str, rows: pd.DataFrame) -> None:
    """Write the old rows and ROWS beside the history, then rename the new file over it."""
    folder = os.path.dirname(real)
    info = os.stat(real) if os.path.exists(real) else None
    temporary = os.path.join(folder, f".sqlrank-history-{os.getpid()}-{uuid.uuid4().hex}.parquet")
    typed = ", ".join(f"CAST({DUCKDB.ident(c)} AS {t}) AS {DUCKDB.ident(c)}" for c, t in COLUMNS.items())
    try:
        with _connection() as con:
            con.register("appended", rows)
            if info is not None:
                reader = _require_ours(real, con)
                old = f"(SELECT {_selected(con, reader)} FROM {reader} ORDER BY file_row_number)\nUNION ALL\n"
            else:
                old = ""
            con.execute(f"COPY ({old}SELECT {typed} FROM appended) TO {DUCKDB.literal(temporary)} "
                        f"(FORMAT parquet, KV_METADATA {{{MARKER}: '2'}})")
        _keep_owner(temporary, info)
        os.replace(temporary, real)
    except (duckdb.Error, OSError) as exc:
        reason = duckdb_reason(exc) if isinstance(exc, duckdb.Error) else exc.strerror or str(exc)
        raise OptionError(f"{path}: cannot append to the history ({reason}); the history is as it was") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _keep_owner(path: str, info: os.stat_result | None) -> None:
    """Give the new file the old one's mode and owner (a new history: the mode open() would give it)."""
    if info is None:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(path, 0o666 & ~umask)
        return
    if hasattr(os, "chown") and (os.stat(path).st_uid, os.stat(path).st_gid) != (info.st_uid, info.st_gid):
        with contextlib.suppress(PermissionError):  # only root gives a file away; the mode is kept either way
            os.chown(path, info.st_uid, info.st_gid)
    os.chmod(path, info.st_mode & 0o7777)


def _remove_dead_writers_files(folder: str) -> None:
    """The temporaries of writers that died mid-append (their process is gone)."""
    for name in glob.glob(os.path.join(glob.escape(folder), ".sqlrank-history-*.parquet")):
        found = _TEMPORARY.search(name)
        if found and not _alive(int(found.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


@contextlib.contextmanager
def _locked(path: str, real: str) -> Iterator[None]:
    """An exclusive lock of REAL.lock for the duration, waiting up to WAIT_SECONDS for another writer; the
    lock file is removed as the lock is let go."""
    lock_path = real + ".lock"
    try:
        import fcntl
    except ImportError:  # Windows: a file that exists while someone holds the lock
        fcntl = None
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_RDWR | (0 if fcntl else os.O_EXCL), 0o600)
        except FileExistsError:
            fd = None
        except OSError as exc:
            raise OptionError(f"{path}: cannot lock the history ({exc.strerror}); the history is as it was") from None
        if fd is not None and (fcntl is None or _took(fd, fcntl, lock_path)):
            break
        if fd is not None:
            os.close(fd)
        if time.monotonic() > deadline:
            raise OptionError(f"{path}: another writer holds {lock_path}; try again" +
                              ("" if fcntl else " (or remove it, if no writer is left)"))
        time.sleep(0.05)
    try:
        _remove_dead_writers_files(os.path.dirname(real))
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _took(fd: int, fcntl, lock_path: str) -> bool:
    """Whether the lock of FD was taken and FD is still the file at LOCK_PATH (not one a holder removed)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    try:
        same = os.stat(lock_path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        same = False
    if not same:
        fcntl.flock(fd, fcntl.LOCK_UN)
    return same


@contextlib.contextmanager
def _duckdb(path: str, read_only: bool = False, wait: bool = True) -> Iterator[duckdb.DuckDBPyConnection | None]:
    """The history database, opened when no other process holds it (waiting up to WAIT_SECONDS; without WAIT,
    None while another holds it)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            con = duckdb.connect(path, read_only=read_only, config=dict(OFFLINE))
            break
        except duckdb.IOException as exc:
            if not wait and "lock" in str(exc).lower():
                yield None
                return
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise OptionError(f"{path}: cannot open the history: {str(exc).splitlines()[0]}") from None
            time.sleep(0.05)
        except duckdb.Error as exc:
            raise OptionError(f"{path}: not a DuckDB database ({str(exc).splitlines()[0]}); a history is refused "
                              f"rather than overwritten: give another --record file") from None
    try:
        tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if tables and TABLE not in tables:
            raise OptionError(f"{path}: a DuckDB database without a {TABLE} table: no sqlrank history; it is left as "
                              f"it is: give another --record file")
        if TABLE in tables:
            _require_schema(path, {row[0] for row in con.execute(f"DESCRIBE {TABLE}").fetchall()})
        yield con
    finally:
        con.close()


def _append_duckdb(path: str, real: str, rows: pd.DataFrame) -> None:
    wal = real + ".wal"
    had_wal = os.path.exists(wal)
    try:
        _insert(path, real, rows)
    finally:  # a commit that failed leaves DuckDB's log empty: nothing to keep
        if not had_wal and os.path.exists(wal) and os.path.getsize(wal) == 0:
            with contextlib.suppress(OSError):
                os.unlink(wal)


def _insert(path: str, real: str, rows: pd.DataFrame) -> None:
    with _duckdb(real) as con:
        try:
            con.execute("BEGIN TRANSACTION")
            columns = ", ".join(f"{DUCKDB.ident(c)} {t}" for c, t in COLUMNS.items())
            con.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} ({columns})")
            found = {row[0] for row in con.execute(f"DESCRIBE {TABLE}").fetchall()}
            for column in set(ADDED) - found:  # a history of an earlier format: its rows keep what they were
                con.execute(f"ALTER TABLE {TABLE} ADD COLUMN {DUCKDB.ident(column)} {COLUMNS[column]} "
                            f"DEFAULT {ADDED[column]}")
            con.register("appended", rows)
            names = ", ".join(DUCKDB.ident(c) for c in COLUMNS)
            con.execute(f"INSERT INTO {TABLE} ({names}) SELECT {names} FROM appended")
            con.execute("COMMIT")
        except duckdb.Error as exc:
            with contextlib.suppress(duckdb.Error):
                con.execute("ROLLBACK")
            raise OptionError(f"{path}: cannot append to the history ({duckdb_reason(exc)}); the history is as it "
                              f"was") from None
