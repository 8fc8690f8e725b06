"""Shared test cases: every measure of the registry in a few variants, and the convention sets the
engine tiers (DuckDB by hand, Spark, the rendered-SQL snapshots) evaluate them under; the measures
beyond accuracy on the recommender fixture, as every engine takes it."""
from __future__ import annotations

import math

import pandas as pd

import sqlrank
from conftest import FIXTURES, close, peer
from sqlrank.measures.registry import FAMILIES
from sqlrank.measures.measure import Measure


def all_measures(depth: int | None = None) -> list[Measure]:
    """Each family with and without its cutoff, and with rel=2, a gain map or GAUC's other weight where
    it takes them, and with tie_break=block where it reads it (the measures beyond accuracy aside)."""
    out = []
    for family, spec in FAMILIES.items():
        if spec.beyond_accuracy or spec.intent_aware or spec.sampled:  # own inputs: tested apart
            continue
        k = 10 if spec.cutoff_kind == "rank" else 0.5
        cutoffs = [None] if spec.cutoff == "none" else ([k] if spec.cutoff == "required" else [None, k])
        # the generated labels go up to 4: a family bounded by max_rel reads them on that scale
        variants = [{"max_rel": 4}] if "max_rel" in spec.params and spec.params["max_rel"].default < 4 else [{}]
        if "rel" in spec.params:
            variants.append({"rel": 2})
        if "gain" in spec.params:  # ERR reads a gain map with stop=ntcir, one gain per label up to max_rel
            variants.append({"gain": {1: 3, 2: 9}} if "stop" not in spec.params else
                            {"stop": "ntcir", "max_rel": 4, "gain": {1: 3, 2: 9, 3: 20, 4: 30}})
        if "weight" in spec.params:  # GAUC weighted by clicks
            variants.append({"weight": "positives"})
        if family == "NERR":  # equations 8 and 9 stop at rank k, 10 and 11 read to rank 1000
            out += [Measure(family, 10 if eq < 10 else None, {"eq": eq, **v}) for eq in (8, 9, 10, 11) for v in variants]
            continue
        out += [Measure(family, c, v) for c in cutoffs for v in variants]
        if spec.tie_block and depth is None:  # scikit-learn's tied blocks: the whole ranking only
            out.append(Measure(family, None, {"tie_break": "block"}))
    return out


# Each statement evaluates every measure at once (80 columns) under one set of conventions.
CONVENTIONS = [
    {},
    {"tie_break": "doc_id_asc", "missing_queries": "zero", "rel": 2},
    {"tie_break": "expected"},
    {"gain": "exponential", "discount": "jarvelin", "log_base": math.e, "ideal": "run"},
    {"ideal": "perfect", "ap_denominator": "retrieved_relevant", "judged_only": True},
    {"depth": 7, "ap_denominator": "min_num_rel_cutoff", "trec_eval_version": 9},
    {"tie_break": "input_rank", "gain": {1: 3, 2: 9, 3: 20}, "rel": 0},
    {"unjudged_queries": "zero", "unjudged_label": 1, "nonpositive_scores": "nonrelevant",
     "discount": {1: 1.0, 2: 0.5, 5: 0.25}},
]


def measures_for(conventions: dict) -> list[str]:
    """The names of all_measures() that these conventions allow (tie_break=expected needs the
    family's closed form; tie_break=block, the whole ranking)."""
    expected = conventions.get("tie_break") == "expected"
    return [str(m) for m in all_measures(conventions.get("depth"))
            if not expected or FAMILIES[m.family].tie_expected]


def convention_id(conventions: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in conventions.items()) or "trec_eval"


# Each family beyond accuracy at @10, then in its other variants: the features' similarity, RecBole's
# entropy (natural log, per item), a tail of items with at most 5 interactions.
VARIANTS = {"head_share": {"head_share": 0.5}, "target": {"target": "relevant", "browse": "rbp", "p": 0.8}, "similarity": {"similarity": "features"}, "per_item": {"base": "e", "per_item": True}, "tail": {"tail": 5}}


def beyond_accuracy_measures() -> list[str]:
    """Every measure beyond accuracy at @10 (GlobalAUC: no cutoff) in each variant, and two accuracy
    measures beside them."""
    out = []
    for family, spec in FAMILIES.items():
        if spec.beyond_accuracy:
            base = {"group": "drama"} if "group" in spec.params else {}  # a category of fixtures/recsys's items
            variants = [base] + [params for name, params in VARIANTS.items() if name in spec.params]
            out += [str(Measure(family, None if spec.cutoff == "none" else 10, params)) for params in variants]
    return out + ["HR@10", "NDCG@10"]


def recommender_case() -> tuple[pd.DataFrame, str, dict]:
    """fixtures/recsys as every engine reads it: the clicks a DataFrame of 0/1 labels (Spark does not
    read CSV's true and false as labels), the predictions, history, catalog and categories files."""
    folder = FIXTURES / "recsys"
    clicks = pd.read_csv(folder / "clicks.csv")
    clicks["clicked"] = clicks["clicked"].astype(int)
    return clicks, str(folder / "predictions.parquet"), dict(
        qrels_columns={"relevance": "clicked"}, history=str(folder / "history.parquet"),
        items=str(folder / "items.csv"), item_features=str(folder / "item_features.csv"))


GROUPS = str(FIXTURES / "recsys" / "item_features.csv")  # the items' categories as the fairness measures' groups


REMOVE_SEEN_MEASURES = "HR@10 NDCG@10 MAP@10 Coverage@10 Novelty@10"  # on fixtures/recsys/unfiltered.parquet


def in_duckdb(text: str, read: str) -> str:
    """A statement printed in dialect read, parsed by sqlglot (it must be one statement) and written in DuckDB's SQL:
    sqlglot.transpile, with the one parse also the check that the dialect reads it."""
    parsed = peer("sqlglot").parse(text, read=read)
    assert len(parsed) == 1 and parsed[0] is not None, f"{len(parsed)} statements in {read}"
    return parsed[0].sql(dialect="duckdb")


def assert_same_values(expected: pd.DataFrame, actual: pd.DataFrame, tol: float = 1e-12) -> None:
    """Two results (the same columns: keys and value) hold the same rows, their values within tol;
    the assertion shows the first rows that differ or are on one side only."""
    assert list(expected.columns) == list(actual.columns), (list(expected.columns), list(actual.columns))
    keys = [c for c in expected.columns if c != "value"]
    merged = expected.merge(actual, on=keys, how="outer", suffixes=("", "_actual"), indicator=True)
    near = pd.Series([close(a, e, tol) for a, e in zip(merged["value_actual"], merged["value"])], index=merged.index,
                     dtype=bool)
    bad = merged[(merged["_merge"] != "both") | ~near]
    assert bad.empty, bad.head(10).to_string()


def assert_beyond_accuracy_equals_duckdb(**engine) -> None:
    """Every measure beyond accuracy, per user and overall, evaluated on an engine (evaluate's engine
    options: engine="clickhouse", spark=session, ...) equals DuckDB's to 1e-12 on the recommender case."""
    qrels, run, options = recommender_case()
    measures = beyond_accuracy_measures()
    for per_query in (True, False):
        duck = sqlrank.evaluate(qrels, run, measures, per_query=per_query, groups=GROUPS, **options)
        other = sqlrank.evaluate(qrels, run, measures, per_query=per_query, groups=GROUPS, **engine, **options)
        whole = sum(m.spec.aggregate == "catalog" for m in sqlrank.parse_measures(measures))  # one row, query_id empty
        assert len(duck) == ((len(measures) - whole) * 200 + whole if per_query else len(measures))
        assert_same_values(duck, other)
        assert duck.attrs["queries"] == other.attrs["queries"]  # ILD, AvgPop, ...: the users with a value
    # without each user's history items (remove_seen): the run then differs from the predictions
    seen = str(FIXTURES / "recsys" / "unfiltered.parquet")
    duck = sqlrank.evaluate(qrels, seen, REMOVE_SEEN_MEASURES, per_query=True, remove_seen=True, **options)
    assert_same_values(duck, sqlrank.evaluate(qrels, seen, REMOVE_SEEN_MEASURES, per_query=True, remove_seen=True,
                                              **engine, **options))
    assert not duck.equals(sqlrank.evaluate(qrels, seen, REMOVE_SEEN_MEASURES, per_query=True, **options))


def engine_tables() -> dict[str, pd.DataFrame]:
    """The recommender case's extra inputs as tables to put in an engine: its history ("seen"), item
    catalog ("catalog") and categories ("genres")."""
    folder = FIXTURES / "recsys"
    return {"seen": pd.read_parquet(folder / "history.parquet"), "catalog": pd.read_csv(folder / "items.csv"),
            "genres": pd.read_csv(folder / "item_features.csv")}


def assert_engine_tables_equal_duckdb(**engine) -> None:
    """With the extra inputs read where they are, as tables of the engine (engine_tables, put there by
    the caller), every measure beyond accuracy per user equals DuckDB's from the files to 1e-12."""
    qrels, run, options = recommender_case()
    measures = beyond_accuracy_measures()
    expected = sqlrank.evaluate(qrels, run, measures, per_query=True, groups=GROUPS, **options)
    got = sqlrank.evaluate(qrels, run, measures, per_query=True, qrels_columns=options["qrels_columns"],
                           history="seen", items="catalog", item_features="genres", groups="genres", **engine)
    assert_same_values(expected, got)
    # remove_seen with the history read where it is
    run = str(FIXTURES / "recsys" / "unfiltered.parquet")
    expected = sqlrank.evaluate(qrels, run, REMOVE_SEEN_MEASURES, per_query=True, remove_seen=True, **options)
    got = sqlrank.evaluate(qrels, run, REMOVE_SEEN_MEASURES, per_query=True, remove_seen=True, history="seen",
                           items="catalog", qrels_columns=options["qrels_columns"], **engine)
    assert_same_values(expected, got)


def two_runs_apart(run: pd.DataFrame) -> pd.DataFrame:
    """``run`` (without its rank column) twice in one table, run_id "a" and "b", b's document ids others:
    no (query, document) pair repeats, so read as one run the two would rank together unnoticed."""
    run = run.drop(columns="rank", errors="ignore")
    return pd.concat([run.assign(run_id="a"), run.assign(run_id="b", doc_id=run.doc_id + "-b")])


def runs_stored_together(run: pd.DataFrame) -> pd.DataFrame:
    """``run`` and a second run beside it in one table (run_id "a", "b"): b's scores reordered, a third of
    its documents others, and every fifth query of a missing from b (so a query is on one side in one run)."""
    queries = sorted(run.query_id.unique())
    other = run[~run.query_id.isin(queries[::5])].copy()
    other["score"] = (other.score * 7) % 5
    other["doc_id"] = other.doc_id.where(other.index % 3 != 0, other.doc_id + "-b")
    return pd.concat([run.assign(run_id="a"), other.assign(run_id="b")], ignore_index=True)


def assert_runs_stored_together_equal_duckdb(qrels: pd.DataFrame, run: pd.DataFrame,
                                             convention_sets: tuple = ({}, {"missing_queries": "zero"}),
                                             **engine) -> None:
    """Runs stored together (a run_id column) evaluated on an engine (evaluate's engine options) equal
    DuckDB's run by run to 1e-12: every measure per query under each convention set (by default
    trec_eval's, and with queries missing from a run scored 0), and the summary under the last; and
    each run's measures over all users, on the recommender case, with and without each user's history
    items (remove_seen)."""
    stored = runs_stored_together(run)
    measures = measures_for({})
    for conventions in convention_sets:
        duck = sqlrank.evaluate(qrels, stored, measures, per_query=True, **conventions)
        assert set(duck.run_id) == {"a", "b"} and len(duck) > 1000
        assert_same_values(duck, sqlrank.evaluate(qrels, stored, measures, per_query=True, **engine, **conventions))
    summary, expected = (sqlrank.evaluate(qrels, stored, measures, **options, **convention_sets[-1])
                         for options in (engine, {}))
    assert_same_values(expected, summary)
    assert summary.attrs["queries"] == expected.attrs["queries"]  # per run: {run_id: {measure: count}}
    clicks, predictions, options = recommender_case()
    table = pd.read_parquet(predictions)
    other = table.assign(score=table.score * (1 + (table.item_id.str[1:].astype(int) % 5) / 10))
    stored = pd.concat([table.assign(run_id="a"), other.assign(run_id="b")], ignore_index=True)
    beyond = beyond_accuracy_measures()
    expected = sqlrank.evaluate(clicks, stored, beyond, groups=GROUPS, **options)
    assert expected[expected.measure == "Coverage@10"].value.nunique() == 2  # the runs' values differ
    assert_same_values(expected, sqlrank.evaluate(clicks, stored, beyond, groups=GROUPS, **engine, **options))
    unseen = "HR@10 NDCG@10 Coverage@10 Serendipity@10"  # each run's users lose their own history's items
    assert_same_values(sqlrank.evaluate(clicks, stored, unseen, remove_seen=True, per_query=True, **options),
                       sqlrank.evaluate(clicks, stored, unseen, remove_seen=True, per_query=True, **engine, **options))


DIVERSITY_MEASURES = ["alpha_nDCG@10", "alpha_nDCG(alpha=0.25)@5", "ERR_IA@5", "nERR_IA@10", "P_IA@10",
                      "StRecall@10", "NRBP", "nNRBP", "AP_IA"]


def assert_read_by_duckdb_equals_duckdb(diversity: bool = True, by_source: bool = True, **engine) -> None:
    """What DuckDB reads for another engine and copies in gives DuckDB's values per query (and in summary) to
    1e-12 there: the diversity measures on judgments per subtopic (their ideal ranking a recursive step), the
    expected exposure measures on sampled rankings, and judgments merged from several sources (preferred, and
    combined), Judged(source=NAME) counting one source's. ``diversity``/``by_source`` False: the engine refuses
    those, saying why."""
    from support.generate import sampled_rankings, subtopic_judgments

    qrels, run = subtopic_judgments(3)
    judged, samples = sampled_rankings(4)
    one = samples[samples["sample"] == "s0"].drop(columns="sample")
    llm = judged.assign(relevance=(judged.relevance + 1) % 3)
    llm = pd.concat([llm, one.head(30).assign(relevance=1).drop(columns="score")]).drop_duplicates(["query_id", "doc_id"])
    cases = [(qrels, run, DIVERSITY_MEASURES, {"tie_break": "doc_id_asc"}) if diversity else None,
             (judged, samples, ["EE_D", "EE_R(p=0.8)", "EE_L@5"], {}),
             ({"human": judged, "llm": llm}, one, ["nDCG@10", "AP", "Judged(source=llm)@10"] if by_source else
              ["nDCG@10", "AP"], {"prefer": "human,llm"}),
             ([judged, llm], one, ["nDCG@10", "P@5"], {"combine": "mean"})]
    for case in filter(None, cases):
        q, r, measures, options = case
        for per_query in (True, False):
            duck = sqlrank.evaluate(q, r, measures, per_query=per_query, **options)
            other = sqlrank.evaluate(q, r, measures, per_query=per_query, **engine, **options)
            assert len(duck) >= (40 if per_query else len(measures)) and len(duck) == len(other), measures
            assert_same_values(duck, other)
            assert duck.attrs["queries"] == other.attrs["queries"]
            assert duck.attrs.get("judgment_sources") == other.attrs.get("judgment_sources")


def assert_same_comparison(expected: pd.DataFrame, actual: pd.DataFrame, tol: float = 1e-12) -> None:
    """Two comparison tables alike: the same rows and labels, every number within ``tol``."""
    assert list(expected.columns) == list(actual.columns) and len(expected) == len(actual)
    for column in expected.columns:
        if expected[column].dtype == object or str(expected[column].dtype) in ("str", "string"):
            assert list(expected[column]) == list(actual[column]), column
        else:
            for a, b in zip(expected[column].astype("float64"), actual[column].astype("float64")):
                assert close(a, b, tol), (column, a, b)


def assert_compare_equals_duckdb(**engine) -> None:
    """sqlrank.compare on an engine (compare's engine options) equals compare on DuckDB to 1e-12: three run files,
    and the same runs as one table of runs stored together; a paired t-test and a permutation test with GSB, every
    pair of runs (Tukey's HSD), and the Markdown report's table. The per-query values are computed on the engine and
    the statistics in Python, so a difference is a difference of the engine's values."""
    compare = FIXTURES / "compare"
    qrels, files = str(compare / "qrels.txt"), [str(compare / f) for f in ("baseline.run", "rerank.run", "rerank_v2.run")]
    stored = [str(compare / "runs.parquet")]
    measures = "nDCG@10 AP P@10 RR Bpref"
    for runs in (files, stored):
        for options in ({}, {"test": "permutation", "gsb": True, "correction": "holm", "tolerance": 0.01}):
            duck = sqlrank.compare(qrels, runs, measures, **options)
            assert duck.p_value.notna().sum() == 10
            assert_same_comparison(duck, sqlrank.compare(qrels, runs, measures, **engine, **options))
        pairs = sqlrank.compare(qrels, runs, measures, pairs="all")
        assert_same_comparison(pairs, sqlrank.compare(qrels, runs, measures, pairs="all", **engine))
    on_files = sqlrank.compare(qrels, files, measures)
    assert_same_comparison(on_files, sqlrank.compare(qrels, stored, measures, **engine))  # the same runs


def assert_several_runs_equal_duckdb(**engine) -> None:
    """Several run inputs (a list of files, a dict of DataFrames) evaluated on an engine, one statement per run there,
    equal DuckDB's stacked runs to 1e-12 per query and in summary, run_id first, the queries per run alike; the
    command line prints DuckDB's bytes. (The engines said "several runs are stacked on DuckDB: evaluate there".)"""
    import subprocess
    import sys

    compare = FIXTURES / "compare"
    qrels, names = str(compare / "qrels.txt"), ("baseline", "rerank", "rerank_v2")
    files = [str(compare / f"{name}.run") for name in names]
    frames = {name: pd.read_parquet(compare / "runs.parquet").query("run_id == @name").drop(columns="run_id")
              for name in names[:2]}
    measures = "nDCG@10 AP P@10 RR Bpref"
    for runs in (files, frames):
        for per_query in (True, False):
            duck, other = (sqlrank.evaluate(qrels, runs, measures, per_query=per_query, **options)
                           for options in ({}, engine))
            assert list(other.columns) == list(duck.columns) and duck.columns[0] == "run_id"
            assert_same_values(duck, other)
            assert other.attrs["queries"] == duck.attrs["queries"]
    where = ["--engine", engine["engine"]] + (["--dsn", engine["dsn"]] if "dsn" in engine else [])
    duck, other = (subprocess.run([sys.executable, "-m", "sqlrank", "eval", qrels, *files, "-m", measures, *flags],
                                  capture_output=True, text=True) for flags in ([], where))
    assert other.returncode == 0 and other.stdout == duck.stdout, other.stderr


def assert_report_equals_duckdb(folder, **engine) -> None:
    """The HTML report on an engine (its per-query values, precision-recall curves and each run's top documents with
    their labels computed there) equals the report on DuckDB: the page is the same but for the curves' last bits
    (a sum of fractions added in the engine's order), which agree to 1e-12; three run files, and one table of runs
    stored together. (The HTML report was refused on every engine.)"""
    import re

    compare = FIXTURES / "compare"
    qrels = str(compare / "qrels.txt")
    number = re.compile(r'data-precision="([^"]*)"')
    for runs in ([str(compare / f"{name}.run") for name in ("baseline", "rerank", "rerank_v2")],
                 [str(compare / "runs.parquet")]):
        pages = []
        for where, options in (("duckdb", {}), ("engine", engine)):
            path = folder / f"{where}.html"
            sqlrank.report(qrels, runs, "AP nDCG@10 P@10", str(path), **options)
            pages.append(path.read_text())
        duck, other = pages
        assert number.sub("", duck) == number.sub("", other) and "unjudged" in duck
        found = [(float(a), float(b)) for a, b in zip(number.findall(duck), number.findall(other))]
        assert len(found) == len(number.findall(duck)) > 20 and all(abs(a - b) < 1e-12 for a, b in found)


def keyed_tables(con) -> list[tuple]:
    """Tables with a second key beside the query in schema ds of ``con`` (a DuckDB connection), and what each printed
    statement reads from them: (qrels table, run table, measures, options, the same inputs as sqlrank.evaluate takes
    them). tests/rendering/test_sql.py and tests/engines/test_postgres.py read them."""
    from support.generate import sampled_rankings, subtopic_judgments

    qrels, run = subtopic_judgments(3)
    judged, samples = sampled_rankings(4)
    llm = judged.assign(relevance=(judged.relevance + 1) % 3)
    both = pd.concat([judged.assign(judge="human"), llm.assign(judge="llm")]).rename(columns={"query_id": "topic"})
    one = samples[samples["sample"] == "s0"].drop(columns="sample").rename(columns={"query_id": "topic"})
    con.execute("CREATE SCHEMA IF NOT EXISTS ds")
    for name, frame in dict(intents=qrels, ranked=run, judged=judged, samples=samples, both=both, one=one).items():
        con.register("frame", frame)
        con.execute(f"CREATE TABLE ds.{name} AS SELECT * FROM frame")
        con.unregister("frame")
    topic = {"query_id": "topic"}
    sources = {"qrels_columns": topic | {"source": "judge"}, "run_columns": topic}
    return [("ds.intents", "ds.ranked", "alpha_nDCG@10 AP_IA NRBP nNRBP P_IA@5 StRecall@10", {"tie_break": "doc_id_asc"},
             (qrels, run, {"tie_break": "doc_id_asc"})),
            ("ds.judged", "ds.samples", "EE_D EE_R(p=0.8) EE_L@5", {}, (judged, samples, {})),
            ("ds.both", "ds.one", "nDCG@10 AP Judged(source=llm)@10", {"prefer": "llm"} | sources,
             ({"human": judged, "llm": llm}, one.rename(columns={"topic": "query_id"}), {"prefer": "llm,human"})),
            ("ds.both", "ds.one", "nDCG@10 P@5", {"combine": "mean"} | sources,
             ({"human": judged, "llm": llm}, one.rename(columns={"topic": "query_id"}), {"combine": "mean"}))]
