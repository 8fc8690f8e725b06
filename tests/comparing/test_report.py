"""sqlrank report: one self-contained HTML page, checked in headless Chromium (skipped where
Chromium is missing, required in CI), plus the Markdown and LaTeX layouts."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

import sqlrank
from conftest import FIXTURES, peer

COMPARE = FIXTURES / "compare"
RUNS = [str(COMPARE / f"{name}.run") for name in ("baseline", "rerank", "rerank_v2")]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]
UP, DOWN, FIRST_RUN = (0x2E, 0x8B, 0x57), (0xC0, 0x39, 0x2B), (0x4C, 0x72, 0xB0)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "report", str(COMPARE / "qrels.txt"), *RUNS,
                           "-m", "nDCG@10 AP", "--queries", str(COMPARE / "topics.csv"), "--by", "segment",
                           "--correction", "holm", "-o", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return path


def test_report_is_self_contained(report):
    text = report.read_text()
    assert "<script" not in text and "<link" not in text and "@import" not in text and "url(" not in text
    assert set(re.findall(r"https?://[^\s\"'<>]+", text)) == {"http://www.w3.org/2000/svg"}  # a namespace name
    # overall, three segments, and per (measure, run) the largest losses, gains and every query
    assert text.count("<table>") == 4 + 4 * 3 and text.count("<details>") == 4 + 4  # and 4 side-by-side views
    assert text.count("<svg") == 7  # 4 difference plots (2 measures x 2 runs), 2 distributions, the curves


def per_query(run: str, measure: str = "ndcg_cut_10") -> dict[str, float]:
    """pytrec_eval's per-query values of the fixture run (an independent evaluation)."""
    pytrec_eval = peer("pytrec_eval")
    qrels, scores = {}, {}
    for line in (COMPARE / "qrels.txt").read_text().splitlines():
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    for line in (COMPARE / f"{run}.run").read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        scores.setdefault(q, {})[d] = float(score)
    values = pytrec_eval.RelevanceEvaluator(qrels, {measure.rsplit("_", 1)[0] if "cut" in measure else measure})
    return {q: v[measure] for q, v in values.evaluate(scores).items()}


def test_every_query_can_be_found(report):
    """Every bar carries its query id and difference (an SVG title, shown on hover); the tables list the
    queries from the largest loss, each difference the run's value minus the baseline's (pytrec_eval's)."""
    text = report.read_text()
    base, rerank = per_query("baseline"), per_query("rerank")
    deltas = sorted(((rerank[q] - base[q], q) for q in base))
    for delta, query in deltas:
        assert f"<title>{query}: {delta:+.4f}</title>" in text
    worst = deltas[0]
    assert 'class="mark"' in text and f"{worst[1]} {worst[0]:+.4f}</text>" in text
    section = text.split("<h3>nDCG@10: rerank against baseline</h3>")[1].split("<h3>")[0]
    losses = re.findall(r"<tr><td>(q\d+)</td>", section.split("Largest gains")[0])
    assert losses == [q for d, q in deltas if d < -1e-12][:10]
    everything = re.findall(r"<tr><td>(q\d+)</td>", section.split("<details>")[1])
    assert [q for q in everything] == [q for _, q in sorted(deltas, key=lambda pair: (round(pair[0], 12), pair[1]))]


def _chromium(tmp_path, url: str, *args: str) -> subprocess.CompletedProcess:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        if os.environ.get("SQLRANK_REQUIRE_PEERS"):
            pytest.fail("chromium is required here (SQLRANK_REQUIRE_PEERS)")
        pytest.skip("chromium is not installed")
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url],
                          capture_output=True, text=True, timeout=120)


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Failed to load resource" in line]


def trec_lines(path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_chromium_shows_each_runs_curve_and_the_rankings_side_by_side(report, tmp_path):
    """Read back from the page as headless Chromium builds it: every point of each run's precision-recall curve is
    sqlrank eval's IPrec@x (whose trec_eval 9 form is pytrec_eval's iprec_at_recall mean); the side-by-side rankings are the 3 queries
    rerank lost and won most on nDCG@10 (pytrec_eval's values), each run's top 10 in trec_eval's order, each
    document's label from the qrels or marked unjudged."""
    pytrec_eval = peer("pytrec_eval")
    dom = _chromium(tmp_path, report.as_uri(), "--dump-dom")
    assert dom.returncode == 0 and _console(dom.stderr) == []
    points = re.findall(r'<circle class="point"[^>]*data-run="([^"]+)" data-recall="([0-9.]+)" data-precision="([^"]+)"',
                        dom.stdout)
    assert len(points) == 3 * 11
    qrels = {}
    for q, _, d, rel in trec_lines(COMPARE / "qrels.txt"):
        qrels.setdefault(q, {})[d] = int(rel)
    for name in ("baseline", "rerank", "rerank_v2"):
        scores = {}
        for q, _, d, _, score, _ in trec_lines(COMPARE / f"{name}.run"):
            scores.setdefault(q, {})[d] = float(score)
        levels = " ".join(f"IPrec@{x / 10:.1f}" for x in range(11))
        done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", str(COMPARE / "qrels.txt"),
                               str(COMPARE / f"{name}.run"), "-m", levels, "-f", "csv"], capture_output=True, text=True)
        printed = [float(line.split(",")[1]) for line in done.stdout.splitlines()[1:]]
        shown = [float(p) for run, _, p in points if run == name]
        assert shown == pytest.approx(printed, abs=1e-12)
        # trec_eval 9's interpolation (pytrec_eval's) under sqlrank's trec_eval_version=9: the same family's values
        values = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(scores)
        nine = sqlrank.evaluate(str(COMPARE / "qrels.txt"), str(COMPARE / f"{name}.run"), levels, trec_eval_version=9)
        oracle = [sum(v[f"iprec_at_recall_{x / 10:.2f}"] for v in values.values()) / len(values) for x in range(11)]
        assert list(nine.value) == pytest.approx(oracle, abs=1e-9)
    base, rerank = per_query("baseline"), per_query("rerank")
    deltas = sorted((rerank[q] - base[q], q) for q in base)
    expected = [q for d, q in deltas if d < 0][:3] + [q for d, q in reversed(deltas) if d > 0][:3]
    section = dom.stdout.split("nDCG@10: the top 10 of baseline and rerank side by side")[1].split("</details>")[0]
    tables = re.findall(r'<table class="diff" data-query="([^"]+)">(.*?)</table>', section, re.S)
    assert [q for q, _ in tables] == expected
    tops = {}
    for name in ("baseline", "rerank"):
        for q, _, d, _, score, _ in trec_lines(COMPARE / f"{name}.run"):
            tops.setdefault((name, q), []).append((-float(score), [-ord(c) for c in d], d))
    for query, body in tables:
        cells = re.findall(r'data-run="([^"]+)" data-doc="([^"]+)"[^>]*>[^<]*</td><td class="label[^"]*" '
                           r'data-label="([^"]+)"', body)
        for name in ("baseline", "rerank"):
            docs = [(d, label) for run, d, label in cells if run == name]
            ranked = [d for *_, d in sorted(tops[name, query])][:10]  # score descending, then doc id descending
            assert [d for d, _ in docs] == ranked
            assert [label for _, label in docs] == [str(qrels[query][d]) if d in qrels[query] else "unjudged"
                                                    for d in ranked]
        assert "unjudged" in body


@pytest.mark.slow
def test_report_opens_in_chromium_without_console_errors_and_shows_table_and_plots(report, tmp_path):
    control = tmp_path / "control.html"  # the console check itself must be able to fail
    control.write_text("<html><body><script>console.error('control-error'); missing();</script></body></html>")
    assert any("control-error" in line for line in _console(_chromium(tmp_path, control.as_uri(), "--dump-dom").stderr))

    dom = _chromium(tmp_path, report.as_uri(), "--dump-dom")
    assert dom.returncode == 0 and _console(dom.stderr) == []
    assert "Comparison with the baseline" in dom.stdout and "rerank_v2" in dom.stdout and "torso (20 queries)" in dom.stdout
    shot = tmp_path / "report.png"
    done = _chromium(tmp_path, report.as_uri(), f"--screenshot={shot}", "--window-size=1200,2400")
    assert done.returncode == 0 and shot.stat().st_size > 10_000 and _console(done.stderr) == []

    image = peer("PIL.Image").open(shot).convert("RGB")
    pixels = list(image.get_flattened_data() if hasattr(image, "get_flattened_data") else image.getdata())
    counts = {color: sum(1 for p in pixels if p == color) for color in (UP, DOWN)}
    assert counts[UP] > 2000 and counts[DOWN] > 500, counts  # the bars of the difference plots
    box = tuple(round(255 - 0.35 * (255 - c)) for c in FIRST_RUN)  # the baseline's box: its colour at 35%
    filled = sum(1 for p in pixels if all(abs(a - b) <= 3 for a, b in zip(p, box)))
    assert filled > 500, filled
    top = image.crop((0, 0, 1200, 500)).getcolors(1_000_000)
    assert len(top) > 20  # text and the comparison table render at the top, not a blank page
    # the query the rerank lost most on (pytrec_eval's values) is readable in the picture: OCR finds its label
    tesseract = shutil.which("tesseract")
    if tesseract is None:
        if os.environ.get("SQLRANK_REQUIRE_PEERS"):
            pytest.fail("tesseract (Debian's tesseract-ocr) is required here (SQLRANK_REQUIRE_PEERS)")
        pytest.skip("tesseract is not installed: the label's readability is not checked")
    base, rerank = per_query("baseline"), per_query("rerank")
    delta, worst = min((rerank[q] - base[q], q) for q in base)
    sharp = tmp_path / "report@2x.png"  # as a high-density screen shows it
    done = _chromium(tmp_path, report.as_uri(), f"--screenshot={sharp}", "--window-size=1200,1200",
                     "--force-device-scale-factor=2")
    assert done.returncode == 0
    read = subprocess.run([tesseract, str(sharp), "-"], capture_output=True, text=True, timeout=120).stdout
    assert f"{worst} {delta:+.4f}" in read, read


def test_markdown_and_latex_reports(tmp_path):
    for fmt, needle in (("markdown", "| AP | rerank |"), ("latex", "\\toprule")):
        path = tmp_path / f"report.{fmt}"
        done = subprocess.run([sys.executable, "-m", "sqlrank", "report", str(COMPARE / "qrels.txt"), *RUNS[:2],
                               "-m", "AP", "-f", fmt, "-o", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert needle in path.read_text()


def test_a_report_on_thousands_of_queries_stays_small(tmp_path):
    """1,500 queries: each difference plot has one bar per pixel column (a run of neighbouring queries,
    the largest difference among them, its queries' range as title), and the listing by difference
    holds the 500 largest losses and the 500 largest gains (pytrec_eval's values), not every query."""
    pytrec_eval = peer("pytrec_eval")
    import random

    rng = random.Random(7)
    qrels = {f"q{i}": {f"d{j}": rng.choice([0, 0, 1, 2]) for j in range(8)} for i in range(1500)}
    runs = {name: {q: {f"d{j}": float(rng.randrange(1000)) for j in range(8)} for q in qrels} for name in ("a", "b")}
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items()
                                                for d, r in docs.items()))
    for name, run in runs.items():
        (tmp_path / f"{name}.run").write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                                                      for d, s in docs.items()))
    path = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "report", str(tmp_path / "qrels.txt"),
                           str(tmp_path / "a.run"), str(tmp_path / "b.run"), "-m", "nDCG@5", "-o", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    assert len(text) < 400_000
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut"})
    a, b = (evaluator.evaluate(runs[name]) for name in ("a", "b"))
    deltas = sorted(((b[q]["ndcg_cut_5"] - a[q]["ndcg_cut_5"], q) for q in qrels),
                    key=lambda pair: (round(pair[0], 12), pair[1]))
    plot = text.split("<h2>Per-query differences</h2>")[1].split("</svg>")[0]
    titles = re.findall(r"<rect [^>]*><title>([^<]*)</title>", plot)
    assert 400 < len(titles) <= 446 and titles[0].startswith("queries 1 to ") and ", of 1,500" not in titles[0]
    assert f"): {deltas[0][0]:+.4f} to " in titles[0] and f" to {deltas[-1][0]:+.4f}" in titles[-1]
    assert f"{deltas[0][1]} {deltas[0][0]:+.4f}</text>" in plot and f"{deltas[-1][1]} {deltas[-1][0]:+.4f}</text>" in plot
    assert "hover a bar for its queries)" in text
    listing = text.split("<details>")[1].split("</details>")[0]
    assert "The 500 largest losses and the 500 largest gains of 1,500 queries" in listing
    listed = re.findall(r"<tr><td>(q\d+)</td>", listing)  # equal differences may differ in the last bit: by value
    delta = {q: d for d, q in deltas}
    assert [round(delta[q], 9) for q in listed] == [round(d, 9) for d, _ in deltas[:500] + deltas[-500:]]
    assert f"... 500 queries with differences from {deltas[500][0]:+.4f} to {deltas[999][0]:+.4f}" in listing


@pytest.mark.parametrize("measures, options", [
    ("nDCG@10 AP", {}),  # the curve computed in each run's statement with the measures compared
    ("nDCG@10 AP", {"queries": str(COMPARE / "topics.csv"), "by": "segment"}),  # so too: segments evaluate every query
    ("AP", {"queries": str(COMPARE / "topics.csv")}),  # a query table: the curve has statements of its own
    ("IPrec@0.5 P@10", {}),  # an IPrec asked: so too
    ("nDCG@10", {"tie_break": "doc_id_asc", "missing_queries": "zero"}),
])
def test_the_curves_are_each_runs_interpolated_precision_at_the_recall_levels(measures, options):
    """A report's precision-recall curve of each run is its IPrec at the 11 recall levels as sqlrank.evaluate gives
    them under the same conventions, however it is computed, and the comparison beside it is the one without it."""
    from sqlrank.comparing.compare import compare_result

    shown = compare_result(str(COMPARE / "qrels.txt"), RUNS, measures, details=3, **options)
    plain = compare_result(str(COMPARE / "qrels.txt"), RUNS, measures, **options)
    assert shown.rows == plain.rows and shown.score_rows == plain.score_rows and shown.measures == plain.measures
    conventions = {k: v for k, v in options.items() if k not in ("queries", "by")}
    levels = [f"IPrec@{level / 10:.1f}" for level in range(11)]
    for name, run in zip(("baseline", "rerank", "rerank_v2"), RUNS):
        expected = sqlrank.evaluate(str(COMPARE / "qrels.txt"), run, " ".join(levels), **conventions)
        assert shown.details.curves[name] == list(expected.set_index("measure").loc[levels, "value"]), name


def test_the_box_plots_quartiles_are_numpys_to_the_bit():
    """The report's boxes are numpy.quantile's linear quartiles, computed without numpy's first-call imports: the same
    floats on values with ties, one or two queries, negative differences and a value that is no number."""
    import numpy as np

    from sqlrank.comparing.reports import quartiles

    rng = np.random.default_rng(7)
    cases = [rng.random(n) for n in (1, 2, 3, 4, 5, 7, 50, 101)]
    cases += [rng.integers(0, 4, 30) / 3, rng.random(40) - 0.5, np.array([0.25, 0.25, 0.25]), np.array([0.1, np.nan])]
    for values in cases:
        expected = np.quantile(values, [0, 0.25, 0.5, 0.75, 1]).tolist()
        got = quartiles(values)
        assert got == expected or (all(map(np.isnan, got)) and all(map(np.isnan, expected))), (values, got, expected)


@pytest.mark.parametrize("command", ["compare", "report"])
def test_comparing_on_the_command_line_imports_no_numpy(tmp_path, command):
    """compare and report with the paired t test compute their means and tests in plain Python, to numpy's bits
    (statistics/moments.py): neither numpy (a tenth of a second to import) nor pandas is imported."""
    program = ("import sys\nfrom sqlrank.cli.main import main\nstatus = main(sys.argv[1:])\n"
               "print(sorted(name for name in ('numpy', 'pandas', 'scipy') if name in sys.modules), status)\n")
    inputs = [str(COMPARE / name) for name in ("qrels.txt", "baseline.run", "rerank.run", "rerank_v2.run")]
    out = ["-o", str(tmp_path / "report.html")] if command == "report" else []
    done = subprocess.run([sys.executable, "-c", program, command, *inputs, "-m", "nDCG@10 AP", "--correction", "holm",
                           *out], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.splitlines()[-1] == "[] 0"
    assert command == "report" or "rerank_v2" in done.stdout
