"""The files of sqlrank trec_eval's command line: the run (standard input copied to a file that is
always removed), its run tag as trec_eval prints it, and the z-score file of -Z."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

from ..errors import InputError
from ..inputs.source import Source

MISSING_ZSCORE = -1000000.0


def zscore(zscores: dict, qid: str, name: str, value: float) -> float:
    entry = zscores.get(qid, {}).get(name)
    if entry is None:
        return MISSING_ZSCORE
    mean, stddev = entry
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def read_zscores(path: str) -> dict:
    """``qid measure mean stddev`` lines; a small table, so read in Python."""
    table: dict = {}
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the z-score file: {exc.strerror}") from None
    with handle:
        if os.fstat(handle.fileno()).st_size == 0:  # trec_eval refuses it too ("Cannot read zscores file")
            raise InputError(f"{path}: the z-score file is empty; it needs 'qid measure mean stddev' lines")
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 4:
                raise InputError(f"{path}:{number}: expected 'qid measure mean stddev', found {len(fields)} fields")
            try:
                mean, stddev = float(fields[2]), float(fields[3])
            except ValueError:
                raise InputError(f"{path}:{number}: mean and stddev must be numbers: {line.strip()!r}") from None
            table.setdefault(fields[0], {})[fields[1]] = (mean, stddev)
    return table


def run_id_of(run: Source, con) -> str:
    """The run tag of the last data line, as trec_eval prints it; the file name for other formats."""
    if run.format != "trec":
        return os.path.splitext(os.path.basename(run.label))[0]
    if not run.path.lower().endswith(".gz"):
        line = last_data_line(run.path)
        if line is not None:
            return line.split()[5]
    row = con.execute(f"SELECT line FROM ({run.sql('numbered')}) AS lines ORDER BY position DESC LIMIT 1").fetchall()[0]
    return row[0].split()[5]


def last_data_line(path: str, block: int = 1 << 16) -> str | None:
    """The last line that is neither blank nor a comment, read from the end of the file."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        tail = b""
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            tail = handle.read(end - start) + tail
            end = start
            lines = tail.split(b"\n")
            for raw in reversed(lines[1:] if start > 0 else lines):
                text = raw.decode("utf-8", errors="replace").strip()
                if text and not text.startswith("#"):
                    return text
    return None


STANDARD_INPUT = "standard input"


def run_label(run: str) -> str | None:
    """What errors call the run read from standard input (not sqlrank's copy of it)."""
    return STANDARD_INPUT if run == "-" else None


class RunFile:
    """The run path; standard input ('-') is first copied to a temporary file, unparsed, removed
    whatever ends the evaluation (an error, Ctrl-C, SIGTERM; also while it is being copied)."""

    def __init__(self, path: str):
        self.path, self.tmp = path, None

    def __enter__(self) -> str:
        if self.path != "-":
            return self.path
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise InputError(f"{STANDARD_INPUT}: is closed; give the run on standard input or as a file")
        fd, self.tmp = tempfile.mkstemp(prefix="sqlrank-stdin-", suffix=".run")
        try:
            with os.fdopen(fd, "wb") as handle:
                shutil.copyfileobj(stream, handle)
            if not os.path.getsize(self.tmp):
                raise InputError(f"{STANDARD_INPUT}: the run is empty")
        except BaseException:
            self.__exit__()
            raise
        return self.tmp

    def __exit__(self, *exc) -> None:
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)
