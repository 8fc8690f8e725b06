"""Prediction-powered means (--ci-method ppi): an LLM's judgments of every query corrected by people's judgments of
a random sample of them. The estimates and intervals equal the ppi-python package's (ppi_mean_pointestimate and
ppi_mean_ci, power-tuned and with lambda = 1) to 1e-9, fed per-query values pytrec_eval computes from the same
judgments; a simulation with a known true mean shows the interval covers it at about the stated level where the
LLM-only interval does not."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, peer
from sqlrank.statistics.ppi import ppi_mean

MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@5": "P_5"}


def judged_by_an_llm(seed: int, queries: int = 120, judged: int = 30, runs: int = 1) -> tuple[dict, ...]:
    """True grades of every query's candidates, the run (no tied scores; multiples of 1/8, exact as the 32-bit
    floats pytrec_eval compares), an LLM's lenient and noisy grades of every query, and people's (the true grades)
    of ``judged`` queries drawn at random: pytrec_eval's dicts; with ``runs=2`` a second run after them."""
    rng = random.Random(seed)
    run, llm, human, second = {}, {}, {}, {}
    people = set(rng.sample(range(queries), judged))
    for q in range(queries):
        query = f"q{q}"
        grades = {f"d{q}_{d}": rng.choices((0, 1, 2, 3), (55, 25, 13, 7))[0] for d in range(30)}
        scores = rng.sample(range(1000), len(grades))
        run[query] = {doc: (grade * 1000 + score) / 8 for (doc, grade), score in zip(grades.items(), scores)}
        noisy = [rng.randrange(2500) for _ in grades]  # the second run: label-driven, noisier; ties broken apart
        second[query] = {doc: ((grade * 1000 + score) * 32 + i) / 8
                         for i, ((doc, grade), score) in enumerate(zip(grades.items(), noisy))}
        llm[query] = {doc: min(3, max(0, grade + rng.choices((1, 0, -1), (35, 55, 10))[0])) for doc, grade in
                      grades.items()}
        if q in people:
            human[query] = dict(grades)
    return (run, llm, human, second) if runs == 2 else (run, llm, human)


def per_query(qrels: dict, run: dict) -> dict[str, dict[str, float]]:
    pytrec_eval = peer("pytrec_eval")
    values = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
    return {name: {q: v[trec] for q, v in values.items()} for name, trec in MEASURES.items()}


def frames(run: dict, llm: dict, human: dict) -> tuple[pd.DataFrame, ...]:
    def rows(nested: dict, value: str) -> pd.DataFrame:
        return pd.DataFrame([(q, d, x) for q, docs in nested.items() for d, x in docs.items()],
                            columns=["query_id", "doc_id", value])
    return rows(run, "score"), rows(llm, "relevance"), rows(human, "relevance")


@pytest.mark.parametrize("method, lam", [("ppi", None), ("ppi-untuned", 1)])
def test_equals_ppi_python(method, lam):
    ppi_py = peer("ppi_py")
    run, llm, human = judged_by_an_llm(7)
    with_llm, with_people = per_query(llm, run), per_query(human, run)
    run_frame, llm_frame, human_frame = frames(run, llm, human)
    got = sqlrank.evaluate({"llm": llm_frame, "people": human_frame}, run_frame, list(MEASURES), ci=0.9,
                           ci_method=method, gold="people").set_index("measure")
    for name in MEASURES:
        queries = sorted(with_people[name])
        y = np.array([with_people[name][q] for q in queries])
        yhat = np.array([with_llm[name][q] for q in queries])
        every = np.array([v for q, v in with_llm[name].items() if q not in with_people[name]])  # the unlabelled
        value = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, every, lam=lam)))
        low, high = (float(np.squeeze(x)) for x in ppi_py.ppi_mean_ci(y, yhat, every, alpha=0.1, lam=lam))
        row = got.loc[name]
        assert (row.n, row.N) == (30, 120)
        assert row.value == pytest.approx(value, abs=1e-9)
        assert (row.ci_low, row.ci_high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
        if method == "ppi-untuned":
            assert row["lambda"] == 1
        else:  # power tuning: never much wider than the people's own interval (lambda = 0)
            alone = ppi_py.ppi_mean_ci(y, yhat, every, alpha=0.1, lam=0)
            assert 0 <= row["lambda"] <= 1 and high - low <= 1.01 * float(np.squeeze(alone[1] - alone[0]))
        if high > low:
            assert row.effective_n == pytest.approx(np.var(y) / ((high - low) / 2 / 1.6448536269514722) ** 2, rel=1e-9)


def test_two_runs_and_their_paired_difference_equal_ppi_python():
    """Several runs: each run's estimate, and the second's paired difference from the first, the estimate of the
    per-query differences (ppi-python fed the differences of pytrec_eval's values)."""
    ppi_py = peer("ppi_py")
    run, llm, human, other = judged_by_an_llm(8, runs=2)
    assert all(len(set(docs.values())) == len(docs) for docs in other.values())
    got = sqlrank.evaluate({"llm": frames(run, llm, human)[1], "human": frames(run, llm, human)[2]},
                           {"a": frames(run, llm, human)[0], "b": frames(other, llm, human)[0]}, list(MEASURES), ci=0.95,
                           ci_method="ppi").set_index(["run_id", "measure"])
    assert list(dict.fromkeys(got.index.get_level_values(0))) == ["a", "b", "b - a"]
    for name in MEASURES:
        pairs = [(per_query(qrels, r)[name]) for qrels in (llm, human) for r in (run, other)]
        llm_a, llm_b, human_a, human_b = pairs
        queries = sorted(human_a)
        y = np.array([human_b[q] - human_a[q] for q in queries])
        yhat = np.array([llm_b[q] - llm_a[q] for q in queries])
        rest = np.array([llm_b[q] - llm_a[q] for q in llm_a if q not in human_a])
        row = got.loc[("b - a", name)]
        assert row.value == pytest.approx(float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, rest))), abs=1e-9)
        low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
        assert (row.ci_low, row.ci_high) == (pytest.approx(float(np.squeeze(low)), abs=1e-9),
                                             pytest.approx(float(np.squeeze(high)), abs=1e-9))


def test_the_interval_covers_a_known_mean_where_the_llms_alone_does_not():
    """1,000 draws of 500 queries whose true values have mean 0.5 (Beta(2, 2)), LLM values biased upwards by 0.08
    with noise, people judging 100 queries at random: the 95% prediction-powered interval covers 0.5 in about 95% of
    draws (1,000 draws: within 0.925-0.975, 3.6 binomial standard deviations); the LLM-only t interval almost never
    does. The unlabelled part is the queries people did not judge: with every query's LLM value there (the judged
    ones counted twice) the tuned interval covers too rarely and the untuned one too often."""
    rng = np.random.default_rng(2024)
    covered = llm_alone = 0
    for _ in range(1000):
        truth = rng.beta(2, 2, 500)
        llm = np.clip(truth + 0.08 + rng.normal(0, 0.15, 500), 0, 1)
        sample = rng.choice(500, 100, replace=False)
        estimate = ppi_mean(truth[sample], llm[sample], np.delete(llm, sample), 0.95)
        covered += estimate.ci_low <= 0.5 <= estimate.ci_high
        half = 1.959963984540054 * llm.std(ddof=1) / np.sqrt(500)
        llm_alone += llm.mean() - half <= 0.5 <= llm.mean() + half
    assert 925 <= covered <= 975 and llm_alone < 100


def test_the_command_line_on_the_fixture():
    """The README's example: the LLM-only means of fixtures/llm_judges miss the means with the true grades
    (truth.txt) for AP and P@10, the prediction-powered intervals cover all three."""
    folder = FIXTURES / "llm_judges"
    args = [sys.executable, "-m", "sqlrank", "eval", "--qrels", f"llm={folder / 'llm.csv'}", "--qrels",
            f"human={folder / 'human.txt'}", str(folder / "bm25.run"), "-m", "nDCG@10 AP P@10", "--ci", "95",
            "--ci-method", "ppi", "-f", "csv"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    from io import StringIO
    got = pd.read_csv(StringIO(done.stdout)).set_index("measure")
    truth = sqlrank.evaluate(str(folder / "truth.txt"), str(folder / "bm25.run"), "nDCG@10 AP P@10").set_index("measure")
    alone = sqlrank.evaluate(str(folder / "llm.csv"), str(folder / "bm25.run"), "nDCG@10 AP P@10", ci=0.95)
    alone = alone.set_index("measure")
    for name in ("nDCG@10", "AP", "P@10"):
        assert got.loc[name, "ci_low"] <= truth.loc[name, "value"] <= got.loc[name, "ci_high"], name
        assert (got.loc[name, "n"], got.loc[name, "N"]) == (40, 200)
    assert sum(not alone.loc[m, "ci_low"] <= truth.loc[m, "value"] <= alone.loc[m, "ci_high"] for m in ("AP", "P@10")) == 2


def test_what_a_prediction_powered_interval_refuses():
    run, llm, human = (frame.head(300) for frame in frames(*judged_by_an_llm(3, queries=20, judged=8)))
    with pytest.raises(sqlrank.OptionError, match="reads two judgment sources"):
        sqlrank.evaluate(llm, run, "AP", ci=0.95, ci_method="ppi")
    with pytest.raises(sqlrank.OptionError, match="no judgment source is called 'human' .*gold="):
        sqlrank.evaluate({"llm": llm, "people": human}, run, "AP", ci=0.95, ci_method="ppi")
    with pytest.raises(sqlrank.OptionError, match="leave out prefer and combine"):
        sqlrank.evaluate({"llm": llm, "human": human}, run, "AP", ci=0.95, ci_method="ppi", combine="mean")
    with pytest.raises(sqlrank.OptionError, match="leave out per_query"):
        sqlrank.evaluate({"llm": llm, "human": human}, run, "AP", per_query=True, ci=0.95, ci_method="ppi")
    with pytest.raises(sqlrank.InputError, match="queries judged by human have no value with llm's judgments"):
        sqlrank.evaluate({"llm": llm[llm.query_id != "q1"], "human": human.assign(query_id="q1")}, run, "AP",
                         ci=0.95, ci_method="ppi")


def test_a_method_without_an_interval_is_refused():
    """--ci-method ppi without --ci would have merged the two sources into one mean without a word: refused."""
    folder = FIXTURES / "llm_judges"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--qrels", f"llm={folder / 'llm.csv'}", "--qrels",
                           f"human={folder / 'human.txt'}", str(folder / "bm25.run"), "-m", "AP", "--ci-method", "ppi"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "--ci-method ppi is how --ci's interval is computed: add --ci 95" in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    run, llm, human = frames(*judged_by_an_llm(3, queries=20, judged=8))
    with pytest.raises(sqlrank.OptionError, match="ci_method='ppi' is how ci's interval is computed: add ci=0.95"):
        sqlrank.evaluate({"llm": llm, "human": human}, run, "AP", ci_method="ppi")


@pytest.mark.parametrize("test, lam", [("ppi", None), ("ppi-untuned", 1)])
def test_compare_with_ppi_equals_ppi_python(test, lam):
    """compare(test="ppi"): each run's mean as eval's estimate, each run's delta, 95% interval and p-value of no
    difference as ppi-python's ppi_mean_pointestimate, ppi_mean_ci and ppi_mean_pval of the per-query differences
    (pytrec_eval's values with each source's judgments); wins, ties and losses over the people-judged queries; the
    p-values corrected over the comparisons; a gate on the delta."""
    ppi_py = peer("ppi_py")
    run, llm, human, other = judged_by_an_llm(9, runs=2)
    _, llm_frame, human_frame = frames(run, llm, human)
    runs = {"a": frames(run, llm, human)[0], "b": frames(other, llm, human)[0]}
    got = sqlrank.compare({"llm": llm_frame, "people": human_frame}, runs, list(MEASURES), test=test, gold="people",
                          correction="holm", fail_if="AP < 0.5")
    means = sqlrank.evaluate({"llm": llm_frame, "people": human_frame}, runs, list(MEASURES), ci=0.95, ci_method=test,
                             gold="people").set_index(["run_id", "measure"])
    table = got.set_index(["run", "measure"])
    p_values = []
    for name in MEASURES:
        llm_a, llm_b, human_a, human_b = (per_query(qrels, r)[name] for qrels in (llm, human) for r in (run, other))
        queries = sorted(human_a)
        y = np.array([human_b[q] - human_a[q] for q in queries])
        yhat = np.array([llm_b[q] - llm_a[q] for q in queries])
        rest = np.array([llm_b[q] - llm_a[q] for q in llm_a if q not in human_a])
        row = table.loc[("b", name)]
        assert row["delta"] == pytest.approx(float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, rest, lam=lam))),
                                             abs=1e-9)
        low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05, lam=lam)
        assert (row.ci_low, row.ci_high) == (pytest.approx(float(np.squeeze(low)), abs=1e-9),
                                             pytest.approx(float(np.squeeze(high)), abs=1e-9))
        p = float(np.squeeze(ppi_py.ppi_mean_pval(y, yhat, rest, lam=lam)))
        assert row.p_value == pytest.approx(p, rel=1e-9, abs=1e-15)
        p_values.append(p)
        assert (row.wins, row.ties, row.losses) == (int((y > 0).sum()), int((y == 0).sum()), int((y < 0).sum()))
        assert (row.n, row.N) == (30, 120)
        for label in ("a", "b"):
            assert table.loc[(label, name), "mean"] == pytest.approx(means.loc[(label, name), "value"], abs=1e-12)
    holm = sorted(p_values)  # Holm over the three comparisons
    adjusted = np.maximum.accumulate([min(1, (3 - i) * p) for i, p in enumerate(holm)])
    assert sorted(table.loc["b", "p_value_adjusted"]) == pytest.approx(list(adjusted), rel=1e-9)
    assert got.attrs["failures"] == [] if table.loc[("b", "AP"), "delta"] >= 0.5 else got.attrs["failures"]


def test_compare_with_ppi_on_the_command_line_and_its_refusals(tmp_path):
    """compare --qrels llm=F --qrels human=F A B --test ppi: the table, the legend that says what was estimated, the
    interval that covers the true difference of fixtures/llm_judges (truth.txt) for AP and P@10, a gate; refusals."""
    folder = FIXTURES / "llm_judges"
    sources = ["--qrels", f"llm={folder / 'llm.csv'}", "--qrels", f"human={folder / 'human.txt'}"]
    runs = [str(folder / "bm25.run"), str(folder / "dense.run")]
    base = [sys.executable, "-m", "sqlrank", "compare", *sources, *runs, "-m", "AP P@10", "--test", "ppi"]
    done = subprocess.run([*base, "-f", "csv"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    from io import StringIO
    got = pd.read_csv(StringIO(done.stdout)).set_index(["run", "measure"])
    truth = sqlrank.compare(str(folder / "truth.txt"), runs, "AP P@10").set_index(["run", "measure"])
    for name in ("AP", "P@10"):
        assert got.loc[("dense", name), "ci_low"] <= truth.loc[("dense", name), "delta"] <= got.loc[("dense", name),
                                                                                                    "ci_high"]
    shown = subprocess.run(base, capture_output=True, text=True)
    assert "lambda" in shown.stdout and "prediction-powered" in shown.stdout and "valid when human's queries are a " \
        "random sample" in shown.stdout
    gate = subprocess.run([*base, "--fail-if", "AP < 0.5"], capture_output=True, text=True)
    assert gate.returncode == 1 and "sqlrank: fail: " in gate.stderr
    for extra, message in [(["--all-pairs"], "leave out --all-pairs"),
                           (["--record", str(tmp_path / "h.parquet")], "leave out --all-pairs and --record"),
                           (["--by", "x", "--queries", str(folder / "human.txt")], None),
                           (["--gold", "people"], "no judgment source is called 'people'")]:
        done = subprocess.run([*base, *extra], capture_output=True, text=True)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert message is None or message in done.stderr, done.stderr
    plain = subprocess.run([sys.executable, "-m", "sqlrank", "compare", *sources, *runs, "-m", "AP"],
                           capture_output=True, text=True)
    assert plain.returncode != 0 and "give the LLM's and the people's judgments of --test ppi" in plain.stderr
    with pytest.raises(sqlrank.OptionError, match="no mean of per-query values"):
        sqlrank.compare({"llm": str(folder / "llm.csv"), "human": str(folder / "human.txt")}, runs, "AP GMAP",
                        test="ppi")
    with pytest.raises(sqlrank.OptionError, match="add test='ppi'"):
        sqlrank.compare(str(folder / "truth.txt"), runs, "AP", gold="human")


def test_the_report_shows_the_prediction_powered_comparison(tmp_path):
    """report --test ppi: the HTML and Markdown tables hold compare's estimates (their columns lambda, n, N, effective
    n too), the legend says what was estimated, and the per-query sections say whose judgments they read."""
    import html
    import re

    folder = FIXTURES / "llm_judges"
    qrels = {"llm": str(folder / "llm.csv"), "human": str(folder / "human.txt")}
    runs = [str(folder / "bm25.run"), str(folder / "dense.run")]
    table = sqlrank.compare(qrels, runs, "AP", test="ppi").set_index("run")
    args = [sys.executable, "-m", "sqlrank", "report", "--qrels", f"llm={qrels['llm']}", "--qrels",
            f"human={qrels['human']}", *runs, "-m", "AP", "--test", "ppi"]
    for fmt in ("html", "markdown"):
        out = tmp_path / f"r.{fmt}"
        done = subprocess.run([*args, "-f", fmt, "-o", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        text = html.unescape(re.sub(r"<[^>]+>", " ", out.read_text())) if fmt == "html" else out.read_text()
        dense = table.loc["dense"]
        for cell in (f"{dense['mean']:.4f}", f"{dense['delta']:+.4f}", f"[{dense.ci_low:+.4f}, {dense.ci_high:+.4f}]",
                     f"{dense['lambda']:.2f}", f"{dense.effective_n:.1f}", f"{table.loc['bm25', 'mean']:.4f}"):
            assert cell in text, (fmt, cell)
        assert "eff. n" in text and "valid when human's queries are a random sample" in text
    page = html.unescape((tmp_path / "r.html").read_text())
    assert "the values with llm's judgments, of every query" in page


# ------------------------------------------------------------------ what a prediction-powered estimate cannot say

FOLDER = FIXTURES / "llm_judges"


def _people(tmp_path, name: str, keep) -> str:
    """human.txt of the fixture with only the lines KEEP(fields) keeps."""
    lines = [line for line in (FOLDER / "human.txt").read_text().splitlines() if keep(line.split())]
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    return str(tmp_path / name)


def _sqlrank(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlrank", *args], capture_output=True, text=True)


def test_a_gate_on_an_empty_estimate_fails(tmp_path):
    """People who judged one query give no estimate (n < 2): every mean and delta is empty, and the gate passed."""
    one = _people(tmp_path, "one.txt", lambda f: f[0] == "q003")
    done = _sqlrank("compare", "--qrels", f"llm={FOLDER / 'llm.csv'}", "--qrels", f"human={one}",
                    str(FOLDER / "bm25.run"), str(FOLDER / "dense.run"), "-m", "AP", "--test", "ppi",
                    "--fail-if", "AP < -0.01")
    assert done.returncode == 1 and "sqlrank: fail: AP of dense: cannot be decided" in done.stderr, done.stderr
    assert ("AP dense - bm25: no prediction-powered estimate: human judged 1 of the 200 queries with a value and llm "
            "alone 199; an estimate and its interval need 2 or more of each") in done.stderr


def test_an_empty_row_says_why(tmp_path):
    one = _people(tmp_path, "one.txt", lambda f: f[0] == "q003")
    done = _sqlrank("eval", "--qrels", f"llm={FOLDER / 'llm.csv'}", "--qrels", f"human={one}",
                    str(FOLDER / "bm25.run"), "-m", "AP GMAP", "--ci", "95", "--ci-method", "ppi")
    assert done.returncode == 0
    assert "AP: no prediction-powered estimate: human judged 1 of the 200 queries" in done.stderr, done.stderr
    assert "GMAP: no prediction-powered estimate: its value is no mean of per-query values" in done.stderr


def test_no_relevant_skip_is_refused(tmp_path):
    """Under no_relevant=skip a query people judged without a relevant document left their sample, and the LLM's
    value stood in for theirs."""
    sources = {"llm": str(FOLDER / "llm.csv"), "human": str(FOLDER / "human.txt")}
    for call in (lambda: sqlrank.evaluate(sources, str(FOLDER / "bm25.run"), "AP", ci=0.95, ci_method="ppi",
                                          no_relevant="skip"),
                 lambda: sqlrank.compare(sources, [str(FOLDER / "bm25.run"), str(FOLDER / "dense.run")], "AP",
                                         test="ppi", preset="recbole")):
        with pytest.raises(sqlrank.OptionError, match="needs every query people judged, whatever they found"):
            call()


def test_people_must_judge_the_pool_the_llm_judged(tmp_path):
    """People who judged only bm25's top 10 leave dense's other documents non-relevant by their judgments (delta AP
    -0.788, p < 0.0001, before): refused below 90% of the LLM's documents on their queries, said above it."""
    top10 = {(f[0], f[2]) for f in (line.split() for line in (FOLDER / "bm25.run").read_text().splitlines())
             if int(f[3]) <= 10}
    part = _people(tmp_path, "top10.txt", lambda f: (f[0], f[2]) in top10)
    done = _sqlrank("compare", "--qrels", f"llm={FOLDER / 'llm.csv'}", "--qrels", f"human={part}",
                    str(FOLDER / "bm25.run"), str(FOLDER / "dense.run"), "-m", "AP", "--test", "ppi")
    total = len((FOLDER / "human.txt").read_text().splitlines())  # people judged the LLM's whole pool of their queries
    kept = len((tmp_path / "top10.txt").read_text().splitlines())
    assert done.returncode == 1 and done.stdout == ""
    assert (f"human judged {kept} ({kept / total:.0%}) of the {total} documents llm judged on human's queries; a "
            f"prediction-powered estimate needs their labels on the same documents (at least 90%)") in done.stderr
    lines = (FOLDER / "human.txt").read_text().splitlines()
    (tmp_path / "most.txt").write_text("".join(line + "\n" for k, line in enumerate(lines) if k % 20))  # 1 in 20 out
    done = _sqlrank("eval", "--qrels", f"llm={FOLDER / 'llm.csv'}", "--qrels", f"human={tmp_path / 'most.txt'}",
                    str(FOLDER / "bm25.run"), "-m", "AP", "--ci", "95", "--ci-method", "ppi")
    left = sum(1 for k in range(total) if k % 20)
    assert done.returncode == 0 and (f"human judged {left} ({left / total:.0%}) of the {total} documents llm judged "
                                     f"on human's queries: the others count as non-relevant") in done.stderr
