"""Prediction-powered inference over queries (``sqlrank eval --ci 95 --ci-method ppi``): most queries judged by
an LLM, a random sample of them by people too. Per measure, the mean of the LLM-judged values over the queries
people did not judge, corrected by the mean difference between the human-judged and the LLM-judged values over the
queries they did, with a normal interval whose variance adds both parts' (Angelopoulos, Bates, Fannjiang, Jordan &
Zrnic, Science 2023; for IR, Oosterhuis et al., SIGIR 2024). ``ppi`` tunes the LLM's weight lambda per measure to
the smallest variance, clipped to [0, 1] (PPI++: Angelopoulos, Duchi & Zrnic 2023), so the interval is never much
wider than the human-only one (lambda = 0); ``ppi-untuned`` takes lambda = 1. Both as the ppi-python package
computes them (ppi_mean_pointestimate and ppi_mean_ci): the human-judged queries are its labelled data, the others
its unlabelled data, two independent samples as the method assumes (counting the judged queries' LLM values twice,
in both parts, makes the interval too narrow with tuning and too wide without: tests/statistics/test_ppi.py).

Valid when the human-judged queries are a random sample of the queries evaluated (a uniform draw, decided before
anything was judged): picked for being hard, recent or disputed, they make the correction biased and the interval
wrong, as any estimate from a non-random sample is."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from ..errors import InputError, OptionError
from ..measures.conventions import resolve_conventions
from ..plan import conventions_of
from ..results.formats import aligned_lines, number_text
from .uncertainty import check_interval

UNJUDGED = "run queries have no judgments"  # the people judged a sample of the queries: expected, not a finding
# The share of the documents the LLM judged on the people's queries that the people judged too, below which the
# correction is refused: a document only the LLM judged counts as non-relevant with the people's judgments, and the
# difference between the two is then the people's missing labels, not the LLM's error.
MIN_COVERAGE = 0.9


@dataclass(frozen=True)
class Estimate:
    """One measure's prediction-powered mean: its interval, the LLM's weight ``lam``, the queries judged by
    people (``n``) and evaluated with the LLM's judgments (``N``), and the effective number of human-judged
    queries: how many a human-only interval would need to be as narrow (n times the human-only variance over
    this one's)."""

    value: float
    ci_low: float
    ci_high: float
    lam: float
    n: int
    N: int
    effective_n: float
    p_value: float = math.nan  # two-sided, of the mean being 0 (ppi-python's ppi_mean_pval): for differences


def power_tuned_lambda(y: np.ndarray, yhat: np.ndarray, yhat_all: np.ndarray) -> float:
    """PPI++'s lambda for a mean: the covariance of the human and LLM values over the human-judged queries
    (divided by n) over (1 + n / N) times the variance of the LLM values of both sets together (divided by
    n + N - 1), clipped to [0, 1] (ppi-python's _calc_lam_glm with the identity Hessian)."""
    import numpy as np

    n, total = len(y), len(yhat_all)
    covariance = np.sum((y - y.mean()) * (yhat - yhat.mean())) / n
    variance = np.var(np.concatenate([yhat, yhat_all]), ddof=1)
    if variance == 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / total) * variance), 0, 1))


def ppi_mean(y: np.ndarray, yhat: np.ndarray, yhat_all: np.ndarray, level: float, tuned: bool = True) -> Estimate:
    """The prediction-powered mean of ``y`` (human-judged values) from ``yhat`` (the same queries' LLM-judged
    values) and ``yhat_all`` (the LLM-judged values of the queries people did not judge), with its ``level``
    interval; N counts every query (both sets)."""
    import numpy as np
    from scipy.special import ndtr, ndtri

    y, yhat, yhat_all = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_all))
    n, total = len(y), len(yhat_all)
    if n < 2 or total < 2:
        return Estimate(math.nan, math.nan, math.nan, math.nan, n, n + total, math.nan)
    lam = power_tuned_lambda(y, yhat, yhat_all) if tuned else 1.0
    value = float(np.mean(lam * yhat_all) + np.mean(y - lam * yhat))
    variance = np.var(lam * yhat_all) / total + np.var(y - lam * yhat) / n
    half = float(ndtri((1 + level) / 2) * math.sqrt(variance))
    human = np.var(y) / n
    effective = n * human / variance if variance > 0 else math.inf
    p_value = float(2 * ndtr(-abs(value) / max(math.sqrt(variance), 1e-16)))  # ppi-python's floor of the deviation
    return Estimate(value, value - half, value + half, lam, n, n + total, float(effective), p_value)


def two_sources(qrels: Any, gold: str, options: Mapping[str, Any]) -> tuple[str, Any, Any]:
    """The two judgment sources of ``qrels`` (a dict, or a list of files named by their names) that a
    prediction-powered interval reads, each apart: (the LLM's name, its judgments, the judgments of ``gold``)."""
    from ..inputs.locate import is_nested_dict
    from ..inputs.merge import source_names

    if not isinstance(qrels, (list, tuple, Mapping)) or is_nested_dict(qrels):
        raise OptionError("a prediction-powered interval reads two judgment sources, the LLM's and the people's: give "
                          "them as {'llm': ..., 'human': ...} (--qrels llm=FILE --qrels human=FILE)")
    if options.get("prefer") is not None or options.get("combine") is not None:
        raise OptionError("a prediction-powered interval reads each judgment source apart; leave out prefer and "
                          "combine")
    return check_sources(source_names(qrels), gold)


def check_sources(qrels: Any, gold: str) -> tuple[str, Any, Any]:
    """The two judgment sources a prediction-powered interval reads: (the LLM's name, its judgments, the judgments of
    ``gold``, the people's)."""
    if not isinstance(qrels, Mapping) or len(qrels) != 2:
        raise OptionError("a prediction-powered interval reads two judgment sources, the LLM's and the people's: give "
                          "them as {'llm': ..., 'human': ...} (--qrels llm=FILE --qrels human=FILE)")
    if gold not in qrels:
        raise OptionError(f"no judgment source is called {gold!r} (sources: {', '.join(qrels)}); name the people's "
                          f"judgments with gold= (--gold NAME)")
    llm = next(name for name in qrels if name != gold)
    return llm, qrels[llm], qrels[gold]


def ppi_summary(llm: pd.DataFrame, human: pd.DataFrame, summary: pd.DataFrame, level: float, method: str,
                names: tuple[str, str]) -> pd.DataFrame:
    """Each mean of ``summary`` (measure, value[, run_id]) as its prediction-powered estimate (value, ci_low, ci_high,
    lambda, n, N, effective_n) from the per-query values with the LLM's judgments (``llm``: every query) and with the
    people's (``human``: the queries they judged). A measure whose value is no plain mean has none (NaN). With
    several runs, each run's paired difference from the first too (run_id "B - A": the estimate of the per-query
    differences). ``names``: the LLM's and the people's source names, which the frame's attrs keep."""
    import pandas as pd

    from .aggregate import plain_mean

    keys = ["run_id", "measure"] if "run_id" in summary.columns else ["measure"]
    llm, human = (frame.dropna(subset=["query_id", "value"]) for frame in (llm, human))
    by_llm = {key: group.set_index("query_id").value for key, group in llm.groupby(keys, sort=False)}
    by_human = {key: group.set_index("query_id").value for key, group in human.groupby(keys, sort=False)}
    empty = pd.Series(dtype=float)
    rows = []
    for record in summary.to_dict("records"):
        key = tuple(record[k] for k in keys)  # pandas groups by a list of keys as tuples
        rows.append({**{k: record[k] for k in keys}, **estimated(by_llm.get(key, empty), by_human.get(key, empty),
                                                                 plain_mean(record["measure"]), record["measure"],
                                                                 level, method, names)})
    runs = list(dict.fromkeys(summary["run_id"])) if "run_id" in keys else []
    for run in runs[1:]:  # paired: the per-query differences from the first run, over the queries both have
        for measure in dict.fromkeys(summary["measure"]):
            every, judged = (by.get((run, measure), empty) - by.get((runs[0], measure), empty) for by in (by_llm,
                                                                                                       by_human))
            rows.append({"run_id": f"{run} - {runs[0]}", "measure": measure,
                         **estimated(every.dropna(), judged.dropna(), plain_mean(measure), measure, level, method,
                                      names)})
    frame = pd.DataFrame(rows, columns=keys + ["value", "ci_low", "ci_high", "lambda", "n", "N", "effective_n"])
    frame.attrs.update(summary.attrs, ci=level, ci_method=method, judgment_sources={"llm": names[0], "gold": names[1]},
                       empty=empty_rows(rows, keys))
    return frame


def estimated(every: pd.Series, judged: pd.Series, plain: bool, measure: str, level: float, method: str,
               names: tuple[str, str]) -> dict:
    """One row's estimate from every query's LLM-judged values and the human-judged ones (by query id)."""
    missing = judged.index.difference(every.index)
    if len(missing):
        raise InputError(f"{measure}: {len(missing)} queries judged by {names[1]} have no value with {names[0]}'s "
                         f"judgments (e.g. {missing[0]!r}); the LLM judges every query people judge")
    others = every.drop(judged.index)
    if plain and len(judged) and not len(others):
        raise OptionError(f"{names[1]} judged every query: the means with their judgments alone need no LLM "
                          f"(evaluate with {names[1]}'s judgments, --ci 95)")
    estimate = ppi_mean(judged.to_numpy(), every.loc[judged.index].to_numpy(), others.to_numpy(), level,
                        tuned=method == "ppi") if plain and len(judged) else None
    values = (estimate.value, estimate.ci_low, estimate.ci_high, estimate.lam, estimate.effective_n, estimate.p_value) \
        if estimate else (math.nan,) * 6
    note = None
    if not plain:
        note = "its value is no mean of per-query values"
    elif math.isnan(values[0]):
        note = (f"{names[1]} judged {len(judged)} of the {len(every)} queries with a value and {names[0]} alone "
                f"{len(others)}; an estimate and its interval need 2 or more of each")
    return {**dict(zip(("value", "ci_low", "ci_high", "lambda", "effective_n", "p_value"), values)), "n": len(judged),
            "N": len(every), "note": note}


def empty_rows(rows: list[dict], keys: list[str]) -> list[str]:
    """Why each row without an estimate has none, for the warnings: 'GMAP: no prediction-powered estimate: ...'."""
    return [f"{' '.join(str(row[k]) for k in keys)}: no prediction-powered estimate: {row['note']}"
            for row in rows if row.get("note")]


def ppi_text(frame: pd.DataFrame) -> str:
    """The prediction-powered means as the command line prints them."""
    level = f"{frame.attrs['ci'] * 100:g}% CI"
    keys = ["run_id", "measure"] if "run_id" in frame.columns else ["measure"]
    header = keys + ["value", level, "lambda", "n", "N", "effective n"]
    rows = [[str(r[k]) for k in keys] + [number_text(r["value"]),
                                         "" if math.isnan(r["ci_low"]) else f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
                                         number_text(r["lambda"], 2), str(r["n"]), str(r["N"]), number_text(r["effective_n"], 1)]
            for r in frame.to_dict("records")]
    llm, gold = frame.attrs["judgment_sources"]["llm"], frame.attrs["judgment_sources"]["gold"]
    tuned = "lambda tuned per measure (PPI++; 0: the people's alone)" if frame.attrs["ci_method"] == "ppi" else \
        "lambda = 1 (PPI without power tuning)"
    return "\n".join([*aligned_lines(header, rows, left=len(keys)), "",
                      f"{level}: prediction-powered, the mean with {llm}'s judgments over the N - n queries {gold} did "
                      f"not judge, corrected by lambda times its difference from {gold}'s over the n they did; {tuned}; "
                      f"effective n: the {gold}-judged queries a {gold}-only interval would need to be as narrow "
                      f"(valid when the {gold}-judged queries are a random sample of the queries)", ""])


def prediction_powered(qrels: Any, run: Any, measures: Any, level: float, method: str, gold: str = "human",
                       **options: Any) -> tuple[pd.DataFrame, list[str], str]:
    """The run evaluated per query with each of the two judgment sources of ``qrels`` (the LLM's and ``gold``, the
    people's), then each mean's prediction-powered estimate (ppi_summary); with the two evaluations' warnings and
    the conventions they were evaluated under, described."""
    from ..evaluation import evaluate_result

    llm_name, llm, human = two_sources(qrels, gold, options)
    require_one_population(options)
    covered = coverage(llm, human, (llm_name, gold), options)
    with_llm = evaluate_result(llm, run, measures, True, **options)
    with_gold = evaluate_result(human, run, measures, True, **options)
    frame = ppi_summary(with_llm.frame, with_gold.frame, with_llm.summary, level, method, (llm_name, gold))
    said = source_warnings((llm_name, with_llm.warnings), (gold, with_gold.warnings)) + covered + frame.attrs["empty"]
    return frame, said, with_llm.conventions.describe()


def require_one_population(options: Mapping[str, Any]) -> None:
    """The queries people judged are a sample of those the LLM's judgments evaluate: under no_relevant=skip (set, or
    by the preset of ``options``) a query whose people's judgments hold no relevant document would leave their sample
    (and the LLM's value stand in for theirs) while the LLM's keep it. Checked before anything is evaluated."""
    if resolve_conventions(options.get("preset"), **conventions_of(options)).no_relevant == "skip":
        raise OptionError("a prediction-powered estimate needs every query people judged, whatever they found: "
                          "no_relevant=skip leaves out those whose people's judgments hold no relevant document, and "
                          "the LLM's value would stand in for theirs; evaluate with no_relevant=zero")


def coverage(llm: Any, human: Any, names: tuple[str, str], options: Mapping[str, Any]) -> list[str]:
    """The share of the documents the LLM judged on the queries people judged that people judged too: refused below
    MIN_COVERAGE (people who judged one run's top 10 leave the other run's documents non-relevant by their
    judgments: a difference of -0.79 in AP, p < 0.0001, from labels missing, not wrong), said where it is short of
    all of them."""
    from ..engines.duckdb import session
    from ..inputs.load import load

    with session(options.get("connection")) as (con, registry):
        read = [load(source, "qrels", con, registry, options.get("qrels_format"), options.get("qrels_columns"))
                for source in (llm, human)]
        pool, both = con.execute(
            f"SELECT count(*), count(people.doc_id) FROM ({read[0].sql()}) AS machine "
            f"LEFT JOIN ({read[1].sql()}) AS people USING (query_id, doc_id) "
            f"WHERE machine.query_id IN (SELECT query_id FROM ({read[1].sql()}) AS sample)").fetchall()[0]
    if not pool or both == pool:
        return []
    share = f"{names[1]} judged {both} ({both / pool:.0%}) of the {pool} documents {names[0]} judged on {names[1]}'s queries"
    if both < MIN_COVERAGE * pool:
        raise InputError(f"{share}; a prediction-powered estimate needs their labels on the same documents (at least "
                         f"{MIN_COVERAGE:.0%}): a document only {names[0]} judged counts as non-relevant by "
                         f"{names[1]}'s judgments, and the correction would measure the labels missing. Have "
                         f"{names[1]} judge the pool {names[0]} judged on those queries")
    return [f"{share}: the others count as non-relevant by {names[1]}'s judgments"]


def source_warnings(llm: tuple[str, list[str]], gold: tuple[str, list[str]]) -> list[str]:
    """The warnings of the evaluations with the LLM's judgments and with the people's: once where both said it (of
    the run: ties), else named by the source that said it; not that people left queries unjudged (the design)."""
    both = set(llm[1]) & set(gold[1])
    return [*[message for message in llm[1] if message in both],
            *[f"{name}: {message}" for name, said in (llm, gold) for message in said
              if message not in both and not (name == gold[0] and UNJUDGED in message)]]


def prediction_powered_frame(qrels: Any, run: Any, measures: Any, level: float, method: str, gold: str,
                             options: dict, per_query: bool = False, record: Any = None, weights: Any = None,
                             aggregate: str = "mean") -> pd.DataFrame:
    """sqlrank.evaluate(ci_method="ppi"): each mean's prediction-powered estimate, the evaluations' warnings warned."""
    import warnings

    from ..errors import SqlrankWarning

    check_interval(level, method, 10_000, 0)
    if per_query or record is not None or weights is not None or aggregate != "mean":
        raise OptionError("a prediction-powered interval is of the plain means; leave out per_query, record, weights "
                          "and aggregate")
    frame, said, _ = prediction_powered(qrels, run, measures, level, method, gold, **options)
    for message in said:
        warnings.warn(message, SqlrankWarning, stacklevel=4)
    return frame
