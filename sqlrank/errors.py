"""Errors that reach users. Each message says what is wrong, where, and what to do."""
import re


class SqlrankError(Exception):
    """Base class of every error sqlrank raises on purpose."""


class InputError(SqlrankError):
    """A qrels or run input cannot be read or fails validation."""


class MeasureError(SqlrankError):
    """A measure name cannot be parsed or has invalid parameters."""


class ConventionError(SqlrankError):
    """A convention is unknown or has an invalid value."""


class OptionError(SqlrankError):
    """An engine option (memory limit, spill folder, threads) has an invalid value."""


def duckdb_reason(exc: BaseException) -> str:
    """DuckDB's first line, with what to do when the machine, not the input, is the limit."""
    text = str(exc).strip()
    reason = text.splitlines()[0] if text else type(exc).__name__
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if "Maximum line size" in text and line:
        return (f"line {line.group(1)} is longer than DuckDB's limit of 2,000,000 bytes; no judgment or result line is "
                f"that long: check that the file is what you meant")
    if "does not support a full read" in text:
        return ("a line is too long for DuckDB's reader (lines must be shorter than 2,000,000 bytes); no judgment or "
                "result line is that long: check that the file is what you meant")
    if "Invalid unicode" in text and line:
        return (f"line {line.group(1)} is not UTF-8 text (a Latin-1 or other byte?); sqlrank reads UTF-8: convert the "
                f"file, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8")
    if "failed to offload" in text or "max_temp_directory_size" in text or "No space left on device" in text:
        reason += ("; the spill space is full (the disk, or DuckDB's max_temp_directory_size): free space, point "
                   "--temp-directory (temp_directory=) at a larger disk, or use --slices N so that each step "
                   "holds less")
    elif "Out of Memory" in reason or type(exc).__name__ == "OutOfMemoryException":
        reason += ("; raise the limit (--memory-limit, memory_limit=), use fewer threads (--threads), or evaluate "
                   "the queries in slices (--slices N, slices=; or more of them) so that each statement holds less; "
                   "DuckDB spills what it can to --temp-directory")
    return reason
