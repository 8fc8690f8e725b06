"""The fairness measures equal FairRankTune (PyPI) where it has them and the papers' formulas otherwise, per query,
on generated data: tied scores, documents in one group, in several groups or in none, groups without exposure,
graded and negative labels, unjudged documents.

- Exposure(group=G)@k: FairRankTune's EXP gives each group's mean exposure 1 / log2(rank + 1) over its items
  (browse=log), and its AWRF each group's mean attention 100 p (1 - p)^(rank - 1) (browse=rbp with patience
  1 - p); each group's share of the sum of them is Exposure's value (Singh & Joachims, KDD 2018, section 3).
- ExposureGini@k: the Gini coefficient as the mean absolute difference over all pairs of groups, over twice the
  mean (Gini 1912; the relative mean absolute difference), written here.
- AWRF@k: 1 - scipy.spatial.distance.jensenshannon(P, Q, base=2), P the groups' shares of the exposure and Q the
  target (Sapiezynski et al., WWW 2019; TREC Fair Ranking 2022), written here; AWRF_nDCG@k times nDCG@k of
  trec_eval's definition, written here too.
"""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

import sqlrank
from support.model import ranking as trec_order
from conftest import peer
from support.generate import sampled_rankings
from sqlrank.errors import OptionError

TOLERANCE = 1e-9
GROUPS = ["g0", "g1", "g2", "g3", "g4"]


def generated(seed: int, multiple: bool):
    """qrels, run and groups; with ``multiple``, some documents in two groups and some in none."""
    rng = random.Random(seed)
    qrels, run, groups = [], [], []
    docs = [f"d{n:03d}" for n in range(300)]
    for doc in docs:
        if multiple and rng.random() < 0.1:
            continue  # no group
        chosen = rng.sample(GROUPS[:4], 2) if multiple and rng.random() < 0.2 else [rng.choice(GROUPS[:4])]
        groups += [(doc, g) for g in chosen]  # g4 has no document: a group without exposure
    groups.append(("d_elsewhere", "g4"))
    for q in range(30):
        query = f"q{q}"
        retrieved = rng.sample(docs, rng.randint(3, 25))
        for doc in retrieved:
            run.append((query, doc, round(rng.uniform(0, 2), 1)))
            if rng.random() < 0.6:
                qrels.append((query, doc, rng.choice((-1, 0, 1, 1, 2, 3))))
        qrels.append((query, rng.choice(docs), 1))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]).drop_duplicates(["query_id", "doc_id"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
            pd.DataFrame(groups, columns=["doc_id", "group"]))


def rankings(run: pd.DataFrame, k: int) -> dict[str, list[str]]:
    """Each query's top k in trec_eval's order (score descending, ties by id descending)."""
    return {query: trec_order(dict(zip(rows.doc_id, rows.score)), "trec_eval")[:k]
            for query, rows in run.groupby("query_id")}


def attention(rank: int, browse: str, p: float) -> float:
    return 1 / math.log2(rank + 1) if browse == "log" else p ** (rank - 1)


def group_exposure(ranking: list[str], member: dict, browse: str, p: float) -> dict[str, float]:
    """Each group's exposure: a document in n groups gives each 1/n of its rank's attention."""
    out = {g: 0.0 for g in GROUPS}
    for rank, doc in enumerate(ranking, 1):
        for g in member.get(doc, ()):
            out[g] += attention(rank, browse, p) / len(member[doc])
    return out


def values(frame: pd.DataFrame) -> dict:
    return {(r.query_id, r.measure): r.value for r in frame.itertuples() if r.query_id is not None}


@pytest.mark.parametrize("browse, p, k", [("log", 0.5, 10), ("rbp", 0.8, 5), ("rbp", 0.5, 20)])
def test_group_exposure_equals_fairranktune(browse, p, k):
    peer("FairRankTune")
    from FairRankTune.Metrics.AWRF import AWRF
    from FairRankTune.Metrics.EXP import EXP

    qrels, run, groups = generated(5, multiple=False)
    member = groups.groupby("doc_id").group.apply(list).to_dict()
    frame = sqlrank.evaluate(qrels, run, f"Exposure(browse={browse},p={p})@{k}", per_query=True, groups=groups)
    got = values(frame)
    names = {g: next(m for m in frame.measure.unique() if f"group={g}" in m) for g in GROUPS}
    compared = 0
    for query, ranking in rankings(run, k).items():
        if query not in set(qrels.query_id):
            continue
        items = {doc: member[doc][0] for doc in ranking}
        if browse == "log":
            _, means = EXP(pd.DataFrame({0: ranking}), items, "MinMaxRatio")
        else:
            _, means = AWRF(pd.DataFrame({0: ranking}), items, 1 - p, "MinMaxRatio")
        counts = pd.Series(list(items.values())).value_counts()
        exposure = {g: means[g] * counts[g] for g in means}
        total = sum(exposure.values())
        for g in GROUPS:
            assert got[query, names[g]] == pytest.approx(exposure.get(g, 0.0) / total, abs=TOLERANCE), (query, g)
            compared += 1
    assert compared > 100


def jensen_shannon(p: list[float], q: list[float]) -> float:
    from scipy.spatial.distance import jensenshannon
    return float(jensenshannon(p, q, base=2))


def ndcg(ranking: list[str], labels: dict, k: int) -> float:
    """trec_eval's nDCG@k: gains the labels (0 for labels <= 0 and unjudged), 1 / log2(rank + 1), the ideal
    from all the query's judgments."""
    dcg = sum(max(labels.get(d, 0), 0) / math.log2(i + 1) for i, d in enumerate(ranking[:k], 1))
    ideal = sum(g / math.log2(i + 1) for i, g in enumerate(sorted((max(v, 0) for v in labels.values()),
                                                                   reverse=True)[:k], 1))
    return dcg / ideal if ideal else 0.0


@pytest.mark.parametrize("browse, p, k, rel", [("log", 0.5, 10, 1), ("rbp", 0.7, 5, 2)])
def test_gini_and_awrf_equal_their_formulas(browse, p, k, rel):
    peer("scipy")
    qrels, run, groups = generated(6, multiple=True)
    member = groups.groupby("doc_id").group.apply(list).to_dict()
    model = f"browse={browse},p={p}"
    names = [f"ExposureGini({model})@{k}", f"AWRF({model})@{k}", f"AWRF(target=relevant,rel={rel},{model})@{k}",
             f"AWRF_nDCG({model})@{k}", f"Exposure(group=g1,{model})@{k}"]
    frame = sqlrank.evaluate(qrels, run, names, per_query=True, groups=groups)
    printed = list(frame.measure.unique())
    got = values(frame)
    compared = 0
    for query, ranking in rankings(run, k).items():
        judged = qrels[qrels.query_id == query]
        if judged.empty:
            continue
        labels = dict(zip(judged.doc_id, judged.relevance))
        exposure = group_exposure(ranking, member, browse, p)
        x = [exposure[g] for g in GROUPS]
        n, grouped = len(x), sum(x)
        gini = sum(abs(a - b) for a in x for b in x) / (2 * n * n * (grouped / n)) if grouped else None
        share = [v / grouped for v in x] if grouped else None
        relevant = group_exposure([d for d, v in labels.items() if v >= rel], member, "rbp", 1.0)  # 1 per document
        relevant_total = sum(relevant.values())
        uniform = 1 - jensen_shannon(share, [1 / n] * n) if share else None
        target = 1 - jensen_shannon(share, [relevant[g] / relevant_total for g in GROUPS]) \
            if share and relevant_total else None
        total = sum(attention(r, browse, p) for r in range(1, len(ranking) + 1))
        expected = [gini, uniform, target, None if uniform is None else uniform * ndcg(ranking, labels, k),
                    exposure["g1"] / total]
        for name, value in zip(printed, expected):
            mine = got[query, name]
            if value is None:
                assert mine is None or math.isnan(mine), (query, name)
            else:
                assert mine == pytest.approx(value, abs=TOLERANCE), (query, name)
            compared += 1
    assert compared > 100


def test_groups_are_required_and_named():
    qrels, run, groups = generated(7, multiple=True)
    with pytest.raises(OptionError, match="--groups FILE"):
        sqlrank.evaluate(qrels, run, "AWRF@10")
    with pytest.warns(sqlrank.SqlrankWarning, match="groups is read by the fairness measures.*so it is not read"):
        sqlrank.evaluate(qrels, run, "P@10", groups=groups)
    with pytest.raises(sqlrank.MeasureError, match="group's name"):
        sqlrank.parse_measures("Exposure(group='')@10")


@pytest.mark.parametrize("rename", [str.upper, lambda g: g.replace("g", "Group "), lambda g: {"g1": "none"}.get(g, g)])
def test_group_names_are_data(rename):
    """Any name works (News, 'Group 1', none): the values are those of the same groups named g1, g2..."""
    qrels, run, groups = generated(7, multiple=True)
    plain = sqlrank.evaluate(qrels, run, "Exposure@10 ExposureGini@10 AWRF@10", groups=groups)
    renamed = sqlrank.evaluate(qrels, run, "Exposure@10 ExposureGini@10 AWRF@10",
                               groups=groups.assign(group=groups.group.map(rename)))
    def by_group(frame):
        return {sqlrank.parse_measures(m)[0].param("group"): v for m, v in zip(frame.measure, frame.value)}
    assert by_group(renamed) == {rename(g) if g is not None else None: v for g, v in by_group(plain).items()}
    assert list(renamed.value[-2:]) == list(plain.value[-2:])


def test_documents_without_a_group_are_counted_and_said(tmp_path):
    """A retrieved document in no group: a warning says how many and what they count as; Exposure's shares then
    sum to the grouped part of the top k's attention (here d2 at rank 2 of 2: 1 - 0.6309 / 1.6309)."""
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d1"], "relevance": [1]})
    groups = pd.DataFrame({"doc_id": ["d1", "d3"], "group": ["a", "b"]})
    with pytest.warns(sqlrank.SqlrankWarning, match="1 retrieved documents are in no group of --groups, e.g. 'd2'"):
        frame = sqlrank.evaluate(qrels, run, "Exposure@2", groups=groups)
    shares = frame.set_index("measure").value
    assert shares["Exposure(browse=log,group=a)@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-12)
    assert shares["Exposure(browse=log,group=b)@2"] == 0


def expeval(qrels: pd.DataFrame, samples: pd.DataFrame, p: float) -> dict[str, tuple[float, float, float]]:
    """expeval's (Diaz et al., CIKM 2020) RBP user model, unnormalised, written from its exposure.py: per query with
    a relevant document, (disparity EE-D, relevance EE-R, difference EE-L)."""
    out = {}
    for query, judged in qrels[qrels.relevance > 0].groupby("query_id"):
        labels = dict(zip(judged.doc_id, judged.relevance))
        levels = sorted(pd.Series(list(labels.values())).value_counts().items(), reverse=True)
        target, better = {}, 0
        for grade, m in levels:
            for doc in (d for d, g in labels.items() if g == grade):
                target[doc] = (p ** better - p ** (better + m)) / (m * (1 - p))
            better += m
        rankings = samples[samples.query_id == query]
        if rankings.empty:
            continue
        exposure: dict[str, float] = {}
        count = rankings["sample"].nunique()
        for _, rows in rankings.groupby("sample"):
            ordered = sorted(zip(rows.score, rows.doc_id), reverse=True)  # expeval: rl.sort(reverse=True)
            for i, (_, doc) in enumerate(ordered):
                exposure[doc] = exposure.get(doc, 0.0) + p ** i / count
        docs = set(target) | set(exposure)
        out[query] = (sum(v * v for v in exposure.values()), sum(target[d] * exposure.get(d, 0.0) for d in target),
                      sum((target.get(d, 0.0) - exposure.get(d, 0.0)) ** 2 for d in docs))
    return out


@pytest.mark.parametrize("p", [0.5, 0.8])
def test_expected_exposure_equals_expeval(tmp_path, p):
    qrels, samples = sampled_rankings(9)
    expected = expeval(qrels, samples, p)
    assert len(expected) >= 15
    path = tmp_path / "stochastic.run"  # expeval's run: the sample id in column 2
    path.write_text("".join(f"{q} {s} {d} 1 {score} r\n" for q, s, d, score in samples.itertuples(index=False)))
    names = [f"EE_D(p={p})", f"EE_R(p={p})", f"EE_L(p={p})"]
    for run in (str(path), samples):
        frame = sqlrank.evaluate(qrels, run, names, per_query=True)
        printed = list(frame.measure.unique())
        got = values(frame)
        for query, triple in expected.items():
            for name, value in zip(printed, triple):
                assert got[query, name] == pytest.approx(value, abs=TOLERANCE), (query, name)


def test_sampled_rankings_are_read_for_the_expected_exposure_only():
    qrels, samples = sampled_rankings(10)
    with pytest.raises(OptionError, match="sampled rankings of one; evaluate them apart"):
        sqlrank.evaluate(qrels, samples, "EE_L nDCG@10")
    one = samples[samples["sample"] == "s0"]
    both = sqlrank.evaluate(qrels, one, "EE_L nDCG@10", per_query=True)  # one sample: a ranking like any other
    alone = sqlrank.evaluate(qrels, one.drop(columns="sample"), "nDCG@10", per_query=True)
    assert both[both.measure == "nDCG@10"].value.tolist() == pytest.approx(alone.value.tolist(), abs=1e-12)
    with pytest.raises(sqlrank.InputError, match="no sample column"):
        sqlrank.evaluate(qrels, one.drop(columns="sample"), "EE_L")


def test_awrf_against_target_shares_from_a_file(tmp_path):
    """AWRF(target=file): the shares of --targets, a query's own for a group where it has one, else the one given
    for every query, normalised to sum to 1; against scipy's Jensen-Shannon distance."""
    qrels, run, groups = generated(8, multiple=True)
    member = groups.groupby("doc_id").group.apply(list).to_dict()
    every = {"g0": 4.0, "g1": 3.0, "g2": 2.0, "g3": 1.0}  # no share for g4: 0
    own = {"q3": {"g0": 1.0, "g4": 1.0}, "q7": {"g2": 0.5, "g3": 0.25}}
    rows = [(None, g, v) for g, v in every.items()] + [(q, g, v) for q, shares in own.items() for g, v in shares.items()]
    targets = tmp_path / "targets.csv"
    pd.DataFrame(rows, columns=["query_id", "group", "share"]).to_csv(targets, index=False)
    frame = sqlrank.evaluate(qrels, run, "AWRF(target=file)@10", per_query=True, groups=groups, targets=str(targets))
    got = values(frame)
    name = frame.measure.iloc[0]
    for query, ranking in rankings(run, 10).items():
        if query not in set(qrels.query_id):
            continue
        exposure = group_exposure(ranking, member, "log", 0.5)
        grouped = sum(exposure.values())
        shares = {g: own.get(query, {}).get(g, every.get(g, 0.0)) for g in GROUPS}  # a group's own, else every query's
        total = sum(shares.values())
        expected = 1 - jensen_shannon([exposure[g] / grouped for g in GROUPS], [shares[g] / total for g in GROUPS])
        assert got[query, name] == pytest.approx(expected, abs=TOLERANCE), query
    with pytest.raises(OptionError, match="--targets FILE"):
        sqlrank.evaluate(qrels, run, "AWRF(target=file)@10", groups=groups)


def test_check_reports_the_groups():
    """sqlrank check --groups: retrieved documents in no group (counted by pandas here), documents in several, and
    documents of the groups table no run or judgment names."""
    qrels, run, groups = generated(7, multiple=True)
    findings = sqlrank.check(qrels, [run], groups=groups).set_index("check")["count"]
    ungrouped = set(run.doc_id) - set(groups.doc_id)
    several = (groups.groupby("doc_id").size() > 1).sum()
    unknown = set(groups.doc_id) - set(run.doc_id) - set(qrels.doc_id)
    assert findings["retrieved documents in no group"] == len(ungrouped) > 0
    assert findings["documents in several groups"] == several > 0
    assert findings["grouped documents of no run or judgment"] == len(unknown) > 0


def test_trec_fair_2022_as_the_track_computes_it(tmp_path):
    """The trec_fair_2022 preset against TREC Fair Ranking 2022's own formula (fair-trec/trec2022-fair-public,
    wptrec/metrics/awrf.py and common.py), written here: the discount 1 / log2(max(i, 2)) of each grouped page's
    rank in the whole ranking, the groups' alignment the discount-weighted mean of the pages' alignments (a page in
    two groups: half each; pages without one left out), AWRF = 1 - d * d with d = scipy's jensenshannon(alignment,
    target) (base e), and nDCG binary with the same discount, the ideal of min(target length, relevant) ones. The
    track's discounts are 32-bit floats; these are computed in doubles, as sqlrank computes them."""
    from scipy.spatial.distance import jensenshannon

    qrels, run, groups = generated(11, multiple=True)
    qrels = qrels.assign(relevance=(qrels.relevance >= 1).astype(int))  # the track's qrels: relevant pages
    member = groups.groupby("doc_id").group.apply(list).to_dict()
    rng = random.Random(11)
    shares = {q: {g: rng.choice((0.0, 1.0, 2.0, 5.0)) for g in GROUPS} for q in sorted(set(run.query_id))}
    for own in shares.values():
        own["g4"] = own["g4"] or 1.0  # g4 has no retrieved page: a target share the ranking cannot reach
    targets = tmp_path / "targets.csv"
    pd.DataFrame([(q, g, v) for q, own in shares.items() for g, v in own.items()],
                 columns=["query_id", "group", "share"]).to_csv(targets, index=False)
    k = 20
    frame = sqlrank.evaluate(qrels, run, f"AWRF@{k} AWRF_nDCG@{k}", per_query=True, groups=groups,
                             targets=str(targets), preset="trec_fair_2022")
    got = values(frame)
    awrf_name, product_name = frame.measure.unique()[:2]
    relevant = qrels[qrels.relevance >= 1].groupby("query_id").doc_id.apply(set).to_dict()
    compared = 0
    for query, ranking in rankings(run, k).items():
        if query not in set(qrels.query_id):
            continue
        disc = [1 / math.log2(max(i, 2)) for i in range(1, len(ranking) + 1)]
        known = [(d, w) for d, w in zip(ranking, disc) if d in member]
        if not known:
            assert (query, awrf_name) not in got or pd.isna(got[query, awrf_name]), query
            continue
        alignment = [sum(w / len(member[d]) for d, w in known if g in member[d]) / sum(w for _, w in known)
                     for g in GROUPS]
        distance = float(jensenshannon(alignment, [shares[query][g] for g in GROUPS]))
        awrf = 1 - distance * distance
        rel = relevant.get(query, set())
        ideal = sum(disc_i for disc_i in [1 / math.log2(max(i, 2)) for i in range(1, min(k, len(rel)) + 1)])
        ndcg_value = sum(w for d, w in zip(ranking, disc) if d in rel) / ideal if ideal else 0.0
        assert got[query, awrf_name] == pytest.approx(awrf, abs=TOLERANCE), query
        assert got[query, product_name] == pytest.approx(awrf * ndcg_value, abs=TOLERANCE), query
        compared += 1
    assert compared >= 20
    # the default is another formula (1 - the distance in base 2, 1 / log2(i + 1)): named, never mixed up
    canonical = frame.attrs["measures"][awrf_name]  # the rows are named as asked (AWRF@20)
    assert "js=divergence" in canonical and "browse=jarvelin" in canonical and "AWRF(browse=log)" not in canonical
