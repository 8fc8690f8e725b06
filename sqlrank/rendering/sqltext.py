"""SQL text: the Jinja environment over sql/, rendering a template or calling one of its macros,
named windows written out for dialects without a WINDOW clause, and long lines wrapped."""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2

from ..measures.family import GEOMETRIC_FLOOR
from .dialects import DUCKDB, Dialect, name_key, number_key, number_literal


def sql_dir() -> Path:
    """The templates: ``sqlrank/sql`` inside a wheel, ``sql/`` beside the package in a checkout."""
    here = Path(__file__).resolve().parent.parent  # the package
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "evaluate.sql").is_file():
            return candidate
    raise RuntimeError(f"sqlrank's SQL templates are missing (looked in {here / 'sql'} and {here.parent / 'sql'})")


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder, so that start-up does not recompile them.
    Compiled code is run when loaded: the folder (and sqlrank's folder above it) is used only when it
    is the user's own and no one else may write into it; otherwise nothing is cached."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "sqlrank", "jinja-unfolded")  # compiled without constant folding (environment)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if all(_private(path) for path in (os.path.dirname(folder), folder)) and os.access(folder, os.W_OK):
            return jinja2.FileSystemBytecodeCache(folder)
    except OSError:
        pass
    return None


def _private(path: str) -> bool:
    """A real folder (no link) owned by this user that neither group nor others may write."""
    info = os.lstat(path)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


@dataclass(frozen=True)
class Column:
    """A column a measure's template adds to a step of the statement: its name and its expression."""

    name: str
    expr: str

    def __str__(self) -> str:
        return f"{self.expr} AS {self.name}"


# How column() marks what it names inside a macro's text: start, end of the name, end of the expression.
_START, _NAMED, _END = "\x1e", "\x1f", "\x1d"
_COLUMN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def column(name: str, caller) -> str:
    """The templates' global that names a step's column: {% call column(name) %}expression{% endcall %}."""
    return f"{_START}{name}{_NAMED}{caller()}{_END}"


def step_columns(text: str, where: str) -> list[Column]:
    """The columns a step macro named with column(), in order; anything else it wrote is an error
    (``where``: the template and the step, for the message)."""
    head, *marked = text.split(_START)
    found = []
    for part in marked:
        name, _, rest = part.partition(_NAMED)
        expr, _, after = rest.partition(_END)
        if not _COLUMN_NAME.fullmatch(name) or after.strip():
            raise RuntimeError(f"{where}: a step column needs a plain lower-case name and nothing after it, not "
                               f"{name!r} ... {after.strip()[:40]!r}")
        found.append(Column(name, expr.strip()))
    if head.strip():
        raise RuntimeError(f"{where}: writes SQL outside column(): {head.strip()[:60]!r}; name each column with "
                           f"{{% call column(name) %}}expression{{% endcall %}}")
    return found


@lru_cache(maxsize=None)
def environment(dialect: Dialect) -> jinja2.Environment:
    """The templates of sql/ rendered for one dialect: its quoting in the filters ``ident`` and
    ``literal``, its type names in the globals DOUBLE, FLOAT, INTEGER, its name in ``dialect_name()``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(sql_dir())),
        bytecode_cache=_bytecode_cache(),
        auto_reload=False,  # the templates are the installed package's: not looked at again once loaded
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        # no constant folding: a filter on a constant ('sample' | ident) would be applied once, when the template is
        # compiled for the first dialect, and its compiled code is shared by every dialect's environment
        optimized=False,
    )
    env.filters["ident"] = dialect.ident
    env.filters["literal"] = dialect.literal
    env.filters["number"] = number_literal
    env.filters["key"] = number_key
    env.filters["name_key"] = name_key
    env.globals["dialect_name"] = lambda: dialect.kind  # a variant speaks its family's SQL
    env.globals["dialect_variant"] = lambda: dialect.name
    env.globals["column"] = column
    env.globals.update(dialect.types)
    env.globals["GEOMETRIC_FLOOR"] = format(GEOMETRIC_FLOOR, "f").rstrip("0")  # 0.00001
    return env


def render_template(dialect: Dialect, name: str, **context: object) -> str:
    return environment(dialect).get_template(name).render(**context).strip() + "\n"


def call_macro(dialect: Dialect, template: str, macro: str, *args: object) -> str:
    """Call one macro of a template from Python; an absent macro renders as nothing."""
    module = environment(dialect).get_template(template).module
    fn = getattr(module, macro, None)
    return "" if fn is None else str(fn(*args))


WIDTH = 140  # rendered lines are wrapped beyond this (and never reach 160 characters)


_WINDOW = re.compile(r"\n(\s*)WINDOW ")
_CTE = re.compile(r"^([a-z_0-9]+) AS (?:(?:NOT )?MATERIALIZED )?\($", re.M)  # a step of a statement (a CTE)


def step_names(text: str) -> set[str]:
    """The names of a rendered statement's steps (its CTEs, each opened at the start of a line)."""
    return set(_CTE.findall(text))


def inline_windows(text: str) -> str:
    """Named windows written out where they are used (Snowflake has no WINDOW clause): each
    ``WINDOW name AS (definition), ...`` clause is removed and ``OVER name`` in the same CTE (the
    text since the CTE's first line) becomes ``OVER (definition)``."""
    while True:
        match = _WINDOW.search(text)
        if match is None:
            return text
        definitions, end = {}, match.end()
        while True:
            name_end = text.index(" AS (", end)
            name = text[end:name_end].strip()
            depth, i = 0, name_end + 4
            while True:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
            definitions[name] = " ".join(text[name_end + 4:i].split())
            rest = text[i:]
            if not rest.lstrip(" ").startswith(","):
                break
            end = i + len(rest) - len(rest.lstrip(" ")) + 1
            end += len(text[end:]) - len(text[end:].lstrip())
        start = max((m.start() for m in _CTE.finditer(text, 0, match.start())), default=0)
        body = text[start:match.start()]
        for name, definition in definitions.items():
            unframed = re.sub(r" ROWS BETWEEN .*? CURRENT ROW", "", definition)  # ranking functions take no frame
            body = re.sub(rf"\b(ROW_NUMBER\(\)|RANK\(\)) OVER {re.escape(name)}\b", rf"\1 OVER {unframed}", body)
            body = re.sub(rf"\bOVER {re.escape(name)}\b", f"OVER {definition}", body)
        text = text[:start] + body + text[i:]


_TOKEN = re.compile(r"""(?:'[^']*'|"[^"]*"|`[^`]*`|[^\s'"`])+""")  # a word, its quoted strings whole
_WHOLE = re.compile(rf"\s*(?:{_TOKEN.pattern}(?:\s+{_TOKEN.pattern})*)?\s*")  # no backtracking: words apart
_BREAK_BEFORE = {"WHEN", "ELSE", "END", "AND", "OR", "THEN", "+", "-", "*", "/"}


def wrap_sql(text: str, width: int = WIDTH) -> str:
    """Lines longer than ``width`` broken at spaces outside quotes, preferably before WHEN, ELSE,
    AND, OR and arithmetic operators, continued four spaces further in; comment lines stay
    comments. A line that starts or ends inside a quoted string is left as it is."""
    out, quote = [], None
    for line in text.split("\n"):
        if quote is None and "--" not in line and _WHOLE.fullmatch(line):  # no comment, every quote closed
            out.append(line if len(line) <= width else _wrap(line, _TOKEN.findall(line), width))
            continue
        words, end = _words(line, quote)
        out.append(line if words is None or len(line) <= width else _wrap(line, words, width))
        quote = end
    return "\n".join(out)


def _words(line: str, quote: str | None) -> tuple[list[str] | None, str | None]:
    """The line's words (quoted strings whole), or None when it starts or ends inside quotes;
    and the quote open at its end."""
    words, current, i = ([] if quote is None else None), "", 0
    while i < len(line):
        ch = line[i]
        if quote is None and ch == "-" and line.startswith("--", i):
            if words is not None:  # a comment line wraps as a comment; a trailing comment stays whole
                comment = line[i:].split() if not (words or current) else [line[i:].strip()]
                words += ([current] if current else []) + comment
            return words, None
        if quote is not None:
            current += ch
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote, current = ch, current + ch
        elif ch.isspace():
            if current and words is not None:
                words.append(current)
            current = ""
        else:
            current += ch
        i += 1
    if quote is not None:
        return None, quote
    if words is not None and current:
        words.append(current)
    return words, None


def _wrap(line: str, words: list[str], width: int) -> str:
    """The line broken between words: where the next word would pass ``width``, at the break point of
    least nesting (parentheses, brackets, braces) in the last two thirds of the line so far, the latest
    of those: before WHEN, ELSE, AND, OR, an operator (_BREAK_BEFORE) or AS, or after a comma."""
    indent = line[:len(line) - len(line.lstrip())]
    comment = words[0].startswith("--")
    prefix = indent + ("--   " if comment else "    ")
    depths, depth = [], 0  # each word's nesting where it starts
    for word in words:
        depths.append(depth)
        depth += _nesting(word)
    lines, start = [], 0  # the line being filled holds words[start:at]
    for at in range(len(words)):
        head = indent if not lines else prefix
        if at > start and len(head) + len(" ".join(words[start:at + 1])) > width:
            cut = _break(words, depths, start, at) or at - start
            cut -= cut > 1 and words[start + cut - 1] == "AS"  # keep AS with its name
            lines.append(head + " ".join(words[start:start + cut]))
            start += cut
    lines.append((indent if not lines else prefix) + " ".join(words[start:]))
    return "\n".join(lines)


def _break(words: list[str], depths: list[int], start: int, end: int) -> int | None:
    """Where to break words[start:end] (an index into it): of the break points past its first third, the
    one of least nesting, the latest of those; None where there is none."""
    best = None
    for at in range(start + (end - start) // 3 + 1, end):
        if words[at] in _BREAK_BEFORE or words[at] == "AS" or words[at - 1].endswith(","):
            if best is None or depths[at] <= depths[best]:
                best = at
    return None if best is None else best - start


def _nesting(word: str) -> int:
    """How much deeper a word leaves the nesting: its opening parentheses, brackets and braces outside
    quotes, less its closing ones."""
    depth, quote = 0, None
    for ch in word:
        if quote is not None:
            quote = None if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth


def render_segments(reader: str, by: str, id_column: str) -> str:
    """Rows of (query_id, segment) from a query table's columns ``id_column`` and ``by`` (validated
    column names)."""
    return call_macro(DUCKDB, "_macros/query_set.sql", "segments", reader, by, id_column).strip()


def render_listed(reader: str, id_column: str) -> str:
    """The distinct query ids of a query table's column ``id_column`` (a validated column name), as text."""
    return call_macro(DUCKDB, "_macros/query_set.sql", "listed", reader, id_column).strip()


def render_slice(source_sql: str, slices: int, index: int) -> str:
    """One slice of an input: the rows whose query falls in slice ``index`` of ``slices`` (a
    hash of the query id, so each query and all its rows land in the same slice on both sides)."""
    return call_macro(DUCKDB, "_macros/query_set.sql", "slice", source_sql, int(slices), int(index)).strip()


# inputs filled in after rendering, and the run's checks (a statement that reads them)
STAND_INS = ("__sqlrank_qrels__", "__sqlrank_run__", "__sqlrank_listed__", "__sqlrank_checks__")


def fill_in(text: str, inputs: dict[str, str]) -> str:
    """A statement rendered with stand-ins (STAND_INS) for its inputs' SQL, with each input's SQL in its
    place, its lines indented as the stand-in's line is (as Jinja's indent filter puts them)."""
    lines = []
    for line in text.split("\n"):
        for mark, sql in inputs.items():
            if mark in line:
                pad = line[:len(line) - len(line.lstrip())]
                first, *rest = sql.split("\n")
                line = line.replace(mark, "\n".join([first] + [pad + more if more else more for more in rest]))
        lines.append(line)
    return "\n".join(lines)
