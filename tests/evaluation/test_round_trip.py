"""The conventions line sqlrank prints, pasted back (--conventions LINE, or parse_conventions(LINE) as
keyword arguments), gives the same numbers: for every preset and every convention set of the engine
tiers. And the measure names of ir_measures' own spelling parse as ir_measures means them."""
from __future__ import annotations

import pandas as pd
import pytest

import sqlrank
from support.cases import CONVENTIONS, convention_id, measures_for
from conftest import FIXTURES, close, peer
from support.generate import generate
from sqlrank.measures.conventions import parse_conventions
from sqlrank.measures.registry import FAMILIES
from sqlrank.measures.presets import PRESETS


@pytest.fixture(scope="module")
def data():
    qrels, run = generate(61, n_queries=60)
    run["rank"] = run.groupby("query_id").cumcount() + 1  # the input order, for tie_break=input_rank
    return qrels, run


def _pasted_back(qrels, run, measures, **options) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """An evaluation, and the same again from what it printed alone: the measures' canonical names (the
    "canonical:" line; they carry the conventions set for one measure, as a preset sets tie_break=expected for
    nDCG) and the conventions line. The second evaluation asks by the canonical names: its rows are named so."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)
        first = sqlrank.evaluate(qrels, run, measures, per_query=True, **options)
        line = first.attrs["conventions"]
        printed = [first.attrs["measures"][name] for name in dict.fromkeys(first.measure)]
        again = sqlrank.evaluate(qrels, run, printed, per_query=True, **parse_conventions(line))
    first = first.assign(measure=first.measure.map(first.attrs["measures"]))  # canonically, as again names them
    # a measure asked by two names (P@10 and P(rel=2)@10 under rel=2) is one canonical name, asked once again
    first = first.drop_duplicates(["query_id", "measure"]).reset_index(drop=True)
    return first, again, line


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=convention_id)
def test_the_printed_conventions_give_the_same_numbers(data, conventions):
    qrels, run = data
    first, again, line = _pasted_back(qrels, run, measures_for(conventions), **conventions)
    assert list(first.measure) == list(again.measure) and list(first.query_id) == list(again.query_id), line
    pd.testing.assert_series_equal(first.value.reset_index(drop=True), again.value.reset_index(drop=True),
                                   check_exact=False, rtol=0, atol=1e-12)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_s_printed_conventions_give_its_numbers(data, preset):
    qrels, run = data
    expected = PRESETS[preset].conventions.get("tie_break") == "expected"  # families with a closed form only
    measures = [m for m in ("nDCG@10", "AP", "P@5", "RR", "R@20", "Rprec", "Bpref", "ERR@10", "Success@5")
                if not expected or FAMILIES[sqlrank.parse_measures(m)[0].family].tie_expected]
    first, again, line = _pasted_back(qrels, run, measures, preset=preset)
    assert len(first) == len(again), line
    for (_, a), (_, b) in zip(first.iterrows(), again.iterrows()):
        assert a.query_id == b.query_id and close(a.value, b.value, 1e-12), (preset, line, a.measure, b.measure)


def test_the_command_line_takes_a_pasted_conventions_line(tmp_path):
    from sqlrank.cli.main import main

    demo = [str(FIXTURES / "demo" / "qrels.test"), str(FIXTURES / "demo" / "results.test")]
    import contextlib
    import io

    def run(*args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["eval", *demo, "-m", "AP nDCG@10 P@10", *args]) == 0
        return out.getvalue()

    printed = run("--preset", "ranx", "--tie-break", "doc_id_asc", "-J")
    line = next(text for text in printed.splitlines() if text.startswith("conventions: "))
    pasted = run("--conventions", line.removeprefix("conventions: "))
    assert [row.split()[-1] for row in printed.splitlines()[2:5]] == [row.split()[-1] for row in pasted.splitlines()[2:5]]
    assert run("--conventions", "judged_only=false, rel=1") == run()
    with pytest.raises(SystemExit):
        main(["eval", *demo, "-m", "AP", "--conventions", "judged=false"])


@pytest.mark.parametrize("name, ours", [
    ("nDCG(dcg='exp-log2')@10", "nDCG(gain=exponential)@10"),  # ir_measures: gains 2^rel - 1, log2(i + 1)
    ("nDCG(dcg='log2')@10", "nDCG@10"),
    ("P(judged_only=true)@4", "P(judged_only=True)@4"),
    ("P(judged_only=false)@4", "P@4"),
])
def test_ir_measures_spellings_mean_what_ir_measures_means(data, name, ours):
    qrels, run = data
    positive, run = qrels.assign(relevance=qrels.relevance.clip(lower=0)), run.drop(columns="rank")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)
        got = sqlrank.evaluate(positive, run, name, per_query=True, preset="ir_measures")
        expected = sqlrank.evaluate(positive, run, ours, per_query=True, preset="ir_measures")
    assert list(got.value) == list(expected.value)
    if "exp-log2" in name:
        return  # ir_measures computes it with gdeval's Perl script, not run here
    ir_measures = peer("ir_measures")
    measure = ir_measures.parse_measure(name.replace("=true", "=True").replace("=false", "=False"))
    theirs = {m.query_id: m.value for m in ir_measures.pytrec_eval.iter_calc([measure], positive, run)}
    for row in got.itertuples():
        assert close(row.value, theirs.get(row.query_id, 0.0), 1e-9), (name, row.query_id)
