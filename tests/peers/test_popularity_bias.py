"""The popularity-bias measures ARP (AvgPop), APLT and ACLT equal an independent implementation of their
definitions (Abdollahpouri, Burke & Mobasher, FLAIRS 2019) with the long tail split as Elliot splits it (items
by popularity, most first, into the short head until it holds head_share of the interactions; the rest is the
long tail), on generated recommender data: popular and unseen items, ties in popularity (broken by item id),
users with short lists, recommended items outside the catalog, and a catalog of items without interactions."""
from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest

import sqlrank
from support.model import ranking as trec_order

TOLERANCE = 1e-12


def generated(seed: int):
    rng = random.Random(seed)
    items = [f"i{n:03d}" for n in range(120)]
    weights = [1 / (n + 1) ** 1.1 for n in range(len(items))]  # a long tail of popularity
    history = [(f"u{rng.randrange(60)}", rng.choices(items[:100], weights[:100])[0]) for _ in range(2500)]
    run = []
    for u in range(60):
        listed = rng.sample(items + ["outside_1", "outside_2"], rng.randint(1, 25))
        run += [(f"u{u}", item, float(rng.randint(1, 8))) for item in listed]  # tied scores
    qrels = [(f"u{u}", rng.choice(items), 1) for u in range(60)]
    return (pd.DataFrame(qrels, columns=["user_id", "item_id", "relevance"]),
            pd.DataFrame(run, columns=["user_id", "item_id", "score"]),
            pd.DataFrame(history, columns=["user_id", "item_id"]),
            pd.DataFrame({"item_id": items}))


def long_tail(history: pd.DataFrame, catalog: list[str], head_share: float) -> set[str]:
    """Elliot's split: items by interactions, most first (ties by item id), into the short head until the head
    holds head_share of all interactions; every other catalog item is in the long tail."""
    counts = Counter(history.item_id)
    limit = head_share * sum(counts.values())
    head = set()
    for item in sorted(catalog, key=lambda i: (-counts.get(i, 0), i)):
        if limit <= 0:
            break
        head.add(item)
        limit -= counts.get(item, 0)
    return set(catalog) - head


def top_k(run: pd.DataFrame, k: int) -> dict[str, list[str]]:
    """Each query's top k in trec_eval's order (score descending, ties by id descending)."""
    return {query: trec_order(dict(zip(rows.item_id, rows.score)), "trec_eval")[:k]
            for query, rows in run.groupby("user_id")}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("head_share, k", [(0.8, 10), (0.5, 5), (0.95, 20)])
def test_equal_their_definitions(seed, head_share, k):
    qrels, run, history, items = generated(seed)
    catalog = sorted(set(items.item_id) | set(history.item_id))
    tail = long_tail(history, catalog, head_share)
    counts = Counter(history.item_id)
    lists = top_k(run, k)
    names = [f"ARP@{k}", f"APLT(head_share={head_share})@{k}", f"ACLT(head_share={head_share})@{k}"]
    frame = sqlrank.evaluate(qrels, run, names, per_query=True, history=history, items=items)
    values = {(r.user_id, r.measure): r.value for r in frame.itertuples() if r.user_id is not None}
    printed = list(frame.measure.unique())
    assert printed == names and frame.attrs["measures"][names[0]] == f"AvgPop@{k}"  # as asked; canonically AvgPop
    for user, listed in lists.items():
        expected = [sum(counts.get(i, 0) for i in listed) / len(listed),
                    sum(i in tail for i in listed) / len(listed), sum(i in tail for i in listed)]
        for name, value in zip(printed, expected):
            assert values[user, name] == pytest.approx(value, abs=TOLERANCE), (user, name)
    means = sqlrank.evaluate(qrels, run, names, history=history, items=items).set_index("measure").value
    assert means[printed[2]] == pytest.approx(sum(sum(i in tail for i in l) for l in lists.values()) / len(lists))


def test_head_share_is_checked():
    with pytest.raises(sqlrank.MeasureError, match="head_share"):
        sqlrank.parse_measures("APLT(head_share=0)@10")
