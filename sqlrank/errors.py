"""Errors that reach users. Each message says what is wrong, where, and what to do."""
import re

LABEL_LIMIT = 999_999_999  # the largest label, either way: labels are 32-bit integers in every engine


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


def require_tolerance(tolerance: object) -> float:
    """A tolerance (|a - b| <= it counts as equal): a finite number of at least 0, the same rule everywhere."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < float("inf"):
        raise OptionError(f"tolerance {tolerance!r} must be a number of at least 0")
    return float(tolerance)


class SqlrankWarning(UserWarning):
    """Something that does not stop an evaluation but may change how to read it."""


def duckdb_reason(exc: BaseException, spill: bool = True) -> str:
    """DuckDB's first line, with what to do when the machine, not the input, is the limit (SPILL: the
    command has --temp-directory and --slices to suggest). A spill folder DuckDB cannot make is raised
    as an OptionError of its own: the input being read when it happened is not at fault."""
    text = str(exc).strip()
    reason = text.splitlines()[0] if text else type(exc).__name__
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if "Maximum line size" in text and line:
        return (f"line {line.group(1)} is longer than DuckDB's limit of 2,000,000 bytes; no judgment or result line is "
                f"that long: check that the file is what you meant")
    if "does not support a full read" in text:
        return ("a line is too long for DuckDB's reader (lines must be shorter than 2,000,000 bytes); no judgment or "
                "result line is that long: check that the file is what you meant")
    if "Expected Number of Columns: 1 Found:" in text and "delimiter = \\0" in text and line:
        return (f"line {line.group(1)} holds a NUL byte (\\0), which no judgment or result line has: check that the "
                f"file is the text you meant, and remove the byte")
    if "Invalid unicode" in text and line:
        return (f"line {line.group(1)} is not UTF-8 text (a Latin-1 or other byte?); sqlrank reads UTF-8: convert the "
                f"file, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8")
    folder = re.search(r'Failed to create directory "([^"]*)"', text)
    if folder and spill:  # the machine, not the input: an error of its own, whatever was being read
        why = reason.rsplit(": ", 1)[-1]
        raise OptionError(f"DuckDB could not make its spill folder {folder.group(1)!r} ({why}): past the memory "
                          f"limit it writes to disk, by default in .tmp of the working folder; give --temp-directory "
                          f"DIR (temp_directory=) with a folder you may write, or raise --memory-limit") from None
    full = "failed to offload" in text or "max_temp_directory_size" in text or "No space left on device" in text
    if full and not spill:
        reason += "; the disk is full: free space and run it again"
    elif full:
        reason += ("; the spill space is full (the disk, or DuckDB's max_temp_directory_size): free space, point "
                   "--temp-directory (temp_directory=) at a larger disk, or use --slices N so that each step "
                   "holds less")
    elif "Out of Memory" in reason or type(exc).__name__ == "OutOfMemoryException":
        reason += ("; raise the limit (--memory-limit, memory_limit=), use fewer threads (--threads), or evaluate "
                   "the queries in slices (--slices N, slices=; or more of them) so that each statement holds less; "
                   "DuckDB spills what it can to --temp-directory")
    return reason
