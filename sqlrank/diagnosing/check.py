"""Checks: a data-quality report on qrels and runs before evaluating them (``sqlrank check``).

Each finding says what it is, how often it occurs, an example, and whether it can change a
number (``changes_numbers``): ``sqlrank check --strict`` fails on those. Everything is computed
by DuckDB from the inputs as sqlrank reads them; nothing is modified.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable

import duckdb

from ..diagnostics import (
    SHALLOW,
    count_ties,
    first_row,
    no_relevant,
)
from ..inputs.ids import near_documents, near_examples, near_query_ids
from ..engines.duckdb import session, session_options
from ..errors import InputError, OptionError, duckdb_reason
from ..inputs.extra import extra_inputs_sql, outside_catalog, outside_catalog_text, retrieved_outside
from ..inputs.ids import NEAR
from ..inputs.load import load
from ..inputs.source import Source
from ..inputs.merge import Judgments
from ..inputs.validate import checked_pairs_sql
from ..measures.conventions import resolve_conventions
from ..measures.resolve import resolve_measures
from ..inputs.reading import judgment_sources

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


def check(qrels: Any, runs: Iterable[Any], measures: Any = None, rel: int | float | None = None, history: Any = None,
          items: Any = None, prefer: Any = None, combine: str | None = None, groups: Any = None,
          **options: Any) -> list[Finding]:
    """Every check on the qrels and each run. ``measures`` set the cutoffs whose ties are counted
    (default: 5, 10, 20, 100, 1000); ``rel`` the minimum relevant label (default 1). With a
    recommender's ``history`` (training interactions) or ``items`` (the catalog): recommended items
    outside the catalog, recommendations the user has seen, users without history. Several judgment
    sources (``qrels`` a list or dict; ``prefer``, ``combine`` as for evaluate) are merged first, and
    the report says how many judgments each gave and where two sources judged a document apart. With the
    documents' ``groups`` (the fairness measures'): retrieved documents in no group, documents in several,
    and documents of the groups table that no run or judgment names."""
    options.update(prefer=prefer, combine=combine, groups=groups)
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
    judgments = judgment_sources(qrels, con, registry, options.get("prefer"), options.get("combine"),
                                 options.get("qrels_format"), options.get("qrels_columns"))
    qrels_source = judgments.qrels if judgments else load(
        qrels, "qrels", con, registry, options.get("qrels_format"), options.get("qrels_columns"), allow_duplicates=True)
    findings = _source_findings(judgments, con) if judgments else []
    findings += _qrels_findings(qrels_source, con, rel)
    for run in runs:
        stored = load(run, "run", con, registry, options.get("run_format"), options.get("run_columns"),
                      allow_duplicates=True)
        recommender = history is not None or items is not None
        given = {"history": history, "items": items, "groups": options.get("groups")}
        extra = extra_inputs_sql(given, qrels_source, stored, con, registry) if recommender or given["groups"] is not None \
            else None
        for run_source in stored.each_run(con):  # the runs of one table share its column names: one read
            findings += _run_findings(qrels_source, run_source, con, cutoffs)
            if recommender:
                findings += _recommender_findings(run_source, extra, con, history is not None)
            if given["groups"] is not None:
                findings += _group_findings(qrels_source, run_source, extra["groups"], con)
    if _recommender_data(qrels_source):
        findings = [_in_recommender_words(f) for f in findings]
    return findings


_WORDS = {"queries": "users", "query": "user", "documents": "items", "document": "item", "judgments": "interactions",
          "judgment": "interaction"}
_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b")


def _recommender_data(qrels: Source) -> bool:
    """Interactions of users with items: the judgments' columns are user_id and item_id."""
    return qrels.query_label == "user_id" or qrels.columns.get("doc_id") == "item_id"


def _in_recommender_words(finding: Finding) -> Finding:
    """A finding in the words of recommender data (users, items, interactions). Users without a relevant held-out
    interaction are the rule there, skipped by the recommender libraries (no_relevant=skip, their presets): said,
    not a finding that fails --strict."""
    check, message = (_WORD.sub(lambda m: _WORDS[m.group(1)], text) for text in (finding.check, finding.message))
    if finding.check == "queries without relevant documents" and finding.count:
        message += "; usual in recommender data, where --preset recbole or ms_recommenders skips them"
        return replace(finding, check=check, message=message, changes_numbers=False)
    return replace(finding, check=check, message=message)


def _source_findings(judgments: Judgments, con) -> list[Finding]:
    """How many judgments each source gave, and the documents two sources judged with different labels."""
    counts = ", ".join(f"{name} {count}" for name, count in judgments.counts.items())
    both, apart, example = first_row(con, f"""
        SELECT count(*), count(*) FILTER (WHERE low <> high), min(CASE WHEN low <> high THEN query_id || ' ' || doc_id END)
        FROM (SELECT query_id, doc_id, min(relevance) AS low, max(relevance) AS high
              FROM ({judgments.sources_sql}) AS every GROUP BY query_id, doc_id HAVING count(*) > 1) AS shared""")
    where = f" (e.g. query and document {example})" if example else ""
    return [Finding("judgment sources", judgments.qrels.label, 0, False, f"judgments: {counts}; {judgments.how}"),
            Finding("documents the sources judged apart", judgments.qrels.label, int(apart or 0), False,
                    f"{both} document{'s' if both != 1 else ''} judged by more than one source, {apart} of them with "
                    f"different labels{where}; "
                    f"the merge decides which label counts (sqlrank agree compares two sources)")]


def _group_findings(qrels: Source, r: Source, groups: str, con) -> list[Finding]:
    """What in the documents' groups changes the fairness measures: retrieved documents in no group (their
    exposure is in the top k's and in no group's), documents in several groups (each gets a share), and the
    documents of the groups table that no run or judgment names (they change nothing)."""
    ungrouped, example = retrieved_outside(groups, r, con)
    several, unknown = first_row(con, f"""
        SELECT (SELECT count(*) FROM (SELECT doc_id FROM ({groups}) AS grouped GROUP BY doc_id HAVING count(*) > 1) AS many),
               (SELECT count(DISTINCT doc_id) FROM ({groups}) AS grouped
                WHERE doc_id NOT IN (SELECT doc_id FROM ({r.sql()}) AS run)
                  AND doc_id NOT IN (SELECT doc_id FROM ({qrels.sql()}) AS judged))""")
    return [Finding("retrieved documents in no group", r.label, ungrouped, True,
                    f"{ungrouped} retrieved documents are in no group, e.g. {example!r}: their exposure counts in the "
                    f"top k's and in no group's" if ungrouped else "every retrieved document is in a group"),
            Finding("documents in several groups", r.label, several, False,
                    f"{several} documents are in more than one group: each of their groups gets an equal share of "
                    f"their exposure" if several else "no document is in more than one group"),
            Finding("grouped documents of no run or judgment", r.label, unknown, False,
                    f"{unknown} documents of the groups table are in no run and no judgment: they change nothing"
                    if unknown else "every document of the groups table is in a run or a judgment")]


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
    seen, seen_example = first_row(con, f"""
        SELECT count(*), min(run.query_id || ' / ' || run.doc_id)
        FROM ({run}) AS run
        WHERE EXISTS (SELECT 1 FROM ({extra['history']}) AS history
                      WHERE history.query_id = run.query_id AND history.doc_id = run.doc_id)""")
    findings.append(Finding("recommendations the user has seen", label, seen, True,
                            f"{seen} recommendations are items in the user's history, e.g. {seen_example!r}; "
                            f"--remove-seen leaves them out before the run is ranked (as RecBole's full ranking "
                            f"does), else they count" if seen else "no recommendation is in the user's history"))
    cold, users, cold_example = first_row(con, f"""
        SELECT count(*) FILTER (WHERE cold), count(*), min(query_id) FILTER (WHERE cold)
        FROM (SELECT query_id, query_id NOT IN (SELECT query_id FROM ({extra['history']}) AS history) AS cold
              FROM (SELECT DISTINCT query_id FROM ({run}) AS run) AS run_users) AS users""")
    findings.append(Finding("users without history", label, cold, False,
                            f"{cold} of {users} users of the run have no interaction in the history, e.g. "
                            f"{cold_example!r} (cold start: --remove-seen leaves nothing of theirs out, and "
                            f"Serendipity, a mean over users with a history, leaves them out)" if cold else
                            "every user of the run has a history"))
    return findings


def _may_repeat_pairs(con: duckdb.DuckDBPyConnection, rows: str) -> bool:
    """Whether some (query, document) pair of ``rows`` may repeat: validation's sorted-hash pass, cheaper
    than grouping the pairs, which the caller then does only when two hashes are equal (a collision
    alone: it finds none)."""
    return bool(first_row(con, checked_pairs_sql(rows, "false"))[2])


def _qrels_findings(q: Source, con, rel: int) -> list[Finding]:
    qrels, label = q.sql(), q.label
    pairs, conflicting, example = 0, 0, None
    if _may_repeat_pairs(con, qrels):
        pairs, conflicting, example = first_row(con, f"""
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
        pairs, example = first_row(con, f"""
            SELECT count(*), min(query_id || ' / ' || doc_id)
            FROM (SELECT query_id, doc_id FROM ({run}) AS run GROUP BY query_id, doc_id HAVING count(*) > 1) AS repeated""")
    findings = [Finding("duplicate documents", label, pairs, True,
                        f"{pairs} (query, document) pairs are ranked more than once, e.g. {example!r}; sqlrank eval "
                        f"refuses them, other tools count them twice (nDCG above 1)" if pairs else
                        "every document once per query")]
    run_only, qrels_only, run_example, qrels_example, both = first_row(con, f"""
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
    ranked = first_row(con, f"SELECT count(*) FROM ({run}) AS run WHERE input_rank IS NOT NULL")[0]
    if ranked:  # a window over the run only where it has a rank column
        inverted, inverted_example = first_row(con, f"""
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
        return list(first_row(con, f"""
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
        longest, whole = first_row(con, f"""
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
