"""Trust at the edges of the files a command reads or keeps: outputs never replace them (inputs after their
patterns are expanded, histories, weights, databases, a dbt project's edited files), and a history is appended
to without losing, widening or leaving anything. Each case here once replaced a user's file, printed a wrong
number with exit 0, left a file behind or ended in a traceback."""
from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest

import sqlrank
from conftest import FIXTURES, ROOT
from sqlrank.cli.main import main
from support.cli import cli, refused, working_folder

DEMO = FIXTURES / "demo"
QRELS = "q1 0 d1 1\nq1 0 d3 1\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d1 1 2 t\nq2 Q0 d2 2 1 t\n"
WEIGHTS = "query_id,weight\nq1,3\nq2,1\n"


@pytest.fixture
def here(tmp_path, monkeypatch):
    return working_folder(tmp_path, monkeypatch, {"qrels": QRELS, "run": RUN, "w.csv": WEIGHTS})


def snapshot(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ every file a command reads or keeps

def _sqlite(path):
    import sqlite3

    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.commit()
    con.close()


CLOBBERS = [  # (command line, the file -o or --record would replace)
    (["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet", "-o", "h.parquet"], "h.parquet"),
    (["eval", "qrels", "run", "-m", "AP", "--weights", "w.csv", "-o", "w.csv"], "w.csv"),
    (["eval", "qrels", "run", "-m", "AP", "--engine", "sqlite", "--dsn", "db.sqlite", "-o", "db.sqlite"], "db.sqlite"),
    (["pool", "runs/*.txt", "--depth", "1", "-o", "runs/bm25.txt"], "runs/bm25.txt"),
    (["pool", "runs/*.txt", "--depth", "1", "-o", "./runs/../runs/other.txt"], "runs/other.txt"),
    (["eval", "qrels", "run", "-m", "AP", "--record", "run"], "run"),
    (["eval", "--qrels", "human=qrels", "run", "-m", "AP", "-o", "qrels"], "qrels"),
    (["compare", "qrels", "run", "runs/bm25.txt", "-m", "AP", "--weights", "w.csv", "-o", "w.csv"], "w.csv"),
]


@pytest.mark.parametrize("args, victim", CLOBBERS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_no_output_replaces_a_file_the_command_reads_or_keeps(here, capsys, args, victim):
    (here / "runs").mkdir()
    (here / "runs" / "bm25.txt").write_text(RUN)
    (here / "runs" / "other.txt").write_text(RUN.replace("t\n", "u\n"))
    _sqlite(here / "db.sqlite")
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    capsys.readouterr()
    before = snapshot(here)
    status, out, err = cli(capsys, *args)
    refused(status, out, err, "there would replace it", "give another")
    assert snapshot(here) == before


# ------------------------------------------------------------------ sqlrank dbt: the user's edits, the names

def test_dbt_init_again_keeps_the_lines_a_user_added(here, capsys):
    assert cli(capsys, "dbt", "ranking", "--init", "-m", "AP")[0] == 0
    assert cli(capsys, "dbt", "ranking", "--init", "-m", "AP P@5")[0] == 0  # as written: written anew
    for name in ("profiles.yml", "dbt_project.yml"):
        path = here / "ranking" / name
        path.write_text(path.read_text() + "      password: \"{{ env_var('PW') }}\"\n")
        before = snapshot(here / "ranking")
        status, out, err = cli(capsys, "dbt", "ranking", "--init", "-m", "AP")
        refused(status, out, err, name, "was edited after sqlrank dbt wrote it", "nothing was written")
        assert snapshot(here / "ranking") == before
        assert cli(capsys, "dbt", "ranking", "-m", "nDCG@10", "--name", "other")[0] == 0  # no --init: not rewritten
        assert "env_var('PW')" in path.read_text()
        assert cli(capsys, "dbt", "ranking", "--init", "-m", "AP", "--force")[0] == 0
        assert "env_var('PW')" not in path.read_text()


def test_dbt_init_again_keeps_a_file_whose_stamp_was_taken_out(here, capsys):
    """A user who edits profiles.yml may take the stamp out of its first line too: the file is the user's."""
    import re

    assert cli(capsys, "dbt", "ranking", "--init", "-m", "AP")[0] == 0
    for name in ("profiles.yml", "dbt_project.yml"):
        path = here / "ranking" / name
        first, rest = path.read_text().split("\n", 1)
        path.write_text(re.sub(r" \[[0-9a-f]{16}\]", "", first) + "\n" + rest + "      password: secret\n")
    before = snapshot(here / "ranking")
    status, out, err = cli(capsys, "dbt", "ranking", "--init", "-m", "AP")
    refused(status, out, err, "profiles.yml", "dbt_project.yml", "nothing was written")
    assert snapshot(here / "ranking") == before


@pytest.mark.parametrize("first, second, taken", [
    (["--name", "evaluation"], ["--name", "evaluation_summary"], "the summary of the evaluation evaluation"),
    (["--name", "evaluation_summary"], ["--name", "evaluation"], "the evaluation evaluation_summary"),
    (None, ["--demo", "--name", "qrels"], "a seed (qrels.csv)"),
    (["--demo"], ["--name", "run"], "a seed (run.csv)"),
    (["--name", "dense"], ["--name", "dense_comparison"], "the comparison of the evaluation dense"),
])
def test_dbt_refuses_a_name_another_node_has(here, capsys, first, second, taken):
    if first is not None:
        assert cli(capsys, "dbt", "pkg", "-m", "AP", *first)[0] == 0
    before = snapshot(here / "pkg") if (here / "pkg").exists() else {}
    status, out, err = cli(capsys, "dbt", "pkg", "-m", "AP", *second)
    refused(status, out, err, taken, "give another --name")
    assert (snapshot(here / "pkg") if (here / "pkg").exists() else {}) == before


def test_dbt_names_a_free_name_when_one_is_taken(here, capsys):
    """--name that collided said "give another --name", leaving the user to guess one that is free."""
    assert cli(capsys, "dbt", "pkg", "-m", "AP", "--name", "dense")[0] == 0
    (here / "pkg" / "models" / "marts").mkdir(parents=True)
    (here / "pkg" / "models" / "marts" / "dense_summary_2.sql").write_text("select 1 as x\n")  # taken: not offered
    status, out, err = cli(capsys, "dbt", "pkg", "-m", "AP", "--name", "dense_summary")
    refused(status, out, err, "the summary of the evaluation dense", "--name dense_summary_3 is free")
    assert cli(capsys, "dbt", "pkg", "-m", "AP", "--name", "dense_summary_3")[0] == 0


def test_dbt_refuses_a_name_of_a_model_of_the_user_s(here, capsys):
    (here / "pkg" / "models" / "marts").mkdir(parents=True)
    (here / "pkg" / "models" / "marts" / "scores.sql").write_text("select 1 as x\n")
    refused(*cli(capsys, "dbt", "pkg", "-m", "AP", "--name", "scores"), "a model of yours")


# ------------------------------------------------------------------ the history: modes, locks, temporaries

@pytest.mark.parametrize("mode", [0o600, 0o444, 0o640])
def test_an_append_keeps_the_history_s_mode(here, capsys, mode):
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    os.chmod("h.parquet", mode)
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    assert os.stat("h.parquet").st_mode & 0o7777 == mode
    assert len(sqlrank.history("h.parquet")) == 2


def test_a_history_leaves_nothing_beside_it(here, capsys):
    """No FILE.lock after an append, nor after a refused one; temporaries of writers that died are removed."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = here / f".sqlrank-history-{int(dead.stdout)}-0123abcd.parquet"
    stale.write_bytes(b"PAR1 half written")
    alive = here / f".sqlrank-history-{os.getpid()}-4567abcd.parquet"  # a writer still at work
    alive.write_bytes(b"PAR1")
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    (here / "foreign.parquet").write_bytes(b"not parquet at all")
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "foreign.parquet"]) == 1
    capsys.readouterr()
    alive.unlink()
    assert sorted(os.listdir(here)) == ["foreign.parquet", "h.parquet", "qrels", "run", "w.csv"]


FULL_DISK = """
import resource, signal, sys
from sqlrank.cli.main import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
sys.exit(main(["eval", "qrels", "run", "-m", "AP P@1 P@2 RR", "--record", sys.argv[1]]))
"""


@pytest.mark.parametrize("name", ["h.parquet", "h.duckdb"])
def test_a_full_disk_names_the_history_and_leaves_it_as_it_was(here, capsys, name):
    for _ in range(3):
        assert main(["eval", "qrels", "run", "-m", "AP P@1 P@2 RR", "--record", name]) == 0
    size = os.path.getsize(name)
    before = snapshot(here)
    proc = subprocess.run([sys.executable, "-c", FULL_DISK, name, str(size // 2 if name.endswith(".parquet") else 1000)],
                          cwd=here, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"sqlrank: error: {name}: cannot append to the history (") and \
        proc.stderr.rstrip().endswith("the history is as it was"), proc.stderr
    assert snapshot(here) == before
    assert len(sqlrank.history(name)) == 12


def test_a_marked_parquet_file_of_other_columns_is_refused(here, capsys):
    con = duckdb.connect()
    con.execute("COPY (SELECT 1 AS a, 'x' AS b) TO 'h.parquet' (FORMAT parquet, KV_METADATA {sqlrank_history: '1'})")
    before = snapshot(here)
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"),
            "marked as a sqlrank history, but its columns are not a history's", "left as it is")
    refused(*cli(capsys, "history", "h.parquet"), "its columns are not a history's")
    assert snapshot(here) == before


def test_a_history_of_the_earlier_format_is_read_and_appended_to(here, capsys):
    """A history written before the summary column: its rows were means, and stay so."""
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet"]) == 0
    con = duckdb.connect()
    con.execute("COPY (SELECT * EXCLUDE (summary) FROM 'h.parquet') TO 'old.parquet' "
                "(FORMAT parquet, KV_METADATA {sqlrank_history: '1'})")
    assert main(["eval", "qrels", "run", "-m", "AP", "--aggregate", "min", "--record", "old.parquet"]) == 0
    assert list(sqlrank.history("old.parquet").summary) == ["mean", "min"]


def test_an_sqlite_database_is_no_history_and_nothing_is_fetched(here, capsys):
    _sqlite(here / "analytics.db")
    before = snapshot(here)
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--record", "analytics.db"),
            "analytics.db: is an SQLite database, not a history")
    assert snapshot(here) == before


def test_every_connection_sqlrank_opens_fetches_nothing():
    from sqlrank.engines.duckdb import session

    settings = "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions')"
    with session(None) as (con, _):
        assert con.execute(settings).fetchall() == [(False, False)]
    mine = duckdb.connect()
    with session(mine) as (con, _):  # a caller's connection: nothing installed while sqlrank uses it
        assert con.execute(settings).fetchall()[0][0] is False
    assert mine.execute(settings).fetchall()[0][0] is True


# ------------------------------------------------------------------ what is recorded

def test_the_history_records_what_was_printed(here, capsys):
    """q1's AP is 0.5, q2's 1.0: weights 3 and 1 print 0.625, the minimum 0.5, the mean 0.75."""
    for extra in (["--weights", "w.csv"], ["--aggregate", "min"], []):
        assert main(["eval", "qrels", "run", "-m", "AP", "-f", "csv", "--record", "h.parquet", *extra]) == 0
    printed = [float(line.split(",")[1]) for line in capsys.readouterr().out.splitlines() if line.startswith("AP,")]
    history = sqlrank.history("h.parquet")
    assert printed == [0.625, 0.5, 0.75] == list(history.value)
    assert list(history.summary) == ["weighted mean (weights: w.csv)", "min", "mean"]
    assert "weighted mean (weights: w.csv)" in cli(capsys, "history", "h.parquet")[1]


def test_python_records_what_it_returns(here):
    frame = sqlrank.evaluate("qrels", "run", "AP", weights={"q1": 3, "q2": 1}, record="h.parquet")
    assert list(sqlrank.history("h.parquet").value) == list(frame.value) == [0.625]


def test_only_an_evaluation_that_succeeds_is_recorded(here, capsys):
    (here / "folder").mkdir()
    (here / "run2").write_text(RUN)
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.parquet", "-o", "folder"]) == 1
    assert main(["compare", "qrels", "run", "run2", "-m", "AP", "--record", "h.parquet", "--fail-if", "AP mean < 2"]) == 1
    assert not os.path.exists("h.parquet")
    assert main(["compare", "qrels", "run", "run2", "-m", "AP", "--record", "h.parquet", "--fail-if", "AP mean < 0"]) == 0
    assert len(sqlrank.history("h.parquet")) == 2


def test_compare_all_pairs_records_every_run(here, capsys):
    (here / "run2").write_text(RUN.replace("2 0.5", "2 1.5"))
    (here / "run3").write_text(RUN.replace("1 2 t", "1 0 t"))
    assert main(["compare", "qrels", "run", "run2", "run3", "-m", "AP P@1", "--all-pairs", "--record", "h.parquet"]) == 0
    history = sqlrank.history("h.parquet")
    assert sorted(zip(history.run, history.measure)) == sorted((r, m) for r in ("run", "run2", "run3") for m in ("AP", "P@1"))


def test_several_judgment_sources_are_recorded_by_name_and_hash(here, capsys):
    import hashlib

    (here / "llm.txt").write_text(QRELS.replace("d3", "d2"))
    assert main(["eval", "--qrels", "human=qrels", "--qrels", "llm=llm.txt", "run", "-m", "AP",
                 "--record", "h.parquet"]) == 0
    row = sqlrank.history("h.parquet").iloc[0]
    sha = {name: hashlib.sha256((here / name).read_bytes()).hexdigest() for name in ("qrels", "llm.txt")}
    assert row.qrels == "human=qrels; llm=llm.txt"
    assert row.qrels_sha256 == f"human={sha['qrels']}; llm={sha['llm.txt']}"


@pytest.mark.parametrize("tag", ["a\nb 2099-01-01 00:00:00  r  0.9999", "tab\there", "cr\r", "\x1b[31mred"])
def test_a_tag_is_one_line_of_text(here, capsys, tag):
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--record", "h.parquet", "--tag", tag),
            "holds a control character")
    assert not os.path.exists("h.parquet")
    with pytest.raises(sqlrank.OptionError, match="control character"):
        sqlrank.evaluate("qrels", "run", "AP", record="h.parquet", tag=tag)


def test_a_recorded_control_character_is_printed_as_an_escape(here, capsys):
    """A history written by other hands: its text never forges rows of the output."""
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.duckdb", "--tag", "v1"]) == 0
    con = duckdb.connect("h.duckdb")
    con.execute("UPDATE sqlrank_history SET tag = 'v1' || chr(10) || '2099-01-01 00:00:00  forged  r  0.9999'")
    con.close()
    status, out, _ = cli(capsys, "history", "h.duckdb")
    assert status == 0 and "v1\\n2099" in out and not any(line.startswith("2099") for line in out.splitlines())


def test_history_names_the_measures_it_holds(here, capsys):
    assert main(["eval", "qrels", "run", "-m", "AP P@1", "--record", "h.parquet"]) == 0
    capsys.readouterr()
    refused(*cli(capsys, "history", "h.parquet", "-m", "nDCG@10"), "no nDCG@10 recorded", "holds AP, P@1")
    status, out, _ = cli(capsys, "history", "h.parquet", "-m", "map")  # another name of AP
    assert status == 0 and out.startswith("AP\n") and "P@1" not in out


def test_a_new_duckdb_database_is_an_empty_history(here, capsys):
    duckdb.connect("h.duckdb").close()
    assert cli(capsys, "history", "h.duckdb") == (0, "the history is empty\n", "")
    assert main(["eval", "qrels", "run", "-m", "AP", "--record", "h.duckdb"]) == 0
    assert list(sqlrank.history("h.duckdb").value) == [0.75]
