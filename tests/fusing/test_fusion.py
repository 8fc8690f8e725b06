"""Rank fusion (sqlrank.fuse, sqlrank fuse, sqlrank sql --fuse) against ranx: ranx's own fusion tests
(fixtures/fusion/ranx_tests.json), ranx itself on generated runs for every method and normalisation,
ranx's optimize_fusion, the printed statement in every dialect, and what bad input gets."""
from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import FIXTURES, ROOT, close, peer

CASES = json.loads((FIXTURES / "fusion" / "ranx_tests.json").read_text())["cases"]
SCORE_METHODS = ["sum", "max", "min", "med", "anz", "mnz", ("gmnz", {"gamma": 0.5}), ("wsum", "weights"),
                 ("wmnz", "weights"), ("mixed", "weights")]
RANK_METHODS = ["rrf", ("rrf", {"k": 5}), "isr", "log_isr", ("logn_isr", {"sigma": 0.3}), ("rbc", {"phi": 0.7}),
                "bordafuse", ("w_bordafuse", "weights")]
NORMS = ["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none"]
WEIGHTS = [0.5, 0.3, 0.2]


def scores(fused) -> dict:
    """{(query, doc): fused score} of a fused frame (query ids as text)."""
    return {(str(q), d): s for q, d, s in zip(fused.query_id, fused.doc_id, fused.score)}


def ranx_scores(run) -> dict:
    return {(q, d): s for q, docs in run.to_dict().items() for d, s in docs.items()}


@pytest.mark.parametrize("case", CASES, ids=[f"{c['method']}-{i}" for i, c in enumerate(CASES)])
def test_ranx_s_own_fusion_tests(case):
    """Every value ranx's fusion tests assert, on their runs and judgments, to the tolerance they assert it to."""
    fused = sqlrank.fuse(case["runs"], case["method"], norm=None, weights=case["weights"], params=case["params"],
                         qrels=case["qrels"])
    got = {q: dict(docs) for q, docs in fused.items()}
    for query, docs in case["expected"].items():
        for doc, (value, tol) in docs.items():
            assert close(got[query][doc], value, max(tol, 1e-12)), (case["source"], query, doc, got[query][doc], value)


def generated_runs(seed: int, runs: int = 3, queries: int = 12, ties: bool = False, shortest: int = 1) -> list[pd.DataFrame]:
    """Runs of overlapping documents of different lengths per query, scores negative and positive, tied only where
    asked (ranx orders tied scores by an unstable sort, so the rank-based methods are compared without ties)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        rows = []
        for q in range(queries):
            for d in rng.choice(60, size=int(rng.integers(shortest, 45)), replace=False):
                score = float(rng.integers(0, 4)) if ties else float(rng.normal(2, 3))
                rows.append((f"q{q}", f"d{d}", score))
        out.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    return out


def as_ranx(frames):
    ranx = peer("ranx")
    out = []
    for frame in frames:
        run = {}
        for q, d, s in frame.itertuples(index=False):
            run.setdefault(q, {})[d] = s
        out.append(ranx.Run(run))
    return out


def _spec(entry):
    method, extra = (entry, {}) if isinstance(entry, str) else entry
    weights = WEIGHTS if extra == "weights" else None
    return method, ({} if extra == "weights" else extra), weights


@pytest.mark.parametrize("entry, norm", [(e, n) for e in SCORE_METHODS + RANK_METHODS for n in NORMS
                                         if not (n == "borda" and e in RANK_METHODS)],
                         ids=lambda x: x if isinstance(x, str) else x[0])
def test_every_method_and_norm_equals_ranx(entry, norm):
    """ranx.fuse on the same runs, every document's fused score to 1e-9; score-based methods on tied scores too. The
    rank-based methods after the borda normalisation are left out: ranx ranks each run's documents there in the order
    of a Python set (its candidates), sqlrank by the normalised score; so are tied scores under the rank and borda
    normalisations, which rank the documents (ranx's sort of tied scores is unstable)."""
    ranx = peer("ranx")
    method, params, weights = _spec(entry)
    for ties in ([False, True] if entry in SCORE_METHODS and norm not in ("rank", "borda") else [False]):
        frames = generated_runs(7, ties=ties)
        fused = sqlrank.fuse(frames, method, norm=norm, weights=weights, params=params)
        expected = ranx_scores(ranx.fuse(as_ranx(frames), norm=None if norm == "none" else norm, method=method,
                                         params={**params, **({"weights": weights} if weights else {})}))
        got = scores(fused)
        assert got.keys() == expected.keys()
        assert all(close(got[k], expected[k], 1e-9, 1e-12) for k in got), max(abs(got[k] - expected[k]) for k in got)
        ranked = fused.groupby("query_id", sort=False)
        assert all((g.score.diff().dropna() <= 0).all() and list(g["rank"]) == list(range(1, len(g) + 1)) for _, g in ranked)


def _qrels(seed: int, queries: int = 12) -> tuple[pd.DataFrame, object]:
    ranx = peer("ranx")
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(queries) for d in rng.choice(60, 25, replace=False)]
    judged = {}
    for q, d, label in rows:
        judged.setdefault(q, {})[d] = label
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]), ranx.Qrels(judged)


@pytest.mark.parametrize("norm", ["min-max", "zmuv", "none"])
@pytest.mark.parametrize("method, params, train", [
    ("posfuse", {}, ()), ("probfuse", {"n_segments": 1}, (1,)), ("probfuse", {"n_segments": 4}, (4,)),
    ("segfuse", {}, ()), ("slidefuse", {"w": 0}, ()), ("slidefuse", {"w": 3}, ()), ("mapfuse", {}, ()),
    ("bayesfuse", {}, ())])
def test_trained_methods_equal_ranx(method, params, train, norm):
    """The probabilities of relevance estimated in the statement from the judged queries' rankings, then fused: the
    scores of ranx's *_train and fusion on the same runs."""
    ranx = peer("ranx")
    import ranx.fusion as fusion

    frames = generated_runs(11)
    qrels, ranx_qrels = _qrels(12)
    runs = as_ranx(frames)
    trained = getattr(fusion, f"{method}_train")(ranx_qrels, runs, *train)
    key = {"mapfuse": "map_scores", "bayesfuse": "log_odds"}.get(method, "probs")
    extra = {"w": params["w"]} if method == "slidefuse" else {}
    expected = ranx_scores(ranx.fuse(runs, norm=None if norm == "none" else norm, method=method,
                                     params={key: trained, **extra}))
    got = scores(sqlrank.fuse(frames, method, norm=norm, params=params, qrels=qrels))
    assert got.keys() == expected.keys()
    assert all(close(got[k], expected[k], 1e-9, 1e-12) for k in got)


@pytest.mark.parametrize("method, weights", [("condorcet", None), ("w_condorcet", [0.5, 0.3, 0.1]),
                                             ("w_condorcet", [0.2, 0.2, 0.5])])
def test_condorcet_equals_ranx_where_the_majorities_order_the_documents(method, weights):
    """Where every run ranks every candidate and the pairwise majorities are an order (Copeland's counts are 1..N),
    ranx's sort gives that order: the same scores. Elsewhere (majorities that cycle) ranx's result depends on the
    order of its candidate set; sqlrank counts the documents each beats."""
    ranx = peer("ranx")
    rng = np.random.default_rng(5)
    frames = [pd.DataFrame([(f"q{q}", f"d{d}", float(rng.random())) for q in range(30) for d in range(7)],
                           columns=["query_id", "doc_id", "score"]) for _ in range(3)]
    fused = sqlrank.fuse(frames, method, weights=weights)
    expected = ranx_scores(ranx.fuse(as_ranx(frames), method=method, params={"weights": weights} if weights else {}))
    ordered = [q for q, group in fused.groupby("query_id") if sorted(group.score) == list(range(1, 8))]
    assert len(ordered) >= 10
    assert all(expected[(q, d)] == s for (q, d), s in scores(fused).items() if q in ordered)


def test_runs_missing_queries_and_documents_of_one_run():
    """A query only one run ranks is that run's terms (ranx refuses runs of different queries); a document only one
    run ranks gets nothing from the others, and CombMNZ counts the runs that rank it."""
    a = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["x", "y", "x"], "score": [3.0, 1.0, 5.0]})
    b = pd.DataFrame({"query_id": [1, 1], "doc_id": ["y", "z"], "score": [2.0, 1.0]})
    fused = scores(sqlrank.fuse([a, b], "rrf"))
    assert fused == {("1", "x"): 1 / 61, ("1", "y"): 1 / 62 + 1 / 61, ("1", "z"): 1 / 62, ("2", "x"): 1 / 61}
    mnz = scores(sqlrank.fuse([a, b], "mnz"))  # min-max: a's q1 x=1, y=0; b's y=1, z=0; a's q2 x: 0 (one score)
    assert mnz == {("1", "x"): 1.0, ("1", "y"): 2.0, ("1", "z"): 0.0, ("2", "x"): 0.0}
    assert list(sqlrank.fuse([a, b], "rrf").query_id) == [1, 1, 1, 2]  # integer ids stay integers


def test_the_input_tie_break_orders_tied_scores_before_ranks_are_taken():
    a = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.5], "rank": [2, 1, 3]})
    b = pd.DataFrame({"query_id": ["q"], "doc_id": ["c"], "score": [1.0]})
    for tie_break, first in (("trec_eval", "b"), ("doc_id_asc", "a"), ("input_rank", "b")):
        fused = scores(sqlrank.fuse([a, b], "rrf(k=0)", tie_break=tie_break))
        assert fused[("q", first)] == 1.0, tie_break


def test_kinds_in_and_out_and_runs_stored_together(tmp_path):
    frames = generated_runs(3, runs=2, queries=4)
    expected = scores(sqlrank.fuse(frames, "rrf"))
    stored = pd.concat([f.assign(run_id=name) for f, name in zip(frames, ["a", "b"])])
    assert scores(sqlrank.fuse(stored, "rrf")) == expected  # one table, its runs by run_id
    dicts = [{q: dict(zip(g.doc_id, g.score)) for q, g in f.groupby("query_id")} for f in frames]
    as_dicts = sqlrank.fuse(dicts, "rrf")
    assert isinstance(as_dicts, dict) and {(q, d): s for q, docs in as_dicts.items() for d, s in docs.items()} == expected
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"run{i}.parquet"
        frame.to_parquet(path)
        paths.append(str(path))
    from_files = sqlrank.fuse(paths, "rrf", depth=5)
    assert from_files.attrs["runs"] == ["run0", "run1"] and from_files.groupby("query_id").size().max() == 5
    assert scores(from_files).items() <= expected.items()


def test_optimize_chooses_ranx_s_weights():
    """ranx's optimize_fusion on the same runs, judgments and measure: the same weights (weighted sums of continuous
    scores, every run 30 documents long or more: the fused scores that tie, 0 where a zero weight leaves a document
    nothing, lie below the top 10), the same fused run."""
    ranx = peer("ranx")
    frames = generated_runs(21, queries=15, shortest=30)
    qrels, ranx_qrels = _qrels(22, queries=15)
    for method in ("wsum", "mixed"):
        fused = sqlrank.fuse(frames, method, qrels=qrels, optimize="nDCG@10", preset="ranx")
        best = ranx.optimize_fusion(ranx_qrels, as_ranx(frames), method=method, metric="ndcg@10", show_progress=False)
        assert fused.attrs["optimized"]["weights"] == [float(w) for w in best["weights"]]
        from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

        grid = get_trial_configs(get_possible_weights(0.1), 3)  # ranx's: the tuples of tenths whose float sum is 1.0
        assert [s["weights"] for s in fused.attrs["trials"].setting] == [[float(w) for w in ws] for ws in grid]
        again = sqlrank.fuse(frames, method, weights=fused.attrs["optimized"]["weights"])
        assert scores(again) == scores(fused)  # added in the runs' order: the same bits


@pytest.mark.parametrize("method", ["rrf", "rbc", "gmnz", "probfuse"])
def test_optimize_evaluates_every_setting_as_ranx_does(method):
    """Every setting of ranx's grid (ranx's values): its fused run equals ranx's fusion for it (1e-9), and its mean is
    ranx's nDCG@10 of that run as sqlrank ranks it (ties by document id descending: ranx's own sort of tied fused
    scores is unstable, so where rank fusions tie its choice may differ); the chosen setting is the last with the
    highest mean, as ranx keeps it."""
    ranx = peer("ranx")
    import ranx.fusion as fusion

    frames = generated_runs(31, queries=10)
    qrels, ranx_qrels = _qrels(32, queries=10)
    fused = sqlrank.fuse(frames, method, qrels=qrels, optimize="nDCG@10", preset="ranx")
    trials = fused.attrs["trials"]
    grid = {"rrf": list(range(10, 101, 10)), "probfuse": list(range(1, 101))}.get(
        method, [round(float(x), 2) for x in np.arange(0.01, 1.01, 0.01)])
    assert [next(iter(s.values())) for s in trials.setting] == grid
    runs = as_ranx(frames)
    for setting, value in list(zip(trials.setting, trials["nDCG@10"]))[::9]:
        alone = sqlrank.fuse(frames, method, params=setting, qrels=qrels if method == "probfuse" else None)
        params = {"probs": fusion.probfuse_train(ranx_qrels, runs, setting["n_segments"])} if method == "probfuse" \
            else setting
        expected = ranx_scores(ranx.fuse(runs, method=method, params=params))
        assert all(close(s, expected[k], 1e-9, 1e-12) for k, s in scores(alone).items()), setting
        ordered = {}
        for q, d, rank in zip(alone.query_id, alone.doc_id, alone["rank"]):
            ordered.setdefault(q, {})[d] = -float(rank)
        assert close(value, ranx.evaluate(ranx_qrels, ranx.Run(ordered), "ndcg@10"), 1e-9), setting
    best = max(trials["nDCG@10"])
    assert fused.attrs["optimized"] == trials.setting[max(i for i, v in enumerate(trials["nDCG@10"]) if v >= best - 1e-12)]


@pytest.mark.parametrize("dialect, read", [("postgres", "postgres"), ("trino", "trino"), ("bigquery", "bigquery"),
                                           ("snowflake", "snowflake"), ("spark", "spark"), ("clickhouse", "clickhouse"),
                                           ("sqlite", "sqlite"), ("duckdb", "duckdb")])
@pytest.mark.parametrize("method", ["rrf", "wsum", "med", "bordafuse", "condorcet", "probfuse(n_segments=3)", "segfuse",
                                    "slidefuse(w=2)", "mapfuse", "bayesfuse", "zmuv"])
def test_the_statement_printed_for_each_dialect_gives_duckdb_s_run(method, dialect, read):
    """``sqlrank sql --fuse`` for a dialect reads that database's tables (names); it parses there and, translated into
    DuckDB's SQL by sqlglot, gives the fused run DuckDB gives."""
    sqlglot = peer("sqlglot")
    frames = generated_runs(41, queries=6)
    qrels, _ = _qrels(42, queries=6)
    norm = "zmuv" if method == "zmuv" else "min-max"
    method = "sum" if method == "zmuv" else method
    weights = [0.6, 0.3, 0.1] if method == "wsum" else None
    trained = method.split("(")[0] in ("probfuse", "segfuse", "slidefuse", "mapfuse", "bayesfuse")
    con = duckdb.connect()
    for i, frame in enumerate(frames):
        con.execute(f"CREATE TABLE run_{i} AS SELECT * FROM frame")
    con.execute("CREATE TABLE judged AS SELECT * FROM qrels")
    text = sqlrank.render_fusion([f"run_{i}" for i in range(3)], method, norm=norm, weights=weights,
                                 qrels="judged" if trained else None, dialect=dialect)
    assert max(len(line) for line in text.splitlines()) < 160 and len(sqlglot.parse(text, read=read)) == 1
    got = con.execute(sqlglot.transpile(text, read=read, write="duckdb")[0]).df()
    expected = sqlrank.fuse(frames, method, norm=norm, weights=weights, qrels=qrels if trained else None)
    assert len(got) == len(expected) and list(got.query_id) == list(expected.query_id.astype(str))
    want = scores(expected)
    assert all(close(s, want[(q, d)], 1e-12) for q, d, s in zip(got.query_id, got.doc_id, got.score))
    for _, group in got.groupby("query_id"):  # in fused order, but for the last bits a sum in another order changes
        assert (group.score.diff().dropna() <= 1e-12).all()


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "sqlrank", *args], capture_output=True, text=True, cwd=cwd)


def test_the_command_line_writes_the_fused_run_and_evaluates_it(tmp_path):
    judging = FIXTURES / "judging"
    runs = [str(judging / f"{name}.run") for name in ("bm25", "dense", "splade")]
    out = tmp_path / "fused.run"
    done = run_cli("fuse", *runs, "--method", "rrf", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("fused 3 runs (") and "by rrf(k=60), norm min-max:" in done.stdout
    python = sqlrank.fuse(runs, "rrf")
    lines = out.read_text().splitlines()
    assert len(lines) == len(python) and lines[0].split()[1] == "Q0" and lines[0].endswith(" sqlrank")
    assert all(float(line.split()[4]) == s for line, s in zip(lines, python.score))  # scores printed exactly
    fused_value = sqlrank.evaluate(str(judging / "human.txt"), str(out), "nDCG@10").value[0]
    assert close(fused_value, sqlrank.evaluate(str(judging / "human.txt"), python, "nDCG@10").value[0], 0)
    csv = run_cli("fuse", *runs, "--method", "wsum", "--weights", "0.5", "0.3", "0.2", "-f", "csv")
    assert csv.returncode == 0 and csv.stdout.startswith("query_id,doc_id,score,rank\n") and "fused 3" in csv.stderr
    optimized = run_cli("fuse", *runs, "--method", "wsum", "--qrels", str(judging / "human.txt"), "--optimize",
                        "nDCG@10", "-o", str(tmp_path / "best.parquet"))  # its trials (attrs) stay out of the file
    assert optimized.returncode == 0 and "chosen on nDCG@10: weights=" in optimized.stdout, optimized.stderr
    assert len(pd.read_parquet(tmp_path / "best.parquet")) == len(python)
    printed = run_cli("sql", "--fuse", *runs, "--method", "rrf(k=20)")
    assert printed.returncode == 0 and printed.stdout.rstrip().endswith(";")
    got = duckdb.sql(printed.stdout.rstrip().rstrip(";")).df()
    assert list(got.doc_id) == list(sqlrank.fuse(runs, "rrf(k=20)").doc_id)


@pytest.mark.parametrize("args, message", [
    (["--method", "nope"], "unknown fusion method 'nope'; choose one of sum, max"),
    (["--method", "rrf(k=-1)"], "rrf's k -1.0 must be >= 0"),
    (["--method", "rrf(j=2)"], "rrf has no parameter 'j': it takes k"),
    (["--method", "rbc"], "rbc needs its parameter phi"),
    (["--method", "wsum"], "wsum weighs the runs: give weights, one per run"),
    (["--method", "wsum", "--weights", "1", "2"], "2 weights for 3 runs"),
    (["--method", "rrf", "--weights", "1", "2", "3"], "rrf takes no weights"),
    (["--method", "posfuse"], "posfuse estimates its probabilities of relevance from judgments"),
    (["--method", "rrf", "--qrels", "fixtures/judging/human.txt"], "judgments are for the trained methods"),
    (["--method", "isr", "--qrels", "fixtures/judging/human.txt", "--optimize", "AP"], "isr has no weights or parameter"),
    (["--method", "rrf", "--optimize", "AP"], "optimize='AP' chooses on judgments"),
    (["--method", "rrf", "--preset", "ranx"], "the conventions are for --optimize"),
    (["--method", "rrf", "--tie-break", "expected"], "--tie-break expected ranks the runs to fuse how?"),
    (["--method", "rrf", "-o", "fixtures/judging/bm25.run"], "is the input"),
    (["--method", "rrf", "-f", "parquet"], "a Parquet run goes to a file"),
])
def test_bad_fusion_arguments_are_errors_that_say_what_to_do(args, message):
    runs = [f"fixtures/judging/{name}.run" for name in ("bm25", "dense", "splade")]
    done = run_cli("fuse", *runs, *args, cwd=ROOT)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert (FIXTURES / "judging" / "bm25.run").read_text().startswith("q01 Q0")


def test_bad_runs_are_errors_with_their_place(tmp_path):
    good = tmp_path / "good.run"
    good.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 nan x\n")
    done = run_cli("fuse", str(good), str(bad))
    assert done.returncode == 1 and "bad.run:2: score is NaN" in done.stderr and "Traceback" not in done.stderr
    alone = run_cli("fuse", str(good))
    assert alone.returncode == 1 and "fusion takes two runs or more; 1 given" in alone.stderr
    twice = run_cli("fuse", str(good), str(good))
    assert twice.returncode == 1 and "given twice" in twice.stderr
    with pytest.raises(sqlrank.OptionError, match="depth 0 must be a whole number >= 1"):
        sqlrank.fuse([str(good), str(bad)], "rrf", depth=0)
    with pytest.raises(sqlrank.OptionError, match="unknown normalisation 'minmaxx'"):
        sqlrank.fuse([str(good), str(good)], "rrf", norm="minmaxx")
