"""Render SQL from the templates in sql/. Python decides; templates only fill in SQL.

Only three kinds of values reach a template: identifiers (through ``ident``), string
literals such as file paths (through ``literal``), and numbers Python has validated
(through ``number``). Everything else is fixed template text.
"""
from __future__ import annotations

import contextvars
import math
import os
import re
import stat
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import jinja2

from .conventions import DEFAULTS, FIELD_NAMES, RANKING_FIELDS
from .errors import MeasureError
from .measures import counted
from .registry import FAMILIES, FAMILY_STEPS, ONE_ROW_STEPS


def sql_dir() -> Path:
    """The templates: ``sqlrank/sql`` inside a wheel, ``sql/`` beside the package in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "evaluate.sql").is_file():
            return candidate
    raise RuntimeError(f"sqlrank's SQL templates are missing (looked in {here / 'sql'} and {here.parent / 'sql'})")


DIALECTS = ("duckdb", "spark", "postgres", "datafusion", "clickhouse", "trino", "bigquery", "snowflake")
# Dialects sqlrank prints but cannot run here (no engine in this process or a test's reach).
PRINTED_ONLY = ("trino", "bigquery", "snowflake")
# The type names each dialect spells differently (the templates' globals DOUBLE, FLOAT, INTEGER).
TYPES = {
    "duckdb": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "spark": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "postgres": {"DOUBLE": "DOUBLE PRECISION", "FLOAT": "REAL", "INTEGER": "INTEGER"},
    "datafusion": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "INTEGER": "INTEGER"},
    "clickhouse": {"DOUBLE": "Float64", "FLOAT": "Float32", "INTEGER": "Int32"},
    "trino": {"DOUBLE": "DOUBLE", "FLOAT": "REAL", "INTEGER": "INTEGER"},
    "bigquery": {"DOUBLE": "FLOAT64", "FLOAT": "FLOAT32", "INTEGER": "INT64"},
    "snowflake": {"DOUBLE": "DOUBLE", "FLOAT": "FLOAT32", "INTEGER": "INTEGER"},
}
# What a dialect cannot compute: (family, tie_break) pairs, with the reason.
UNSUPPORTED = {
    "datafusion": {("RR", "expected"): "DataFusion has no LGAMMA for the closed form over tie orders",
                   ("Success", "expected"): "DataFusion has no LGAMMA for the closed form over tie orders"},
    "snowflake": {("RR", "expected"): "Snowflake has no LGAMMA for the closed form over tie orders",
                  ("Success", "expected"): "Snowflake has no LGAMMA for the closed form over tie orders"},
}
_DIALECT: contextvars.ContextVar[str] = contextvars.ContextVar("sqlrank_dialect", default="duckdb")


@contextmanager
def dialect(name: str) -> Iterator[None]:
    """Render for this SQL dialect inside the block: quoting and the macros of _macros/dialect.sql."""
    if name not in DIALECTS:
        raise ValueError(name)
    token = _DIALECT.set(name)
    try:
        yield
    finally:
        _DIALECT.reset(token)


def current_dialect() -> str:
    return _DIALECT.get()


class _TypeName:
    """A type name rendered in the dialect being rendered: {{ DOUBLE }} is DOUBLE PRECISION in PostgreSQL."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return TYPES[_DIALECT.get()][self.name]


# Dialects that read backslash escapes ('\\', '\n') in string literals, and those that also read them in
# quoted identifiers; the others (DuckDB, PostgreSQL, Trino, DataFusion) read a backslash as itself.
_ESCAPING_LITERALS = ("spark", "bigquery", "snowflake", "clickhouse")
_ESCAPING_IDENTIFIERS = ("bigquery", "clickhouse")


def quote_ident(name: str, quote: str | None = None) -> str:
    """A quoted SQL identifier (double quotes; backticks in Spark SQL and BigQuery): the quote is
    doubled inside, or escaped with a backslash where the dialect reads backslash escapes there."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"invalid identifier {name!r}")
    quote = quote or ("`" if _DIALECT.get() in ("spark", "bigquery") else '"')  # the others: double quotes
    if _DIALECT.get() in _ESCAPING_IDENTIFIERS:
        return quote + name.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote
    return quote + name.replace(quote, quote * 2) + quote


def quote_literal(value: str) -> str:
    """A SQL string literal. Standard SQL (DuckDB) doubles single quotes and has no backslash
    escapes; where the dialect reads backslash escapes, both are escaped with a backslash. A line end
    is never written as it is (the statement's indentation would enter the string): chr(10) and
    chr(13) joined in, or the escapes \\n and \\r."""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"not a string: {value!r}")
    text = os.fspath(value)
    if "\x00" in text:
        raise ValueError("a string literal cannot hold a NUL character")
    if _DIALECT.get() in _ESCAPING_LITERALS:
        escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
        return "'" + escaped + "'"
    quoted = "'" + text.replace("'", "''") + "'"
    # a line end inside a literal would take the statement's indentation into the string: spelled as chr()
    return quoted.replace("\n", "' || chr(10) || '").replace("\r", "' || chr(13) || '")


def number_literal(value: object) -> str:
    """A validated finite int or float, printed so that it reads back exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return str(value) if isinstance(value, int) else repr(value)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder, so that start-up does not recompile them.
    Compiled code is run when loaded: the folder (and sqlrank's folder above it) is used only when it
    is the user's own and no one else may write into it; otherwise nothing is cached."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "sqlrank", "jinja")
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
    env.globals["dialect_name"] = current_dialect
    env.globals.update({name: _TypeName(name) for name in TYPES["duckdb"]})
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
             "position", "measure", "value", "point", "queries", "num_queries", "segment", "run_id",
             # the statement's own steps: ClickHouse resolves a column named as a step (Judged's judged) to the step
             "qrels", "run", "judgments", "judged", "ranked", "retrieved", "tie", "running", "ideal", "perfect",
             "per_query", "summary", "evaluated_queries", "numbered_qrels", "run_ranked", "retrieved_counts"}
# A measure template's steps (sql/measures/<family>.sql): each a macro listing its columns, one per line.
#   judgments  per-query aggregates over all judgments      judged   per retrieved document, from its label
#   ranked     windows over the ranking (OVER ranking)       tie      windows over tie groups (OVER tie)
#   running    running sums (OVER running)                   retrieved  per-query aggregates over the ranking
#   ideal      per-query aggregates over the ideal ranking   perfect  over positions 1..k of the perfect ranking
#   interpolated, graded, rndcg: per-query aggregates of the family steps of the same names
# and value, the measure's value from those columns.
STEPS = ("judgments", "judged", "ranked", "tie", "running", "retrieved", "ideal", "perfect", "listed", "ordered",
         "catalog", *FAMILY_STEPS)
OUTPUTS = ("per_query", "summary", "both", "segments", "relstring", "slice", "slices", "slices_summary")
WIDTH = 140  # rendered lines are wrapped beyond this (and never reach 160 characters)


# Dialects whose ORDER BY and PARTITION BY keep -0.0 apart from 0.0 (a total order of floats, as Arrow's
# kernels use), or that are not run here to show otherwise: the ranking key maps -0.0 to 0.0, so that the
# two tie as IEEE equality says and as DuckDB, PostgreSQL, ClickHouse and trec_eval rank them.
SIGNED_ZERO_DIALECTS = ("datafusion", "spark", "trino", "bigquery", "snowflake")


def score_expression(trec_eval_version: int) -> str:
    """The score as ranked: trec_eval 9 (and pytrec_eval) compare 32-bit floats, and C's (float) cast
    turns a double at or beyond FLT_MAX + half an ulp into infinity where SQL's CAST fails; -0.0 is
    0.0 (SIGNED_ZERO_DIALECTS)."""
    score = "score"
    if trec_eval_version == 9:
        if _DIALECT.get() in ("bigquery", "snowflake"):
            raise MeasureError(f"trec_eval_version=9 ranks 32-bit float scores; {_DIALECT.get()} has no 32-bit "
                               f"float type")
        real = TYPES[_DIALECT.get()]["FLOAT"]
        score = (f"CASE WHEN score >= 3.4028235677973366e38 THEN CAST('inf' AS {real}) "
                 f"WHEN score <= -3.4028235677973366e38 THEN CAST('-inf' AS {real}) ELSE CAST(score AS {real}) END")
    if _DIALECT.get() in SIGNED_ZERO_DIALECTS:
        return f"CASE WHEN score = 0 THEN 0 ELSE {score} END"
    return score


def ranking_order(tie_break: str, score: str) -> str:
    """The ORDER BY of a ranking under a tie-break convention. Ids compare as bytes, as trec_eval's
    strcmp (PostgreSQL's text order follows the database's collation unless told COLLATE "C")."""
    doc_id = 'doc_id COLLATE "C"' if _DIALECT.get() == "postgres" else "doc_id"
    return {
        "trec_eval": f"{score} DESC NULLS LAST, {doc_id} DESC",
        "expected": f"{score} DESC NULLS LAST, {doc_id} DESC",
        "doc_id_asc": f"{score} DESC NULLS LAST, {doc_id} ASC",
        "input_rank": f"input_rank ASC NULLS LAST, {doc_id} DESC",
    }[tie_break]


# The column that a one-value step (catalog, pooled) is grouped by, with results per "segment" or per
# "run" (runs stored together).
GROUP_KEYS = {"segment": "segment", "run": "run_id"}


class _Plan:
    """Python decides: which rankings, gains, discounts and ideal rankings the measures need."""

    def __init__(self, conventions, grouped: str | None = None):
        self.score = score_expression(conventions.trec_eval_version)
        self.grouped = grouped  # "segment", "run" (GROUP_KEYS): one-value measures get a row per group
        self.rankings: dict = {}
        self.gains: dict = {}
        self.discounts: dict = {}
        self.ideals: dict = {}
        self.sparse: dict = {}  # ranking key -> whether it is a ranking of judged documents only
        self.least_label: dict = {}  # ranking key -> the lowest judgment label its join keeps (None: all)

    def ranking(self, tie_break: str, judged_only: bool, depth, nonpositive_scores: str = "rank") -> dict:
        key = (tie_break, judged_only, depth, nonpositive_scores)
        if key not in self.rankings:
            sfx = "" if not self.rankings else f"_r{len(self.rankings)}"
            self.rankings[key] = {
                "sfx": sfx, "order": ranking_order(tie_break, self.score), "tie_key": self.score,
                "expected": tie_break == "expected", "input_rank": tie_break == "input_rank",
                "judged_only": judged_only, "depth": depth, "nonpositive_nonrelevant": nonpositive_scores == "nonrelevant",
                "judged": [], "ranked": [], "outer": [],
                "running": False, "ties": False, "retrieved": [], "join_judgments": False, "ctes": [],
                "measures": [], "step_columns": {}, "popularity": False, "listed": [], "ordered": [], "catalog": [],
                "sparse": False, "counts": False, "least_label": None,
            }
        return self.rankings[key]

    def gain(self, value) -> dict:
        if value not in self.gains:
            if value == "linear":
                spec = {"sfx": "", "kind": "linear", "map": None}
            elif value == "exponential":
                spec = {"sfx": "_exp", "kind": "exponential", "map": None}
            else:
                spec = {"sfx": f"_g{sum(1 for g in self.gains if isinstance(g, tuple)) + 1}", "kind": "map",
                        "map": list(value)}
            self.gains[value] = spec
        return self.gains[value]

    def discount(self, kind, base: float) -> dict:
        """A discount: log or jarvelin with its base, or a tuple of (rank, weight) pairs."""
        key = (kind, base)
        if key not in self.discounts:
            mapped = isinstance(kind, tuple)
            self.discounts[key] = {"key": "" if key == ("log", 2.0) else f"_d{len(self.discounts) + 1}",
                                   "kind": "map" if mapped else kind, "base": base,
                                   "map": list(kind) if mapped else None}
        return self.discounts[key]

    def ideal(self, source: str, gain: dict, ranking: str) -> dict:
        name = "ideal" + gain["sfx"] if source == "qrels" else "ideal_run" + gain["sfx"] + ranking
        if name not in self.ideals:
            self.ideals[name] = {"name": name, "source": source, "gain": gain, "ranking": ranking,
                                 "detail": False, "columns": []}
        return self.ideals[name]


def ranking_key(measure) -> tuple:
    """The conventions that decide a measure's ranking (RANKING_FIELDS), in that order."""
    return tuple(measure.param(name) for name in RANKING_FIELDS)


def check_tie_break(measure) -> None:
    """tie_break=expected needs a closed form (the registry's tie_expected) and a single retrieved set."""
    if measure.param("tie_break") != "expected":
        return
    if not measure.spec.tie_expected:
        raise MeasureError(f"tie_break=expected is not available for {measure.family} (no exact mean over "
                           f"the orders of tied documents is implemented); use another tie_break for it")
    if measure.param("depth") is not None:
        raise MeasureError(f"tie_break=expected cannot be combined with depth in {measure}: a depth cut "
                           f"through a tie group has no single retrieved set")
    if measure.family in ("AP", "GMAP") and measure.param("ap_denominator") == "retrieved_relevant" \
            and measure.cutoff is not None:
        raise MeasureError(f"tie_break=expected with ap_denominator=retrieved_relevant and a cutoff ({measure}) "
                           f"would average a ratio of random counts; not implemented")


def measure_context(measure, column: str, plan: _Plan, version: int) -> dict:
    """What a family template needs to know of one (resolved) measure, and its steps' columns."""
    spec = measure.spec
    check_tie_break(measure)
    reason = UNSUPPORTED.get(_DIALECT.get(), {}).get((measure.family, measure.param("tie_break")))
    if reason:
        raise MeasureError(f"{measure} cannot be computed in {_DIALECT.get()}: {reason}; evaluate it on DuckDB")
    key = ranking_key(measure)
    ranking = plan.ranking(*key)
    ranking["sparse"] = plan.sparse.get(key, False)
    ranking["least_label"] = plan.least_label.get(key)
    v = ranking["sfx"]
    context = {
        "family": measure.family,
        "level": measure.relevance_level,
        "cutoff": measure.cutoff,
        "cut_key": re.sub(r"[^0-9]", "_", str(measure.cutoff)),
        "column": column,
        "count_column": None,  # set where the summary counts the queries with a value (render_evaluation)
        "weight_column": None,  # set for a measure averaged with weights (render_evaluation)
        "name": str(measure),
        "aggregate": spec.aggregate,
        "version": version,
        "expected": ranking["expected"],
        "ranking": v,
        "ranked": f"ranked{v}",
        "retrieved": f"retrieved{v}",
        "missing_queries": measure.param("missing_queries"),
        "unjudged_queries": measure.param("unjudged_queries"),
        "sparse": ranking["sparse"],
        "group_key": GROUP_KEYS.get(plan.grouped) if spec.aggregate == "catalog" else None,
    }
    for name in spec.params:
        if name not in context:
            context[name] = measure.param(name)
        elif context[name] != measure.param(name):  # a parameter named like a context key would be ignored
            raise RuntimeError(f"parameter {name} of {measure.family} is named like a key of its template context")
    for name in FIELD_NAMES:  # conventions a family does not take keep trec_eval's value
        context.setdefault(name, getattr(DEFAULTS, name))
    gain = plan.gain(measure.param("gain") if "gain" in spec.params else "linear")
    context["gain"] = gain
    context["disc"] = plan.discount(measure.param("discount") if "discount" in spec.params else "log",
                                    measure.param("log_base") if "log_base" in spec.params else 2.0)
    ideal_kind = measure.param("ideal") if "ideal" in spec.params else "qrels"
    ideal = plan.ideal("run" if ideal_kind == "run" else "qrels", gain, v)
    if "ideal_positions" in spec.reads:
        ideal["detail"] = True
    cut = f"_top_{measure.cutoff}" if measure.cutoff is not None else ""
    context["ideal"] = {"kind": ideal_kind, "spec": ideal["name"],
                        "column": f"{ideal['name']}_dcg{context['disc']['key']}{cut}"}
    cut_name = f"top_{measure.cutoff}" if measure.cutoff is not None else "all"
    context["step_names"] = {"interpolated": f"iprec_{context['level']}{v}", "graded": f"graded{gain['sfx']}{v}",
                             "rndcg": f"rndcg{gain['sfx']}{v}",
                             "similar": f"similar_{context.get('similarity')}_{cut_name}{v}",
                             "pooled": f"pooled_{context['level']}{v}"}  # GlobalAUC has no cutoff
    context["score"] = ranking["tie_key"]  # the score as ranked (32-bit with trec_eval_version=9)
    context["steps"] = {step: [line.strip() for line in call_macro(spec.template, step, context).splitlines()
                               if line.strip()] for step in STEPS}
    context["value"] = " ".join(call_macro(spec.template, "value", context).split())
    if not context["value"]:
        raise RuntimeError(f"template {spec.template} has no macro value")
    if spec.aggregate == "weighted":
        context["weight"] = " ".join(call_macro(spec.template, "weight", context).split())
        if not context["weight"]:
            raise RuntimeError(f"template {spec.template} has no macro weight (its aggregate is weighted)")
    return context


_STEP_COLUMN = re.compile(r" AS ([a-z_0-9]+)$")


def _require_distinct_columns(contexts: list, columns: set) -> None:
    """A step column must not be named as another measure's column: ClickHouse sees a SELECT's aliases
    in its own expressions, so a value reading the step column would read that measure instead (a
    step may compute the measure's own column: Coverage's catalog step)."""
    for context in contexts:
        others = columns - {context["column"]}
        for lines in context["steps"].values():
            for line in lines:
                match = _STEP_COLUMN.search(line)
                if match and match.group(1) in others:
                    raise RuntimeError(f"{FAMILIES[context['family']].template}: step column {match.group(1)} is also "
                                       f"the name of a measure's column; rename the step column")


def _one_row_steps(ranking: dict) -> list[str]:
    """The steps of a ranking that are one row for all queries (a row per group with GROUP_KEYS):
    the catalog step and the family steps of ONE_ROW_STEPS."""
    return (["catalog" + ranking["sfx"]] if ranking["catalog"] else []) + \
        [cte["name"] for cte in ranking["ctes"] if cte["one_row"]]


def _add(lines: list, new: list) -> None:
    lines.extend(line for line in new if line not in lines)


def _sparse(measures: list) -> bool:
    """Whether the measures of one ranking need only its judged documents (with their ranks among
    all retrieved documents, and per-query counts of the retrieved): then unjudged documents are
    ranked and dropped before the running counts and aggregates, which run over about a tenth of
    the rows. Not with judged_only (the ranking is then of judged documents anyway),
    tie_break=expected (tie groups count unjudged documents), nonpositive_scores=nonrelevant
    (labels depend on scores), measures that read every retrieved
    document (the registry's "all_retrieved"), or nDCG's perfect ideal without cutoff (it sums
    the discounts of every retrieved position)."""
    for m in measures:
        spec = FAMILIES[m.family]
        if m.param("judged_only") or m.param("tie_break") == "expected" or "all_retrieved" in spec.reads \
                or m.param("nonpositive_scores") != "rank":
            return False
        ideal = m.param("ideal") if "ideal" in spec.params else "qrels"
        if ideal == "perfect" and m.cutoff is None and m.family in ("nDCG", "IdealDCG"):
            return False
    return True


def least_label(measures: list) -> int | None:
    """The lowest judgment label any of a sparse ranking's measures reads (the registry's labels), or
    None when one reads every judged document (judged non-relevant ones count) or none reads any.
    A label below it adds nothing to any value: it is not relevant at any measure's rel, and its gain
    is 0 (negative labels always; label 0 unless a gain mapping gives it one)."""
    least = None
    for m in measures:
        labels = FAMILIES[m.family].labels
        if labels == "all":
            return None
        if labels == "relevant":
            label = m.relevance_level
        elif labels == "gain":
            gain = m.param("gain")
            label = 0 if isinstance(gain, tuple) and any(lab == 0 and value != 0 for lab, value in gain) else 1
        else:
            continue
        least = label if least is None else min(least, label)
    return least


def _pieces(plan: _Plan, output: str, judgments: bool, perfect: bool, mixed: bool,
            recommender: bool = False) -> list[dict]:
    """The parts of the statement, in order: a file of sql/evaluation/ each, with what it renders."""
    rankings = list(plan.rankings.values())
    if output in ("slices", "slices_summary"):  # the slices' rows are in a table: catalog steps from items' counts
        return ([{"template": "evaluation/recommender_inputs.sql"}] if recommender else []) + \
            [{"template": "evaluation/catalog.sql", "ranking": ranking} for ranking in rankings if ranking["catalog"]] + \
            [{"template": "evaluation/slices.sql"}]
    pieces = [{"template": "evaluation/inputs.sql"}, {"template": "evaluation/evaluated_queries.sql"}]
    if output == "segments":
        pieces.append({"template": "evaluation/query_segments.sql"})
    if recommender:
        pieces.append({"template": "evaluation/recommender_inputs.sql"})
    if mixed:
        pieces.append({"template": "evaluation/answered_queries.sql"})
    if judgments:
        pieces.append({"template": "evaluation/judgments.sql"})
    if perfect:
        pieces.append({"template": "evaluation/perfect_discounts.sql"})
    pieces += [{"template": "evaluation/ideal.sql", "ideal": spec} for spec in plan.ideals.values()
               if spec["columns"] and spec["source"] == "qrels"]
    if any(ranking["sparse"] for ranking in rankings):
        pieces.append({"template": "evaluation/numbered_qrels.sql"})
    for ranking in rankings:
        form = "ranking_sparse" if ranking["sparse"] else "ranking"
        pieces.append({"template": f"evaluation/{form}.sql", "ranking": ranking})
        if output == "relstring":
            continue
        pieces.append({"template": "evaluation/retrieved.sql", "ranking": ranking})
        if ranking["catalog"]:
            pieces.append({"template": "evaluation/catalog.sql", "ranking": ranking})
        pieces += [{"template": "evaluation/ideal.sql", "ideal": spec} for spec in plan.ideals.values()
                   if spec["columns"] and spec["source"] == "run" and spec["ranking"] == ranking["sfx"]]
        pieces += [{"template": f"evaluation/{cte['step']}.sql", **cte} for cte in ranking["ctes"]]
        pieces.append({"template": "evaluation/values.sql", "ranking": ranking})
    if output == "relstring":
        return pieces
    if len(rankings) > 1:
        pieces.append({"template": "evaluation/per_query.sql"})
    if output in ("summary", "both"):
        pieces.append({"template": "evaluation/summary.sql"})
    if output == "segments":
        pieces.append({"template": "evaluation/segments.sql"})
    return pieces


def render_evaluation(qrels_sql: str, run_sql: str, measures: list, conventions, output: str,
                      relstring_length: int = 10, segments_sql: str | None = None, by_run: bool = False,
                      listed_sql: str | None = None,
                      reread_inputs: bool = False, recommender: dict | None = None,
                      slices_table: str | None = None) -> str:
    """The one SQL statement of an evaluation. ``measures`` are resolved Measure objects;
    ``output`` is "per_query", "summary", "both", "segments" (the summary over all queries and
    over each segment of ``segments_sql``, rows of query_id and segment), or "relstring"
    (trec_eval's relstring of the top ``relstring_length`` documents of each query; ``measures``
    is then empty). ``reread_inputs``: the inputs give the same rows each time they are read
    (Source.rescannable), so DuckDB may scan them where they are used instead of holding them.
    ``recommender``: SQL of the extra inputs of measures beyond accuracy (history: query_id,
    doc_id rows; items: doc_id rows or None; features: doc_id, feature, weight rows or None).
    Evaluated in slices of queries: output "slice" is one slice's per-query rows with a doc_id column
    (NULL), then how often each item is in the slice's top k (query_id NULL, measure the count's
    column, doc_id the item), for the measures over all users; output "slices" is the per-query rows
    and the summary of all slices, whose rows are in the table ``slices_table`` (the inputs' SQL is
    not read), "slices_summary" the summary alone, with the queries each measure has a value for."""
    from .version import __version__

    if output not in OUTPUTS:
        raise ValueError(output)
    if (output in ("slices", "slices_summary")) != (slices_table is not None):
        raise ValueError("slices_table goes with outputs 'slices' and 'slices_summary'")
    if (output == "segments") != (segments_sql is not None):
        raise ValueError("segments_sql goes with output 'segments'")
    if listed_sql is not None and (by_run or segments_sql is not None):
        raise ValueError("listed queries are not keyed by run nor grouped in segments")
    if by_run and output not in ("per_query", "summary", "both"):
        raise ValueError("runs stored together give per-query or summary rows")
    if _DIALECT.get() in PRINTED_ONLY and output in ("relstring", "segments"):
        raise MeasureError(f"the {_DIALECT.get()} statement gives per-query or summary rows; segments and relstrings "
                           f"are for DuckDB")
    plan = _Plan(conventions, grouped="segment" if output == "segments" else "run" if by_run else None)
    by_ranking: dict = {}
    for measure in measures:
        by_ranking.setdefault(ranking_key(measure), []).append(measure)
    plan.sparse = {key: output != "relstring" and _sparse(group) for key, group in by_ranking.items()}
    plan.least_label = {key: least_label(group) for key, group in by_ranking.items() if plan.sparse[key]}
    contexts, columns = [], set()
    for measure in measures:
        column = column_name(str(measure), columns)
        columns.add(column)
        contexts.append(measure_context(measure, column, plan, conventions.trec_eval_version))
    for context in contexts:  # each query's weight, beside its value, for a weighted mean (GAUC)
        if context["aggregate"] == "weighted":
            context["weight_column"] = column_name(f"{context['name']} weight", columns)
            columns.add(context["weight_column"])
    _require_distinct_columns(contexts, columns)
    if not plan.rankings:  # relstring: the evaluation's own ranking
        plan.ranking(*(getattr(conventions, name) for name in RANKING_FIELDS))

    judgment_columns: list = []
    perfect_columns: list = []
    perfect_depth = 0
    rankings = {ranking["sfx"]: ranking for ranking in plan.rankings.values()}
    for context in contexts:
        ranking, steps = rankings[context["ranking"]], context["steps"]
        ranking["measures"].append(context)
        for step in ("judged", "ranked", "retrieved", "listed", "ordered", "catalog"):
            _add(ranking[step], steps[step])
        ranking["popularity"] |= "popularity" in FAMILIES[context["family"]].reads
        _add(ranking["outer"], steps["tie"] + steps["running"])
        ranking["ties"] |= bool(steps["tie"])
        ranking["running"] |= bool(steps["running"])
        ranking["join_judgments"] |= "judgments_in_ranking" in FAMILIES[context["family"]].reads
        _add(judgment_columns, steps["judgments"])
        _add(plan.ideals[context["ideal"]["spec"]]["columns"], steps["ideal"])
        if steps["perfect"]:
            _add(perfect_columns, steps["perfect"])
            perfect_depth = max(perfect_depth, context["cutoff"])
        for step in FAMILY_STEPS:
            if steps[step]:
                name = context["step_names"][step]
                lines, _ = ranking["step_columns"].setdefault((step, name), ([], context))
                _add(lines, steps[step])
    for ranking in plan.rankings.values():
        # the per-item counts of the catalog step, by name: a slice's rows of them (measure: the name and ranking)
        times = [_STEP_COLUMN.search(line).group(1) for line in ranking["listed"]]
        ranking["times"] = [{"column": name, "name": name + ranking["sfx"]} for name in times]
        if ranking["sparse"] and ranking["outer"]:
            raise RuntimeError("a ranking of judged documents only cannot have tie groups or running windows")
        ranking["counts"] = ranking["sparse"] and any("retrieved_count" in FAMILIES[c["family"]].reads_for(c)
                                                      for c in ranking["measures"])
    several = len(plan.rankings) > 1
    for number, ranking in enumerate(plan.rankings.values()):
        ranking["part"] = f"per_query_ranking_{number + 1}" if several else "per_query"
        for context in ranking["measures"]:
            context["part"] = ranking["part"]
        ranking["ctes"] = [{"step": step, "name": name, "columns": lines, "measure": context,
                            "one_row": step in ONE_ROW_STEPS}
                           for (step, name), (lines, context) in ranking["step_columns"].items()]
    populations = {c["missing_queries"] for c in contexts} or {conventions.missing_queries}
    unjudged = {c["unjudged_queries"] for c in contexts} or {conventions.unjudged_queries}
    if listed_sql is not None:  # the listed queries are the evaluated ones, whatever the rules for one-sided queries
        populations, unjudged = {"zero"}, {"zero"}
    mixed = len(populations) > 1 or len(unjudged) > 1
    # measures whose mean may be over fewer queries than were evaluated: the summary counts them
    # (per-query rows are counted in Python, results.shape)
    counted_names = counted(measures) if output in ("summary", "segments") else set()
    for context in contexts:
        if context["name"] in counted_names:
            context["count_column"] = column_name(f"{context['name']} queries", columns)
            columns.add(context["count_column"])
    text = render_template(
        "evaluate.sql",
        version=__version__,
        measure_names=[c["name"] for c in contexts],
        conventions=conventions.describe(),
        pieces=_pieces(plan, output, bool(judgment_columns), bool(perfect_columns), mixed, recommender is not None),
        recommender=recommender,
        qrels_sql=qrels_sql,
        run_sql=run_sql,
        missing_queries="zero" if "zero" in populations else "skip",
        unjudged_queries="zero" if "zero" in unjudged else "skip",
        mixed_missing=len(populations) > 1,
        mixed_unjudged=len(unjudged) > 1,
        unjudged_label=conventions.unjudged_label,
        skip_below=conventions.rel if conventions.no_relevant == "skip" else None,
        mixed_population=mixed,
        counted=any(c["count_column"] for c in contexts),
        judgment_columns=judgment_columns,
        perfect_columns=perfect_columns,
        perfect_depth=perfect_depth,
        ideals=[spec for spec in plan.ideals.values() if spec["columns"]],
        rankings=list(plan.rankings.values()),
        measures=contexts,
        output=output,
        both=output == "both",
        slices_table=quote_ident(slices_table) if slices_table is not None else None,
        relstring_length=relstring_length,
        segments_sql=segments_sql,
        listed_sql=listed_sql,
        grouped=plan.grouped,
        group_key=GROUP_KEYS.get(plan.grouped),
        segment_steps=[name for ranking in plan.rankings.values() for name in _one_row_steps(ranking)]
        if plan.grouped == "segment" else [],
        by_run=by_run,
        reread_inputs=reread_inputs,
    )
    if _DIALECT.get() == "snowflake":
        text = inline_windows(text)
    return wrap_sql(text)


_WINDOW = re.compile(r"\n(\s*)WINDOW ")
_CTE = re.compile(r"^[a-z_0-9]+ AS (NOT MATERIALIZED )?\($", re.M)


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


_BREAK_BEFORE = {"WHEN", "ELSE", "END", "AND", "OR", "THEN", "+", "-", "*", "/"}


def wrap_sql(text: str, width: int = WIDTH) -> str:
    """Lines longer than ``width`` broken at spaces outside quotes, preferably before WHEN, ELSE,
    AND, OR and arithmetic operators, continued four spaces further in; comment lines stay
    comments. A line that starts or ends inside a quoted string is left as it is."""
    out, quote = [], None
    for line in text.split("\n"):
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
    indent = line[:len(line) - len(line.lstrip())]
    comment = words[0].startswith("--")
    prefix = indent + ("--   " if comment else "    ")
    lines, current, best = [], [], None  # best: where the current line may break (an index into current)
    for word in words:
        head = indent if not lines else prefix
        if current and len(head) + len(" ".join(current + [word])) > width:
            cut = best if best and best > len(current) // 3 else len(current)
            cut -= cut > 1 and current[cut - 1] == "AS"  # keep AS with its name
            lines.append(head + " ".join(current[:cut]))
            current, best = current[cut:], None
        if current and word in _BREAK_BEFORE:
            best = len(current)
        current.append(word)
    lines.append((indent if not lines else prefix) + " ".join(current))
    return "\n".join(lines)


def render_segments(reader: str, by: str, id_column: str) -> str:
    """Rows of (query_id, segment) from a query table's columns ``id_column`` and ``by`` (validated
    column names)."""
    return call_macro("_macros/query_set.sql", "segments", reader, by, id_column).strip()


def render_listed(reader: str, id_column: str) -> str:
    """The distinct query ids of a query table's column ``id_column`` (a validated column name), as text."""
    return call_macro("_macros/query_set.sql", "listed", reader, id_column).strip()


def render_slice(source_sql: str, slices: int, index: int) -> str:
    """One slice of an input: the rows whose query falls in slice ``index`` of ``slices`` (a
    hash of the query id, so each query and all its rows land in the same slice on both sides)."""
    return call_macro("_macros/query_set.sql", "slice", source_sql, int(slices), int(index)).strip()


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
