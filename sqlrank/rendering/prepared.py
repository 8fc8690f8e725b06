"""The statement of an evaluation, as plan() decided it: rendered for its inputs' SQL, whole or over one slice of
the queries, in one dialect. Rendered once per process for the same measures, conventions and shape: a loop over
runs fills the same text in with each run's SQL."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ..measures.conventions import Conventions
from ..measures.measure import Measure
from .dialects import DUCKDB, Dialect
from .sqltext import STAND_INS, call_macro, fill_in, render_slice
from .statement import Prepared, render_evaluation

RENDERED: dict[tuple, str] = {}  # statements rendered with stand-ins for their inputs, by Statement._key
RENDERED_MOST, RENDERED_CHARACTERS = 64, 8_000_000  # at most so many statements, and so much text in all
_RENDERING = threading.Lock()


@dataclass(frozen=True)
class Statement:
    """The evaluation's statement for the SQL of its inputs: whole, or over one slice of the queries,
    in one dialect. What it renders was decided by plan()."""

    measures: list[Measure]
    conventions: Conventions
    output: str
    relstring_length: int = 10
    segments: str | None = None  # SQL of (query_id, segment) rows when results are per segment
    listed: str | None = None  # SQL of the query ids a query table lists: exactly the evaluated queries
    by_run: bool = False  # runs stored together: results per run
    reread: bool = False  # the inputs give the same rows each time they are read (Source.rescannable)
    recommender: dict | None = field(default=None, repr=False)  # SQL of the extra inputs
    groups: bool = False  # qrels with judgment groups: the run is keyed by group first
    slices: int = 1
    sources: str | None = None  # SQL of (query_id, doc_id, source): judgments merged from several sources
    intents: str | None = None  # SQL of (query_id, subtopic, doc_id, relevance): judgments per subtopic
    samples: str | None = None  # SQL of (query_id, sample, doc_id, score): sampled rankings
    prepared: Prepared = ()  # steps that read the judgments alone, made before into tables (an Evaluator's)
    checks: str | None = None  # SQL of one row of the run's checks, read with the values (diagnostics.statement_checks)
    # text rendered: the whole statement per inputs, and each slice's (differing in inputs only: once, with stand-ins)
    sliced: dict = field(default_factory=dict, repr=False, compare=False)

    def render(self, dialect: Dialect, qrels_sql: str, run_sql: str, slice_index: int | None = None,
               with_counts: bool = False) -> str:
        if self.groups:  # a slice holds whole judgment groups: sliced after the run is keyed by group
            run_sql = call_macro(dialect, "_macros/inputs.sql", "run_per_group", run_sql).strip()
        if slice_index is None:  # rendered once for the same inputs (a DataFrame's SQL printed is the SQL run)
            key = (dialect.name, qrels_sql, run_sql)
            self.sliced[key] = self.sliced.get(key) or self._whole(dialect, qrels_sql, run_sql)
            return self.sliced[key]
        inputs = {STAND_INS[0]: qrels_sql, STAND_INS[1]: run_sql, STAND_INS[2]: self.listed}
        key = (dialect.name, with_counts)
        if key not in self.sliced:
            self.sliced[key] = self._render(dialect, *STAND_INS[:2], self.listed and STAND_INS[2],
                                            self._slice_output(with_counts))
        return fill_in(self.sliced[key], {mark: render_slice(sql, self.slices, slice_index)
                                          for mark, sql in inputs.items() if sql is not None})

    def _whole(self, dialect: Dialect, qrels_sql: str, run_sql: str) -> str:
        """The whole statement: rendered with stand-ins once per process for the same measures, conventions and
        shape (RENDERED), then filled in with these inputs (a loop over runs renders nothing after the first)."""
        key = self._key(dialect)
        with _RENDERING:
            template = RENDERED.pop(key, None) if key is not None else None
        if template is None:
            template = self._render(dialect, *STAND_INS[:2], self.listed and STAND_INS[2], self.output,
                                    self.checks and STAND_INS[3])
        if key is not None:
            with _RENDERING:
                RENDERED[key] = template  # the most recent last; the oldest let go beyond RENDERED_MOST
                while len(RENDERED) > RENDERED_MOST or (len(RENDERED) > 1 and
                                                        sum(map(len, RENDERED.values())) > RENDERED_CHARACTERS):
                    RENDERED.pop(next(iter(RENDERED)))
        inputs = {STAND_INS[0]: qrels_sql, STAND_INS[1]: run_sql, STAND_INS[2]: self.listed, STAND_INS[3]: self.checks}
        return fill_in(template, {mark: sql for mark, sql in inputs.items() if sql is not None})

    def _key(self, dialect: Dialect) -> tuple | None:
        """What the rendered text depends on besides the inputs' SQL (the names measures were asked by too);
        None when some parameter's value cannot be a key."""
        key = (dialect.name, tuple((m, m.label, m.aliases) for m in self.measures), self.conventions, self.output,
               self.relstring_length, self.segments, self.listed is not None, self.by_run, self.reread,
               tuple(sorted(self.recommender.items())) if self.recommender else None, self.groups, self.slices,
               self.sources, self.intents, self.samples, self.prepared, self.checks is not None)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _slice_output(self, with_counts: bool) -> str:
        """What a slice's statement gives: its per-query rows (with each item's counts, for the measures over
        all users), or relstring's rows."""
        return "slice" if with_counts else "relstring" if self.output == "relstring" else "per_query"

    def _render(self, dialect: Dialect, qrels_sql: str, run_sql: str, listed: str | None, output: str,
                checks: str | None = None) -> str:
        return render_evaluation(qrels_sql, run_sql, self.measures, self.conventions, output, self.relstring_length,
                                 segments_sql=self.segments, by_run=self.by_run, reread_inputs=self.reread,
                                 recommender=self.recommender, listed_sql=listed, sources_sql=self.sources,
                                 intents_sql=self.intents, samples_sql=self.samples,
                                 prepared=self.prepared if dialect is DUCKDB else (), checks_sql=checks, dialect=dialect)

    def summary(self, table: str) -> str:
        """The per-query rows and the summary of an evaluation run in slices, from their rows in ``table``."""
        return render_evaluation("", "", self.measures, self.conventions,
                                 "slices" if self.output == "both" else "slices_summary", slices_table=table,
                                 recommender=self.recommender, dialect=DUCKDB)
