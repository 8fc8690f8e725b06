"""Click models (sqlrank.clicks, sqlrank clicks) against PyClick's definitions written here as plain-Python formulas
(github.com/markovi/PyClick, pyclick/click_models/: CTR.py's DCTR, CM.py, DCM.py, SDBN.py, PBM.py, UBM.py, with
Param.py's ParamMLE starting at 1/2 and ParamEM at 1/5, and Inference.py's EM), on generated logs, to 1e-9 after
the same iterations; COEC against its definition (clicks over the sum of the click-through rates of the positions
shown); and what a bad log gets."""
from __future__ import annotations

import subprocess
import sys
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import close, peer

PYCLICK_EM_CAP = 1 - 0.000001  # ParamEM.PROB_MIN


def generated_log(seed: int = 0, sessions: int = 400, page: int = 6) -> pd.DataFrame:
    """Result pages of 8 queries, each a page of 6 of 12 documents, clicks drawn from a position-based model: many
    sessions with no click, several with more than one."""
    rng = np.random.default_rng(seed)
    attraction = rng.random((8, 12))
    rows = []
    for s in range(sessions):
        q = int(rng.integers(0, 8))
        for position, d in enumerate(rng.permutation(12)[:page], 1):
            clicked = int(rng.random() < attraction[q, d] * 0.9 ** (position - 1))
            rows.append((f"s{s}", f"q{q}", f"d{d}", position, clicked))
    return pd.DataFrame(rows, columns=["session_id", "query_id", "doc_id", "position", "clicked"])


def pages(log: pd.DataFrame) -> list[tuple[str, list[tuple[str, int]]]]:
    """(query, [(doc, click), ...] in position order) per session: PyClick's SearchSession."""
    out = []
    for _, group in log.sort_values(["session_id", "position"]).groupby("session_id", sort=False):
        out.append((group.query_id.iloc[0], list(zip(group.doc_id, group.clicked))))
    return out


def counted_reference(log: pd.DataFrame, model: str, a: float, b: float) -> dict:
    """PyClick's maximum likelihood parameters: (a + numerator) / (b + denominator) per query and document."""
    num, den = defaultdict(float), defaultdict(float)
    sat_num, sat_den = defaultdict(float), defaultdict(float)
    for query, results in pages(log):
        clicks = [c for _, c in results]
        last = max((r for r, c in enumerate(clicks) if c), default=len(results))  # SearchSession.get_last_click_rank
        for rank, (doc, click) in enumerate(results):
            key = (query, doc)
            if model == "ctr" or (model == "cm" and not any(clicks[:rank])) or (model in ("dcm", "sdbn") and rank <= last):
                num[key] += click
                den[key] += 1
            if model == "sdbn" and click:
                sat_num[key] += rank == last
                sat_den[key] += 1
    out = {}
    for key in den:
        attraction = (a + num[key]) / (b + den[key])
        out[key] = attraction * (a + sat_num[key]) / (b + sat_den[key]) if model == "sdbn" and (b + sat_den[key]) \
            else 0.0 if model == "sdbn" else attraction
    return out


def em_reference(log: pd.DataFrame, model: str, iterations: int, a: float, b: float, start: float, cap) -> dict:
    """PyClick's EMInference over PBMAttrEM/PBMExamEM (UBM: the examination keyed by the position of the last click
    above, 0 where none): each iteration fresh parameters (a + sum) / (b + n) of the posteriors under the last ones."""
    value = (lambda x: min(x, cap)) if cap is not None else (lambda x: x)
    alpha, gamma = defaultdict(lambda: start), defaultdict(lambda: start)
    sessions = pages(log)
    for _ in range(iterations):
        an, ad, gn, gd = defaultdict(float), defaultdict(float), defaultdict(float), defaultdict(float)
        for query, results in sessions:
            previous = 0
            for rank, (doc, click) in enumerate(results, 1):
                g_key = (rank, previous if model == "ubm" else 0)
                al, ga = value(alpha[(query, doc)]), value(gamma[g_key])
                an[(query, doc)] += 1 if click else (1 - ga) * al / (1 - ga * al)
                gn[g_key] += 1 if click else (1 - al) * ga / (1 - ga * al)
                ad[(query, doc)] += 1
                gd[g_key] += 1
                previous = rank if click else previous
        alpha = defaultdict(lambda: start, {k: (a + an[k]) / (b + ad[k]) for k in ad})
        gamma = defaultdict(lambda: start, {k: (a + gn[k]) / (b + gd[k]) for k in gd})
    return {k: value(v) for k, v in alpha.items()}


def dbn_reference(log: pd.DataFrame, iterations: int, a: float, b: float, start: float, cap) -> tuple[dict, float]:
    """PyClick's DBN (DBN.py) under EMInference: attractiveness and satisfaction per query and document, one
    continuation; per session the examination (_get_session_exam) and click-after-rank (_get_session_clickafterrank)
    probabilities under the last parameters, then DBNAttrEM, DBNSatEM and DBNContEM's updates; the last click rank the
    page's length where nothing was clicked (SearchSession.get_last_click_rank). A denominator that is not positive
    makes its term 0 (where PyClick divides by zero). Returns (attraction x satisfaction per document, continuation)."""
    value = (lambda x: min(x, cap)) if cap is not None else (lambda x: x)
    attr, sat, cont = defaultdict(lambda: start), defaultdict(lambda: start), start
    sessions = pages(log)

    def ratio(num, den):
        return num / den if den > 0 else 0.0
    for _ in range(iterations):
        an, ad, sn, sd, cn, cd = defaultdict(float), defaultdict(float), defaultdict(float), defaultdict(float), 0.0, 0
        for query, results in sessions:
            n, g = len(results), value(cont)
            at = [value(attr[(query, d)]) for d, _ in results]
            st = [value(sat[(query, d)]) for d, _ in results]
            exam = [1.0]
            for r in range(n):
                exam.append(exam[r] * g * ((1 - st[r]) * at[r] + (1 - at[r])))
            car = [0.0] * (n + 1)
            for r in range(n - 1, -1, -1):
                car[r] = at[r] + (1 - at[r]) * g * car[r + 1]
            last = max((r for r, (_, c) in enumerate(results) if c), default=n)
            for r, (doc, click) in enumerate(results):
                key = (query, doc)
                an[key] += 1 if click else ratio((1 - exam[r]) * at[r], 1 - exam[r] * car[r]) if r >= last else 0
                ad[key] += 1
                if click:
                    sn[key] += ratio(st[r], 1 - (1 - st[r]) * g * car[r + 1]) if r == last else 0
                    sd[key] += 1
                cn += 1 if r < last else ratio(g * (1 - car[r + 1]), 1 - g * car[r + 1])
                cd += 1
        attr = defaultdict(lambda: start, {k: (a + an[k]) / (b + ad[k]) for k in ad})
        sat = defaultdict(lambda: start, {k: (a + sn[k]) / (b + sd[k]) for k in sd})
        cont = (a + cn) / (b + cd)
    return {k: value(attr[k]) * value(sat[k]) for k in attr}, value(cont)


def got(frame: pd.DataFrame) -> dict:
    return {(q, d): r for q, d, r in zip(frame.query_id, frame.doc_id, frame.relevance)}


@pytest.mark.parametrize("prior, a, b", [("pyclick", 1, 2), ("none", 0, 0)])
@pytest.mark.parametrize("model", ["ctr", "cm", "dcm", "sdbn"])
def test_the_counting_models_are_pyclick_s(model, prior, a, b):
    log = generated_log(1)
    expected = counted_reference(log, model, a, b)
    frame = sqlrank.clicks(log, model, prior=prior)
    values = got(frame)
    examined = {k for k in expected if k in values}
    assert len(examined) >= 80 and values.keys() <= expected.keys()
    assert all(close(values[k], expected[k], 1e-12) for k in examined)
    assert frame.sessions.min() >= 1 and (frame.clicks <= frame.sessions).all()
    if model == "ctr":
        assert values.keys() == expected.keys()  # every document shown has a click-through rate


@pytest.mark.parametrize("prior, a, b, start, cap", [("pyclick", 1, 5, 0.2, PYCLICK_EM_CAP), ("none", 0, 0, 0.5, None)])
@pytest.mark.parametrize("model", ["pbm", "ubm"])
@pytest.mark.parametrize("iterations", [1, 5, 30])
def test_em_equals_plain_em_after_the_same_iterations(model, iterations, prior, a, b, start, cap):
    log = generated_log(2)
    frame = sqlrank.clicks(log, model, iterations=iterations, tolerance=0, prior=prior)
    assert frame.attrs["iterations"] == iterations
    expected = em_reference(log, model, iterations, a, b, start, cap)
    values = got(frame)
    assert values.keys() == expected.keys()
    assert all(close(values[k], expected[k], 1e-9) for k in values), max(abs(values[k] - expected[k]) for k in values)


@pytest.mark.parametrize("prior, a, b, start, cap", [("pyclick", 1, 5, 0.2, PYCLICK_EM_CAP), ("none", 0, 0, 0.5, None)])
@pytest.mark.parametrize("iterations", [1, 5, 30])
def test_dbn_equals_pyclick_s_dbn_after_the_same_iterations(iterations, prior, a, b, start, cap):
    log = generated_log(4)
    frame = sqlrank.clicks(log, "dbn", iterations=iterations, tolerance=0, prior=prior)
    expected, continuation = dbn_reference(log, iterations, a, b, start, cap)
    values = got(frame)
    assert frame.attrs["iterations"] == iterations and values.keys() == expected.keys()
    assert all(close(values[k], expected[k], 1e-9) for k in values), max(abs(values[k] - expected[k]) for k in values)
    assert close(frame.attrs["continuation"], continuation, 1e-9)
    assert np.allclose(frame.relevance, frame.attractiveness * frame.satisfaction, rtol=0, atol=1e-15)


def test_dbn_reaches_no_result_below_a_certain_stop():
    """prior=none on a log where one document is clicked at the top of every page: its attraction is 1, so the factor
    (1 - attr) x cont that leads below it is 0 (a run of factors ends there); every document still gets PyClick's
    value."""
    rows = [(f"s{s}", "q", "top", 1, 1) for s in range(30)] + [(f"s{s}", "q", f"d{s % 3}", 2, 0) for s in range(30)]
    log = pd.DataFrame(rows, columns=["session_id", "query_id", "doc_id", "position", "clicked"])
    frame = sqlrank.clicks(log, "dbn", iterations=10, tolerance=0, prior="none")
    expected, continuation = dbn_reference(log, 10, 0, 0, 0.5, None)
    values = got(frame)
    assert values.keys() == expected.keys() and all(close(values[k], expected[k], 1e-12) for k in values)
    top = frame.set_index("doc_id").loc["top"]
    assert top.attractiveness == 1.0 and close(frame.attrs["continuation"], continuation, 1e-12)


def test_em_stops_at_the_tolerance_and_says_so():
    log = generated_log(3)
    frame = sqlrank.clicks(log, "pbm", iterations=500, tolerance=1e-6)
    ran = frame.attrs["iterations"]
    assert 1 < ran < 500
    before = em_reference(log, "pbm", ran - 1, 1, 5, 0.2, PYCLICK_EM_CAP)
    assert max(abs(v - before[k]) for k, v in got(frame).items()) <= 1e-6  # the last step moved no more than that
    assert list(frame.attrs["examination"].columns) == ["position", "gamma"]


def test_coec_is_clicks_over_expected_clicks_and_min_sessions_filters():
    log = generated_log(4)
    rate = log.groupby("position").clicked.mean()
    expected = {k: g.clicked.sum() / rate[g.position].sum() for k, g in log.groupby(["query_id", "doc_id"])}
    values = got(sqlrank.clicks(log, "coec"))
    assert values.keys() == expected.keys() and all(close(values[k], expected[k], 1e-12) for k in values)
    counts = log.groupby(["query_id", "doc_id"]).size()
    kept = sqlrank.clicks(log, "ctr", min_sessions=20)
    assert set(zip(kept.query_id, kept.doc_id)) == {k for k, n in counts.items() if n >= 20}


def test_the_judgments_are_read_by_any_measure(tmp_path):
    log = generated_log(5)
    judged = sqlrank.clicks(log, "pbm")
    run = log.drop_duplicates(["query_id", "doc_id"]).assign(score=lambda f: -f.position)[["query_id", "doc_id", "score"]]
    value = sqlrank.evaluate(judged[["query_id", "doc_id", "relevance"]], run, "nDCG@5").value[0]
    assert 0 < value < 1
    path = tmp_path / "log.csv"
    log.rename(columns={"session_id": "sid", "clicked": "click"}).to_csv(path, index=False)
    out = tmp_path / "clicks.qrels"
    done = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "--model", "pbm", "--log-columns",
                           "session_id=sid,clicked=click", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"clicks: {len(judged)} judgments of 8 queries by pbm (prior pyclick, 50 EM iterations)")
    lines = out.read_text().splitlines()
    refused = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "-o", str(path)], capture_output=True,
                             text=True)
    assert refused.returncode == 1 and "writing the output there would replace it" in refused.stderr
    parquet = tmp_path / "clicks.parquet"  # the frame's attrs (the gammas, a DataFrame) stay out of the file
    done = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "--model", "ubm", "--log-columns",
                           "session_id=sid,clicked=click", "-o", str(parquet)], capture_output=True, text=True)
    assert done.returncode == 0 and len(pd.read_parquet(parquet)) == len(judged), done.stderr
    # printed exactly, and EM's sums are added in the impressions' order: the same bits in every process
    assert len(lines) == len(judged) and all(close(float(line.split()[3]), r, 0) for line, r in zip(lines, judged.relevance))


@pytest.mark.parametrize("change, message", [
    (lambda f: f.assign(position=f.position.astype(float).where(f.index != 3, 2.5)), "the position 2.5 of document"),
    (lambda f: f.assign(position=f.position.where(f.index != 3, 0)), "is no whole number >= 1"),
    (lambda f: f.assign(clicked=f.clicked.where(f.index != 3, 2)), "clicked is 2 for document"),
    (lambda f: f.assign(position=f.position.where(f.index != 1, 1)), "session 's0' shows 2 results at position 1"),
    (lambda f: f.assign(query_id=f.query_id.where(f.index != 1, "other")), "session 's0' holds the queries"),
    (lambda f: f.assign(doc_id=f.doc_id.where(f.index != 2, None)), "a value is missing (NULL) in session 's0'"),
    (lambda f: f.drop(columns="position"), "has no column 'position'"),
])
def test_a_bad_log_is_an_error_that_says_where(change, message):
    log = change(generated_log(6, sessions=5))
    with pytest.raises(sqlrank.InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sqlrank.clicks(log, "pbm")


@pytest.mark.parametrize("kwargs, message", [({"model": "dbnx"}, "unknown click model 'dbnx'"),
                                             ({"iterations": 0}, "iterations 0 must be a whole number >= 1"),
                                             ({"tolerance": -1}, "tolerance -1 must be a number >= 0"),
                                             ({"prior": "laplace"}, "prior 'laplace' is not one of pyclick, none"),
                                             ({"log_columns": {"rank": "r"}}, "'rank' is not one of session_id")])
def test_bad_options_are_errors(kwargs, message):
    with pytest.raises(sqlrank.OptionError, match=message):
        sqlrank.clicks(generated_log(7, sessions=3), **kwargs)


DIALECTS = [("postgres", "postgres"), ("trino", "trino"), ("bigquery", "bigquery"), ("snowflake", "snowflake"),
            ("spark", "spark"), ("clickhouse", "clickhouse"), ("sqlite", "sqlite"), ("duckdb", "duckdb")]


@pytest.mark.parametrize("dialect, read", DIALECTS)
@pytest.mark.parametrize("model", ["ctr", "coec", "cm", "dcm", "sdbn"])
def test_the_statement_printed_for_each_dialect_gives_duckdb_s_labels(model, dialect, read, tmp_path):
    """``sqlrank clicks --dialect`` (render_clicks) reads that database's table by name (DuckDB: the file); it parses
    there and, translated into DuckDB's SQL by sqlglot, gives the labels sqlrank.clicks gives."""
    import duckdb

    sqlglot = peer("sqlglot")
    log = generated_log(11, sessions=80)
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    text = sqlrank.render_clicks(str(path) if dialect == "duckdb" else "logs.impressions", model, dialect=dialect)
    assert max(len(line) for line in text.splitlines()) < 160 and len(sqlglot.parse(text, read=read)) == 1
    con = duckdb.connect()
    con.execute("CREATE SCHEMA logs")
    con.execute("CREATE TABLE logs.impressions AS SELECT * FROM log")
    found = con.execute(sqlglot.transpile(text, read=read, write="duckdb")[0]).df()
    expected = sqlrank.clicks(log, model)
    assert list(zip(found.query_id, found.doc_id)) == list(zip(expected.query_id, expected.doc_id))
    assert all(close(g, e, 1e-12) for g, e in zip(found.relevance, expected.relevance))


def test_printing_refuses_what_it_cannot_print(tmp_path):
    log = generated_log(12, sessions=5)
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    with pytest.raises(sqlrank.OptionError, match="pbm is fitted by EM, a statement per iteration"):
        sqlrank.render_clicks(str(path), "pbm")
    with pytest.raises(sqlrank.OptionError, match="printed for trino is a table of that database: give its name"):
        sqlrank.render_clicks(str(path), "ctr", dialect="trino")
    with pytest.raises(sqlrank.OptionError, match="dialect 'oracle' is not one of"):
        sqlrank.render_clicks(str(path), "ctr", dialect="oracle")
    with pytest.raises(sqlrank.OptionError, match="engine 'mysql' is not one of"):
        sqlrank.clicks(log, "ctr", engine="mysql")
    with pytest.raises(sqlrank.OptionError, match="memory_limit: DuckDB settings, which do not apply on SQLite"):
        sqlrank.clicks(log, "ctr", engine="sqlite", memory_limit="1GB")
    done = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "--model", "dcm", "--dialect", "duckdb"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.rstrip().endswith(";") and "read_csv" in done.stdout
    done = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "--dialect", "trino", "--engine",
                           "sqlite"], capture_output=True, text=True)
    assert done.returncode == 1 and "--dialect prints the statement and runs nothing" in done.stderr
    assert "Traceback" not in done.stderr


def test_clicks_on_sqlite_from_the_command_line_equal_duckdb_s(tmp_path):
    """--engine sqlite (Python's own sqlite3, in this process): the log copied in, EM there, the same judgments."""
    log = generated_log(13, sessions=60)
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    outputs = {}
    for engine in ("duckdb", "sqlite"):
        out = tmp_path / f"{engine}.csv"
        done = subprocess.run([sys.executable, "-m", "sqlrank", "clicks", str(path), "--model", "ubm", "--iterations", "4",
                               "--engine", engine, "-o", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outputs[engine] = pd.read_csv(out)
    assert outputs["sqlite"][["query_id", "doc_id", "sessions"]].equals(outputs["duckdb"][["query_id", "doc_id", "sessions"]])
    assert all(close(a, b, 1e-12) for a, b in zip(outputs["sqlite"].relevance, outputs["duckdb"].relevance))
