"""The interfaces users already have: -o FILE's name chooses the format wherever the command has it, and a -f that
says otherwise is an error that names both."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import FIXTURES
from support.cli import cli, refused

DEMO = [str(FIXTURES / "demo" / "qrels.test"), str(FIXTURES / "demo" / "results.test")]
COMPARE = [str(FIXTURES / "compare" / name) for name in ("qrels.txt", "baseline.run", "rerank.run")]


@pytest.mark.parametrize("command, name, fmt", [
    (["eval", *DEMO, "-m", "AP P@10"], "e.csv", "csv"),
    (["eval", *DEMO, "-m", "AP P@10"], "e.json", "json"),
    (["eval", *DEMO, "-m", "AP P@10"], "e.tsv", "tsv"),
    (["compare", *COMPARE, "-m", "AP"], "t.csv", "csv"),
    (["compare", *COMPARE, "-m", "AP"], "t.tex", "latex"),
    (["compare", *COMPARE, "-m", "AP"], "t.md", "markdown"),
    (["report", *COMPARE, "-m", "AP"], "r.tex", "latex"),
    (["report", *COMPARE, "-m", "AP"], "r.md", "markdown"),
])
def test_the_file_name_chooses_the_format(tmp_path, capsys, command, name, fmt):
    named, chosen = tmp_path / name, tmp_path / f"chosen.{name.split('.')[1]}"
    assert cli(capsys, *command, "-o", str(named))[0] == 0
    assert cli(capsys, *command, "-f", fmt, "-o", str(chosen))[0] == 0  # the same as asking for it
    assert named.read_text() == chosen.read_text() and named.read_text()


def test_a_format_the_command_lacks_is_refused(tmp_path, capsys):
    """eval has no Parquet output: -o e.parquet wrote its text table under a name that says Parquet (which nothing,
    sqlrank included, then reads). Refused before anything is read, nothing written."""
    out = tmp_path / "e.parquet"
    refused(*cli(capsys, "eval", *DEMO, "-m", "AP", "-o", str(out)), "-o", "the name says parquet, which sqlrank eval "
            "does not write")
    assert not out.exists()


def test_a_format_and_a_file_name_that_disagree(tmp_path, capsys):
    out = tmp_path / "e.csv"
    refused(*cli(capsys, "eval", *DEMO, "-m", "AP", "-f", "json", "-o", str(out)), "-f json and -o",
            "the file's name says csv")
    assert not out.exists()


def test_overlap_and_history_write_tables_by_the_file_name(tmp_path, capsys):
    import pandas as pd

    import sqlrank

    runs = COMPARE[1:]
    out = tmp_path / "ov.csv"
    assert cli(capsys, "overlap", *runs, "-m", "RBO(p=0.9)@10 Jaccard@10", "-o", str(out))[0] == 0
    expected = sqlrank.overlap(*runs, "RBO(p=0.9)@10 Jaccard@10")
    got = pd.read_csv(out)
    assert got.measure.tolist() == expected.measure.tolist()
    assert got.value.tolist() == pytest.approx(expected.value.tolist(), abs=1e-15)
    status, printed, _ = cli(capsys, "overlap", *runs, "-m", "Jaccard@10", "-q", "-f", "json")
    assert status == 0 and printed.lstrip().startswith("[") and '"query_id"' in printed
    history = tmp_path / "h.parquet"
    assert cli(capsys, "eval", *DEMO, "-m", "AP", "--record", str(history))[0] == 0
    table = tmp_path / "h.csv"
    assert cli(capsys, "history", str(history), "-o", str(table))[0] == 0
    recorded = pd.read_csv(table)
    assert recorded.measure.tolist() == ["AP"] and "recorded_at" in recorded.columns


def test_several_runs_come_back_in_the_order_given(capsys):
    """A list or dict of runs (and runs on the command line) are listed as given, not by name; runs stored together in
    one table keep the order of their names."""
    import warnings

    import sqlrank

    qrels, baseline, rerank = COMPARE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        listed = sqlrank.evaluate(qrels, [rerank, baseline], "AP P@5")
        per_query = sqlrank.evaluate(qrels, {"z": rerank, "a": baseline}, "AP", per_query=True)
        alone = {name: sqlrank.evaluate(qrels, path, "AP P@5").value.tolist()
                 for name, path in (("rerank", rerank), ("baseline", baseline))}
    assert listed.run_id.tolist() == ["rerank", "rerank", "baseline", "baseline"]
    assert listed.value.tolist() == alone["rerank"] + alone["baseline"]
    assert list(dict.fromkeys(per_query.run_id)) == ["z", "a"]
    status, printed, _ = cli(capsys, "eval", qrels, rerank, baseline, "-m", "AP")
    assert status == 0 and printed.index("rerank") < printed.index("baseline")


JUDGING = [str(FIXTURES / "judging" / name) for name in ("human.txt", "llm.csv")]


@pytest.mark.parametrize("command", [
    ["agree", *JUDGING, "--binary", "1"],
    ["overlap", *COMPARE[1:], "-m", "Jaccard@10 Overlap@10"],
    ["meta", *JUDGING, *(str(FIXTURES / "judging" / f"{run}.run") for run in ("bm25", "dense", "splade")), "-m", "AP"],
    ["eval", *DEMO, "-m", "AP P@10"],
    ["eval", *DEMO, "-m", "AP P@10", "--ci", "95"],
    ["check", *DEMO],
    ["explain", *DEMO, "-m", "nDCG@10", "--target", "0.3016"],
    ["pool", COMPARE[1], "--depth", "3"],
])
def test_every_table_as_csv_tsv_json_markdown_and_latex(tmp_path, capsys, command):
    """-f csv|tsv|json|markdown|latex on the commands that print a table (and -o FILE's name choosing it): the same
    rows in each, the Markdown and LaTeX tables with the CSV's numbers to 4 decimals."""
    import io
    import json

    import pandas as pd

    texts = {}
    for fmt in ("csv", "tsv", "json", "markdown", "latex"):
        status, out, err = cli(capsys, *command, "-f", fmt)
        assert status == 0, err
        texts[fmt] = out
    frame = pd.read_csv(io.StringIO(texts["csv"]))
    assert frame.equals(pd.read_csv(io.StringIO(texts["tsv"]), sep="\t"))
    assert len(json.loads(texts["json"])) == len(frame) > 0
    markdown = [line for line in texts["markdown"].splitlines() if line.startswith("|")]
    assert markdown[0] == "| " + " | ".join(frame.columns) + " |" and len(markdown) == len(frame) + 2
    latex = texts["latex"]
    assert latex.startswith("\\begin{tabular}") and latex.count("\\\\") == len(frame) + 1
    number = next((c for c in frame.columns if frame[c].dtype == float), None)  # check and pool count: no fractions
    assert number is None or f"{frame[number].iloc[0]:.4f}" in markdown[2] and f"{frame[number].iloc[0]:.4f}" in latex
    assert cli(capsys, *command, "-o", str(tmp_path / "t.md"))[0] == 0
    assert (tmp_path / "t.md").read_text() == texts["markdown"]


def test_meta_names_its_judgment_sources_by_file_name_or_as_asked(tmp_path, capsys):
    """meta's two judgment sources: qrels.human.txt and qrels.llm.csv told apart by their whole file names, or named
    NAME=FILE; the names head the power columns."""
    import shutil

    human, llm = tmp_path / "qrels.human.txt", tmp_path / "qrels.llm.csv"
    shutil.copy(JUDGING[0], human)
    shutil.copy(JUDGING[1], llm)
    runs = [str(FIXTURES / "judging" / f"{run}.run") for run in ("bm25", "dense", "splade")]
    status, out, err = cli(capsys, "meta", str(human), str(llm), *runs, "-m", "AP")
    assert status == 0, err
    assert "power (qrels_human)" in out and "power (qrels_llm)" in out
    status, out, err = cli(capsys, "meta", f"people={human}", f"machine={llm}", *runs, "-m", "AP")
    assert status == 0 and "power (people)" in out and "power (machine)" in out, err
    refused(*cli(capsys, "meta", f"same={human}", f"same={llm}", *runs, "-m", "AP"), "both called 'same'")


def test_integer_ids_come_back_as_integers_in_their_natural_order(tmp_path):
    """Query (user) ids of an integer column come back as integers (pandas' Int64; empty for a value over all users),
    ordered 2 before 10, so that the per-query rows join back to the input's table; text ids stay text."""
    import pandas as pd

    import sqlrank

    qrels = pd.DataFrame({"user_id": [1, 2, 10, 100, 2], "item_id": [5, 6, 7, 8, 9], "relevance": [1, 1, 1, 1, 0]})
    run = pd.DataFrame({"user_id": [100, 10, 2, 1, 2], "item_id": [8, 7, 6, 5, 9], "score": [1.0, 1.0, 1.0, 1.0, 0.5]})
    run.to_parquet(tmp_path / "run.parquet")
    for given in (run, str(tmp_path / "run.parquet"), {"b": run, "a": run}):
        frame = sqlrank.evaluate(qrels, given, "HR@1 nDCG@2", per_query=True)
        assert str(frame.user_id.dtype) == "Int64"
        runs = frame.run_id.unique().tolist() if "run_id" in frame.columns else [None]
        assert runs in ([None], ["b", "a"])
        for run_id in runs:
            mine = frame if run_id is None else frame[frame.run_id == run_id]
            assert mine.user_id.tolist() == [1, 1, 2, 2, 10, 10, 100, 100]
            assert mine.measure.tolist()[:2] == ["HR@1", "nDCG@2"]  # named as asked
    joined = frame[frame.run_id == "a"].merge(qrels[["user_id"]].drop_duplicates(), on="user_id")
    assert len(joined) == 8
    text = sqlrank.evaluate(qrels.astype({"user_id": str}), run.astype({"user_id": str}), "HR@1", per_query=True)
    assert text.user_id.tolist() == ["1", "10", "100", "2"]  # text ids: as text, in text order
    qrels.to_parquet(tmp_path / "qrels.parquet")  # the command line lists them in that order too, in every layout
    command = [sys.executable, "-m", "sqlrank", "eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"),
               "-m", "HR@1", "-q"]
    for fmt, first in (("table", 2), ("csv", 1), ("tsv", 1)):
        done = subprocess.run([*command, "-f", fmt], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert [line.replace(",", " ").split()[0] for line in done.stdout.splitlines()[first:first + 4]] == \
            ["1", "2", "10", "100"], (fmt, done.stdout)
