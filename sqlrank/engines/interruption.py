"""Statements that Ctrl-C and SIGTERM stop at once, on engines whose client blocks signals.

A database client that waits for its server inside C code (ADBC's PostgreSQL driver) keeps the
main thread from taking a signal until the statement ends, which may be hours; ADBC also turns
Ctrl-C into an error of its own. ``interruptible`` runs the call in a worker thread while the
main thread waits, so that Python's handlers run at once: the statement is cancelled on the
server, the worker is waited for, and the KeyboardInterrupt (exit 130) or the termination
(exit 143) goes on to the command line as for DuckDB.
"""
from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")
CANCEL_WAIT = 30.0  # seconds to wait for a cancelled statement to return
_CANCELLED: list[object] = []  # the client objects of statements a signal cancelled, never freed


def cancelled() -> bool:
    """Whether a statement was cancelled by a signal in this process (the command line then ends at once)."""
    return bool(_CANCELLED)


def keep(*objects: object) -> None:
    """Hold OBJECTS (a cancelled statement's cursor, its connection) until the process ends, unclosed:
    ADBC's PostgreSQL driver frees a cancelled statement's memory a second time when its cursor is
    closed or collected (a crash, at a moment the garbage collector chooses). The server has ended the
    statement; the session ends with the process."""
    _CANCELLED.extend(objects)


def interruptible(call: Callable[[], T], cancel: Callable[[], object]) -> T:
    """CALL's value; on a signal in the main thread, CANCEL, wait for CALL to end, and re-raise."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the main thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="sqlrank-statement", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        _CANCELLED.append(call)
        try:
            cancel()
        finally:
            worker.join(CANCEL_WAIT)
        raise
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
