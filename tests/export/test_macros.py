"""sqlrank install: the table macros, called from plain SQL on a database file made by
sqlrank install, against views over Parquet files, give sqlrank eval's values; from the
duckdb command-line shell too (where it is installed: the duckdb-cli test dependency)."""
from __future__ import annotations

import csv
import io
import shutil
import math
import subprocess
import sys

import duckdb
import pytest

import sqlrank
from sqlrank.export.macros import CATALOGUE, FAMILY_MACROS
from conftest import close
from support.generate import generate


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    folder = tmp_path_factory.mktemp("macros")
    qrels, run = generate(47, n_queries=120)
    qrels_path, run_path = folder / "qrels.parquet", folder / "run.parquet"
    qrels.to_parquet(qrels_path)
    run.to_parquet(run_path)
    path = folder / "eval.duckdb"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "install", str(path), "-m", "nDCG@7 RBP(p=0.8)"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(path)) as con:
        con.execute(f"CREATE VIEW my_run AS SELECT * FROM read_parquet('{run_path}')")
        con.execute(f"CREATE VIEW my_qrels AS SELECT * FROM read_parquet('{qrels_path}')")
    return path, str(qrels_path), str(run_path)


def _close(rows, frame, per_query: bool):
    keys = [tuple(r[:-1]) for r in rows]
    expected_keys = list(zip(frame.query_id, frame.measure)) if per_query else [(m,) for m in frame.measure]
    assert keys == expected_keys
    assert all(close(r[-1], v, 1e-12) for r, v in zip(rows, frame.value))


def test_evaluate_macro_equals_sqlrank_eval(database):
    path, qrels, run = database
    names = ["nDCG@10", "AP", "P@5", "R@1000", "RR", "Bpref", "nDCG@7", "RBP(p=0.8)", "GMAP", "NumRelRet"]
    listed = "[" + ", ".join(f"'{n}'" for n in names) + "]"
    with duckdb.connect(str(path), read_only=True) as con:
        summary = con.execute(f"SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', {listed})").fetchall()
        per_query = con.execute(f"SELECT * FROM sqlrank.evaluate_per_query('my_qrels', 'my_run', {listed})").fetchall()
    _close(summary, sqlrank.evaluate(qrels, run, names), False)
    _close(per_query, sqlrank.evaluate(qrels, run, names, per_query=True), True)


@pytest.mark.parametrize("macro", list(FAMILY_MACROS))
def test_family_macros_equal_sqlrank_eval(database, macro):
    path, qrels, run = database
    family, has_cutoff = FAMILY_MACROS[macro]
    for k in ((1, 7, 25) if has_cutoff else (None,)):
        call = f"sqlrank.{macro}('my_qrels', 'my_run'{f', {k}' if k else ''})"
        with duckdb.connect(str(path), read_only=True) as con:
            rows = con.execute(f"SELECT * FROM {call}").fetchall()
        name = f"{family}@{k}" if k else family
        _close(rows, sqlrank.evaluate(qrels, run, name, per_query=True), True)


def test_the_command_line_s_measure_names_are_accepted(database):
    """trec_eval's names, as sqlrank eval takes them, name the same installed measures; the rows
    carry the names asked for, in the order asked."""
    path, qrels, run = database
    asked = ["recip_rank", "map", "P_10", "ndcg_cut.10", "nDCG@10", "MRR", "mrr@10", "NDCG@10", "hit_rate@10", "MAP"]
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(f"SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', {asked})").fetchall()
    assert [m for m, _ in rows] == asked
    canonical = ["RR", "AP", "P@10", "nDCG@10", "nDCG@10", "RR", "RR@10", "nDCG@10", "Success@10", "AP"]
    values = sqlrank.evaluate(qrels, run, "RR AP P@10 nDCG@10 RR@10 Success@10").set_index("measure").value
    assert all(close(v, values[name], 1e-12) for (_, v), name in zip(rows, canonical))


def test_other_column_names_are_macro_parameters(database):
    path, qrels, run = database
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TEMP VIEW judged AS SELECT query_id AS topic, doc_id AS docno, relevance AS label FROM my_qrels")
        con.execute("CREATE TEMP VIEW ranked AS SELECT query_id AS topic, doc_id AS docno, score AS sim FROM my_run")
        names = "query_column := 'topic', doc_column := 'docno', relevance_column := 'label', score_column := 'sim'"
        rows = con.execute(f"SELECT * FROM sqlrank.evaluate('judged', 'ranked', ['nDCG@10', 'AP'], {names})").fetchall()
        per_query = con.execute(f"SELECT * FROM sqlrank.ndcg('judged', 'ranked', 10, {names})").fetchall()
    _close(rows, sqlrank.evaluate(qrels, run, "nDCG@10 AP"), False)
    _close(per_query, sqlrank.evaluate(qrels, run, "nDCG@10", per_query=True), True)


def test_unknown_measure_is_a_clear_error(database):
    path, _, _ = database
    with duckdb.connect(str(path), read_only=True) as con:
        with pytest.raises(duckdb.Error, match="measure nDCG@9 is not installed .* sqlrank install DB_FILE -m 'nDCG@9'"):
            con.execute("SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', ['AP', 'nDCG@9'])").fetchall()
        listed = [row[0] for row in con.execute("SELECT * FROM sqlrank.measures()").fetchall()]
    assert set(CATALOGUE) <= set(listed) and "nDCG@7" in listed


def test_macros_from_the_duckdb_shell(database):
    shell = shutil.which("duckdb")
    if shell is None:
        pytest.skip("the duckdb command-line shell is not installed (pip install duckdb-cli)")
    path, qrels, run = database
    done = subprocess.run([shell, "-csv", str(path), "-c",
                           "SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', ['nDCG@10', 'AP', 'P@5'])"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = [(m, float(v)) for m, v in list(csv.reader(io.StringIO(done.stdout)))[1:]]
    _close(rows, sqlrank.evaluate(qrels, run, "nDCG@10 AP P@5"), False)
    done = subprocess.run([shell, "-csv", str(path), "-c", "WITH top AS (FROM my_run) SELECT * FROM sqlrank.evaluate("
                           "'(SELECT * FROM my_qrels)', 'top', ['AP'], run_query_column := 'query_id')"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    _close([(m, float(v)) for m, v in list(csv.reader(io.StringIO(done.stdout)))[1:]], sqlrank.evaluate(qrels, run, "AP"),
           False)
    done = subprocess.run([shell, str(path), "-c", "SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', ['x'])"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "measure x is not installed" in done.stderr


def test_install_prints_its_sql():
    done = subprocess.run([sys.executable, "-m", "sqlrank", "install", "unused.duckdb", "--print"],
                          capture_output=True, text=True)
    assert done.returncode == 0
    assert "CREATE OR REPLACE MACRO \"sqlrank\".\"ndcg\"(qrels, run, k, query_column := 'query_id'" in done.stdout
    assert "'nDCG@' || CAST(k AS VARCHAR)" in done.stdout and "987654321" not in done.stdout


def test_real_labels_are_read_as_written(database):
    """A label of 0.7 is below rel=1 and 1.5 above it (a cast to an integer would make both 1, or 1 and 2)."""
    path, _, _ = database
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE OR REPLACE TEMP VIEW graded AS SELECT * FROM (VALUES ('q', 'a', 0.7), ('q', 'b', 1.5)) "
                    "AS t (query_id, doc_id, relevance)")
        con.execute("CREATE OR REPLACE TEMP VIEW ranked AS SELECT * FROM (VALUES ('q', 'a', 2.0), ('q', 'b', 1.0)) "
                    "AS t (query_id, doc_id, score)")
        assert con.execute("SELECT value FROM sqlrank.p(graded, ranked, 1)").fetchall() == [(0.0,)]
        dcg = con.execute("SELECT value FROM sqlrank.evaluate(graded, ranked, ['nDCG'])").fetchall()[0][0]
    assert close(dcg, (0.7 + 1.5 / math.log2(3)) / (1.5 + 0.7 / math.log2(3)), 1e-12)


def test_the_macros_refuse_what_the_command_line_refuses(database):
    """A run table holding two runs (each (query, document) pair twice) gave one confident AP; the macros now stop
    with DuckDB's error naming the query and the document, as sqlrank eval does, and so for a label or score that is
    NaN, infinite or empty, and an empty id."""
    path, _, _ = database
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TEMP VIEW two_runs AS SELECT * FROM my_run UNION ALL SELECT * FROM my_run")
        first = con.execute("SELECT query_id, doc_id FROM my_qrels WHERE (query_id, doc_id) IN (SELECT (query_id, doc_id) "
                            "FROM my_run) ORDER BY query_id, doc_id LIMIT 1").fetchall()[0]
        pair = "query_id = {} AND doc_id = {}".format(*("'" + str(x).replace("'", "''") + "'" for x in first))
        con.execute(f"CREATE TEMP VIEW nan_label AS SELECT query_id, doc_id, CASE WHEN {pair} THEN 'NaN'::DOUBLE "
                    f"ELSE relevance END AS relevance FROM my_qrels")
        con.execute(f"CREATE TEMP VIEW empty_score AS SELECT query_id, doc_id, CASE WHEN {pair} THEN NULL "
                    f"ELSE score END AS score FROM my_run")
        con.execute("CREATE TEMP VIEW empty_id AS SELECT NULL AS query_id, doc_id, score FROM my_run LIMIT 1")
        for call, message in (
                ("sqlrank.evaluate('my_qrels', 'two_runs', ['AP'])", "document .* is given 2 times for query .* in the run"),
                ("sqlrank.ap('my_qrels', 'two_runs')", "each \\(query, document\\) pair must appear once"),
                ("sqlrank.evaluate('nan_label', 'my_run', ['nDCG@10'])", f"the label of document {first[1]} for query "
                                                                       f"{first[0]} in the qrels is nan"),
                ("sqlrank.ndcg('my_qrels', 'empty_score', 10)", "the score of .* in the run is empty"),
                ("sqlrank.evaluate_per_query('my_qrels', 'empty_id', ['P@5'])", "an empty query or document id in the run")):
            with pytest.raises(duckdb.Error, match=message):
                con.execute(f"SELECT * FROM {call}").fetchall()


def test_a_run_id_column_of_several_runs_is_an_error_and_of_one_run_is_read():
    """Two runs stored together whose documents never repeat a (query, document) pair (support/cases.two_runs_apart)
    passed the pairs' check and were evaluated as one run; the macros now stop naming the runs. A view of one run that
    keeps its run_id column (docs/sql.md's my_run) is evaluated as before. Installed into a connection of the caller's
    (no file), the evaluate macro binds under DuckDB's lambda syntax of today (its list of names was a `->` lambda,
    which DuckDB 2 refuses)."""
    from support.cases import two_runs_apart

    qrels, run = generate(9, n_queries=20)
    con = duckdb.connect()
    sqlrank.install(con, "AP nDCG@10")
    con.register("q", qrels)
    con.register("stored", two_runs_apart(run))
    con.execute("CREATE VIEW one AS SELECT * FROM stored WHERE run_id = 'a'")
    for call in ("sqlrank.evaluate('q', 'stored', ['AP'])", "sqlrank.ap('q', 'stored')",
                 "sqlrank.evaluate_per_query('q', 'stored', ['nDCG@10'])"):
        with pytest.raises(duckdb.Error, match="the run holds 2 runs \\(its run_id column, e.g. a and b\\)"):
            con.execute(f"SELECT * FROM {call}").fetchall()
    expected = sqlrank.evaluate(qrels, run.drop(columns="rank", errors="ignore"), "AP nDCG@10")
    got = con.execute("SELECT * FROM sqlrank.evaluate('q', 'one', ['AP', 'nDCG@10'])").fetchall()
    assert [m for m, _ in got] == list(expected.measure)
    assert all(close(v, e, 1e-12) for (_, v), e in zip(got, expected.value))
    per_query = sqlrank.evaluate(qrels, run.drop(columns="rank", errors="ignore"), "AP", per_query=True)
    rows = con.execute("SELECT query_id, value FROM sqlrank.ap('q', 'one') ORDER BY query_id").fetchall()
    assert len(rows) == len(per_query) > 10
    assert all(close(v, e, 1e-12) for (_, v), e in zip(rows, per_query.sort_values("query_id").value))


def test_arguments_may_be_names_ctes_bare_names_or_subqueries(database):
    """A subquery as an argument was "Table with name (SELECT …) does not exist"; it is read as the caller's SQL, in
    parentheses or not, beside names of tables, views and CTEs and bare identifiers, in every macro."""
    path, qrels, run = database
    expected = sqlrank.evaluate(qrels, run, "AP nDCG@10")
    per_query = sqlrank.evaluate(qrels, run, "AP", per_query=True)
    with duckdb.connect(str(path), read_only=True) as con:
        ctes = "WITH judged AS (FROM my_qrels), ranked AS (FROM my_run) "
        for arguments, cte in (("my_qrels, '(SELECT * FROM my_run)'", ""),
                               ("'SELECT * FROM my_qrels', '  select query_id, doc_id, score from my_run'", ""),
                               ("'judged', 'ranked'", ctes),
                               ("'my_qrels', '(FROM ranked WHERE score IS NOT NULL)'", ctes)):
            rows = con.execute(f"{cte}SELECT * FROM sqlrank.evaluate({arguments}, ['AP', 'nDCG@10'])").fetchall()
            _close(rows, expected, False)
            _close(con.execute(f"{cte}SELECT * FROM sqlrank.ap({arguments})").fetchall(), per_query, True)


def test_a_column_is_named_whole_not_as_a_pattern(database):
    """The column parameters were DuckDB regular expressions: score_column 'score' also matched bm25_score, and a run
    whose bm25_score came first was ranked by it, a confident wrong AP (1.0 here, where the score gives 1/3)."""
    path, _, _ = database
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TEMP VIEW one AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'b', 0), ('q', 'c', 0)) "
                    "AS t (query_id, doc_id, relevance)")
        con.execute("CREATE TEMP VIEW two_scores AS SELECT * FROM (VALUES ('q', 'a', 3.0, 1.0), ('q', 'b', 2.0, 2.0), "
                    "('q', 'c', 1.0, 3.0)) AS t (query_id, doc_id, bm25_score, score)")
        for call in ("sqlrank.ap('one', 'two_scores')", "sqlrank.evaluate('one', 'two_scores', ['AP'])"):
            assert close(con.execute(f"SELECT value FROM {call}").fetchall()[0][0], 1 / 3, 1e-12)
        assert con.execute("SELECT value FROM sqlrank.ap('one', 'two_scores', score_column := 'BM25_SCORE')"
                           ).fetchall() == [(1.0,)]


def test_each_table_may_name_its_own_id_columns_and_a_missing_one_names_its_table(database):
    """Judgments with topic/docno and a run with query_id/doc_id could not be evaluated (one query_column for both),
    and a column absent was "No matching columns found that match regex", naming neither table."""
    path, qrels, run = database
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TEMP VIEW judged AS SELECT query_id AS topic, doc_id AS docno, relevance FROM my_qrels")
        rows = con.execute("SELECT * FROM sqlrank.evaluate('judged', 'my_run', ['AP'], qrels_query_column := 'topic', "
                           "qrels_doc_column := 'docno')").fetchall()
        _close(rows, sqlrank.evaluate(qrels, run, "AP"), False)
        rows = con.execute("SELECT * FROM sqlrank.ap('my_run', 'judged', query_column := 'topic', "
                           "doc_column := 'docno', "
                           "relevance_column := 'score', score_column := 'relevance', run_query_column := 'topic', "
                           "qrels_query_column := 'query_id', qrels_doc_column := 'doc_id')").fetchall()
        assert len(rows) > 10  # the judgments read as a run and the run as judgments: each table its own names
        missing = (("sqlrank.evaluate('judged', 'my_run', ['AP'])", "qrels", "'topic', 'docno'"),
                   ("sqlrank.ap('my_qrels', 'judged', score_column := 'relevance')", "run", "'topic'"))
        for call, table, columns in missing:
            with pytest.raises(duckdb.Error, match=f"{columns}.*\\b{table}_column\\b.*'query_id'"):  # its table named
                con.execute(f"SELECT * FROM {call}").fetchall()


def test_evaluate_binds_the_measures_asked_and_no_other():
    """evaluate held one branch per installed measure and bound them all at every call (1.37 s on 1,500 rows where
    the family macros took 0.046 s); it now runs the statement of the measures asked only: with another measure's
    macro gone, a call that does not ask for it still works. An empty list and a measure asked twice are said."""
    qrels_frame, run_frame = generate(11, n_queries=30)
    con = duckdb.connect()
    sqlrank.install(con, "nDCG@7")
    con.register("q", qrels_frame)
    con.register("r", run_frame.drop(columns="rank", errors="ignore"))
    con.execute('DROP MACRO TABLE sqlrank."evaluate:nDCG@10"')
    rows = con.execute("SELECT * FROM sqlrank.evaluate('q', 'r', ['AP', 'ap', 'nDCG@7', 'AP'])").fetchall()
    expected = sqlrank.evaluate(qrels_frame, run_frame.drop(columns="rank", errors="ignore"), "AP nDCG@7")
    assert [m for m, _ in rows] == ["AP", "ap", "nDCG@7"]
    assert all(close(v, e, 1e-12) for (_, v), e in zip(rows, [expected.value[0], *expected.value]))
    with pytest.raises(duckdb.Error, match="(?i)evaluate:nDCG@10 does not exist"):
        con.execute("SELECT * FROM sqlrank.evaluate('q', 'r', ['nDCG@10'])").fetchall()
    with pytest.raises(duckdb.Error, match="no measure is named"):
        con.execute("SELECT * FROM sqlrank.evaluate('q', 'r', [])").fetchall()
    sqlrank.install(con)  # installed again without -m: nDCG@7's macros go, evaluate no longer names it
    assert not con.execute("SELECT * FROM duckdb_functions() WHERE function_name LIKE '%nDCG@7'").fetchall()
    with pytest.raises(duckdb.Error, match="measure nDCG@7 is not installed"):
        con.execute("SELECT * FROM sqlrank.evaluate('q', 'r', ['nDCG@7'])").fetchall()
    con.close()
