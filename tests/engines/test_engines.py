"""The embedded engines: DataFusion, ClickHouse (chDB) and SQLite run the statement rendered in their dialect.
Every measure under the engine tiers' convention sets, per query, equals DuckDB to 1e-12 on
generated data with ties, graded and negative labels and one-sided queries; the measures beyond
accuracy, with their extra inputs copied in, on the recommender fixture."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from support.cases import (CONVENTIONS, assert_beyond_accuracy_equals_duckdb, assert_compare_equals_duckdb, assert_engine_tables_equal_duckdb,
                   assert_read_by_duckdb_equals_duckdb, assert_runs_stored_together_equal_duckdb, assert_several_runs_equal_duckdb, assert_report_equals_duckdb, assert_same_values, convention_id, engine_tables,
                   measures_for, recommender_case, two_runs_apart)
from conftest import ROOT, close, peer
from support.generate import generate

pytestmark = pytest.mark.slow  # starts DataFusion and ClickHouse (chdb) in the process

ENGINES = ["datafusion", "clickhouse", "sqlite"]
# Where a dialect cannot compute a measure, it says so (its Dialect's unsupported).
REFUSED = {"datafusion": {"RR", "Success"}, "clickhouse": set(), "sqlite": set()}
PACKAGES = {"datafusion": "datafusion", "clickhouse": "chdb", "sqlite": "sqlite3"}


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(45, n_queries=120, signed_zeros=True)
    run["rank"] = run.groupby("query_id").cumcount() + 1  # the input order, for tie_break=input_rank
    return qrels, run


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
@pytest.mark.parametrize("engine", ENGINES)
def test_every_measure_equals_duckdb(engine, data, conventions):
    peer(PACKAGES[engine])
    qrels, run = data
    measures = measures_for(conventions)
    if engine == "sqlite" and conventions.get("trec_eval_version") == 9:  # SQLite has no 32-bit float
        with pytest.raises(sqlrank.MeasureError, match="sqlite has no 32-bit float type"):
            sqlrank.evaluate(qrels, run, measures, engine=engine, **conventions)
        return
    if conventions.get("tie_break") == "expected" and REFUSED[engine]:
        refused = [m for m in measures if sqlrank.parse_measures(m)[0].family in REFUSED[engine]]
        with pytest.raises(sqlrank.MeasureError, match=f"cannot be computed in {engine}"):
            sqlrank.evaluate(qrels, run, refused[:1], engine=engine, **conventions)
        measures = [m for m in measures if m not in refused]
    duck = sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions)
    other = sqlrank.evaluate(qrels, run, measures, per_query=True, engine=engine, **conventions)
    assert len(duck) > 1000
    assert_same_values(duck, other)
    summary = sqlrank.evaluate(qrels, run, measures, engine=engine, **conventions)
    expected = sqlrank.evaluate(qrels, run, measures, **conventions)
    assert list(summary.measure) == list(expected.measure) and summary.attrs["queries"] == expected.attrs["queries"]
    assert all(close(a, b, 1e-12) for a, b in zip(summary.value, expected.value))


@pytest.mark.parametrize("engine", ENGINES)
def test_measures_beyond_accuracy_equal_duckdb(engine):
    peer(PACKAGES[engine])
    assert_beyond_accuracy_equals_duckdb(engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_subtopics_samples_and_merged_judgments_equal_duckdb(engine):
    """The diversity measures (a recursive ideal ranking), expected exposure and merged judgment sources, read by
    DuckDB and copied in; SQLite refuses the first, DataFusion one source's count, each saying why."""
    peer(PACKAGES[engine])
    assert_read_by_duckdb_equals_duckdb(diversity=engine != "sqlite", by_source=engine != "datafusion", engine=engine)
    qrels = pd.DataFrame({"query_id": ["q1"], "subtopic": ["1"], "doc_id": ["d1"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    if engine == "sqlite":
        with pytest.raises(sqlrank.MeasureError, match="window functions, which SQLite does not allow in recursion"):
            sqlrank.evaluate(qrels, run, "alpha_nDCG@10", engine=engine)
    if engine == "datafusion":
        with pytest.raises(sqlrank.MeasureError, match="a subquery inside an expression, which DataFusion does not"):
            sqlrank.evaluate({"a": qrels, "b": qrels}, run, "Judged(source=a)@10", engine=engine, prefer="a,b")


@pytest.mark.parametrize("engine", ENGINES)
def test_runs_stored_together_equal_duckdb(engine, data):
    peer(PACKAGES[engine])
    assert_runs_stored_together_equal_duckdb(*data, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_several_run_inputs_equal_duckdb(engine):
    peer(PACKAGES[engine])
    assert_several_runs_equal_duckdb(engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_html_report_on_the_engine_equals_duckdb(engine, tmp_path):
    peer(PACKAGES[engine])
    assert_report_equals_duckdb(tmp_path, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_command_line_evaluates_in_the_engine(engine):
    peer(PACKAGES[engine])
    demo = ROOT / "fixtures" / "demo"
    args = [str(demo / "qrels.test"), str(demo / "results.test"), "-m", "nDCG@10 AP P@10 Bpref IPrec@0.5", "-q"]
    duck = subprocess.run([sys.executable, "-m", "sqlrank", "eval", *args], capture_output=True, text=True)
    other = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--engine", engine, *args], capture_output=True,
                           text=True)
    assert other.returncode == 0, other.stderr
    assert other.stdout == duck.stdout


@pytest.mark.parametrize("engine", ENGINES)
def test_compare_on_the_engine_equals_duckdb(engine):
    """The per-query values of every run computed in the engine, the statistics in Python: the same table as DuckDB's
    to 1e-12 (support/cases.py); the command line's compare, its Markdown report and meta print what DuckDB's print,
    and what the engine cannot do is refused before anything is evaluated."""
    peer(PACKAGES[engine])
    assert_compare_equals_duckdb(engine=engine)
    compare = ROOT / "fixtures" / "compare"
    args = [str(compare / "qrels.txt"), str(compare / "baseline.run"), str(compare / "rerank.run"), "-m", "nDCG@10 AP"]
    for command in (["compare"], ["compare", "--all-pairs"], ["report", "-f", "markdown", "-o", "-"]):
        duck, other = (subprocess.run([sys.executable, "-m", "sqlrank", *command, *args, *where], capture_output=True,
                                      text=True) for where in ([], ["--engine", engine]))
        assert other.returncode == 0, other.stderr
        assert other.stdout == duck.stdout and "0.2762" in other.stdout, other.stdout
        assert other.stderr == duck.stderr and "ranks 10 and 11 have the same score" in other.stderr  # ties: warned
    judging = ROOT / "fixtures" / "judging"
    meta = [str(judging / name) for name in ("human.txt", "llm.csv", "bm25.run", "dense.run", "splade.run")]
    duck, other = (subprocess.run([sys.executable, "-m", "sqlrank", "meta", *meta, "-m", "nDCG@10 AP", *where],
                                  capture_output=True, text=True) for where in ([], ["--engine", engine]))
    assert other.returncode == 0 and other.stdout == duck.stdout and "tau_ap" in other.stdout, other.stderr
    with pytest.raises(sqlrank.OptionError, match="query table"):
        sqlrank.compare(args[0], args[1:3], "AP", engine=engine, queries=str(compare / "topics.csv"), by="segment")


def test_a_datafusion_context_s_own_tables_are_read_by_name(data):
    datafusion = peer("datafusion")
    import pyarrow as pa

    qrels, run = data
    context = datafusion.SessionContext()
    judged = qrels.rename(columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"})
    context.register_record_batches("judged", [pa.Table.from_pandas(judged, preserve_index=False).to_batches()])
    context.register_record_batches("ranked", [pa.Table.from_pandas(run.drop(columns="rank"),
                                                                    preserve_index=False).to_batches()])
    got = sqlrank.evaluate("judged", "ranked", "nDCG@10 AP", per_query=True, datafusion=context,
                           qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"})
    assert "topic" in got.columns  # per query, ids are called as the tables call them
    sqlrank.evaluate(qrels, run, "nDCG@10", datafusion=context)  # copies of a DataFrame, gone afterwards
    assert context.catalog().schema().names() == {"judged", "ranked"}
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="rank"), "nDCG@10 AP", per_query=True),
                       got.rename(columns={"topic": "query_id"}))


@pytest.mark.parametrize("engine", ENGINES)
def test_extra_inputs_that_are_tables_of_the_engine_are_read_there(engine):
    assert_engine_tables_equal_duckdb(**_engine_tables(engine, engine_tables()))
    if engine == "datafusion":  # feature vectors are unnested by DuckDB only
        vectors = pd.DataFrame({"item_id": ["i000", "i001"], "features": [[1.0, 0.0], [0.5, 0.5]]})
        qrels, run, options = recommender_case()
        with pytest.raises(sqlrank.InputError, match="item features table vectors: feature vectors are unnested by "
                                                     "DuckDB: give them as a file or a pandas DataFrame"):
            sqlrank.evaluate(qrels, run, "ILD(similarity=features)@10", history="seen", item_features="vectors",
                             qrels_columns=options["qrels_columns"],
                             **_engine_tables(engine, {"seen": engine_tables()["seen"], "vectors": vectors}))
        seen = engine_tables()["seen"].astype(object)
        seen.iloc[3, 0] = None  # a row without its user
        with pytest.raises(sqlrank.InputError, match="history table seen: 1 rows have no query_id or doc_id"):
            sqlrank.evaluate(qrels, run, "Novelty@10", history="seen", qrels_columns=options["qrels_columns"],
                             **_engine_tables(engine, {"seen": seen}))


def test_tables_in_place_are_read_as_files_are(data):
    """A table of user_id and item_id is read as a file of them is: the usual recommender names stand
    for query_id and doc_id, and judgments without a label column are implicit feedback."""
    datafusion = peer("datafusion")
    import pyarrow as pa

    qrels, run = data
    clicks = qrels[qrels.relevance > 0][["query_id", "doc_id"]].rename(columns={"query_id": "user_id",
                                                                               "doc_id": "item_id"})
    scored = run.drop(columns="rank").rename(columns={"query_id": "user_id", "doc_id": "item_id"})
    context = datafusion.SessionContext()
    for name, frame in (("clicks", clicks), ("scored", scored)):
        context.register_record_batches(name, [pa.Table.from_pandas(frame, preserve_index=False).to_batches()])
    got = sqlrank.evaluate("clicks", "scored", "nDCG@10 AP P@5", per_query=True, datafusion=context)
    assert "user_id" in got.columns
    assert_same_values(sqlrank.evaluate(clicks, scored, "nDCG@10 AP P@5", per_query=True), got)


@pytest.mark.parametrize("engine", ENGINES)
def test_labels_written_true_or_false_in_a_table_of_the_engine(engine):
    qrels, run, options = recommender_case()
    written = qrels.assign(clicked=qrels.clicked.map({1: "true", 0: "False"}))
    expected = sqlrank.evaluate(qrels, run, "HR@10 NDCG@10 AP", per_query=True, qrels_columns=options["qrels_columns"])
    got = sqlrank.evaluate("clicks", run, "HR@10 NDCG@10 AP", per_query=True, qrels_columns=options["qrels_columns"],
                           **_engine_tables(engine, {"clicks": written}))
    assert_same_values(expected, got)


def _tables_in_place(engine, data):
    """Tables of the engine's own session, read where they are (with their own column names), and
    the evaluate() options that name them."""
    qrels, run = data
    judged = qrels.rename(columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"})
    ranked = run.drop(columns="rank").rename(columns={"query_id": "topic", "doc_id": "doc"})
    repeated = pd.concat([ranked, ranked.head(3)])  # three pairs twice
    not_a_number = ranked.assign(score=ranked.score.where(ranked.index != 5, float("nan")))
    two_runs = two_runs_apart(run).rename(columns={"query_id": "topic", "doc_id": "doc"})
    unnamed = pd.concat([ranked.assign(run_id="a"), ranked.head(4).assign(run_id=""),  # none, and the separator
                         ranked.head(2).assign(run_id="b\x1fc")])
    tables = {"judged": judged, "ranked": ranked, "repeated": repeated, "not_a_number": not_a_number,
              "two_runs": two_runs, "unnamed_runs": unnamed}
    return _engine_tables(engine, tables)


def _engine_tables(engine, tables: dict) -> dict:
    """DataFrames put in the engine's own session as tables of those names: the evaluate() options that
    read them there (DataFusion's SessionContext, or chDB's one session)."""
    import pyarrow as pa

    if engine == "sqlite":  # a database of the caller's, with the declared types pandas would give the columns
        import sqlite3

        connection = sqlite3.connect(":memory:")
        for name, frame in tables.items():
            frame.to_sql(name, connection, index=False, dtype={c: "REAL" if t.kind == "f" else "INTEGER" if t.kind in "iub"
                                                               else "TEXT" for c, t in frame.dtypes.items()})
        return {"sqlite": connection}
    if engine == "datafusion":
        context = peer("datafusion").SessionContext()
        for name, frame in tables.items():
            context.register_record_batches(name, [pa.Table.from_pandas(frame, preserve_index=False).to_batches()])
        return {"datafusion": context}
    peer("chdb")
    from sqlrank.engines.clickhouse import chdb_session

    session = chdb_session()  # chDB keeps one engine per process: sqlrank's session holds the tables
    for name, frame in tables.items():
        session.query(f"DROP TABLE IF EXISTS {name}")
        columns = ", ".join(f"{c} {'Float64' if t.kind == 'f' else 'Int32' if t.kind == 'i' else 'String'}"
                            for c, t in frame.dtypes.items())
        session.query(f"CREATE TABLE {name} ({columns}) ENGINE = Memory")
        values = ", ".join("(" + ", ".join("nan" if isinstance(v, float) and v != v else repr(v) if isinstance(v, str)
                                           else str(v) for v in row) + ")" for row in frame.itertuples(index=False))
        session.query(f"INSERT INTO {name} VALUES {values}")
    return {"engine": "clickhouse"}


@pytest.mark.parametrize("engine", ENGINES)
def test_real_labels_and_fractions_where_whole_numbers_belong(engine, data):
    """Real labels (0.7, -0.25) in a table of the engine, or copied there from a DataFrame, give DuckDB's
    values (test_real_labels checks those against the formulas); whole numbers in a float column (1.0,
    as pandas stores labels beside a NaN) are read as integers. Ids and ranks with a fraction are errors."""
    qrels, run = data
    real, _ = generate(45, n_queries=120, signed_zeros=True, real_labels=True)
    floats = qrels.assign(relevance=qrels.relevance.astype(float))
    options = _engine_tables(engine, {"floats": floats, "reals": real})
    measures = "nDCG@10 nDCG(gain=exponential) AP P(rel=0.5)@5 ERR@10 RBP Bpref(rel=1.5)"
    assert_same_values(sqlrank.evaluate(qrels, run, measures, per_query=True),
                       sqlrank.evaluate("floats", run, measures, per_query=True, **options))
    expected = sqlrank.evaluate(real, run, measures, per_query=True)
    assert_same_values(expected, sqlrank.evaluate("reals", run, measures, per_query=True, **options))
    assert_same_values(expected, sqlrank.evaluate(real, run, measures, per_query=True, engine=engine))
    float_ids = _engine_tables(engine, {"float_ids": run.assign(query_id=pd.factorize(run.query_id)[0] + 0.5)})
    with pytest.raises(sqlrank.InputError, match=r"table float_ids: column 'query_id' \(query_id\) is (double|Float64); "
                                                 r"ids must be text or integers"):
        sqlrank.evaluate(floats, "float_ids", "AP", **float_ids)
    scores = _engine_tables(engine, {"scores": run.drop(columns="score").assign(rank=run.score)})
    with pytest.raises(sqlrank.InputError, match=r"table scores: \d+ ranks are no whole number >= 0; the run has no "
                                                 r"score column and is ranked by its rank"):
        sqlrank.evaluate(floats, "scores", "AP", **scores)
    ranks = _engine_tables(engine, {"ranks": run.drop(columns="score")})  # 1 = best, ties among them
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="score"), "nDCG@10 AP", per_query=True),
                       sqlrank.evaluate(qrels, "ranks", "nDCG@10 AP", per_query=True, **ranks))


@pytest.mark.parametrize("engine", ENGINES)
def test_tables_read_in_place_are_checked_as_duckdb_checks_inputs(engine, data):
    """A table of the engine's session is validated where it is: a repeated (query, document) pair, a
    NaN score, a missing column or a run without a name are errors, never numbers; a table of runs
    stored together (run_id) is evaluated run by run, as DuckDB evaluates it. The tables are named
    like steps of the statement (judged, ranked), which must not hide them."""
    options = _tables_in_place(engine, data)
    columns = {"qrels_columns": {"query_id": "topic", "doc_id": "doc", "relevance": "label"},
               "run_columns": {"query_id": "topic", "doc_id": "doc"}}
    qrels, run = data
    got = sqlrank.evaluate("judged", "ranked", "nDCG@10 AP", per_query=True, **columns, **options)
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="rank"), "nDCG@10 AP", per_query=True),
                       got.rename(columns={"topic": "query_id"}))
    for table, message in (("repeated", "table repeated: 3 rows repeat a \\(query_id, doc_id\\) pair"),
                           ("not_a_number", "table not_a_number: 1 rows have no score \\(NULL or NaN\\)"),
                           ("unnamed_runs", "table unnamed_runs: 6 rows have an empty run_id \\(column 'run_id'\\) "
                                            "or one holding the character chr\\(31\\)")):
        with pytest.raises(sqlrank.InputError, match=message):
            sqlrank.evaluate("judged", table, "AP", **columns, **options)
    with pytest.raises(sqlrank.InputError, match="table judged: no columns 'query_id', 'doc_id', 'relevance'"):
        sqlrank.evaluate("judged", "ranked", "AP", run_columns=columns["run_columns"], **options)
    # a table of runs stored together is evaluated run by run, as DuckDB evaluates the same DataFrame
    assert_same_values(sqlrank.evaluate(qrels, two_runs_apart(run), "nDCG@10 AP", per_query=True),
                       sqlrank.evaluate("judged", "two_runs", "nDCG@10 AP", per_query=True, **columns, **options)
                       .rename(columns={"topic": "query_id"}))


@pytest.mark.parametrize("engine", ENGINES)
def test_what_only_duckdb_takes_is_refused_on_the_engine(engine, data):
    peer(PACKAGES[engine])
    qrels, run = data
    name = {"datafusion": "DataFusion", "clickhouse": "ClickHouse", "sqlite": "SQLite"}[engine]
    for options, message in (({"threads": 2, "memory_limit": "1GB"},
                              f"memory_limit, threads: DuckDB settings, which do not apply on {name}"),
                             ({"slices": 2}, f"slices= is for DuckDB: {name} runs the whole statement itself"),
                             ({"queries": pd.DataFrame({"query_id": ["1"], "kind": ["a"]}), "by": "kind"},
                              "a query table (queries=, by=) is read on DuckDB only")):
        with pytest.raises(sqlrank.OptionError) as caught:
            sqlrank.evaluate(qrels, run, "AP", engine=engine, **options)
        assert message in str(caught.value)


def test_clickhouse_reads_a_backslash_and_a_quote_in_names_as_themselves(data):
    """ClickHouse reads backslash escapes inside quoted names and strings ('\\n' is a new line): a
    column named with a backslash and a double quote is quoted so that it names that column."""
    options = _tables_in_place("clickhouse", data)
    qrels, run = data
    from sqlrank.engines.clickhouse import chdb_session

    weird = 'sc"o\\re'
    session = chdb_session()
    session.query("DROP TABLE IF EXISTS weird_ranked")
    session.query('CREATE TABLE weird_ranked ENGINE = Memory AS SELECT topic, doc, score AS "sc\\"o\\\\re" FROM ranked')
    named = session.query("SELECT name FROM system.columns WHERE table = 'weird_ranked' AND name LIKE 'sc%'", "CSV")
    assert named.bytes().decode() == '"sc""o\\re"\n'  # the column's name, as CSV writes it
    got = sqlrank.evaluate("judged", "weird_ranked", "nDCG@10 AP", per_query=True, **options,
                           qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                           run_columns={"query_id": "topic", "doc_id": "doc", "score": weird})
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="rank"), "nDCG@10 AP", per_query=True),
                       got.rename(columns={"topic": "query_id"}))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("labels, measure", [
    ([1024, 3], "nDCG(gain=exponential)@10"),
    ([1, 2], "nDCG(gain={1: 1.7e308, 2: 1.7e308})"),
])
def test_gains_beyond_a_double_are_an_error_on_the_engine(engine, labels, measure):
    """As on DuckDB (test_trust.py): an error, never a number. The engines gave NaN back unchecked, and SQLite, where
    a NaN is NULL, 0.0; there such gains are refused before the statement runs."""
    peer(PACKAGES[engine])
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2"], "relevance": labels})
    run = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.raises(sqlrank.SqlrankError, match="overflows? a double|must sum to less than 1.8e308"):
        sqlrank.evaluate(qrels, run, measure, engine=engine)
