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
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import jinja2


def sql_dir() -> Path:
    """The templates: ``sqlrank/sql`` inside a wheel, ``sql/`` beside the package in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sql", here.parent / "sql"):
        if (candidate / "evaluate.sql").is_file():
            return candidate
    raise RuntimeError(f"sqlrank's SQL templates are missing (looked in {here / 'sql'} and {here.parent / 'sql'})")


DIALECTS = ("duckdb", "spark")
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


def quote_ident(name: str, quote: str | None = None) -> str:
    """A quoted SQL identifier (double quotes; backticks in Spark SQL); the quote is doubled inside."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"invalid identifier {name!r}")
    quote = quote or ("`" if _DIALECT.get() == "spark" else '"')
    return quote + name.replace(quote, quote * 2) + quote


def quote_literal(value: str) -> str:
    """A SQL string literal. Standard SQL (DuckDB) doubles single quotes and has no backslash
    escapes; Spark SQL reads backslash escapes, so there both are escaped with a backslash."""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"not a string: {value!r}")
    text = os.fspath(value)
    if "\x00" in text:
        raise ValueError("a string literal cannot hold a NUL character")
    if _DIALECT.get() == "spark":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
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
    env.globals["dialect_name"] = current_dialect
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
_RANKING_BLOCKS = ("judged", "ranked", "tie", "running", "retrieved", "join")
# Blocks that are CTEs of their own: the template and macro that render them.
_FAMILY_CTES = {
    "iprec": ("measures/iprec.sql", "cte_iprec"),
    "graded": ("measures/ndcg_variants.sql", "cte_graded"),
    "rndcg": ("measures/ndcg_variants.sql", "cte_rndcg"),
}
_PART = re.compile(r"^\[([a-z_]+)(?::([A-Za-z0-9_]*))?\]\s+(.*)$")
_DETAIL_FAMILIES = {"nDCG_rel", "Rndcg", "G"}  # read the ideal ranking position by position
# No closed form for the mean over all orders of tied documents (yet): tie_break=expected is refused.
# Families whose values read only the judged documents of a ranking (and their ranks): their
# ranking ranks every retrieved document by score but keeps only the judged ones for the
# running counts and aggregates (see _sparse). The others also count unjudged
# documents (num_ret, Unj, RBPResid, set measures) or read every position (IPrec, nDCG_rel, G).
_JUDGED_FAMILIES = {"P", "R", "Success", "relative_P", "AP", "GMAP", "YAAP", "RR", "Rprec", "Rprec_mult",
                    "Bpref", "GMBpref", "infAP", "binG", "nDCG", "DCG", "IdealDCG", "CG", "RBP", "NumQ",
                    "NumRel", "NumRelRet", "NumNonRelJudgedRet"}
_NO_EXPECTED = {"Bpref", "GMBpref", "infAP", "IPrec", "IPrecAvg", "binG", "G", "nDCG_rel", "Rndcg", "YAAP"}


def score_expression(trec_eval_version: int) -> str:
    """The score as ranked: trec_eval 9 (and pytrec_eval) compare 32-bit floats, and C's (float) cast
    turns a double at or beyond FLT_MAX + half an ulp into infinity where SQL's CAST fails."""
    if trec_eval_version != 9:
        return "score"
    return ("CASE WHEN score >= 3.4028235677973366e38 THEN CAST('inf' AS FLOAT) "
            "WHEN score <= -3.4028235677973366e38 THEN CAST('-inf' AS FLOAT) ELSE CAST(score AS FLOAT) END")


def ranking_order(tie_break: str, score: str) -> str:
    """The ORDER BY of a ranking under a tie-break convention."""
    return {
        "trec_eval": f"{score} DESC NULLS LAST, doc_id DESC",
        "expected": f"{score} DESC NULLS LAST, doc_id DESC",
        "doc_id_asc": f"{score} DESC NULLS LAST, doc_id ASC",
        "input_rank": "input_rank ASC NULLS LAST, doc_id DESC",
    }[tie_break]


class _Plan:
    """Python decides: which rankings, gains, discounts and ideal rankings the measures need."""

    def __init__(self, conventions):
        self.score = score_expression(conventions.trec_eval_version)
        self.rankings: dict = {}
        self.gains: dict = {}
        self.discounts: dict = {}
        self.ideals: dict = {}

    def ranking(self, tie_break: str, judged_only: bool, depth) -> dict:
        key = (tie_break, judged_only, depth)
        if key not in self.rankings:
            sfx = "" if not self.rankings else f"_r{len(self.rankings)}"
            self.rankings[key] = {
                "sfx": sfx, "order": ranking_order(tie_break, self.score), "tie_key": self.score,
                "expected": tie_break == "expected", "input_rank": tie_break == "input_rank",
                "judged_only": judged_only, "depth": depth, "judged": [], "ranked": [], "outer": [],
                "running": False, "ties": False, "retrieved": [], "join_judgments": False, "ctes": [],
                "measures": [], "cte_lines": {},
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

    def discount(self, kind: str, base: float) -> dict:
        key = (kind, base)
        if key not in self.discounts:
            self.discounts[key] = {"key": "" if key == ("log", 2.0) else f"_d{len(self.discounts) + 1}",
                                   "kind": kind, "base": base}
        return self.discounts[key]

    def ideal(self, source: str, gain: dict, ranking: str) -> dict:
        name = "ideal" + gain["sfx"] if source == "qrels" else "ideal_run" + gain["sfx"] + ranking
        if name not in self.ideals:
            self.ideals[name] = {"name": name, "source": source, "gain": gain, "ranking": ranking,
                                 "detail": False, "columns": []}
        return self.ideals[name]


def measure_context(measure, column: str, plan: _Plan, version: int) -> dict:
    """What a family template needs to know of one (resolved) measure."""
    from .errors import MeasureError

    spec = measure.spec
    tie_break = measure.param("tie_break")
    if tie_break == "expected":
        if measure.family in _NO_EXPECTED:
            raise MeasureError(f"tie_break=expected is not available for {measure.family} (no exact mean over "
                               f"the orders of tied documents is implemented); use another tie_break for it")
        if measure.param("depth") is not None:
            raise MeasureError(f"tie_break=expected cannot be combined with depth in {measure}: a depth cut "
                               f"through a tie group has no single retrieved set")
        if measure.family in ("AP", "GMAP") and measure.param("ap_denominator") == "retrieved_relevant" \
                and measure.cutoff is not None:
            raise MeasureError(f"tie_break=expected with ap_denominator=retrieved_relevant and a cutoff ({measure}) "
                               f"would average a ratio of random counts; not implemented")
    ranking = plan.ranking(tie_break, measure.param("judged_only"), measure.param("depth"))
    v = ranking["sfx"]
    context = {
        "family": measure.family,
        "level": measure.relevance_level,
        "cutoff": measure.cutoff,
        "cut_key": re.sub(r"[^0-9]", "_", str(measure.cutoff)),
        "column": column,
        "name": str(measure),
        "aggregate": spec.aggregate,
        "version": version,
        "expected": ranking["expected"],
        "ranking": v,
        "ranked": f"ranked{v}",
        "retrieved": f"retrieved{v}",
        "missing_queries": measure.param("missing_queries"),
    }
    for name in spec.params:
        if name not in context:
            context[name] = measure.param(name)
    from .conventions import DEFAULTS, FIELD_NAMES
    for name in FIELD_NAMES:  # conventions a family does not take keep trec_eval's value
        context.setdefault(name, getattr(DEFAULTS, name))
    gain = plan.gain(measure.param("gain") if "gain" in spec.params else "linear")
    context["gain"] = gain
    context["disc"] = plan.discount(measure.param("discount") if "discount" in spec.params else "log",
                                    measure.param("log_base") if "log_base" in spec.params else 2.0)
    ideal_kind = measure.param("ideal") if "ideal" in spec.params else "qrels"
    ideal = plan.ideal("run" if ideal_kind == "run" else "qrels", gain, v)
    if measure.family in _DETAIL_FAMILIES:
        ideal["detail"] = True
    cut = f"_top_{measure.cutoff}" if measure.cutoff is not None else ""
    context["ideal"] = {"kind": ideal_kind, "spec": ideal["name"],
                        "column": f"{ideal['name']}_dcg{context['disc']['key']}{cut}"}
    context["cte"] = {"iprec": f"iprec_{context['level']}{v}", "graded": f"graded{gain['sfx']}{v}",
                      "rndcg": f"rndcg{gain['sfx']}{v}"}
    template = f"measures/{spec.template}.sql"
    context["parts"] = []
    for line in call_macro(template, f"{measure.family}_parts", context).splitlines():
        if line.strip():
            match = _PART.match(line.strip())
            if not match:
                raise RuntimeError(f"{template}: {measure.family}_parts gave a line without a [block]: {line!r}")
            context["parts"].append(match.groups())
    context["value"] = " ".join(call_macro(template, f"{measure.family}_value", context).split())
    if not context["value"]:
        raise RuntimeError(f"template {template} has no macro {measure.family}_value")
    return context


def _add(lines: list, line: str) -> None:
    if line not in lines:
        lines.append(line)


def _sparse(ranking: dict) -> bool:
    """Whether a ranking's measures need only its judged documents (with their ranks among all
    retrieved documents): then unjudged documents are ranked and dropped before the running
    counts and aggregates, which run over about a tenth of the rows. Not with judged_only
    (the ranking is then of judged documents anyway), tie_break=expected (tie groups count
    unjudged documents), family CTEs, or nDCG's perfect ideal without cutoff (it sums the
    discounts of every retrieved position)."""
    if ranking["judged_only"] or ranking["expected"] or ranking["outer"] or ranking["cte_lines"]:
        return False
    return all(c["family"] in _JUDGED_FAMILIES
               and not (c["ideal"]["kind"] == "perfect" and c["cutoff"] is None and c["family"] in ("nDCG", "IdealDCG"))
               for c in ranking["measures"])


def render_evaluation(qrels_sql: str, run_sql: str, measures: list, conventions, output: str,
                      relstring_length: int = 10, segments_sql: str | None = None, by_run: bool = False,
                      reread_inputs: bool = False) -> str:
    """The one SQL statement of an evaluation. ``measures`` are resolved Measure objects;
    ``output`` is "per_query", "summary", "both", "segments" (the summary over all queries and
    over each segment of ``segments_sql``, rows of query_id and segment), or "relstring"
    (trec_eval's relstring of the top ``relstring_length`` documents of each query; ``measures``
    is then empty). ``reread_inputs``: the inputs give the same rows each time they are read
    (Source.rescannable), so DuckDB may scan them where they are used instead of holding them."""
    from . import __version__

    if output not in ("per_query", "summary", "both", "segments", "relstring"):
        raise ValueError(output)
    if (output == "segments") != (segments_sql is not None):
        raise ValueError("segments_sql goes with output 'segments'")
    if by_run and output not in ("per_query", "summary", "both"):
        raise ValueError("runs stored together give per-query or summary rows")
    plan = _Plan(conventions)
    contexts, columns = [], set()
    for measure in measures:
        column = column_name(str(measure), columns)
        columns.add(column)
        contexts.append(measure_context(measure, column, plan, conventions.trec_eval_version))
    if not plan.rankings:  # relstring: the evaluation's own ranking
        plan.ranking(conventions.tie_break, conventions.judged_only, conventions.depth)

    judgment_columns: list = []
    perfect_columns: list = []
    perfect_depth = 0
    for context in contexts:
        ranking = plan.rankings[next(k for k, r in plan.rankings.items() if r["sfx"] == context["ranking"])]
        ranking["measures"].append(context)
        for kind, arg, line in context["parts"]:
            if kind in ("judged", "ranked", "retrieved"):
                _add(ranking[kind], line)
            elif kind in ("tie", "running"):
                _add(ranking["outer"], line)
                ranking["ties" if kind == "tie" else "running"] = True
            elif kind == "join":
                ranking["join_judgments"] = True
            elif kind == "judgments":
                _add(judgment_columns, line)
            elif kind == "ideal":
                _add(plan.ideals[arg]["columns"], line)
            elif kind == "perfect":
                _add(perfect_columns, line)
                perfect_depth = max(perfect_depth, context["cutoff"])
            elif kind in _FAMILY_CTES:
                lines, _ = ranking["cte_lines"].setdefault((kind, arg), ([], context))
                _add(lines, line)
            else:
                raise RuntimeError(f"unknown block [{kind}] in a measure template")
    for ranking in plan.rankings.values():
        ranking["sparse"] = output != "relstring" and _sparse(ranking)
    several = len(plan.rankings) > 1
    for number, ranking in enumerate(plan.rankings.values()):
        ranking["part"] = f"per_query_ranking_{number + 1}" if several else "per_query"
        for context in ranking["measures"]:
            context["part"] = ranking["part"]
        for (kind, name), (lines, context) in ranking["cte_lines"].items():
            template, macro = _FAMILY_CTES[kind]
            ranking["ctes"].append({"name": name, "sql": call_macro(template, macro, name, lines, context).strip()})
    populations = {c["missing_queries"] for c in contexts} or {conventions.missing_queries}
    return render_template(
        "evaluate.sql",
        version=__version__,
        measure_names=[c["name"] for c in contexts],
        conventions=conventions.describe(),
        qrels_sql=qrels_sql,
        run_sql=run_sql,
        missing_queries="zero" if "zero" in populations else "skip",
        mixed_population=len(populations) > 1,
        judgment_columns=judgment_columns,
        perfect_columns=perfect_columns,
        perfect_depth=perfect_depth,
        ideals=[spec for spec in plan.ideals.values() if spec["columns"]],
        rankings=list(plan.rankings.values()),
        measures=contexts,
        output=output,
        relstring_length=relstring_length,
        segments_sql=segments_sql,
        by_run=by_run,
        reread_inputs=reread_inputs,
    )


def render_segments(reader: str, by: str) -> str:
    """Rows of (query_id, segment) from a query table's column ``by`` (a validated column name)."""
    return call_macro("_macros/query_set.sql", "segments", reader, by).strip()


def render_slice(source_sql: str, slices: int, index: int) -> str:
    """One slice of an input: the rows whose query falls in slice ``index`` of ``slices`` (a
    hash of the query id, so each query and all its rows land in the same slice on both sides)."""
    return call_macro("_macros/query_set.sql", "slice", source_sql, int(slices), int(index)).strip()


def render_slices_summary(table: str, measures: list) -> str:
    """Per-query rows and the summary of an evaluation run in slices (see sql/slices.sql)."""
    from .measures import FAMILIES

    names = [{"name": str(m), "aggregate": FAMILIES[m.family].aggregate} for m in measures]
    return render_template("slices.sql", table=quote_ident(table), measures=names)


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
