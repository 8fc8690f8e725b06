"""Counterfactual estimates (sqlrank.counterfactual, sqlrank counterfactual) against Open Bandit Pipeline's estimators
on logged traffic of a Plackett-Luce logging policy whose propensities are exact (every ordering enumerated): the
slate estimators SlateStandardIPS, SlateIndependentIPS and SlateRewardInteractionIPS to 1e-9; its
InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting, DirectMethod and DoublyRobust on the same slots
(rounds of one position; sqlrank's value per page is theirs times the page's length); bootstrap intervals that hold
the estimate; and what bad traffic gets."""
from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sqlrank
from conftest import close, peer

K, CANDIDATES, QUERIES = 3, 5, 4


def traffic(seed: int = 0, sessions: int = 600):
    """Pages of K of CANDIDATES documents drawn by Plackett-Luce from per-query weights; rewards drawn from a
    position-discounted relevance; the item-position, prefix and slate propensities exact; a new deterministic
    ranking per query and a reward model that is the truth plus noise."""
    rng = np.random.default_rng(seed)
    weights = rng.random((QUERIES, CANDIDATES)) + 0.2
    relevance = rng.random((QUERIES, CANDIDATES))

    def order_probability(q, order):
        left, p = list(range(CANDIDATES)), 1.0
        for d in order:
            p *= weights[q, d] / weights[q, left].sum()
            left.remove(d)
        return p

    prefix = {(q, order[:k]): 0.0 for q in range(QUERIES) for order in itertools.permutations(range(CANDIDATES), K)
              for k in range(1, K + 1)}
    marginal = {}
    for q in range(QUERIES):
        for order in itertools.permutations(range(CANDIDATES), K):
            p = order_probability(q, order)
            for k in range(1, K + 1):
                prefix[(q, order[:k])] = order_probability(q, order[:k])
                marginal[(q, order[k - 1], k)] = marginal.get((q, order[k - 1], k), 0.0) + p
    rows = []
    for s in range(sessions):
        q = int(rng.integers(0, QUERIES))
        left, order = list(range(CANDIDATES)), []
        for _ in range(K):
            p = weights[q, left] / weights[q, left].sum()
            d = int(rng.choice(left, p=p))
            order.append(d)
            left.remove(d)
        for k, d in enumerate(order, 1):
            rows.append((f"s{s:04d}", f"q{q}", f"d{d}", k, float(rng.random() < relevance[q, d] * 0.8 ** (k - 1)),
                         marginal[(q, d, k)], prefix[(q, tuple(order[:k]))], prefix[(q, tuple(order))]))
    log = pd.DataFrame(rows, columns=["session_id", "query_id", "doc_id", "position", "reward", "propensity",
                                      "prefix_propensity", "slate_propensity"])
    new = pd.DataFrame([(f"q{q}", f"d{d}", float(CANDIDATES - i)) for q in range(QUERIES)
                        for i, d in enumerate(np.argsort(-relevance[q]))], columns=["query_id", "doc_id", "score"])
    model = pd.DataFrame([(f"q{q}", f"d{d}", k, relevance[q, d] * 0.8 ** (k - 1) + rng.normal(0, 0.05))
                          for q in range(QUERIES) for d in range(CANDIDATES) for k in range(1, K + 1)],
                         columns=["query_id", "doc_id", "position", "estimate"])
    return log, new, model


def _policy(log, new):
    """The new run's propensities of each logged slot, as OBP takes them: item-position, prefix (cascade), slate."""
    ranked = {(q, d): int(k) for q, d, k in zip(new.query_id, new.doc_id, new.groupby("query_id").cumcount() + 1)}
    same = np.array([ranked.get((q, d)) == k for q, d, k in zip(log.query_id, log.doc_id, log.position)], dtype=float)
    frame = log.assign(same=same)
    prefix = frame.groupby("session_id").same.cummin().to_numpy()
    slate = frame.groupby("session_id").same.transform("min").to_numpy()
    return same, prefix, slate


def test_slate_estimators_equal_open_bandit_pipeline():
    peer("obp")
    from obp.ope import SlateIndependentIPS, SlateRewardInteractionIPS, SlateStandardIPS

    log, new, _ = traffic(1)
    same, prefix, slate = _policy(log, new)
    common = dict(slate_id=log.session_id.str[1:].astype(int).to_numpy(), reward=log.reward.to_numpy(),
                  position=log.position.to_numpy() - 1)
    expected = {
        "iips": SlateIndependentIPS(len_list=K).estimate_policy_value(
            pscore_item_position=log.propensity.to_numpy(), evaluation_policy_pscore_item_position=same, **common),
        "rips": SlateRewardInteractionIPS(len_list=K).estimate_policy_value(
            pscore_cascade=log.prefix_propensity.to_numpy(), evaluation_policy_pscore_cascade=prefix, **common),
        "sips": SlateStandardIPS(len_list=K).estimate_policy_value(
            pscore=log.slate_propensity.to_numpy(), evaluation_policy_pscore=slate, **common),
    }
    got = sqlrank.counterfactual(log, new, ["ips", "iips", "rips", "sips"], ci=None)
    values = dict(zip(got.estimator, got.estimate))
    assert close(values["ips"], expected["iips"], 1e-9) and close(values["iips"], expected["iips"], 1e-9)
    assert close(values["rips"], expected["rips"], 1e-9) and close(values["sips"], expected["sips"], 1e-9)
    assert values["sips"] != values["iips"] and set(got.sessions) == {600}


def test_snips_dm_and_dr_equal_open_bandit_pipeline_per_slot():
    peer("obp")
    from obp.ope import DirectMethod, DoublyRobust, InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting

    log, new, model = traffic(2)
    same, _, _ = _policy(log, new)
    docs = {f"d{d}": d for d in range(CANDIDATES)}
    ranked = new.assign(position=new.groupby("query_id").cumcount() + 1)
    action_dist = np.zeros((len(log), CANDIDATES, K))
    estimated = np.zeros((len(log), CANDIDATES, K))
    by_slot = {(q, d, k): e for q, d, k, e in zip(model.query_id, model.doc_id, model.position, model.estimate)}
    at = {(q, k): d for q, d, k in zip(ranked.query_id, ranked.doc_id, ranked.position)}
    for i, q in enumerate(log.query_id):
        for k in range(1, K + 1):  # the new run's document at every position: a distribution per position
            action_dist[i, docs[at[(q, k)]], k - 1] = 1
        for d, a in docs.items():
            estimated[i, a, :] = [by_slot[(q, d, kk)] for kk in range(1, K + 1)]
    common = dict(reward=log.reward.to_numpy(), action=log.doc_id.map(docs).to_numpy(), position=log.position.to_numpy() - 1,
                  pscore=log.propensity.to_numpy(), action_dist=action_dist)
    expected = {"ips": InverseProbabilityWeighting().estimate_policy_value(**common),
                "snips": SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**common),
                "dm": DirectMethod().estimate_policy_value(estimated_rewards_by_reg_model=estimated, **common),
                "dr": DoublyRobust().estimate_policy_value(estimated_rewards_by_reg_model=estimated, **common)}
    got = sqlrank.counterfactual(log, new, list(expected), rewards=model, ci=None)
    for name, value in zip(got.estimator, got.estimate):
        assert close(value, K * expected[name], 1e-9), (name, value, K * expected[name])


def test_intervals_hold_the_estimate_and_follow_the_seed():
    log, new, model = traffic(3)
    first = sqlrank.counterfactual(log, new, ["ips", "snips", "dr"], rewards=model, trials=2000, seed=7)
    again = sqlrank.counterfactual(log, new, ["ips", "snips", "dr"], rewards=model, trials=2000, seed=7)
    assert first.equals(again)
    assert ((first.ci_low < first.estimate) & (first.estimate < first.ci_high)).all()
    per_session = first.attrs["per_session"].iips.to_numpy()
    width = first.ci_high[0] - first.ci_low[0]  # a percentile bootstrap of a mean: about 2 x 1.96 standard errors
    assert close(width, 2 * 1.96 * per_session.std(ddof=1) / math.sqrt(len(per_session)), 0, 0.15)


def test_the_command_line(tmp_path):
    log, new, model = traffic(4, sessions=200)
    paths = {}
    for name, frame in (("log", log), ("new", new), ("model", model)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    done = subprocess.run([sys.executable, "-m", "sqlrank", "counterfactual", str(paths["log"]), str(paths["new"]),
                           "--estimator", "ips", "--estimator", "dr", "--rewards", str(paths["model"]), "--seed", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = sqlrank.counterfactual(str(paths["log"]), str(paths["new"]), ["ips", "dr"], rewards=str(paths["model"]),
                                      seed=1)
    assert done.stdout.splitlines()[0].split()[:2] == ["estimator", "estimate"]
    assert f"{expected.estimate[1]:.4f}" in done.stdout and "200" in done.stdout
    before = paths["model"].read_bytes()
    for target in ("log", "new", "model"):  # no output over an input: the log, the new run, the reward model
        refused = subprocess.run([sys.executable, "-m", "sqlrank", "counterfactual", str(paths["log"]), str(paths["new"]),
                                  "--estimator", "dr", "--rewards", str(paths["model"]), "-o", str(paths[target])],
                                 capture_output=True, text=True)
        assert refused.returncode == 1 and "writing the output there would replace it" in refused.stderr
    assert paths["model"].read_bytes() == before


@pytest.mark.parametrize("change, message", [
    (lambda log, new: (log.assign(propensity=log.propensity.where(log.index != 4, 0.0)), new),
     "the propensity 0.0 of document"),
    (lambda log, new: (log.assign(propensity=log.propensity.where(log.index != 4, 1.5)), new), "is not in (0, 1]"),
    (lambda log, new: (log.drop(columns="position"), new), "has no column 'position'"),
    (lambda log, new: (log, pd.concat([new, pd.DataFrame({"query_id": ["q0"], "doc_id": ["never"], "score": [99.0]})])),
     "the new run puts documents where the log never shows them"),
])
def test_bad_traffic_is_an_error(change, message):
    log, new, _ = traffic(5, sessions=40)
    log, new = change(log, new)
    with pytest.raises(sqlrank.InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace("]", r"\]")):
        sqlrank.counterfactual(log, new, "ips")


def test_bad_options_are_errors():
    log, new, _ = traffic(6, sessions=10)
    with pytest.raises(sqlrank.OptionError, match="unknown estimator 'ipw'"):
        sqlrank.counterfactual(log, new, "ipw")
    with pytest.raises(sqlrank.OptionError, match="dm and dr read a reward model"):
        sqlrank.counterfactual(log, new, "dr")


@pytest.mark.parametrize("dialect, read", [("postgres", "postgres"), ("trino", "trino"), ("bigquery", "bigquery"),
                                           ("snowflake", "snowflake"), ("spark", "spark"), ("clickhouse", "clickhouse"),
                                           ("sqlite", "sqlite"), ("duckdb", "duckdb")])
def test_the_statement_printed_for_each_dialect_gives_the_estimates(dialect, read, tmp_path):
    """``sqlrank counterfactual --dialect`` (render_counterfactual) reads that database's tables by name (DuckDB: the
    files); it parses there and, translated into DuckDB's SQL by sqlglot, gives each estimator's value in one row, NULL
    where the new run fills a slot the log never shows."""
    import duckdb

    sqlglot = peer("sqlglot")
    log, new, model = traffic(8, sessions=400)
    estimators = ["ips", "snips", "iips", "rips", "sips", "dm", "dr"]
    files = {}
    for name, frame in (("log", log), ("new", new), ("model", model)):
        files[name] = str(tmp_path / f"{name}.csv")
        frame.to_csv(files[name], index=False)
    con = duckdb.connect()
    for name, frame in (("traffic", log), ("new_run", new), ("new_unseen", new.assign(doc_id="never")),
                        ("reward_model", model)):
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM frame")
    expected = sqlrank.counterfactual(log, new, estimators, rewards=model, ci=None)
    for run, supported in (("new_run", True), ("new_unseen", False)):
        text = sqlrank.render_counterfactual(files["log"] if dialect == "duckdb" else "traffic",
                                             files["new"] if dialect == "duckdb" and supported else run, estimators,
                                             rewards=files["model"] if dialect == "duckdb" else "reward_model",
                                             dialect=dialect)
        assert max(len(line) for line in text.splitlines()) < 160 and len(sqlglot.parse(text, read=read)) == 1
        found = con.execute(sqlglot.transpile(text, read=read, write="duckdb")[0]).df()
        assert len(found) == 1 and found.sessions[0] == 400
        if supported:
            assert all(close(found[e][0], v, 1e-12) for e, v in zip(expected.estimator, expected.estimate))
            assert found.unsupported_slots[0] == 0
        else:
            assert found[estimators].isna().all(axis=None) and found.unsupported_slots[0] == found.new_slots[0] > 0


def test_estimates_on_sqlite_equal_duckdb_s():
    log, new, model = traffic(9, sessions=400)
    duck = sqlrank.counterfactual(log, new, ["ips", "snips", "sips", "dr"], rewards=model, trials=300)
    other = sqlrank.counterfactual(log, new, ["ips", "snips", "sips", "dr"], rewards=model, trials=300, engine="sqlite")
    for column in ("estimate", "ci_low", "ci_high"):
        assert all(close(o, d, 1e-12) for o, d in zip(other[column], duck[column])), column
