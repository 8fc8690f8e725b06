"""Every pair of runs (``sqlrank compare --all-pairs``): for papers that compare many systems with each other.

Per measure, over the queries with a value in every run (compare's paired per-query values):

- ``tukey``: Tukey's honestly significant difference over the runs' per-query values taken as groups,
  scipy.stats.tukey_hsd (what ranx's ``stat_test="tukey"`` computes);
- ``randomized-tukey``: Carterette's randomised Tukey HSD for paired values ("Multiple testing in
  statistical analysis of systems-based information retrieval experiments", TOIS 2012): ``trials``
  times, each query's values are shuffled among the runs and the largest difference of two run means
  is kept; a pair's p-value is the share of trials whose largest difference is at least the pair's;
- any paired test of compare (t, wilcoxon, sign, permutation, bootstrap) per pair, with ``correction``
  over every pair of every measure.

Then which runs each run is significantly better than (at ``alpha``): ranx's superscript letters (the
runs lettered a, b, c in order), and a compact letter display (runs that share a letter do not
differ significantly; the letters are the maximal groups of runs no two of which differ, best mean first).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from ..errors import OptionError
from ..progress import counted
from ..results.formats import aligned_lines, latex_text, markdown_row
from .significance import adjust, paired_test, scipy_stats

TUKEY = ("tukey", "randomized-tukey")
LETTERS = "abcdefghijklmnopqrstuvwxyz"  # the runs' letters (a superscript: better than that run)
GROUPS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the compact letter display's, apart from the runs' letters
SUPERSCRIPTS = dict(zip(LETTERS, "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"))  # ranx's


@dataclass
class AllPairs:
    """``table``: one row per measure and pair (run, other: run's letter first), with both means, the
    delta (run - other), the p-value, its adjusted value and whether it is significant; ``means``,
    ``superscripts`` and ``letters`` per measure, by run."""

    table: pd.DataFrame
    runs: list[str]
    measures: list[str]
    means: dict[str, dict[str, float]]
    superscripts: dict[str, dict[str, str]]
    letters: dict[str, dict[str, str]]
    test: str
    correction: str
    alpha: float


def check_pairs(runs: list[str], test: str, correction: str, alpha: float) -> None:
    if len(runs) > len(LETTERS):
        raise OptionError(f"{len(runs)} runs: every pair is lettered a to z, so at most {len(LETTERS)} runs")
    if test.startswith("ppi"):
        raise OptionError(f"--test {test} compares each run with the baseline (a prediction-powered difference); "
                          f"leave out --all-pairs")
    if test in TUKEY and correction != "none":
        raise OptionError(f"--test {test} holds the error rate over all pairs itself; leave out --correction")
    if not 0 < alpha < 1:
        raise OptionError(f"alpha {alpha!r} must be between 0 and 1 (0.05)")


def all_pairs(scores: pd.DataFrame, means: pd.DataFrame, runs: list[str], measures: list[str], test: str = "tukey",
              correction: str = "none", trials: int = 10_000, seed: int | None = 0, alpha: float = 0.05,
              letters: bool = True) -> AllPairs:
    """``scores``: query_id, run, measure, value (compare's paired values); ``means``: measure, run, mean (the
    overall rows of compare's table: GMAP's geometric mean, as eval reports it). ``letters``: the compact
    letter display too (only where it is shown)."""
    import pandas as pd

    check_pairs(runs, test, correction, alpha)
    rows = []
    for measure in measures:
        wide = scores[scores.measure == measure].pivot(index="query_id", columns="run", values="value")
        if wide.empty:
            continue
        matrix = wide[runs].to_numpy(dtype=float)
        p_values = pair_p_values(matrix, test, trials, seed)
        mean = means[means.measure == measure].set_index("run")["mean"]
        for i, j in itertools.combinations(range(len(runs)), 2):
            rows.append({"measure": measure, "run": runs[i], "other": runs[j], "mean": mean[runs[i]],
                         "other_mean": mean[runs[j]], "delta": mean[runs[i]] - mean[runs[j]], "p_value": p_values[i, j]})
    table = pd.DataFrame(rows, columns=["measure", "run", "other", "mean", "other_mean", "delta", "p_value"])
    table["p_value_adjusted"] = adjust(list(table.p_value), correction) if len(table) else []
    table["significant"] = table.p_value_adjusted < alpha
    overall = {m: dict(zip(means[means.measure == m].run, means[means.measure == m]["mean"])) for m in measures}
    supers, shared = {}, {}
    for measure in table.measure.unique():
        better = _better(table[table.measure == measure], runs)
        supers[measure] = {run: "".join(LETTERS[runs.index(o)] for o in runs if o in better[run]) for run in runs}
        if letters:
            shared[measure] = compact_letters(runs, overall[measure], better)
    return AllPairs(table, runs, list(table.measure.unique()), overall, supers, shared, test, correction, alpha)


def pair_p_values(matrix: np.ndarray, test: str, trials: int, seed: int | None) -> np.ndarray:
    """The p-value of every pair of columns (runs) of the queries x runs matrix."""
    import numpy as np

    queries, runs = matrix.shape
    if queries < 2:  # one query: no variance, no test
        p = np.full((runs, runs), math.nan)
        np.fill_diagonal(p, 1.0)
        return p
    if test == "tukey":
        return scipy_stats().tukey_hsd(*matrix.T).pvalue
    if test == "randomized-tukey":
        return randomized_tukey(matrix, trials, seed)
    p = np.full((runs, runs), math.nan)
    for i, j in itertools.combinations(range(runs), 2):
        p[i, j] = p[j, i] = paired_test(matrix[:, i], matrix[:, j], test, trials, seed).p_value
    return p


def randomized_tukey(matrix: np.ndarray, trials: int, seed: int | None) -> np.ndarray:
    """Carterette's randomised Tukey HSD: per trial, each row (query) permuted among the columns (runs),
    the range of the column means kept; p(i, j) = share of trials whose range is >= |mean_i - mean_j|."""
    import numpy as np

    rng = np.random.default_rng(seed)
    queries, runs = matrix.shape
    observed = np.abs(matrix.mean(axis=0)[:, None] - matrix.mean(axis=0)[None, :])
    ranges = np.empty(trials)
    block = max(1, (1 << 22) // max(1, queries * runs))
    with counted("randomised Tukey HSD", trials) as advance:
        for start in range(0, trials, block):
            count = min(block, trials - start)
            order = rng.random((count, queries, runs)).argsort(axis=2)
            shuffled = np.take_along_axis(np.broadcast_to(matrix, (count, queries, runs)), order, axis=2)
            column_means = shuffled.mean(axis=1)
            ranges[start:start + count] = column_means.max(axis=1) - column_means.min(axis=1)
            advance(count)
    ranges.sort()
    at_least = trials - np.searchsorted(ranges, observed - 1e-12, side="left")
    p = at_least / trials
    np.fill_diagonal(p, 1.0)
    return p


def _better(pairs: pd.DataFrame, runs: list[str]) -> dict[str, set[str]]:
    """For each run, the runs it is significantly better than (higher mean, significant)."""
    better: dict[str, set[str]] = {run: set() for run in runs}
    for row in pairs.itertuples(index=False):
        if row.significant and row.delta > 0:
            better[row.run].add(row.other)
        elif row.significant and row.delta < 0:
            better[row.other].add(row.run)
    return better


def compact_letters(runs: list[str], means: dict[str, float], better: dict[str, set[str]]) -> dict[str, str]:
    """A compact letter display: the maximal groups of runs no two of which differ significantly, lettered
    a, b, ... by the best mean in each group; each run gets the letters of its groups."""
    differ = {run: better[run] | {o for o in runs if run in better[o]} for run in runs}
    groups: list[frozenset] = []

    alike = {run: {o for o in runs if o != run and o not in differ[run]} for run in runs}

    def extend(clique: set, candidates: set, excluded: set) -> None:  # Bron-Kerbosch with a pivot: maximal cliques
        if not candidates and not excluded:
            groups.append(frozenset(clique))
            return
        # a maximal clique holds the pivot or one of its non-neighbours: branching on those alone visits each
        # maximal clique once and at most 3^(n/3) of them (runs that do not differ at all: one branch per run)
        pivot = max(sorted(candidates | excluded, key=runs.index), key=lambda r: len(candidates & alike[r]))
        for run in sorted(candidates - alike[pivot], key=runs.index):
            extend(clique | {run}, candidates & alike[run], excluded & alike[run])
            candidates = candidates - {run}
            excluded = excluded | {run}

    extend(set(), set(runs), set())
    groups.sort(key=lambda g: (-max(means[r] for r in g), min(runs.index(r) for r in g)))
    return {run: "".join(GROUPS[k] for k, group in enumerate(groups) if run in group) for run in runs}


def pairs_text(result: AllPairs, fmt: str = "table") -> str:
    """Runs as rows, measures as columns, each mean with the letters of the runs it is significantly
    better than (ranx's superscripts), then the compact letter display; as text, Markdown or LaTeX."""
    header = ["#", "run", *result.measures]
    cells = [[LETTERS[k], run, *(_mean_cell(result, m, run, fmt) for m in result.measures)]
             for k, run in enumerate(result.runs)]
    letters = [[run, *(result.letters[m][run] for m in result.measures)] for run in result.runs]
    test = {"tukey": "Tukey's HSD", "randomized-tukey": "randomised Tukey HSD (Carterette)"}.get(
        result.test, f"paired {result.test} test")
    pairs = len(result.runs) * (len(result.runs) - 1) // 2
    over = (f"over the {pairs} pairs of each measure" if result.test in ("tukey", "randomized-tukey") else
            f"{result.correction} over {pairs * len(result.measures)} comparisons: {pairs} pairs x "
            f"{len(result.measures)} measures" if result.correction != "none" else "uncorrected")
    note = (f"a superscript letter: significantly better than that run ({test}, {over}, p < {result.alpha:g}); "
            f"capital letters: runs that share one do not differ significantly"
            + ("; bold: the best mean (higher is better), as ranx's Report.to_latex" if fmt == "latex" else ""))
    if fmt == "latex":
        return _latex(header, cells, letters, note)
    if fmt == "markdown":
        rows = [header, ["---"] * len(header), *cells]
        table = "\n".join(markdown_row(row) for row in rows)
        grouped = "\n".join(markdown_row(row) for row in [["run", *result.measures],
                                                                      ["---"] * (1 + len(result.measures)), *letters])
        return f"{table}\n\n{grouped}\n\n{note}\n"
    return _aligned(header, cells) + "\n" + _aligned(["run", *result.measures], letters) + "\n" + note + "\n"


def _mean_cell(result: AllPairs, measure: str, run: str, fmt: str) -> str:
    mean, marks = result.means[measure][run], result.superscripts[measure][run]
    if fmt == "latex":  # ranx's Report.to_latex: the best in bold, then the letters, the others' as phantoms
        best = max(result.runs, key=lambda r: (round(result.means[measure][r], 4), -result.runs.index(r)))
        phantoms = "".join(LETTERS[k] for k, other in enumerate(result.runs) if other != run and LETTERS[k] not in marks)
        score = f"\\textbf{{{mean:.4f}}}" if run == best else f"{mean:.4f}"
        return score + (f"$^{{{marks}}}$" if marks else "") + (f"\\hphantom{{$^{{{phantoms}}}$}}" if phantoms else "")
    if fmt == "markdown":
        return f"{mean:.4f}" + (f"<sup>{marks}</sup>" if marks else "")
    return f"{mean:.4f}" + "".join(SUPERSCRIPTS[c] for c in marks)


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(aligned_lines(header, rows, left=len(header))) + "\n"


def _latex(header: list[str], cells: list[list[str]], letters: list[list[str]], note: str) -> str:
    escape = latex_text  # run and measure names printed literally, whatever characters they hold

    def table(head: list[str], rows: list[list[str]], columns: str) -> list[str]:
        return ([f"\\begin{{tabular}}{{{columns}}}", "\\toprule", " & ".join(map(escape, head)) + " \\\\", "\\midrule"]
                + [" & ".join(row) + " \\\\" for row in rows] + ["\\bottomrule", "\\end{tabular}"])

    rows = [[c[0], escape(c[1]), *c[2:]] for c in cells]
    lines = table(header, rows, "ll" + "r" * (len(header) - 2)) + [""]
    lines += table(header[1:], [[escape(r[0]), *r[1:]] for r in letters], "l" + "l" * (len(header) - 2))
    return "\n".join(lines + ["", f"% {note}", ""])


def pairs_html(result: AllPairs) -> str:
    """The same tables as HTML, for the report: superscript letters as <sup>."""
    from html import escape

    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    means = [[LETTERS[k], escape(run), *(f"{result.means[m][run]:.4f}" + (
        f"<sup>{result.superscripts[m][run]}</sup>" if result.superscripts[m][run] else "") for m in result.measures)]
             for k, run in enumerate(result.runs)]
    letters = [[escape(run), *(result.letters[m][run] for m in result.measures)] for run in result.runs]
    note = escape(pairs_text(result).rstrip().splitlines()[-1])
    return (table(["#", "run", *result.measures], means) + "<p>Compact letters: runs that share a letter do not "
            "differ significantly.</p>" + table(["run", *result.measures], letters) + f'<p class="legend">{note}</p>')
