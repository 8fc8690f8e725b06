"""SQL dialects: what each engine spells differently (quotes, string escapes, type names, the
ordering of -0.0, byte-order comparison of ids) and what it cannot compute. One frozen ``Dialect``
per engine, passed to rendering explicitly: ``DIALECTS["postgres"].ident("doc id")``."""
from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from typing import Mapping

from ..errors import MeasureError

_FOLDED = re.compile(r"[a-z_][a-z0-9_$]*")  # a name an upper-case folding dialect reads unquoted as its upper case
_NO_LGAMMA = "has no LGAMMA for the closed form over tie orders"
_STANDARD_RECURSION = "which the SQL standard leaves out of a recursive step and {} is not run here to show it allows"


@dataclass(frozen=True)
class Dialect:
    """One SQL dialect. ``types``: its spellings of the templates' globals DOUBLE, FLOAT, INTEGER.
    ``quote``: the identifier quote. ``escaping_literals``/``escaping_identifiers``: it reads
    backslash escapes in string literals (and in quoted identifiers); the others read a backslash as
    itself. ``signed_zero``: its ORDER BY and PARTITION BY keep -0.0 apart from 0.0 (a total order
    of floats, as Arrow's kernels use), or it is not run here to show otherwise. ``printed_only``:
    sqlrank prints its statements but runs none (no engine in this process or a test's reach).
    ``float32``: it has a 32-bit float type (trec_eval_version=9 ranks 32-bit scores).
    ``unsupported``: (family, tie_break) pairs it cannot compute, with the reason. ``family``: the dialect
    it is a variant of, whose SQL it takes but where the templates ask for the variant (Databricks is Spark
    SQL; Redshift speaks PostgreSQL's with less). ``named_windows``: it has the WINDOW clause (else the
    windows are written out where they are used)."""

    name: str
    types: Mapping[str, str]
    quote: str = '"'
    escaping_literals: bool = False
    escaping_identifiers: bool = False
    signed_zero: bool = False
    printed_only: bool = False
    float32: bool = True
    unsupported: Mapping[tuple[str, str], str] = field(default_factory=dict)
    family: str | None = None
    named_windows: bool = True
    upper_case: bool = False
    recursion: str = ""  # why it cannot run the diversity measures' recursive step (window functions in it), if so
    expression_subqueries: str = ""  # why it cannot plan a subquery inside an expression (Judged(source=)), if so
    nan_as_null: bool = False

    def refusal(self, measure) -> str | None:
        """Why this dialect cannot compute ``measure`` (a resolved Measure), or None."""
        if measure.spec.intent_aware and self.recursion:
            return f"its ideal ranking is a recursive step with window functions, {self.recursion}"
        if measure.family == "Judged" and measure.param("source") and self.expression_subqueries:
            return f"counting one source's judgments is a subquery inside an expression, {self.expression_subqueries}"
        return self.unsupported.get((measure.family, measure.param("tie_break")))

    def check(self, measure) -> None:
        """A measure this dialect cannot compute is an error that says why."""
        reason = self.refusal(measure)
        if reason:
            raise MeasureError(f"{measure} cannot be computed in {self}: {reason}; evaluate it on DuckDB")

    @property
    def kind(self) -> str:
        """The dialect whose SQL this one speaks: its family, or itself."""
        return self.family or self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dialect) and other.name == self.name

    def __str__(self) -> str:
        return self.name

    def type(self, name: str) -> str:
        """DOUBLE, FLOAT or INTEGER as this dialect spells it."""
        return self.types[name]

    def ident(self, name: str, quote: str | None = None) -> str:
        """A quoted SQL identifier: the quote is doubled inside, or escaped with a backslash where the
        dialect reads backslash escapes there."""
        if not isinstance(name, str) or not name or "\x00" in name:
            raise ValueError(f"invalid identifier {name!r}")
        quote = quote or self.quote
        if self.upper_case and _FOLDED.fullmatch(name):
            name = name.upper()
        if self.escaping_identifiers:
            return quote + name.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote
        return quote + name.replace(quote, quote * 2) + quote

    def literal(self, value: str | os.PathLike) -> str:
        """A SQL string literal. Standard SQL (DuckDB) doubles single quotes and has no backslash
        escapes; where the dialect reads backslash escapes, both are escaped with a backslash. A line end
        is never written as it is (the statement's indentation would enter the string): chr(10) and
        chr(13) joined in, or the escapes \\n and \\r."""
        if not isinstance(value, (str, os.PathLike)):
            raise ValueError(f"not a string: {value!r}")
        text = os.fspath(value)
        if "\x00" in text:
            raise ValueError("a string literal cannot hold a NUL character")
        if self.escaping_literals:
            escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
            return "'" + escaped + "'"
        quoted = "'" + text.replace("'", "''") + "'"
        # a line end inside a literal would take the statement's indentation into the string: spelled as chr()
        return quoted.replace("\n", "' || chr(10) || '").replace("\r", "' || chr(13) || '")

    def score(self, trec_eval_version: int) -> str:
        """The score as ranked: trec_eval 9 (and pytrec_eval) compare 32-bit floats, and C's (float) cast
        turns a double at or beyond FLT_MAX + half an ulp into infinity where SQL's CAST fails; -0.0 is
        0.0 where the dialect orders them apart (``signed_zero``)."""
        score = "score"
        if trec_eval_version == 9:
            if not self.float32:
                raise MeasureError(f"trec_eval_version=9 ranks 32-bit float scores; {self.name} has no 32-bit "
                                   f"float type")
            real = self.types["FLOAT"]
            score = (f"CASE WHEN score >= 3.4028235677973366e38 THEN CAST('inf' AS {real}) "
                     f"WHEN score <= -3.4028235677973366e38 THEN CAST('-inf' AS {real}) ELSE CAST(score AS {real}) END")
        if self.signed_zero:
            return f"CASE WHEN score = 0 THEN 0 ELSE {score} END"
        return score

    def ranking_order(self, tie_break: str, score: str) -> str:
        """The ORDER BY of a ranking under a tie-break convention. Ids compare as bytes, as trec_eval's
        strcmp (PostgreSQL's text order follows the database's collation unless told COLLATE "C")."""
        doc_id = 'doc_id COLLATE "C"' if self.name == "postgres" else "doc_id"
        return {
            "trec_eval": f"{score} DESC NULLS LAST, {doc_id} DESC",
            "expected": f"{score} DESC NULLS LAST, {doc_id} DESC",
            "block": f"{score} DESC NULLS LAST, {doc_id} DESC",
            "doc_id_asc": f"{score} DESC NULLS LAST, {doc_id} ASC",
            "input_rank": f"input_rank ASC NULLS LAST, {doc_id} DESC",
        }[tie_break]


_STANDARD = {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"}
DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("duckdb", _STANDARD),
    Dialect("spark", _STANDARD, quote="`", escaping_literals=True, signed_zero=True,
            recursion="which Spark does not allow on a recursive reference"),
    Dialect("postgres", {"DOUBLE": "DOUBLE PRECISION", "FLOAT": "REAL", "INTEGER": "INTEGER"}),
    Dialect("datafusion", _STANDARD, signed_zero=True,
            unsupported={("RR", "expected"): f"DataFusion {_NO_LGAMMA}", ("Success", "expected"): f"DataFusion {_NO_LGAMMA}"},
            expression_subqueries="which DataFusion does not plan"),
    Dialect("clickhouse", {"DOUBLE": "Float64", "FLOAT": "Float32", "INTEGER": "Int32"},
            escaping_literals=True, escaping_identifiers=True),
    Dialect("sqlite", {"DOUBLE": "REAL", "FLOAT": "REAL", "INTEGER": "INTEGER"}, float32=False,
            recursion="which SQLite does not allow in recursion", nan_as_null=True),
    Dialect("trino", {"DOUBLE": "DOUBLE", "FLOAT": "REAL", "INTEGER": "INTEGER"}, signed_zero=True, printed_only=True,
            recursion=_STANDARD_RECURSION.format("Trino")),
    Dialect("bigquery", {"DOUBLE": "FLOAT64", "FLOAT": "FLOAT32", "INTEGER": "INT64"}, quote="`",
            escaping_literals=True, escaping_identifiers=True, signed_zero=True, printed_only=True, float32=False,
            recursion=_STANDARD_RECURSION.format("BigQuery")),
    Dialect("snowflake", {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT32", "INTEGER": "INTEGER"}, escaping_literals=True,
            signed_zero=True, printed_only=True, float32=False, named_windows=False, upper_case=True,
            unsupported={("RR", "expected"): f"Snowflake {_NO_LGAMMA}", ("Success", "expected"): f"Snowflake {_NO_LGAMMA}"},
            recursion=_STANDARD_RECURSION.format("Snowflake")),
    Dialect("redshift", {"DOUBLE": "DOUBLE PRECISION", "FLOAT": "REAL", "INTEGER": "INTEGER"}, escaping_literals=True,
            signed_zero=True, printed_only=True, family="postgres", named_windows=False,
            unsupported={("RR", "expected"): f"Redshift {_NO_LGAMMA}", ("Success", "expected"): f"Redshift {_NO_LGAMMA}"},
            recursion=_STANDARD_RECURSION.format("Redshift")),
    Dialect("databricks", _STANDARD, quote="`", escaping_literals=True, signed_zero=True, printed_only=True,
            family="spark", recursion="which Spark SQL does not allow on a recursive reference"),
)}
DUCKDB = DIALECTS["duckdb"]


def number_literal(value: object) -> str:
    """A validated finite int or float, printed so that it reads back exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return str(value) if isinstance(value, int) else repr(value)


def name_key(text: str) -> str:
    """Any text (a group's name: News, 'Local news') as part of a column name: itself where it is lower-case
    letters, digits and _, else its plain characters and a hash of the whole (one name per text)."""
    if re.fullmatch(r"[a-z0-9_]+", text):
        return text
    plain = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")[:24]
    return f"{plain}_{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}".lstrip("_")


def number_key(value: object) -> str:
    """A validated number as part of a column name: 2 as 2, 0.5 as 0p5, 1e-05 as 1em05 (one name per number)."""
    return number_literal(value).replace(".", "p").replace("-", "m").replace("+", "")
