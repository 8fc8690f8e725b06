"""The SQL each measure family renders (under trec_eval's conventions and two presets) is the
reviewed snapshot in tests/snapshots/; `python tests/support/snapshots.py` writes them anew."""
from __future__ import annotations

import re

import duckdb
import pytest

from support.snapshots import FOLDER, PRESETS, render
from sqlrank.measures.registry import REGISTRY

WIDTH = 160


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("family", REGISTRY, ids=lambda f: f.name)
def test_rendered_sql_is_the_snapshot(family, preset):
    path = FOLDER / preset / f"{family.name}.sql"
    assert path.is_file(), f"no snapshot {path}: run python tests/support/snapshots.py"
    text = render(family, preset)
    assert text == path.read_text(encoding="utf-8"), \
        f"the SQL of {family.name} under {preset} changed: run python tests/support/snapshots.py and review git diff"
    assert max(len(line) for line in text.splitlines()) < WIDTH


def test_every_snapshot_belongs_to_a_family_and_binds():
    names = {family.name for family in REGISTRY}
    con = duckdb.connect()
    con.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.execute("CREATE TABLE history (query_id VARCHAR, doc_id VARCHAR)")
    con.execute("CREATE TABLE items (doc_id VARCHAR)")
    con.execute("CREATE TABLE intents (query_id VARCHAR, subtopic VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE samples (query_id VARCHAR, sample VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.execute("CREATE TABLE item_features (doc_id VARCHAR, feature VARCHAR, weight DOUBLE)")
    for preset in PRESETS:
        files = sorted((FOLDER / preset).glob("*.sql"))
        assert {path.stem for path in files} == names, preset
        for path in files:
            con.execute("EXPLAIN " + path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("per_query", [False, True])
def test_all_trec_renders_in_short_lines(per_query):
    """trec_eval's all_trec set (about 100 values) as one statement reads as hand-written SQL: no
    line of 160 characters or more, and no line that is only a comma."""
    import sqlrank
    from conftest import ROOT
    from sqlrank.cli.trec_eval import trec_eval_options
    from sqlrank.trec.trec_eval import expand

    lines = expand(trec_eval_options(["-m", "all_trec", "q", "r"]))
    measures = [line.measure for line in lines if line.measure is not None]
    assert len(measures) > 90
    text = sqlrank.render(ROOT / "fixtures/demo/qrels.test", ROOT / "fixtures/demo/results.test", measures,
                          per_query=per_query)
    assert max(len(line) for line in text.splitlines()) < WIDTH
    assert not [line for line in text.splitlines() if line.strip() == ","]
    # a long line breaks where it nests least: never inside a call's arguments such as LOG2(rank + 1)
    assert not re.search(r"\(rank\n", text) and "LOG2(rank + 1)" in text


def test_wrapping_reads_the_words_of_a_line_as_the_character_reader_does():
    """wrap_sql reads most lines with a regular expression (no comment, every quote closed), the others character by
    character: on random lines of words, spaces, quotes and dashes both give the same words, and the expression
    declines exactly the lines the character reader ends inside a quote."""
    import random

    from sqlrank.rendering import sqltext

    pieces = ["a", "b", " ", "'", '"', "`", "-", "(", ")", "  ", "AND", "\t", "x" * 30]
    rng = random.Random(7)
    for _ in range(20_000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        if "--" in line:
            continue
        words, open_quote = sqltext._words(line, None)
        if sqltext._WHOLE.fullmatch(line):
            assert (words, open_quote) == (sqltext._TOKEN.findall(line), None), line
        else:
            assert open_quote is not None, line
    assert sqltext._WHOLE.fullmatch("a " * 5000 + "'") is None  # no backtracking to speak of
