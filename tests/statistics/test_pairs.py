"""sqlrank compare --all-pairs: Tukey's HSD p-values equal ranx's Tukey test and statsmodels' pairwise_tukeyhsd
on the same per-query values; Carterette's randomised Tukey HSD is within Monte Carlo error of the loop written
out here; superscripts and compact letters on runs whose order is known by construction."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import ROOT, peer
from sqlrank.cli.main import main
from sqlrank.statistics.pairs import compact_letters
from support.generate import generate

C = ROOT / "fixtures" / "compare"
RUNS = [str(C / f"{name}.run") for name in ("baseline", "rerank", "rerank_v2")]
NAMES = ["baseline", "rerank", "rerank_v2"]


def per_query(measure: str) -> np.ndarray:
    """queries x runs: each run's per-query values (every query has one in every run here)."""
    columns = [sqlrank.evaluate(C / "qrels.txt", run, measure, per_query=True).set_index("query_id").value
               for run in RUNS]
    return pd.concat(columns, axis=1).to_numpy()


@pytest.mark.parametrize("measure", ["nDCG@10", "AP", "P@5"])
def test_tukey_equals_ranx_and_statsmodels(measure):
    ranx_tests = peer("ranx.statistical_tests")
    multicomp = peer("statsmodels.stats.multicomp")
    frame = sqlrank.compare(C / "qrels.txt", RUNS, measure, pairs="all")
    matrix = per_query(measure)
    ranx = {(r["control"], r["treatment"]): r["p-value"]
            for r in ranx_tests.tukey_hsd_test(NAMES, list(matrix.T), 0.05)}
    groups = np.repeat(NAMES, len(matrix))
    models = multicomp.pairwise_tukeyhsd(matrix.T.reshape(-1), groups)
    statsmodels = dict(zip(itertools.combinations(sorted(NAMES), 2), models.pvalues))
    for row in frame.itertuples(index=False):
        assert abs(row.p_value - ranx[(row.run, row.other)]) < 1e-9
        assert abs(row.p_value - statsmodels[tuple(sorted((row.run, row.other)))]) < 1e-9
        assert row.p_value_adjusted == row.p_value and row.significant == (row.p_value < 0.05)


def randomized_tukey_by_loop(matrix: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """Carterette (2012), Algorithm 1: shuffle each query's values among the systems; count the trials whose
    largest difference of system means reaches each observed difference."""
    rng = np.random.default_rng(seed + 1)  # another stream than sqlrank's: agreement within Monte Carlo error
    means = matrix.mean(axis=0)
    counts = np.zeros((len(means), len(means)))
    for _ in range(trials):
        shuffled = np.array([rng.permutation(row) for row in matrix])
        spread = shuffled.mean(axis=0).max() - shuffled.mean(axis=0).min()
        counts += spread >= np.abs(means[:, None] - means[None, :]) - 1e-12
    return counts / trials


def test_randomized_tukey_within_monte_carlo_error():
    trials = 4000
    frame = sqlrank.compare(C / "qrels.txt", RUNS, "AP", pairs="all", test="randomized-tukey", trials=trials, seed=3)
    expected = randomized_tukey_by_loop(per_query("AP"), trials, 3)
    for row in frame.itertuples(index=False):
        p = expected[NAMES.index(row.run), NAMES.index(row.other)]
        error = 4 * math.sqrt(max(p * (1 - p), 1 / trials) / trials) * math.sqrt(2)
        assert abs(row.p_value - p) <= error, (row, p, error)


def test_superscripts_and_letters_on_a_known_order():
    """best ranks by label, middle at random, worst by label backwards, worst_too the same as worst: best beats
    every run, middle beats both worst ones, the worst two do not differ."""
    qrels, run = generate(9, n_queries=150)
    labels = qrels.set_index(["query_id", "doc_id"]).relevance
    label = [labels.get((q, d), 0) for q, d in zip(run.query_id, run.doc_id)]
    rng = np.random.default_rng(1)
    runs = {"best": run.assign(score=label), "middle": run.assign(score=rng.random(len(run))),
            "worst": run.assign(score=[-x for x in label]), "worst_too": run.assign(score=[-x for x in label])}
    frame = sqlrank.compare(qrels, runs, "nDCG@10", pairs="all", test="t", correction="holm")
    assert frame.attrs["superscripts"]["nDCG@10"] == {"best": "bcd", "middle": "cd", "worst": "", "worst_too": ""}
    assert frame.attrs["letters"]["nDCG@10"] == {"best": "A", "middle": "B", "worst": "C", "worst_too": "C"}


def test_compact_letters_of_overlapping_groups():
    runs = ["A", "B", "C", "D"]  # A > B > C > D; only A-C, A-D and B-D differ
    better = {"A": {"C", "D"}, "B": {"D"}, "C": set(), "D": set()}
    letters = compact_letters(runs, {"A": 0.4, "B": 0.3, "C": 0.2, "D": 0.1}, better)
    assert letters == {"A": "A", "B": "AB", "C": "BC", "D": "C"}  # capitals: not the runs' own letters


def test_the_command_line_formats_and_errors(capsys):
    args = ["compare", str(C / "qrels.txt"), *RUNS, "-m", "nDCG@10 AP", "--all-pairs", "--test", "t", "--correction",
            "holm"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:5] == ["#  run        nDCG@10  AP", "-  ---------  -------  -------",
                                    "a  baseline   0.2427   0.2741", "b  rerank     0.2762ᵃ  0.2918ᵃ",
                                    "c  rerank_v2  0.2786ᵃ  0.2873"]
    assert main([*args, "-f", "latex"]) == 0
    latex = capsys.readouterr().out
    assert "\\toprule" in latex and "\\textbf{0.2918}$^{a}$\\hphantom{$^{c}$}" in latex and "rerank\\_v2" in latex
    assert "holm over 6 comparisons: 3 pairs x 2 measures" in latex
    assert main([*args, "--names", "a~1,b^2,c\\3", "-f", "latex"]) == 0  # every LaTeX special, printed literally
    named = capsys.readouterr().out
    assert "a\\textasciitilde{}1" in named and "b\\textasciicircum{}2" in named and "c\\textbackslash{}3" in named
    assert "a~1" not in named and "c\\3" not in named
    assert main([*args, "-f", "markdown"]) == 0
    assert "| b | rerank | 0.2762<sup>a</sup> | 0.2918<sup>a</sup> |" in capsys.readouterr().out
    assert main([*args, "-f", "csv"]) == 0
    assert capsys.readouterr().out.startswith("measure,run,other,mean,other_mean,delta,p_value,p_value_adjusted,"
                                              "significant\n")
    for extra, message in ((["--test", "tukey", "--correction", "holm"], "leave out --correction"),
                           (["--fail-if", "AP < 0"], "leave out --all-pairs")):
        assert main(["compare", str(C / "qrels.txt"), *RUNS, "-m", "AP", "--all-pairs", *extra]) == 1
        assert message in capsys.readouterr().err
    assert main(["compare", str(C / "qrels.txt"), *RUNS, "-m", "AP", "--test", "tukey"]) == 1
    assert "add --all-pairs" in capsys.readouterr().err


def test_latex_cells_are_ranx_reports(capsys):
    """The LaTeX table's cells are those ranx's Report.to_latex writes for the same means and significant pairs (its
    own code, given sqlrank's comparisons): the best mean in bold, the letters of the runs it beats, the others'
    letters as \\hphantom so that the columns align."""
    peer("ranx")
    from ranx.data_structures.frozenset_dict import FrozensetDict
    from ranx.data_structures.report import Report

    frame = sqlrank.compare(str(C / "qrels.txt"), RUNS, "nDCG@10 AP", pairs="all", test="t", correction="holm")
    names, measures = ["baseline", "rerank", "rerank_v2"], {"nDCG@10": "ndcg@10", "AP": "map"}  # ranx's names
    results = {run: {label: frame[(frame.measure == m) & (frame.run == run)]["mean"].iloc[0] if run in set(frame.run)
                     else frame[(frame.measure == m) & (frame.other == run)]["other_mean"].iloc[0]
                     for m, label in measures.items()} for run in names}
    comparisons = FrozensetDict()
    for a, b in itertools.combinations(names, 2):
        rows = frame[((frame.run == a) & (frame.other == b)) | ((frame.run == b) & (frame.other == a))]
        comparisons[(a, b)] = {label: {"p_value": float(rows[rows.measure == m].p_value_adjusted.iloc[0]),
                                       "significant": bool(rows[rows.measure == m].significant.iloc[0])}
                               for m, label in measures.items()}
    ranx = Report(names, results, comparisons, list(measures.values()), 0.05, {}, rounding_digits=4).to_latex()
    ranx_cells = [line.rstrip("&\\").strip().replace("\\hphantom{}", "") for line in ranx.splitlines()
                  if line.startswith(("\\textbf{0", "0"))]
    assert main(["compare", str(C / "qrels.txt"), *RUNS, "-m", "nDCG@10 AP", "--all-pairs", "--test", "t",
                 "--correction", "holm", "-f", "latex"]) == 0
    rows = [line for line in capsys.readouterr().out.split("\\midrule")[1].splitlines() if line.count("&") == 3]
    ours = [cell.strip().rstrip("\\").strip() for row in rows for cell in row.split("&")[2:]]
    assert len(ours) == 6 and ours == ranx_cells


def test_the_html_report_has_every_pair(tmp_path):
    sqlrank.report(C / "qrels.txt", RUNS, "nDCG@10 AP", str(tmp_path / "r.html"), pairs="all", test="t",
                   correction="holm")
    page = (tmp_path / "r.html").read_text()
    section = page[page.index("<h2>Every pair of runs</h2>"):page.index("<h2>Per-query differences</h2>")]
    frame = sqlrank.compare(C / "qrels.txt", RUNS, "nDCG@10 AP", pairs="all", test="t", correction="holm")
    for measure, marks in frame.attrs["superscripts"].items():
        for run, letters in marks.items():
            mean = frame.attrs["means"][measure][run]
            assert f"<td>{mean:.4f}" + (f"<sup>{letters}</sup>" if letters else "") + "</td>" in section
    assert main(["report", str(C / "qrels.txt"), *RUNS, "-m", "AP", "--all-pairs", "-o", str(tmp_path / "t.html")]) == 0
    assert "Tukey&#x27;s HSD" in (tmp_path / "t.html").read_text() or "Tukey's HSD" in (tmp_path / "t.html").read_text()
