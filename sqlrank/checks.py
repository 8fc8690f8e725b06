"""Checks: a data-quality report on qrels and runs before evaluating them (``sqlrank check``).

Each finding says what it is, how often it occurs, an example, and whether it can change a
number (``changes_numbers``): ``sqlrank check --strict`` fails on those. Everything is computed
by DuckDB from the inputs as sqlrank reads them; nothing is modified.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, NamedTuple

import duckdb

from .catalog import extra_inputs_sql, outside_catalog, outside_catalog_text
from .conventions import resolve_conventions
from .engine import session, session_options
from .errors import InputError, OptionError, duckdb_reason
from .inputs import load
from .measures import FAMILIES
from .planner import Plan, resolve_measures
from .sources import Source
from .templates import call_macro, render_slice
from .validation import checked_pairs_sql

DEFAULT_CUTOFFS = (5, 10, 20, 100, 1000)


@dataclass
class Finding:
    check: str  # what was checked
    input: str  # which file (or "qrels + run")
    count: int  # how many queries, rows or pairs are affected (0: all is well)
    changes_numbers: bool  # could it change an evaluation's value?
    message: str  # one line: what, how many, an example, what to do

    @property
    def problem(self) -> bool:
        return self.count > 0 and self.changes_numbers


_WHITE = "' ' || chr(9) || chr(13) || chr(10)"  # the white space _normalized removes
# Characters that print as nothing: soft hyphen, zero-width space, non-joiner and joiner, word joiner,
# byte order mark (RE2's syntax)
_INVISIBLE = r"'[\x{00AD}\x{200B}-\x{200D}\x{2060}\x{FEFF}]'"
NEAR = "white space, leading zeros, invisible characters or Unicode normalization"


def _normalized(column: str) -> str:
    """An id with surrounding white space, leading zeros and invisible characters removed, in Unicode's
    composed form (NFC: 'café' written with a combining accent is 'café'): how ids get mangled."""
    bare = f"nfc_normalize(regexp_replace({column}, {_INVISIBLE}, '', 'g'))"
    return f"coalesce(nullif(ltrim(trim({bare}, {_WHITE}), '0'), ''), '0')"


def _odd(column: str, beyond_ascii_only: bool = False) -> str:
    """True for every id _normalized may change (it starts with white space or a zero, ends with white
    space, or holds a character beyond ASCII); an id for which it is false is its own normal form.
    beyond_ascii_only: only the last test, which DuckDB answers from a column's statistics when every
    id is ASCII (the others read every id: 0.2 s for 10M rows)."""
    beyond_ascii = f"strlen({column}) <> length({column})"
    if beyond_ascii_only:
        return f"({beyond_ascii})"
    return f"(contains({_WHITE} || '0', left({column}, 1)) OR contains({_WHITE}, right({column}, 1)) OR {beyond_ascii})"


def shown(text: str) -> str:
    """An id as a message shows it: quoted, with what does not print as itself (a combining accent,
    an invisible character, a trailing space inside the quotes) spelled as an escape."""
    return repr(text) if text.isascii() and text.isprintable() else ascii(text)


def near_examples(examples: list | None) -> str:
    """(query, id of the run, id of the qrels) triples as 'q1: 'd1 ' ~ 'd1'', or (run id, qrels id) pairs."""
    return ", ".join((f"{shown(e[0])}: " if len(e) == 3 else "") + f"{shown(e[-2])} ~ {shown(e[-1])}"
                     for e in examples or [])


def near_documents(con, qrels: str, run: str, every_run_id: bool = True) -> tuple[int, list]:
    """(count, up to 3 examples) of the (query, run document, judged document) triples whose documents
    differ but not after _normalized, the run's document not judged as it is. A run document in normal
    form can only be near a judged document that is not (equal to its normal form), so only the few odd
    ids on either side are normalized, not every row of the run. every_run_id=False looks among the run's
    ids only for those beyond ASCII (an evaluation's cheap check: a judged id with white space or a
    zero in front, and every Unicode spelling, are still found; sqlrank check looks at every id). When
    neither side has an odd id (most inputs) that is all it reads."""
    odd_ids = _one(con, f"SELECT (SELECT count(*) FROM ({qrels}) AS qrels WHERE {_odd('doc_id')}) + "
                        f"(SELECT count(*) FROM ({run}) AS run WHERE {_odd('doc_id', not every_run_id)})")[0]
    if not odd_ids:
        return 0, []
    return _one(con, f"""
        WITH qd AS (SELECT DISTINCT query_id, doc_id FROM ({qrels}) AS qrels),
             near AS (
                 SELECT rd.query_id, rd.doc_id AS run_doc, qd.doc_id AS judged_doc
                 FROM (SELECT DISTINCT query_id, doc_id FROM ({run}) AS run
                       WHERE {_odd('doc_id', not every_run_id)}) AS rd
                 JOIN qd ON rd.query_id = qd.query_id AND {_normalized('rd.doc_id')} = {_normalized('qd.doc_id')}
                 UNION
                 SELECT rd.query_id, rd.doc_id, odd.doc_id
                 FROM ({run}) AS rd
                 JOIN (SELECT query_id, doc_id FROM qd WHERE {_odd('doc_id')}) AS odd
                   ON rd.query_id = odd.query_id AND rd.doc_id = {_normalized('odd.doc_id')}
                 WHERE NOT {_odd('rd.doc_id', not every_run_id)}
             )
        SELECT count(*), (list([query_id, run_doc, judged_doc] ORDER BY query_id, run_doc, judged_doc))[1:3]
        FROM near
        WHERE run_doc <> judged_doc
          AND NOT EXISTS (SELECT 1 FROM qd WHERE qd.query_id = near.query_id AND qd.doc_id = near.run_doc)""")


def check(qrels: Any, runs: Iterable[Any], measures: Any = None, rel: int | None = None, history: Any = None,
          items: Any = None, **options: Any) -> list[Finding]:
    """Every check on the qrels and each run. ``measures`` set the cutoffs whose ties are counted
    (default: 5, 10, 20, 100, 1000); ``rel`` the minimum relevant label (default 1). With a
    recommender's ``history`` (training interactions) or ``items`` (the catalog): recommended items
    outside the catalog, recommendations the user has seen, users without history."""
    runs = list(runs)
    if not runs:
        raise OptionError("give at least one run to check")
    conventions = resolve_conventions(rel=rel)
    cutoffs = sorted({int(m.cutoff) for m in resolve_measures(measures, conventions)
                      if isinstance(m.cutoff, int)}) if measures else list(DEFAULT_CUTOFFS)
    engine = session_options(options)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        try:
            return _findings(qrels, runs, cutoffs, conventions.rel, con, registry, options, history, items)
        except duckdb.Error as exc:
            raise InputError(f"the checks failed in DuckDB: {duckdb_reason(exc)}") from None


def _findings(qrels, runs, cutoffs, rel, con, registry, options, history, items) -> list[Finding]:
    qrels_source = load(qrels, "qrels", con, registry, options.get("qrels_format"), options.get("qrels_columns"),
                        allow_duplicates=True)
    findings = _qrels_findings(qrels_source, con, rel)
    for run in runs:
        stored = load(run, "run", con, registry, options.get("run_format"), options.get("run_columns"),
                      allow_duplicates=True)
        recommender = history is not None or items is not None
        extra = extra_inputs_sql(history, items, None, qrels_source, stored, con, registry) if recommender else None
        for run_source in stored.each_run(con):  # the runs of one table share its column names: one read
            findings += _run_findings(qrels_source, run_source, con, cutoffs)
            if recommender:
                findings += _recommender_findings(run_source, extra, con, history is not None)
    return findings


def _recommender_findings(r: Source, extra: dict, con, with_history: bool) -> list[Finding]:
    """What in a recommender's inputs changes the measures beyond accuracy: recommended items outside
    the catalog; with a history, recommendations of items the user has seen and users without history."""
    run, label = r.sql(), r.label
    outside, example = outside_catalog(extra, r, con)
    findings = [Finding("recommended items outside the catalog", label, outside, True,
                        f"{outside_catalog_text(outside, example)}; Gini stops on them and Coverage counts them over "
                        f"the catalog's size (it can pass 1): give every item with --items" if outside else
                        "every recommended item is in the catalog")]
    if not with_history:
        return findings
    seen, seen_example = _one(con, f"""
        SELECT count(*), min(run.query_id || ' / ' || run.doc_id)
        FROM ({run}) AS run
        WHERE EXISTS (SELECT 1 FROM ({extra['history']}) AS history
                      WHERE history.query_id = run.query_id AND history.doc_id = run.doc_id)""")
    findings.append(Finding("recommendations the user has seen", label, seen, True,
                            f"{seen} recommendations are items in the user's history, e.g. {seen_example!r}; "
                            f"--remove-seen leaves them out before the run is ranked (as RecBole's full ranking "
                            f"does), else they count" if seen else "no recommendation is in the user's history"))
    cold, users, cold_example = _one(con, f"""
        SELECT count(*) FILTER (WHERE cold), count(*), min(query_id) FILTER (WHERE cold)
        FROM (SELECT query_id, query_id NOT IN (SELECT query_id FROM ({extra['history']}) AS history) AS cold
              FROM (SELECT DISTINCT query_id FROM ({run}) AS run) AS run_users) AS users""")
    findings.append(Finding("users without history", label, cold, False,
                            f"{cold} of {users} users of the run have no interaction in the history, e.g. "
                            f"{cold_example!r} (cold start: --remove-seen leaves nothing of theirs out, and "
                            f"Serendipity, a mean over users with a history, leaves them out)" if cold else
                            "every user of the run has a history"))
    return findings


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple:
    return con.execute(sql, params or []).fetchall()[0]


def _may_repeat_pairs(con: duckdb.DuckDBPyConnection, rows: str) -> bool:
    """Whether some (query, document) pair of ``rows`` may repeat: validation's sorted-hash pass, cheaper
    than grouping the pairs, which the caller then does only when two hashes are equal (a collision
    alone: it finds none)."""
    return bool(_one(con, checked_pairs_sql(rows, "false"))[2])


SHALLOW = 100  # cutoffs up to this keep a (k + 1)-score heap per query in the counting pass itself


class Ties(NamedTuple):
    counts: list[int]  # per cutoff, the queries with a tie across it
    rows: int  # the run's rows, counted on the way


def count_ties(con, run_sql: str, cutoffs: list[int], slices: int = 1) -> Ties:
    """Per cutoff k, the queries whose documents at ranks k and k + 1 have the same score (so that
    which documents are in the top k depends on the tie-break). No sort: one pass per slice of
    queries (as the evaluation itself is sliced when the run is larger than memory) counts each
    query's documents and keeps its k + 1 highest scores (DuckDB's max(score, n)) for the cutoffs
    up to SHALLOW; a deeper cutoff takes a second pass, and only when some query is longer than it
    (no rank k + 1, no tie across k)."""
    shallow = [int(k) for k in cutoffs if k <= SHALLOW]
    found = dict.fromkeys(cutoffs, 0)
    total = 0
    for index in range(slices):
        rows = run_sql if slices == 1 else render_slice(run_sql, slices, index)
        longest, count_rows, *counts = _one(con, _ties_sql(rows, shallow, longest=True))
        total += count_rows or 0
        deep = [int(k) for k in cutoffs if k > SHALLOW and longest is not None and k < longest]
        if deep:
            counts += _one(con, _ties_sql(rows, deep))
        for k, count in zip(shallow + deep, counts):
            found[k] += count
    return Ties([found[k] for k in cutoffs], total)


def _ties_sql(rows: str, cutoffs: list[int], longest: bool = False) -> str:
    totals = (["max(n)", "sum(n)"] if longest else []) + [
        f"count(*) FILTER (WHERE len(top) > {k} AND top[{k}] = top[{k + 1}])" for k in cutoffs]
    per_query = ["count(*) AS n"] + ([f"max(score, {max(cutoffs) + 1}) AS top"] if cutoffs else [])
    return (f"SELECT {', '.join(totals)} FROM (SELECT {', '.join(per_query)} FROM ({rows}) AS run "
            f"GROUP BY query_id) AS per_query")


def near_query_ids(con, qrels_sql: str, run_sql: str) -> tuple[int, list]:
    """(count, up to 3 (run id, judged id) pairs) of run query ids that match no judged query exactly
    but one after _normalized (and the other way round): '01' and '1', 'q1 ' and 'q1', 'café' and 'café'."""
    return _one(con, f"""
        WITH rq AS (SELECT DISTINCT query_id FROM ({run_sql}) AS run),
             qq AS (SELECT DISTINCT query_id FROM ({qrels_sql}) AS qrels)
        SELECT count(*), (list([rq.query_id, qq.query_id] ORDER BY rq.query_id, qq.query_id))[1:3]
        FROM rq JOIN qq ON {_normalized('rq.query_id')} = {_normalized('qq.query_id')}
        WHERE rq.query_id NOT IN (SELECT query_id FROM qq) AND qq.query_id NOT IN (SELECT query_id FROM rq)""")


def no_relevant(con, qrels_sql: str, rel: int) -> tuple[int, str | None, int]:
    """Judged queries with no document labelled >= rel: (how many, an example, of how many)."""
    return _one(con, f"""
        SELECT count(*) FILTER (WHERE best < $1), min(query_id) FILTER (WHERE best < $1), count(*)
        FROM (SELECT query_id, max(relevance) AS best FROM ({qrels_sql}) AS qrels GROUP BY query_id) AS per_query""",
                [rel])


def _qrels_findings(q: Source, con, rel: int) -> list[Finding]:
    qrels, label = q.sql(), q.label
    pairs, conflicting, example = 0, 0, None
    if _may_repeat_pairs(con, qrels):
        pairs, conflicting, example = _one(con, f"""
            SELECT count(*), count(*) FILTER (WHERE labels > 1), min(query_id || ' / ' || doc_id)
            FROM (SELECT query_id, doc_id, count(DISTINCT relevance) AS labels FROM ({qrels}) AS qrels
                  GROUP BY query_id, doc_id HAVING count(*) > 1) AS repeated""")
    none_relevant, no_relevant_example, queries = no_relevant(con, qrels, rel)
    histogram = con.execute(f"SELECT relevance, count(*) FROM ({qrels}) AS qrels GROUP BY relevance "
                            f"ORDER BY relevance").fetchall()
    labels = ", ".join(f"{value}: {count}" for value, count in histogram)
    return [
        Finding("duplicate judgments", label, pairs, True,
                f"{pairs} (query, document) pairs are judged more than once, e.g. {example!r}; sqlrank eval refuses "
                f"them, other tools count them twice or keep one" if pairs else "every (query, document) pair once"),
        Finding("conflicting labels", label, conflicting, True,
                f"{conflicting} of those pairs have different labels: which one counts decides the value"
                if conflicting else "no document has two different labels for one query"),
        Finding("queries without relevant documents", label, none_relevant, True,
                f"{none_relevant} of {queries} queries have no document labelled >= {rel}, e.g. "
                f"{no_relevant_example!r}; AP, R, nDCG are 0 there (trec_eval; no_relevant=zero) or skipped (recommender libraries; "
                f"no_relevant=skip)"
                if none_relevant else
                f"all {queries} queries have a document labelled >= {rel}"),
        Finding("label histogram", label, 0, False, f"labels {labels}"),
    ]


def _run_findings(q: Source, r: Source, con, cutoffs: list[int]) -> list[Finding]:
    qrels, run, label = q.sql(), r.sql(), r.label
    pairs, example = 0, None
    if _may_repeat_pairs(con, run):
        pairs, example = _one(con, f"""
            SELECT count(*), min(query_id || ' / ' || doc_id)
            FROM (SELECT query_id, doc_id FROM ({run}) AS run GROUP BY query_id, doc_id HAVING count(*) > 1) AS repeated""")
    findings = [Finding("duplicate documents", label, pairs, True,
                        f"{pairs} (query, document) pairs are ranked more than once, e.g. {example!r}; sqlrank eval "
                        f"refuses them, other tools count them twice (nDCG above 1)" if pairs else
                        "every document once per query")]
    run_only, qrels_only, run_example, qrels_example, both = _one(con, f"""
        WITH rq AS (SELECT DISTINCT query_id FROM ({run}) AS run),
             qq AS (SELECT DISTINCT query_id FROM ({qrels}) AS qrels)
        SELECT count(*) FILTER (WHERE qq.query_id IS NULL), count(*) FILTER (WHERE rq.query_id IS NULL),
               min(rq.query_id) FILTER (WHERE qq.query_id IS NULL), min(qq.query_id) FILTER (WHERE rq.query_id IS NULL),
               count(*) FILTER (WHERE rq.query_id IS NOT NULL AND qq.query_id IS NOT NULL)
        FROM rq FULL OUTER JOIN qq ON rq.query_id = qq.query_id""")
    findings.append(Finding("queries only in the run", label, run_only, True,
                            f"{run_only} run queries have no judgments, e.g. {run_example!r}; skipped by default, 0 "
                            f"with unjudged_queries=zero (Spark MLlib, Elasticsearch): the mean depends on it"
                            if run_only else "every run query is judged"))
    findings.append(Finding("queries only in the qrels", label, qrels_only, True,
                            f"{qrels_only} judged queries are not in the run, e.g. {qrels_example!r}; skipped by "
                            f"default, 0 with -c (missing_queries=zero): the mean depends on it" if qrels_only else
                            "the run answers every judged query"))
    near, near_example = near_query_ids(con, qrels, run)
    near_docs, near_doc_example = near_documents(con, qrels, run)
    total = near + near_docs
    findings.append(Finding("ids that differ only by white space, zeros or Unicode", label, total, True,
                            f"{near} query ids and {near_docs} document ids of the run match the qrels only after "
                            f"removing {NEAR}, e.g. "
                            f"{near_examples(near_example or near_doc_example)}; ids are compared exactly" if total else
                            f"no id matches only after removing {NEAR}"))
    for k, count in zip(cutoffs, count_ties(con, run, cutoffs).counts):
        findings.append(Finding(f"ties at cutoff {k}", label, count, True,
                                f"in {count} of {both + run_only} queries the documents at ranks {k} and {k + 1} have "
                                f"the same {'rank' if r.score_from_rank else 'score'}: @{k} values depend on how ties are "
                                f"broken (--tie-break)" if count
                                else f"no tie straddles rank {k}"))
    ranked = _one(con, f"SELECT count(*) FROM ({run}) AS run WHERE input_rank IS NOT NULL")[0]
    if ranked:  # a window over the run only where it has a rank column
        inverted, inverted_example = _one(con, f"""
            SELECT count(DISTINCT query_id) FILTER (WHERE score > previous), min(query_id) FILTER (WHERE score > previous)
            FROM (SELECT query_id, score,
                         LAG(score) OVER (PARTITION BY query_id ORDER BY input_rank, doc_id) AS previous
                  FROM ({run}) AS run) AS ordered""")
        findings.append(Finding("rank column disagrees with the scores", label, inverted, True,
                                f"in {inverted} queries a document has a higher score than one ranked above it, e.g. "
                                f"{inverted_example!r}; trec_eval ranks by score and ignores the rank column, "
                                f"--tie-break input_rank uses it" if inverted else
                                "the rank column follows the scores"))
    shares = judged_shares(con, qrels, run, cutoffs)
    text = ", ".join(f"Judged@{k} {share:.3f}" for k, share in zip(cutoffs, shares) if share is not None)
    unjudged = sum(1 for share in shares if share is not None and share < 1)
    findings.append(Finding("unjudged documents in the top k", label, unjudged, False,
                            f"mean share of judged documents: {text}; unjudged documents count as not relevant"))
    return findings


def judged_shares(con, qrels: str, run: str, cutoffs: list[int]) -> list[float | None]:
    """Per cutoff k, the mean over judged queries of the share of judged documents among the top k
    (ranked by score, ties by document id descending, as trec_eval). No sort of the run: one pass
    keeps each query's SHALLOW best (score, document) pairs for the cutoffs up to SHALLOW; a deeper
    cutoff that no query is longer than is the share among all the query's documents; only a deeper
    one that some query passes ranks the run with a window."""
    pairs = f"(SELECT DISTINCT query_id, doc_id FROM ({qrels}) AS q)"
    judged_run = (f"FROM ({run}) AS run JOIN (SELECT DISTINCT query_id FROM ({qrels}) AS q) AS judged_queries "
                  f"ON judged_queries.query_id = run.query_id")

    def mean_shares(ranked: str, ks: list[int]) -> list[float | None]:
        """The shares at ``ks`` from (query_id, doc_id, rank) rows: each query's documents ranked."""
        per_query = ", ".join(f"avg(CASE WHEN rank <= {k} THEN judged END) AS judged_{k}" for k in ks)
        return list(_one(con, f"""
            SELECT {", ".join(_exact_mean(f"judged_{k}") for k in ks)} FROM (
                SELECT query_id, {per_query}
                FROM (SELECT ranked.query_id, ranked.rank, CASE WHEN pairs.doc_id IS NULL THEN 0 ELSE 1 END AS judged
                      FROM ({ranked}) AS ranked
                      LEFT JOIN {pairs} AS pairs ON pairs.query_id = ranked.query_id AND pairs.doc_id = ranked.doc_id
                ) AS judged_ranks
                GROUP BY query_id) AS per_query"""))

    shares: dict[int, float | None] = {}
    shallow = [k for k in cutoffs if k <= SHALLOW]
    if shallow:
        best = (f"SELECT query_id, unnest(top).doc_id AS doc_id, generate_subscripts(top, 1) AS rank "
                f"FROM (SELECT run.query_id, max({{'score': run.score, 'doc_id': run.doc_id}}, {max(shallow)}) AS top "
                f"{judged_run} GROUP BY run.query_id) AS heaps")
        shares.update(zip(shallow, mean_shares(best, shallow)))
    deep = [k for k in cutoffs if k > SHALLOW]
    if deep:
        longest, whole = _one(con, f"""
            SELECT max(n), {_exact_mean("judged / n")} FROM (
                SELECT run.query_id, count(*) AS n, CAST(count(pairs.doc_id) AS DOUBLE) AS judged
                {judged_run}
                LEFT JOIN {pairs} AS pairs ON pairs.query_id = run.query_id AND pairs.doc_id = run.doc_id
                GROUP BY run.query_id) AS per_query""")
        shares.update((k, whole) for k in deep if longest is None or k >= longest)
        ranked = [k for k in deep if k not in shares]
        if ranked:
            window = (f"SELECT run.query_id, run.doc_id, ROW_NUMBER() OVER (PARTITION BY run.query_id "
                      f"ORDER BY run.score DESC, run.doc_id DESC) AS rank {judged_run}")
            shares.update(zip(ranked, mean_shares(window, ranked)))
    return [shares[k] for k in cutoffs]


def _exact_mean(share: str) -> str:
    """The mean of shares in [0, 1], summed exactly (as decimals of 18 places), so that the printed
    figure does not depend on the order the rows arrive in: a mean such as 477/1200 = 0.3975 printed
    0.397 or 0.398 from one run to the next when summed as doubles."""
    return f"avg(CAST({share} AS DECIMAL(38, 18)))"


def findings_frame(findings: list[Finding]):
    import pandas as pd

    return pd.DataFrame([asdict(f) for f in findings], columns=["check", "input", "count", "changes_numbers",
                                                                "message"])


def check_error(findings: list[Finding]) -> InputError | None:
    problems = [f for f in findings if f.problem]
    if not problems:
        return None
    return InputError(f"--strict: {len(problems)} checks found something that can change a number: "
                      + "; ".join(f"{f.check} ({f.input}: {f.count})" for f in problems))


def query_overlap(p: Plan, fetch_one, qrels_sql: str, run_sql: str) -> tuple[list[str], int]:
    """Which queries are on one side only (a warning each), in a portable query run by
    ``fetch_one`` (the engine the statement runs on)."""
    if p.listed is not None:
        return listed_overlap(p, fetch_one, qrels_sql, run_sql)
    rel = int(p.conventions.rel)
    both, qrels_only, run_only, example_qrels, example_run, both_none, qrels_only_none = fetch_one(f"""
        WITH qrels_queries AS (SELECT query_id, max(relevance) AS best FROM ({qrels_sql}) AS qrels GROUP BY query_id),
             run_queries AS (SELECT DISTINCT query_id FROM ({run_sql}) AS run)
        SELECT count(*) FILTER (WHERE q.query_id IS NOT NULL AND r.query_id IS NOT NULL),
               count(*) FILTER (WHERE r.query_id IS NULL),
               count(*) FILTER (WHERE q.query_id IS NULL),
               min(q.query_id) FILTER (WHERE r.query_id IS NULL),
               min(r.query_id) FILTER (WHERE q.query_id IS NULL),
               count(*) FILTER (WHERE r.query_id IS NOT NULL AND q.best < {rel}),
               count(*) FILTER (WHERE r.query_id IS NULL AND q.best < {rel})
        FROM qrels_queries AS q FULL OUTER JOIN run_queries AS r ON q.query_id = r.query_id
    """)
    c = p.conventions
    zero = c.missing_queries == "zero"
    # run queries without judgments: judged by unjudged_label, or scored 0 with unjudged_queries=zero
    labelled = c.unjudged_label is not None and (c.no_relevant == "zero" or c.unjudged_label >= rel)
    run_scored = labelled or (c.unjudged_queries == "zero" and c.no_relevant == "zero")
    if c.no_relevant == "skip":  # queries without a relevant judgment are not evaluated
        both, qrels_only = both - both_none, qrels_only - qrels_only_none
    evaluated = both + (qrels_only if zero else 0) + (run_only if run_scored else 0)
    if evaluated == 0:
        if example_qrels is not None and example_run is not None:
            raise InputError(
                f"no query is in both the qrels ({p.qrels.label}) and the run ({p.run.label}): qrels queries look like "
                f"{example_qrels!r}, run queries like {example_run!r}; ids are compared as exact strings "
                f"('01' is not '1')")
        empty = [source for source, example in ((p.qrels, example_qrels), (p.run, example_run)) if example is None]
        remedy = ("" if len(empty) == 2 else
                  "; with missing_queries=zero (-c) the judged queries score 0" if empty[0] is p.run else
                  "; with unjudged_queries=zero the run's queries score 0")
        raise InputError(f"nothing to evaluate: {' and '.join(f'the {s.kind} ({s.label})' for s in empty)} "
                         f"{'has' if len(empty) == 1 else 'have'} no data rows{remedy}")
    warnings = []
    if qrels_only:
        action = "scored 0 (missing_queries=zero)" if zero else "skipped (missing_queries=skip; use zero to score them 0)"
        warnings.append(f"{qrels_only} qrels queries have no results in the run and are {action}, "
                        f"e.g. {example_qrels!r}")
    if run_only:
        action = (f"judged {c.unjudged_label} throughout (unjudged_label)" if labelled else
                  "scored 0 (unjudged_queries=zero)" if run_scored else
                  "ignored (unjudged_queries=skip; use zero to score them 0)")
        warnings.append(f"{run_only} run queries have no judgments and are {action}, e.g. {example_run!r}")
    return warnings, evaluated


def listed_overlap(p: Plan, fetch_one, qrels_sql: str, run_sql: str) -> tuple[list[str], int]:
    """With a query table listing the queries: those it lists on neither side (scored 0), and the
    queries of either side it does not list (not evaluated); the number evaluated."""
    counted = "listed AND relevant" if p.conventions.no_relevant == "skip" else "listed"  # no_relevant=skip drops some
    listed, neither, example, run_out, run_example, qrels_out, qrels_example, evaluated = fetch_one(f"""
        WITH sides AS (
            SELECT query_id, 'listed' AS side FROM ({p.listed}) AS listed
            UNION ALL SELECT DISTINCT query_id, 'run' FROM ({run_sql}) AS run
            UNION ALL SELECT DISTINCT query_id, CASE WHEN relevance >= {int(p.conventions.rel)} THEN 'relevant' ELSE 'judged' END
            FROM ({qrels_sql}) AS qrels
        ), queries AS (
            SELECT query_id, bool_or(side = 'listed') AS listed, bool_or(side = 'run') AS in_run,
                   bool_or(side IN ('judged', 'relevant')) AS judged, bool_or(side = 'relevant') AS relevant
            FROM sides GROUP BY query_id
        )
        SELECT count(*) FILTER (WHERE listed),
               count(*) FILTER (WHERE listed AND NOT in_run AND NOT judged),
               min(query_id) FILTER (WHERE listed AND NOT in_run AND NOT judged),
               count(*) FILTER (WHERE in_run AND NOT listed), min(query_id) FILTER (WHERE in_run AND NOT listed),
               count(*) FILTER (WHERE judged AND NOT listed), min(query_id) FILTER (WHERE judged AND NOT listed),
               count(*) FILTER (WHERE {counted})
        FROM queries""")
    if not evaluated:
        raise InputError("the query table lists no query" + (" with a relevant judgment (no_relevant=skip)" if listed else ""))
    warnings = []
    if neither:
        warnings.append(f"{neither} listed queries have neither results nor judgments and score 0, e.g. {example!r}")
    if run_out:
        warnings.append(f"{run_out} run queries are not in the query table and are not evaluated, e.g. {run_example!r}")
    if qrels_out:
        warnings.append(f"{qrels_out} judged queries are not in the query table and are not evaluated, e.g. "
                        f"{qrels_example!r}")
    return warnings, evaluated


def data_warnings(p: Plan, con: duckdb.DuckDBPyConnection, one_sided: bool) -> list[str]:
    """The data-quality warnings that can change this evaluation's numbers and are cheap to find
    (sqlrank check finds all): ties across the requested cutoffs, query ids that match only after
    removing white space or leading zeros, queries without a relevant document. If a check
    itself runs out of resources, that is a warning too: the values are computed already."""
    warnings = []
    qrels_sql, run_sql = p.qrels.sql(), p.run.sql()
    cutoffs = sorted({int(m.cutoff) for m in p.measures if isinstance(m.cutoff, int) and not isinstance(m.cutoff, bool)
                      and m.param("tie_break") != "expected" and FAMILIES[m.family].cutoff_kind == "rank"})
    try:
        kept = None  # the run's rows as evaluated, when the tie check counts them
        if cutoffs:
            ties = count_ties(con, run_sql, cutoffs, p.slices)
            kept = ties.rows
            same = "rank in the run's rank column" if p.run.score_from_rank else "score"
            for k, count in zip(cutoffs, ties.counts):
                if count:
                    warnings.append(f"in {count} {'query' if count == 1 else 'queries'} the documents at ranks {k} "
                                    f"and {k + 1} have the same {same}, so @{k} values depend on the tie-break "
                                    f"({p.conventions.tie_break}; see --tie-break)")
        if one_sided and not p.run.per_run:
            near, example = near_query_ids(con, qrels_sql, run_sql)
            if near:
                warnings.append(f"{near} run query ids match a judged query only after removing {NEAR}, e.g. "
                                f"{near_examples(example)}; ids are compared exactly, so they are not evaluated "
                                f"together")
        if not p.run.per_run:
            near, example = near_documents(con, qrels_sql, run_sql, every_run_id=False)
            if near:
                warnings.append(f"{near} document ids of the run match a judged document of their query only after "
                                f"removing {NEAR}, e.g. {near_examples(example)}; ids are compared exactly, so they "
                                f"count as unjudged")
        if p.run.seen is not None and p.run.rows:
            if kept is None:
                kept = con.execute(f"SELECT count(*) FROM ({run_sql}) AS run").fetchall()[0][0]
            if kept == p.run.rows:
                warnings.append(f"remove-seen left out no prediction: none of the run's {kept} (user, item) pairs is "
                                f"in the history; check that both write user and item ids alike")
        rels = sorted({int(m.param("rel")) for m in p.measures if m.param("rel") is not None
                       and m.spec.scores_no_relevant})  # AUC has no value there, and says so
        for rel in rels[:1] if p.conventions.no_relevant == "zero" else ():
            count, example, queries = no_relevant(con, qrels_sql, rel)
            if count:
                warnings.append(f"{count} of {queries} judged queries have no document labelled >= {rel}, e.g. "
                                f"{example!r}; measures that divide by the relevant documents are 0 there "
                                f"(no_relevant=skip leaves them out, as recommender libraries do)")
    except duckdb.Error as exc:
        warnings.append(f"the data checks after the evaluation did not finish ({duckdb_reason(exc)}); "
                        f"sqlrank check tells what they would have found")
    return warnings


def segment_warnings(p: Plan, con: duckdb.DuckDBPyConnection) -> list[str]:
    skip = p.conventions.missing_queries == "skip"
    outside, example = con.execute(f"""
        WITH evaluated AS (
            SELECT DISTINCT query_id FROM ({p.qrels.sql()}) AS qrels
            {"INTERSECT SELECT DISTINCT query_id FROM (" + p.run.sql() + ") AS run" if skip else ""}
        )
        SELECT count(*), min(query_id) FROM evaluated
        WHERE query_id NOT IN (SELECT query_id FROM ({p.segments}) AS segments)
    """).fetchall()[0]
    if not outside:
        return []
    return [f"{outside} evaluated queries have no segment in the query table (no row, or an empty value) "
            f"and count only in the overall row, e.g. {example!r}"]


def run_queries_sql(run_sql: str, per_run: bool) -> str:
    """The run's rows with plain query ids (runs stored together key them run_id || chr(31) || query_id)."""
    if not per_run:
        return run_sql
    return f"SELECT {call_macro('_macros/dialect.sql', 'after_separator', 'query_id')} AS query_id FROM ({run_sql}) AS runs"


def require_labels_within_limits(p: Plan, fetch_one, qrels_sql: str) -> None:
    """Measures whose definition bounds the labels (the registry's label_limit: ERR's max_rel) refuse
    judgments above the bound rather than compute a number outside the measure's range."""
    limits = {str(m): (m.spec.label_limit, m.param(m.spec.label_limit)) for m in p.measures if m.spec.label_limit}
    if not limits:
        return
    top = fetch_one(f"SELECT max(relevance) FROM ({qrels_sql}) AS qrels")[0]
    label = p.conventions.unjudged_label
    for measure, (name, limit) in limits.items():
        if label is not None and label > limit:
            raise InputError(f"unjudged_label={label} is above {name}={limit} of {measure}; give a label of the "
                             f"scale, or the scale's highest label as {name}")
        if top is not None and top > limit:
            family = measure.split("(")[0].split("@")[0]
            raise InputError(f"{p.qrels.label}: a judgment has label {top}, above {name}={limit} of {measure}; give "
                             f"the highest label of the scale, as in {family}({name}={top})")
