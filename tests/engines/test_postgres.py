"""PostgreSQL: a real server started here (Debian's postgresql package: initdb into a temporary
folder, a Unix socket only, stopped at the end). Every measure under the engine tiers' convention
sets, per query, equals DuckDB to 1e-12, and so do the measures beyond accuracy; tables are read in
place; files go in temporary tables (the extra inputs of the measures beyond accuracy too)."""
from __future__ import annotations

import math
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

import sqlrank
from support.cases import (CONVENTIONS, assert_beyond_accuracy_equals_duckdb, assert_compare_equals_duckdb, assert_engine_tables_equal_duckdb,
                   assert_read_by_duckdb_equals_duckdb, assert_runs_stored_together_equal_duckdb, assert_several_runs_equal_duckdb, assert_report_equals_duckdb, assert_same_values, convention_id, engine_tables,
                   measures_for, two_runs_apart)
from conftest import ROOT, close
from support.generate import generate

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def dsn(postgres_server):
    return postgres_server


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(44, n_queries=120, signed_zeros=True)
    run["rank"] = run.groupby("query_id").cumcount() + 1  # the input order, for tie_break=input_rank
    return qrels, run


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
def test_every_measure_in_postgres_equals_duckdb(dsn, data, conventions):
    qrels, run = data
    measures = measures_for(conventions)
    duck = sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions)
    postgres = sqlrank.evaluate(qrels, run, measures, per_query=True, engine="postgres", dsn=dsn, **conventions)
    assert len(duck) > 1000
    assert_same_values(duck, postgres)
    summary = sqlrank.evaluate(qrels, run, measures, engine="postgres", dsn=dsn, **conventions)
    expected = sqlrank.evaluate(qrels, run, measures, **conventions)
    assert list(summary.measure) == list(expected.measure) and summary.attrs["queries"] == expected.attrs["queries"]
    assert all(close(a, b, 1e-12) for a, b in zip(summary.value, expected.value))


def test_measures_beyond_accuracy_in_postgres_equal_duckdb(dsn):
    assert_beyond_accuracy_equals_duckdb(engine="postgres", dsn=dsn)


def test_subtopics_samples_and_merged_judgments_in_postgres_equal_duckdb(dsn):
    assert_read_by_duckdb_equals_duckdb(engine="postgres", dsn=dsn)


def test_subtopics_samples_and_sources_printed_for_postgres_run_there(dsn):
    """The statements sqlrank sql --dialect postgres prints for judgments per subtopic (the diversity measures, a
    recursive step), sampled rankings and judgments of two sources in one table (merged by prefer and by combine),
    from the table names alone, run on PostgreSQL itself and give DuckDB's values per query to 1e-12; a table of the
    database with a subtopic column given to --engine postgres is refused, saying how to print its statement."""
    import adbc_driver_postgresql.dbapi as dbapi
    import duckdb
    from support.cases import keyed_tables

    con = duckdb.connect()
    cases = keyed_tables(con)
    with dbapi.connect(dsn) as connection:
        with connection.cursor() as cursor:
            cursor.execute("CREATE SCHEMA IF NOT EXISTS ds")
            for (name,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'ds'"
                                       ).fetchall():
                cursor.adbc_ingest(name, con.sql(f"SELECT * FROM ds.{name}").to_arrow_table(), mode="replace",
                                   db_schema_name="ds")
        connection.commit()
    for qrels, run, measures, options, (q, r, expected_options) in cases:
        text = sqlrank.render(qrels, run, measures, per_query=True, dialect="postgres", label_type="integer",
                              **options)
        rows = _execute(dsn, text)
        got = pd.DataFrame(rows, columns=["query_id", "measure", "value"])
        assert_same_values(sqlrank.evaluate(q, r, measures, per_query=True, **expected_options), got)
    with pytest.raises(sqlrank.OptionError, match="ds.intents: a table of PostgreSQL; .* sqlrank sql --dialect postgres"):
        sqlrank.evaluate("ds.intents", cases[0][4][1], "alpha_nDCG@10", engine="postgres", dsn=dsn)


def test_runs_stored_together_in_postgres_equal_duckdb(dsn, data):
    assert_runs_stored_together_equal_duckdb(*data, engine="postgres", dsn=dsn)


def test_several_run_inputs_in_postgres_equal_duckdb(dsn):
    assert_several_runs_equal_duckdb(engine="postgres", dsn=dsn)


def test_the_html_report_in_postgres_equals_duckdb(dsn, tmp_path):
    assert_report_equals_duckdb(tmp_path, engine="postgres", dsn=dsn)


def test_compare_in_postgres_equals_duckdb(dsn):
    """compare with engine="postgres" (--engine postgres --dsn): the per-query values computed in PostgreSQL, the tests
    in Python, equal DuckDB's comparison to 1e-12 (support/cases.py); the command line prints DuckDB's table."""
    assert_compare_equals_duckdb(engine="postgres", dsn=dsn)
    compare = ROOT / "fixtures" / "compare"
    args = [str(compare / "qrels.txt"), str(compare / "baseline.run"), str(compare / "rerank_v2.run"), "-m", "AP P@10"]
    duck, other = (subprocess.run([sys.executable, "-m", "sqlrank", "compare", *args, *where], capture_output=True,
                                  text=True) for where in ([], ["--engine", "postgres", "--dsn", dsn]))
    assert other.returncode == 0 and other.stdout == duck.stdout and "rerank_v2" in other.stdout, other.stderr


def _execute(dsn, *statements):
    import adbc_driver_postgresql.dbapi as dbapi

    with dbapi.connect(dsn) as connection:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
            rows = cursor.fetchall() if cursor.description else None
        connection.commit()
    return rows


def test_extra_inputs_that_are_tables_of_the_database_are_read_there(dsn):
    import adbc_driver_postgresql.dbapi as dbapi
    import pyarrow as pa

    with dbapi.connect(dsn) as connection:
        with connection.cursor() as cursor:
            for name, frame in engine_tables().items():
                cursor.adbc_ingest(name, pa.Table.from_pandas(frame, preserve_index=False), mode="replace")
        connection.commit()
    assert_engine_tables_equal_duckdb(engine="postgres", dsn=dsn)


def test_the_neighbours_statement_printed_for_postgres_runs_there(dsn):
    """sqlrank sql --reference --dialect postgres: per query and in summary (ann-benchmarks' infinite ratio where the
    exact distances sum to 0) PostgreSQL gives what DuckDB gives."""
    import adbc_driver_postgresql.dbapi as dbapi
    import pyarrow as pa

    from sqlrank.comparing.neighbours import neighbours, neighbours_statement

    exact = pd.DataFrame([(f"q{q}", f"v{d}", float(abs(d - q) % 7) * (q > 0)) for q in range(6) for d in range(12)],
                         columns=["query_id", "doc_id", "score"])
    approximate = exact[exact.doc_id.str[1:].astype(int) % 3 > 0].reset_index(drop=True)
    zero = exact.query_id == "q0"  # every distance 0: its ratio is undefined, and over q0 alone infinite
    tables = {"nn_exact": exact, "nn_approximate": approximate, "nn_exact_q0": exact[zero],
              "nn_approximate_q0": approximate[approximate.query_id == "q0"]}
    with dbapi.connect(dsn) as connection:
        with connection.cursor() as cursor:
            for name, frame in tables.items():
                cursor.adbc_ingest(name, pa.Table.from_pandas(frame, preserve_index=False), mode="replace")
        connection.commit()
    measures = "Recall@5 Recall(epsilon=0.5)@3 DistanceRatio@5"
    for suffix, per_query in (("", True), ("", False), ("_q0", False)):
        expected = neighbours(tables["nn_exact" + suffix], tables["nn_approximate" + suffix], measures,
                              per_query=per_query, distances=True)
        text = neighbours_statement("nn_exact" + suffix, "nn_approximate" + suffix, measures, per_query=per_query,
                                    dialect="postgres", distances=True)
        rows = _execute(dsn, text)
        assert [row[1 if per_query else 0] for row in rows] == list(expected.measure)
        got = pd.Series([row[2 if per_query else 1] for row in rows], dtype=float)
        assert ((got - expected.value).abs().fillna(0) < 1e-12).all() or got.equals(expected.value), (got, expected)
        assert list(got.isna()) == list(expected.value.isna()) and list(np.isinf(got)) == list(np.isinf(expected.value))
    assert np.isinf(expected.value.iloc[-1])


def test_tables_in_the_database_are_read_where_they_are(dsn, data):
    qrels, run = data
    values = ",".join(f"('{q}', '{d}', {r})" for q, d, r in qrels.itertuples(index=False))
    scores = ",".join(f"('{q}', '{d}', {s!r})" for q, d, s, _ in run.itertuples(index=False))
    _execute(dsn, "DROP TABLE IF EXISTS judged, ranked",
             "CREATE TABLE judged (topic TEXT, doc TEXT, label INTEGER)",
             f"INSERT INTO judged VALUES {values}",
             "CREATE TABLE ranked (topic TEXT, doc TEXT, similarity DOUBLE PRECISION)",
             f"INSERT INTO ranked VALUES {scores}")
    measures = "nDCG@10 AP P@5 RR Bpref"
    got = sqlrank.evaluate("judged", "ranked", measures, per_query=True, engine="postgres", dsn=dsn,
                           qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                           run_columns={"query_id": "topic", "doc_id": "doc", "score": "similarity"})
    assert "topic" in got.columns  # per query, ids are called as the tables call them
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="rank"), measures, per_query=True),
                       got.rename(columns={"topic": "query_id"}))
    with pytest.raises(sqlrank.InputError, match=r"no columns 'query_id', 'doc_id', 'relevance' \(columns: topic, doc, "
                                                 r"label\); map them with --qrels-columns"):
        sqlrank.evaluate("judged", "ranked", "AP", engine="postgres", dsn=dsn)
    with pytest.raises(sqlrank.InputError, match="no such table"):
        sqlrank.evaluate("no_such_table", "ranked", "AP", engine="postgres", dsn=dsn)
    _execute(dsn, "DROP TABLE IF EXISTS ranked_runs",
             "CREATE TABLE ranked_runs AS SELECT 'a' AS run_id, * FROM ranked UNION ALL "
             "SELECT 'b', topic, doc || '-b', similarity FROM ranked")
    _execute(dsn, "DROP TABLE IF EXISTS unnamed_runs", "CREATE TABLE unnamed_runs AS SELECT * FROM ranked_runs "
             "UNION ALL (SELECT '', topic, doc, similarity FROM ranked LIMIT 3)")
    with pytest.raises(sqlrank.InputError,
                       match=r"table unnamed_runs: 3 rows have an empty run_id \(column 'run_id'\)"):
        sqlrank.evaluate("judged", "unnamed_runs", "AP", engine="postgres", dsn=dsn,
                         qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                         run_columns={"query_id": "topic", "doc_id": "doc", "score": "similarity"})
    # a table of runs stored together (ranked_runs: ranked twice, b's documents others) is evaluated run by run
    assert_same_values(sqlrank.evaluate(qrels, two_runs_apart(run), "AP", per_query=True),
                       sqlrank.evaluate("judged", "ranked_runs", "AP", per_query=True, engine="postgres", dsn=dsn,
                                        qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                                        run_columns={"query_id": "topic", "doc_id": "doc", "score": "similarity"})
                       .rename(columns={"topic": "query_id"}))
    # a zero fraction is the whole number; a label with a fraction is read as the real number it is (PostgreSQL's
    # CAST to an integer would round 1.5 to 2)
    _execute(dsn, "DROP TABLE IF EXISTS judged_float", "CREATE TABLE judged_float AS SELECT topic, doc, "
             "CAST(label AS DOUBLE PRECISION) AS label FROM judged")
    float_columns = dict(qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                         run_columns={"query_id": "topic", "doc_id": "doc", "score": "similarity"})
    assert_same_values(sqlrank.evaluate(qrels, run.drop(columns="rank"), "AP", per_query=True),
                       sqlrank.evaluate("judged_float", "ranked", "AP", per_query=True, engine="postgres", dsn=dsn,
                                        **float_columns).rename(columns={"topic": "query_id"}))
    _execute(dsn, "UPDATE judged_float SET label = label + 0.5 WHERE doc < 'd5'")
    real = pd.DataFrame(_execute(dsn, "SELECT topic, doc, label FROM judged_float"),
                        columns=["query_id", "doc_id", "relevance"])
    assert (real.relevance % 1 != 0).any()
    measures = "AP nDCG@10 nDCG(gain=exponential)@10 P(rel=1.5)@5 ERR(max_rel=4.5)@10"
    assert_same_values(sqlrank.evaluate(real, run.drop(columns="rank"), measures, per_query=True),
                       sqlrank.evaluate("judged_float", "ranked", measures, per_query=True, engine="postgres", dsn=dsn,
                                        **float_columns).rename(columns={"topic": "query_id"}))
    _execute(dsn, "INSERT INTO judged VALUES ('1', 'again', 1), ('1', 'again', 0)")
    with pytest.raises(sqlrank.InputError, match="repeat a"):
        sqlrank.evaluate("judged", "ranked", "AP", engine="postgres", dsn=dsn,
                         qrels_columns={"query_id": "topic", "doc_id": "doc", "relevance": "label"},
                         run_columns={"query_id": "topic", "doc_id": "doc", "score": "similarity"})


def test_recall_levels_round_half_away_from_zero_as_trec_eval(dsn):
    """IPrec@0.5 of a query with 77 relevant documents reads the 39th (trec_eval: lround(38.5) = 39).
    PostgreSQL's ROUND of a double gives 38 (half to even): the statement must not use it."""
    assert _execute(dsn, "SELECT ROUND(CAST(0.5 AS DOUBLE PRECISION) * 77)")[0][0] == 38
    docs = [f"r{i:02d}" for i in range(77)]
    qrels = [("q", d, 1) for d in docs]
    ranking = docs[:38] + [f"n{i:03d}" for i in range(100)] + docs[38:]  # relevant 39..77 after 100 others
    run = [("q", d, float(len(ranking) - i)) for i, d in enumerate(ranking)]
    import pandas as pd

    q = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    expected = 77 / 177  # the best precision at or below the 39th relevant document: at the 77th, rank 177
    for options in ({}, {"engine": "postgres", "dsn": dsn}):
        value = sqlrank.evaluate(q, r, "IPrec@0.5", **options).value.iloc[0]
        assert close(value, expected, 1e-12), (options, value)


def test_the_command_line_evaluates_in_postgres(dsn):
    demo = ROOT / "fixtures" / "demo"
    args = [str(demo / "qrels.test"), str(demo / "results.test"), "-m", "nDCG@10 AP P@10 Bpref IPrec@0.5", "-q"]
    duck = subprocess.run([sys.executable, "-m", "sqlrank", "eval", *args], capture_output=True, text=True)
    postgres = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--engine", "postgres", "--dsn", dsn, *args],
                              capture_output=True, text=True)
    assert postgres.returncode == 0, postgres.stderr
    assert postgres.stdout == duck.stdout
    bad = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--dsn", dsn, *args], capture_output=True, text=True)
    assert bad.returncode != 0 and "add --engine postgres" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("sig, status, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_cancels_the_statement_in_the_database(dsn, tmp_path, sig, status, word):
    """Ctrl-C and SIGTERM cancel the statement on the server at once (no waiting for it to end) and
    exit 130 and 143, as on DuckDB; nothing of the evaluation is left running in the database."""
    _execute(dsn, "DROP TABLE IF EXISTS slow_qrels", "DROP TABLE IF EXISTS slow_run",
             "CREATE TABLE slow_qrels AS SELECT 'q' || (i % 2000) AS query_id, 'd' || i AS doc_id, (i % 3) AS relevance "
             "FROM generate_series(0, 3000000, 7) AS i",
             "CREATE TABLE slow_run AS SELECT 'q' || (i % 2000) AS query_id, 'd' || i AS doc_id, "
             "(CAST(i AS bigint) * 7919 % 1000) / 7.0 AS score FROM generate_series(0, 3000000) AS i")
    proc = subprocess.Popen([sys.executable, "-m", "sqlrank", "eval", "--engine", "postgres", "--dsn", dsn, "slow_qrels",
                             "slow_run", "-m", "AP nDCG@10 IPrec@0.5 Bpref infAP Rprec ERR@20 RBP GMAP"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    running = ("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%-- sqlrank %' "
               "AND pid <> pg_backend_pid()")
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and not _execute(dsn, running)[0][0]:
        time.sleep(0.05)
    assert proc.poll() is None, f"the evaluation ended before its statement was seen: {proc.communicate()[1][-300:]}"
    proc.send_signal(sig)
    sent = time.time()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status and err.decode() == f"sqlrank: {word}\n", err
    assert time.time() - sent < 3, time.time() - sent  # cancelled, not waited for (the statement takes 10 s and more)
    deadline = time.time() + 10
    while time.time() < deadline and _execute(dsn, running)[0][0]:
        time.sleep(0.1)
    assert _execute(dsn, running)[0][0] == 0


def test_a_name_that_is_a_file_here_and_a_table_there_is_refused(dsn, tmp_path):
    _execute(dsn, "DROP TABLE IF EXISTS both_qrels", "CREATE TABLE both_qrels AS SELECT 'q1' AS query_id, "
                  "'d1' AS doc_id, 1 AS relevance")
    (tmp_path / "both_qrels").write_text("q1 0 d2 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1 t\n")
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--engine", "postgres", "--dsn", dsn, "both_qrels",
                           "run", "-m", "AP"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1 and "both_qrels: is both a file in" in done.stderr
    assert "and a table of the PostgreSQL database; say which" in done.stderr
    for qrels, want in (("public.both_qrels", 1.0), ("./both_qrels", 0.0)):
        got = sqlrank.evaluate(str(tmp_path / qrels) if qrels.startswith(".") else qrels, str(tmp_path / "run"), "AP",
                               engine="postgres", dsn=dsn)
        assert got.value[0] == want, qrels


@pytest.mark.parametrize("label, column_type", [("'NaN'", "float8"), ("'Infinity'", "float8"), ("9999999999", "int8"),
                                                ("1e12", "float8")])
def test_labels_no_label_can_be_are_named_with_their_table_and_column(dsn, label, column_type):
    _execute(dsn, "DROP TABLE IF EXISTS odd_labels",
             f"CREATE TABLE odd_labels AS SELECT 'q1' AS query_id, 'd1' AS doc_id, CAST({label} AS {column_type}) AS grade",
             "DROP TABLE IF EXISTS one_run", "CREATE TABLE one_run AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score")
    with pytest.raises(sqlrank.InputError) as error:
        sqlrank.evaluate("odd_labels", "one_run", "AP", engine="postgres", dsn=dsn, qrels_columns={"relevance": "grade"})
    message = str(error.value)
    assert message.startswith("table odd_labels: 1 ") and "column 'grade'" in message, message
    assert "NaN, infinite or beyond" in message and "labels are finite numbers" in message, message


def test_a_numeric_label_with_a_fraction_is_the_real_number_it_is(dsn):
    """PostgreSQL's CAST of numeric 1.5 to an integer gives 2, of 0.5 gives 1 (rounded): read as DOUBLE, 0.5 is
    below rel=1 and 1.5 above it."""
    _execute(dsn, "DROP TABLE IF EXISTS graded", "CREATE TABLE graded AS SELECT 'q1' AS query_id, doc_id, "
             "CAST(grade AS numeric) AS grade FROM (VALUES ('d1', 0.5), ('d2', 1.5)) AS t (doc_id, grade)",
             "DROP TABLE IF EXISTS one_run", "CREATE TABLE one_run AS SELECT 'q1' AS query_id, doc_id, score "
             "FROM (VALUES ('d1', 2.0), ('d2', 1.0)) AS t (doc_id, score)")
    got = sqlrank.evaluate("graded", "one_run", "AP P@1 DCG", engine="postgres", dsn=dsn,
                           qrels_columns={"relevance": "grade"})
    assert list(got.value) == [0.5, 0.0, 0.5 + 1.5 / math.log2(3)]
