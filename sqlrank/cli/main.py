"""The command line: ``sqlrank eval QRELS RUN -m "nDCG@10 AP P@10"``.

Results go to stdout (or, with -o, to a file written atomically), warnings and errors to
stderr. A user mistake gives a one-line error and exit status 1, never a traceback.
"""
from __future__ import annotations

import gc
import os
import signal
import sys
from typing import Sequence

from ..errors import SqlrankError
from ..progress import show_counts
from .options import EXIT_ERROR
from .parser import build_parser
from .paths import choose_format, format_choices, refuse_clobbers
from .trec_eval import trec_eval_command


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["trec_eval"]:  # its own trec_eval-style options
        handler, args = trec_eval_command, argv[1:]
    else:
        parser = build_parser(argv[0] if argv else None)  # that command's parser alone
        parsed = parser.parse_args(argv)
        handler, args = parsed.handler, parsed
    show_counts(sys.stderr.isatty())  # a long resampling says how far it has got, on a terminal
    previous = signal.signal(signal.SIGTERM, _terminated)  # unwind, so that DuckDB removes its spill files
    try:
        if not isinstance(args, list):
            refuse_clobbers(args)  # first: an output over an input is the graver mistake
            choose_format(args, format_choices(parser, args.command), argv)
        return handler(args)
    except _Terminated:
        return _stopped("terminated", 128 + signal.SIGTERM)
    except RuntimeError as exc:  # Ctrl-C or SIGTERM inside DuckDB: it stops the query and says so
        if "interrupted" not in str(exc).lower():
            raise
        terminated = _Terminated.received
        print(f"sqlrank: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)
    except SqlrankError as exc:
        print(f"sqlrank: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:  # a file named where the system names one; never an empty name before the colon
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"sqlrank: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return _stopped("interrupted", 130)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(word: str, status: int) -> int:
    """A signal's one line and exit status. After a statement was cancelled in a database client
    (interruption.py), the process ends here, at once: what the client holds is never freed (ADBC's
    driver frees a cancelled statement's memory twice), and the server has dropped the statement and
    the session's temporary tables already."""
    from ..engines.interruption import cancelled

    if not cancelled():
        print(f"sqlrank: {word}", file=sys.stderr)
        return status
    gc.disable()
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(2, f"sqlrank: {word}\n".encode())
    os._exit(status)


class _Terminated(BaseException):
    """SIGTERM, raised where Python (or DuckDB's check for signals) next looks."""

    received = False


def _terminated(signum, frame) -> None:
    _Terminated.received = True
    raise _Terminated()


if __name__ == "__main__":
    sys.exit(main())
