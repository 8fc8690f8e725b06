"""sqlrank dbt: the package's models, run by dbt itself on dbt-duckdb and on dbt-postgres (the
PostgreSQL server of the postgres tier), give DuckDB's per-query values to 1e-12 for every measure
under the engine tiers' convention sets; its input test passes on clean inputs and fails on a
repeated document."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pandas as pd
import pytest

import sqlrank
from support.cases import CONVENTIONS, measures_for
from conftest import close, peer
from support.generate import generate

pytestmark = [pytest.mark.dbt, pytest.mark.slow]


def _dbt() -> str:
    peer("dbt.adapters.duckdb")
    peer("dbt.adapters.postgres")
    found = shutil.which("dbt") or str(Path(sys.executable).parent / "dbt")
    if not os.path.exists(found):
        pytest.fail("dbt's command is missing beside the dbt package")
    return found


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A dbt project with the judgments and results as seeds and sqlrank's package, one evaluation
    per convention set."""
    folder = tmp_path_factory.mktemp("dbt")
    qrels, run = generate(46, n_queries=60)
    run["rank"] = run.groupby("query_id").cumcount() + 1
    (folder / "seeds").mkdir()
    qrels.to_csv(folder / "seeds" / "qrels.csv", index=False)
    run.to_csv(folder / "seeds" / "run.csv", index=False)
    for number, conventions in enumerate(CONVENTIONS):
        done = subprocess.run([sys.executable, "-m", "sqlrank", "dbt", str(folder / "sqlrank_package"),
                               "--name", f"evaluation_{number}", "-m", " ".join(measures_for(conventions)),
                               *_flags(conventions)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    (folder / "dbt_project.yml").write_text(
        "name: ranking\nversion: '1.0'\nconfig-version: 2\nprofile: ranking\nseed-paths: ['seeds']\n"
        "vars:\n  sqlrank_qrels: qrels\n  sqlrank_run: run\n"
        "seeds:\n  ranking:\n    qrels:\n      +column_types: {query_id: varchar, doc_id: varchar, relevance: integer}\n"
        "    run:\n      +column_types: {query_id: varchar, doc_id: varchar, score: double precision, rank: integer}\n")
    (folder / "packages.yml").write_text("packages:\n  - local: sqlrank_package\n")
    return folder, qrels, run


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


def _run(dbt: str, folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([dbt, *args, "--project-dir", str(folder), "--profiles-dir", str(folder)],
                          capture_output=True, text=True, cwd=folder, env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"})


def _expected(qrels, run, conventions):
    return sqlrank.evaluate(qrels, run, measures_for(conventions), per_query=True, **conventions)


@pytest.mark.parametrize("adapter", ["duckdb", "postgres"])
def test_the_dbt_package_gives_duckdbs_values(project, adapter, request):
    dbt = _dbt()
    folder, qrels, run = project
    if adapter == "duckdb":
        profile = f"      type: duckdb\n      path: {folder / 'warehouse.duckdb'}\n      threads: 1\n"
    else:
        url = urlparse(request.getfixturevalue("postgres_server"))
        socket = parse_qs(url.query)
        profile = (f"      type: postgres\n      host: {socket['host'][0]}\n      port: {socket['port'][0]}\n"
                   f"      user: sqlrank\n      password: ''\n      dbname: postgres\n      schema: dbt\n      threads: 1\n")
    (folder / "profiles.yml").write_text(f"ranking:\n  target: {adapter}\n  outputs:\n    {adapter}:\n{profile}")
    for command in (["deps"], ["seed"], ["run"], ["test"]):
        done = _run(dbt, folder, *command)
        assert done.returncode == 0, (command, done.stdout[-3000:])
    for number, conventions in enumerate(CONVENTIONS):
        table = f"evaluation_{number}"
        if adapter == "duckdb":
            with duckdb.connect(str(folder / "warehouse.duckdb"), read_only=True) as con:
                got = con.execute(f"SELECT query_id, measure, value FROM {table}").df()
        else:
            import adbc_driver_postgresql.dbapi as dbapi
            with dbapi.connect(request.getfixturevalue("postgres_server")) as con, con.cursor() as cursor:
                cursor.execute(f"SELECT query_id, measure, value FROM dbt.{table}")
                got = pd.DataFrame(cursor.fetchall(), columns=["query_id", "measure", "value"])
        expected = _expected(qrels, run, conventions)
        merged = expected.merge(got, on=["query_id", "measure"], how="outer", indicator=True)
        assert len(expected) > 500 and (merged["_merge"] == "both").all(), (conventions, merged.head())
        assert all(close(a, b, 1e-12) for a, b in zip(merged.value_x, merged.value_y)), conventions


def test_the_input_test_fails_on_a_repeated_document(project):
    dbt = _dbt()
    folder, qrels, run = project
    repeated = folder.parent / (folder.name + "_repeated")
    shutil.copytree(folder, repeated, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    pd.concat([qrels, qrels.head(1)]).to_csv(repeated / "seeds" / "qrels.csv", index=False)
    (repeated / "profiles.yml").write_text(f"ranking:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
                                           f"      path: {repeated / 'warehouse.duckdb'}\n")
    for command in (["deps"], ["seed"]):
        assert _run(dbt, repeated, *command).returncode == 0
    done = _run(dbt, repeated, "test", "--select", "evaluation_0_inputs")
    assert done.returncode != 0 and "evaluation_0_inputs" in done.stdout


def test_the_input_test_fails_on_several_runs_in_the_run_model(project):
    """Two runs in the run's model (a run_id column), their documents apart (so no pair repeats):
    the statement would rank them together, and the input test fails; one run_id passes."""
    dbt = _dbt()
    folder, qrels, run = project
    stored = folder.parent / (folder.name + "_stored")
    shutil.copytree(folder, stored, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    (stored / "profiles.yml").write_text(f"ranking:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
                                         f"      path: {stored / 'warehouse.duckdb'}\n")
    for runs, fails in ((pd.concat([run.assign(run_id="a"), run.assign(run_id="b", doc_id=run.doc_id + "-b")]), True),
                        (run.assign(run_id="a"), False)):
        runs.to_csv(stored / "seeds" / "run.csv", index=False)
        for command in (["deps"], ["seed", "--full-refresh"]):
            assert _run(dbt, stored, *command).returncode == 0
        done = _run(dbt, stored, "test", "--select", "evaluation_0_inputs")
        assert (done.returncode != 0) == fails, done.stdout[-2000:]
