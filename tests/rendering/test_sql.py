"""sqlrank sql / sqlrank.render: the printed statement, run by hand, returns what sqlrank eval
returns, for every measure under every convention; every dialect parses with sqlglot."""
from __future__ import annotations

import csv
import re
import io
import subprocess
import sys

import duckdb
import pytest

import sqlrank
import pandas as pd

from support.cases import (CONVENTIONS, in_duckdb, keyed_tables, GROUPS, assert_same_values, beyond_accuracy_measures, convention_id,
                           engine_tables, measures_for, recommender_case, runs_stored_together)
from support.tiers import tiered
from conftest import FIXTURES, close, peer
from support.generate import generate, sampled_rankings, subtopic_judgments


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sql")
    qrels, run = generate(43, n_queries=150)
    run["rank"] = run.groupby("query_id").cumcount() + 1
    paths = {"parquet": (folder / "qrels.parquet", folder / "run.parquet"),
             "trec": (folder / "qrels.txt", folder / "run.txt")}
    qrels.to_parquet(paths["parquet"][0])
    run.to_parquet(paths["parquet"][1])
    paths["trec"][0].write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples()))
    paths["trec"][1].write_text("".join(f"{r.query_id} Q0 {r.doc_id} {r.rank} {r.score!r} t\n" for r in run.itertuples()))
    return paths


@pytest.mark.parametrize("fmt", tiered(["parquet", "trec"]))
@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
def test_printed_sql_run_by_hand_equals_eval_per_query(files, fmt, conventions):
    """Bit for bit on one thread from Parquet (both read the same file). With several threads
    DuckDB adds a query's partial sums in the order its threads finish, so the last bit of a sum
    of fractions may differ from run to run (of sqlrank eval too), and TREC text reaches the
    sums in another order when read from the file than from sqlrank's validated copy: those
    agree to 1e-14 (relative)."""
    qrels, run = map(str, files[fmt])
    measures = measures_for(conventions)
    expected = sqlrank.evaluate(qrels, run, measures, per_query=True, threads=1, **conventions)
    text = sqlrank.render(qrels, run, measures, per_query=True, **conventions)
    single = duckdb.connect(config={"threads": 1})
    rows = single.execute(text).fetchall()
    assert [(q, m) for q, m, _ in rows] == list(zip(expected.query_id, expected.measure))
    if fmt == "parquet":
        assert all(close(v, e, 0) for (_, _, v), e in zip(rows, expected.value))  # exactly
    parallel = duckdb.connect().execute(text).fetchall()
    assert all(close(v, e, 1e-14, rel=1e-14) for (_, _, v), e in zip(parallel, expected.value))
    summary = single.execute(sqlrank.render(qrels, run, measures, **conventions)).fetchall()
    expected_summary = sqlrank.evaluate(qrels, run, measures, threads=1, **conventions)
    assert [row[0] for row in summary] == list(expected_summary.measure)
    assert all(close(row[1], e, 1e-14, rel=1e-14) for row, e in zip(summary, expected_summary.value))
    if summary and len(summary[0]) == 3:  # measures with no value for some queries: how many have one
        assert {row[0]: row[2] for row in summary} == expected_summary.attrs["queries"]


def test_cli_sql_output_equals_eval_csv(files, tmp_path):
    qrels, run = map(str, files["trec"])
    args = [qrels, run, "-m", "nDCG@10 AP P@10 Bpref RBP(p=0.8)", "--gain", "exponential", "-c"]
    printed = subprocess.run([sys.executable, "-m", "sqlrank", "sql", *args, "-q"], capture_output=True, text=True)
    evaluated = subprocess.run([sys.executable, "-m", "sqlrank", "eval", *args, "-q", "-f", "csv"],
                               capture_output=True, text=True)
    assert printed.returncode == 0 and evaluated.returncode == 0, printed.stderr + evaluated.stderr
    rows = duckdb.connect(config={"threads": 1}).execute(printed.stdout).fetchall()
    shown = list(csv.reader(io.StringIO(evaluated.stdout)))[1:]
    assert [(q, m) for q, m, _ in rows] == [tuple(r[:2]) for r in shown]
    assert all(close(v, float(r[2]), 1e-15) for (_, _, v), r in zip(rows, shown))


def test_sql_with_table_names_refers_to_those_tables(files, tmp_path):
    database = tmp_path / "eval.duckdb"
    qrels, run = map(str, files["parquet"])
    with duckdb.connect(str(database)) as con:
        con.execute(f"CREATE TABLE judgments AS SELECT * FROM read_parquet('{qrels}')")
        con.execute(f"CREATE VIEW my_run AS SELECT * FROM read_parquet('{run}')")
    printed = subprocess.run([sys.executable, "-m", "sqlrank", "sql", "judgments", "my_run", "-m", "AP nDCG@5",
                              "--database", str(database)], capture_output=True, text=True)
    assert printed.returncode == 0, printed.stderr
    assert 'FROM "judgments"' in printed.stdout and 'FROM "my_run"' in printed.stdout
    with duckdb.connect(str(database), read_only=True) as con:
        rows = con.execute(printed.stdout).fetchall()
    expected = sqlrank.evaluate(qrels, run, "AP nDCG@5")
    assert [m for m, _ in rows] == list(expected.measure)
    assert all(close(v, e, 1e-12) for (_, v), e in zip(rows, expected.value))


@pytest.mark.parametrize("dialect, read", [("duckdb", "duckdb"), ("spark", "spark")])
def test_every_rendered_dialect_parses_with_sqlglot(files, dialect, read):
    sqlglot = peer("sqlglot")
    qrels, run = map(str, files["parquet"])
    for conventions in CONVENTIONS:
        for per_query in (False, True):
            text = sqlrank.render(qrels, run, measures_for(conventions), per_query=per_query, dialect=dialect,
                                  **conventions)
            parsed = sqlglot.parse(text, read=read)
            assert len(parsed) == 1 and parsed[0] is not None
    trec = sqlrank.render(*map(str, files["trec"]), "AP", dialect=dialect)
    assert len(sqlglot.parse(trec, read=read)) == 1


def test_spark_dialect_refuses_what_spark_cannot_read(files):
    qrels = str(FIXTURES / "formats" / "qrels.csv") if (FIXTURES / "formats" / "qrels.csv").exists() else None
    if qrels:
        with pytest.raises(sqlrank.OptionError, match="Spark SQL cannot read a CSV header"):
            sqlrank.render(qrels, str(files["parquet"][1]), "AP", dialect="spark")
    import pandas as pd
    with pytest.raises(sqlrank.OptionError, match="exists only in this Python process"):
        sqlrank.render(pd.read_parquet(files["parquet"][0]), str(files["parquet"][1]), "AP", dialect="spark")
    with pytest.raises(sqlrank.OptionError, match="dialect 'oracle'"):
        sqlrank.render(str(files["parquet"][0]), str(files["parquet"][1]), "AP", dialect="oracle")


@pytest.mark.parametrize("conventions", tiered(CONVENTIONS, 3), ids=convention_id)
def test_ranking_of_judged_documents_only_equals_ranking_every_document(files, conventions, monkeypatch):
    """Measures that read only judged documents (and counts of the retrieved) rank the run on its own
    and carry only its judged documents on (steps.sparse), only its relevant ones when the
    measures read no other (steps.least_label); the values equal the full ranking's, query by
    query."""
    from sqlrank.measures.registry import FAMILIES
    from sqlrank.rendering import prepared
    from sqlrank.rendering import statement as templates

    qrels, run = map(str, files["parquet"])
    measures = [m for m in measures_for(conventions)
                if "all_retrieved" not in FAMILIES[sqlrank.parse_measures(m)[0].family].reads]
    text = sqlrank.render(qrels, run, measures, per_query=True, **conventions)
    expect_sparse = not conventions.get("judged_only") and conventions.get("tie_break") != "expected" \
        and conventions.get("ideal") != "perfect" and conventions.get("nonpositive_scores", "rank") == "rank"
    assert ("run_ranked" in text) == expect_sparse
    sparse = sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions)
    # alone, the measures that read relevant documents only (or those with a gain) join fewer judgments
    labelled = [m for m in measures if FAMILIES[sqlrank.parse_measures(m)[0].family].labels != "all"]
    labelled_text = sqlrank.render(qrels, run, labelled, per_query=True, **conventions)
    assert ("WHERE numbered_qrels.relevance >" in labelled_text) == expect_sparse
    fewer = sqlrank.evaluate(qrels, run, labelled, per_query=True, **conventions)
    monkeypatch.setattr(templates, "sparse", lambda ranking: False)
    monkeypatch.setattr(prepared, "RENDERED", {})  # statements rendered before were sparse
    assert "run_ranked" not in sqlrank.render(qrels, run, measures, per_query=True, **conventions)
    dense = sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions)
    assert list(zip(sparse.query_id, sparse.measure)) == list(zip(dense.query_id, dense.measure))
    assert all(close(a, b, 1e-12) for a, b in zip(sparse.value, dense.value))
    values = {(q, m): v for q, m, v in zip(dense.query_id, dense.measure, dense.value)}
    assert len(fewer) > 0 and all(close(v, values[(q, m)], 1e-12) for q, m, v in zip(fewer.query_id, fewer.measure,
                                                                                       fewer.value))
    if expect_sparse:  # families that count retrieved or unjudged documents read per-query counts beside
        assert "retrieved_counts" in text


def test_inputs_are_reread_only_when_they_give_the_same_rows(files):
    """Files and DataFrames are scanned where the statement uses them (NOT MATERIALIZED); a
    DuckDB relation may differ from one scan to the next (USING SAMPLE), so it is read once."""
    qrels, run = map(str, files["parquet"])
    assert sqlrank.render(qrels, run, "AP").count("NOT MATERIALIZED") == 2
    con = duckdb.connect()
    sampled = con.sql(f"SELECT * FROM read_parquet('{run}') USING SAMPLE 50 PERCENT (bernoulli)")
    assert "NOT MATERIALIZED" not in sqlrank.render(qrels, sampled, "AP", connection=con)
    assert "NOT MATERIALIZED" not in sqlrank.render(qrels, run, "AP", dialect="spark")


def test_tables_of_a_database_file_for_eval_check_compare_and_sql(files, tmp_path):
    """--database DB_FILE: QRELS and RUN may name its tables or views (opened read-only), in every
    command that reads them; without it a bare name says where tables come from."""
    qrels, run = map(str, files["parquet"])
    path = tmp_path / "eval.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(f"CREATE TABLE my_qrels AS SELECT * FROM read_parquet('{qrels}')")
        con.execute(f"CREATE VIEW my_run AS SELECT * FROM read_parquet('{run}')")

    def sqlrank_cli(*args):
        done = subprocess.run([sys.executable, "-m", "sqlrank", *args], capture_output=True, text=True, cwd=tmp_path)
        assert "Traceback" not in done.stderr
        return done

    expected = sqlrank_cli("eval", qrels, run, "-m", "nDCG@10 AP", "-f", "csv", "-q").stdout
    assert sqlrank_cli("eval", "--database", str(path), "my_qrels", "my_run", "-m", "nDCG@10 AP", "-f", "csv",
                       "-q", "--threads", "1").stdout == expected
    checked = sqlrank_cli("check", "--database", str(path), "my_qrels", "my_run")
    assert checked.returncode == 0 and "findings can change a number" in checked.stdout
    compared = sqlrank_cli("compare", "--database", str(path), "my_qrels", "my_run", run, "-m", "AP", "-f", "csv")
    assert compared.returncode == 0 and compared.stdout.count("\n") == 3
    printed = sqlrank_cli("sql", "--database", str(path), "my_qrels", "my_run", "-m", "AP")
    assert '"my_qrels"' in printed.stdout and '"my_run"' in printed.stdout
    missing = sqlrank_cli("eval", "my_qrels", "my_run", "-m", "AP")
    assert missing.returncode != 0 and "--database DB_FILE" in missing.stderr
    nofile = sqlrank_cli("eval", "--database", str(tmp_path / "none.duckdb"), "my_qrels", "my_run", "-m", "AP")
    assert nofile.returncode != 0 and "no such DuckDB database file" in nofile.stderr


@pytest.mark.parametrize("dialect, read", [("postgres", "postgres"), ("clickhouse", "clickhouse"),
                                           ("datafusion", "duckdb")])
def test_table_dialects_parse_with_sqlglot(files, dialect, read):
    """The statements of the engines that read tables (their values are checked on the engines
    themselves: tests/engines/test_postgres.py, tests/engines/test_engines.py) parse in their dialect; files are
    refused by PostgreSQL's SQL with a clear error."""
    sqlglot = peer("sqlglot")
    qrels, run = map(str, files["parquet"])
    con = duckdb.connect()
    con.execute(f"CREATE TABLE judged AS SELECT * FROM read_parquet('{qrels}')")
    con.execute(f"CREATE TABLE ranked AS SELECT * FROM read_parquet('{run}')")
    for conventions in CONVENTIONS:
        measures = [m for m in measures_for(conventions) if dialect != "datafusion"
                    or conventions.get("tie_break") != "expected" or not m.startswith(("RR", "Success"))]
        text = sqlrank.render("judged", "ranked", measures, per_query=True, dialect=dialect, connection=con,
                              **conventions)
        assert max(len(line) for line in text.splitlines()) < 160
        parsed = sqlglot.parse(text, read=read)
        assert len(parsed) == 1 and parsed[0] is not None
    with pytest.raises(sqlrank.OptionError, match=f"the {dialect} statement reads tables, not files") as caught:
        sqlrank.render(qrels, run, "AP", dialect=dialect)
    engine = dialect in ("postgres", "clickhouse", "datafusion")  # printed-only dialects have no --engine
    assert (f"--engine {dialect}" in str(caught.value)) == engine, str(caught.value)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["trino", "bigquery", "snowflake", "redshift", "databricks"])
def test_printed_warehouse_dialects_parse_and_give_duckdbs_values(files, dialect):
    """Trino, BigQuery and Snowflake statements are printed, not run here: every measure under the
    engine tiers' convention sets parses with sqlglot in that dialect, in lines under 160
    characters, and, translated by sqlglot into DuckDB's SQL with that dialect's meaning (BigQuery's
    LOG(x, 2) is Snowflake's LOG(2, x): either swapped fails here), gives sqlrank's values query by
    query; what a dialect cannot do is an error that says so."""
    sqlglot = peer("sqlglot")
    qrels, run = map(str, files["parquet"])
    con = duckdb.connect()
    con.execute(f"CREATE TABLE judged AS SELECT * FROM read_parquet('{qrels}')")
    con.execute(f"CREATE TABLE ranked AS SELECT * FROM read_parquet('{run}')")
    printed = 0
    for conventions in CONVENTIONS:
        if conventions.get("trec_eval_version") == 9 and dialect in ("bigquery", "snowflake"):
            with pytest.raises(sqlrank.MeasureError, match="no 32-bit float"):
                sqlrank.render("judged", "ranked", "AP", dialect=dialect, connection=con, **conventions)
            continue
        measures = [m for m in measures_for(conventions) if dialect not in ("snowflake", "redshift")
                    or conventions.get("tie_break") != "expected" or not m.startswith(("RR", "Success"))]
        for per_query in (False, True):
            text = sqlrank.render("judged", "ranked", measures, per_query=per_query, dialect=dialect,
                                  connection=con, **conventions)
            assert max(len(line) for line in text.splitlines()) < 160
            parsed = sqlglot.parse(text, read=dialect)
            assert len(parsed) == 1 and parsed[0] is not None
            printed += 1
        translated = con.execute(parsed[0].sql(dialect="duckdb")).fetchall()  # the per-query tree parsed above
        expected = sqlrank.evaluate("judged", "ranked", measures, per_query=True, connection=con, **conventions)
        assert len(translated) == len(expected) > 1000
        for (query, measure, value), want in zip(translated, expected.itertuples()):
            assert (query, measure) == (want.query_id, want.measure)
            assert close(value, want.value, 1e-9), (conventions, query, measure, value, want.value)
        if dialect in ("snowflake", "redshift"):
            assert "WINDOW" not in text and " OVER ranking" not in text
    assert printed >= 12
    # runs stored together (run_id): each run's values, per run and query, as sqlrank's
    con.register("stored", runs_stored_together(con.execute("SELECT * FROM ranked").df()))
    con.execute("CREATE TABLE ranked_runs AS SELECT * FROM stored")
    measures = measures_for({})
    text = sqlrank.render("judged", "ranked_runs", measures, per_query=True, dialect=dialect, connection=con)
    assert max(len(line) for line in text.splitlines()) < 160
    translated = con.execute(in_duckdb(text, dialect)).fetchall()
    expected = sqlrank.evaluate("judged", "ranked_runs", measures, per_query=True, connection=con)
    assert len(translated) == len(expected) > 1000 and {row[0] for row in translated} == {"a", "b"}
    for (run_id, query, measure, value), want in zip(translated, expected.itertuples()):
        assert (run_id, query, measure) == (want.run_id, want.query_id, want.measure)
        assert close(value, want.value, 1e-9), (run_id, query, measure, value, want.value)
    if dialect == "databricks":  # Spark SQL: Parquet files read where they are, as Spark reads them
        assert "parquet.`" in sqlrank.render(qrels, run, "AP", dialect=dialect)
    else:
        with pytest.raises(sqlrank.OptionError, match=f"the {dialect} statement reads tables, not files") as caught:
            sqlrank.render(qrels, run, "AP", dialect=dialect)
        assert "--engine" not in str(caught.value) and "load the files there first" in str(caught.value)
    if dialect in ("snowflake", "redshift"):
        with pytest.raises(sqlrank.MeasureError, match=f"cannot be computed in {dialect}"):
            sqlrank.render("judged", "ranked", "RR", dialect=dialect, connection=con, tie_break="expected")


@pytest.mark.parametrize("dialect", tiered(["bigquery", "spark", "trino", "snowflake", "redshift", "databricks", "postgres",
                                            "clickhouse", "sqlite", "datafusion"], 2))
def test_sql_from_table_names_alone(files, dialect):
    """sqlrank sql --dialect D dataset.qrels dataset.run with nothing to read here prints the very statement that a
    DuckDB database holding those tables gives (whose values the dialects' own tests check), with the columns
    named by a mapping and the labels' type declared; every measure under every convention set parses in the
    dialect (sqlglot) where sqlglot reads it."""
    qrels, run = map(str, files["parquet"])
    con = duckdb.connect()
    con.execute("CREATE SCHEMA ds")
    con.execute(f"CREATE TABLE ds.judged AS SELECT query_id AS qid, doc_id, relevance FROM read_parquet('{qrels}')")
    con.execute(f"CREATE TABLE ds.ranked AS SELECT query_id AS qid, doc_id, score FROM read_parquet('{run}')")
    columns = {"qrels_columns": {"query_id": "qid"}, "run_columns": {"query_id": "qid"}}
    read = {"spark": "spark", "datafusion": "duckdb", "sqlite": "sqlite"}.get(dialect, dialect)
    sqlglot = peer("sqlglot")
    for conventions in CONVENTIONS[:3]:
        try:
            expected = sqlrank.render("ds.judged", "ds.ranked", measures_for(conventions), per_query=True,
                                      dialect=dialect, connection=con, **columns, **conventions)
        except sqlrank.SqlrankError as exc:  # what the dialect cannot do is said the same way from names alone
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                sqlrank.render("ds.judged", "ds.ranked", measures_for(conventions), per_query=True, dialect=dialect,
                               label_type="integer", **columns, **conventions)
            continue
        alone = sqlrank.render("ds.judged", "ds.ranked", measures_for(conventions), per_query=True, dialect=dialect,
                               label_type="integer", **columns, **conventions)
        assert alone == expected
        assert len(sqlglot.parse(alone, read=read)) == 1
    schema = duckdb.connect()  # a schema-only database: its tables' columns and label type, no rows
    schema.execute("CREATE SCHEMA ds")
    schema.execute("CREATE TABLE ds.judged (qid VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    schema.execute("CREATE TABLE ds.ranked (qid VARCHAR, doc_id VARCHAR, score DOUBLE)")
    assert sqlrank.render("ds.judged", "ds.ranked", "nDCG@10 P@5", dialect=dialect, connection=schema, **columns) == \
        sqlrank.render("ds.judged", "ds.ranked", "nDCG@10 P@5", dialect=dialect, label_type="integer", **columns)
    real = sqlrank.render("ds.judged", "ds.ranked", "nDCG@10", dialect=dialect, **columns)
    assert "CAST(\"relevance\" AS INTEGER)" not in real and real.lower().count("ds") >= 2  # Snowflake's "DS"
    with pytest.raises(sqlrank.InputError, match="label type 'whole'"):
        sqlrank.render("ds.judged", "ds.ranked", "P@5", dialect=dialect, label_type="whole")


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["trino", "bigquery", "snowflake", "redshift", "databricks", "postgres", "clickhouse",
                                     "spark"])
def test_measures_beyond_accuracy_printed_with_their_tables(dialect):
    """The measures beyond accuracy printed for another database read the history, catalog, item features and
    groups as that database's tables: the statement parses in the dialect and, translated into DuckDB's SQL by
    sqlglot and run on tables of those names, gives sqlrank's values per user to 1e-12; from names alone (no
    DuckDB file) the statement is the same; a file as an extra input is refused."""
    qrels, run, options = recommender_case()
    con = duckdb.connect()
    con.execute("CREATE SCHEMA ds")
    for name, frame in {"clicks": qrels, "predictions": pd.read_parquet(run), **engine_tables()}.items():
        con.register("frame", frame)
        con.execute(f"CREATE TABLE ds.{name} AS SELECT * FROM frame")
        con.unregister("frame")
    tables = dict(history="ds.seen", items="ds.catalog", item_features="ds.genres", groups="ds.genres")
    measures = beyond_accuracy_measures()
    read = "spark" if dialect == "databricks" else dialect
    whole = {str(m) for m in sqlrank.parse_measures(measures) if m.spec.aggregate == "catalog"}  # no value per user
    for per_query in (False, True):
        text = sqlrank.render("ds.clicks", "ds.predictions", measures, per_query=per_query, dialect=dialect,
                              connection=con, qrels_columns=options["qrels_columns"], **tables)
        assert max(len(line) for line in text.splitlines()) < 160
        translated = con.execute(in_duckdb(text, read)).df()
        expected = sqlrank.evaluate(qrels, run, measures, per_query=per_query, groups=GROUPS, **options)
        if per_query:
            expected = expected[~expected.measure.isin(whole)].reset_index(drop=True)
            translated = translated[~translated.measure.isin(whole)].reset_index(drop=True)
        translated = translated.iloc[:, :len(expected.columns)]  # the summary's column of users with a value aside
        translated.columns = expected.columns
        assert_same_values(expected, translated)
    if dialect in ("trino", "bigquery", "snowflake", "redshift", "databricks"):  # names alone: their default columns
        alone = sqlrank.render("ds.clicks", "ds.predictions", measures, per_query=True, dialect=dialect,
                               qrels_columns=options["qrels_columns"] | {"query_id": "user_id", "doc_id": "item_id"},
                               run_columns={"query_id": "user_id", "doc_id": "item_id"},
                               **tables | {"groups": "ds.groupings"})  # a group column, as a name alone has
        alone = in_duckdb(alone, read)
        con.execute('CREATE VIEW ds.groupings AS SELECT item_id, category AS "group" FROM ds.genres')
        translated = con.execute(alone).df()
        translated = translated[~translated.measure.isin(whole)].reset_index(drop=True)
        translated.columns = expected.columns
        assert_same_values(expected, translated)
    with pytest.raises(sqlrank.OptionError, match="a table of that database: give its name"):
        sqlrank.render("ds.clicks", "ds.predictions", "Coverage@10", dialect=dialect, connection=con,
                       qrels_columns=options["qrels_columns"], items=options["items"])


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["trino", "bigquery", "snowflake", "redshift", "databricks", "spark", "clickhouse",
                                     "datafusion", "sqlite", "duckdb"])
def test_subtopics_samples_and_sources_printed_from_tables(dialect):
    """Judgments per subtopic, sampled rankings and judgments of several sources in one table (a source column,
    merged by prefer or combine) printed for another database read its tables: the statement parses in the dialect
    and, translated into DuckDB's SQL by sqlglot, gives sqlrank's values per query to 1e-12; from names alone the
    statement is the same. A dialect that cannot run a measure says why (the diversity measures' recursive step
    with window functions; DataFusion and a subquery in an expression). PostgreSQL's statements run on a real
    server (test_postgres.py): sqlglot reads its NUMERIC as DuckDB's DECIMAL(18,3)."""
    con = duckdb.connect()
    read = {"databricks": "spark", "datafusion": "duckdb"}.get(dialect, dialect)
    refused = {"datafusion": "Judged", "clickhouse": None, "duckdb": None}.get(dialect, "alpha_nDCG")
    checked = 0
    for qrels, run, measures, options, (q, r, expected_options) in keyed_tables(con):
        if refused and refused in measures:
            why = "a subquery inside an expression" if refused == "Judged" else "a recursive step with window functions"
            with pytest.raises(sqlrank.MeasureError, match=f"cannot be computed in {dialect}: .*{why}"):
                sqlrank.render(qrels, run, measures, dialect=dialect, connection=con, **options)
            continue
        text = sqlrank.render(qrels, run, measures, per_query=True, dialect=dialect, connection=con, **options)
        assert max(len(line) for line in text.splitlines()) < 160
        translated = in_duckdb(text, read)
        if dialect != "duckdb":
            assert text == sqlrank.render(qrels, run, measures, per_query=True, dialect=dialect, label_type="integer",
                                          **options)
            text = translated
        got = con.execute(text).df()
        got.columns = ["query_id", "measure", "value"]
        assert_same_values(sqlrank.evaluate(q, r, measures, per_query=True, **expected_options), got)
        checked += 1
    assert checked == (3 if refused else 4)


def test_subtopics_and_samples_printed_read_the_files_themselves(tmp_path):
    """The DuckDB statement sqlrank sql prints for the diversity and expected exposure measures reads the judgments
    per subtopic and the sampled rankings from their files (TREC text, CSV, Parquet), not from sqlrank's copies:
    run in a fresh DuckDB, it gives sqlrank eval's values."""
    qrels, run = subtopic_judgments(5)
    judged, samples = sampled_rankings(6)
    (tmp_path / "q.txt").write_text("".join(f"{a} {b} {c} {d}\n" for a, b, c, d in qrels.itertuples(index=False)))
    qrels.to_csv(tmp_path / "q.csv", index=False)
    judged.to_csv(tmp_path / "j.csv", index=False)
    (tmp_path / "s.txt").write_text("".join(f"{a} {b} {c} 1 {d} r\n" for a, b, c, d in samples.itertuples(index=False)))
    samples.to_parquet(tmp_path / "s.parquet")
    run.to_parquet(tmp_path / "r.parquet")
    for q, r, measures, options in [("q.txt", "r.parquet", "alpha_nDCG@10 ERR_IA@5", {"tie_break": "doc_id_asc"}),
                                    ("q.csv", "r.parquet", "nERR_IA@10 AP_IA", {}),
                                    ("j.csv", "s.txt", "EE_D EE_L@5", {}), ("j.csv", "s.parquet", "EE_R(p=0.8)", {})]:
        q, r = str(tmp_path / q), str(tmp_path / r)
        text = sqlrank.render(q, r, measures, per_query=True, **options)
        assert "sqlrank_" not in text  # no temporary table of sqlrank's
        got = duckdb.connect().execute(text).df()
        assert_same_values(sqlrank.evaluate(q, r, measures, per_query=True, **options), got)


@pytest.mark.parametrize("cutoff", [None, 4])
def test_per_document_sums_are_added_in_rank_order_whatever_order_the_rows_come_in(cutoff):
    # trec_eval adds AP's, bpref's and infAP's terms one document after the other, down the ranking; in
    # another order the double differs in its last bit, and printed to four decimals sometimes in its last
    # digit (bpref 351/800: 0.4387 down the ranking, 0.4388 otherwise). The rows are stored upside down here.
    from sqlrank.rendering.dialects import DUCKDB
    from sqlrank.rendering.sqltext import call_macro

    terms = [1e16, 1.0, -1e16, 1.0, 0.5, 2.0]  # by rank 1..6; the sum depends on the order of the additions
    keep = [1, 1, 1, 1, 0, 1]

    def added(ranks) -> float:  # one term after the other, as C's loop adds them
        total = 0.0
        for rank in ranks:
            if keep[rank - 1] and (cutoff is None or rank <= cutoff):
                total += terms[rank - 1]
        return total

    expected = added(range(1, len(terms) + 1))
    assert added(range(len(terms), 0, -1)) != expected  # the order matters for these terms
    con = duckdb.connect()
    con.execute("CREATE TABLE ranked (query_id VARCHAR, rank BIGINT, term DOUBLE, kept INTEGER)")
    con.executemany("INSERT INTO ranked VALUES ('q', ?, ?, ?)",
                    [(rank, terms[rank - 1], keep[rank - 1]) for rank in range(len(terms), 0, -1)])
    total = call_macro(DUCKDB, "_macros/dialect.sql", "sum_in_rank_order", "term", "kept = 1", cutoff)
    assert con.execute(f"SELECT {total} FROM ranked GROUP BY query_id").fetchall() == [(expected,)]
    assert con.execute(f"SELECT {total} FROM ranked WHERE kept = 0 GROUP BY query_id").fetchall() == [(0,)]


def test_a_table_named_as_a_step_of_the_statement(files, capsys):
    """Tables named qrels and run, the names most users give them, are also steps of the statement: SQLite reads the
    step in the table's place ("circular reference: qrels"). Printing for SQLite says so and how to name them
    (main.qrels), and the statement with the schema runs in SQLite and gives DuckDB's values per query."""
    from sqlrank.engines.sqlite import connect
    from support.cli import cli, refused

    qrels, run = map(str, files["parquet"])
    con = duckdb.connect()
    con.execute(f"CREATE TABLE qrels AS SELECT * FROM read_parquet('{qrels}')")
    con.execute(f"CREATE TABLE run AS SELECT * FROM read_parquet('{run}')")
    with pytest.raises(sqlrank.OptionError, match=r"table qrels: the sqlite statement has a step named qrels.*main\.qrels"):
        sqlrank.render("qrels", "run", "AP nDCG@10", dialect="sqlite", connection=con)
    refused(*cli(capsys, "sql", "qrels", "run", "-m", "AP", "--dialect", "sqlite", "--label-type", "integer"),
            "table qrels: the sqlite statement has a step named qrels", "main.qrels")
    assert sqlrank.render("qrels", "run", "AP", dialect="postgres", connection=con)  # not recursive: the table
    diverse = {"qrels_columns": {"subtopic": "subtopic"}, "label_type": "integer", "dialect": "postgres"}
    with pytest.raises(sqlrank.OptionError, match=r"table qrels: the postgres statement .*public\.qrels"):
        sqlrank.render("qrels", "ranked", "alpha_nDCG@10", **diverse)  # PostgreSQL: not of the recursive form
    assert "WITH RECURSIVE" in sqlrank.render("public.qrels", "public.run", "alpha_nDCG@10", **diverse)
    text = sqlrank.render("main.qrels", "main.run", "AP nDCG@10", dialect="sqlite", per_query=True, connection=con)
    lite = connect()
    for name in ("qrels", "run"):
        frame = con.execute(f"SELECT * FROM {name}").df()
        lite.execute(f"CREATE TABLE {name} ({', '.join(frame.columns)})")
        lite.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(frame.columns))})",
                         frame.astype(object).itertuples(index=False, name=None))
    got = pd.DataFrame(lite.execute(text).fetchall(), columns=["query_id", "measure", "value"])
    expected = sqlrank.evaluate(qrels, run, "AP nDCG@10", per_query=True)
    assert_same_values(got, expected)
