"""Trust at the edges of the statistics, gates, judging tools and fairness inputs: each case here once printed
a wrong number with exit 0, ended in a traceback, ran for minutes or said something unclear. Expected values
come from the definitions (scipy's jensenshannon, Sakai's discriminative power, RBO's limit as p -> 0)."""
from __future__ import annotations

import io
import math
import sys
import time

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES
from sqlrank.cli.main import main
from support.cli import cli, refused, working_folder

QRELS = "q1 0 d1 1\nq1 0 d3 1\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d1 1 2 t\nq2 Q0 d2 2 1 t\n"


@pytest.fixture
def here(tmp_path, monkeypatch):
    return working_folder(tmp_path, monkeypatch, {"qrels": QRELS, "run": RUN})


# ------------------------------------------------------------------ every pair of runs

@pytest.mark.parametrize("runs", [2, 3])
@pytest.mark.parametrize("test", ["tukey", "randomized-tukey", "t", "permutation"])
def test_all_pairs_over_one_query_says_nothing_is_significant(here, capsys, runs, test):
    (here / "one").write_text("q1 0 d1 1\n")
    for k in range(runs):
        (here / f"r{k}").write_text(f"q1 Q0 d1 1 {k} t\nq1 Q0 d{k + 2} 2 {k + 0.5} t\n")
    status, out, _ = cli(capsys, "compare", "one", *[f"r{k}" for k in range(runs)], "-m", "AP", "--all-pairs",
                         "--test", test, "--trials", "100", "-f", "csv")
    assert status == 0
    frame = pd.read_csv(io.StringIO(out))
    assert len(frame) == runs * (runs - 1) // 2 and frame.p_value.isna().all() and not frame.significant.any()


def test_all_pairs_of_identical_runs_is_one_group(here, capsys):
    for k in range(3):
        (here / f"same{k}").write_text(RUN)
    status, out, _ = cli(capsys, "compare", "qrels", "same0", "same1", "same2", "-m", "AP", "--all-pairs")
    assert status == 0 and [line.split()[-1] for line in out.splitlines() if line.startswith("same")][-3:] == ["A"] * 3


def test_the_compact_letters_of_many_runs_take_no_time():
    """26 runs that do not differ: one group (the clique search once took minutes); a random pattern of
    differences gives the maximal groups of runs no two of which differ, checked by brute force."""
    from itertools import combinations

    from sqlrank.statistics.pairs import GROUPS, compact_letters

    runs = [f"r{k}" for k in range(26)]
    started = time.monotonic()
    assert set(compact_letters(runs, {r: 0.5 for r in runs}, {r: set() for r in runs}).values()) == {"A"}
    assert time.monotonic() - started < 1
    rng = np.random.default_rng(3)
    runs = runs[:10]
    better = {r: set() for r in runs}
    for a, b in combinations(runs, 2):
        if rng.random() < 0.4:
            better[a].add(b)
    letters = compact_letters(runs, {r: -k for k, r in enumerate(runs)}, better)
    used = sorted(set("".join(letters.values())))
    assert used == list(GROUPS[:len(used)])
    groups = {frozenset(r for r in runs if letter in letters[r]) for letter in used}

    def alike(group):
        return all(b not in better[a] and a not in better[b] for a, b in combinations(group, 2))
    maximal = {frozenset(g) for size in range(1, 11) for g in combinations(runs, size) if alike(g)}
    maximal = {g for g in maximal if not any(g < h for h in maximal)}
    assert groups == maximal


def test_all_pairs_in_csv_computes_no_letters(here, monkeypatch, capsys):
    import sqlrank.statistics.pairs as pairs

    def refuse(*args):
        raise AssertionError("letters computed for a table that shows none")
    monkeypatch.setattr(pairs, "compact_letters", refuse)
    (here / "run2").write_text(RUN.replace("d2 2 0.5", "d2 2 1.5"))
    assert cli(capsys, "compare", "qrels", "run", "run2", "-m", "AP", "--all-pairs", "-f", "csv")[0] == 0


# ------------------------------------------------------------------ resampling: one bound, blocks, progress

@pytest.mark.parametrize("args", [
    ["eval", "qrels", "run", "-m", "AP", "--ci", "95", "--ci-method", "bca", "--trials", "1000000000"],
    ["eval", "qrels", "run", "-m", "AP", "--ci", "95", "--ci-method", "percentile", "--trials", "10000001"],
    ["compare", "qrels", "run", "run", "-m", "AP", "--test", "bootstrap", "--trials", "1000000000"],
    ["meta", "qrels", "qrels2", "run", "run", "run", "-m", "AP", "--trials", "1000000000"],
])
def test_every_command_bounds_its_resamples(here, capsys, args):
    (here / "qrels2").write_text(QRELS)
    refused(*cli(capsys, *args), "must be a whole number from 100 to 10000000")


def test_a_bootstrap_interval_is_drawn_in_blocks(monkeypatch):
    """Many resamples of many queries: blocks of RESAMPLED_VALUES values, the same interval as one block."""
    from sqlrank.statistics import significance as statistics, uncertainty

    values = np.random.default_rng(1).random(3000)
    whole = uncertainty.interval(values, 0.95, "percentile", 2000, 7)
    seen = []
    original = statistics.resample_batch
    monkeypatch.setattr(uncertainty, "resample_batch", lambda trials, n: seen.append(original(trials, n)) or 300)
    assert uncertainty.interval(values, 0.95, "percentile", 2000, 7) == pytest.approx(whole, abs=1e-12)
    assert seen == [original(2000, 3000)]


def test_long_resampling_shows_how_far_it_has_got(monkeypatch):
    import sqlrank.progress as progress
    from sqlrank.statistics.significance import paired_test

    terminal = io.StringIO()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(progress, "_COUNTS_SHOWN", True)  # as the command line asks on a terminal
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.001)
    rng = np.random.default_rng(0)
    a, b = rng.random(3000), rng.random(3000)
    quiet = paired_test(a, b, "permutation", 20_000, 0)
    assert "sqlrank: permutation test: " in terminal.getvalue() and "% of 20,000" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\x1b[K")
    monkeypatch.setattr("sys.stderr", io.StringIO())
    monkeypatch.setattr(progress, "_COUNTS_SHOWN", False)
    assert paired_test(a, b, "permutation", 20_000, 0) == quiet  # the same p-value with the line or without
    assert sys.stderr.getvalue() == ""


def test_the_command_line_asks_for_the_line_on_a_terminal_only(here, capsys):
    import sqlrank.progress as progress

    assert main(["eval", "qrels", "run", "-m", "AP"]) == 0 and progress._COUNTS_SHOWN is False


# ------------------------------------------------------------------ meta, gates, agreement

def test_discriminative_power_counts_the_pair_that_cannot_differ(here, capsys):
    """Two identical runs and a third that differs from both with p < 0.05: 2 of the 3 pairs (Sakai's share of all
    pairs of runs), not 2 of 2."""
    queries = [f"q{k}" for k in range(30)]
    (here / "big.qrels").write_text("".join(f"{q} 0 d1 1\n" for q in queries))
    good = "".join(f"{q} Q0 d1 1 2 t\n{q} Q0 d2 2 1 t\n" for q in queries)
    bad = "".join(f"{q} Q0 d2 1 2 t\n{q} Q0 d1 2 1 t\n" for q in queries[:25]) + \
        "".join(f"{q} Q0 d1 1 2 t\n{q} Q0 d2 2 1 t\n" for q in queries[25:])
    for name, text in (("a", good), ("b", good), ("c", bad)):
        (here / name).write_text(text)
    result = sqlrank.meta("big.qrels", "./big.qrels", ["a", "b", "c"], "P@1", test="t")
    assert result.power_a.iloc[0] == pytest.approx(2 / 3) and result.power_b.iloc[0] == pytest.approx(2 / 3)


def test_a_relative_rule_over_a_zero_baseline_is_an_error(here, capsys):
    (here / "zero").write_text("q1 Q0 d9 1 1 t\nq2 Q0 d9 1 1 t\n")
    status, out, err = cli(capsys, "compare", "qrels", "zero", "run", "-m", "AP", "--fail-if", "AP > 2%")
    assert status == 1 and out  # the comparison is printed; the rule cannot be decided
    assert "the baseline zero's mean AP is 0, so a change relative to it is undefined" in err, err
    assert cli(capsys, "compare", "qrels", "zero", "run", "-m", "AP", "--fail-if", "AP > 0.01")[0] == 1  # as a delta


def test_kappa_of_one_label_throughout_is_undefined_and_says_why(here, capsys):
    (here / "a").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    (here / "b").write_text("q1 0 d1 1\nq1 0 d2 1\n")
    status, out, _ = cli(capsys, "agree", "a", "b")
    assert status == 0 and "nan" not in out
    assert "kappa (unweighted): undefined (both sides gave every document they judged the same one label" in out


# ------------------------------------------------------------------ weights

def test_huge_weights_give_the_weighted_mean(here, capsys):
    """q1's AP 0.5 with weight 1e308, q2's 1.0 with weight 1e308: 0.75 (the sum of the weights overflowed)."""
    (here / "w.csv").write_text("query_id,weight\nq1,1e308\nq2,1e308\n")
    with np.errstate(all="raise"):
        frame = sqlrank.evaluate("qrels", "run", "AP", weights="w.csv")
    assert list(frame.value) == [0.75]
    frame = sqlrank.evaluate("qrels", "run", "AP", weights="w.csv", ci=0.95)
    assert frame.value.iloc[0] == 0.75 and math.isfinite(frame.ci_low.iloc[0])


def test_all_weights_zero_is_an_error_naming_the_file(here, capsys):
    (here / "w.csv").write_text("query_id,weight\nq1,0\nq2,0\n")
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--weights", "w.csv"),
            "w.csv: every evaluated query has the weight 0")


@pytest.mark.parametrize("written", ["1_0", "1_000.5"])
def test_a_weight_with_a_digit_separator_is_refused(here, capsys, written):
    """DuckDB's cast (and Python's int) read 1_0 as 10: a weight is a decimal number as written."""
    (here / "w.csv").write_text(f"query_id,weight\nq1,{written}\nq2,1\n")
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--weights", "w.csv"),
            f"w.csv: weight '{written}' of query 'q1' holds a digit separator (_)")


@pytest.mark.parametrize("weight, shown", [(-1, "is -1;"), (-0.5, "is -0.5;"), (np.float64(-2.0), "is -2;"),
                                           (math.inf, "is inf;")])
def test_a_wrong_weight_is_printed_as_written(here, weight, shown):
    with pytest.raises(sqlrank.InputError) as caught:
        sqlrank.evaluate("qrels", "run", "AP", weights={"q1": weight, "q2": 1})
    assert shown in str(caught.value) and "np." not in str(caught.value)


# ------------------------------------------------------------------ RBO over p's whole range

@pytest.mark.parametrize("p", [1e-17, 1e-9, 1e-5])
def test_rbo_is_stable_at_small_persistence(here, capsys, p):
    """As p -> 0, RBO's weight is all on depth 1: identical lists 1; two documents swapped, p(1 - p) + O(p^2)
    (X_1 = 0, X_2 = 2 in eq. 11 and 32), about p, never below 0 or above 1."""
    (here / "b").write_text("q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\nq2 Q0 d2 1 2 t\nq2 Q0 d1 2 1 t\n")
    names = f"RBO(p={p})@10 RBO(p={p},kind=ext)@10"
    same = sqlrank.overlap("run", "run", names)
    assert same.value.to_list() == pytest.approx([1.0, 1.0], abs=1e-6)
    apart = sqlrank.overlap("run", "b", names)
    assert apart.value.to_list() == pytest.approx([p, p], rel=1e-4, abs=1e-15)
    assert all(0 <= v <= 1 for v in apart.value)


# ------------------------------------------------------------------ fairness and judging inputs

FAIR_QRELS = "q1 0 d1 1\nq1 0 d2 1\n"
FAIR_RUN = "q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\n"


@pytest.fixture
def fair(tmp_path, monkeypatch):
    return working_folder(tmp_path, monkeypatch, {"qrels": FAIR_QRELS, "run": FAIR_RUN,
                                                  "groups.csv": "doc_id,group\nd1,News\nd2,Blog\nd3,News\n"})


def test_group_names_are_data(fair, capsys):
    status, out, _ = cli(capsys, "eval", "qrels", "run", "-m", "Exposure@3", "--groups", "groups.csv", "-f", "csv")
    assert status == 0
    values = dict(pd.read_csv(io.StringIO(out)).itertuples(index=False))
    attention = [1 / math.log2(r + 1) for r in (1, 2, 3)]
    assert float(values["Exposure(browse=log,group=News)@3"]) == pytest.approx((attention[0] + attention[2]) / sum(attention), abs=1e-12)
    assert float(values["Exposure(browse=log,group=Blog)@3"]) == pytest.approx(attention[1] / sum(attention), abs=1e-12)


def test_a_target_group_without_documents_keeps_its_share(fair, capsys):
    from scipy.spatial.distance import jensenshannon

    (fair / "targets.csv").write_text("group,share\nNews,0.2\nBlog,0.3\nPodcast,0.5\n")
    status, out, _ = cli(capsys, "eval", "qrels", "run", "-m", "AWRF(target=file)@3", "--groups", "groups.csv",
                         "--targets", "targets.csv", "-f", "csv")
    attention = [1 / math.log2(r + 1) for r in (1, 2, 3)]
    expected = 1 - jensenshannon([attention[0] + attention[2], attention[1], 0], [0.2, 0.3, 0.5], base=2)
    assert status == 0 and pd.read_csv(io.StringIO(out)).value.iloc[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("targets, fragments", [
    ("group,share\nNews,0.2\nBlog,0.3\nNews,0.5\n", ["targets.csv, line 4: group 'News' has a second target share",
                                                      "the first is on line 2"]),
    ("group,share\nNews,0.2\nBlog,-1\n", ["targets.csv, line 3: the target share of group 'Blog' is -1;"]),
    ("query_id,group,share\nq1,News,0.2\nq1,News,0.3\n", ["line 3: group 'News' has a second target share"]),
])
def test_target_shares_are_checked_as_data(fair, capsys, targets, fragments):
    (fair / "targets.csv").write_text(targets)
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AWRF(target=file)@3", "--groups", "groups.csv",
                 "--targets", "targets.csv"), *fragments)


def test_pool_refuses_ids_trec_qrels_cannot_hold(here, capsys):
    (here / "spaced.csv").write_text("query_id,doc_id,score\nq1,doc one,2\nq1,d2,1\n")
    refused(*cli(capsys, "pool", "spaced.csv", "--depth", "2"), "'doc one' holds white space", "-o FILE.csv")
    status, out, _ = cli(capsys, "pool", "spaced.csv", "--depth", "2", "-f", "csv")
    assert status == 0 and "doc one" in out


def test_pool_counts_the_runs_stored_together(here, capsys):
    (here / "stored.csv").write_text("run_id,query_id,doc_id,score\na,q1,d1,2\nb,q1,d2,1\nc,q1,d3,1\n")
    status, _, err = cli(capsys, "pool", "stored.csv", "run", "--depth", "1")
    assert status == 0 and "(the top 1 of 4 runs, judged ones left out)" in err


# ------------------------------------------------------------------ messages that say what and where

def test_a_sqlite_dsn_that_is_no_database_is_named(here, capsys):
    (here / "notes.txt").write_text("hello\n")
    refused(*cli(capsys, "eval", "qrels", "run", "-m", "AP", "--engine", "sqlite", "--dsn", "notes.txt"),
            "notes.txt: is not an SQLite database")


def test_the_advice_for_a_file_of_a_table_s_name_works(here, capsys):
    import sqlite3

    con = sqlite3.connect(here / "db.sqlite")
    con.execute("CREATE TABLE qrels (query_id TEXT, doc_id TEXT, relevance INTEGER)")
    con.executemany("INSERT INTO qrels VALUES (?, ?, ?)", [("q1", "d1", 1), ("q1", "d3", 1), ("q2", "d1", 1)])
    con.commit()
    con.close()
    status, out, err = cli(capsys, "eval", "qrels", "run", "-m", "AP", "--engine", "sqlite", "--dsn", "db.sqlite")
    refused(status, out, err, "./qrels for the file", "main.qrels")
    (here / "qrels").write_text("q1 0 d1 1\n")  # the file differs from the table: AP 0.75 is the table's, 1 the file's
    for name in ("main.qrels", "./qrels"):
        status, out, _ = cli(capsys, "eval", name, "run", "-m", "AP", "--engine", "sqlite", "--dsn", "db.sqlite",
                             "-f", "csv")
        assert status == 0 and out.splitlines()[1] == ("AP,0.75" if name == "main.qrels" else "AP,1.0"), out


def test_the_same_run_twice_is_said_in_the_command_line_s_words(here, capsys):
    refused(*cli(capsys, "eval", "qrels", "run", "run", "-m", "AP"), "two runs are called 'run'", "give each run once")


@pytest.mark.parametrize("qrels, run, what", [({}, {}, "qrels: an empty dict"), ("qrels", {}, "run: an empty dict"),
                                              ("qrels", [], "run: an empty list"), ([], "run", "qrels: an empty list")])
def test_an_empty_input_is_named(here, qrels, run, what):
    with pytest.raises(sqlrank.InputError, match=what):
        sqlrank.evaluate(qrels, run, "AP")


def test_the_demo_still_reads(here):
    assert sqlrank.evaluate(str(FIXTURES / "demo" / "qrels.test"), str(FIXTURES / "demo" / "results.test"),
                            "AP").value.iloc[0] == pytest.approx(0.1785, abs=5e-5)
