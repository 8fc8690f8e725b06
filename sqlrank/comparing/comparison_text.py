"""A comparison as text: the terminal's table, Markdown and LaTeX (booktabs), from its rows alone (no pandas, which
the command line then need not import); reports.py builds the HTML page with the same cells."""
from __future__ import annotations

import math
from typing import Any

from ..measures.conventions import CORRECTIONS
from ..results.formats import latex_text, markdown_row
from .compare import Comparison

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
              "permutation": "paired randomization (permutation) test", "bootstrap": "paired bootstrap test",
              "ppi": "prediction-powered z-test of the mean difference (PPI++, lambda tuned)",
              "ppi-untuned": "prediction-powered z-test of the mean difference (lambda = 1)"}
CORRECTION_NAMES = dict(zip(CORRECTIONS, ("no correction", "Bonferroni", "Holm", "Benjamini-Hochberg")))


def missing(value: Any) -> bool:
    """No value in a cell: None, NaN, or pandas' NA (a nullable count of a DataFrame's rows)."""
    return value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and math.isnan(value))


def mark(p_adjusted: float) -> str:
    """Significance marks on the adjusted p-value: ** below 0.01, * below 0.05."""
    if missing(p_adjusted):
        return ""
    return "**" if p_adjusted < 0.01 else "*" if p_adjusted < 0.05 else ""


def _f(value, fmt: str = ".4f", signed: bool = False) -> str:
    if missing(value):
        return ""
    return f"{value:+{fmt}}" if signed else f"{value:{fmt}}"


def _p(value) -> str:
    if missing(value):
        return ""
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def display_rows(rows: list[dict], gsb: bool) -> tuple[list[str], list[list[str]]]:
    """A comparison's rows (Comparison.rows, or some of them) as text cells: what every layout shows."""
    segmented = bool(rows) and "segment" in rows[0]
    header = (["segment", "queries"] if segmented else []) + ["measure", "run", "mean", "delta"]
    header += ["good", "same", "bad", "gsb"] if gsb else ["wins", "ties", "losses"]
    header += ["p", "p adj.", "95% CI of delta", "effect"]
    ppi = bool(rows) and "lambda" in rows[0]  # a prediction-powered comparison: each row's estimate
    header += ["lambda", "n", "N", "eff. n"] if ppi else []
    cells_of = []
    for row in rows:
        cells = []
        if segmented:
            cells += ["all" if missing(row["segment"]) else str(row["segment"]), str(row["num_queries"])]
        cells += [row["measure"], row["run"], _f(row["mean"]), _f(row["delta"], signed=True)]
        counts = (row["good"], row["same"], row["bad"]) if gsb else (row["wins"], row["ties"], row["losses"])
        cells += ["" if missing(v) else str(v) for v in counts]
        if gsb:
            cells.append(_f(row["gsb"], signed=True))
        interval = "" if missing(row["ci_low"]) else \
            f"[{_f(row['ci_low'], signed=True)}, {_f(row['ci_high'], signed=True)}]"
        cells += [_p(row["p_value"]), _p(row["p_value_adjusted"]) + mark(row["p_value_adjusted"]), interval,
                  _f(row["effect_size"], ".2f")]
        if ppi:
            cells += [_f(row["lambda"], ".2f"), str(row["n"]), str(row["N"]), _f(row["effective_n"], ".1f")]
        cells_of.append(cells)
    return header, cells_of


def legend(c: Comparison) -> list[str]:
    comparisons = sum(row["run"] != c.runs[0] and row["measure"] not in c.untested for row in c.rows)
    untested = ([f"not tested: {', '.join(c.untested)} (one value per run, over all users or weighted per user: "
                 f"no per-query pairs)"] if c.untested else [])
    tests = [f"test: {TEST_NAMES[c.test]}, two-sided; p adj.: {CORRECTION_NAMES[c.correction]} over "
             f"{comparisons} comparison{'' if comparisons == 1 else 's'}; * p adj. < 0.05, ** p adj. < 0.01",
             f"effect: {_effect_name(c.test)}; CI: {_interval_name(c.test)}"] if comparisons or not c.untested else []
    if c.judgment_sources:
        llm, gold = c.judgment_sources["llm"], c.judgment_sources["gold"]
        tests.append(f"mean, delta: prediction-powered, the mean with {llm}'s judgments over the N - n queries {gold} "
                     f"did not judge, corrected by lambda times its difference from {gold}'s over the n they did (valid "
                     f"when {gold}'s queries are a random sample); wins, ties, losses over those n queries")
    return [f"queries: {c.num_queries} (evaluated for every run); baseline: {c.runs[0]}"] + tests + untested + (
        [f"canonical: {c.renamed}"] if c.renamed else []) + [f"conventions: {c.conventions}"] + (
        ["remove-seen: each user's history items were left out of every run before ranking"] if c.removed_seen else [])


def _effect_name(test: str) -> str:
    if test.startswith("ppi"):
        return "none (a prediction-powered estimate)"
    return {"wilcoxon": "matched-pairs rank-biserial correlation",
            "sign": "(wins - losses) / (wins + losses)"}.get(test, "Cohen's d of the paired differences (d_z)")


def _interval_name(test: str) -> str:
    if test.startswith("ppi"):
        return "prediction-powered normal interval of the mean difference"
    return "bootstrap BCa interval of the mean difference" if test == "bootstrap" else \
        "Student's t interval of the mean difference"


def text_table(c: Comparison, gsb: bool) -> str:
    header, rows = display_rows(c.rows, gsb)
    left = {"segment", "measure", "run", "95% CI of delta"}
    widths = [max(len(x) for x in column) for column in zip(header, *rows)]
    aligns = ["<" if h in left else ">" for h in header]

    def line(cells):
        return "  ".join(f"{x:{a}{w}}" for x, a, w in zip(cells, aligns, widths)).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    previous = None
    for cells in rows:
        key = tuple(cells[:3 if "segment" in header else 1])
        shown = [("" if key == previous and i < len(key) else x) for i, x in enumerate(cells)]
        previous = key
        out.append(line(shown))
    return "\n".join(out + [""] + legend(c)) + "\n"


def markdown(c: Comparison, gsb: bool) -> str:
    header, rows = display_rows(c.rows, gsb)

    align = ["---" if h in ("segment", "measure", "run") else "---:" for h in header]
    text = [markdown_row(header), markdown_row(align)] + [markdown_row(r) for r in rows]
    return "\n".join(text + [""] + [f"{x}  " for x in legend(c)]) + "\n"


def _tex(text: str) -> str:
    escaped = latex_text(text)
    return escaped.replace("**", "$^{**}$") if escaped.endswith("**") else escaped.replace("*", "$^{*}$")


def latex(c: Comparison, gsb: bool) -> str:
    """A booktabs tabular (\\usepackage{booktabs})."""
    header, rows = display_rows(c.rows, gsb)
    spec = "".join("l" if h in ("segment", "measure", "run", "95% CI of delta") else "r" for h in header)
    out = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(_tex(h) for h in header) + " \\\\",
           "\\midrule"]
    out += [" & ".join(_tex(x) for x in r) + " \\\\" for r in rows]
    out += ["\\bottomrule", "\\end{tabular}"]
    out += [f"% {line}" for line in legend(c)]
    return "\n".join(out) + "\n"
