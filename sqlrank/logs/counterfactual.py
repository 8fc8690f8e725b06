"""Counterfactual (off-policy) estimates of a new ranking from logged traffic (``sqlrank counterfactual``,
``sqlrank.counterfactual``): what the new run would have earned, per session, by the standard estimators of ranking
and slate policies, and a bootstrap interval over sessions. One statement gives every session's sums
(sql/counterfactual/estimate.sql); the means, SNIPS's normalisation and the intervals are computed here."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..errors import InputError, OptionError
from ..inputs.load import load
from ..rendering.dialects import DIALECTS, Dialect
from ..rendering.sqltext import render_template, wrap_sql
from .log import declared_sql, model_sql as reward_model, traffic_sql
from .names import ESTIMATORS, NEEDS
from .where import place, where_options

TIE_BREAKS = ("trec_eval", "doc_id_asc", "input_rank")
TRAFFIC = ("session_id", "query_id", "doc_id", "position", "reward", "propensity")


def counterfactual(log: Any, run: Any, estimator: str = "ips", rewards: Any = None, ci: float | None = 0.95,
                   trials: int = 10000, seed: int | None = 0, tie_break: str = "trec_eval",
                   log_columns: dict | None = None, log_format: str | None = None, run_format: str | None = None,
                   run_columns: dict | None = None, **options: Any) -> pd.DataFrame:
    """The estimated value of ``run`` per session (the mean over the logged sessions) by ``estimator`` (ips, snips,
    iips, rips, sips, dm, dr; a list for several): a row each with estimate, ci_low, ci_high (a percentile bootstrap
    over sessions: ``trials`` resamples, ``seed``), sessions. ``log``: one row per result shown (session_id, query_id,
    doc_id, position, reward, propensity; rips reads prefix_propensity, sips slate_propensity). ``rewards``: the reward
    model of dm and dr (query_id, doc_id, position, estimate). A run that ranks documents the log never shows at that
    position of that query is an error saying the share of such slots: no estimator sees them."""
    wanted = _wanted(estimator, rewards)
    _check_tie_break(tie_break)
    if ci is not None and not (isinstance(ci, (int, float)) and not isinstance(ci, bool) and 0 < ci < 1):
        raise OptionError(f"ci={ci!r}: a confidence level between 0 and 1 (0.95)")
    optional = tuple(sorted({c for name in wanted for c in NEEDS.get(name, ())}))
    where = where_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of counterfactual")
    with place(where) as here:
        log_sql = traffic_sql(log, here, log_columns, log_format, optional)
        if here.other is None:
            run_sql = load(run, "run", here.con, here.registry, run_format, run_columns,
                           ranks=tie_break == "input_rank").sql()
        else:
            run_sql = here.other.source(run, "run", here.con, here.registry, run_format, run_columns).source_sql(
                here.dialect)
        model_sql = None if rewards is None else reward_model(rewards, here)
        sql = _estimate_sql(here.dialect, log_sql, run_sql, model_sql, optional, tie_break)
        sessions = here.frame(sql)
    _require_support(sessions)
    if model_sql is not None and sessions.unmodelled_slots.sum():
        raise InputError(f"the reward model has no estimate for {int(sessions.unmodelled_slots.sum())} slots (a logged "
                         f"document, or the new run's, at its query and position): give it one for each")
    rows = [_estimated(name, sessions, ci, trials, seed) for name in wanted]
    frame = pd.DataFrame(rows, columns=["estimator", "estimate", "ci_low", "ci_high", "sessions"])
    frame.attrs.update(sql=sql, per_session=sessions)
    return frame


def _check_tie_break(tie_break: str) -> None:
    if tie_break not in TIE_BREAKS:
        raise OptionError(f"tie_break={tie_break!r} is not one of {', '.join(TIE_BREAKS)}")


def _wanted(estimator: str | list, rewards: Any) -> list[str]:
    wanted = [estimator] if isinstance(estimator, str) else list(estimator)
    for name in wanted:
        if name not in ESTIMATORS:
            raise OptionError(f"unknown estimator {name!r}; choose one of {', '.join(ESTIMATORS)}")
    if any(name in ("dm", "dr") for name in wanted) and rewards is None:
        raise OptionError("dm and dr read a reward model: give rewards= (--rewards FILE: query_id, doc_id, position, "
                          "estimate)")
    return wanted


def _estimate_sql(dialect: Dialect, log: str, run: str, model: str | None, optional: tuple[str, ...],
                  tie_break: str, estimates: tuple[str, ...] = ()) -> str:
    return render_template(dialect, "counterfactual/estimate.sql", log=log, run=run, model=model, columns=optional,
                           order=dialect.ranking_order(tie_break, "score"), estimates=estimates)


def render_counterfactual(log: Any, run: Any, estimator: str | list = "ips", rewards: Any = None,
                          tie_break: str = "trec_eval", dialect: str = "duckdb", log_columns: dict | None = None,
                          log_format: str | None = None, run_format: str | None = None, run_columns: dict | None = None,
                          rewards_columns: dict | None = None) -> str:
    """The statement of the estimates in ``dialect``: one row, each estimator's mean over sessions (no interval: the
    bootstrap runs in Python), then the slots the new run fills and those the log never shows; reading the files
    (checked here) or, for another dialect, that database's tables by name: what ``sqlrank counterfactual --dialect``
    prints."""
    from ..inputs.locate import declared_table
    from ..inputs.source import Source

    wanted = _wanted(estimator, rewards)
    _check_tie_break(tie_break)
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    target, optional = DIALECTS[dialect], tuple(sorted({c for name in wanted for c in NEEDS.get(name, ())}))
    with place({}) as here:
        log_sql = declared_sql(log, here, target, traffic_sql, TRAFFIC + optional, log_columns, "logged traffic",
                               columns=log_columns, format=log_format, optional=optional)
        declared = declared_table(run, "run", here.con, run_columns, None)
        read = declared if isinstance(declared, Source) else load(run, "run", here.con, here.registry, run_format,
                                                                  run_columns, ranks=tie_break == "input_rank")
        model_sql = None if rewards is None else declared_sql(
            rewards, here, target, reward_model, ("query_id", "doc_id", "position", "estimate"), rewards_columns,
            "reward model")
        return wrap_sql(_estimate_sql(target, log_sql, read.source_sql(target), model_sql, optional, tie_break,
                                      tuple(wanted)))


def _estimated(name: str, sessions: pd.DataFrame, ci: float | None, trials: int, seed: int | None) -> tuple:
    from ..statistics.uncertainty import interval
    from ..statistics.significance import scipy_stats

    column = {"ips": "iips", "snips": "iips"}.get(name, name)
    values = sessions[column].to_numpy(dtype=float)
    n = len(values)
    if name == "snips":  # the weights' mean over the slots normalises: sum(r w) / n / (sum(w) / slots)
        weights, slots = sessions.weights.to_numpy(dtype=float), sessions.slots.to_numpy(dtype=float)
        if weights.sum() == 0:
            raise InputError("snips: the new run agrees with no logged slot (every weight is 0)")
        estimate = values.sum() / weights.sum() * slots.sum() / n
        low = high = math.nan
        if ci is not None and n > 1:
            found = scipy_stats().bootstrap((values, weights, slots), lambda v, w, s, axis=-1: v.sum(axis) / w.sum(axis)
                                            * s.sum(axis) / v.shape[axis], paired=True, confidence_level=ci,
                                            n_resamples=trials, method="percentile", random_state=seed, vectorized=True)
            low, high = float(found.confidence_interval.low), float(found.confidence_interval.high)
        return name, float(estimate), low, high, n
    low, high = interval(values, ci, "percentile", trials, seed) if ci is not None else (math.nan, math.nan)
    return name, float(values.mean()), low, high, n


def _require_support(sessions: pd.DataFrame) -> None:
    """Every slot of the new run within the logged pages (its document at position k of the page's query, k up to the
    page's length) is one the log shows there; else an error with the share of the slots it is not."""
    unsupported, total = int(sessions.unsupported_slots.sum()), int(sessions.new_slots.sum())
    if unsupported:
        example = sessions.unsupported_example.dropna().min()
        raise InputError(f"the new run puts documents where the log never shows them: {unsupported} of {total} slots "
                         f"({unsupported / total:.1%} of the new run's mass over the logged pages; e.g. query {example}); "
                         f"no estimator can see what they would have earned: evaluate on traffic that shows them")
