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


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder, so that start-up does not recompile them."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "sqlrank", "jinja")
    try:
        os.makedirs(folder, exist_ok=True)
        if os.access(folder, os.W_OK):
            return jinja2.FileSystemBytecodeCache(folder)
    except OSError:
        pass
    return None


@lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(sql_dir())),
        bytecode_cache=_bytecode_cache(),
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
             "position", "measure", "value", "point"}
_STANDARD_BLOCKS = ("judged", "ranked", "running", "retrieved", "judgments", "join")
# Blocks that are CTEs of their own: the template and macro that render them, and the CTE name.
_FAMILY_CTES = {
    "iprec": ("measures/iprec.sql", "cte_iprec", "iprec_{}"),
    "graded": ("measures/ndcg_variants.sql", "cte_graded", "graded{}"),
    "rndcg": ("measures/ndcg_variants.sql", "cte_rndcg", "rndcg{}"),
}
_PART = re.compile(r"^\[([a-z_]+)(?::([A-Za-z0-9_]*))?\]\s+(.*)$")
_GAIN_FAMILIES_WITH_DETAIL = {"nDCG_rel", "Rndcg", "G"}


def measure_context(measure, column: str, gain_sfx: str, version: int) -> dict:
    """What a family template needs to know of one (resolved) measure."""
    spec = measure.spec
    context = {
        "family": measure.family,
        "level": measure.relevance_level,
        "cutoff": measure.cutoff,
        "cut_key": re.sub(r"[^0-9]", "_", str(measure.cutoff)),
        "column": column,
        "name": str(measure),
        "aggregate": spec.aggregate,
        "version": version,
    }
    for name in spec.params:
        if name != "rel":
            context[name] = measure.param(name)
    if "gain" in spec.params:
        mapping = measure.param("gain")
        context["gain"] = {"sfx": gain_sfx, "map": list(mapping) if mapping else None}
    template = f"measures/{spec.template}.sql"
    parts = call_macro(template, f"{measure.family}_parts", context)
    context["parts"] = []
    for line in parts.splitlines():
        if line.strip():
            match = _PART.match(line.strip())
            if not match:
                raise RuntimeError(f"{template}: {measure.family}_parts gave a line without a [block]: {line!r}")
            context["parts"].append(match.groups())
    context["value"] = " ".join(call_macro(template, f"{measure.family}_value", context).split())
    if not context["value"]:
        raise RuntimeError(f"template {template} has no macro {measure.family}_value")
    return context


def render_evaluation(qrels_sql: str, run_sql: str, measures: list, conventions, output: str,
                      relstring_length: int = 10) -> str:
    """The one SQL statement of an evaluation. ``measures`` are resolved Measure objects;
    ``output`` is "per_query", "summary", "both", or "relstring" (trec_eval's relstring of the
    top ``relstring_length`` documents of each query; ``measures`` is then empty)."""
    from . import __version__

    if output not in ("per_query", "summary", "both", "relstring"):
        raise ValueError(output)
    gain_sfx: dict = {}
    contexts, columns = [], set()
    for measure in measures:
        column = column_name(str(measure), columns)
        columns.add(column)
        sfx = ""
        if "gain" in measure.spec.params and measure.param("gain"):
            sfx = gain_sfx.setdefault(measure.param("gain"), f"_g{len(gain_sfx) + 1}")
        contexts.append(measure_context(measure, column, sfx, conventions.trec_eval_version))

    blocks: dict[tuple, list[str]] = {}
    for context in contexts:
        for kind, arg, line in context["parts"]:
            lines = blocks.setdefault((kind, arg or ""), [])
            if line not in lines:
                lines.append(line)
    gain_specs = [{"sfx": "", "map": None}] + [{"sfx": sfx, "map": list(mapping)} for mapping, sfx in gain_sfx.items()]
    for spec in gain_specs:
        spec["ideal_columns"] = blocks.get(("ideal", spec["sfx"]), [])
        spec["detail"] = any(c["family"] in _GAIN_FAMILIES_WITH_DETAIL and c["gain"]["sfx"] == spec["sfx"]
                             for c in contexts)
    extra_ctes = []
    for (kind, arg), lines in blocks.items():
        if kind in _FAMILY_CTES:
            template, macro, name = _FAMILY_CTES[kind]
            argument = int(arg) if kind == "iprec" else arg
            sql = call_macro(template, macro, argument, lines).strip()
            extra_ctes.append({"name": name.format(arg), "sql": sql})
        elif kind not in _STANDARD_BLOCKS and kind != "ideal":
            raise RuntimeError(f"unknown block [{kind}] in a measure template")
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
        score_order="CAST(score AS FLOAT)" if conventions.trec_eval_version == 9 else "score",
        judged_columns=blocks.get(("judged", ""), []),
        ranked_columns=blocks.get(("ranked", ""), []),
        running_columns=blocks.get(("running", ""), []),
        retrieved_columns=blocks.get(("retrieved", ""), []),
        judgment_columns=blocks.get(("judgments", ""), []),
        rows_need_judgments=bool(blocks.get(("join", ""))),
        gain_specs=gain_specs,
        extra_ctes=extra_ctes,
        measures=contexts,
        output=output,
        relstring_length=relstring_length,
    )


def column_name(name: str, taken: set) -> str:
    """A plain SQL column name for a measure: ``nDCG@10`` -> ``ndcg_at_10``."""
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower().replace("@", "_at_")).strip("_") or "measure"
    if slug in _RESERVED or slug[0].isdigit():
        slug += "_value"
    slug = slug[:60]
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}_{n}", n + 1
    return candidate
