"""Meta-evaluation (``sqlrank meta QRELS_A QRELS_B RUN ...``): do two sets of judgments (human and LLM,
two assessors, a pool and a deeper one) rank the systems alike, and how well does each measure tell
systems apart?

Per measure: the runs ranked by their mean under each set of judgments; Kendall's tau-b of the two
rankings' means, Yilmaz, Aslam and Robertson's tau_AP of B's ranking against A's (A the reference),
and the pairs of runs the two order differently (swapped); and each measure's discriminative power
under each set (Sakai 2006): the share of the pairs of runs that a paired test (``test``: the
randomisation test ``permutation`` by default, or ``bootstrap``, ``t``, ...) finds significantly
different at ``alpha``, with the achieved significance levels (the sorted p-values) behind it.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from ..errors import OptionError
from ..results.formats import aligned_lines
from ..comparing.compare import compare_result
from ..statistics.pairs import pair_p_values
from ..statistics.correlation import kendall_tau_b
from ..statistics.significance import check_test

COLUMNS = ["measure", "runs", "tau_b", "tau_ap", "swapped", "pairs", "power_a", "power_b"]


@dataclass
class Meta:
    """``table``: one row per measure (COLUMNS); ``rankings``: measure, run, mean_a, rank_a, mean_b, rank_b;
    ``asl``: measure, judgments (a or b), run, other, p_value: the achieved significance level of each pair. Each
    is its rows (``rows``, ``ranking_rows``, ``asl_rows``: dicts) as a DataFrame, built when first asked for, so that
    the command line prints a meta-evaluation without pandas."""

    rows: list[dict]
    ranking_rows: list[dict]
    asl_rows: list[dict]
    labels: tuple[str, str]
    test: str
    alpha: float
    warnings: list[str]

    @cached_property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows, columns=COLUMNS)

    @cached_property
    def rankings(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.ranking_rows)

    @cached_property
    def asl(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.asl_rows)


def tau_ap(reference: list[str], ranking: list[str]) -> float:
    """tau_AP of ``ranking`` against ``reference`` (both the same items, best first)."""
    position = {item: k for k, item in enumerate(reference)}
    n = len(ranking)
    if n < 2:
        return math.nan
    total = sum(sum(position[ranking[j]] < position[ranking[i]] for j in range(i)) / i for i in range(1, n))
    return 2 / (n - 1) * total - 1


def meta(qrels_a: Any, qrels_b: Any, runs: Any, measures: Any, test: str = "permutation", trials: int = 1000,
         seed: int | None = 0, alpha: float = 0.05, labels: tuple[str, str] = ("a", "b"), **options: Any) -> Meta:
    check_test(test, trials, seed)
    if test in ("tukey", "randomized-tukey"):
        raise OptionError("discriminative power counts the pairs one paired test finds different: choose t, wilcoxon, "
                          "sign, permutation or bootstrap")
    if not 0 < alpha < 1:
        raise OptionError(f"alpha {alpha!r} must be between 0 and 1 (0.05)")
    first = compare_result(qrels_a, runs, measures, test="t", trials=trials, seed=seed, **options)
    second = compare_result(qrels_b, runs, measures, test="t", trials=trials, seed=seed, **options)
    if len(first.runs) < 3:
        raise OptionError("ranking systems needs at least three runs")
    rows, rankings, asl = [], [], []
    for measure in [m for m in first.measures if m not in first.untested]:
        means = [_means(result, measure) for result in (first, second)]
        order = [sorted(first.runs, key=lambda r, m=m: (-m[r], first.runs.index(r))) for m in means]
        a, b = (np.array([m[r] for r in first.runs]) for m in means)
        swapped = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in itertools.combinations(range(len(a)), 2))
        powers = []
        for label, result in zip(labels, (first, second)):
            p_values = _pair_p_values(result, measure, test, trials, seed)
            asl += [{"measure": measure, "judgments": label, "run": i, "other": j, "p_value": p} for i, j, p in p_values]
            # every pair counts: one the test cannot tell apart (identical per-query values, p undefined) is not
            # significant, as Sakai's share of pairs of runs is over all of them
            powers.append(sum(p < alpha for _, _, p in p_values) / len(p_values) if p_values else math.nan)
        tau = kendall_tau_b(a.tolist(), b.tolist())
        rows.append({"measure": measure, "runs": len(a), "tau_b": float(tau), "tau_ap": tau_ap(order[0], order[1]),
                     "swapped": int(swapped), "pairs": len(a) * (len(a) - 1) // 2, "power_a": powers[0],
                     "power_b": powers[1]})
        rankings += [{"measure": measure, "run": run, "mean_a": means[0][run], "rank_a": order[0].index(run) + 1,
                      "mean_b": means[1][run], "rank_b": order[1].index(run) + 1} for run in order[0]]
    warnings = first.warnings + [w for w in second.warnings if w not in first.warnings]
    return Meta(rows, rankings, asl, labels, test, alpha, warnings)


def _means(result, measure: str) -> dict[str, float]:
    """Each run's mean of MEASURE over all queries (not a segment's)."""
    return {row["run"]: row["mean"] for row in result.rows
            if row["measure"] == measure and _overall(row.get("segment"))}


def _overall(segment: Any) -> bool:
    return segment is None or segment != segment  # None, or NaN in rows read from a DataFrame


def _pair_p_values(result, measure: str, test: str, trials: int, seed: int | None) -> list[tuple[str, str, float]]:
    """The p-value of each pair of runs, on the queries x runs matrix of MEASURE's values, the queries sorted (the
    permutation test swaps each query's pair in that order)."""
    value = {(query, run): v for query, run, m, v in result.score_rows if m == measure}
    queries = sorted({query for query, _ in value})
    matrix = np.array([[value.get((query, run), math.nan) for run in result.runs] for query in queries], dtype=float)
    p = pair_p_values(matrix.reshape(len(queries), len(result.runs)), test, trials, seed)  # no query: 0 x runs
    return [(result.runs[i], result.runs[j], float(p[i, j]))
            for i, j in itertools.combinations(range(len(result.runs)), 2)]


def meta_text(result: Meta, rankings: bool = False) -> str:
    """The table (and, with ``rankings``, each measure's ranking under both sets) as the command line prints it."""
    a, b = result.labels
    header = ["measure", "runs", "tau_b", "tau_ap", "swapped", f"power ({a})", f"power ({b})"]
    rows = [[r.measure, str(r.runs), f"{r.tau_b:.4f}", f"{r.tau_ap:.4f}", f"{r.swapped}/{r.pairs}",
             f"{r.power_a:.4f}", f"{r.power_b:.4f}"] for r in (SimpleNamespace(**row) for row in result.rows)]
    text = _aligned(header, rows)
    if rankings:
        ranked = [SimpleNamespace(**row) for row in result.ranking_rows]
        for measure in dict.fromkeys(r.measure for r in ranked):
            text += f"\n{measure}\n" + _aligned(
                ["run", f"mean ({a})", f"rank ({a})", f"mean ({b})", f"rank ({b})"],
                [[r.run, f"{r.mean_a:.4f}", str(r.rank_a), f"{r.mean_b:.4f}", str(r.rank_b)]
                 for r in ranked if r.measure == measure])
    test = {"permutation": "the paired randomisation test", "bootstrap": "the paired bootstrap test"}.get(
        result.test, f"the paired {result.test} test")
    return text + (f"\ntau_b, tau_ap: the runs' means under {b} against those under {a}; swapped: pairs of runs the two "
                   f"order differently; power: the share of pairs of runs {test} finds different at p < "
                   f"{result.alpha:g} (Sakai's discriminative power)\n")


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(aligned_lines(header, rows)) + "\n"
