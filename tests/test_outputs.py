"""What sqlrank writes is what it says it wrote: a write that fails part way (a full disk) is an error, an output's
name says its format (or the output is refused before anything is read), and a Markdown table keeps its columns
whatever the ids hold."""
from __future__ import annotations

import errno
import io

import pytest

from conftest import FIXTURES
from support.cli import cli

DEMO = FIXTURES / "demo"
COMPARE = FIXTURES / "compare"


class _FullDisk(io.RawIOBase):
    """A file on a disk with ROOM bytes left: a write takes what fits (a short write), the next fails (ENOSPC),
    as a real full disk does."""

    def __init__(self, room: int):
        self.room, self.data = room, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if not self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = bytes(data[:self.room])
        self.data += taken
        self.room -= len(taken)
        return len(taken)


@pytest.mark.parametrize("args", [
    ["trec_eval", "-q", str(DEMO / "qrels.test"), str(DEMO / "results.test")],
    ["pool", str(DEMO / "results.test"), "--depth", "1000", "-f", "csv"],
    ["eval", "-q", str(COMPARE / "qrels.txt"), str(COMPARE / "rerank.run"), "-m", "P@5 P@10 AP nDCG@10 RR bpref"],
])
@pytest.mark.parametrize("unbuffered", [True, False])
def test_a_full_disk_on_standard_output_is_an_error(monkeypatch, capsys, args, unbuffered):
    """Unbuffered (PYTHONUNBUFFERED, python -u), Python's standard output drops what a short write left over: its
    text layer does not look at the count the file took, and 4,719 of 9,001 lines were written, exit 0."""
    disk = _FullDisk(room=100)
    stdout = io.TextIOWrapper(disk if unbuffered else io.BufferedWriter(disk), encoding="utf-8", write_through=True)
    monkeypatch.setattr("sys.stdout", stdout)
    from sqlrank.cli.main import main

    assert main(args) == 1
    err = capsys.readouterr().err
    assert "standard output: cannot write the output: No space left on device" in err, err
    assert len(disk.data) == 100
