"""sqlrank pool: depth-k pools equal trectools' TrecPoolMaker (its topX strategy) on the same runs, with
ties in scores broken as trectools breaks them (document id ascending); the RRF and RBP budgets equal
its rrf and rbp strategies where no two documents tie on the budget's last place; judged documents are
left out; the output formats read back."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from sqlrank.cli.main import main
from conftest import peer
from sqlrank.judging.pool import pool


@pytest.fixture(scope="module")
def run_files(tmp_path_factory):
    """Three runs of 25 queries (integer ids, as trectools' RRF and RBP pools need), ties in scores, each
    run's rank column its order by score (trectools fuses by the rank column)."""
    folder = tmp_path_factory.mktemp("pool")
    rng = random.Random(3)
    paths = []
    for name in ("bm25", "dense", "hybrid"):
        lines = []
        for q in range(1, 26):
            docs = rng.sample([f"d{k:03d}" for k in range(90)], rng.randint(5, 60))
            scored = sorted(((rng.randrange(40) / 8, d) for d in docs), key=lambda x: (-x[0], x[1]))
            lines += [f"{q} Q0 {d} {i} {s} {name}" for i, (s, d) in enumerate(scored, 1)]
        path = folder / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def trectools_pool(paths, **kwargs) -> dict[str, set[str]]:
    trectools = peer("trectools")
    made = trectools.TrecPoolMaker().make_pool([trectools.TrecRun(str(p)) for p in paths], **kwargs)
    return {str(q): set(docs) for q, docs in made.pool.items()}


def as_sets(frame: pd.DataFrame) -> dict[str, set[str]]:
    return {q: set(group.doc_id) for q, group in frame.groupby("query_id")}


@pytest.mark.parametrize("depth", [1, 5, 20, 100])
def test_depth_pools_equal_trectools(run_files, depth):
    expected = trectools_pool(run_files, strategy="topX", topX=depth)
    assert as_sets(pool(run_files, depth=depth, tie_break="doc_id_asc")) == expected


@pytest.mark.parametrize("method, budget", [("rrf", 10), ("rrf", 40), ("rbp", 10), ("rbp", 25)])
def test_rrf_and_rbp_budgets_equal_trectools(run_files, method, budget):
    kwargs = {"rrf_den": 60} if method == "rrf" else {"rbp_p": 0.8, "rbp_strategy": "sum"}
    expected = trectools_pool(run_files, strategy=method, topX=budget, **kwargs)
    frame = pool(run_files, method=method, budget=budget, tie_break="doc_id_asc")
    weights = {}  # the fused weights, computed here from the rank columns, to find ties on the last place
    for path in run_files:
        for q, _, d, rank, _, _ in (line.split() for line in path.read_text().splitlines()):
            value = 1 / (60 + int(rank)) if method == "rrf" else 0.2 * 0.8 ** (int(rank) - 1)
            weights.setdefault(q, {}).setdefault(d, 0.0)
            weights[q][d] += value
    compared = 0
    for q, docs in as_sets(frame).items():
        ranked = sorted(weights[q].values(), reverse=True)
        if len(ranked) > budget and abs(ranked[budget - 1] - ranked[budget]) < 1e-12:
            continue  # two documents tie for the last place: either is the pool (trectools' sort is not stable)
        assert docs == expected[q], q
        compared += 1
    assert compared >= 15
    for row in frame.itertuples(index=False):
        assert abs(row.weight - weights[row.query_id][row.doc_id]) < 1e-12


def test_judged_documents_are_left_out_and_formats_read_back(run_files, tmp_path, capsys):
    judged = tmp_path / "judged.txt"
    everything = as_sets(pool(run_files, depth=10))
    judged.write_text("".join(f"{q} 0 {d} 1\n" for q, docs in everything.items() for d in sorted(docs)[::2]))
    rest = as_sets(pool(run_files, depth=10, qrels=[judged]))
    assert rest == {q: docs - set(sorted(docs)[::2]) for q, docs in everything.items() if docs - set(sorted(docs)[::2])}
    args = ["pool", *map(str, run_files), "--depth", "10", "--qrels", str(judged)]
    assert main([*args, "-o", str(tmp_path / "next.txt")]) == 0
    assert capsys.readouterr().out.startswith(f"pool: {sum(map(len, rest.values()))} documents to judge for {len(rest)} "
                                              f"queries (the top 10 of 3 runs, judged ones left out)")
    lines = (tmp_path / "next.txt").read_text().splitlines()
    assert {tuple(line.split()) for line in lines} == {(q, "0", d, "-1") for q, docs in rest.items() for d in docs}
    assert main([*args, "-o", str(tmp_path / "next.parquet")]) == 0
    capsys.readouterr()
    assert as_sets(pd.read_parquet(tmp_path / "next.parquet").astype({"query_id": str})) == rest
    assert main([*args, "-f", "csv"]) == 0
    assert capsys.readouterr().out.startswith("query_id,doc_id,weight\n")
    assert main([*args, "-o", str(tmp_path / "next.json")]) == 0  # the name chooses the format
    capsys.readouterr()
    assert as_sets(pd.read_json(tmp_path / "next.json", dtype={"query_id": str, "doc_id": str})) == rest
    assert main([*args, "-f", "markdown"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[:2] == ["| query_id | doc_id | weight |", "| --- | --- | ---: |"] and len(shown) == 2 + sum(map(len, rest.values()))
    assert main([*args, "-f", "latex"]) == 0 and "\\begin{tabular}" in capsys.readouterr().out
    assert main([*args, "-f", "csv", "-o", str(tmp_path / "p.json")]) == 1
    assert "-f csv and -o" in capsys.readouterr().err and not (tmp_path / "p.json").exists()
    assert main([*args, "-o", str(judged)]) == 1  # never over an input
    assert "is the input" in capsys.readouterr().err
    assert main(["pool", str(run_files[0]), "--method", "rrf"]) == 1
    assert "--method rrf needs --budget N" in capsys.readouterr().err
    assert main(["pool", str(run_files[0])]) == 1
    assert "depth pooling needs --depth K" in capsys.readouterr().err
