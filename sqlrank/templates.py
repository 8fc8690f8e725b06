"""Render SQL from the templates in sql/. Python decides; templates only fill in SQL.

Only three kinds of values reach a template: identifiers (through ``ident``), string
literals such as file paths (through ``literal``), and numbers Python has validated
(through ``number``). Everything else is fixed template text.
"""
from __future__ import annotations

import math
import re
import os
from functools import lru_cache
from pathlib import Path

import jinja2


def sql_dir() -> Path:
    """The templates: ``sqlrank/sql`` inside a wheel, ``sql/`` beside the package in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "evaluate.sql").is_file():
            return candidate
    raise RuntimeError(f"sqlrank's SQL templates are missing (looked in {here / 'sql'} and {here.parent / 'sql'})")


def quote_ident(name: str, quote: str = '"') -> str:
    """A quoted SQL identifier; the quote character is doubled inside."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"invalid identifier {name!r}")
    return quote + name.replace(quote, quote * 2) + quote


def quote_literal(value: str) -> str:
    """A SQL string literal; single quotes are doubled (no backslash escapes in standard SQL)."""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"not a string: {value!r}")
    text = os.fspath(value)
    if "\x00" in text:
        raise ValueError("a string literal cannot hold a NUL character")
    return "'" + text.replace("'", "''") + "'"


def number_literal(value: object) -> str:
    """A validated finite int or float, printed so that it reads back exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return str(value) if isinstance(value, int) else repr(value)


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(sql_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["ident"] = quote_ident
    env.filters["literal"] = quote_literal
    env.filters["number"] = number_literal
    return env


def render_template(name: str, **context: object) -> str:
    return environment().get_template(name).render(**context).strip() + "\n"


def call_macro(template: str, macro: str, *args: object) -> str:
    """Call one macro of a template from Python; an absent macro renders as nothing."""
    module = environment().get_template(template).module
    fn = getattr(module, macro, None)
    return "" if fn is None else str(fn(*args))


# ------------------------------------------------------------ the evaluation statement

_RESERVED = {"dcg", "cg", "ideal_dcg", "num_ret", "rank", "gain", "score", "relevance", "query_id", "doc_id",
             "position", "measure", "value"}
_BLOCKS = ("judged", "ranked", "retrieved", "judgments", "ideal")


def measure_context(measure, column: str) -> dict:
    """What a family template needs to know of one (resolved) measure."""
    spec = measure.spec
    context = {
        "family": measure.family,
        "level": measure.relevance_level,
        "cutoff": measure.cutoff,
        "column": column,
        "name": str(measure),
        "aggregate": spec.aggregate,
    }
    template = f"measures/{spec.template}.sql"
    for block in _BLOCKS:
        context[block] = _lines(call_macro(template, f"{measure.family}_{block}", context))
    context["value"] = " ".join(call_macro(template, f"{measure.family}_value", context).split())
    if not context["value"]:
        raise RuntimeError(f"template {template} has no macro {measure.family}_value")
    return context


def render_evaluation(qrels_sql: str, run_sql: str, measures: list, conventions, per_query: bool) -> str:
    """The one SQL statement of an evaluation. ``measures`` are resolved Measure objects."""
    from . import __version__

    contexts, columns = [], set()
    for measure in measures:
        column = column_name(str(measure), columns)
        columns.add(column)
        contexts.append(measure_context(measure, column))
    blocks = {block: _unique(line for c in contexts for line in c[block]) for block in _BLOCKS}
    return render_template(
        "evaluate.sql",
        version=__version__,
        measure_names=[c["name"] for c in contexts],
        conventions=conventions.describe(),
        qrels_sql=qrels_sql,
        run_sql=run_sql,
        missing_queries=conventions.missing_queries,
        judged_only=conventions.judged_only,
        depth=conventions.depth,
        judged_columns=blocks["judged"],
        ranked_columns=blocks["ranked"],
        retrieved_columns=blocks["retrieved"],
        judgment_columns=blocks["judgments"],
        ideal_columns=blocks["ideal"],
        rows_need_judgments=any(m.spec.rows_need_num_rel for m in measures),
        measures=contexts,
        per_query=per_query,
    )


def column_name(name: str, taken: set) -> str:
    """A plain SQL column name for a measure: ``nDCG@10`` -> ``ndcg_at_10``."""
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower().replace("@", "_at_")).strip("_") or "measure"
    if slug in _RESERVED or slug[0].isdigit():
        slug += "_value"
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}_{n}", n + 1
    return candidate


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _unique(lines) -> list[str]:
    seen: dict[str, None] = {}
    for line in lines:
        seen.setdefault(line, None)
    return list(seen)
