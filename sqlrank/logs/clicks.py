"""Click models (``sqlrank clicks``, ``sqlrank.clicks``): an impression log turned into real-valued judgments that any
measure reads, per query and document, with the sessions behind each. The counting models in one statement
(sql/clicks/counted.sql); the position-based, user browsing and dynamic Bayesian network models by expectation
maximisation, one statement per iteration (sql/clicks/em.sql), their parameters a table between iterations, until
they move less than the tolerance or the iterations run out. On DuckDB or another engine (logs/where.py); ``render_clicks`` prints a counting model's
statement for a dialect. Definitions: Chuklin, Markov and de Rijke, Click Models for Web Search (2015), as PyClick
implements them."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..errors import InputError, OptionError
from ..evaluation import integer_ids
from ..rendering.dialects import DIALECTS
from ..rendering.sqltext import render_template, wrap_sql
from .log import COLUMNS, declared_sql, log_sql
from .names import MODELS, Model
from .where import Place, place, where_options


# prior -> (a, b) of the counting models' (k + a) / (n + b); (a, b, the start, the cap) of EM's (a + sum) / (b + n)
PRIORS = {"pyclick": ((1, 2), (1, 5, 1 / 5, 1 - 1e-6)), "none": ((0, 0), (0, 0, 0.5, None))}


def clicks(log: Any, model: str = "pbm", iterations: int = 50, tolerance: float = 1e-9, min_sessions: int = 1,
           prior: str = "pyclick", log_columns: dict | None = None, log_format: str | None = None,
           **options: Any) -> pd.DataFrame:
    """Judgments from an impression log: query_id, doc_id, relevance (the model's estimate), sessions (the
    impressions it counts), clicks; sdbn and dbn also attractiveness and satisfaction. The EM models (pbm, ubm, dbn)
    run at most ``iterations`` iterations, stopping once no parameter moves more than ``tolerance``;
    attrs["iterations"] says how many ran, attrs["examination"] the examination probabilities (dbn:
    attrs["continuation"]). ``min_sessions``: the documents estimated from fewer
    impressions are left out. ``prior``: "pyclick" (PyClick's estimates: the counting models' ratios (k + 1) / (n + 2),
    EM's (1 + sum) / (5 + n) from 1/5, capped at 1 - 1e-6) or "none" (the plain ratios; EM from 0.5)."""
    spec = _checked(model, iterations, tolerance, min_sessions, prior)
    where = where_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of clicks")
    with place(where) as here:
        sql = log_sql(log, here, log_columns, log_format)
        if spec.fitted == "counted":
            statement = _counted(here.dialect, sql, spec.name, min_sessions, prior)
            frame = here.frame(statement)
            frame.attrs.update(iterations=0, sql=statement)
        else:
            frame = _em(here, sql, spec.name, iterations, tolerance, min_sessions, PRIORS[prior][1])
    frame = integer_ids(frame) if len(frame) else frame
    frame.attrs.update(model=spec.name, prior=prior)
    return frame


def _checked(model: str, iterations: int, tolerance: float, min_sessions: int, prior: str) -> Model:
    if not isinstance(model, str) or model.lower() not in MODELS:
        raise OptionError(f"unknown click model {model!r}; choose one of {', '.join(MODELS)}")
    for name, value in (("iterations", iterations), ("min_sessions", min_sessions)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise OptionError(f"{name} {value!r} must be a whole number >= 1")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) \
            or tolerance < 0:
        raise OptionError(f"tolerance {tolerance!r} must be a number >= 0")
    if prior not in PRIORS:
        raise OptionError(f"prior {prior!r} is not one of {', '.join(PRIORS)}")
    return MODELS[model.lower()]


def _counted(dialect, log: str, model: str, min_sessions: int, prior: str) -> str:
    a, b = PRIORS[prior][0]
    return render_template(dialect, "clicks/counted.sql", log=log, model=model, min_sessions=min_sessions, a=a, b=b)


def render_clicks(log: Any, model: str = "ctr", min_sessions: int = 1, prior: str = "pyclick", dialect: str = "duckdb",
                  log_columns: dict | None = None, log_format: str | None = None) -> str:
    """The statement of a counting click model (ctr, coec, cm, dcm, sdbn) in ``dialect``, reading the log (a file,
    checked here, or, for a dialect other than DuckDB, that database's table by name, read and checked nowhere here):
    what ``sqlrank clicks --dialect`` prints. EM (pbm, ubm, dbn) is a statement per iteration: run it with engine=."""
    spec = _checked(model, 1, 0, min_sessions, prior)
    if dialect not in DIALECTS:
        raise OptionError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
    if spec.fitted != "counted":
        raise OptionError(f"{spec.name} is fitted by EM, a statement per iteration until the parameters settle; run it "
                          f"where the log is (sqlrank clicks --engine ..., or engine= in Python); the counting models "
                          f"({', '.join(m for m, s in MODELS.items() if s.fitted == 'counted')}) are one statement")
    target = DIALECTS[dialect]
    with place({}) as here:
        sql = declared_sql(log, here, target, log_sql, COLUMNS, log_columns, "impression log", columns=log_columns,
                           format=log_format)
        return wrap_sql(_counted(target, sql, spec.name, min_sessions, prior))


def _em(here: Place, log: str, model: str, iterations: int, tolerance: float, min_sessions: int,
        prior: tuple) -> pd.DataFrame:
    """EM: the impressions a table once on DuckDB (numbered, for the sums' order; elsewhere read from the log in each
    statement), then the parameters a table per iteration."""
    a, b, start, cap = prior

    def part(name: str, **context) -> str:
        return render_template(here.dialect, "clicks/em.sql", part=name, model=model, a=a, b=b, cap=cap, start=start,
                               min_sessions=min_sessions, **context)

    source = {"impressions": None, "log": log}
    if here.other is None:
        source = {"impressions": here.keep("impressions", part("impressions", log=log)), "log": None}
    parameters, step, ran = here.keep("parameters", part("start", **source)), None, 0
    for ran in range(1, iterations + 1):
        step = part("step", parameters=parameters, **source)
        previous, parameters = parameters, here.keep("parameters", step)
        moved, undefined = here.rows(part("moved", parameters=parameters, previous=previous))[0]
        here.drop(previous)
        if undefined:
            raise InputError(f"{model}: iteration {ran} leaves {undefined} parameters undefined: a product of "
                             f"probabilities along a session is below what a double holds (1e-308); split its longest "
                             f"pages, or use pbm or ubm")
        if (moved or 0.0) <= tolerance:
            break
    frame = here.frame(part("result", parameters=parameters, **source))
    if model == "dbn":
        fitted = {"continuation": here.rows(f"SELECT value FROM {parameters} WHERE kind = 'continuation'")[0][0]}
    else:
        examination = here.frame(f"SELECT position, previous_click, value AS gamma FROM {parameters} "
                                 f"WHERE kind = 'examination' ORDER BY position, previous_click")
        fitted = {"examination": examination if model == "ubm" else examination.drop(columns="previous_click")}
    frame.attrs.update(iterations=ran, sql=step, **fitted)
    return frame
