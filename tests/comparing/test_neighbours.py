"""An approximate nearest-neighbour search against exact search (eval --reference): Recall@k by distances with a
tolerance and DistanceRatio@k equal ann-benchmarks' k-nn, epsilon and rel metrics (written here from its
ann_benchmarks/plotting/metrics.py: get_recall_values with knn_threshold and epsilon_threshold, rel) per query and
overall, on generated vectors whose distances tie often; on continuous vectors, where no distance ties, Recall with
no tolerance equals faiss's k-NN intersection of an IVF index against a flat one; every dialect's statement gives
the same values."""
from __future__ import annotations

import io
import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import pytest

from conftest import FIXTURES, peer
from sqlrank.comparing.neighbours import neighbours, neighbours_statement

K = 10


def searches(seed: int, decimals: int | None = 1) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """Squared distances of 60 queries to 1,500 vectors (coordinates rounded: many ties), the exact top 20 and an
    approximate top 10 (the nearest among a random third of the vectors; some queries return only 6)."""
    rng = np.random.default_rng(seed)
    base, queries = rng.normal(size=(1500, 6)), rng.normal(size=(60, 6))
    if decimals is not None:
        base, queries = base.round(decimals), queries.round(decimals)
    distances = ((queries[:, None, :] - base[None, :, :]) ** 2).sum(-1).round(9)
    exact, approximate = [], []
    for q in range(len(queries)):
        nearest = np.argsort(distances[q], kind="stable")[:20]
        exact += [(f"q{q}", f"v{i}", distances[q, i]) for i in nearest]
        probed = rng.choice(1500, 500, replace=False)
        found = probed[np.argsort(distances[q, probed], kind="stable")[:6 if q % 7 == 3 else K]]
        approximate += [(f"q{q}", f"v{i}", distances[q, i]) for i in found]
    return distances, *(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]) for rows in (exact, approximate))


def ann_benchmarks(exact: pd.DataFrame, approximate: pd.DataFrame, count: int) -> dict[str, dict[str, float]]:
    """Per query: ann-benchmarks' recall counts over count (knn: <= d_count + 1e-3; eps: <= d_count * 1.01), and the
    summed distances rel pairs up (true and found, position by position to the shorter list, the found ones padded
    to count with infinite distances as its runner stores them: results.py, store_results)."""
    out = {}
    for query, true in exact.groupby("query_id"):
        data = np.sort(true.score.to_numpy())
        found = np.sort(approximate[approximate.query_id == query].score.to_numpy())
        run = np.concatenate([found, [np.inf] * (count - len(found))])
        knn = sum(1 for d in run[:count] if d <= data[count - 1] + 1e-3)
        eps = sum(1 for d in run[:count] if d <= data[count - 1] * (1 + 0.01))
        pairs = list(zip(data[:count], run[:count]))
        out[query] = {"knn": knn / count, "eps": eps / count, "true": sum(t for t, _ in pairs),
                      "found": sum(f for _, f in pairs)}
    return out


def test_equals_ann_benchmarks():
    _, exact, approximate = searches(3)
    expected = ann_benchmarks(exact, approximate, K)
    measures = f"Recall@{K} Recall(epsilon=0.01)@{K} DistanceRatio@{K}"
    per_query = neighbours(exact, approximate, measures, per_query=True, distances=True)
    got = {(r.query_id, r.measure): r.value for r in per_query.itertuples()}
    ties = 0
    for query, values in expected.items():
        assert got[query, f"Recall@{K}"] == pytest.approx(values["knn"], abs=1e-12)
        assert got[query, f"Recall(epsilon=0.01)@{K}"] == pytest.approx(values["eps"], abs=1e-12)
        assert got[query, f"DistanceRatio@{K}"] == pytest.approx(values["found"] / values["true"], rel=1e-12)
        true = exact[exact.query_id == query].score.sort_values().to_numpy()
        ties += true[K - 1] == true[K]  # the boundary ties: an id-based recall would depend on which tied id won
    assert ties >= 5
    summary = neighbours(exact, approximate, measures, distances=True).set_index("measure").value
    assert summary[f"Recall@{K}"] == pytest.approx(np.mean([v["knn"] for v in expected.values()]), abs=1e-12)
    rel = sum(v["found"] for v in expected.values()) / sum(v["true"] for v in expected.values())
    assert summary[f"DistanceRatio@{K}"] == pytest.approx(rel, rel=1e-12)
    # similarities (the negated distances): the same recall with the tolerance below the k-th similarity
    similar = neighbours(exact.assign(score=-exact.score), approximate.assign(score=-approximate.score),
                         f"Recall@{K} Recall(tolerance=0.5)@5", per_query=True, distances=False)
    wider = ann_benchmarks_threshold(exact, approximate, 5, 0.5)
    assert list(similar[similar.measure == f"Recall@{K}"].value) == pytest.approx(
        [expected[q]["knn"] for q in sorted(expected)], abs=1e-12)
    assert list(similar[similar.measure == "Recall(tolerance=0.5)@5"].value) == pytest.approx(wider, abs=1e-12)


def ann_benchmarks_threshold(exact: pd.DataFrame, approximate: pd.DataFrame, count: int, epsilon: float) -> list:
    """knn_threshold with another epsilon, per query in query order."""
    out = []
    for query, true in sorted(exact.groupby("query_id"), key=lambda item: item[0]):
        data = np.sort(true.score.to_numpy())
        found = np.sort(approximate[approximate.query_id == query].score.to_numpy())
        run = np.concatenate([found, [np.inf] * (count - len(found))])
        out.append(sum(1 for d in run[:count] if d <= data[count - 1] + epsilon) / count)
    return out


def test_recall_without_tolerance_is_faiss_intersection_where_no_distance_ties():
    faiss = peer("faiss")
    from faiss.contrib.evaluation import knn_intersection_measure

    rng = np.random.default_rng(11)
    base, queries = rng.normal(size=(4000, 16)).astype("float32"), rng.normal(size=(80, 16)).astype("float32")
    flat = faiss.IndexFlatL2(16)
    flat.add(base)
    exact_d, exact_i = flat.search(queries, 20)
    ivf = faiss.IndexIVFFlat(faiss.IndexFlatL2(16), 16, 32)
    ivf.train(base)
    ivf.add(base)
    ivf.nprobe = 2
    approx_d, approx_i = ivf.search(queries, K)

    def run(d, i):
        return pd.DataFrame([(f"q{q}", f"v{j}", float(x)) for q in range(len(queries)) for x, j in zip(d[q], i[q])
                             if j >= 0], columns=["query_id", "doc_id", "score"])
    got = neighbours(run(exact_d, exact_i), run(approx_d, approx_i), f"Recall(tolerance=0)@{K}", distances=True)
    expected = knn_intersection_measure(exact_i[:, :K], approx_i)
    assert 0.3 < expected < 0.99
    assert got.value[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("dialect, read", [("postgres", "postgres"), ("trino", "trino"), ("bigquery", "bigquery"),
                                           ("snowflake", "snowflake"), ("spark", "spark"), ("clickhouse", "clickhouse"),
                                           ("sqlite", "sqlite"), ("duckdb", "duckdb")])
def test_every_dialect_gives_the_same_values(dialect, read):
    """The statement printed for a dialect (tables of that database) parses there and, translated into DuckDB's SQL
    by sqlglot, gives DuckDB's values per query."""
    sqlglot = peer("sqlglot")
    _, exact, approximate = searches(5)
    con = duckdb.connect()
    con.execute("CREATE TABLE exact_nn AS SELECT * FROM exact")
    con.execute("CREATE TABLE ann_nn AS SELECT * FROM approximate")
    measures = "Recall@10 Recall(epsilon=0.01)@5 DistanceRatio@10"
    expected = neighbours(exact, approximate, measures, per_query=True, distances=True)
    printed = neighbours("exact_nn", "ann_nn", measures, per_query=True, connection=con, dialect=dialect,
                         distances=True)
    text = printed.attrs["sql"]
    assert max(len(line) for line in text.splitlines()) < 160 and len(sqlglot.parse(text, read=read)) == 1
    got = con.execute(sqlglot.transpile(text, read=read, write="duckdb")[0]).df()
    assert list(got.query_id) == list(expected.query_id) and list(got.measure) == list(expected.measure)
    assert np.allclose(got.value.astype(float), expected.value, atol=1e-12, equal_nan=True)
    # sqlrank sql --reference: the same per query from tables of that database (named, read nowhere here), and the
    # summary, ann-benchmarks' rel infinite where the exact distances sum below 0.01 (a query of zero distances)
    assert neighbours_statement("exact_nn", "ann_nn", measures, per_query=True, dialect=dialect,
                                connection=con, distances=True) == text
    con.execute("UPDATE exact_nn SET score = 0 WHERE query_id = 'q0'; UPDATE ann_nn SET score = 0 WHERE query_id = 'q0'")
    for kept in ("exact_nn", "ann_nn"):  # the queries but q0: its ratio alone is infinite
        con.execute(f"CREATE TABLE {kept}_all AS FROM {kept}; CREATE TABLE {kept}_q0 AS FROM {kept} WHERE query_id = 'q0'")
    for suffix in ("all", "q0"):
        expected = neighbours(con.table(f"exact_nn_{suffix}").df(), con.table(f"ann_nn_{suffix}").df(), measures,
                              distances=True)
        summary = neighbours_statement(f"exact_nn_{suffix}", f"ann_nn_{suffix}", measures, dialect=dialect,
                                       connection=con, distances=True)
        got = con.execute(sqlglot.transpile(summary, read=read, write="duckdb")[0]).df()
        assert list(got.measure) == list(expected.measure) and list(got.queries) == list(expected.queries)
        assert np.allclose(got.value.astype(float), expected.value, atol=1e-12, equal_nan=True), (suffix, got, expected)
    assert np.isinf(expected.value.iloc[-1])


def test_the_command_line_on_the_fixture_and_its_errors(tmp_path):
    folder = FIXTURES / "ann"
    command = [sys.executable, "-m", "sqlrank", "eval", "--reference", str(folder / "exact.run"),
               str(folder / "ann.run"), "--distances"]
    done = subprocess.run([*command, "-m", "Recall@10 DistanceRatio@10", "-f", "csv"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    exact = pd.read_csv(folder / "exact.run", sep=" ", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "t"])
    approximate = pd.read_csv(folder / "ann.run", sep=" ", header=None,
                              names=["query_id", "q0", "doc_id", "rank", "score", "t"])
    expected = ann_benchmarks(exact, approximate, K)
    lines = done.stdout.splitlines()
    assert lines[0] == "measure,value,queries"
    assert float(lines[1].split(",")[1]) == pytest.approx(np.mean([v["knn"] for v in expected.values()]), abs=1e-12)
    for args, message in [(["-m", "Recall(epsilon=0.01)@10"], None),
                          (["-m", "Recall@30"], "100 queries have fewer than 30 exact neighbours"),
                          (["-m", "nDCG@10"], "the measures are Recall, DistanceRatio"),
                          (["-m", "Recall"], "a cutoff is required")]:
        done = subprocess.run([*command, *args], capture_output=True, text=True)
        assert (done.returncode == 0) == (message is None), done.stderr
        assert message is None or message in done.stderr and "Traceback" not in done.stderr
    similar = subprocess.run([*command[:-1], "-m", "DistanceRatio@10"], capture_output=True, text=True)
    assert similar.returncode == 1 and "relative to a distance; the scores are similarities" in similar.stderr


def test_sql_reference_prints_the_statement_eval_runs(tmp_path):
    """sqlrank sql --reference EXACT RUN prints a statement that, run in a fresh DuckDB, gives eval --reference's
    rows (per query with -q); flags of an evaluation with judgments are refused by name."""
    folder = FIXTURES / "ann"
    common = ["--reference", str(folder / "exact.run"), str(folder / "ann.run"), "--distances", "-m",
              "Recall@10 Recall(epsilon=0.01)@5 DistanceRatio@10"]
    for extra in ([], ["-q"]):
        printed = subprocess.run([sys.executable, "-m", "sqlrank", "sql", *common, *extra], capture_output=True, text=True)
        shown = subprocess.run([sys.executable, "-m", "sqlrank", "eval", *common, *extra, "-f", "csv"],
                               capture_output=True, text=True)
        assert printed.returncode == 0 and shown.returncode == 0, printed.stderr + shown.stderr
        got = duckdb.connect().execute(printed.stdout.rstrip().rstrip(";")).df()
        want = pd.read_csv(io.StringIO(shown.stdout))
        assert list(got.columns[:len(want.columns)]) == list(want.columns) and len(got) == len(want)
        assert np.allclose(got.value.astype(float), want.value, atol=1e-12, equal_nan=True)
    for args, message in [(["--preset", "trec_eval"], "--preset is not read by a search measured against exact"),
                          (["--queries", "q.csv"], "--queries is not read"),
                          ([str(folder / "ann.run")], "--reference EXACT takes one RUN")]:
        given = [*common[:3], *args, *common[3:]]  # a second run after the first
        done = subprocess.run([sys.executable, "-m", "sqlrank", "sql", *given], capture_output=True, text=True)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    done = subprocess.run([sys.executable, "-m", "sqlrank", "sql", str(folder / "ann.run"), "-m", "P@10"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "sqlrank sql takes QRELS and RUN" in done.stderr


def test_one_default_names_as_asked_negative_distances_and_unanswered_queries(tmp_path):
    """The command line read scores as similarities and Python as distances (q2's recall 1.0 against 0.667 for the
    same files): both read similarities unless told (--distances, distances=True). Rows keep the names asked
    (recall@3, and Recall@3 beside it). Negative distances (an inner-product index) made a search against itself
    score 0.83 by Recall(epsilon=0.01) and DistanceRatio infinite: refused. A query the approximate search did not
    answer is said."""
    exact = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": list("abcabc"),
                          "score": [0.9, 0.5, 0.2, 0.3, 0.2, 0.1]})
    approximate = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": list("abcabd"),
                                "score": [0.9, 0.5, 0.2, 0.3, 0.2, 0.05]})
    for name, frame in (("exact", exact), ("approximate", approximate)):
        frame.assign(q0="Q0", rank=frame.groupby("query_id").cumcount() + 1, tag="t")[
            ["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(tmp_path / f"{name}.run", sep=" ",
                                                                          header=False, index=False)
    python = neighbours(exact, approximate, "recall@3 Recall@3", per_query=True)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--reference", str(tmp_path / "exact.run"),
                           str(tmp_path / "approximate.run"), "-m", "recall@3 Recall@3", "-q", "-f", "csv"],
                          capture_output=True, text=True)
    command = pd.read_csv(io.StringIO(done.stdout))
    assert list(python.measure) == list(command.measure) == ["recall@3", "Recall@3"] * 2
    # by hand, as similarities: q2's third exact neighbour has similarity 0.1, the approximate third 0.05 < 0.1 - 1e-3
    assert list(python.value) == list(command.value) == [1.0, 1.0, pytest.approx(2 / 3), pytest.approx(2 / 3)]
    negative = exact.assign(score=-exact.score)
    assert neighbours(negative, negative, "Recall@3", distances=True).value[0] == 1.0  # not relative: fine
    with pytest.raises(sqlrank_errors().InputError, match="6 distances are negative"):
        neighbours(negative, negative, "Recall(epsilon=0.01)@3 DistanceRatio@3", distances=True)
    unanswered = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--reference", str(tmp_path / "exact.run"),
                                 str(tmp_path / "exact.run").replace("exact", "approximate"), "-m", "Recall@3"],
                                capture_output=True, text=True)
    assert "not answered" not in unanswered.stdout
    (tmp_path / "q1.run").write_text("".join(line + "\n" for line in (tmp_path / "approximate.run").read_text()
                                             .splitlines() if line.startswith("q1 ")))
    unanswered = subprocess.run([sys.executable, "-m", "sqlrank", "eval", "--reference", str(tmp_path / "exact.run"),
                                 str(tmp_path / "q1.run"), "-m", "Recall@3"], capture_output=True, text=True)
    assert "queries: 2 of the reference (1 not answered by the approximate search: Recall 0)" in unanswered.stdout


def sqlrank_errors():
    import sqlrank.errors

    return sqlrank.errors


def test_distance_ratio_pads_a_missing_or_short_answer_with_infinite_distances():
    """ann-benchmarks' runner stores a query's answer padded to k with infinite distances (results.py,
    store_results), so its rel is infinite when the approximate search misses a query or answers it with fewer than k
    neighbours; sqlrank left such a query out of the totals (a finite ratio)."""
    exact = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": list("abcabc"),
                          "score": [0.2, 0.5, 0.9, 0.1, 0.2, 0.3]})
    short = exact[(exact.query_id == "q1") & (exact.doc_id != "c")]
    for approximate in (exact[exact.query_id == "q1"], pd.concat([short, exact[exact.query_id == "q2"]])):
        per_query = neighbours(exact, approximate, "DistanceRatio@3", per_query=True, distances=True)
        assert sorted(np.isinf(value) for value in per_query.value) == [False, True]  # one query short or missing
        assert np.isinf(neighbours(exact, approximate, "DistanceRatio@3", distances=True).value[0])
    assert neighbours(exact, exact, "DistanceRatio@3", distances=True).value[0] == 1.0
