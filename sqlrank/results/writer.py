"""The one writer of every file sqlrank writes (results, reports, SQL, a dbt package's files).

Rules, the same for every command:

- an output is never one of the command's inputs (the same file under another spelling or
  through a link too): refused before anything is read;
- a symbolic link is written through, as the shell's ``>`` does: its target is replaced, the
  link stays;
- a file the user may not write is an error, as for ``>``; a device, FIFO or socket is written
  into, never replaced;
- a regular file is written to a temporary file beside it and renamed over it once complete, so
  that a failure leaves the old file whole.

A command that writes several files of its own (sqlrank dbt) first checks that each starts with its
marker (``starts_with``), so that it writes all of them or none.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import Iterable

from ..errors import OptionError

STANDARD_OUTPUT = "standard output"


def target(path: str) -> str:
    """The file a write to PATH reaches: PATH with every symbolic link followed (the folder's too)."""
    return os.path.realpath(path)


def refuse_inputs(path: str | None, inputs: Iterable[object], option: str = "-o") -> None:
    """Stop before anything is read when the output PATH (given with OPTION) is one of the inputs (any
    spelling, any link)."""
    if path is None or path == "-":
        return
    out = target(path)
    for candidate in inputs:
        if not isinstance(candidate, (str, os.PathLike)) or not str(candidate) or str(candidate) == "-":
            continue
        name = os.fspath(candidate)
        try:
            same = os.path.exists(out) and os.path.exists(name) and os.path.samefile(out, name)
        except OSError:
            same = False
        if same or target(name) == out:
            action = "writing the output" if option == "-o" else "recording the history"
            raise OptionError(f"{path}: is the input {name}; {action} there would replace it: give another {option} file")


def write_output(text: str, path: str | None) -> None:
    """Write TEXT to standard output, or to PATH by the rules above."""
    if path is None or path == "-":
        STDOUT.write(text)
        STDOUT.flush()
        return
    write_file(path, text)


class _StandardOutput:
    """Standard output that says when a write fails. Python's own accepts the text and drops what the file
    would not take (a full disk takes part of a write, then nothing): here every byte is written, or the
    write is an error."""

    def write(self, text: str) -> int:
        stream = sys.stdout
        try:
            raw = getattr(stream, "buffer", None)
            if raw is None:  # a stream without bytes beneath (a StringIO put in its place)
                stream.write(text)
                return len(text)
            stream.flush()  # what was written through the text layer goes first
            data = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
            while data:
                written = raw.write(data)
                if not written:
                    raise OSError(28, "No space left on device")
                data = data[written:]
            return len(text)
        except OSError as exc:
            raise OptionError(f"{STANDARD_OUTPUT}: cannot write the output: {exc.strerror or exc}") from None

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except OSError as exc:
            raise OptionError(f"{STANDARD_OUTPUT}: cannot write the output: {exc.strerror or exc}") from None


STDOUT = _StandardOutput()  # what commands that write as they go (sqlrank trec_eval -q) write to


def write_file(path: str, text: str | bytes) -> None:
    """Write TEXT (or bytes: a Parquet file) to PATH (through links, atomically for a regular file); gzip-compressed
    where PATH ends in .gz, as its name says (sqlrank reads such files back)."""
    if os.fspath(path).lower().endswith(".gz"):
        import gzip

        text = gzip.compress(text.encode("utf-8") if isinstance(text, str) else text, mtime=0)
    real = target(path)
    try:
        info = os.stat(real)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OptionError(f"{path}: cannot write the output: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OptionError(f"{path}: is a folder; give a file to write the output to")
    if info is not None and not os.access(real, os.W_OK):
        raise OptionError(f"{path}: cannot write the output: Permission denied (the file is not writable; change its "
                          f"mode or give another file)")
    try:
        if info is not None and not stat.S_ISREG(info.st_mode):
            with _open(real, text) as handle:  # a device, FIFO or socket: write into it, never replace it with a file
                handle.write(text)
        else:
            _replace(real, text, info)
    except OSError as exc:
        raise OptionError(f"{path}: cannot write the output: {exc.strerror or exc}") from None


def starts_with(path: str, marker: str) -> bool:
    """Whether the file at PATH begins with MARKER (the line sqlrank's own files start with)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(len(marker)) == marker
    except OSError:
        return False


def _open(path: str | int, text: str | bytes):
    return open(path, "wb") if isinstance(text, bytes) else open(path, "w", encoding="utf-8")


def _replace(path: str, text: str | bytes, info: os.stat_result | None) -> None:
    """Write a temporary file beside PATH and rename it over PATH once complete."""
    fd, tmp = tempfile.mkstemp(prefix=".sqlrank-", dir=os.path.dirname(path))
    try:
        with _open(fd, text) as handle:
            handle.write(text)
        os.chmod(tmp, _file_mode(info))  # mkstemp makes it private (0600); a results file is not
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _file_mode(info: os.stat_result | None) -> int:
    """The mode of the file being replaced, or what open() would give a new one (0666 - umask)."""
    if info is not None:
        return info.st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
