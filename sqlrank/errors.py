"""Errors that reach users. Each message says what is wrong, where, and what to do."""


class SqlrankError(Exception):
    """Base class of every error sqlrank raises on purpose."""


class InputError(SqlrankError):
    """A qrels or run input cannot be read or fails validation."""


class MeasureError(SqlrankError):
    """A measure name cannot be parsed or has invalid parameters."""


class ConventionError(SqlrankError):
    """A convention is unknown or has an invalid value."""
