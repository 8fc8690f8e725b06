"""Progress: one labelled line on a terminal while a long step runs (reading a file, checking it,
evaluating), with DuckDB's own estimate of how far the statement is. Only for connections progress
was asked for (the command line asks when standard error is a terminal): nothing in pipes or files.

    sqlrank: evaluating 10,000,000 run rows (slice 2 of 3): 64% (5 s)
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, TextIO

DELAY = 1.0  # seconds a step runs before its line shows: quick evaluations print nothing
INTERVAL = 0.25
_SHOWN: set[int] = set()  # connections (by id) whose steps show progress
_RECORDERS: list[Callable[[str, float, float], None]] = []  # recording()
_COUNTS_SHOWN = False  # show_counts()


def configure(connection, show: bool) -> None:
    """DuckDB's own unlabelled bar off; with ``show``, this connection's steps show sqlrank's line on
    standard error (the command line asks for it when that is a terminal; progress=True in Python).
    DuckDB keeps count of a statement's progress only with its progress bar on, not drawn."""
    if not show:
        connection.execute("SET enable_progress_bar = false")
        return
    connection.execute("SET enable_progress_bar = true")
    connection.execute("SET enable_progress_bar_print = false")
    connection.execute("SET progress_bar_time = 0")
    _SHOWN.add(id(connection))


def show_counts(show: bool) -> None:
    """Whether counted steps (resampling) show their line on standard error: the command line asks for it when
    that is a terminal."""
    global _COUNTS_SHOWN
    _COUNTS_SHOWN = show


def forget(connection) -> None:
    _SHOWN.discard(id(connection))


@contextmanager
def recording(callback: Callable[[str, float, float], None]) -> Iterator[None]:
    """While inside: each step's label, wall seconds and the process's CPU seconds during it go to
    ``callback`` when the step ends (bench/steps.py: where a command's time goes)."""
    _RECORDERS.append(callback)
    try:
        yield
    finally:
        _RECORDERS.remove(callback)


@contextmanager
def step(connection, label: str, stream: TextIO | None = None) -> Iterator[None]:
    """Run a step; while it runs (after DELAY seconds) keep a line saying which step and how far
    DuckDB's statement has got, and clear that line when the step ends."""
    wall, cpu = time.monotonic(), time.process_time()
    try:
        with _shown(connection, label, stream):
            yield
    finally:
        for callback in list(_RECORDERS):
            callback(label, time.monotonic() - wall, time.process_time() - cpu)


@contextmanager
def _shown(connection, label: str, stream: TextIO | None) -> Iterator[None]:
    """The step's progress line, on connections progress was asked for."""
    if stream is None and id(connection) not in _SHOWN:
        yield
        return

    def how_far(elapsed: float) -> str:
        try:
            fraction = connection.query_progress()
        except Exception:  # the connection is between statements, or closing
            fraction = -1
        return f"{label}{f': {fraction:.0f}%' if fraction is not None and fraction >= 0 else ''} ({elapsed:.0f} s)"
    with _line(stream or sys.stderr, how_far):
        yield


@contextmanager
def counted(label: str, total: int, stream: TextIO | None = None) -> Iterator[Callable[[int], None]]:
    """A step done in blocks of a known TOTAL (resamples of a test or interval): the caller calls advance(n)
    after each block; where show_counts was asked (the command line, on a terminal), after DELAY seconds, a
    line on standard error says how far it has got."""
    done_units = [0]

    def advance(units: int) -> None:
        done_units[0] += units

    if stream is None and not _COUNTS_SHOWN:
        yield advance
        return

    def how_far(elapsed: float) -> str:
        return f"{label}: {min(100.0, 100.0 * done_units[0] / max(total, 1)):.0f}% of {total:,} ({elapsed:.0f} s)"
    with _line(stream or sys.stderr, how_far):
        yield advance


@contextmanager
def _line(out: TextIO, how_far: Callable[[float], str]) -> Iterator[None]:
    """While inside, after DELAY seconds, one line on OUT rewritten every INTERVAL: sqlrank: how_far(seconds);
    cleared at the end."""
    done = threading.Event()
    started = time.monotonic()

    def report() -> None:
        shown = False
        while not done.wait(INTERVAL):
            elapsed = time.monotonic() - started
            if elapsed < DELAY:
                continue
            out.write(f"\rsqlrank: {how_far(elapsed)}\x1b[K")
            out.flush()
            shown = True
        if shown:
            out.write("\r\x1b[K")
            out.flush()

    thread = threading.Thread(target=report, name="sqlrank-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
