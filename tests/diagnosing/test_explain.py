"""sqlrank explain: finds the worked examples' conventions from their numbers alone, and attributes a gap
between two presets to the conventions that cause it."""
from __future__ import annotations

import math
import subprocess
import sys

import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, close
from sqlrank.cli.main import main
from sqlrank.diagnosing import explain
from sqlrank.diagnosing.explain import attribute, reproduce
from sqlrank.measures.names import parse_measures

GOLDEN = FIXTURES / "golden"


@pytest.mark.parametrize("case, measure, target, query, convention", [
    ("ndcg_tutorial_dcg", "nDCG@6", "0.960808", None, "nDCG@6"),
    ("ndcg_tutorial_dcg", "nDCG@6", "0.932", None, "nDCG(discount=jarvelin)@6"),
    ("ndcg_tutorial_dcg", "nDCG@6", "0.948811", None, "nDCG(gain=exponential)@6"),
    ("ranking_article_jarvelin", "nDCG@5", "0.88", None, "nDCG(discount=jarvelin)@5"),
    ("tools_differ_ndcg", "nDCG@5", "0.639945", None, "nDCG(ideal=perfect)@5"),
    ("map_ndcg_post_map", "AP", "0.755556", "2", "AP(ap_denominator=retrieved_relevant)"),
])
def test_finds_the_seeds_convention_from_the_number(case, measure, target, query, convention):
    frame = reproduce(GOLDEN / case / "qrels.txt", GOLDEN / case / "run.txt", measure, target, query=query)
    matches = frame[frame.matches]
    assert frame.attrs["tried"] > 20
    assert matches.measure.iloc[0] == convention, list(matches.measure[:5])
    assert all(abs(v - float(target)) <= frame.attrs["tolerance"] for v in matches.value)


def test_nothing_matches_an_impossible_number():
    frame = reproduce(GOLDEN / "ndcg_tutorial_dcg" / "qrels.txt", GOLDEN / "ndcg_tutorial_dcg" / "run.txt",
                      "nDCG@6", "1.5")  # nDCG never exceeds 1
    assert not frame.matches.any()


CRAFTED_QRELS = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"], "doc_id": list("abcdz") + ["x"],
                              "relevance": [3, 0, 1, 2, 3, 1]})
# q1: b and c tie (ties matter), labels are graded (gain matters), z is relevant but not
# retrieved (the ideal matters); q2 is judged but not retrieved (the query set matters).
CRAFTED_RUN = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": list("abcd"), "score": [2.0, 1.0, 1.0, 0.5]})


def test_attributes_the_gap_to_each_convention():
    frame = attribute(CRAFTED_QRELS, CRAFTED_RUN, "nDCG@3", "trec_eval",
                      "preset=sklearn,gain=exponential,missing_queries=zero")
    means = frame[frame.query_id == "all"].set_index("convention")
    assert list(means.index) == ["missing_queries=zero", "tie_break=expected", "gain=exponential", "ideal=run"]
    assert all(abs(d) > 1e-3 for d in means.delta), means
    # the steps add up to the whole gap
    assert close(means.before.iloc[0] + means.delta.sum(), means.after.iloc[-1])
    # per query: q1's ties cost the mean over the two orders of b and c
    q1 = frame[(frame.query_id == "q1")].set_index("convention")
    exp_ties = (1 / math.log2(3) + 1 / math.log2(4)) / 2
    dcg_trec = 3 + 1 / math.log2(4)  # b (0) and c (1) tie; trec_eval puts c (doc_id desc) first -> rank 2
    assert close(q1.at["tie_break=expected", "before"], (3 + 1 / math.log2(3)) / (3 + 3 / math.log2(3) + 2 / 2))
    assert close(q1.at["tie_break=expected", "after"], (3 + 1 * exp_ties) / (3 + 3 / math.log2(3) + 2 / 2))
    assert dcg_trec != 0


def test_explain_command(tmp_path, capsys):
    case = GOLDEN / "ndcg_tutorial_dcg"
    assert main(["explain", str(case / "qrels.txt"), str(case / "run.txt"), "-m", "nDCG@6", "--target", "0.932"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[0] == "nDCG(discount=jarvelin)@6"
    assert main(["explain", str(case / "qrels.txt"), str(case / "run.txt"), "-m", "nDCG@6",
                 "--between", "trec_eval", "gdeval"]) == 0
    assert "+ gain=exponential" in capsys.readouterr().out
    assert main(["explain", str(case / "qrels.txt"), str(case / "run.txt"), "-m", "nDCG@6",
                 "--between", "trec_eval", "pytrec_eval"]) == 0  # they differ only in trec_eval_version
    assert "+ trec_eval_version=9" in capsys.readouterr().out


@pytest.mark.slow  # explains each of several runs: 15 s
def test_runs_stored_together_are_explained_one_run_at_a_time(capsys):
    """A table of runs (run_id) holds a number per run: explain works on the one named (--run-id), and
    gives what the run's own file gives; without a name it says which runs there are, where it once
    matched the target against every run's value at once (--target) or stopped with a traceback
    (--between)."""
    compare = FIXTURES / "compare"
    qrels, table = compare / "qrels.txt", compare / "runs.parquet"
    alone = reproduce(qrels, compare / "rerank.run", "nDCG@10", "0.2762").sort_values("measure", ignore_index=True)
    picked = reproduce(qrels, table, "nDCG@10", "0.2762", run_id="rerank").sort_values("measure", ignore_index=True)
    pd.testing.assert_frame_equal(picked, alone, rtol=1e-12)  # the same values, bar the last bit of a sum
    assert alone.matches.any() and not reproduce(qrels, table, "nDCG@10", "0.2762", run_id="baseline").matches.any()
    gap = attribute(qrels, compare / "rerank_v2.run", "nDCG@10", "trec_eval", "ranx")
    pd.testing.assert_frame_equal(attribute(qrels, table, "nDCG@10", "trec_eval", "ranx", run_id="rerank_v2"), gap,
                                  rtol=1e-12)
    for args in (["--target", "0.2762"], ["--between", "trec_eval", "ranx"],
                 ["--target", "0.2762", "--run-id", "bm25"]):
        assert main(["explain", str(qrels), str(table), "-m", "nDCG@10", *args]) == 1
        assert "the run holds 3 runs stored together (baseline, rerank, rerank_v2)" in capsys.readouterr().err
    with pytest.raises(sqlrank.OptionError, match="run_id='rerank' picks one of runs stored together"):
        reproduce(qrels, compare / "rerank.run", "nDCG@10", "0.2762", run_id="rerank")


def test_check_and_explain_take_the_input_options_of_eval(tmp_path):
    """Recommender files with their own column names: check and explain map them as eval does."""
    (tmp_path / "interactions.csv").write_text("user_id,item_id,clicked\nu1,i1,1\nu1,i2,0\nu2,i3,1\n")
    (tmp_path / "predictions.csv").write_text("user_id,item_id,pred\nu1,i1,0.9\nu1,i2,0.8\nu2,i1,0.7\nu2,i3,0.5\n")
    maps = ["--qrels-columns", "query_id=user_id,doc_id=item_id,relevance=clicked",
            "--run-columns", "query_id=user_id,doc_id=item_id,score=pred"]
    files = [str(tmp_path / "interactions.csv"), str(tmp_path / "predictions.csv")]
    value = sqlrank.evaluate(*files, "HR@1", qrels_columns={"query_id": "user_id", "doc_id": "item_id",
                                                            "relevance": "clicked"},
                             run_columns={"query_id": "user_id", "doc_id": "item_id", "score": "pred"}).value[0]
    assert value == 0.5  # u1's first is relevant, u2's is not
    for command in (["check", *files, *maps], ["explain", *files, *maps, "-m", "HR@1", "--target", "0.5"]):
        done = subprocess.run([sys.executable, "-m", "sqlrank", *command], capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    assert "Success@1" in done.stdout


@pytest.mark.parametrize("labels", ["graded", "0 and 1", "fractions"])
@pytest.mark.parametrize("answered", [True, False], ids=["every query answered", "a query unanswered"])
@pytest.mark.parametrize("query", [None, "q1"], ids=["mean", "one query"])
def test_every_candidate_is_worth_what_an_evaluation_of_it_gives(labels, answered, query, monkeypatch):
    """explain's value of every candidate is an evaluation's of it. Where the run answers every query, those that
    score unanswered queries 0 (missing_queries=zero) take their twins' values, read from one statement with the
    first such pair in it; where no label is above 1 or has a fraction, those with gain=exponential take gain=linear's.
    Where a query is unanswered (q2 of the crafted run), a label is above 1 (the crafted judgments') or one has a
    fraction (0.75: 2^0.75 - 1 is 0.68), they are evaluated in a second statement."""
    graded = labels != "0 and 1"
    qrels = CRAFTED_QRELS.assign(relevance={"graded": CRAFTED_QRELS.relevance, "0 and 1": CRAFTED_QRELS.relevance.clip(
        upper=1), "fractions": CRAFTED_QRELS.relevance / 4}[labels])
    run = pd.concat([CRAFTED_RUN, pd.DataFrame({"query_id": ["q2"], "doc_id": ["x"], "score": [1.0]})]) if answered \
        else CRAFTED_RUN
    measure = "nDCG(log_base=10.0,ideal=perfect)@3"  # the other conventions tried: 96 candidates
    tried = explain.candidates(parse_measures(measure)[0])
    kinds = {(zero, exponential): [m for m in tried if (m.param("missing_queries") == "zero") == zero
                                   and (m.param("gain") == "exponential") == exponential]
             for zero in (False, True) for exponential in (False, True)}
    evaluated = []
    real = explain.evaluate_result
    monkeypatch.setattr(explain, "evaluate_result", lambda q, r, measures, **k: (evaluated.append(len(measures)),
                                                                                 real(q, r, measures, **k))[1])
    found = reproduce(qrels, run, measure, "0.5", query=query)
    expected = sqlrank.evaluate(qrels, run, [str(m) for m in tried], per_query=query is not None)
    if query is not None:
        expected = expected[expected.query_id == query]
    assert len(found) == len(tried) == len(expected) and all(len(k) == len(tried) // 4 for k in kinds.values())
    assert dict(zip(found.measure, found.value)) == dict(zip(expected.measure, expected.value))
    second = (0 if answered else len(kinds[True, False]) - 1) + (len(kinds[False, True]) if graded else 0) \
        + (len(kinds[True, True]) if graded and not answered else 0)
    assert evaluated == [len(kinds[False, False]) + 2] + [second] * bool(second)  # the pair, and the labels above 1
    value = dict(zip(found.measure, found.value))

    def differs(kind: tuple[bool, bool], setting: str) -> bool:
        def twin(name: str) -> str:  # the name without the setting, wherever it stands among the parameters
            return name.replace(f",{setting}", "").replace(f"({setting},", "(").replace(f"({setting})", "")
        return any(value[str(m)] != value[twin(str(m))] for m in kinds[kind])
    assert differs((True, False), "missing_queries=zero") == (not answered and query is None)  # q2 scores 0 there
    assert differs((False, True), "gain=exponential") == graded


def test_explaining_a_number_on_the_command_line_imports_no_pandas(tmp_path):
    """The table of combinations is printed from the evaluation's rows: pandas (a third of a second to import) is
    imported only for a DataFrame (reproduce, -f csv)."""
    case = GOLDEN / "ndcg_tutorial_dcg"
    program = ("import sys\nfrom sqlrank.cli.main import main\nstatus = main(sys.argv[1:])\n"
               "print(sorted(name for name in ('pandas', 'pyarrow') if name in sys.modules), status)\n")
    done = subprocess.run([sys.executable, "-c", program, "explain", str(case / "qrels.txt"), str(case / "run.txt"),
                           "-m", "nDCG@6", "--target", "0.932"], capture_output=True, text=True, check=True,
                          cwd=tmp_path)
    assert done.stdout.splitlines()[1].split()[0] == "nDCG(discount=jarvelin)@6"
    assert done.stdout.splitlines()[-1] == "[] 0"
