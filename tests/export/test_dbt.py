"""sqlrank dbt: the starter project of --demo builds as it is on dbt-duckdb and gives trec_eval's numbers for
the demo; on dbt-duckdb, dbt-postgres (the PostgreSQL server of the postgres tier) and dbt-spark (its session
method, a local Spark in dbt's process) the models give DuckDB's per-query and summary values to 1e-12 for
every measure under the engine tiers' convention sets, with the columns named by the var sqlrank_columns; the
measures beyond accuracy read their extra inputs from models on dbt-duckdb and dbt-postgres; the macros of the
adapters not run here (Snowflake, BigQuery, Trino, Redshift, Databricks, ClickHouse) parse in their dialect and,
translated into DuckDB's SQL by sqlglot, give the same values; the input tests fail on what sqlrank eval
refuses."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import jinja2
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, peer, peer_python
from support.cases import (CONVENTIONS, assert_same_values, beyond_accuracy_measures, engine_tables, measures_for,
                           recommender_case)
from support.generate import generate, sampled_rankings, subtopic_judgments

pytestmark = [pytest.mark.dbt, pytest.mark.slow]

ADAPTERS = {"duckdb": "dbt.adapters.duckdb", "postgres": "dbt.adapters.postgres", "spark": "dbt.adapters.spark"}
DEMO = "nDCG@10 AP P@10 RR Rprec"
# The generated data's columns as a user's tables name them, told to the package by the var sqlrank_columns.
NAMES = {"qrels": {"query_id": "topic", "doc_id": "docno", "relevance": "label"},
         "run": {"query_id": "topic", "doc_id": "docno", "score": "sim", "rank": "position"}}
TYPES = {"duckdb": ("varchar", "integer", "double"), "postgres": ("varchar", "integer", "double precision"),
         "spark": ("string", "int", "double")}


def _dbt(adapter: str = "duckdb") -> str:
    peer(ADAPTERS[adapter])
    found = shutil.which("dbt") or str(Path(sys.executable).parent / "dbt")
    if not os.path.exists(found):
        pytest.fail("dbt's command is missing beside the dbt package")
    return found


def _run(dbt: str, folder: Path, *args: str) -> subprocess.CompletedProcess:
    """dbt in the project's folder, which holds its profiles.yml (dbt reads the one where it starts)."""
    return subprocess.run([dbt, *args], capture_output=True, text=True, cwd=folder,
                          env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})


def _sqlrank_dbt(folder: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "sqlrank", "dbt", str(folder), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _flags(conventions: dict) -> list[str]:
    flags = []
    for name, value in conventions.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            flags += [flag] if value else []
        elif isinstance(value, dict):
            flags += [flag, ",".join(f"{k}={v}" for k, v in value.items())]
        else:
            flags += [flag, "e" if value == __import__("math").e else str(value)]
    return flags


def _profile(folder: Path, adapter: str, request) -> None:
    if adapter == "duckdb":
        output = f"      type: duckdb\n      path: {folder / 'warehouse.duckdb'}\n      threads: 1\n"
    elif adapter == "postgres":
        socket = parse_qs(urlparse(request.getfixturevalue("postgres_server")).query)
        output = (f"      type: postgres\n      host: {socket['host'][0]}\n      port: {socket['port'][0]}\n"
                  f"      user: sqlrank\n      password: ''\n      dbname: postgres\n      schema: {_schema(folder)}\n      threads: 1\n")
    else:
        output = "      type: spark\n      method: session\n      host: NA\n      schema: sqlrank\n      threads: 1\n"
    (folder / "profiles.yml").write_text(f"sqlrank:\n  target: {adapter}\n  outputs:\n    {adapter}:\n{output}")


def _schema(folder: Path) -> str:
    """The PostgreSQL schema of one test's project: the server is shared by the tier, and a seed dbt finds there
    with other columns (another test's) is not recreated."""
    return "dbt_" + re.sub(r"[^a-z0-9_]", "_", folder.parent.name.lower())[-50:]


def _table(folder: Path, adapter: str, name: str, request) -> pd.DataFrame:
    """A model's rows, read from the warehouse dbt built it in."""
    if adapter == "duckdb":
        with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as con:
            return con.execute(f"SELECT * FROM {name}").df()
    if adapter == "postgres":
        import adbc_driver_postgresql.dbapi as dbapi
        with dbapi.connect(request.getfixturevalue("postgres_server")) as con, con.cursor() as cursor:
            cursor.execute(f"SELECT * FROM {_schema(folder)}.{name}")
            return pd.DataFrame(cursor.fetchall(), columns=[d[0] for d in cursor.description])
    files = folder / "spark-warehouse" / "sqlrank.db" / name  # the session's tables are Parquet files
    return duckdb.sql(f"SELECT * FROM read_parquet('{files}/*.parquet')").df()


def _same(expected: pd.DataFrame, got: pd.DataFrame) -> None:
    got = got[list(expected.columns)]
    got["value"] = got["value"].astype(float)
    assert len(expected) == len(got)
    assert_same_values(expected, got)


def test_the_starter_project_builds_as_it_is(tmp_path):
    """sqlrank dbt DIR --init, then dbt build in DIR: seeds, their tests, the models; trec_eval's numbers."""
    dbt = _dbt()
    folder = tmp_path / "ranking"
    _sqlrank_dbt(folder, "--demo", "-m", DEMO)
    done = _run(dbt, folder, "build")
    assert done.returncode == 0 and "PASS=7 WARN=0 ERROR=0" in done.stdout, done.stdout[-3000:]
    qrels, run = FIXTURES / "demo" / "qrels.test", FIXTURES / "demo" / "results.test"
    with duckdb.connect(str(folder / "sqlrank.duckdb"), read_only=True) as con:
        per_query, summary = (con.execute(f"SELECT * FROM {name}").df() for name in ("evaluation", "evaluation_summary"))
    _same(sqlrank.evaluate(qrels, run, DEMO, per_query=True), per_query)
    _same(sqlrank.evaluate(qrels, run, DEMO), summary)
    assert [round(v, 4) for v in summary.value] == [0.3016, 0.1785, 0.3, 0.4064, 0.2174]  # trec_eval's out.test
    assert sorted(path.name for path in folder.iterdir()) == [
        ".gitignore", "dbt_project.yml", "logs", "macros", "models", "profiles.yml", "seeds", "sqlrank.duckdb",
        "target", "tests"]
    # a second evaluation added to the project; the seeds as they are now are kept
    (folder / "seeds" / "run.csv").write_text((folder / "seeds" / "run.csv").read_text().replace(",0.9", ",0.8"))
    _sqlrank_dbt(folder, "--init", "-m", "P@5", "--name", "early")
    assert ",0.9" not in (folder / "seeds" / "run.csv").read_text()
    assert _run(dbt, folder, "build", "--select", "early").returncode == 0


def test_the_package_in_a_project_of_its_own(tmp_path):
    """Without --init the folder is a package another project lists in packages.yml (local:), its vars set there; its
    rows are named as the measures were asked (HR@10: WHERE measure = 'HR@10' finds it)."""
    dbt = _dbt()
    project = tmp_path / "ranking"
    _sqlrank_dbt(project / "sqlrank_package", "-m", DEMO + " HR@10", "--name", "metrics")
    (project / "seeds").mkdir()
    qrels, run = FIXTURES / "demo" / "qrels.test", FIXTURES / "demo" / "results.test"
    pd.read_csv(qrels, sep=r"\s+", names=["topic", "iteration", "docno", "label"]).drop(columns="iteration").to_csv(
        project / "seeds" / "judgments.csv", index=False)
    pd.read_csv(run, sep=r"\s+", names=["topic", "q0", "docno", "rank", "sim", "tag"])[["topic", "docno", "sim"]].to_csv(
        project / "seeds" / "bm25.csv", index=False)
    summary = _built_summary(dbt, project, "name: ranking\nversion: '1.0'\nconfig-version: 2\nprofile: sqlrank\nvars:\n"
                             "  sqlrank_qrels: judgments\n  sqlrank_metrics_run: bm25\n  sqlrank_columns:\n"
                             "    qrels: {query_id: topic, doc_id: docno, relevance: label}\n"
                             "    run: {query_id: topic, doc_id: docno, score: sim}\n")
    _same(sqlrank.evaluate(qrels, run, DEMO + " HR@10"), summary)
    assert summary[summary.measure == "HR@10"].value.tolist() == [sqlrank.evaluate(qrels, run, "Success@10").value[0]]


def test_sources_and_plain_tables_in_the_vars(tmp_path):
    """The vars took models and seeds only (a raw table needed a wrapper model): a source ({source:, table:}) and a
    table by its schema (raw.results) are read as they are, and give sqlrank eval's values."""
    dbt = _dbt()
    project = tmp_path / "warehouse"
    _sqlrank_dbt(project / "sqlrank_package", "-m", DEMO, "--name", "metrics")
    qrels, run = FIXTURES / "demo" / "qrels.test", FIXTURES / "demo" / "results.test"
    judged = pd.read_csv(qrels, sep=r"\s+", names=["query_id", "iteration", "doc_id", "relevance"], dtype=str)
    ranked = pd.read_csv(run, sep=r"\s+", names=["query_id", "q0", "doc_id", "rank", "score", "tag"], dtype=str)
    with duckdb.connect(str(project / "warehouse.duckdb")) as con:
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.judgments AS SELECT query_id, doc_id, CAST(relevance AS INTEGER) AS relevance "
                    "FROM judged")
        con.execute("CREATE TABLE raw.results AS SELECT query_id, doc_id, CAST(score AS DOUBLE) AS score FROM ranked")
    (project / "models").mkdir()
    (project / "models" / "sources.yml").write_text("version: 2\nsources:\n  - name: trec\n    schema: raw\n"
                                                    "    tables:\n      - name: judgments\n")
    summary = _built_summary(dbt, project, "name: warehouse\nversion: '1.0'\nconfig-version: 2\nprofile: sqlrank\n"
                             "vars:\n  sqlrank_qrels: {source: trec, table: judgments}\n"
                             "  sqlrank_metrics_run: raw.results\n")
    _same(sqlrank.evaluate(qrels, run, DEMO), summary)


def _built_summary(dbt: str, project: Path, dbt_project: str) -> pd.DataFrame:
    """A project that lists the package in sqlrank_package (local:), built on dbt-duckdb: its metrics_summary."""
    (project / "dbt_project.yml").write_text(dbt_project)
    (project / "packages.yml").write_text("packages:\n  - local: sqlrank_package\n")
    (project / "profiles.yml").write_text(f"sqlrank:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
                                          f"      path: {project / 'warehouse.duckdb'}\n")
    for command in (["deps"], ["build"]):
        done = _run(dbt, project, *command)
        assert done.returncode == 0, done.stdout[-3000:]
    with duckdb.connect(str(project / "warehouse.duckdb"), read_only=True) as con:
        return con.execute("SELECT * FROM metrics_summary").df()


@pytest.fixture(scope="module")
def generated():
    qrels, run = generate(46, n_queries=60)
    run["rank"] = run.groupby("query_id").cumcount() + 1
    return qrels, run


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A package of seven evaluations, evaluation_0 to evaluation_6: every measure under each convention set."""
    folder = tmp_path_factory.mktemp("package") / "sqlrank_package"
    for number, conventions in enumerate(CONVENTIONS):
        _sqlrank_dbt(folder, "--name", f"evaluation_{number}", "-m", " ".join(measures_for(conventions)),
                     *_flags(conventions))
    return folder


SPARK_EVALUATIONS = (6,)  # CONVENTIONS[6]: tie_break=input_rank, the one that reads the run's rank column


@pytest.mark.parametrize("adapter", ["duckdb", "postgres", "spark"])
def test_the_models_give_duckdbs_values(generated, package, adapter, tmp_path, request):
    """Seven evaluations (the convention sets) of every measure made a starter project (--demo), its seeds the
    generated data under other column names: per query and summary equal to DuckDB's to 1e-12 (Spark: one of them)."""
    dbt = _dbt(adapter)
    qrels, run = generated
    folder = tmp_path / adapter
    shutil.copytree(package, folder)
    _sqlrank_dbt(folder, "--demo", "-m", DEMO, "--name", "demo")
    qrels.rename(columns=NAMES["qrels"]).to_csv(folder / "seeds" / "qrels.csv", index=False)
    run.rename(columns=NAMES["run"]).to_csv(folder / "seeds" / "run.csv", index=False)
    text, integer, double = TYPES[adapter]
    with open(folder / "dbt_project.yml", "a") as project:
        project.write(f"seeds:\n  sqlrank:\n    qrels:\n      +column_types: {{topic: {text}, docno: {text}, label: {integer}}}\n"
                      f"    run:\n      +column_types: {{topic: {text}, docno: {text}, sim: {double}, position: {integer}}}\n"
                      + ("models:\n  sqlrank:\n    +file_format: parquet\n" if adapter == "spark" else ""))
    (folder / "seeds" / "seeds.yml").write_text(
        (folder / "seeds" / "seeds.yml").read_text().replace(
            "- sqlrank.one_row_per_document", "- sqlrank.one_row_per_document: {query_column: topic, document_column: docno}"))
    _profile(folder, adapter, request)
    # On Spark (half a minute a statement of every measure) one of the evaluations, the one that reads the run's rank
    # column; the Spark SQL of the others is what tests/engines/test_spark.py runs under every set.
    built = range(len(CONVENTIONS)) if adapter != "spark" else SPARK_EVALUATIONS
    left_out = [f"evaluation_{n}{part}" for n in range(len(CONVENTIONS)) if n not in built for part in ("", "_summary")]
    done = _run(dbt, folder, "build", "--vars", json.dumps({"sqlrank_columns": NAMES}),
                *(["--exclude", *left_out] if left_out else []))
    assert done.returncode == 0, done.stdout[-3000:]
    for number, conventions in enumerate(CONVENTIONS):
        if number not in built:
            continue
        measures = measures_for(conventions)
        _same(sqlrank.evaluate(qrels, run, measures, per_query=True, **conventions),
              _table(folder, adapter, f"evaluation_{number}", request))
        _same(sqlrank.evaluate(qrels, run, measures, **conventions),
              _table(folder, adapter, f"evaluation_{number}_summary", request))


@pytest.mark.parametrize("adapter", ["duckdb", "postgres"])
def test_the_measures_beyond_accuracy_read_their_models(adapter, tmp_path, request):
    """Coverage, Gini, Novelty, ILD, the fairness measures, ...: their history, catalog, item features and groups
    are models (seeds here) named by vars; per user and summary equal to DuckDB's to 1e-12."""
    dbt = _dbt(adapter)
    qrels, run, options = recommender_case()
    folder = tmp_path / adapter
    measures = beyond_accuracy_measures()
    _sqlrank_dbt(folder, "--demo", "-m", " ".join(measures))
    seeds = {"qrels": qrels, "run": pd.read_parquet(run), **engine_tables()}
    seeds["groups"] = seeds["genres"].rename(columns={"category": "group"})
    for name, frame in seeds.items():
        frame.to_csv(folder / "seeds" / f"{name}.csv", index=False)
    (folder / "seeds" / "seeds.yml").unlink()  # the demo's tests of seeds of other names
    with open(folder / "dbt_project.yml", "a") as project:
        project.write("seeds:\n  sqlrank:\n    +quote_columns: true\n")
    _profile(folder, adapter, request)
    variables = {"sqlrank_history": "seen", "sqlrank_items": "catalog", "sqlrank_item_features": "genres",
                 "sqlrank_groups": "groups", "sqlrank_columns": {
                     "qrels": {"query_id": "user_id", "doc_id": "item_id", "relevance": "clicked"},
                     "run": {"query_id": "user_id", "doc_id": "item_id"}}}
    done = _run(dbt, folder, "build", "--vars", json.dumps(variables))
    assert done.returncode == 0, done.stdout[-3000:]
    whole = {str(m) for m in sqlrank.parse_measures(measures) if m.spec.aggregate == "catalog"}  # no value per user
    expected = sqlrank.evaluate(qrels, run, measures, per_query=True, groups=options["item_features"], **options)
    got = _table(folder, adapter, "evaluation", request).rename(columns={"query_id": "user_id"})
    _same(expected[~expected.measure.isin(whole)], got[~got.measure.isin(whole)])
    summary = sqlrank.evaluate(qrels, run, measures, groups=options["item_features"], **options)
    _same(summary, _table(folder, adapter, "evaluation_summary", request))


@pytest.mark.parametrize("adapter", ["duckdb", "postgres"])
def test_subtopics_samples_and_sources_read_their_models(adapter, tmp_path, request):
    """The diversity measures on judgments per subtopic (a subtopic column), expected exposure on sampled rankings (a
    sample column) and judgments of two sources in one model (a source column, --prefer): three evaluations of one
    project, each model per query and in summary equal to DuckDB's to 1e-12; the input test lets a document come
    once per subtopic, sample and source. Each evaluation reads its own vars (sqlrank_NAME_qrels); one set for
    neither it nor all evaluations is a compiler error naming both."""
    dbt = _dbt(adapter)
    folder = tmp_path / adapter
    qrels, run = subtopic_judgments(3)
    judged, samples = sampled_rankings(4)
    one = samples[samples["sample"] == "s0"].drop(columns="sample")
    llm = judged.assign(relevance=(judged.relevance + 1) % 3)
    both = pd.concat([judged.assign(judge="human"), llm.assign(judge="llm")])
    evaluations = {"diverse": (qrels, run, "alpha_nDCG@10 ERR_IA@5 AP_IA NRBP", ["--tie-break", "doc_id_asc"]),
                   "exposure": (judged, samples, "EE_D EE_R(p=0.8) EE_L@5", []),
                   "merged": (both, one, "nDCG@10 AP", ["--prefer", "llm,human"])}
    _sqlrank_dbt(folder, "--demo", "-m", "P@5")
    (folder / "seeds" / "seeds.yml").unlink()
    for name, (q, r, measures, flags) in evaluations.items():
        _sqlrank_dbt(folder, "--name", name, "-m", measures, *flags)
        q.to_csv(folder / "seeds" / f"{name}_qrels.csv", index=False)
        r.to_csv(folder / "seeds" / f"{name}_run.csv", index=False)
    for name in ("evaluation", "evaluation_summary"):
        (folder / "models" / f"{name}.sql").unlink()
    (folder / "tests" / "evaluation_inputs.sql").unlink()
    _profile(folder, adapter, request)
    variables = {"sqlrank_columns": {"qrels": {"source": "judge"}}}  # each evaluation's own inputs: one build
    variables |= {f"sqlrank_{name}_{kind}": f"{name}_{kind}" for name in evaluations for kind in ("qrels", "run")}
    bare = _run(dbt, folder, "build", "--vars", json.dumps({"sqlrank_diverse_qrels": "diverse_qrels",
                                                            "sqlrank_run": None}))  # the starter's shared one unset
    assert bare.returncode != 0 and re.search(r"sqlrank\.(\w+) reads its run from the model, seed, source or table "
                                              r"that the var sqlrank_\1_run names, and it is not set",
                                              bare.stdout), bare.stdout[-2000:]
    done = _run(dbt, folder, "build", "--vars", json.dumps(variables))
    assert done.returncode == 0, done.stdout[-3000:]
    for name, (q, r, measures, flags) in evaluations.items():
        options = {"tie_break": "doc_id_asc"} if name == "diverse" else {}
        given = {"llm": llm, "human": judged} if name == "merged" else q
        options |= {"prefer": "llm,human"} if name == "merged" else {}
        _same(sqlrank.evaluate(given, r, measures, per_query=True, **options), _table(folder, adapter, name, request))
        _same(sqlrank.evaluate(given, r, measures, **options), _table(folder, adapter, f"{name}_summary", request))
    twice = pd.concat([qrels, qrels.head(1)])  # a document judged twice for one subtopic
    twice.to_csv(folder / "seeds" / "diverse_qrels.csv", index=False)
    done = _run(dbt, folder, "build", "--vars", json.dumps(variables), "--select", "diverse_qrels", "diverse_inputs")
    assert done.returncode != 0 and "diverse_inputs" in done.stdout


def _macro(package: Path, name: str) -> str:
    """The body of one macro of the package's macros/NAME.sql files."""
    for path in (package / "macros").glob("*.sql"):
        found = re.search(r"\{% macro " + name + r"\(.*?\) %\}\n(.*?)\{% endmacro %\}", path.read_text(), re.S)
        if found:
            return found.group(1)
    raise AssertionError(f"no macro {name}")


_DUCKDB_VALUES: dict[tuple, pd.DataFrame] = {}  # (convention set, runs stored together, per query): sqlrank's frame


@pytest.mark.parametrize("adapter", ["snowflake", "bigquery", "trino", "redshift", "databricks", "clickhouse"])
def test_the_macros_of_other_adapters_give_duckdbs_values(generated, package, adapter, tmp_path):
    """The macro each adapter dispatches to, rendered as dbt renders it (the relations its arguments, the columns
    sqlrank.column's names quoted as the adapter quotes them), parses with sqlglot in the adapter's dialect and,
    translated into DuckDB's SQL, gives DuckDB's values per query and in summary, for every measure under the
    convention sets; what the dialect cannot compute is a compiler error that says why."""
    sqlglot = peer("sqlglot")
    qrels, run = generated
    read = "spark" if adapter == "databricks" else adapter
    quote = "`" if adapter in ("bigquery", "databricks", "clickhouse") else '"'
    con = duckdb.connect()
    con.execute("CREATE SCHEMA ds")
    for name, frame in (("judged", qrels.rename(columns=NAMES["qrels"])), ("ranked", run.rename(columns=NAMES["run"]))):
        con.register("frame", frame)
        con.execute(f"CREATE TABLE ds.{name} AS SELECT * FROM frame")

    def column(kind: str, name: str) -> str:
        given = NAMES[kind][name]
        return quote + (given.upper() if adapter == "snowflake" else given) + quote

    stored = pd.concat([run.assign(run_id="a"), run.assign(run_id="b", score=-run.score)])
    con.register("frame", stored.rename(columns=NAMES["run"]))
    con.execute("CREATE TABLE ds.stored AS SELECT * FROM frame")
    environment = jinja2.Environment()
    checked = 0
    for (number, conventions), runs in [*((case, False) for case in enumerate(CONVENTIONS)),
                                        ((0, CONVENTIONS[0]), True)]:  # runs stored together, per run
        measures = measures_for(conventions)
        relations = {"qrels": f"{quote}ds{quote}.{quote}judged{quote}",
                     "run": f"{quote}ds{quote}.{quote}{'stored' if runs else 'ranked'}{quote}"}
        for suffix, per_query in (("", True), ("_summary", False)):
            body = _macro(package, f"{adapter}__evaluation_{number}{suffix}")
            if "raise_compiler_error" in body:  # what the dialect cannot compute, said when the model is built
                with pytest.raises(sqlrank.MeasureError) as caught:
                    sqlrank.render("ds.judged", "ds.ranked", measures, dialect=adapter, **conventions)
                assert str(caught.value).replace("'", "\\'") in body
                continue
            sql = environment.from_string(body).render(
                sqlrank={"column": lambda kind, name: quote + "run_id" + quote if name == "run_id" else column(kind, name),
                         "stored_runs": lambda _, stored_runs=runs: stored_runs}, **relations)
            parsed = sqlglot.parse(sql, read=read)
            assert len(parsed) == 1
            if adapter == "clickhouse":  # ClickHouse's own SQL (numbers(), its settings) runs in chDB
                got = _clickhouse(sql, con, tmp_path)
            else:  # the tree parsed above, written in DuckDB's SQL (what sqlglot.transpile does, without parsing twice)
                got = con.execute(parsed[0].sql(dialect="duckdb")).df()
            columns = (["run_id"] if runs else []) + (["query_id", "measure", "value"] if per_query else ["measure", "value"])
            got = got.iloc[:, :len(columns)]  # the summary's column of queries with a value aside
            got.columns = columns
            key = (number, runs, per_query)  # DuckDB's values, the same for every adapter: computed once
            if key not in _DUCKDB_VALUES:
                _DUCKDB_VALUES[key] = sqlrank.evaluate(qrels, stored if runs else run, measures, per_query=per_query,
                                                       **conventions)
            _same(_DUCKDB_VALUES[key], got)
            checked += 1
    assert checked >= 12


def test_the_snowflake_macro_runs_in_fakesnow(generated, package):
    """The Snowflake macros, rendered as dbt renders them, run through fakesnow (Snowflake's connector over DuckDB,
    with its own reading of Snowflake's SQL) on tables whose columns are named as Snowflake names columns created
    without quotes: DuckDB's values per query and in summary under every convention set Snowflake computes."""
    python = peer_python("SQLRANK_FAKESNOW_PYTHON", "fakesnow pins its own DuckDB and sqlglot: set SQLRANK_FAKESNOW_PYTHON "
                         "to a Python that has it (.ci/run makes one: pip install fakesnow 'snowflake-connector-python<5')")
    qrels, run = generated
    upper = {kind: {canonical: name.upper() for canonical, name in names.items()} for kind, names in NAMES.items()}
    tables = {"JUDGED": (qrels, upper["qrels"], ("varchar", "varchar", "integer")),
              "RANKED": (run, upper["run"], ("varchar", "varchar", "double", "integer"))}
    given = {"tables": {name: {"columns": dict(zip([columns[c] for c in frame.columns], types)),
                               "rows": frame.astype(object).values.tolist()}
                        for name, (frame, columns, types) in tables.items()}, "statements": []}
    environment = jinja2.Environment()
    expected = []
    for number, conventions in enumerate(CONVENTIONS):
        measures = measures_for(conventions)
        for suffix, per_query in (("", True), ("_summary", False)):
            body = _macro(package, f"snowflake__evaluation_{number}{suffix}")
            if "raise_compiler_error" in body:
                continue
            given["statements"].append(environment.from_string(body).render(
                sqlrank={"column": lambda kind, name: f'"{upper[kind][name]}"', "stored_runs": lambda _: False},
                qrels='"DB"."DS"."JUDGED"', run='"DB"."DS"."RANKED"'))
            expected.append(sqlrank.evaluate(qrels, run, measures, per_query=per_query, **conventions))
    assert len(expected) >= 10
    done = subprocess.run([python, str(Path(__file__).parents[1] / "support" / "fakesnow_run.py")], input=json.dumps(given),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    for want, rows in zip(expected, json.loads(done.stdout)):
        got = pd.DataFrame([row[:len(want.columns)] for row in rows], columns=list(want.columns))
        _same(want, got)


def _clickhouse(sql: str, con: duckdb.DuckDBPyConnection, folder: Path) -> pd.DataFrame:
    """A statement run in chDB (ClickHouse in this process) on the tables ds.judged and ds.ranked of ``con``."""
    peer("chdb")
    from sqlrank.engines.clickhouse import chdb_session

    chdb = chdb_session()
    chdb.query("CREATE DATABASE IF NOT EXISTS ds")
    for name in ("judged", "ranked", "stored"):
        path = folder / f"{name}.parquet"
        if not path.exists():
            con.execute(f"COPY ds.{name} TO '{path}' (FORMAT parquet)")
            chdb.query(f"DROP TABLE IF EXISTS ds.{name}")
            chdb.query(f"CREATE TABLE ds.{name} ENGINE = Memory AS SELECT * FROM file('{path}', Parquet)")
    return chdb.query(sql, "DataFrame")


def _project_with(folder: Path, source: Path, qrels: pd.DataFrame, run: pd.DataFrame) -> None:
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("target", "logs", "*.duckdb"))
    qrels.to_csv(folder / "seeds" / "qrels.csv", index=False)
    run.to_csv(folder / "seeds" / "run.csv", index=False)


@pytest.fixture(scope="module")
def starter(tmp_path_factory):
    folder = tmp_path_factory.mktemp("starter") / "ranking"
    _sqlrank_dbt(folder, "--demo", "-m", DEMO)
    return folder


def test_the_input_tests_fail_on_a_repeated_document(starter, generated, tmp_path):
    """The evaluation's input test and the generic test on the seed each fail on a document judged twice."""
    dbt = _dbt()
    qrels, run = generated
    folder = tmp_path / "repeated"
    _project_with(folder, starter, pd.concat([qrels, qrels.head(1)]), run.drop(columns="rank"))
    assert _run(dbt, folder, "seed").returncode == 0
    done = _run(dbt, folder, "test")
    assert done.returncode != 0 and "FAIL 1 evaluation_inputs" in done.stdout, done.stdout[-2000:]
    assert "FAIL 1 sqlrank_one_row_per_document_qrels_" in done.stdout
    assert "PASS sqlrank_one_row_per_document_run_" in done.stdout


def test_runs_stored_together_are_evaluated_per_run_and_compared(starter, generated, tmp_path):
    """A run model with a run_id column was one run to the statement and a failing input test; it is now evaluated
    per run in one model (run_id first), each run's values equal sqlrank eval's of the table; with the var
    sqlrank_baseline, the comparison model's mean differences and t statistics equal sqlrank compare's, and compare
    --paired-t reads it for compare's p-values. A document twice within one run still fails the input test; a
    baseline that is no run stops the build naming the runs."""
    dbt = _dbt()
    qrels, run = generated
    run = run.drop(columns="rank")
    other = run.assign(score=run.groupby("query_id").score.transform(lambda s: s.sample(frac=1, random_state=3).values))
    stored = pd.concat([run.assign(run_id="a"), other.assign(run_id="b"), run.assign(run_id="c", score=-run.score)])
    folder = tmp_path / "stored"
    _project_with(folder, starter, qrels, stored)
    variables = json.dumps({"sqlrank_baseline": "a"})
    done = _run(dbt, folder, "build", "--vars", variables)
    assert done.returncode == 0, done.stdout[-3000:]
    with duckdb.connect(str(folder / "sqlrank.duckdb"), read_only=True) as con:
        per_query, summary, compared = (con.execute(f"SELECT * FROM {name}").df()
                                        for name in ("evaluation", "evaluation_summary", "evaluation_comparison"))
    _same(sqlrank.evaluate(qrels, stored, DEMO, per_query=True), per_query)
    _same(sqlrank.evaluate(qrels, stored, DEMO), summary)
    expected = sqlrank.compare(qrels, [stored], DEMO)
    expected = expected[expected.run != "a"].set_index(["measure", "run"])
    assert len(compared) == len(expected) == 2 * len(DEMO.split())
    for row in compared.itertuples():
        assert abs(row.mean_difference - expected.loc[(row.measure, row.run_id)].delta) < 1e-12
    shown = subprocess.run([sys.executable, "-m", "sqlrank", "compare", "--paired-t", "evaluation_comparison", "--dsn",
                            str(folder / "sqlrank.duckdb"), "-m", DEMO, "-f", "csv"], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    read = pd.read_csv(__import__("io").StringIO(shown.stdout)).set_index(["measure", "run_id"])
    for (measure, name), want in expected.iterrows():
        got = read.loc[(measure, name)]
        for mine, theirs in (("p", "p_value"), ("ci_low", "ci_low"), ("ci_high", "ci_high"), ("effect", "effect_size")):
            assert abs(got[mine] - want[theirs]) < 1e-12, (measure, name, mine)
    bad = _run(dbt, folder, "build", "--vars", json.dumps({"sqlrank_baseline": "bm25"}), "--select", "evaluation_comparison")
    assert bad.returncode != 0 and "the baseline bm25 is none of the runs" in bad.stdout and "(a, b, c)" in bad.stdout
    twice = tmp_path / "twice"
    _project_with(twice, starter, qrels, pd.concat([stored, stored.head(1)]))
    assert _run(dbt, twice, "seed").returncode == 0
    done = _run(dbt, twice, "test", "--select", "evaluation_inputs")
    assert done.returncode != 0 and "FAIL 1 evaluation_inputs" in done.stdout, done.stdout[-2000:]


def test_implicit_feedback_in_dbt(tmp_path):
    """Interactions without a label column (relevance: null in sqlrank_columns): every listed pair is relevant, as
    sqlrank eval reads them with relevance= (qrels_columns={"relevance": None})."""
    dbt = _dbt()
    project = tmp_path / "recsys"
    measures = "HR@10 nDCG@10 AP"
    _sqlrank_dbt(project / "sqlrank_package", "-m", measures, "--name", "metrics")
    (project / "seeds").mkdir()
    clicks = pd.read_csv(FIXTURES / "recsys" / "clicks.csv")
    interactions = clicks[clicks.clicked > 0][["user_id", "item_id"]]
    predictions = pd.read_parquet(FIXTURES / "recsys" / "predictions.parquet")
    interactions.to_csv(project / "seeds" / "interactions.csv", index=False)
    predictions.to_csv(project / "seeds" / "predictions.csv", index=False)
    summary = _built_summary(dbt, project, "name: recsys\nversion: '1.0'\nconfig-version: 2\nprofile: sqlrank\nvars:\n"
                             "  sqlrank_qrels: interactions\n  sqlrank_metrics_run: predictions\n  sqlrank_columns:\n"
                             "    qrels: {query_id: user_id, doc_id: item_id, relevance: null}\n"
                             "    run: {query_id: user_id, doc_id: item_id}\n"
                             "seeds:\n  recsys:\n    +column_types: {user_id: varchar, item_id: varchar}\n")
    columns = {"qrels_columns": {"query_id": "user_id", "doc_id": "item_id", "relevance": None},
               "run_columns": {"query_id": "user_id", "doc_id": "item_id"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sqlrank.evaluate(interactions, predictions, measures, **columns)
    _same(expected, summary)
