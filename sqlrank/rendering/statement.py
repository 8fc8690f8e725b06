"""Render SQL from the templates in sql/. Python decides; templates only fill in SQL.

Only three kinds of values reach a template: identifiers (through ``ident``), string
literals such as file paths (through ``literal``), and numbers Python has validated
(through ``number``). Everything else is fixed template text.
"""
from __future__ import annotations

from ..errors import MeasureError
from ..measures.conventions import RANKING_FIELDS
from ..measures.family import FAMILY_STEPS, ONE_ROW_STEPS
from ..measures.measure import counted, renamed
from ..measures.registry import FAMILIES
from ..version import __version__
from .dialects import Dialect
from .sqltext import inline_windows, render_template, wrap_sql
from .steps import (
    GROUP_KEYS,
    StepPlan,
    add_new,
    column_name,
    least_label,
    measure_context,
    one_row_steps,
    ranking_key,
    require_distinct_step_columns,
    sparse,
)

OUTPUTS = ("per_query", "summary", "both", "segments", "relstring", "slice", "slices", "slices_summary")


def _pieces(plan: StepPlan, output: str, judgments: bool, perfect: bool, mixed: bool,
            recommender: bool = False, sources: bool = False, intents: bool = False, samples: bool = False,
            prepared: Prepared = ()) -> list[dict]:
    """The parts of the statement, in order: a file of sql/evaluation/ each, with what it renders; a step made
    before (``prepared``: an Evaluator's tables of the steps that read the judgments alone) is read from its table."""
    rankings = list(plan.rankings.values())
    if output in ("slices", "slices_summary"):  # the slices' rows are in a table: catalog steps from items' counts
        return ([{"template": "evaluation/recommender_inputs.sql"}] if recommender else []) + \
            [{"template": "evaluation/catalog.sql", "ranking": ranking} for ranking in rankings if ranking["catalog"]] + \
            [{"template": "evaluation/slices.sql"}]
    made = {name: (table, columns) for name, table, columns in prepared}
    pieces = [{"template": "evaluation/inputs.sql"},
              _prepared_piece(made, "evaluated_queries") or {"template": "evaluation/evaluated_queries.sql"}]
    if sources:
        pieces.append({"template": "evaluation/judgment_sources.sql"})
    if intents:
        pieces.append({"template": "evaluation/subtopic_judgments.sql"})
    if samples:
        pieces.append({"template": "evaluation/sampled_rankings.sql"})
    if output == "segments":
        pieces.append({"template": "evaluation/query_segments.sql"})
    if recommender:
        pieces.append({"template": "evaluation/recommender_inputs.sql"})
    if mixed:
        pieces.append({"template": "evaluation/answered_queries.sql"})
    if judgments:
        pieces.append(_prepared_piece(made, "judgments") or {"template": "evaluation/judgments.sql"})
    if perfect:
        pieces.append({"template": "evaluation/perfect_discounts.sql"})
    pieces += [_prepared_piece(made, spec["name"], spec["name"] + "_dcg") or {"template": "evaluation/ideal.sql",
                                                                             "ideal": spec}
               for spec in plan.ideals.values() if spec["columns"] and spec["source"] == "qrels"]
    if any(ranking["sparse"] for ranking in rankings):
        pieces.append(_prepared_piece(made, "numbered_qrels") or {"template": "evaluation/numbered_qrels.sql"})
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


# Steps made before into tables: (step name, table name, the table's columns but query_id), an Evaluator's.
Prepared = tuple[tuple[str, str, tuple[str, ...]], ...]


def _prepared_piece(made: dict, *names: str) -> dict | None:
    """The piece reading steps made before from their tables (sql/evaluation/prepared_steps.sql), when all were."""
    if not all(name in made for name in names):
        return None
    return {"template": "evaluation/prepared_steps.sql",
            "steps": [{"name": name, "table": made[name][0], "columns": made[name][1]} for name in names]}


def render_prepared(qrels_sql: str, measures: list, conventions, *, dialect: Dialect) -> dict[str, str]:
    """The steps of the evaluation's statement that read the judgments alone (the judged queries numbered, the
    judgments with their numbers, their counts, the ideal rankings of the judgments and their DCG) and best_labels
    (each query's highest label, which the guards read), by name: each the SQL of its rows over every judged query
    (sql/prepared.sql), the same rows, query by query, as the statement computes for the queries it evaluates."""
    _, _, shared = _planned(measures, conventions, dialect, "summary", False)
    names = ["best_labels", "evaluated_queries", "numbered_qrels"]
    names += ["judgments"] if shared["judgment_columns"] else []
    names += [name for spec in shared["ideals"] if spec["source"] == "qrels"
              for name in (spec["name"], spec["name"] + "_dcg")]
    pieces = [{"template": "evaluation/numbered_qrels.sql"}]
    pieces += [{"template": "evaluation/judgments.sql"}] if shared["judgment_columns"] else []
    pieces += [{"template": "evaluation/ideal.sql", "ideal": spec} for spec in shared["ideals"]
               if spec["source"] == "qrels"]
    steps = render_template(dialect, "prepared.sql", **shared, pieces=pieces, qrels_sql=qrels_sql)  # rendered once
    steps = steps if dialect.named_windows else inline_windows(steps)
    return {name: wrap_sql(f"{steps}SELECT * FROM {name}\n") for name in names}


def _planned(measures: list, conventions, dialect: Dialect, output: str, by_run: bool) -> tuple[StepPlan, list, dict]:
    """The statement's steps as its measures need them: the plan, each measure's context, the shared steps."""
    plan = StepPlan(conventions, dialect, grouped="segment" if output == "segments" else "run" if by_run else None)
    by_ranking: dict = {}
    for measure in measures:
        by_ranking.setdefault(ranking_key(measure), []).append(measure)
    plan.sparse = {key: output != "relstring" and sparse(group) for key, group in by_ranking.items()}
    plan.least_label = {key: least_label(group) for key, group in by_ranking.items() if plan.sparse[key]}
    contexts, columns = _measure_contexts(measures, conventions, plan)
    if not plan.rankings:  # relstring: the evaluation's own ranking
        plan.ranking(*(getattr(conventions, name) for name in RANKING_FIELDS))
    shared = _collect_steps(plan, contexts)
    if output in ("summary", "segments"):  # per-query rows are counted in Python (results.shape)
        _add_count_columns(contexts, columns, measures)
    return plan, contexts, shared


def render_evaluation(qrels_sql: str, run_sql: str, measures: list, conventions, output: str,
                      relstring_length: int = 10, segments_sql: str | None = None, by_run: bool = False,
                      listed_sql: str | None = None, reread_inputs: bool = False, recommender: dict | None = None,
                      slices_table: str | None = None, sources_sql: str | None = None, intents_sql: str | None = None,
                      samples_sql: str | None = None, prepared: Prepared = (), checks_sql: str | None = None, *,
                      dialect: Dialect) -> str:
    """The one SQL statement of an evaluation. ``measures`` are resolved Measure objects;
    ``output`` is "per_query", "summary", "both", "segments" (the summary over all queries and
    over each segment of ``segments_sql``, rows of query_id and segment), or "relstring"
    (trec_eval's relstring of the top ``relstring_length`` documents of each query; ``measures``
    is then empty). ``reread_inputs``: the inputs give the same rows each time they are read
    (Source.rescannable), so DuckDB may scan them where they are used instead of holding them.
    ``recommender``: SQL of the extra inputs of measures beyond accuracy (plan.recommender_sql); ``sources_sql``:
    (query_id, doc_id, relevance, source) of judgments merged from several; ``intents_sql``: (query_id, subtopic,
    doc_id, relevance); ``samples_sql``: (query_id, sample, doc_id, score), sampled rankings.
    Evaluated in slices of queries: output "slice" is one slice's per-query rows with a doc_id column
    (NULL), then how often each item is in the slice's top k (query_id NULL, measure the count's
    column, doc_id the item), for the measures over all users; output "slices" is the per-query rows and the summary
    of all slices, whose rows are in the table ``slices_table`` (the inputs' SQL is not read), "slices_summary" the
    summary alone, with the queries each measure has a value for. ``prepared``: steps made before into tables,
    read from them (an Evaluator's, render_prepared). ``checks_sql``: one row of the run's checks, read with the
    summary rows (a struct column ``checks``; outputs "summary" and "both"), in the statement's first step (a table
    they read by a name a later step has, judged or ranked, is the table there)."""
    _check_output(output, segments_sql, by_run, listed_sql, slices_table, dialect, checks_sql)
    plan, contexts, shared = _planned(measures, conventions, dialect, output, by_run)
    populations, unjudged = _query_rules(contexts, conventions, listed_sql is not None)
    mixed, zeroed = len(populations) > 1 or len(unjudged) > 1, any(c["zero_when_unanswered"] for c in contexts)
    if not (populations == unjudged == {"skip"} and conventions.no_relevant in ("zero", "error") and not zeroed
            and listed_sql is None):  # the queries evaluated are not the judged ones the run answers
        prepared = tuple(step for step in prepared if step[0] not in ("evaluated_queries", "numbered_qrels"))
    pieces = _pieces(plan, output, bool(shared["judgment_columns"]), bool(shared["perfect_columns"]), mixed,
                     recommender is not None, sources_sql is not None, intents_sql is not None, samples_sql is not None,
                     prepared)
    text = render_template(
        dialect, "evaluate.sql", **shared,
        measure_names=[c["name"] for c in contexts], canonical=renamed(measures),
        conventions=conventions.describe(),
        pieces=([{"template": "evaluation/run_checks.sql"}] if checks_sql else []) + pieces,
        recommender=recommender, qrels_sql=qrels_sql, run_sql=run_sql, sources_sql=sources_sql,
        intents_sql=intents_sql, samples_sql=samples_sql, recursive=intents_sql is not None,
        missing_queries="zero" if "zero" in populations else "skip",
        unjudged_queries="zero" if "zero" in unjudged else "skip",
        mixed_missing=len(populations) > 1, mixed_unjudged=len(unjudged) > 1, mixed_population=mixed,
        unjudged_label=conventions.unjudged_label, zeroed=zeroed,  # zeroed: 0 where the run does not answer
        no_relevant=conventions.no_relevant, relevant_level=conventions.rel,
        counted=any(c["count_column"] for c in contexts),
        measures=contexts, rows=_rows(contexts, measures), output=output, both=output == "both",
        slices_table=dialect.ident(slices_table) if slices_table is not None else None,
        relstring_length=relstring_length, segments_sql=segments_sql, listed_sql=listed_sql,
        grouped=plan.grouped, group_key=GROUP_KEYS.get(plan.grouped),
        segment_steps=[name for ranking in plan.rankings.values() for name in one_row_steps(ranking)]
        if plan.grouped == "segment" else [],
        by_run=by_run, reread_inputs=reread_inputs,
        judged_number=by_run and any(step[0] == "numbered_qrels" for step in prepared),
        checks=checks_sql is not None, checks_sql=checks_sql,
    )
    if not dialect.named_windows:
        text = inline_windows(text)
    return wrap_sql(text)


def _query_rules(contexts: list[dict], conventions, listed: bool) -> tuple[set, set]:
    """The rules for one-sided queries (missing_queries) and queries without judgments (unjudged_queries) the
    measures follow; listed queries are the evaluated ones, whatever those rules."""
    if listed:
        return {"zero"}, {"zero"}
    return ({c["missing_queries"] for c in contexts} or {conventions.missing_queries},
            {c["unjudged_queries"] for c in contexts} or {conventions.unjudged_queries})


def _check_output(output: str, segments_sql: str | None, by_run: bool, listed_sql: str | None,
                  slices_table: str | None, dialect: Dialect, checks_sql: str | None = None) -> None:
    """The output asked for goes with the arguments given, and the dialect can give it."""
    if output not in OUTPUTS:
        raise ValueError(output)
    if checks_sql is not None and output not in ("summary", "both"):
        raise ValueError("the run's checks are read with the summary rows")
    if (output in ("slices", "slices_summary")) != (slices_table is not None):
        raise ValueError("slices_table goes with outputs 'slices' and 'slices_summary'")
    if (output == "segments") != (segments_sql is not None):
        raise ValueError("segments_sql goes with output 'segments'")
    if listed_sql is not None and (by_run or segments_sql is not None):
        raise ValueError("listed queries are not keyed by run nor grouped in segments")
    if by_run and output not in ("per_query", "summary", "both"):
        raise ValueError("runs stored together give per-query or summary rows")
    if dialect.printed_only and output in ("relstring", "segments"):
        raise MeasureError(f"the {dialect} statement gives per-query or summary rows; segments and relstrings "
                           f"are for DuckDB")


def _rows(contexts: list[dict], measures: list) -> list[dict]:
    """The output's rows: a measure's context, then a copy under each other name it was asked by (HR@10 Success@10:
    two rows of one column)."""
    return [row for context, measure in zip(contexts, measures)
            for row in [context, *({**context, "name": alias} for alias in getattr(measure, "aliases", ()))]]


def _measure_contexts(measures: list, conventions, plan: StepPlan) -> tuple[list[dict], set[str]]:
    """Each measure's template context, and the column names taken (the measures', their weights')."""
    contexts, columns = [], set()
    for measure in measures:
        column = column_name(str(measure), columns)
        columns.add(column)
        contexts.append(measure_context(measure, column, plan, conventions.trec_eval_version))
        # no_relevant=one: a query without a relevant judgment scores 1 in a measure of relevance (TorchMetrics' "pos")
        contexts[-1]["one_when_no_relevant"] = conventions.no_relevant == "one" and measure.spec.scores_one
    for context in contexts:  # each query's weight, beside its value, for a weighted mean (GAUC)
        if context["aggregate"] == "weighted":
            context["weight_column"] = column_name(f"{context['name']} weight", columns)
            columns.add(context["weight_column"])
    require_distinct_step_columns(contexts, columns)
    return contexts, columns


def _add_count_columns(contexts: list[dict], columns: set[str], measures: list) -> None:
    """A column counting the queries with a value, beside each measure whose mean may be over fewer
    queries than were evaluated (the summary says how many)."""
    counted_names = counted(measures)
    for context in contexts:
        if context["name"] in counted_names:
            context["count_column"] = column_name(f"{context['name']} queries", columns)
            columns.add(context["count_column"])


def _collect_steps(plan: StepPlan, contexts: list[dict]) -> dict:
    """Every measure's step columns gathered into its ranking's steps (each column once, whichever
    measures ask for it), and the statement's shared steps: judgments, the ideal and perfect rankings."""
    shared = {"version": __version__, "judgment_columns": [], "perfect_columns": [], "perfect_depth": 0}
    rankings = {ranking["sfx"]: ranking for ranking in plan.rankings.values()}
    for context in contexts:
        ranking, steps = rankings[context["ranking"]], context["steps"]
        ranking["measures"].append(context)
        for step in ("judged", "ranked", "retrieved", "listed", "ordered", "catalog"):
            add_new(ranking[step], steps[step])
        ranking["popularity"] |= "popularity" in FAMILIES[context["family"]].reads
        add_new(ranking["outer"], steps["tie"] + steps["running"])
        ranking["ties"] |= bool(steps["tie"])
        ranking["running"] |= bool(steps["running"])
        ranking["join_judgments"] |= "judgments_in_ranking" in FAMILIES[context["family"]].reads
        add_new(shared["judgment_columns"], steps["judgments"])
        add_new(plan.ideals[context["ideal"]["spec"]]["columns"], steps["ideal"])
        if steps["perfect"]:
            add_new(shared["perfect_columns"], steps["perfect"])
            shared["perfect_depth"] = max(shared["perfect_depth"], context["cutoff"])
        for step in FAMILY_STEPS:
            if steps[step]:
                # its columns, the first measure's context, and every cutoff of the measures that read it
                lines, _, cutoffs = ranking["step_columns"].setdefault((step, context["step_names"][step]),
                                                                       ([], context, []))
                add_new(lines, steps[step])
                cutoffs.append(context["cutoff"])
    several = len(plan.rankings) > 1
    for number, ranking in enumerate(plan.rankings.values()):
        # the per-item counts of the catalog step, by name: a slice's rows of them (measure: the name and ranking)
        ranking["times"] = [{"column": listed.name, "name": listed.name + ranking["sfx"]} for listed in ranking["listed"]]
        if ranking["sparse"] and ranking["outer"]:
            raise RuntimeError("a ranking of judged documents only cannot have tie groups or running windows")
        ranking["counts"] = ranking["sparse"] and any("retrieved_count" in FAMILIES[c["family"]].reads_for(c)
                                                      for c in ranking["measures"])
        ranking["part"] = f"per_query_ranking_{number + 1}" if several else "per_query"
        for context in ranking["measures"]:
            context["part"] = ranking["part"]
        ranking["ctes"] = [{"step": step, "name": name, "columns": lines, "measure": context,
                            "one_row": step in ONE_ROW_STEPS, "depth": _depth(cutoffs)}
                           for (step, name), (lines, context, cutoffs) in ranking["step_columns"].items()]
    shared["ideals"] = [spec for spec in plan.ideals.values() if spec["columns"]]
    shared["rankings"] = list(plan.rankings.values())
    return shared


def _depth(cutoffs: list):
    """The ranks a family step reads: the largest cutoff of its measures, None (all) when one has none."""
    return None if None in cutoffs else max(cutoffs)
