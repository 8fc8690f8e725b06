"""Judgments from several sources: merged by preference (the first source that judged a document gives its
label) or by the mean, highest or lowest label, then evaluated. Expected values: the merge done by pandas
and the measures by the plain-Python formulas of support/reference.py, the counts by pandas; never
sqlrank's own output. Generated judgments with real and negative labels, sources that overlap in part."""
from __future__ import annotations

import math

import pandas as pd
import pytest

import sqlrank
from sqlrank.cli.main import main
from support import reference as ref
from support.generate import generate

TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def sources():
    """human: integer labels of part of the documents; llm: real labels of another part, overlapping."""
    qrels, run = generate(17, n_queries=80)
    real, _ = generate(17, n_queries=80, real_labels=True)
    human = qrels.sample(frac=0.6, random_state=1).sort_index()
    llm = real.sample(frac=0.7, random_state=2).sort_index()
    return human, llm, run


def merged_by_pandas(human: pd.DataFrame, llm: pd.DataFrame, how: str) -> pd.DataFrame:
    both = pd.concat([human.assign(order=0), llm.assign(order=1)])
    if how == "prefer":
        return both.sort_values("order").drop_duplicates(["query_id", "doc_id"]).drop(columns="order")
    aggregate = {"mean": "mean", "max": "max", "min": "min"}[how]
    return both.groupby(["query_id", "doc_id"], as_index=False)["relevance"].agg(aggregate)


def by_reference(qrels: pd.DataFrame, run: pd.DataFrame, judged_by: dict[str, set] | None = None) -> dict:
    """(query, measure) -> value, for P@10, nDCG@10, AP, Judged@10 (and Judged(source=...)@10 of judged_by)."""
    labels: dict = {}
    for q, d, r in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        labels.setdefault(q, {})[d] = r
    out = {}
    for q, group in run.groupby("query_id"):
        if q not in labels:
            continue
        docs = sorted(zip(group.doc_id, group.score), key=lambda x: x[0].encode(), reverse=True)
        order = [d for d, _ in sorted(docs, key=lambda x: -x[1])]
        ranked, judged = [labels[q].get(d) for d in order], list(labels[q].values())
        out[(q, "P@10")] = ref.precision(ranked, 10)
        out[(q, "nDCG@10")] = ref.ndcg(ranked, judged, 10)
        out[(q, "AP")] = ref.average_precision(ranked, judged)
        out[(q, "Judged@10")] = ref.judged_share(ranked, 10)
        for name, pairs in (judged_by or {}).items():
            out[(q, f"Judged(source={name})@10")] = sum((q, d) in pairs for d in order[:10]) / min(10, len(order))
    return out


def assert_values(frame: pd.DataFrame, expected: dict) -> None:
    got = {(r.query_id, r.measure): r.value for r in frame.itertuples(index=False)}
    assert got.keys() == expected.keys()
    for key, value in got.items():
        assert math.isclose(value, expected[key], rel_tol=0, abs_tol=TOLERANCE), (key, value, expected[key])


@pytest.mark.parametrize("how", ["prefer", "mean", "max", "min"])
def test_merged_judgments_equal_the_merge_by_pandas(sources, how):
    human, llm, run = sources
    options = {} if how == "prefer" else {"combine": how}
    pairs = {name: set(zip(s.query_id, s.doc_id)) for name, s in (("human", human), ("llm", llm))}
    measures = "P@10 nDCG@10 AP Judged@10 Judged(source=human)@10 Judged(source=llm)@10"
    frame = sqlrank.evaluate({"human": human, "llm": llm}, run, measures, per_query=True, **options)
    merged = merged_by_pandas(human, llm, how)
    assert_values(frame, by_reference(merged, run, pairs))
    summary = sqlrank.evaluate({"human": human, "llm": llm}, run, "AP", **options)
    if how == "prefer":  # every human judgment wins; the LLM's fill the holes
        assert summary.attrs["judgment_sources"] == {"human": len(human), "llm": len(merged) - len(human)}
    else:
        assert summary.attrs["judgment_sources"] == {"human": len(human), "llm": len(llm)}


def test_preferring_the_second_source_and_one_table_with_a_source_column(sources, tmp_path):
    human, llm, run = sources
    expected = by_reference(merged_by_pandas(llm, human, "prefer"), run)
    measures = "P@10 nDCG@10 AP Judged@10"
    assert_values(sqlrank.evaluate([human, llm], run, measures, per_query=True, prefer=["qrels_2", "qrels_1"]),
                  expected)
    table = pd.concat([human.assign(source="human"), llm.assign(source="llm")])
    table.to_csv(tmp_path / "judgments.csv", index=False)
    assert_values(sqlrank.evaluate(tmp_path / "judgments.csv", run, measures, per_query=True, prefer="llm,human"),
                  expected)
    judge = table.rename(columns={"source": "judge"})
    assert_values(sqlrank.evaluate(judge, run, measures, per_query=True, prefer="llm",
                                   qrels_columns={"source": "judge"}), expected)


def test_the_command_line_and_check(sources, tmp_path, capsys):
    human, llm, run = sources
    human.to_csv(tmp_path / "human.csv", index=False)
    llm.to_csv(tmp_path / "llm.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    files = [str(tmp_path / name) for name in ("human.csv", "llm.csv", "run.csv")]
    assert main(["eval", "--qrels", files[0], "--qrels", files[1], files[2], "-m", "AP Judged(source=llm)@10"]) == 0
    out = capsys.readouterr().out
    merged = merged_by_pandas(human, llm, "prefer")
    assert f"judgments: human {len(human)}, llm {len(merged) - len(human)} (the first of human, llm that judged" in out
    assert main(["eval", "--qrels", f"people={files[0]}", "--qrels", files[1], files[2], "-m", "AP",
                 "--combine", "max"]) == 0
    assert f"judgments: people {len(human)}, llm {len(llm)} (the max label" in capsys.readouterr().out
    assert main(["eval", "--qrels", files[0], "--qrels", files[1], files[2], "-m", "AP Judged(source=llm)@10",
                 "--engine", "sqlite"]) == 0  # merged by DuckDB, copied into SQLite
    assert capsys.readouterr().out == out
    assert main(["check", "--qrels", files[0], "--qrels", files[1], files[2]]) == 0
    out = capsys.readouterr().out
    both = human.merge(llm, on=["query_id", "doc_id"])
    apart = int((both.relevance_x != both.relevance_y).sum())
    assert f"{len(both)} documents judged by more than one source, {apart} of them with different labels" in out


@pytest.mark.parametrize("args, message", [
    (["--prefer", "crowd"], "prefer names 'crowd', which is no judgment source (sources: human, llm)"),
    (["--prefer", "human", "--combine", "mean"], "prefer and combine are two ways to merge judgments: give one"),
    (["-m", "Judged(source=crowd)@10"], "no judgment source is called 'crowd' (sources: human, llm)"),
    (["--engine", "datafusion", "-m", "Judged(source=llm)@10"], "a subquery inside an expression, which DataFusion"),
])
def test_errors(sources, tmp_path, capsys, args, message):
    human, llm, run = sources
    human.to_csv(tmp_path / "human.csv", index=False)
    llm.to_csv(tmp_path / "llm.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    command = ["eval", "--qrels", str(tmp_path / "human.csv"), "--qrels", str(tmp_path / "llm.csv"),
               str(tmp_path / "run.csv")]
    assert main([*command, *(args if "-m" in args else ["-m", "AP", *args])]) == 1
    assert message in capsys.readouterr().err


def test_one_source_alone_cannot_be_asked_for_without_several(sources):
    human, _, run = sources
    with pytest.raises(sqlrank.OptionError, match="counts the judgments of one source of several"):
        sqlrank.evaluate(human, run, "Judged(source=human)@10")
    with pytest.raises(sqlrank.OptionError, match="two judgment sources are both called 'run'"):
        sqlrank.evaluate(["a/run.txt", "b/run.txt"], run, "AP")


def test_runs_stored_together_count_each_source_per_run(sources):
    human, llm, run = sources
    together = pd.concat([run.assign(run_id="a"), run.assign(run_id="b", score=-run.score)])
    frame = sqlrank.evaluate({"human": human, "llm": llm}, together, "Judged(source=llm)@10", per_query=True)
    pairs = {"llm": set(zip(llm.query_id, llm.doc_id))}
    merged = merged_by_pandas(human, llm, "prefer")
    for run_id, flipped in (("a", run), ("b", run.assign(score=-run.score))):
        expected = {key: value for key, value in by_reference(merged, flipped, pairs).items()
                    if key[1] == "Judged(source=llm)@10"}
        assert_values(frame[frame.run_id == run_id].drop(columns="run_id"), expected)


def test_merging_in_the_order_given_says_which_labels_went_unused(sources, tmp_path, capsys):
    """--qrels llm=F --qrels human=G where the LLM judged every document people did: the first source wins on every
    one, and only the footer's "human 0" showed that none of the people's labels was used. A warning says so; nothing
    is said where some of them were used, where the order was chosen (--prefer) or where the labels were combined."""
    import warnings

    human, llm, run = sources
    llm = pd.concat([llm, human[~human.set_index(["query_id", "doc_id"]).index.isin(
        llm.set_index(["query_id", "doc_id"]).index)].assign(relevance=0.5)], ignore_index=True)  # all of human's too
    with pytest.warns(sqlrank.SqlrankWarning) as caught:
        sqlrank.evaluate({"llm": llm, "human": human}, run, "AP")
    said = [str(w.message) for w in caught if "merged in the order given" in str(w.message)]
    assert said == [f"judgments of llm, human merged in the order given: a document several judged takes the label of "
                    f"the first of them, so none of human's {len(human)} labels was used; --prefer NAME,... to choose "
                    f"the order, --combine mean|max|min to combine them, or --ci --ci-method ppi to correct an LLM's "
                    f"judgments with people's"]
    for given, chosen in ((sources[:2], {}), ((llm, human), {"prefer": ["llm", "human"]}),
                          ((llm, human), {"combine": "mean"})):
        if not chosen:  # the sources of the fixture overlap in part: some of human's labels are used
            given = given[1], given[0]
        with warnings.catch_warnings(record=True) as quiet:
            warnings.simplefilter("always")
            sqlrank.evaluate({"llm": given[0], "human": given[1]}, run, "AP", **chosen)
        assert not [w for w in quiet if "merged in the order given" in str(w.message)]
    for name, frame in (("llm", llm), ("human", human), ("run", run)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    assert main(["eval", "--qrels", f"llm={tmp_path / 'llm.csv'}", "--qrels", f"human={tmp_path / 'human.csv'}",
                 str(tmp_path / "run.csv"), "-m", "AP", "--gold", "human"]) == 1
    assert "--gold names the people's judgments of --ci LEVEL --ci-method ppi" in capsys.readouterr().err
