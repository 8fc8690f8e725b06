"""The statement of a fusion (sql/fusion/fuse.sql): the runs read for a dialect, each of runs stored together apart,
and the statement rendered for one or many settings of a method; ``render_fusion``, the statement printed for a
dialect, reading the files or that database's tables themselves (``sqlrank sql --fuse``)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..engines.duckdb import session
from ..errors import OptionError
from ..inputs.load import load
from ..inputs.locate import declared_table, is_nested_dict
from ..inputs.merge import distinct_inputs
from ..inputs.source import INTEGER_TYPES, Source
from ..rendering.dialects import DIALECTS, DUCKDB, Dialect
from ..rendering.sqltext import call_macro, render_template
from .methods import EPSILON, Fusion, parse_fusion

TIE_BREAKS = ("trec_eval", "doc_id_asc", "input_rank")
# ranx's fixed segments, as (after rank, up to rank): SegFuse's 1-5, 6-15, 16-35, ... (10 x 2^(k-1) - 5), BayesFuse's
SEGFUSE = tuple(zip([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 10)], [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]))
UNRANKED_LOG_ODDS = math.log(0.001 / 0.999)  # BayesFuse's log odds of a document a run does not rank (ranx's)
BAYESFUSE = tuple(zip((0, 5, 10, 15, 20, 30, 100, 200, 500), (5, 10, 15, 20, 30, 100, 200, 500, 1000)))


@dataclass(frozen=True)
class Runs:
    """The runs to fuse as one dialect reads them: their names (in order) and each one's SQL (query_id, doc_id, score,
    input_rank); whether every query id is a whole number."""

    names: tuple[str, ...]
    sql: tuple[str, ...]
    integer_ids: bool = False


def check_ranking(tie_break: str, depth: int | None) -> None:
    if tie_break not in TIE_BREAKS:
        raise OptionError(f"tie_break={tie_break!r} is not one of {', '.join(TIE_BREAKS)}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise OptionError(f"depth {depth!r} must be a whole number >= 1")


def check_judgments(fusion: Fusion, qrels: Any) -> None:
    """Judgments where the method is trained on them, none where it reads none."""
    if fusion.method.trained and qrels is None:
        raise OptionError(f"{fusion.method.name} estimates its probabilities of relevance from judgments: give qrels= "
                          f"(--qrels QRELS), the judgments of training queries")
    if not fusion.method.trained and qrels is not None:
        raise OptionError(f"judgments are for the trained methods and optimize=; {fusion.method.name} reads none: "
                          f"leave qrels out")


def read_runs(runs: Any, source: Callable[[Any], Source], rows: Callable[[str], list], dialect: Dialect = DUCKDB,
              printed: bool = False) -> Runs:
    """The runs to fuse, each read by ``source`` (DuckDB's load, or an engine's copy), each of runs stored together
    apart, in the order of their run ids (``rows(sql)`` reads them). ``printed``: each reads its file or table itself,
    not sqlrank's copy."""
    if isinstance(runs, (list, tuple, dict)) and not is_nested_dict(runs):
        labels, objects = distinct_inputs(runs)
    else:
        labels, objects = [None], [runs]
    names, sql, integers = [], [], True
    for label, obj in zip(labels, objects):
        read = source(obj)
        integers = integers and read.query_type in INTEGER_TYPES
        text = read.sql() if dialect is DUCKDB and not printed else read.source_sql(dialect)
        if not read.per_run:
            names.append(label or read.label)
            sql.append(text)
            continue
        stored = _apart(text, dialect)
        for run_id, in rows(f"SELECT DISTINCT stored_run FROM ({stored}) AS stored ORDER BY stored_run"):
            names.append(str(run_id))
            sql.append(f"SELECT stored_query AS query_id, doc_id, score, input_rank\nFROM ({stored}) AS stored\n"
                       f"WHERE stored_run = {dialect.literal(str(run_id))}")
    if len(names) < 2:
        raise OptionError(f"fusion takes two runs or more; {len(names)} given")
    if len(set(names)) != len(names):
        raise OptionError(f"two runs are called {next(n for n in names if names.count(n) > 1)!r}: name them apart, "
                          f"in Python with a dict {{name: run}}")
    return Runs(tuple(names), tuple(sql), integers)


def _apart(keyed: str, dialect: Dialect) -> str:
    """Runs stored together (query ids run || chr(31) || query) with the run and the query apart, under names no input
    column has (ClickHouse resolves a name to an alias of the same SELECT before the column)."""
    run = call_macro(dialect, "_macros/dialect.sql", "before_separator", "query_id")
    query = call_macro(dialect, "_macros/dialect.sql", "after_separator", "query_id")
    return f"SELECT {run} AS stored_run, {query} AS stored_query, doc_id, score, input_rank\nFROM ({keyed}) AS keyed"


def fusion_sql(read: Runs, fusions: Sequence[Fusion], tie_break: str, depth: int | None, qrels_sql: str | None,
               dialect: Dialect = DUCKDB) -> str:
    """The statement fusing ``read`` by each of ``fusions`` (settings of one method and norm) in ``dialect``: the judgments'
    ``qrels_sql`` where the method is trained (check_judgments)."""
    first = fusions[0]
    method = first.method
    settings = [{"weights": f.weights or (1.0,) * len(read.sql), "params": f.params} for f in fusions]
    candidates = first.norm == "borda" or method.name in ("bordafuse", "w_bordafuse") or method.family == "pairs"
    reads_scores = method.family == "scores" or first.norm in ("min-max-inverted", "borda")
    return render_template(dialect, "fusion/fuse.sql", runs=list(read.sql), settings=settings,
                           norm=first.norm if reads_scores else "none", given_norm=first.norm,
                           order=dialect.ranking_order(tie_break, "score"),
                           fused_order=dialect.ranking_order("trec_eval", "score"), epsilon=EPSILON,
                           ranks=method.family != "scores" or method.trained, candidates=candidates,
                           training=method.trained, qrels=qrels_sql, method=method.name, family=method.family,
                           param_names=list(first.params), segments=SEGFUSE if method.name == "segfuse" else BAYESFUSE,
                           depth=depth, unranked_log_odds=UNRANKED_LOG_ODDS)


def render_fusion(runs: Any, method: str = "rrf", norm: str | None = "min-max", weights: Sequence[float] | None = None,
                  params: dict | None = None, qrels: Any = None, tie_break: str = "trec_eval", depth: int | None = None,
                  dialect: str = "duckdb", run_format: str | None = None, run_columns: dict | None = None,
                  qrels_format: str | None = None, qrels_columns: dict | None = None) -> str:
    """The fusion's statement in ``dialect``, reading the files, or that database's tables (names that are no file here),
    themselves: what ``sqlrank sql --fuse`` prints."""
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    check_ranking(tie_break, depth)
    target = DIALECTS[dialect]
    with session(None) as (con, registry):
        def source(obj: Any, kind: str = "run", format: str | None = run_format, columns: dict | None = run_columns):
            declared = declared_table(obj, kind, con, columns, None)
            return declared if isinstance(declared, Source) else load(obj, kind, con, registry, format, columns)

        read = read_runs(runs, source, lambda sql: con.execute(sql).fetchall(), target, printed=True)
        fusion = parse_fusion(method, params, norm, weights, len(read.sql))
        check_judgments(fusion, qrels)
        qrels_sql = None if qrels is None else source(qrels, "qrels", qrels_format, qrels_columns).source_sql(target)
        return fusion_sql(read, [fusion], tie_break, depth, qrels_sql, target)
